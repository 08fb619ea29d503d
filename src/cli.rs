//! The command line (clap only); `config` resolves it into a plain `Config`.

use std::ffi::OsString;
use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::agent::event::Agent;
use crate::view::filter::EventFilter;

/// `--version`: the version, and where the prices `usage` uses come from.
fn long_version() -> &'static str {
    static TEXT: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    TEXT.get_or_init(|| {
        format!(
            "{}\nprices built in: {}",
            env!("CARGO_PKG_VERSION"),
            crate::view::usage::builtin_source()
        )
    })
}

const AFTER_HELP: &str = "\
Agents read (told apart automatically, or named with --agent):
  cursor    agent -p … --output-format stream-json [--stream-partial-output]
  claude    claude -p … --output-format stream-json --verbose [--include-partial-messages]
  codex     codex exec --json …
  gemini    gemini -p … --output-format stream-json
  qwen      qwen -p … --output-format stream-json [--include-partial-messages]
  opencode  opencode run --format json …
and the session logs each keeps on disk (--from AGENT, or a log's path, or a session id).

Examples:
  agent -p \"fix the build\" --output-format stream-json --stream-partial-output | cursor-stream text
  claude -p \"…\" --output-format stream-json --verbose | cursor-stream progress
  cursor-stream result run.ndjson              print the final answer; exit status tells success
  cursor-stream json run.ndjson                what --output-format json would have printed
  cursor-stream stats --json logs/*.ndjson     one row per run, each with its agent
  cursor-stream sessions --since 2d            the agents' sessions of the last two days
  cursor-stream tools --failed --from codex    failed calls in Codex's session logs

Exit status:
  0  every run in the input ended with a success
  1  a run failed (the agent's own terminal event says so, or a trap its format is known for)
  2  usage error, or an input could not be read
  3  the input ended without a run's terminal event (the run was killed, crashed or failed)
  4  --strict (or --max-line) and a line of the input was not usable";

/// Read the NDJSON streams of AI coding agents (Cursor, Claude Code, Codex, Gemini CLI,
/// Qwen Code, OpenCode) and show what you need: the answer, live and exactly once; the tool
/// calls; the final result with an honest exit status.
#[derive(Debug, Parser)]
#[command(name = "cursor-stream", version, long_version = long_version(), after_help = AFTER_HELP, max_term_width = 100)]
pub(crate) struct Cli {
    #[command(subcommand)]
    pub command: Command,

    #[command(flatten)]
    pub global: GlobalArgs,
}

#[derive(Debug, Args)]
pub(crate) struct GlobalArgs {
    /// Stop with exit status 4 at the first line that is not a usable event, instead of
    /// reporting it and going on.
    #[arg(long, global = true)]
    pub strict: bool,

    /// Flush the output after every event, not only when the input pauses.
    #[arg(long, global = true)]
    pub line_buffered: bool,

    /// When to use colors and styles on the terminal. `auto` honours NO_COLOR.
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto, global = true, value_name = "WHEN")]
    pub color: ColorChoice,

    /// Refuse lines longer than SIZE (e.g. 64M) with exit status 4. By default a line may
    /// be as long as memory allows: real tool results reach tens of MiB.
    #[arg(long, global = true, value_name = "SIZE", value_parser = parse_size)]
    pub max_line: Option<usize>,

    /// Do not print warnings about the input (run failures are still reported).
    #[arg(short, long, global = true)]
    pub quiet: bool,

    /// Copy the raw input to FILE as it is read (the whole log, whatever the view shows).
    #[arg(long, global = true, value_name = "FILE")]
    pub tee: Option<PathBuf>,

    /// The agent that wrote the stream. `auto` tells it from the first events of each run
    /// (a stream that tells nothing is read as Cursor's); name it for a stream cut before
    /// its first line.
    #[arg(long, value_enum, default_value_t = AgentChoice::AUTO, global = true, value_name = "AGENT")]
    pub agent: AgentChoice,
}

/// `--agent`: an agent's name, or `auto` (`None`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct AgentChoice(pub Option<Agent>);

impl AgentChoice {
    pub(crate) const AUTO: AgentChoice = AgentChoice(None);

    pub(crate) fn agent(self) -> Option<Agent> {
        self.0
    }
}

/// `auto`, then every agent of the list.
static AGENT_CHOICES: [AgentChoice; Agent::ALL.len() + 1] = {
    let mut out = [AgentChoice(None); Agent::ALL.len() + 1];
    let mut i = 0;
    while i < Agent::ALL.len() {
        out[i + 1] = AgentChoice(Some(Agent::ALL[i]));
        i += 1;
    }
    out
};

impl ValueEnum for AgentChoice {
    fn value_variants<'a>() -> &'a [Self] {
        &AGENT_CHOICES
    }

    fn to_possible_value(&self) -> Option<clap::builder::PossibleValue> {
        Some(clap::builder::PossibleValue::new(
            self.0.map_or("auto", Agent::name),
        ))
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum ColorChoice {
    Auto,
    Always,
    Never,
}

#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// The assistant's answer, live, exactly once (no duplicated or lost segments).
    #[command(after_help = "\
Examples:
  agent -p \"…\" --output-format stream-json --stream-partial-output | cursor-stream text
  claude -p \"…\" --output-format stream-json --verbose --include-partial-messages | cursor-stream text
  cursor-stream text --separator '\\n\\n' run.ndjson    a blank line between segments
  cursor-stream text --thinking run.ndjson 2>thinking.txt")]
    Text(TextArgs),

    /// The final answer of each run, as its agent defines it (exit 0 success, 1 failed run,
    /// 3 no result).
    #[command(after_help = "\
Examples:
  answer=$(cursor-stream result run.ndjson) || echo \"the agent run did not succeed\"
  cursor-stream result logs/*.ndjson            one result per run, in order
  gemini -p \"summarise src/\" --output-format stream-json | cursor-stream result")]
    Result(InputArgs),

    /// One JSON object per run: Cursor's and Claude's result line byte for byte (what their
    /// `--output-format json` prints); for Codex, Gemini and OpenCode a documented object.
    #[command(after_help = "\
Examples:
  cursor-stream json run.ndjson | jq .usage
  agent -p \"…\" --output-format stream-json | cursor-stream json > result.json")]
    Json(InputArgs),

    /// One line per tool call, in start order, as each completes: status, tool, duration,
    /// main argument, outcome.
    #[command(after_help = "\
Examples:
  cursor-stream tools run.ndjson
  cursor-stream tools --failed run.ndjson          rejected, failed and timed-out calls
  cursor-stream tools --tool shell --json run.ndjson | jq -r .args.command
  agent -p \"…\" --output-format stream-json | cursor-stream tools --starts

Statuses: ok (success); the agent's word for a failure (rejected, error, failed, declined,
timeout, …); pending (the run ended before the call completed); unknown (ended without
saying how).")]
    Tools(ToolsArgs),

    /// A live activity log: one line per action as it happens ("Ran `cargo test` (exit 0,
    /// 3.2 s)"), the answer in between, and a footer per run.
    #[command(after_help = "\
Examples:
  agent -p \"…\" --output-format stream-json --stream-partial-output | cursor-stream progress
  agent -p \"…\" --output-format stream-json | cursor-stream progress --activity-stderr > answer.txt
  codex exec --json \"update the changelog\" | cursor-stream progress
  cursor-stream progress --thinking run.ndjson")]
    Progress(ProgressArgs),

    /// The matching events, passed through byte for byte (exit 1 when none matched).
    #[command(after_help = "\
Examples:
  cursor-stream events --type tool_call --subtype completed --tool shell logs/*.ndjson
  cursor-stream events --last-run logs/all.ndjson > last-run.ndjson
  cursor-stream events -c --type thinking run.ndjson
  cursor-stream events --invert --type assistant,thinking run.ndjson
  cursor-stream events --type item.completed codex.jsonl      types are the agent's own
  cursor-stream events --normalized run.ndjson | jq 'select(.event==\"tool_end\") | .status'
                                                one schema for every agent (docs/normalized.md)")]
    Events(EventsArgs),

    /// jq programs over every value of the input: agents' events, or any NDJSON.
    #[command(after_help = "\
The program is jq's language (the jaq engine, with jq's builtins added where it lacks them).
Each JSON value on a line is an input; --type/--subtype/--tool/--session pick events first,
without parsing the others. Output is compact (-c is accepted; --indent N or --tab indent).

Beyond jq:  $run   the run the input is in: {agent, session_id, model, cwd, file, index}
            $line  the input's line number in its file
            --normalized  the program reads one schema for every agent (docs/normalized.md)
            -s     slurps each run's inputs into one array (a run is the unit of every view)

Examples:
  cursor-stream get 'select(.type==\"tool_call\") | .call_id' run.ndjson
  cursor-stream get -r '.message.content[]?.text // empty' --type assistant run.ndjson
  cursor-stream get -r '[$run.agent, $run.file, .type] | @tsv' logs/*
  cursor-stream get -r --normalized 'select(.event==\"tool_end\" and .status!=\"success\") | [$run.agent, .tool] | @tsv' logs/*
  cursor-stream get -s 'map(select(.type==\"tool_call\")) | length' run.ndjson    tool events per run
  cursor-stream get -e '.is_error' --type result run.ndjson    exit 1 when the last value is false/null
  cursor-stream get --arg id 3f2a 'select(.session_id | startswith($id))' logs/*

Exit status as jq's: 0; 2 when the program does not compile (with where and why); 5 when it
failed on some input (each failure names file:line; the next input goes on); with -e, 1 when
the last value is false or null and 4 when there was none; halt_error's own status.")]
    Get(GetArgs),

    /// One row per run: agent, model, status, duration, answer length, thinking, tokens, tool
    /// calls.
    #[command(after_help = "\
Examples:
  cursor-stream stats logs/*.ndjson
  cursor-stream stats --json logs/*.ndjson | jq -s 'map(.usage.output_tokens) | add'")]
    Stats(StatsArgs),

    /// The sessions in the agents' own session logs (by default every agent's), newest
    /// first: agent, id, started, last activity, prompts, how the last run ended,
    /// directory, title or first prompt, file.
    #[command(after_help = "\
Examples:
  cursor-stream sessions                           every agent's sessions
  cursor-stream sessions --from claude --since 2d --project .
  cursor-stream transcript --html 3e43 > s.html   a session by the start of its id
  cursor-stream sessions --json | jq -r 'select(.status!=\"success\") | .file'

A session log is read as streams are: each prompt is a run, so every view works on it
(cursor-stream tools --from codex --since 1d).")]
    Sessions(SessionsArgs),

    /// Tokens and cost per day, week, month, session, model or run: every agent, each model
    /// call counted once, priced offline.
    #[command(after_help = "\
Reports: daily (the default), weekly (weeks from Monday), monthly, session, model, run,
blocks (the five-hour billing windows, with the rate limits the agent recorded) — given
first, before any file.

Examples:
  cursor-stream usage                               every agent's logs, per day
  cursor-stream usage blocks --since 1d             today's five-hour windows, the active one marked
  cursor-stream usage monthly --from claude --breakdown
  cursor-stream usage session --since 1w --json | duckdb -c \"…\"
  cursor-stream usage daily --timezone Europe/Paris runs/*.ndjson   saved streams too
  cursor-stream usage --html > usage.html           a chart and the table, offline

Rows are period × agent × model: input (prompt tokens not read from or written to a cache),
output (reasoning included), cache read, cache write, total, cost, runs, sessions. Days are
cut by each model call's own time. Costs come from a price table built in (LiteLLM's, see
--prices); a model with no price has no cost, and is named on stderr.")]
    Usage(UsageArgs),

    /// One line for Claude Code's status line: the model, this session's cost and tokens,
    /// today's cost, the five-hour block, the context used. Reads Claude Code's JSON on stdin.
    #[command(after_help = "\
Install it with one line of ~/.claude/settings.json:
  \"statusLine\": {\"type\": \"command\", \"command\": \"cursor-stream statusline\"}

Examples:
  cursor-stream statusline < status.json
  cursor-stream statusline --color always --format '{model} {session_cost} · {block}'

Fields for --format: {model}, {session_cost}, {session_tokens} (this session, counted from
the logs as `usage session` counts them), {today_cost} (every agent's calls since midnight),
{block} (the five-hour block: the percent of its limit and its reset where recorded, else
the time left), {context} (the context used). Reads the logs written in the last 24 hours.")]
    Statusline(StatuslineArgs),

    /// Write every run, model call and tool call into a ledger: Parquet tables by day that
    /// DuckDB, Spark, Trino or ClickHouse read, and that many machines share.
    #[command(after_help = "\
Examples:
  cursor-stream export                                  every agent's logs, into the default ledger
  cursor-stream export --ledger /mnt/team/ledger        a shared folder: every machine, no server
  cursor-stream export --ledger ledger run.ndjson       a saved stream (a CI job's last step)
  cursor-stream usage --ledger /mnt/team/ledger --by machine
  duckdb -c \"select agent, sum(cost_usd) from read_parquet('ledger/calls/**/*.parquet',
            hive_partitioning = true) group by all\"

Tables: calls (a row per model call), runs (per run), tools (per tool call), each under
DIR/<table>/date=YYYY-MM-DD/ (UTC). No prompt, answer or tool argument text is written:
counts, names, kinds, statuses and working directories only. An export writes only what is
new: logs unchanged since this machine's last export are not read, and a log that grew
gives only its new rows. A call, run or tool call may be in several files (a copy of a
session on two machines); its key (call_key, run_key, run_key + seq) is the same in each,
and `usage --ledger` counts it once (see the README for the engines' queries).")]
    Export(ExportArgs),

    /// What a run did, to look at: GitHub Markdown (a CI step summary, a PR comment) or,
    /// with --html, one self-contained page with a timeline of the tool calls.
    #[command(after_help = "\
Examples:
  cursor-stream transcript run.ndjson >> \"$GITHUB_STEP_SUMMARY\"
  cursor-stream transcript --html run.ndjson > run.html         opens offline, anywhere
  agent -p \"…\" --output-format stream-json | cursor-stream transcript --html --tee run.ndjson > run.html

Outputs are cut so that the Markdown stays under 1 MiB (GitHub's limit for a step summary)
and the page opens at once; every cut says so, and --full keeps everything. Exit status as
`result`: 0 success, 1 a run failed, 3 a run did not finish.")]
    Transcript(TranscriptArgs),

    /// Validate a stream and report what is wrong, by line (exit 1 when anything is).
    #[command(after_help = "\
Examples:
  cursor-stream check run.ndjson
  cursor-stream check --json run.ndjson | jq 'select(.type==\"problem\")'")]
    Check(CheckArgs),

    /// Start the agent, show its stream live, and stop it when it is done or hangs.
    #[command(after_help = "\
Examples:
  cursor-stream run -- agent -p \"fix the build\" --output-format stream-json --stream-partial-output
  cursor-stream run --view text --idle-timeout 5m -- agent -p \"…\" --output-format stream-json
  cursor-stream run --view json --tee run.ndjson -- agent -p \"…\" --output-format stream-json
  cursor-stream run -- claude -p \"…\" --output-format stream-json --verbose

Exit status: as the view's (0 success, 1 failed run, 3 no result), except: 124 when the agent
printed nothing for --idle-timeout, 127 when it could not be started, 130 on Ctrl-C, and the
agent's own status (or 128 + signal) when it failed without its terminal event. An agent
still running --grace after its terminal event (Cursor's and Claude's result, Codex's
turn.completed, Gemini's result, OpenCode's final step) is stopped (SIGTERM, then SIGKILL),
with everything it started.")]
    Run(RunArgs),

    /// Print a shell completion script (bash, zsh, fish, elvish, powershell).
    #[command(after_help = "\
Examples:
  cursor-stream completions bash > ~/.local/share/bash-completion/completions/cursor-stream
  cursor-stream completions zsh > \"${fpath[1]}/_cursor-stream\"
  cursor-stream completions fish > ~/.config/fish/completions/cursor-stream.fish")]
    Completions {
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },

    /// Print the manual page (roff).
    #[command(after_help = "\
Examples:
  cursor-stream man > ~/.local/share/man/man1/cursor-stream.1
  cursor-stream man | man -l -")]
    Man,
}

impl Command {
    /// The command's name, as typed (for the usage line of an error found after parsing).
    pub(crate) fn name(&self) -> &'static str {
        match self {
            Command::Text(_) => "text",
            Command::Result(_) => "result",
            Command::Json(_) => "json",
            Command::Tools(_) => "tools",
            Command::Progress(_) => "progress",
            Command::Events(_) => "events",
            Command::Get(_) => "get",
            Command::Stats(_) => "stats",
            Command::Sessions(_) => "sessions",
            Command::Usage(_) => "usage",
            Command::Statusline(_) => "statusline",
            Command::Export(_) => "export",
            Command::Transcript(_) => "transcript",
            Command::Check(_) => "check",
            Command::Run(_) => "run",
            Command::Completions { .. } => "completions",
            Command::Man => "man",
        }
    }
}

#[derive(Debug, Args)]
pub(crate) struct RunArgs {
    /// The view the agent's stream goes through.
    #[arg(long, value_enum, default_value_t = RunView::Progress)]
    pub view: RunView,

    /// How long the agent may keep running after its terminal event before it is stopped.
    #[arg(long, value_name = "DURATION", default_value = "5s", value_parser = parse_duration)]
    pub grace: Duration,

    /// Stop the agent when it prints nothing for DURATION (e.g. 10m), with status 124.
    #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
    pub idle_timeout: Option<Duration>,

    /// The agent's command line, after `--`.
    #[arg(last = true, required = true, value_name = "COMMAND")]
    pub command: Vec<OsString>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum RunView {
    Progress,
    Text,
    Tools,
    Result,
    Json,
}

fn parse_duration(s: &str) -> Result<Duration, String> {
    humantime::parse_duration(s)
        .map_err(|e| format!("`{s}` is not a duration such as 30s, 5m or 1h ({e})"))
}

/// Selecting events, for `events` and `get`.
#[derive(Debug, Args)]
pub(crate) struct FilterArgs {
    /// Only events of these types, as the agent names them (assistant, tool_call, result,
    /// stream_event, item.completed, message, step_finish, …).
    #[arg(long = "type", value_name = "TYPE", value_delimiter = ',')]
    pub types: Vec<String>,

    /// Only events with these subtypes (init, delta, started, completed, success, …).
    #[arg(long, value_name = "SUBTYPE", value_delimiter = ',')]
    pub subtype: Vec<String>,

    /// Only the events that start or end a call of these tools (shell, Bash,
    /// command_execution, run_shell_command, …).
    #[arg(long, value_name = "NAME", value_delimiter = ',')]
    pub tool: Vec<String>,

    /// Only events of the runs whose session id starts with ID.
    #[arg(long, value_name = "ID", value_delimiter = ',')]
    pub session: Vec<String>,

    /// Keep the events that do not match instead.
    #[arg(short = 'v', long)]
    pub invert: bool,
}

impl FilterArgs {
    pub(crate) fn into_filter(self) -> EventFilter {
        EventFilter {
            types: self.types,
            subtypes: self.subtype,
            tools: self.tool,
            sessions: self.session,
            invert: self.invert,
        }
    }
}

#[derive(Debug, Args)]
pub(crate) struct EventsArgs {
    #[command(flatten)]
    pub input: InputArgs,

    #[command(flatten)]
    pub filter: FilterArgs,

    /// Only the lines of the last run in the input, and those before it since the run
    /// before ended (held until the end: past 2 MiB in a temporary file in TMPDIR).
    #[arg(long, alias = "last-session")]
    pub last_run: bool,

    /// Print the number of matching events instead.
    #[arg(short = 'c', long)]
    pub count: bool,

    /// Write the normalized events instead of the agent's lines: one JSON object per line
    /// (run_start, text, segment, thinking, tool_start, tool_end, notice, run_end), in one
    /// schema for every agent (docs/normalized.md). Combines with --session, --last-run
    /// and --count, not with the criteria on the agent's own types.
    #[arg(long, conflicts_with_all = ["types", "subtype", "tool", "invert"])]
    pub normalized: bool,

    #[command(flatten)]
    pub follow: FollowArgs,
}

// jq's `-f` is `--from-file`: `get` follows with `--follow` only.
#[derive(Debug, Args)]
#[command(mut_arg("follow", |a| a.short(None)))]
pub(crate) struct GetArgs {
    /// The jq program, e.g. 'select(.type=="tool_call") | .call_id' (with -f, the first
    /// file).
    #[arg(value_name = "PROGRAM", required_unless_present = "from_file")]
    pub program: Option<String>,

    /// Read the program from FILE (`#` starts a comment); every argument is then a file.
    #[arg(short = 'f', long, value_name = "FILE")]
    pub from_file: Option<PathBuf>,

    #[command(flatten)]
    pub input: InputArgs,

    #[command(flatten)]
    pub filter: FilterArgs,

    /// The program reads the normalized events, one schema for every agent
    /// (docs/normalized.md), instead of the lines.
    #[arg(long, conflicts_with_all = ["null_input", "types", "subtype", "tool", "session", "invert"])]
    pub normalized: bool,

    /// Write strings raw, without quotes and escapes.
    #[arg(short = 'r', long)]
    pub raw_output: bool,

    /// Like -r, and no newline after each value.
    #[arg(short = 'j', long)]
    pub join_output: bool,

    /// Like -r, and a NUL after each value instead of a newline (a string that holds a
    /// NUL is an error).
    #[arg(long)]
    pub raw_output0: bool,

    /// Write every character past ASCII as a \uXXXX escape.
    #[arg(short = 'a', long)]
    pub ascii_output: bool,

    /// Write an ASCII record separator (RS) before each value (RFC 7464 JSON text sequences).
    #[arg(long)]
    pub seq: bool,

    /// Compact output: the default here (accepted for jq's sake).
    #[arg(short = 'c', long)]
    pub compact_output: bool,

    /// Set the exit status from the last value, as jq -e.
    #[arg(short = 'e', long)]
    pub exit_status: bool,

    /// Run the program once, on `null`; read no input.
    #[arg(short = 'n', long)]
    pub null_input: bool,

    /// Each line of the input is a string, not JSON (with -s, each run's lines one string).
    #[arg(short = 'R', long, conflicts_with = "normalized")]
    pub raw_input: bool,

    /// Each input as jq's streaming form: `[path, leaf]` for each scalar (and empty array or
    /// object), `[path]` where an array or object ends; each event an input.
    #[arg(long, conflicts_with = "normalized")]
    pub stream: bool,

    /// Colour the values (jq's -C): `--color always`; JQ_COLORS sets the colours as in jq.
    #[arg(short = 'C', long)]
    pub color_output: bool,

    /// No colour (jq's -M): `--color never`.
    #[arg(short = 'M', long, conflicts_with = "color_output")]
    pub monochrome_output: bool,

    /// Run the program on each run's inputs gathered in one array (lines outside a run make
    /// an array of their own).
    #[arg(short = 's', long)]
    pub slurp: bool,

    /// Run the program once, on every input of every file in one array: jq's `-s` (memory
    /// grows with the input).
    #[arg(long, conflicts_with = "slurp")]
    pub slurp_all: bool,

    /// Sort the keys of objects.
    #[arg(short = 'S', long)]
    pub sort_keys: bool,

    /// Indent with a tab.
    #[arg(long, conflicts_with_all = ["indent", "compact_output"])]
    pub tab: bool,

    /// Indent with N spaces (0 to 7; 0 is compact).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u8).range(0..=7), conflicts_with = "compact_output")]
    pub indent: Option<u8>,

    /// `$NAME` is the string VALUE.
    #[arg(long, num_args = 2, value_names = ["NAME", "VALUE"], action = clap::ArgAction::Append)]
    pub arg: Vec<String>,

    /// `$NAME` is the JSON value TEXT.
    #[arg(long, num_args = 2, value_names = ["NAME", "TEXT"], action = clap::ArgAction::Append)]
    pub argjson: Vec<String>,

    /// `$NAME` is the text of FILE.
    #[arg(long, num_args = 2, value_names = ["NAME", "FILE"], action = clap::ArgAction::Append)]
    pub rawfile: Vec<String>,

    /// `$NAME` is the array of the JSON values in FILE.
    #[arg(long, num_args = 2, value_names = ["NAME", "FILE"], action = clap::ArgAction::Append)]
    pub slurpfile: Vec<String>,

    /// The arguments after the program are strings in `$ARGS.positional`, not files
    /// (the input is then stdin).
    #[arg(long, conflicts_with = "jsonargs")]
    pub args: bool,

    /// The arguments after the program are JSON values in `$ARGS.positional`, not files.
    #[arg(long)]
    pub jsonargs: bool,

    #[command(flatten)]
    pub follow: FollowArgs,
}

#[derive(Debug, Args)]
pub(crate) struct StatsArgs {
    #[command(flatten)]
    pub input: InputArgs,

    /// One JSON object per run instead of the table.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
#[command(mut_arg("files", |a| a.help(EVERY_STORE_FILES)))]
#[command(mut_arg("since", |a| a.help(USAGE_SINCE)))]
#[command(mut_arg("until", |a| a.help(USAGE_UNTIL)))]
pub(crate) struct UsageArgs {
    #[command(flatten)]
    pub input: InputArgs,

    /// One JSON object per row (period × agent × model) instead of the table.
    #[arg(long, conflicts_with = "html", help_heading = "Report")]
    pub json: bool,

    /// One self-contained HTML page: a stacked chart over time and the table.
    #[arg(long, help_heading = "Report")]
    pub html: bool,

    /// A row per model under each period's row.
    #[arg(long, help_heading = "Report")]
    pub breakdown: bool,

    /// The time zone days are cut in (an IANA name, e.g. Europe/Paris, or UTC); by
    /// default the local one.
    #[arg(long, value_name = "TZ", help_heading = "Report")]
    pub timezone: Option<String>,

    /// Where costs come from: the agent's own figure where it reports one, else
    /// calculated (auto); always calculated; the agent's own only.
    #[arg(
        long,
        value_enum,
        default_value_t = CostChoice::Auto,
        value_name = "WHERE",
        help_heading = "Report"
    )]
    pub cost: CostChoice,

    /// Prices from FILE, a price list in LiteLLM's format
    /// (model_prices_and_context_window.json), instead of the table built in.
    #[arg(long, value_name = "FILE", help_heading = "Report")]
    pub prices: Option<PathBuf>,

    /// Read the model calls from a ledger (`export`'s) instead of the agents' logs: every
    /// machine that exported into it. Without DIR, the default ledger.
    #[arg(long, value_name = "DIR", num_args = 0..=1, help_heading = "Report")]
    pub ledger: Option<Option<PathBuf>>,

    /// Draw the report again as the logs change (q quits); not on a terminal, a line
    /// `{"at": …, "rows": [the --json rows]}` at the start and at each change.
    #[arg(long, conflicts_with_all = ["html", "ledger"], help_heading = "Report")]
    pub live: bool,

    /// A column more in each row: the machine that exported the calls (with --ledger; a
    /// call several machines hold counts under the first), or the project (the session's
    /// working directory).
    #[arg(long, value_enum, value_name = "COLUMN", help_heading = "Report")]
    pub by: Option<ByChoice>,
}

#[derive(Debug, Args)]
pub(crate) struct StatuslineArgs {
    /// The line, its fields in braces (see below).
    #[arg(long, value_name = "FORMAT")]
    pub format: Option<String>,

    /// The time zone "today" is in (an IANA name); by default the local one.
    #[arg(long, value_name = "TZ")]
    pub timezone: Option<String>,

    /// Prices from FILE, a price list in LiteLLM's format, instead of the table built in.
    #[arg(long, value_name = "FILE")]
    pub prices: Option<PathBuf>,
}

impl UsageArgs {
    /// `usage`'s arguments as `statusline` reads the logs: every agent's, priced as `usage`
    /// prices them.
    pub(crate) fn for_statusline(timezone: Option<String>, prices: Option<PathBuf>) -> UsageArgs {
        UsageArgs {
            input: InputArgs::default(),
            json: false,
            html: false,
            breakdown: false,
            timezone,
            cost: CostChoice::Auto,
            prices,
            ledger: None,
            by: None,
            live: false,
        }
    }
}

/// `usage --by`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum ByChoice {
    Machine,
    Project,
}

#[derive(Debug, Args)]
#[command(mut_arg("files", |a| a.help(EVERY_STORE_FILES)))]
pub(crate) struct ExportArgs {
    #[command(flatten)]
    pub input: InputArgs,

    /// The ledger's folder (made when missing); by default
    /// $XDG_DATA_HOME/cursor-stream/ledger (~/.local/share/cursor-stream/ledger).
    #[arg(long, value_name = "DIR")]
    pub ledger: Option<PathBuf>,

    /// The name the rows are labelled with; by default the host name.
    #[arg(long, value_name = "NAME")]
    pub machine: Option<String>,

    /// Prices from FILE, a price list in LiteLLM's format, instead of the table built in
    /// (for `cost_usd`; the tokens are written too).
    #[arg(long, value_name = "FILE")]
    pub prices: Option<PathBuf>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum CostChoice {
    Auto,
    Calculate,
    Reported,
}

/// `usage`'s and `sessions`' files: with none, they read every agent's logs, not stdin
/// (a stream is read with `-`).
const EVERY_STORE_FILES: &str = "Files to read, in order: agents' streams, their session logs \
(`.jsonl`, `.jsonl.zst`, OpenCode's `.db`), or a session's id (or its unique start); `-` \
reads stdin. With no file and no --from, every agent's session logs are read";

/// `usage`'s `--since`, read in its `--timezone`.
const USAGE_SINCE: &str = "Only the calls made since WHEN: a time ago (2d, 12h, 1w), a day \
(2026-11-20) or a moment (2026-11-20T14:00), in --timezone (by default the local one)";

/// `usage`'s `--until`: it counts calls, not sessions.
const USAGE_UNTIL: &str = "Only the calls made until WHEN (a day includes all of it)";

#[derive(Debug, Args)]
#[command(mut_arg("files", |a| a.help(EVERY_STORE_FILES)))]
pub(crate) struct SessionsArgs {
    #[command(flatten)]
    pub input: InputArgs,

    /// One JSON object per session instead of the table.
    #[arg(long)]
    pub json: bool,

    /// Draw the list again as the logs change (q quits); not on a terminal, a line
    /// `{"at": …, "rows": [the --json rows]}` at the start and at each change.
    #[arg(long)]
    pub live: bool,
}

#[derive(Debug, Args)]
pub(crate) struct TranscriptArgs {
    #[command(flatten)]
    pub input: InputArgs,

    /// One self-contained HTML page instead of Markdown.
    #[arg(long)]
    pub html: bool,

    /// Keep everything: no output cut, no size limit.
    #[arg(long)]
    pub full: bool,
}

#[derive(Debug, Args)]
pub(crate) struct CheckArgs {
    #[command(flatten)]
    pub input: InputArgs,

    /// One JSON object per problem, and a summary object last.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args, Default)]
pub(crate) struct InputArgs {
    /// Files to read, in order: agents' streams, their session logs (`.jsonl`,
    /// `.jsonl.zst`, OpenCode's `.db`), or a session's id (or its unique start); `-` or
    /// nothing reads stdin.
    #[arg(value_name = "FILE")]
    pub files: Vec<PathBuf>,

    #[command(flatten)]
    pub stores: StoreArgs,
}

/// `--follow`, for the views that stream.
#[derive(Debug, Args, Default, Clone)]
#[command(next_help_heading = "Following a log")]
pub(crate) struct FollowArgs {
    /// Keep reading FILE as it grows, as `tail -F` (from its start again when it is
    /// truncated or replaced); with --from AGENT, the agent's newest session, then the next
    /// one when it starts. Ends on Ctrl-C, or with --idle.
    #[arg(short = 'f', long)]
    pub follow: bool,

    /// With --follow: end after DURATION with nothing new (30s, 10m, 1h), with the exit
    /// status the view gives at the end of a file.
    #[arg(long, value_name = "DURATION", requires = "follow")]
    pub idle: Option<String>,
}

/// Reading the session logs the agents keep.
#[derive(Debug, Args, Default)]
#[command(next_help_heading = "Session logs")]
pub(crate) struct StoreArgs {
    /// Read the session logs AGENT keeps (claude, codex, gemini, qwen, opencode, cursor,
    /// or all; a list), oldest first, each agent's folder where its own variable puts it
    /// (CLAUDE_CONFIG_DIR, CODEX_HOME, GEMINI_CLI_HOME, QWEN_RUNTIME_DIR, XDG_DATA_HOME,
    /// CURSOR_CONFIG_DIR).
    #[arg(long, value_enum, value_delimiter = ',', value_name = "AGENT")]
    pub from: Vec<FromChoice>,

    /// Only sessions active since WHEN: a time ago (2d, 12h, 1w), a day (2026-11-20) or
    /// a moment (2026-11-20T14:00), in local time. Alone, reads every agent's logs.
    #[arg(long, value_name = "WHEN")]
    pub since: Option<String>,

    /// Only sessions started by WHEN (a day includes all of it).
    #[arg(long, value_name = "WHEN")]
    pub until: Option<String>,

    /// Only sessions whose working directory is DIR or below it.
    #[arg(long, value_name = "DIR")]
    pub project: Option<PathBuf>,
}

/// `--from`: an agent's name, or `all` (`None`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct FromChoice(pub Option<Agent>);

impl FromChoice {
    /// The agents whose logs are read.
    pub(crate) fn agents(self) -> Vec<Agent> {
        match self.0 {
            Some(agent) => vec![agent],
            None => Agent::ALL.to_vec(),
        }
    }
}

/// Every agent of the list, then `all`.
static FROM_CHOICES: [FromChoice; Agent::ALL.len() + 1] = {
    let mut out = [FromChoice(None); Agent::ALL.len() + 1];
    let mut i = 0;
    while i < Agent::ALL.len() {
        out[i] = FromChoice(Some(Agent::ALL[i]));
        i += 1;
    }
    out
};

impl ValueEnum for FromChoice {
    fn value_variants<'a>() -> &'a [Self] {
        &FROM_CHOICES
    }

    fn to_possible_value(&self) -> Option<clap::builder::PossibleValue> {
        Some(clap::builder::PossibleValue::new(
            self.0.map_or("all", Agent::name),
        ))
    }
}

#[derive(Debug, Args)]
pub(crate) struct TextArgs {
    #[command(flatten)]
    pub input: InputArgs,

    /// Show the reasoning (`thinking` events) on stderr, dimmed and marked, apart from the
    /// answer.
    #[arg(long)]
    pub thinking: bool,

    /// Write SEP between segments (the text before and after each round of tool calls).
    /// `\n`, `\t` and `\\` are understood. By default segments are joined with nothing,
    /// so the output equals the run's own result.
    #[arg(long, value_name = "SEP")]
    pub separator: Option<String>,

    #[command(flatten)]
    pub follow: FollowArgs,
}

#[derive(Debug, Args)]
pub(crate) struct ToolsArgs {
    #[command(flatten)]
    pub input: InputArgs,

    /// One JSON object per call (NDJSON), with a stable schema (see docs/GUIDE.md).
    #[arg(long)]
    pub json: bool,

    /// Also write a line when a call starts, not only when it completes.
    #[arg(long)]
    pub starts: bool,

    /// Only calls of these tools (read, shell, edit, grep, mcp, …); repeat or separate
    /// with commas.
    #[arg(long, value_name = "NAME", value_delimiter = ',')]
    pub tool: Vec<String>,

    /// Only calls with these statuses (ok, rejected, error, pending, failed, …).
    #[arg(long, value_name = "STATUS", value_delimiter = ',')]
    pub status: Vec<String>,

    /// Only calls that did not succeed (same as --status failed).
    #[arg(long)]
    pub failed: bool,

    /// Only calls of the run whose session id starts with ID.
    #[arg(long, value_name = "ID")]
    pub session: Option<String>,

    #[command(flatten)]
    pub follow: FollowArgs,
}

#[derive(Debug, Args)]
pub(crate) struct ProgressArgs {
    #[command(flatten)]
    pub input: InputArgs,

    /// Write the activity lines and footers to stderr, so that stdout holds only the
    /// answer (what CI logs want).
    #[arg(long)]
    pub activity_stderr: bool,

    /// Show the reasoning too, dimmed and marked `[thinking]`.
    #[arg(long)]
    pub thinking: bool,

    #[command(flatten)]
    pub follow: FollowArgs,
}

/// `1048576`, `512K`, `64M`, `1G` (binary units; `KiB`, `MB` and the like are accepted).
pub(crate) fn parse_size(s: &str) -> Result<usize, String> {
    let s = s.trim();
    let split = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    let (digits, unit) = s.split_at(split);
    let n: usize = digits
        .parse()
        .map_err(|_| format!("`{s}` is not a size such as 4096, 512K, 64M or 1G"))?;
    let shift = match unit.trim().to_ascii_uppercase().as_str() {
        "" | "B" => 0,
        "K" | "KB" | "KIB" => 10,
        "M" | "MB" | "MIB" => 20,
        "G" | "GB" | "GIB" => 30,
        _ => return Err(format!("unknown unit in `{s}`: use K, M or G")),
    };
    n.checked_mul(1 << shift)
        .filter(|&n| n > 0)
        .ok_or_else(|| format!("`{s}` is not a usable size"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes() {
        assert_eq!(parse_size("4096"), Ok(4096));
        assert_eq!(parse_size("512K"), Ok(512 << 10));
        assert_eq!(parse_size("64MiB"), Ok(64 << 20));
        assert_eq!(parse_size("1g"), Ok(1 << 30));
        assert!(parse_size("0").is_err());
        assert!(parse_size("12 parsecs").is_err());
        assert!(parse_size("M").is_err());
    }

    #[test]
    fn clap_definition_is_valid() {
        use clap::CommandFactory;
        Cli::command().debug_assert();
    }
}
