//! The command line, resolved once into a plain [`Config`] that the engine uses (as fd
//! does): the chosen view with its options, the inputs, and how output behaves.

use std::io::IsTerminal;
use std::path::PathBuf;

use crate::agent::event::Agent;
use crate::cli::{
    Cli, ColorChoice, Command, EventsArgs, GetArgs, GlobalArgs, InputArgs, ProgressArgs, RunArgs,
    RunView, TextArgs, ToolsArgs, TranscriptArgs,
};
use crate::input::Input;
use crate::supervise::RunOptions;
use crate::view::check::CheckOptions;
use crate::view::events::EventsOptions;
use crate::view::export::ExportOptions;
use crate::view::get::{Bindings, GetOptions, Layout};
use crate::view::normalized::NormalizedOptions;
use crate::view::progress::ProgressOptions;
use crate::view::sessions::SessionsOptions;
use crate::view::stats::StatsOptions;
use crate::view::text::TextOptions;
use crate::view::tools::{CallFilter, ToolsOptions};
use crate::view::transcript::TranscriptOptions;
use crate::view::usage::prices::Prices;
use crate::view::usage::{By, CostMode, Report, UsageOptions};

#[derive(Debug, Clone)]
pub enum ViewChoice {
    Text(TextOptions),
    Result,
    Json,
    Tools(ToolsOptions),
    Progress(ProgressOptions),
    Events(EventsOptions),
    /// `events --normalized`.
    Normalized(NormalizedOptions),
    Get(GetOptions),
    Stats(StatsOptions),
    Check(CheckOptions),
    Transcript(TranscriptOptions),
    Sessions(SessionsOptions),
    Usage(UsageOptions),
    Export(ExportOptions),
    Statusline(crate::view::statusline::StatuslineOptions),
}

/// Everything a run needs, decided once.
#[derive(Debug, Clone)]
pub(crate) struct Config {
    pub view: ViewChoice,
    /// For `run`: the agent to start (and the inputs are its stdout).
    pub run: Option<RunOptions>,
    pub inputs: Vec<Input>,
    /// `--agent`: read every input as this agent's stream, with no detection.
    pub agent: Option<Agent>,
    pub strict: bool,
    pub quiet: bool,
    pub line_buffered: bool,
    pub max_line: Option<usize>,
    pub tee: Option<PathBuf>,
    pub color_out: bool,
    pub color_err: bool,
    pub out_is_terminal: bool,
    pub err_is_terminal: bool,
    /// The terminal's width, read once, when stdout or stderr is one.
    pub columns: Option<usize>,
    /// `--follow`: how, and for `--from`, whose sessions.
    pub follow: Option<FollowPlan>,
    /// `usage --live`: what to watch.
    pub live: Option<crate::stores::watched::Watched>,
}

/// What `--follow` reads: the input named (a file, read on as it grows), or the newest
/// session of these agents, then the next.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FollowPlan {
    pub follow: crate::input::follow::Follow,
    /// With `--from`: the agents whose newest session is followed (the inputs are then
    /// found as they start).
    pub sessions_of: Vec<Agent>,
}

/// What the command line asks for.
pub(crate) enum Action {
    View(Box<Config>),
    Completions(clap_complete::Shell),
    Man,
}

impl Config {
    /// Resolves the command line once: the view with its options, the inputs, colours and
    /// terminals.
    pub(crate) fn from_cli(mut cli: Cli) -> Action {
        let mut run = None;
        let mut follow = crate::cli::FollowArgs::default();
        let mut live = None;
        let _ = COMMAND.set(cli.command.name());
        let (view, input) = match cli.command {
            Command::Completions { shell } => return Action::Completions(shell),
            Command::Man => return Action::Man,
            Command::Run(a) => {
                let (view, agent) = run_view(a);
                run = Some(agent);
                (view, InputArgs::default())
            }
            Command::Text(a) => {
                follow = a.follow.clone();
                text_view(a)
            }
            Command::Result(a) => (ViewChoice::Result, a),
            Command::Json(a) => (ViewChoice::Json, a),
            Command::Tools(a) => {
                follow = a.follow.clone();
                tools_view(a)
            }
            Command::Progress(a) => {
                follow = a.follow.clone();
                progress_view(a)
            }
            Command::Events(a) => {
                follow = a.follow.clone();
                events_view(a)
            }
            Command::Get(a) => {
                follow = a.follow.clone();
                // jq's -C and -M: `--color always` and `--color never`.
                if a.color_output {
                    cli.global.color = ColorChoice::Always;
                } else if a.monochrome_output {
                    cli.global.color = ColorChoice::Never;
                }
                get_view(a)
            }
            Command::Stats(a) => (ViewChoice::Stats(StatsOptions { json: a.json }), a.input),
            Command::Check(a) => (ViewChoice::Check(CheckOptions { json: a.json }), a.input),
            Command::Sessions(a) => {
                live = a.live.then(|| live_spec(&a.input));
                (
                    ViewChoice::Sessions(SessionsOptions { json: a.json }),
                    a.input,
                )
            }
            Command::Transcript(a) => transcript_view(a),
            Command::Statusline(a) => {
                let (view, inputs) = statusline_view(a);
                let config = Config::with_terminals(view, run, inputs, cli.global);
                return Action::View(Box::new(config));
            }
            Command::Export(a) => {
                let (view, inputs) = export_view(a);
                return Action::View(Box::new(Config::with_terminals(
                    view, run, inputs, cli.global,
                )));
            }
            Command::Usage(a) => return Config::for_usage(a, run, cli.global),
        };
        let plan = follow.follow.then(|| follow_plan(&follow, &input));
        // `get -n` reads no input at all, not even stdin.
        let inputs = match &view {
            ViewChoice::Get(opts) if opts.null_input && !opts.program.reads_inputs() => Vec::new(),
            ViewChoice::Sessions(_) => store_inputs(input, true),
            // The sessions followed are found as they start.
            _ if plan.as_ref().is_some_and(|p| !p.sessions_of.is_empty()) => Vec::new(),
            _ => store_inputs(input, false),
        };
        let mut config = Config::with_terminals(view, run, inputs, cli.global);
        config.follow = plan;
        config.live = live;
        Action::View(Box::new(config))
    }

    /// `usage`: `--agent` chooses the agent's rows (and logs), and no stream's format; the
    /// logs, or the ledger, or with `--live` what to watch.
    fn for_usage(
        mut a: crate::cli::UsageArgs,
        run: Option<RunOptions>,
        mut global: GlobalArgs,
    ) -> Action {
        let agent = global.agent.agent();
        global.agent = crate::cli::AgentChoice::AUTO;
        let report = take_report(&mut a.input.files);
        if let Some(agent) = agent
            && a.input.files.is_empty()
            && a.input.stores.from.is_empty()
        {
            a.input.stores.from = vec![crate::cli::FromChoice(Some(agent))];
        }
        let live = a.live;
        let (view, input) = usage_view(a, report, agent);
        let spec = live.then(|| live_spec(&input));
        let inputs = match &view {
            // The ledger holds the calls: no log is read.
            ViewChoice::Usage(o) if o.ledger.is_some() => Vec::new(),
            _ => store_inputs(input, true),
        };
        let mut config = Config::with_terminals(view, run, inputs, global);
        config.live = spec;
        Action::View(Box::new(config))
    }

    /// The config of `view` over `inputs`, with the global options, and the colours as
    /// `--color`, `NO_COLOR` and the terminals decide them.
    fn with_terminals(
        view: ViewChoice,
        run: Option<RunOptions>,
        inputs: Vec<Input>,
        global: GlobalArgs,
    ) -> Config {
        let out_is_terminal = std::io::stdout().is_terminal();
        let err_is_terminal = std::io::stderr().is_terminal();
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        let color = |is_terminal: bool| match global.color {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => is_terminal && !no_color,
        };
        let mut view = view;
        match &mut view {
            ViewChoice::Get(opts) => opts.color = color(out_is_terminal),
            ViewChoice::Statusline(opts) => opts.color = color(out_is_terminal),
            _ => {}
        }
        Config {
            view,
            run,
            inputs,
            agent: global.agent.agent(),
            strict: global.strict,
            quiet: global.quiet,
            line_buffered: global.line_buffered,
            max_line: global.max_line,
            tee: global.tee,
            color_out: color(out_is_terminal),
            color_err: color(err_is_terminal),
            out_is_terminal,
            err_is_terminal,
            columns: (out_is_terminal || err_is_terminal).then(crate::out::fit::terminal_columns),
            follow: None,
            live: None,
        }
    }
}

/// `run`: the view the agent's stream goes through, and how the agent is run.
fn run_view(a: RunArgs) -> (ViewChoice, RunOptions) {
    let view = match a.view {
        RunView::Progress => ViewChoice::Progress(ProgressOptions::default()),
        RunView::Text => ViewChoice::Text(TextOptions::default()),
        RunView::Tools => ViewChoice::Tools(ToolsOptions::default()),
        RunView::Result => ViewChoice::Result,
        RunView::Json => ViewChoice::Json,
    };
    let run = RunOptions {
        command: a.command,
        grace: a.grace,
        idle_timeout: a.idle_timeout,
    };
    (view, run)
}

/// `statusline`: Claude Code's JSON read from stdin now (a malformed one is a usage error),
/// and the logs written in the last 24 hours, the session's transcript among them.
fn statusline_view(a: crate::cli::StatuslineArgs) -> (ViewChoice, Vec<Input>) {
    use std::io::Read;
    let unknown = a
        .format
        .as_deref()
        .and_then(crate::view::statusline::unknown_field);
    if let Some(name) = unknown {
        usage_error(format!(
            "statusline: --format names {{{name}}}, which is no field: the fields are {}",
            crate::view::statusline::FIELDS
                .map(|f| format!("{{{f}}}"))
                .join(", ")
        ));
    }
    let mut text = String::new();
    if let Err(e) = std::io::stdin().read_to_string(&mut text) {
        usage_error(format!("statusline: reading stdin: {e}"));
    }
    // One line, as the status line shows it (no usage text under it).
    let input = crate::view::statusline::StatusInput::parse(&text).unwrap_or_else(|e| {
        eprintln!("cursor-stream: {e}");
        std::process::exit(2)
    });
    let mut usage = crate::cli::UsageArgs::for_statusline(a.timezone.clone(), a.prices.clone());
    usage.input.stores.since = Some("24h".into());
    usage.input.stores.from = vec![crate::cli::FromChoice(None)];
    let (view, args) = usage_view(usage, Report::Daily, None);
    let ViewChoice::Usage(mut usage) = view else {
        unreachable!("usage_view makes a usage view")
    };
    // The window chooses the logs; a session's calls older than it still count (its
    // transcript is read whole).
    usage.since_ms = None;
    usage.until_ms = None;
    let mut inputs = store_inputs(args, true);
    if let Some(path) = &input.transcript_path
        && path.is_file()
        && !inputs
            .iter()
            .any(|i| matches!(i, Input::Path(p) if p == path))
    {
        inputs.push(Input::Path(path.clone()));
    }
    let opts = crate::view::statusline::StatuslineOptions {
        input,
        format: a
            .format
            .unwrap_or_else(|| crate::view::statusline::DEFAULT_FORMAT.to_string()),
        usage,
        color: false,
    };
    (ViewChoice::Statusline(opts), inputs)
}

/// `--follow`: one file (or stdin), or with `--from` the agents' newest session.
fn follow_plan(args: &crate::cli::FollowArgs, input: &InputArgs) -> FollowPlan {
    let idle = args.idle.as_deref().map(|text| {
        humantime::parse_duration(text)
            .unwrap_or_else(|e| usage_error(format!("--idle {text}: {e} (30s, 10m, 1h)")))
    });
    let stores = &input.stores;
    if stores.since.is_some() || stores.until.is_some() || stores.project.is_some() {
        usage_error(
            "--follow reads a file, or with --from the newest session: not --since, --until or --project",
        );
    }
    let mut sessions_of: Vec<Agent> = Vec::new();
    for agent in stores.from.iter().flat_map(|c| c.agents()) {
        if !sessions_of.contains(&agent) {
            sessions_of.push(agent);
        }
    }
    match (sessions_of.is_empty(), input.files.len()) {
        (true, 0 | 1) | (false, 0) => {}
        (true, _) => usage_error("--follow follows one file (or stdin)"),
        (false, _) => {
            usage_error("--follow with --from follows the agent's newest session: name no file")
        }
    }
    FollowPlan {
        follow: crate::input::follow::Follow { idle },
        sessions_of,
    }
}

/// `text` with its options, and its inputs.
fn text_view(a: TextArgs) -> (ViewChoice, InputArgs) {
    let opts = TextOptions {
        separator: a.separator.as_deref().map(unescape),
        thinking: a.thinking,
    };
    (ViewChoice::Text(opts), a.input)
}

/// `tools` with its options (`--failed` is one more status), and its inputs.
fn tools_view(a: ToolsArgs) -> (ViewChoice, InputArgs) {
    let mut statuses = a.status;
    if a.failed {
        statuses.push("failed".to_string());
    }
    let opts = ToolsOptions {
        json: a.json,
        starts: a.starts,
        filter: CallFilter {
            tools: a.tool,
            statuses,
            session: a.session,
        },
    };
    (ViewChoice::Tools(opts), a.input)
}

/// `progress` with its options, and its inputs.
fn progress_view(a: ProgressArgs) -> (ViewChoice, InputArgs) {
    let opts = ProgressOptions {
        activity_stderr: a.activity_stderr,
        thinking: a.thinking,
    };
    (ViewChoice::Progress(opts), a.input)
}

/// `events` with its options, and its inputs.
fn events_view(a: EventsArgs) -> (ViewChoice, InputArgs) {
    if a.normalized {
        // clap refuses the criteria on the agent's own types with it; the session's stays.
        let opts = NormalizedOptions {
            sessions: a.filter.session,
            last_run: a.last_run,
            count: a.count,
        };
        return (ViewChoice::Normalized(opts), a.input);
    }
    let opts = EventsOptions {
        filter: a.filter.into_filter(),
        last_run: a.last_run,
        count: a.count,
    };
    (ViewChoice::Events(opts), a.input)
}

/// `get` with its options, and its inputs. A program that does not compile, or a variable
/// that cannot be read, is a usage error (exit 2), before any input is read.
fn get_view(a: GetArgs) -> (ViewChoice, InputArgs) {
    let mut bindings = match get_bindings(&a) {
        Ok(b) => b,
        Err(message) => usage_error(message),
    };
    let mut files = a.input.files;
    // With -f the program is in a file, and the first argument is a file too.
    let program = match &a.from_file {
        Some(path) => {
            if let Some(first) = &a.program {
                files.insert(0, first.into());
            }
            std::fs::read_to_string(path)
                .unwrap_or_else(|e| usage_error(format!("--from-file {}: {e}", path.display())))
        }
        None => a.program.clone().unwrap_or_default(),
    };
    if a.args || a.jsonargs {
        for f in std::mem::take(&mut files) {
            let text = f.to_string_lossy().into_owned();
            bindings.positional.push(if a.jsonargs {
                match jaq_json::read::parse_single(text.as_bytes()) {
                    Ok(v) => v,
                    Err(e) => usage_error(format!("--jsonargs {text}: not JSON ({e})")),
                }
            } else {
                jaq_json::Val::from(text)
            });
        }
    }
    let mut opts = match GetOptions::with_bindings(&program, &bindings) {
        Ok(opts) => opts,
        Err(e) => usage_error(e),
    };
    opts.filter = a.filter.into_filter();
    opts.raw = a.raw_output;
    opts.join = a.join_output;
    opts.raw0 = a.raw_output0;
    opts.ascii = a.ascii_output;
    opts.seq = a.seq;
    opts.exit_status = a.exit_status;
    opts.null_input = a.null_input;
    opts.raw_input = a.raw_input;
    opts.stream = a.stream;
    opts.slurp = a.slurp || a.slurp_all;
    opts.slurp_all = a.slurp_all;
    opts.sort_keys = a.sort_keys;
    opts.layout = match (a.tab, a.indent) {
        (true, _) => Layout::Tab,
        (false, None | Some(0)) => Layout::Compact,
        (false, Some(n)) => Layout::Spaces(n),
    };
    opts.normalized = a.normalized;
    (
        ViewChoice::Get(opts),
        InputArgs {
            files,
            stores: a.input.stores,
        },
    )
}

/// The variables `--arg`, `--argjson`, `--rawfile` and `--slurpfile` set, in the order of
/// each option (jq's order between options does not matter: names are distinct or the
/// last wins).
fn get_bindings(a: &GetArgs) -> Result<Bindings, String> {
    use jaq_json::Val;
    let mut named = Vec::new();
    for pair in a.arg.chunks_exact(2) {
        named.push((pair[0].clone(), Val::from(pair[1].clone())));
    }
    for pair in a.argjson.chunks_exact(2) {
        let v = jaq_json::read::parse_single(pair[1].as_bytes())
            .map_err(|e| format!("--argjson {}: not JSON ({e})", pair[0]))?;
        named.push((pair[0].clone(), v));
    }
    for pair in a.rawfile.chunks_exact(2) {
        let bytes = std::fs::read(&pair[1])
            .map_err(|e| format!("--rawfile {}: {}: {e}", pair[0], pair[1]))?;
        named.push((
            pair[0].clone(),
            Val::from(String::from_utf8_lossy(&bytes).into_owned()),
        ));
    }
    for pair in a.slurpfile.chunks_exact(2) {
        let bytes = std::fs::read(&pair[1])
            .map_err(|e| format!("--slurpfile {}: {}: {e}", pair[0], pair[1]))?;
        let values: Result<Val, _> = jaq_json::read::parse_many(&bytes).collect();
        let values =
            values.map_err(|e| format!("--slurpfile {}: {}: not JSON ({e})", pair[0], pair[1]))?;
        named.push((pair[0].clone(), values));
    }
    Ok(Bindings {
        named,
        positional: Vec::new(),
    })
}

/// The command being configured, for [`usage_error`]'s usage line (set once, before its
/// arguments are read).
static COMMAND: std::sync::OnceLock<&'static str> = std::sync::OnceLock::new();

/// Exits as clap does on a bad argument: the message, the running command's usage line,
/// status 2.
fn usage_error(message: impl std::fmt::Display) -> ! {
    use clap::CommandFactory;
    let mut cli = crate::cli::Cli::command();
    cli.build();
    let name = COMMAND.get().copied().unwrap_or("get");
    match cli.find_subcommand_mut(name) {
        Some(command) => command.error(clap::error::ErrorKind::InvalidValue, message),
        None => cli.error(clap::error::ErrorKind::InvalidValue, message),
    }
    .exit()
}

/// `usage`'s report, given first among the arguments (`usage monthly …`): taken from
/// them, unless it names a file.
fn take_report(files: &mut Vec<PathBuf>) -> Report {
    let Some(first) = files.first().and_then(|f| f.to_str()) else {
        return Report::Daily;
    };
    let report = match first {
        "daily" => Report::Daily,
        "weekly" => Report::Weekly,
        "monthly" => Report::Monthly,
        "session" | "sessions" => Report::Session,
        "model" | "models" => Report::Model,
        "run" | "runs" => Report::Run,
        "blocks" | "block" => Report::Blocks,
        _ => return Report::Daily,
    };
    if files[0].exists() {
        return Report::Daily;
    }
    files.remove(0);
    report
}

/// `usage` with its options (its time zone, window and prices read), and its inputs.
fn usage_view(
    a: crate::cli::UsageArgs,
    report: Report,
    agent: Option<Agent>,
) -> (ViewChoice, InputArgs) {
    let tz = match &a.timezone {
        Some(name) => match jiff::tz::TimeZone::get(name) {
            Ok(tz) => tz,
            Err(e) => usage_error(format!("--timezone {name}: {e}")),
        },
        None => jiff::tz::TimeZone::system(),
    };
    let window = match window_in(&a.input.stores, &tz) {
        Ok(w) => w,
        Err(message) => usage_error(message),
    };
    let prices = match &a.prices {
        Some(path) => match Prices::load(path) {
            Ok(p) => p,
            Err(e) => usage_error(format!("--prices: {e}")),
        },
        None => Prices::builtin(),
    };
    let ledger = match a.ledger {
        Some(dir) => {
            if !a.input.files.is_empty() {
                usage_error("--ledger reads the ledger, not files: name either");
            }
            Some(dir.or_else(crate::ledger::default_dir).unwrap_or_else(|| {
                usage_error("--ledger: no data directory (set HOME or XDG_DATA_HOME, or name DIR)")
            }))
        }
        None => None,
    };
    if report == Report::Blocks && (a.html || a.by.is_some() || a.breakdown) {
        usage_error(
            "usage blocks: a table or --json (no --html, --by or --breakdown: each block lists its models)",
        );
    }
    let opts = UsageOptions {
        ledger,
        by: a.by.map(|b| match b {
            crate::cli::ByChoice::Machine => By::Machine,
            crate::cli::ByChoice::Project => By::Project,
        }),
        project: a.input.stores.project.clone(),
        report,
        json: a.json,
        html: a.html,
        breakdown: a.breakdown,
        tz,
        since_ms: window.since_ms,
        until_ms: window.until_ms,
        agent,
        cost: match a.cost {
            crate::cli::CostChoice::Auto => CostMode::Auto,
            crate::cli::CostChoice::Calculate => CostMode::Calculate,
            crate::cli::CostChoice::Reported => CostMode::Reported,
        },
        prices: std::sync::Arc::new(prices),
    };
    (ViewChoice::Usage(opts), a.input)
}

/// `transcript` with its options, and its inputs.
fn transcript_view(a: TranscriptArgs) -> (ViewChoice, InputArgs) {
    let opts = TranscriptOptions {
        html: a.html,
        full: a.full,
    };
    (ViewChoice::Transcript(opts), a.input)
}

fn inputs(files: Vec<PathBuf>) -> Vec<Input> {
    if files.is_empty() {
        return vec![Input::Stdin];
    }
    files
        .into_iter()
        .map(|f| {
            if f.as_os_str() == "-" {
                Input::Stdin
            } else {
                Input::Path(f)
            }
        })
        .collect()
}

/// The inputs: the files named (a name that is no file may be a session's id, looked up
/// in the stores), then the session logs `--from` finds in the window `--since`,
/// `--until` and `--project` set. With no file and no `--from`, stdin; but a window alone,
/// or `sessions`, reads every agent's logs.
fn store_inputs(args: InputArgs, from_all_by_default: bool) -> Vec<Input> {
    let stores = args.stores;
    let window = match window(&stores) {
        Ok(w) => w,
        Err(message) => usage_error(message),
    };
    let mut agents: Vec<Agent> = Vec::new();
    for choice in &stores.from {
        for agent in choice.agents() {
            if !agents.contains(&agent) {
                agents.push(agent);
            }
        }
    }
    if agents.is_empty() && args.files.is_empty() && (from_all_by_default || !window.is_open()) {
        agents = Agent::ALL.to_vec();
    }
    if agents.is_empty() {
        return inputs(args.files).into_iter().map(by_id).collect();
    }
    let mut found: Vec<Input> = args
        .files
        .into_iter()
        .map(|f| by_id(Input::Path(f)))
        .collect();
    found.extend(
        crate::stores::find(&agents, &window)
            .into_iter()
            .map(|f| f.input),
    );
    found
}

/// What `usage --live` watches: the files named, and the agents' logs as `usage` chooses
/// them (every agent's unless named).
fn live_spec(args: &InputArgs) -> crate::stores::watched::Watched {
    let window = window(&args.stores).unwrap_or_else(|message| usage_error(message));
    let mut agents: Vec<Agent> = Vec::new();
    for agent in args.stores.from.iter().flat_map(|c| c.agents()) {
        if !agents.contains(&agent) {
            agents.push(agent);
        }
    }
    if agents.is_empty() && args.files.is_empty() {
        agents = Agent::ALL.to_vec();
    }
    // (No file named is no stdin here: `--live` watches logs.)
    let files: Vec<Input> = match args.files.is_empty() {
        true => Vec::new(),
        false => inputs(args.files.clone()).into_iter().map(by_id).collect(),
    };
    if files.contains(&Input::Stdin) {
        usage_error("--live watches logs: stdin is not one");
    }
    crate::stores::watched::Watched {
        files,
        agents,
        window,
    }
}

/// `export`: the logs to read — those found (or named) but the ones this machine's last
/// export into the ledger saw with the same size and time — and the view.
fn export_view(a: crate::cli::ExportArgs) -> (ViewChoice, Vec<Input>) {
    let ledger = a
        .ledger
        .or_else(crate::ledger::default_dir)
        .unwrap_or_else(|| {
            usage_error("--ledger: no data directory (set HOME or XDG_DATA_HOME, or name DIR)")
        });
    let machine = a.machine.unwrap_or_else(crate::ledger::host_name);
    if machine.trim().is_empty() {
        usage_error("--machine: a machine needs a name");
    }
    let prices = match &a.prices {
        Some(path) => Prices::load(path).unwrap_or_else(|e| usage_error(format!("--prices: {e}"))),
        None => Prices::builtin(),
    };
    let state = crate::ledger::State::load(&ledger, &machine)
        .unwrap_or_else(|e| usage_error(format!("--ledger: {e:#}")));
    crate::ledger::clean_up(&ledger, &machine);
    let mut reading = std::collections::BTreeMap::new();
    let mut unchanged = 0;
    let inputs: Vec<Input> = store_inputs(a.input, true)
        .into_iter()
        .filter(|input| {
            let path = match input {
                Input::Path(p) | Input::Database { path: p, .. } | Input::Rest { path: p, .. } => p,
                Input::Stdin => return true,
            };
            let Some(now) = crate::ledger::stat(path) else {
                return true;
            };
            let name = input.name();
            let same = state
                .files
                .get(&name)
                .is_some_and(|s| s.size == now.size && s.modified_ns == now.modified_ns);
            if same {
                unchanged += 1;
            } else {
                reading.insert(name, now);
            }
            !same
        })
        .collect();
    let opts = ExportOptions {
        ledger,
        machine,
        prices: std::sync::Arc::new(prices),
        state: std::sync::Arc::new(state),
        reading: std::sync::Arc::new(reading),
        unchanged,
    };
    (ViewChoice::Export(opts), inputs)
}

/// A name that is no file, but the start of a session's id: that session's log.
fn by_id(input: Input) -> Input {
    let Input::Path(path) = &input else {
        return input;
    };
    if path.exists() {
        return input;
    }
    let Some(name) = path.to_str() else {
        return input;
    };
    let looks_like_id = !name.is_empty()
        && name.len() >= 4
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    if !looks_like_id {
        return input;
    }
    match crate::stores::lookup(name) {
        Ok(found) => found,
        Err(message) => usage_error(format!("{name}: {message}")),
    }
}

/// `--since`, `--until` and `--project`, read.
fn window(stores: &crate::cli::StoreArgs) -> Result<crate::stores::Window, String> {
    window_in(stores, &jiff::tz::TimeZone::system())
}

/// `--since`, `--until` and `--project`, read in the time zone `tz`.
fn window_in(
    stores: &crate::cli::StoreArgs,
    tz: &jiff::tz::TimeZone,
) -> Result<crate::stores::Window, String> {
    use crate::stores::when::{End, parse};
    let tz = tz.clone();
    let since_ms = stores
        .since
        .as_deref()
        .map(|s| parse(s, End::Since, &tz).map_err(|e| format!("--since: {e}")))
        .transpose()?;
    let until_ms = stores
        .until
        .as_deref()
        .map(|s| parse(s, End::Until, &tz).map_err(|e| format!("--until: {e}")))
        .transpose()?;
    let project = match &stores.project {
        Some(dir) => {
            let abs = std::path::absolute(dir).map_err(|e| format!("--project: {e}"))?;
            Some(std::fs::canonicalize(&abs).unwrap_or(abs))
        }
        None => None,
    };
    Ok(crate::stores::Window {
        since_ms,
        until_ms,
        project,
    })
}

/// `\n`, `\t`, `\r`, `\0` and `\\`; any other backslash stays as written.
fn unescape(s: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(s.len());
    let mut bytes = s.bytes();
    while let Some(b) = bytes.next() {
        if b != b'\\' {
            out.push(b);
            continue;
        }
        match bytes.next() {
            Some(b'n') => out.push(b'\n'),
            Some(b't') => out.push(b'\t'),
            Some(b'r') => out.push(b'\r'),
            Some(b'0') => out.push(0),
            Some(b'\\') => out.push(b'\\'),
            Some(other) => out.extend_from_slice(&[b'\\', other]),
            None => out.push(b'\\'),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn separator_escapes() {
        assert_eq!(unescape(r"\n\n"), b"\n\n");
        assert_eq!(unescape(r"a\tb\\c\q"), b"a\tb\\c\\q");
        assert_eq!(unescape("---"), b"---");
    }

    #[test]
    fn dash_and_nothing_mean_stdin() {
        assert_eq!(inputs(vec![]), vec![Input::Stdin]);
        assert_eq!(
            inputs(vec!["a".into(), "-".into()]),
            vec![Input::Path("a".into()), Input::Stdin]
        );
    }
}
