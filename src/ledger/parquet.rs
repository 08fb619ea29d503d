//! One Parquet file of a table: written column by column with the `parquet` crate's own
//! writer (no Arrow), under a temporary name that engines skip, then renamed; and read
//! back row by row.

use std::collections::HashMap;
use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::Context as _;
use parquet::basic::{Compression, ZstdLevel};
use parquet::data_type::{ByteArray, ByteArrayType, DoubleType, Int64Type};
use parquet::file::properties::WriterProperties;
use parquet::file::reader::{FileReader, SerializedFileReader};
use parquet::file::writer::SerializedFileWriter;
use parquet::record::{Field, RowAccessor};
use parquet::schema::types::Type;

/// What a column holds, as engines read it without a cast.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// UTF-8 text (`VARCHAR`, Spark `string`).
    Text,
    /// A 64-bit integer (`BIGINT`).
    Int,
    /// A 64-bit float (`DOUBLE`).
    Real,
    /// A moment, milliseconds since the epoch in UTC (`TIMESTAMP WITH TIME ZONE`, Spark
    /// `timestamp`).
    Time,
}

/// A column: its name, kind, whether it may be null, and its values.
pub(crate) struct Column {
    pub name: &'static str,
    pub kind: Kind,
    pub nullable: bool,
    pub values: Values,
}

/// A column's values (`None`: null).
pub(crate) enum Values {
    Text(Vec<Option<String>>),
    Int(Vec<Option<i64>>),
    Real(Vec<Option<f64>>),
}

impl Column {
    pub(crate) fn text(name: &'static str, nullable: bool, v: Vec<Option<String>>) -> Column {
        Column {
            name,
            kind: Kind::Text,
            nullable,
            values: Values::Text(v),
        }
    }

    pub(crate) fn int(name: &'static str, nullable: bool, v: Vec<Option<i64>>) -> Column {
        Column {
            name,
            kind: Kind::Int,
            nullable,
            values: Values::Int(v),
        }
    }

    pub(crate) fn time(name: &'static str, nullable: bool, v: Vec<Option<i64>>) -> Column {
        Column {
            name,
            kind: Kind::Time,
            nullable,
            values: Values::Int(v),
        }
    }

    pub(crate) fn real(name: &'static str, nullable: bool, v: Vec<Option<f64>>) -> Column {
        Column {
            name,
            kind: Kind::Real,
            nullable,
            values: Values::Real(v),
        }
    }

    /// The column's line in the schema's message.
    fn schema_line(&self) -> String {
        let repetition = if self.nullable {
            "OPTIONAL"
        } else {
            "REQUIRED"
        };
        let (physical, logical) = match self.kind {
            Kind::Text => ("BYTE_ARRAY", " (STRING)"),
            Kind::Int => ("INT64", ""),
            Kind::Real => ("DOUBLE", ""),
            Kind::Time => ("INT64", " (TIMESTAMP(MILLIS,true))"),
        };
        format!("{repetition} {physical} {}{logical};", self.name)
    }
}

/// Rows per row group: a reader holds one group's columns at a time.
const ROW_GROUP: usize = 64 * 1024;

/// Files of fewer rows are not compressed. A day's file of one machine is often a few
/// hundred rows, its column chunks a few hundred bytes, where zstd saves a fifth at most
/// (some chunks grow) while each compressed chunk costs every reader a zstd context to
/// make (`parquet` makes one per chunk): 60 % of `usage --ledger`'s time over a 50-machine
/// fleet of such files (`scripts/bench-ledger.sh`).
const COMPRESS_FROM_ROWS: usize = 4096;

/// Writes `columns` (of equal length) as the Parquet file `path`: first as `.<name>.tmp`
/// in its folder — a name DuckDB's `*.parquet`, Spark and Trino all skip — then renamed,
/// so that a reader never sees half a file and a killed export leaves no data behind.
pub(crate) fn write(path: &Path, table: &str, columns: Vec<Column>) -> anyhow::Result<()> {
    let schema = Arc::new(schema(table, &columns)?);
    let rows = columns.first().map_or(0, Column::len);
    let compression = if rows >= COMPRESS_FROM_ROWS {
        Compression::ZSTD(ZstdLevel::try_new(3)?)
    } else {
        Compression::UNCOMPRESSED
    };
    let props = Arc::new(
        WriterProperties::builder()
            .set_compression(compression)
            .set_created_by(format!("cursor-stream {}", env!("CARGO_PKG_VERSION")))
            .build(),
    );
    let tmp = temporary_name(path);
    let file = File::create(&tmp).with_context(|| format!("cannot write {}", tmp.display()))?;
    let mut writer = SerializedFileWriter::new(BufWriter::new(file), schema, props)?;
    let mut start = 0;
    while start < rows {
        let end = (start + ROW_GROUP).min(rows);
        let mut group = writer.next_row_group()?;
        for column in &columns {
            if !column.nullable && column.has_null(start..end) {
                anyhow::bail!("the column `{}` may not be null", column.name);
            }
            let mut out = group
                .next_column()?
                .context("the schema has fewer columns than the table")?;
            column.write(start..end, &mut out)?;
            out.close()?;
        }
        group.close()?;
        start = end;
    }
    let file = writer.into_inner()?;
    file.into_inner().map_err(|e| e.into_error())?.sync_all()?;
    std::fs::rename(&tmp, path)
        .with_context(|| format!("cannot rename {} to {}", tmp.display(), path.display()))?;
    Ok(())
}

/// `.<name>.tmp` beside `path`.
pub(crate) fn temporary_name(path: &Path) -> PathBuf {
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    path.with_file_name(format!(".{name}.tmp"))
}

fn schema(table: &str, columns: &[Column]) -> anyhow::Result<Type> {
    let lines: Vec<String> = columns.iter().map(Column::schema_line).collect();
    let message = format!("message {table} {{ {} }}", lines.join(" "));
    Ok(parquet::schema::parser::parse_message_type(&message)?)
}

impl Column {
    fn len(&self) -> usize {
        match &self.values {
            Values::Text(v) => v.len(),
            Values::Int(v) => v.len(),
            Values::Real(v) => v.len(),
        }
    }

    fn has_null(&self, range: std::ops::Range<usize>) -> bool {
        match &self.values {
            Values::Text(v) => v[range].iter().any(Option::is_none),
            Values::Int(v) => v[range].iter().any(Option::is_none),
            Values::Real(v) => v[range].iter().any(Option::is_none),
        }
    }

    /// Writes the rows `range` of the column.
    fn write(
        &self,
        range: std::ops::Range<usize>,
        out: &mut parquet::file::writer::SerializedColumnWriter<'_>,
    ) -> anyhow::Result<()> {
        match &self.values {
            Values::Text(v) => {
                let (values, levels) = split(&v[range], |s| ByteArray::from(s.as_bytes()));
                let levels = self.nullable.then_some(&levels[..]);
                out.typed::<ByteArrayType>()
                    .write_batch(&values, levels, None)?;
            }
            Values::Int(v) => {
                let (values, levels) = split(&v[range], |n| *n);
                let levels = self.nullable.then_some(&levels[..]);
                out.typed::<Int64Type>()
                    .write_batch(&values, levels, None)?;
            }
            Values::Real(v) => {
                let (values, levels) = split(&v[range], |n| *n);
                let levels = self.nullable.then_some(&levels[..]);
                out.typed::<DoubleType>()
                    .write_batch(&values, levels, None)?;
            }
        }
        Ok(())
    }
}

/// The values that are there, and a definition level per row (1: there, 0: null).
fn split<T, U>(rows: &[Option<T>], f: impl Fn(&T) -> U) -> (Vec<U>, Vec<i16>) {
    let values = rows.iter().flatten().map(f).collect();
    let levels = rows.iter().map(|v| i16::from(v.is_some())).collect();
    (values, levels)
}

/// A row read back: its fields by name (the file's columns, found once per file).
pub(crate) struct ReadRow<'r> {
    row: &'r parquet::record::Row,
    columns: &'r HashMap<String, usize>,
}

impl ReadRow<'_> {
    fn field(&self, name: &str) -> Option<&Field> {
        let i = *self.columns.get(name)?;
        self.row.get_column_iter().nth(i).map(|(_, f)| f)
    }

    pub(crate) fn text(&self, name: &str) -> Option<&str> {
        let i = *self.columns.get(name)?;
        self.row.get_string(i).ok().map(String::as_str)
    }

    pub(crate) fn int(&self, name: &str) -> Option<i64> {
        let i = *self.columns.get(name)?;
        if let Ok(n) = self.row.get_long(i) {
            return Some(n);
        }
        if let Ok(n) = self.row.get_timestamp_millis(i) {
            return Some(n);
        }
        match self.field(name)? {
            Field::Int(n) => Some(i64::from(*n)),
            Field::TimestampMillis(n) => Some(*n),
            Field::TimestampMicros(n) => Some(n.div_euclid(1000)),
            _ => None,
        }
    }

    pub(crate) fn real(&self, name: &str) -> Option<f64> {
        let i = *self.columns.get(name)?;
        self.row.get_double(i).ok()
    }
}

/// Calls `each` on every row of the Parquet file `path`, in order: one row group's
/// columns are held at a time.
pub(crate) fn read(path: &Path, mut each: impl FnMut(&ReadRow<'_>)) -> anyhow::Result<()> {
    let file = File::open(path)?;
    let reader = SerializedFileReader::new(file)?;
    let columns: HashMap<String, usize> = reader
        .metadata()
        .file_metadata()
        .schema_descr()
        .columns()
        .iter()
        .enumerate()
        .map(|(i, c)| (c.name().to_string(), i))
        .collect();
    for row in reader.get_row_iter(None)? {
        let row = row?;
        each(&ReadRow {
            row: &row,
            columns: &columns,
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A row of the test's file: a key, a time, a cost.
    type TestRow = (String, Option<i64>, Option<f64>);

    /// Writes `rows` rows of three columns and reads them back: the values, and whether
    /// the file is compressed.
    fn round_trip(rows: usize) -> (Vec<TestRow>, bool) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.parquet");
        let columns = vec![
            Column::text(
                "key",
                false,
                (0..rows).map(|i| Some(format!("k{i}"))).collect(),
            ),
            Column::time(
                "at",
                true,
                (0..rows)
                    .map(|i| (i % 3 != 0).then_some(i as i64))
                    .collect(),
            ),
            Column::real(
                "cost",
                true,
                (0..rows)
                    .map(|i| (i % 2 == 0).then_some(i as f64 / 4.0))
                    .collect(),
            ),
        ];
        write(&path, "t", columns).unwrap();
        assert!(!temporary_name(&path).exists());
        let mut back = Vec::new();
        read(&path, |row| {
            back.push((
                row.text("key").unwrap().to_string(),
                row.int("at"),
                row.real("cost"),
            ))
        })
        .unwrap();
        let reader = SerializedFileReader::new(File::open(&path).unwrap()).unwrap();
        let codec = reader.metadata().row_group(0).column(0).compression();
        (back, codec != Compression::UNCOMPRESSED)
    }

    #[test]
    fn small_files_stay_plain_and_large_ones_are_compressed_and_both_read_back() {
        for (rows, compressed) in [(10, false), (COMPRESS_FROM_ROWS + 7, true)] {
            let (back, is) = round_trip(rows);
            assert_eq!(is, compressed, "{rows} rows");
            assert_eq!(back.len(), rows);
            for (i, (key, at, cost)) in back.into_iter().enumerate() {
                assert_eq!(key, format!("k{i}"));
                assert_eq!(at, (i % 3 != 0).then_some(i as i64));
                assert_eq!(cost, (i % 2 == 0).then_some(i as f64 / 4.0));
            }
        }
    }
}
