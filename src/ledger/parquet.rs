//! One Parquet file of a table: written column by column with the `parquet` crate's own
//! writer (no Arrow), under a temporary name that engines skip, then renamed; and read
//! back row by row.

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
use parquet::record::Field;
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

/// Writes `columns` (of equal length) as the Parquet file `path`: first as `.<name>.tmp`
/// in its folder — a name DuckDB's `*.parquet`, Spark and Trino all skip — then renamed,
/// so that a reader never sees half a file and a killed export leaves no data behind.
pub(crate) fn write(path: &Path, table: &str, columns: Vec<Column>) -> anyhow::Result<()> {
    let schema = Arc::new(schema(table, &columns)?);
    let props = Arc::new(
        WriterProperties::builder()
            .set_compression(Compression::ZSTD(ZstdLevel::try_new(3)?))
            .set_created_by(format!("cursor-stream {}", env!("CARGO_PKG_VERSION")))
            .build(),
    );
    let tmp = temporary_name(path);
    let file = File::create(&tmp).with_context(|| format!("cannot write {}", tmp.display()))?;
    let mut writer = SerializedFileWriter::new(BufWriter::new(file), schema, props)?;
    let rows = columns.first().map_or(0, Column::len);
    let mut start = 0;
    while start < rows {
        let end = (start + ROW_GROUP).min(rows);
        let mut group = writer.next_row_group()?;
        for column in &columns {
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

/// A row read back: its fields by name.
pub(crate) struct ReadRow<'r>(&'r parquet::record::Row);

impl ReadRow<'_> {
    fn field(&self, name: &str) -> Option<&Field> {
        self.0
            .get_column_iter()
            .find(|(n, _)| *n == name)
            .map(|(_, f)| f)
    }

    pub(crate) fn text(&self, name: &str) -> Option<&str> {
        match self.field(name)? {
            Field::Str(s) => Some(s),
            _ => None,
        }
    }

    pub(crate) fn int(&self, name: &str) -> Option<i64> {
        match self.field(name)? {
            Field::Long(n) => Some(*n),
            Field::Int(n) => Some(i64::from(*n)),
            Field::TimestampMillis(n) => Some(*n),
            Field::TimestampMicros(n) => Some(n.div_euclid(1000)),
            _ => None,
        }
    }

    pub(crate) fn real(&self, name: &str) -> Option<f64> {
        match self.field(name)? {
            Field::Double(n) => Some(*n),
            Field::Float(n) => Some(f64::from(*n)),
            _ => None,
        }
    }
}

/// Calls `each` on every row of the Parquet file `path`, in order: one row group's
/// columns are held at a time.
pub(crate) fn read(path: &Path, mut each: impl FnMut(&ReadRow<'_>)) -> anyhow::Result<()> {
    let file = File::open(path)?;
    let reader = SerializedFileReader::new(file)?;
    for row in reader.get_row_iter(None)? {
        each(&ReadRow(&row?));
    }
    Ok(())
}
