//! A jq program, compiled once by the jaq engine and run on each input value.
//!
//! The language is jaq's (`jaq-core`, its standard library `jaq-std`, its JSON values
//! `jaq-json`) with the definitions of `compat.jq` on top, which give jq's behaviour where
//! jaq lacks a builtin or differs. The program sees, beside the variables of the command
//! line (`--arg`, `--argjson`, `--rawfile`, `--slurpfile`, `$ARGS`, `$ENV`):
//!
//! - `$run`: the run the input belongs to, `{"agent", "session_id", "model", "cwd",
//!   "file", "index"}` (`index`: the run's place in its file, from 0); outside any run
//!   every field but `file` is `null`;
//! - `$line`: the input's line number in its file.
//!
//! A variable of the same name given on the command line wins; `input_line_number` reads
//! the same fact whatever the user named, and `input_filename` the file the input's line
//! is in: `$run.file`, but for a sub-agent's log read in with its session's, whose runs
//! are the session's.

use std::fmt;

use jaq_core::load::{self, Arena, File, Loader};
use jaq_core::{Compiler, Ctx, Vars};
use jaq_json::Val;

pub(crate) use super::data::{Data, Globals, Inputs, RcIter};
use super::jv::Jv;

/// The names `get` binds for every input, after the user's variables. `$__cs_file` and
/// `$__cs_line` are always ours, for the definitions that must not see a user's `$line`.
const PER_INPUT: [&str; 2] = ["$__cs_file", "$__cs_line"];

/// Which of `get`'s own variables a program can read. Each costs a little on every input,
/// so only those its text names are bound (the library's definitions name none of them).
#[derive(Debug, Clone, Copy)]
struct Reads {
    /// `$ENV`, `env`.
    env: bool,
    /// `$ARGS`.
    args: bool,
    /// `input_filename`, `input_line_number`: `$__cs_file`, `$__cs_line`.
    place: bool,
    /// `$run`, `$line` (unless the user set them).
    run: bool,
    line: bool,
    /// `input`, `inputs`.
    inputs: bool,
}

/// Variables of the command line, in the order given.
#[derive(Debug, Clone, Default)]
pub(crate) struct Bindings {
    /// `--arg`, `--argjson`, `--rawfile`, `--slurpfile`: name (without `$`) and value.
    pub(crate) named: Vec<(String, Val)>,
    /// `--args` / `--jsonargs`: `$ARGS.positional`.
    pub(crate) positional: Vec<Val>,
}

impl Bindings {
    /// The named variables, the first of a name given twice only (`--arg x 1 --arg x 2` is
    /// "1" in jq 1.6 and 1.8, which set a name once).
    fn first_of_each(&self) -> impl Iterator<Item = &(String, Val)> {
        self.named
            .iter()
            .enumerate()
            .filter(|(i, (name, _))| !self.named[..*i].iter().any(|(n, _)| n == name))
            .map(|(_, pair)| pair)
    }
}

/// A compiled program and the values of its command-line variables.
pub(crate) struct Program {
    filter: jaq_core::Filter<Data>,
    /// The values of the variables set once, in the compiler's order.
    fixed: Vec<Jv>,
    /// `get`'s own variables the program reads.
    reads: Reads,
}

impl fmt::Debug for Program {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Program").finish_non_exhaustive()
    }
}

/// Why a program could not be compiled: each problem with where it is in the program.
#[derive(Debug)]
pub(crate) struct CompileError {
    code: String,
    problems: Vec<(std::ops::Range<usize>, String)>,
}

impl fmt::Display for CompileError {
    /// `at line L, column C: message`, the program's line, and a caret under the place.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, (span, message)) in self.problems.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            let start = span.start.min(self.code.len());
            let line_start = self.code[..start].rfind('\n').map_or(0, |i| i + 1);
            let line_end = self.code[start..]
                .find('\n')
                .map_or(self.code.len(), |i| start + i);
            let line_no = self.code[..start].matches('\n').count() + 1;
            let before = &self.code[line_start..start];
            let column = before.chars().count() + 1;
            let shown = crate::out::escape_line(&self.code[line_start..line_end]);
            let pad = crate::out::escape_line(before).chars().count();
            write!(
                f,
                "invalid program at line {line_no}, column {column}: {message}\n  {shown}\n  {}^",
                " ".repeat(pad)
            )?;
        }
        Ok(())
    }
}

impl std::error::Error for CompileError {}

impl Program {
    /// Compiles `code` once, with the variables of the command line. jq syntax jaq does
    /// not read is rewritten first (`syntax.rs`); when the rewritten program does not
    /// compile, the errors shown are those of the program as the user wrote it.
    pub(crate) fn compile(code: &str, bindings: &Bindings) -> Result<Program, CompileError> {
        let refused = |(at, why)| CompileError {
            code: code.to_owned(),
            problems: vec![(at, why)],
        };
        match super::syntax::rewrite(code).map_err(refused)? {
            None => Self::compile_text(code, bindings),
            Some(rewritten) => Self::compile_text(&rewritten.text, bindings).map_err(|e| {
                // Told at their places in the program as written, each once (a body the
                // rewrite repeats has its problems repeated).
                let mut problems: Vec<(std::ops::Range<usize>, String)> = Vec::new();
                for (at, why) in e.problems {
                    let problem = (rewritten.original(at), why);
                    if !problems.contains(&problem) {
                        problems.push(problem);
                    }
                }
                CompileError {
                    code: code.to_owned(),
                    problems,
                }
            }),
        }
    }

    fn compile_text(code: &str, bindings: &Bindings) -> Result<Program, CompileError> {
        let mut names: Vec<String> = Vec::new();
        let mut fixed = Vec::new();
        for (name, value) in bindings.first_of_each() {
            names.push(format!("${name}"));
            fixed.push(Jv(value.clone()));
        }
        let user = |n: &str| bindings.named.iter().any(|(k, _)| k == n);
        let reads = Reads {
            env: code.contains("env") || code.contains("ENV"),
            args: code.contains("$ARGS"),
            place: code.contains("input_filename") || code.contains("input_line_number"),
            run: code.contains("$run") && !user("run"),
            line: code.contains("$line") && !user("line"),
            inputs: code.contains("input") && mentions_inputs(code),
        };
        if reads.args {
            names.push("$ARGS".into());
            fixed.push(Jv(args_value(bindings)));
        }
        if reads.env {
            names.push("$ENV".into());
            fixed.push(Jv(env_value()));
        }
        if reads.place {
            names.extend(PER_INPUT.iter().map(|s| s.to_string()));
        }
        if reads.run {
            names.push("$run".into());
        }
        if reads.line {
            names.push("$line".into());
        }

        let problems = |problems| CompileError {
            code: code.to_owned(),
            problems,
        };
        let arena = Arena::default();
        let loader = Loader::new(
            jaq_core::defs()
                .chain(jaq_std::defs())
                .chain(jaq_json::defs())
                .chain(super::compat::defs())
                .chain(run_defs(reads)),
        );
        let modules = loader
            .load(&arena, File { code, path: () })
            .map_err(|errs| problems(load_problems(code, errs)))?;
        let filter = Compiler::default()
            .with_funs(
                jaq_core::funs()
                    .chain(jaq_std::funs())
                    .chain(
                        jaq_std::input::funs::<Data>()
                            .into_vec()
                            .into_iter()
                            .map(jaq_core::native::run::<Data>),
                    )
                    .chain(super::builtins::funs())
                    .chain(super::compat::funs()),
            )
            .with_global_vars(names.iter().map(|s| s.as_str()))
            .compile(modules)
            .map_err(|errs| problems(compile_problems(code, errs)))?;
        Ok(Program {
            filter,
            fixed,
            reads,
        })
    }

    /// Whether the program reads `$run`: else it need not be made.
    pub(crate) fn reads_run(&self) -> bool {
        self.reads.run
    }

    /// Whether the program reads `input_filename`: else its value need not be made.
    pub(crate) fn reads_file(&self) -> bool {
        self.reads.place
    }

    /// Whether the program reads further inputs (`input`, `inputs`).
    pub(crate) fn reads_inputs(&self) -> bool {
        self.reads.inputs
    }

    /// Runs the program on one input; `run` is `$run`, `file` the file its line is in
    /// (`input_filename`), `line` is `$line`; `inputs` what `input` and `inputs` read.
    pub(crate) fn run<'p>(
        &'p self,
        input: Val,
        run: &Val,
        file: &Val,
        line: u64,
        inputs: Inputs<'p>,
    ) -> impl Iterator<Item = Result<Val, Failure>> + 'p {
        let r = self.reads;
        let line = || Jv::from(usize::try_from(line).unwrap_or(usize::MAX));
        let run = || Jv(run.clone());
        let per_input = [
            r.place.then(|| Jv(file.clone())),
            r.place.then(line),
            r.run.then(run),
            r.line.then(line),
        ];
        let vars = self
            .fixed
            .iter()
            .cloned()
            .chain(per_input.into_iter().flatten());
        let globals = Globals {
            lut: &self.filter.lut,
            inputs,
        };
        let ctx = Ctx::<Data>::new(globals, Vars::new(vars));
        self.filter.id.run((ctx, Jv(input))).map(|r| {
            r.map(|v| v.0).map_err(|e| match e.get_err() {
                Ok(err) => Failure::Error(error_text(err.into_val().0)),
                Err(e) => Failure::Halt(e.get_halt().unwrap_or(5)),
            })
        })
    }
}

/// Whether `code` names `input` or `inputs` as a word (not `input_filename`,
/// `input_line_number`, `$input`, `.input`).
fn mentions_inputs(code: &str) -> bool {
    let bytes = code.as_bytes();
    let word = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    code.match_indices("input").any(|(at, _)| {
        let before = at.checked_sub(1).map(|i| bytes[i]);
        let mut end = at + "input".len();
        if bytes.get(end) == Some(&b's') {
            end += 1;
        }
        !before.is_some_and(|b| word(b) || b == b'$' || b == b'.')
            && !bytes.get(end).is_some_and(|b| word(*b))
    })
}

/// Where jaq's `stderr` (and so `halt_error`) and `debug` write: the engine sends them to
/// the `log` crate, at the levels `error` and `debug`.
struct Stderr;

impl log::Log for Stderr {
    fn enabled(&self, _: &log::Metadata<'_>) -> bool {
        true
    }

    fn log(&self, record: &log::Record<'_>) {
        use std::io::{IsTerminal, Write};
        let text = match record.level() {
            // `stderr`: the value as it is, no newline (jq 1.7).
            log::Level::Error => record.args().to_string(),
            // `debug`: as jq writes it.
            _ => format!("[\"DEBUG:\",{}]\n", record.args()),
        };
        let mut err = std::io::stderr().lock();
        // Text from a model or a tool must not drive the terminal.
        let text = if err.is_terminal() {
            text.chars()
                .map(|c| match c {
                    '\n' | '\t' => c.to_string(),
                    c if c.is_control() => c.escape_default().to_string(),
                    c => c.to_string(),
                })
                .collect()
        } else {
            text
        };
        let _ = err.write_all(text.as_bytes());
    }

    fn flush(&self) {}
}

/// Sends the engine's `stderr` and `debug` to stderr (once; later calls change nothing).
pub(crate) fn install_stderr() {
    static STDERR: Stderr = Stderr;
    if log::set_logger(&STDERR).is_ok() {
        log::set_max_level(log::LevelFilter::Debug);
    }
}

/// An error's value as jq shows it: a string as it is (the message), anything else as
/// JSON, said not to be a string.
fn error_text(value: Val) -> String {
    match value {
        Val::TStr(s) | Val::BStr(s) => String::from_utf8_lossy(&s).into_owned(),
        other => format!("{} (not a string)", Jv(other)),
    }
}

/// A run of the program that did not give a value.
#[derive(Debug)]
pub(crate) enum Failure {
    /// A runtime error (`error`, a type error): its message.
    Error(String),
    /// `halt` / `halt_error`: the exit status asked for.
    Halt(i32),
}

/// The builtins that read the input's place: from `get`'s own variables, so that a
/// user's `$run` or `$line` does not change them.
const PLACE_DEFS: &str = "
def input_filename: $__cs_file;
def input_line_number: $__cs_line;
";

/// jq's `env`, which jaq leaves to the variable.
const ENV_DEFS: &str = "def env: $ENV;";

fn run_defs(reads: Reads) -> impl Iterator<Item = load::parse::Def<&'static str>> {
    let texts = [
        reads.place.then_some(PLACE_DEFS),
        reads.env.then_some(ENV_DEFS),
    ];
    // Our own texts: they parse (the unit tests run them).
    texts
        .into_iter()
        .flatten()
        .flat_map(|text| load::parse(text, |p| p.defs()).unwrap_or_default())
}

/// `$ARGS`: `{"positional": [...], "named": {...}}`, as jq gives it.
fn args_value(bindings: &Bindings) -> Val {
    let named = bindings
        .first_of_each()
        .map(|(k, v)| (Val::from(k.clone()), v.clone()));
    let obj = [
        (
            Val::from("positional".to_string()),
            bindings.positional.iter().cloned().collect(),
        ),
        (Val::from("named".to_string()), Val::obj(named.collect())),
    ];
    Val::obj(obj.into_iter().collect())
}

/// `$ENV`: the environment, its names and values as text (lossy where not UTF-8).
fn env_value() -> Val {
    let vars = std::env::vars_os().map(|(k, v)| {
        (
            Val::from(k.to_string_lossy().into_owned()),
            Val::from(v.to_string_lossy().into_owned()),
        )
    });
    Val::obj(vars.collect())
}

/// Where in `code` a part of it is (the engine's errors hold slices of the program).
fn span(code: &str, part: &str) -> std::ops::Range<usize> {
    let (start, end) = (code.as_ptr() as usize, code.as_ptr() as usize + code.len());
    let at = part.as_ptr() as usize;
    if (start..=end).contains(&at) {
        load::span(code, part)
    } else {
        // A slice of a definition of the library, not of the program: no place to show.
        0..0
    }
}

fn load_problems(
    code: &str,
    errs: load::Errors<&str, ()>,
) -> Vec<(std::ops::Range<usize>, String)> {
    let mut out = Vec::new();
    for (_file, err) in errs {
        match err {
            load::Error::Io(errs) => {
                for (path, e) in errs {
                    out.push((span(code, path), format!("cannot load {path}: {e}")));
                }
            }
            load::Error::Lex(errs) => {
                for (expected, found) in errs {
                    out.push(match expected {
                        // Shown where it opens: where it should close is the end.
                        load::lex::Expect::Delim(open) => {
                            (span(code, open), format!("`{open}` is never closed"))
                        }
                        other => {
                            let what = format!("expected {}", other.as_str());
                            (span(code, found), found_text(what, found))
                        }
                    });
                }
            }
            load::Error::Parse(errs) => {
                for (expected, found) in errs {
                    let what = format!("expected {}", expected.as_str());
                    out.push((span(code, found), found_text(what, found)));
                }
            }
        }
    }
    out
}

/// `what`, and what was found instead.
fn found_text(what: String, found: &str) -> String {
    if what == "expected nothing" {
        // The engine's words for text after a whole program.
        return match found.chars().next() {
            None => "unexpected end of the program".into(),
            Some(c) => format!("unexpected `{}`", c.escape_default()),
        };
    }
    match found.chars().next() {
        None => format!("{what}, found the end of the program"),
        Some(c) => format!("{what}, found `{}`", c.escape_default()),
    }
}

fn compile_problems(
    code: &str,
    errs: jaq_core::compile::Errors<&str, ()>,
) -> Vec<(std::ops::Range<usize>, String)> {
    use jaq_core::compile::Undefined;
    let mut out = Vec::new();
    for (_file, errs) in errs {
        for (found, undefined) in errs {
            let message = match (found, &undefined) {
                ("reduce" | "foreach", Undefined::Filter(arity)) => {
                    format!("`{found}` with {arity} arguments")
                }
                (_, Undefined::Filter(arity)) => format!("undefined function `{found}/{arity}`"),
                (_, Undefined::Var) => format!("undefined variable `{found}`"),
                (_, other) => format!("undefined {} `{found}`", other.as_str()),
            };
            out.push((span(code, found), message));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(code: &str, input: &str) -> Vec<String> {
        let p = Program::compile(code, &Bindings::default()).unwrap();
        let input = jaq_json::read::parse_single(input.as_bytes()).unwrap();
        let none = RcIter::new(std::iter::empty());
        p.run(
            input,
            &Val::Null,
            &Val::from("f.jsonl".to_string()),
            7,
            &none,
        )
        .map(|r| match r {
            Ok(v) => v.to_string(),
            Err(e) => format!("error: {e:?}"),
        })
        .collect()
    }

    #[test]
    fn a_program_runs_on_its_input_with_the_line_number() {
        assert_eq!(run(".a, $line", r#"{"a":[1,"x"]}"#), ["[1,\"x\"]", "7"]);
        assert_eq!(run("input_line_number", "null"), ["7"]);
        assert_eq!(run("input_filename", "null"), ["\"f.jsonl\""]);
    }

    #[test]
    fn a_compile_error_says_where_with_a_caret() {
        let e = Program::compile(".a | nope", &Bindings::default()).unwrap_err();
        let text = e.to_string();
        assert!(
            text.starts_with("invalid program at line 1, column 6: undefined function `nope/0`"),
            "{text}"
        );
        assert!(text.ends_with("\n  .a | nope\n       ^"), "{text}");
        let e = Program::compile(".a |\n (.b", &Bindings::default()).unwrap_err();
        assert!(
            e.to_string()
                .contains("line 2, column 2: `(` is never closed"),
            "{e}"
        );
    }

    #[test]
    fn a_user_variable_named_run_wins() {
        let b = Bindings {
            named: vec![("run".into(), Val::from("mine".to_string()))],
            positional: vec![],
        };
        let p = Program::compile("$run, $ARGS.named.run", &b).unwrap();
        let none = RcIter::new(std::iter::empty());
        let out: Vec<String> = p
            .run(Val::Null, &Val::from(1usize), &Val::Null, 1, &none)
            .map(|r| r.unwrap().to_string())
            .collect();
        assert_eq!(out, ["\"mine\"", "\"mine\""]);
    }

    #[test]
    fn halt_and_errors_are_told_apart() {
        assert_eq!(run("error(\"x\")", "null").len(), 1);
        let p = Program::compile("halt_error(3)", &Bindings::default()).unwrap();
        let none = RcIter::new(std::iter::empty());
        let r: Vec<_> = p.run(Val::Null, &Val::Null, &Val::Null, 1, &none).collect();
        assert!(matches!(r[..], [Err(Failure::Halt(3))]), "{r:?}");
    }

    #[test]
    fn a_program_pulls_its_inputs_only_when_it_names_input_or_inputs() {
        for code in [
            "input",
            "[inputs]",
            "reduce inputs as $x (0; .+1)",
            "1, input|.a",
        ] {
            assert!(mentions_inputs(code), "{code}");
        }
        for code in [
            "input_filename",
            "input_line_number",
            "$input",
            ".input",
            "inputsx",
            "myinput",
        ] {
            assert!(!mentions_inputs(code), "{code}");
        }
    }
}
