//! `get`: jq programs over the events of any agent, or over any NDJSON.
//!
//! The program is compiled once by the jaq engine (`program`) and run on each input value.
//! What an input is:
//!
//! - by default, every JSON value on a line: an agent's event, an object without `type`,
//!   an array, a string, a number (a line may hold several values, as jq reads them);
//! - with `--type`, `--subtype`, `--tool` or `--session`, the event lines that pass, picked
//!   by the peek before any parse (other lines are reported as by every view);
//! - with `--normalized`, the normalized events (`view::normalized`), whatever the agent;
//! - with `-s`, each run's inputs in one array (a run is the unit of every view; lines
//!   outside a run are an array of their own);
//! - with `-n`, `null`, once, and no input is read.
//!
//! Two shortcuts give the same bytes as the engine, faster: a program made only of paths
//! (`.a.b, .c[0]`) walks the line's raw text (`path`) instead of building its value; a
//! program that starts with `select(…)` on `.type`/`.subtype` has that test read off the
//! peek (`prefilter`), so the lines it rejects are never parsed.
//!
//! Output follows jq: one value per line, compact unless `--indent N` or `--tab`; `-r`
//! writes strings unescaped; `-j` writes them raw with no newline between values; `-S`
//! sorts the keys of objects.
//!
//! Exit status, as jq's: 5 when the program failed on some input (each failure is reported
//! with its file and line, and the next input goes on); with `-e`, 1 when the last value
//! was `false` or `null` and 4 when there was no value at all; `halt_error` ends with the
//! status it asks for; else 0.

pub(crate) mod builtins;
pub(crate) mod compat;
pub(crate) mod data;
pub(crate) mod jv;
pub(crate) mod path;
pub(crate) mod prefilter;
pub(crate) mod program;
pub(crate) mod pull;

/// The stack `get`'s programs run on: the engine recurses once per level of a value (to
/// read, compare, print or drop it), and jq's values may be 10,000 levels deep. Only what
/// is used is ever committed.
pub(crate) const LARGE_STACK: usize = 1 << 30;
pub(crate) mod read;
mod stream;
mod syntax;

use std::sync::Arc;

use jaq_core::ValT;
use jaq_json::Val;
use serde_json::value::RawValue;

use crate::agent::RawLine;
use crate::agent::event::{Event, RunEnd, Wants};
use crate::exit::ExitStatus;
use crate::input::peek::{BadLine, Head, TypeSet};
use crate::runs::Runs;
use crate::view::filter::{EventFilter, LineFacts};
use crate::view::{Ctx, View};
use path::{Compact, Paths, Value};
use prefilter::Cond;
pub(crate) use program::{Bindings, Program};

/// How values are laid out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Layout {
    /// One line per value, no spaces (jq's `-c`).
    #[default]
    Compact,
    /// Indented by this many spaces (`--indent N`, 1 to 7 as jq).
    Spaces(u8),
    /// Indented by tabs (`--tab`).
    Tab,
}

/// What `get` runs and how it writes (the fields are the command line's options).
#[derive(Debug, Clone)]
pub struct GetOptions {
    /// The program's text, and the program compiled.
    pub code: String,
    pub(crate) program: Arc<Program>,
    pub filter: EventFilter,
    /// `-r`: strings without quotes or escapes.
    pub raw: bool,
    /// `-j`: like `-r`, and no newline after each value.
    pub join: bool,
    /// `-e`: the exit status tells whether the last value was `null` or `false`.
    pub exit_status: bool,
    /// `-n`: the program runs once, on `null`.
    pub null_input: bool,
    /// `-s`: the program runs on each run's inputs in one array.
    pub slurp: bool,
    /// `--slurp-all`: the program runs once, on every input in one array (jq's `-s`).
    pub slurp_all: bool,
    /// `-R`: each line is a string input, whatever it holds.
    pub raw_input: bool,
    /// `--stream`: each input given as the events of jq's streaming form, each an input.
    pub stream: bool,
    /// `-C` (or `--color`): values written in colour, as jq does (`JQ_COLORS`).
    pub color: bool,
    /// `-S`: objects' keys sorted.
    pub sort_keys: bool,
    pub layout: Layout,
    /// `--normalized`: the inputs are the normalized events.
    pub normalized: bool,
    /// `-a`: every character past ASCII written as a `\uXXXX` escape (strings then always
    /// as JSON, as jq writes them under `-r -a`).
    pub ascii: bool,
    /// `--seq`: each value after an ASCII record separator (RFC 7464).
    pub seq: bool,
    /// `--raw-output0`: like `-r`, each value followed by a NUL instead of a newline.
    pub raw0: bool,
}

impl GetOptions {
    /// Whether strings are written raw (`-r`, `-j`, `--raw-output0`, but not with `-a`).
    fn raw_strings(&self) -> bool {
        (self.raw || self.join || self.raw0) && !self.ascii
    }

    /// `code` compiled with no variables, every option off (compact output).
    pub fn new(code: &str) -> Result<GetOptions, String> {
        GetOptions::with_bindings(code, &Bindings::default())
    }

    /// `code` compiled with the variables of the command line, every option off.
    pub(crate) fn with_bindings(code: &str, bindings: &Bindings) -> Result<GetOptions, String> {
        let program = Program::compile(code, bindings).map_err(|e| e.to_string())?;
        Ok(GetOptions {
            code: code.to_owned(),
            program: Arc::new(program),
            filter: EventFilter::default(),
            raw: false,
            join: false,
            ascii: false,
            seq: false,
            raw0: false,
            exit_status: false,
            null_input: false,
            slurp: false,
            slurp_all: false,
            raw_input: false,
            stream: false,
            color: false,
            sort_keys: false,
            layout: Layout::Compact,
            normalized: false,
        })
    }
}

/// `halt` or `halt_error`: the reading stops, and the process exits with this status.
#[derive(Debug)]
pub(crate) struct Halted(pub u8);

impl std::fmt::Display for Halted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "halted with status {}", self.0)
    }
}

impl std::error::Error for Halted {}

pub(crate) struct GetView {
    opts: GetOptions,
    /// The program as paths, when the raw-text walk can run it.
    paths: Option<Arc<Paths>>,
    /// The `select` the program starts with, when the peek can decide it, and whether it
    /// reads the `subtype`.
    prefilter: Option<(Cond, bool)>,
    /// The program after that `select`, when it is only paths.
    after_select: Option<Arc<Paths>>,
    pp: jaq_json::write::Pp,
    facts: LineFacts,
    buf: Vec<u8>,
    compact: Compact,
    values: u64,
    last_falsy: bool,
    errors: u64,
    /// `$run`, and what it was made for: (input, run index, in a run, session id known).
    run_value: Option<((u64, u64, bool, bool), Val)>,
    /// `input_filename`, and the stretch of lines it was made for (`Diag::stretch`).
    file_value: Option<(u64, Val)>,
    /// Runs started in the current input, and that input's number.
    runs_in_input: (u64, u64),
    /// `-s`: the inputs of the current run.
    slurped: Vec<Val>,
    /// `--normalized`: what writes the events.
    normalizer: crate::view::normalized::Normalizer,
    /// A program that reads `input`/`inputs`: its thread, once started.
    puller: Option<pull::Puller>,
}

impl GetView {
    pub(crate) fn new(opts: GetOptions) -> GetView {
        program::install_stderr();
        // `CURSOR_STREAM_REFERENCE=1`: the engine alone, for the tests that compare.
        let engine_only = !crate::input::peek::fast_paths()
            || opts.raw_input
            || opts.stream
            || opts.color
            || opts.slurp
            || opts.null_input
            || opts.program.reads_inputs()
            || opts.normalized
            || opts.sort_keys
            || opts.layout != Layout::Compact;
        let paths = (!engine_only)
            .then(|| opts.code.parse::<Paths>().ok().map(Arc::new))
            .flatten();
        let selected = (crate::input::peek::fast_paths()
            && !(opts.slurp
                || opts.null_input
                || opts.normalized
                || opts.raw_input
                || opts.stream
                || opts.program.reads_inputs()))
        .then(|| prefilter::of_program(&opts.code))
        .flatten();
        // `select(…) | .a.b`: past the test, the paths walk the raw text.
        let after_select = selected
            .as_ref()
            .filter(|_| !engine_only)
            .and_then(|(_, rest)| rest.parse::<Paths>().ok().map(Arc::new));
        let prefilter = selected.map(|(cond, _)| {
            let subtype = cond.reads_subtype();
            (cond, subtype)
        });
        let indent = match opts.layout {
            Layout::Compact => None,
            Layout::Spaces(n) => Some(" ".repeat(n.into())),
            Layout::Tab => Some("\t".to_string()),
        };
        let pp = jaq_json::write::Pp {
            sep_space: indent.is_some(),
            indent,
            sort_keys: opts.sort_keys,
            styles: if opts.color {
                jq_styles()
            } else {
                Default::default()
            },
        };
        GetView {
            opts,
            paths,
            prefilter,
            after_select,
            pp,
            facts: LineFacts::default(),
            buf: Vec::new(),
            compact: Compact::default(),
            values: 0,
            last_falsy: false,
            errors: 0,
            run_value: None,
            file_value: None,
            runs_in_input: (0, 0),
            slurped: Vec::new(),
            normalizer: crate::view::normalized::Normalizer::new(),
            puller: None,
        }
    }

    /// Whether the program pulls its inputs (`input`, `inputs`; not with `-s`, whose one
    /// input is the run's array).
    fn pulls(&self) -> bool {
        self.opts.program.reads_inputs() && !self.opts.slurp
    }

    /// Hands an input to the pulling program (started at the first), and writes what it
    /// gave meanwhile.
    fn pull(&mut self, value: Val, ctx: &mut Ctx) -> anyhow::Result<()> {
        let item = pull::Item {
            value,
            run: if self.opts.program.reads_run() {
                self.run_value(ctx)
            } else {
                Val::Null
            },
            file: self.file_value(ctx),
            line: ctx.diag.line(),
        };
        let mut puller = match self.puller.take() {
            Some(p) => p,
            None => pull::Puller::start(Arc::clone(&self.opts.program), self.opts.null_input)?,
        };
        let pushed = puller.push(item, |out| self.pulled(out, ctx));
        self.puller = Some(puller);
        pushed
    }

    /// What the pulling program gave.
    fn pulled(&mut self, out: pull::Out, ctx: &mut Ctx) -> anyhow::Result<()> {
        match out {
            pull::Out::Value(v) => self.write_value(&v, ctx),
            pull::Out::Error {
                message,
                file,
                line,
            } => {
                self.errors += 1;
                ctx.out.begin_err_block();
                let text = format!(
                    "cursor-stream: warning: {}:{line}: jq error: {message}\n",
                    crate::out::escape_line(&file)
                );
                ctx.out.write_err(text.as_bytes());
                Ok(())
            }
            pull::Out::Halt(status) => {
                ctx.out.flush()?;
                let status = u8::try_from(status.rem_euclid(256)).unwrap_or(5);
                Err(Halted(status).into())
            }
        }
    }

    /// The end of the input for a pulling program: what it gives until it ends.
    fn finish_pulling(&mut self, ctx: &mut Ctx) -> anyhow::Result<()> {
        let mut puller = match self.puller.take() {
            Some(p) => p,
            None => pull::Puller::start(Arc::clone(&self.opts.program), self.opts.null_input)?,
        };
        puller.finish(|out| self.pulled(out, ctx))
    }

    /// Writes a value the path walk found.
    fn write_path_value(&mut self, value: &Value<'_>, ctx: &mut Ctx) -> anyhow::Result<()> {
        self.buf.clear();
        if self.opts.raw_strings() {
            self.compact.write_raw(value, &mut self.buf);
        } else {
            self.compact.write(value.text(), &mut self.buf);
        }
        self.end_value(value.is_falsy(), ctx)
    }

    /// Writes a value the program gave, as jq writes it (`jv::write`).
    fn write_value(&mut self, value: &Val, ctx: &mut Ctx) -> anyhow::Result<()> {
        self.buf.clear();
        match value {
            Val::TStr(s) | Val::BStr(s) if self.opts.raw_strings() => {
                jv::write_lossy(&mut self.buf, s)?;
            }
            _ => jv::write(&mut self.buf, &self.pp, 0, value)?,
        }
        self.end_value(!value.as_bool(), ctx)
    }

    fn end_value(&mut self, falsy: bool, ctx: &mut Ctx) -> anyhow::Result<()> {
        if self.opts.ascii && !self.buf.is_ascii() {
            self.buf = ascii_escaped(&self.buf);
        }
        if self.opts.raw0 && self.buf.contains(&0) {
            anyhow::bail!("Cannot dump a string containing NUL with --raw-output0 option");
        }
        if self.opts.seq {
            ctx.out.write_out(b"\x1e")?;
        }
        if self.opts.raw0 {
            self.buf.push(0);
        } else if !self.opts.join {
            self.buf.push(b'\n');
        }
        ctx.out.write_out(&self.buf)?;
        self.values += 1;
        self.last_falsy = falsy;
        Ok(())
    }

    /// `$run` for the current line (made again only when the run changes).
    fn run_value(&mut self, ctx: &Ctx) -> Val {
        let in_run = ctx.line_in_run();
        // A run cut at its front learns its session id from a later event.
        let key = (
            ctx.diag.inputs(),
            self.runs_in_input.1,
            in_run,
            ctx.run.session_id.is_some(),
        );
        if let Some((k, v)) = &self.run_value
            && *k == key
        {
            return v.clone();
        }
        let text = |s: &Option<String>| match s {
            Some(s) if in_run => Val::from(s.clone()),
            _ => Val::Null,
        };
        let run = &ctx.run;
        let fields = [
            (
                "agent",
                if in_run {
                    Val::from(run.agent.name().to_string())
                } else {
                    Val::Null
                },
            ),
            ("session_id", text(&run.session_id)),
            ("model", text(&run.model)),
            ("cwd", text(&run.cwd)),
            // `-n` reads no file: jq's `input_filename` is then null.
            (
                "file",
                if self.opts.null_input {
                    Val::Null
                } else {
                    Val::from(ctx.diag.source().to_string())
                },
            ),
            (
                "index",
                match self.runs_in_input.1.checked_sub(1) {
                    Some(i) if in_run => Val::from(usize::try_from(i).unwrap_or(usize::MAX)),
                    _ => Val::Null,
                },
            ),
        ];
        let value = Val::obj(
            fields
                .into_iter()
                .map(|(k, v)| (Val::from(k.to_string()), v))
                .collect(),
        );
        self.run_value = Some((key, value.clone()));
        value
    }

    /// `input_filename`: the file the current line is in (made again only when it changes).
    fn file_value(&mut self, ctx: &Ctx) -> Val {
        let stretch = ctx.diag.stretch();
        match &self.file_value {
            Some((at, file)) if *at == stretch => file.clone(),
            _ => {
                let file = Val::from(ctx.diag.file().to_string());
                self.file_value = Some((stretch, file.clone()));
                file
            }
        }
    }

    /// One input value (with `--stream`, each of its events): slurped, or run through the
    /// program now.
    fn input(&mut self, value: Val, ctx: &mut Ctx) -> anyhow::Result<()> {
        if self.opts.stream {
            return stream::events(&value, &mut |event| self.take(event, ctx));
        }
        self.take(value, ctx)
    }

    fn take(&mut self, value: Val, ctx: &mut Ctx) -> anyhow::Result<()> {
        if self.pulls() {
            return self.pull(value, ctx);
        }
        if self.opts.slurp {
            self.slurped.push(value);
            return Ok(());
        }
        self.run_program(value, ctx)
    }

    fn run_program(&mut self, value: Val, ctx: &mut Ctx) -> anyhow::Result<()> {
        let run = if self.opts.program.reads_run() {
            self.run_value(ctx)
        } else {
            Val::Null
        };
        // `-n` reads no file: jq's `input_filename` is then null.
        let file = if self.opts.program.reads_file() && !self.opts.null_input {
            self.file_value(ctx)
        } else {
            Val::Null
        };
        let program = Arc::clone(&self.opts.program);
        // A program run here pulls no input (`pulls`): it reads none.
        let none = program::RcIter::new(std::iter::empty());
        for result in program.run(value, &run, &file, ctx.diag.line(), &none) {
            match result {
                Ok(v) => self.write_value(&v, ctx)?,
                Err(program::Failure::Error(message)) => {
                    self.errors += 1;
                    ctx.diag.warn(
                        &mut ctx.out,
                        "program errors",
                        format_args!("jq error: {message}"),
                    );
                    // jq goes on with the next input.
                    break;
                }
                Err(program::Failure::Halt(status)) => {
                    ctx.out.flush()?;
                    let status = u8::try_from(status.rem_euclid(256)).unwrap_or(5);
                    return Err(Halted(status).into());
                }
            }
        }
        Ok(())
    }

    /// `-R`: the line, as a string (invalid UTF-8 as U+FFFD, as jq); slurped with its
    /// newline, when it has one, so that `-R -s` is the text as it was.
    fn raw_line(&mut self, bytes: &[u8], terminated: bool, ctx: &mut Ctx) -> anyhow::Result<()> {
        let bytes = bytes.strip_suffix(b"\n").unwrap_or(bytes);
        let mut text = String::from_utf8_lossy(bytes).into_owned();
        if self.opts.slurp && terminated {
            text.push('\n');
        }
        self.input(Val::from(text), ctx)?;
        self.line_done(ctx)
    }

    /// `-s`: the program on what was slurped, if anything was (with `-R`, the lines as
    /// one string, as jq reads the text).
    fn run_slurped(&mut self, ctx: &mut Ctx) -> anyhow::Result<()> {
        if self.slurped.is_empty() {
            return Ok(());
        }
        if self.opts.raw_input {
            let mut text = String::new();
            for line in std::mem::take(&mut self.slurped) {
                if let Val::TStr(s) | Val::BStr(s) = line {
                    text.push_str(&String::from_utf8_lossy(&s));
                }
            }
            return self.run_program(Val::from(text), ctx);
        }
        let array: Val = std::mem::take(&mut self.slurped).into_iter().collect();
        self.run_program(array, ctx)
    }

    /// A line that is no event of the peek's: every JSON value on it is an input, unless
    /// events are selected. Returns whether it was taken (else it is reported as bad).
    fn other_line(&mut self, bytes: &[u8], ctx: &mut Ctx) -> anyhow::Result<bool> {
        if self.opts.normalized || !self.opts.filter.passes_non_events() {
            return Ok(false);
        }
        if let Some(paths) = &self.paths
            && walkable(bytes)
            && let Ok(root) = crate::input::json::from_line::<&RawValue>(bytes)
        {
            let paths = Arc::clone(paths);
            if self.walk(&paths, root, ctx)? {
                return Ok(true);
            }
        }
        // Not an event line: rare, and all of it must read before any of it is taken.
        let Ok(Ok(values)) = values(bytes).map(|v| v.collect::<Result<Vec<_>, _>>()) else {
            return Ok(false);
        };
        for value in values {
            self.input(value, ctx)?;
        }
        Ok(true)
    }

    /// The paths walked through one line's raw JSON. False, with nothing written, when a
    /// step failed: the engine then runs the line, and says what failed as for any program.
    fn walk(&mut self, paths: &Paths, root: &RawValue, ctx: &mut Ctx) -> anyhow::Result<bool> {
        let mut values = Vec::new();
        for path in &paths.0 {
            if path.eval(root, &mut values).is_err() {
                return Ok(false);
            }
        }
        for value in &values {
            self.write_path_value(value, ctx)?;
        }
        Ok(true)
    }

    /// The line ended a run: `-s` runs the program on the run's inputs.
    fn line_done(&mut self, ctx: &mut Ctx) -> anyhow::Result<()> {
        if self.opts.slurp && !self.opts.slurp_all && ctx.ends_run() {
            self.run_slurped(ctx)?;
        }
        Ok(())
    }

    /// A normalized event, written by `write` into a buffer and read back as a value.
    fn normalized_input(
        &mut self,
        ctx: &mut Ctx,
        write: impl FnOnce(
            &mut crate::view::normalized::Normalizer,
            &crate::agent::event::RunInfo,
            &mut Vec<u8>,
        ) -> serde_json::Result<bool>,
    ) -> anyhow::Result<()> {
        let mut bytes = std::mem::take(&mut self.buf);
        bytes.clear();
        let wrote = write(&mut self.normalizer, &ctx.run, &mut bytes)?;
        let value = wrote.then(|| match read::value(&bytes) {
            Some(value) => Ok(value),
            None => jaq_json::read::parse_single(&bytes),
        });
        self.buf = bytes;
        match value {
            Some(Ok(value)) => self.input(value, ctx),
            Some(Err(e)) => anyhow::bail!("a normalized event that is not JSON ({e})"),
            None => Ok(()),
        }
    }
}

impl View for GetView {
    fn wants(&self) -> Wants {
        if self.opts.normalized {
            crate::view::normalized::NORMALIZED_WANTS
        } else {
            self.opts.filter.wants()
        }
    }

    fn raw_types(&self) -> TypeSet {
        if self.opts.normalized || (self.opts.null_input && !self.pulls()) {
            TypeSet::NONE
        } else if self.opts.raw_input {
            TypeSet::ALL
        } else {
            self.opts.filter.raw_types()
        }
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

    fn run_start(&mut self, ctx: &mut Ctx) -> anyhow::Result<()> {
        let input = ctx.diag.inputs();
        if self.runs_in_input.0 != input {
            self.runs_in_input = (input, 0);
        }
        self.runs_in_input.1 += 1;
        if self.opts.normalized {
            self.normalized_input(ctx, |n, run, b| n.run_start(run, b))?;
        }
        Ok(())
    }

    fn event(&mut self, ev: &Event<'_>, ctx: &mut Ctx) -> anyhow::Result<()> {
        if self.opts.normalized {
            return self.normalized_input(ctx, |n, run, b| n.event(run, ev, b));
        }
        self.facts.event(ev, ctx);
        Ok(())
    }

    fn run_end(&mut self, end: &RunEnd<'_>, ctx: &mut Ctx) -> anyhow::Result<()> {
        if self.opts.normalized {
            self.normalized_input(ctx, |n, run, b| n.run_end(run, end, b))?;
            if self.opts.slurp && !self.opts.slurp_all {
                self.run_slurped(ctx)?;
            }
        }
        Ok(())
    }

    fn after(&mut self, line: &RawLine<'_>, head: &Head, ctx: &mut Ctx) -> anyhow::Result<()> {
        if self.opts.raw_input {
            return self.raw_line(line.bytes, !line.unterminated, ctx);
        }
        if !self.opts.filter.passes(line, head, &self.facts, ctx) {
            return Ok(());
        }
        let walk = match &self.prefilter {
            None => self.paths.as_ref(),
            Some((cond, subtype)) => {
                let subtype = *subtype;
                if !cond.passes(&head.type_name, &mut || head.subtype(line.bytes)) {
                    if prefilter::exact(line.bytes, subtype, true) {
                        return Ok(());
                    }
                    // The peek may not be what the engine reads: the whole program runs.
                    None
                } else {
                    // Past the test, the paths walk the one value the peek saw (a line of
                    // several values fails the walk's parse), if its type is the engine's.
                    self.after_select
                        .as_ref()
                        .filter(|_| prefilter::exact(line.bytes, subtype, false))
                }
            }
        };
        if let Some(paths) = walk
            && walkable(line.bytes)
            && let Ok(root) = crate::input::json::from_line::<&RawValue>(line.bytes)
        {
            // (A line the walk cannot read — nested past serde's limit, or several values —
            // goes to the engine, which says what jq would.)
            let paths = Arc::clone(paths);
            if self.walk(&paths, root, ctx)? {
                return Ok(());
            }
        }
        // Every value on the line, as jq reads it (an event and what may follow it).
        // (As jq, the values before a broken part are inputs.)
        match values(line.bytes) {
            Ok(values) => {
                for value in values {
                    match value {
                        Ok(value) => self.input(value, ctx)?,
                        Err(e) => return not_json(line, e, ctx),
                    }
                }
            }
            Err(e) => return not_json(line, e, ctx),
        }
        self.line_done(ctx)
    }

    fn blank_line(&mut self, raw: &[u8], ctx: &mut Ctx) -> anyhow::Result<()> {
        if self.opts.raw_input {
            return self.raw_line(raw, raw.ends_with(b"\n"), ctx);
        }
        // Not only blank: a line without `type` that the dialect read (Codex's legacy
        // lines) is an input too.
        if !raw.iter().all(u8::is_ascii_whitespace) && self.other_line(raw, ctx)? {
            self.line_done(ctx)?;
        }
        Ok(())
    }

    fn bad_line(
        &mut self,
        line: &RawLine<'_>,
        bad: &BadLine,
        ctx: &mut Ctx,
    ) -> anyhow::Result<bool> {
        if self.opts.raw_input {
            self.raw_line(line.bytes, !line.unterminated, ctx)?;
            return Ok(true);
        }
        if matches!(bad, BadLine::NotJson(_)) && line.unterminated {
            return Ok(false);
        }
        let taken = self.other_line(line.bytes, ctx)?;
        if taken {
            self.line_done(ctx)?;
        }
        Ok(taken)
    }

    fn finish(&mut self, ctx: &mut Ctx) -> anyhow::Result<()> {
        if self.pulls() {
            return self.finish_pulling(ctx);
        }
        if self.opts.null_input {
            return self.run_program(Val::Null, ctx);
        }
        self.run_slurped(ctx)
    }
}

/// jq 1.8's colours (null, false, true, numbers, strings, arrays, objects, object keys),
/// then those `JQ_COLORS` sets, as jq reads it.
fn jq_styles() -> jaq_json::write::Styles {
    let mut styles =
        jaq_json::write::Styles::default().parse("0;90:0;39:0;39:0;39:0;32:1;39:1;39:34;1");
    if let Some(colors) = std::env::var_os("JQ_COLORS") {
        styles = styles.parse(&colors.to_string_lossy());
    }
    styles.reset = "\x1b[0m".into();
    styles
}

/// JSON text with every character past ASCII as jq's `-a` writes it: `\u00e9`, and a
/// character past U+FFFF as its two surrogates. Such characters are only ever inside
/// strings (keys included), where an escape means the same.
fn ascii_escaped(text: &[u8]) -> Vec<u8> {
    let text = String::from_utf8_lossy(text);
    let mut out = String::with_capacity(text.len() + 16);
    let mut units = [0u16; 2];
    for c in text.chars() {
        if c.is_ascii() {
            out.push(c);
        } else {
            for unit in c.encode_utf16(&mut units) {
                out.push_str(&format!("\\u{unit:04x}"));
            }
        }
    }
    out.into_bytes()
}

/// Whether the raw-text walk reads `bytes` as the engine would. Not a line with a UTF-16
/// surrogate escape (`\ud83d`): the engine's reader refuses a lone one, which the walk,
/// decoding only what it prints, would pass; such a line goes to the engine (a valid pair
/// too: rare, and only slower).
fn walkable(bytes: &[u8]) -> bool {
    // `\u` then `d` or `D`: one pass over the line, whatever else is escaped in it.
    memchr::memmem::find_iter(bytes, b"\\u")
        .all(|at| !matches!(bytes.get(at + 2), Some(b'd' | b'D')))
}

/// How deep an input value may nest: the engine recurses once per level (to read, compare,
/// print, drop), on a stack that holds a million levels ([`LARGE_STACK`]); jq itself
/// stops at 10,000.
const MAX_DEPTH: usize = 100_000;

/// The values on one line: the one [`read::value`] makes of a line of plain JSON, else what
/// the engine's reader makes of it; refuses a line nested deeper than [`MAX_DEPTH`] (which
/// would overflow the stack): only a line that long can be.
fn values(bytes: &[u8]) -> Result<Values<'_>, String> {
    // jq reads an invalid UTF-8 sequence in a string as U+FFFD, jaq keeps the bytes: a line
    // that is not UTF-8 (one quick pass tells; rare) is read as its valid text.
    if simdutf8::basic::from_utf8(bytes).is_err() {
        let text = String::from_utf8_lossy(bytes);
        let read: Vec<_> = values(text.as_bytes())?.collect();
        return Ok(Values::Read(read.into_iter()));
    }
    // One value of plain JSON, as nearly every line is: read faster, to the same value.
    if let Some(value) = read::value(bytes) {
        return Ok(Values::One(Some(value)));
    }
    // Several values of plain JSON (rarer): read here too, to keep `-0` as jq keeps it.
    if let Some(values) = read::values(bytes) {
        return Ok(Values::Read(
            values.into_iter().map(Ok).collect::<Vec<_>>().into_iter(),
        ));
    }
    if bytes.len() > MAX_DEPTH && depth(bytes) > MAX_DEPTH {
        return Err(format!("nested deeper than {MAX_DEPTH} levels"));
    }
    Ok(Values::Jaq(Box::new(
        jaq_json::read::parse_many(bytes).map(|r| r.map_err(|e| e.to_string())),
    )))
}

/// The values on one line: the one [`read::value`] made, what jaq's reader makes, or the
/// values read ahead (by [`read::values`], or of a line made valid UTF-8).
enum Values<'a> {
    One(Option<Val>),
    Jaq(Box<dyn Iterator<Item = Result<Val, String>> + 'a>),
    Read(std::vec::IntoIter<Result<Val, String>>),
}

impl Iterator for Values<'_> {
    type Item = Result<Val, String>;

    fn next(&mut self) -> Option<Result<Val, String>> {
        match self {
            Values::One(value) => value.take().map(Ok),
            Values::Jaq(values) => values.next(),
            Values::Read(values) => values.next(),
        }
    }
}

/// The deepest nesting of arrays and objects in `bytes`, brackets in strings aside.
fn depth(bytes: &[u8]) -> usize {
    let (mut depth, mut deepest, mut in_string, mut escaped) = (0usize, 0, false, false);
    for &b in bytes {
        if in_string {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    deepest
}

fn not_json(line: &RawLine<'_>, e: impl std::fmt::Display, ctx: &mut Ctx) -> anyhow::Result<()> {
    ctx.diag.bad_line(
        &mut ctx.out,
        "lines that are not JSON",
        format_args!("not JSON ({e})"),
        line.bytes,
    )?;
    Ok(())
}
