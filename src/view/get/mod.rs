//! `get`: jq-style extraction, one value per line (see `path` for the path language).
//!
//! Output follows jq: compact JSON, one value per line; `-r` writes strings unescaped;
//! `-j` writes them raw with no newline between values; a missing key gives `null`; a key
//! repeated in an object counts once, with its last value. A step that cannot apply (`.text`
//! of a string) is reported with its line and ends that event's output, unless the step has
//! `?`.
//!
//! Exit status, as jq's: 5 when a path step failed on some event; with `-e`, 1 when the
//! last value was `false` or `null` and 4 when there was no value at all; else 0.

use serde_json::value::RawValue;

pub(crate) mod path;

use crate::agent::RawLine;
use crate::agent::event::{Event, Wants};
use crate::exit::ExitStatus;
use crate::input::peek::{Head, TypeSet};
use crate::runs::Runs;
use crate::view::filter::{EventFilter, LineFacts};
use crate::view::{Ctx, View};
use path::{Compact, Paths, Value};

#[derive(Debug, Clone)]
pub struct GetOptions {
    pub paths: Paths,
    pub filter: EventFilter,
    /// `-r`: strings without quotes or escapes.
    pub raw: bool,
    /// `-j`: like `-r`, and no newline after each value.
    pub join: bool,
    /// `-e`: the exit status tells whether the last value was `null` or `false`.
    pub exit_status: bool,
}

pub(crate) struct GetView {
    opts: GetOptions,
    facts: LineFacts,
    buf: Vec<u8>,
    compact: Compact,
    values: u64,
    last_falsy: bool,
    errors: u64,
}

impl GetView {
    pub(crate) fn new(opts: GetOptions) -> GetView {
        GetView {
            opts,
            facts: LineFacts::default(),
            buf: Vec::new(),
            compact: Compact::default(),
            values: 0,
            last_falsy: false,
            errors: 0,
        }
    }

    fn write(&mut self, value: &Value<'_>, ctx: &mut Ctx) -> anyhow::Result<()> {
        self.buf.clear();
        if self.opts.raw || self.opts.join {
            self.compact.write_raw(value, &mut self.buf);
        } else {
            self.compact.write(value.text(), &mut self.buf);
        }
        if !self.opts.join {
            self.buf.push(b'\n');
        }
        ctx.out.write_out(&self.buf)?;
        self.values += 1;
        self.last_falsy = value.is_falsy();
        Ok(())
    }
}

impl View for GetView {
    fn wants(&self) -> Wants {
        self.opts.filter.wants()
    }

    fn raw_types(&self) -> TypeSet {
        self.opts.filter.raw_types()
    }

    fn reports_runs(&self) -> bool {
        false
    }

    fn exit_status(&self, _runs: &Runs) -> ExitStatus {
        if self.errors > 0 {
            ExitStatus::PATH_ERROR
        } else if !self.opts.exit_status {
            ExitStatus::SUCCESS
        } else if self.values == 0 {
            ExitStatus::NO_VALUE
        } else if self.last_falsy {
            ExitStatus::FALSY
        } else {
            ExitStatus::SUCCESS
        }
    }

    fn event(&mut self, ev: &Event<'_>, ctx: &mut Ctx) -> anyhow::Result<()> {
        self.facts.event(ev, ctx);
        Ok(())
    }

    fn after(&mut self, line: &RawLine<'_>, head: &Head, ctx: &mut Ctx) -> anyhow::Result<()> {
        if !self.opts.filter.passes(line, head, &self.facts, ctx) {
            return Ok(());
        }
        let root: &RawValue = match crate::input::json::from_line(line.bytes) {
            Ok(root) => root,
            Err(e) => {
                ctx.diag.bad_line(
                    &mut ctx.out,
                    "lines that are not JSON",
                    format_args!("not JSON ({e})"),
                    line.bytes,
                )?;
                return Ok(());
            }
        };
        let mut values = Vec::new();
        for i in 0..self.opts.paths.0.len() {
            values.clear();
            let result = self.opts.paths.0[i].eval(root, &mut values);
            for value in &values {
                self.write(value, ctx)?;
            }
            if let Err(e) = result {
                self.errors += 1;
                ctx.diag.warn(&mut ctx.out, "path errors", e);
                break;
            }
        }
        Ok(())
    }
}
