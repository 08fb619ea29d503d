//! `usage --live`: the report drawn again as the logs change.
//!
//! Each log is read once at the start, its model calls kept apart; a watcher (`notify`:
//! inotify, FSEvents, ReadDirectoryChangesW) on the agents' folders says when something
//! changed below them, and then the logs are listed again (names, sizes and times only) and
//! only those that changed, or are new, are read again. The report is then made from every
//! log's calls, as `usage` makes it, and drawn in place on the terminal's alternate screen
//! (`q`, Esc or Ctrl-C quits and gives the terminal back as it was); not on a terminal, each
//! change writes one line, `{"at": RFC 3339, "rows": [the --json rows]}`, the first at the
//! start. The time shown moves on by itself too: every ten seconds the report is made again
//! from the calls held (a block's time left, which one is active), nothing read.

use std::io::{self, Write};
use std::path::PathBuf;
use std::sync::{Arc, Mutex, mpsc};
use std::time::{Duration, Instant};

use crate::config::Config;
use crate::dispatch::Dispatcher;
use crate::exit::ExitStatus;
use crate::input::Input;
use crate::input::file::Opened;
use crate::ledger::{LimitRec, Rec};
use crate::out::diag::Diag;
use crate::out::{Output, OutputMode};
use crate::view::usage::{UsageOptions, UsageView};
use crate::view::{Ctx, View, ViewHandler};

/// How long changes are gathered before the logs are looked at (a burst of writes is one
/// redraw), and how often the time moves the report on with no change.
const SETTLE: Duration = Duration::from_millis(150);
const TICK: Duration = Duration::from_secs(10);

/// What `--live` watches: the logs named, and the agents' logs chosen as at the start.
#[derive(Debug, Clone)]
pub(crate) struct LiveSpec {
    pub files: Vec<Input>,
    pub agents: Vec<crate::agent::event::Agent>,
    pub window: crate::stores::Window,
}

impl LiveSpec {
    /// The logs as they are now.
    fn list(&self) -> Vec<Input> {
        let mut inputs = self.files.clone();
        inputs.extend(
            crate::stores::find(&self.agents, &self.window)
                .into_iter()
                .map(|f| f.input),
        );
        inputs
    }

    /// The folders to watch: the agents' own, and those of the files named.
    fn roots(&self) -> Vec<PathBuf> {
        let mut roots: Vec<PathBuf> = self
            .agents
            .iter()
            .flat_map(|a| a.spec().store().roots())
            .collect();
        for input in &self.files {
            if let Input::Path(p) = input
                && let Some(dir) = p.parent()
            {
                roots.push(dir.to_path_buf());
            }
        }
        roots.retain(|r| r.is_dir());
        roots.sort();
        roots.dedup();
        roots
    }
}

/// A log's calls, and the size and time they were read at.
struct Log {
    input: Input,
    stamp: Option<(u64, std::time::SystemTime)>,
    records: Vec<Rec>,
    limits: Vec<LimitRec>,
}

fn stamp(input: &Input) -> Option<(u64, std::time::SystemTime)> {
    let path = match input {
        Input::Path(p) | Input::Rest { path: p, .. } | Input::Database { path: p, .. } => p,
        Input::Stdin => return None,
    };
    let meta = std::fs::metadata(path).ok()?;
    Some((meta.len(), meta.modified().ok()?))
}

/// Runs `usage --live`.
pub(crate) fn run(
    config: &Config,
    opts: &UsageOptions,
    spec: &LiveSpec,
) -> anyhow::Result<ExitStatus> {
    let (tx, rx) = mpsc::channel();
    let mut watcher = notify::recommended_watcher(move |event| {
        let _ = tx.send(event);
    })?;
    for root in spec.roots() {
        use notify::Watcher;
        watcher.watch(&root, notify::RecursiveMode::Recursive)?;
    }
    let mut logs: Vec<Log> = Vec::new();
    refresh(config, opts, spec, &mut logs);
    if config.out_is_terminal {
        on_terminal(config, opts, spec, &mut logs, &rx)
    } else {
        snapshots(config, opts, spec, &mut logs, &rx)
    }
}

/// Lists the logs again; reads those new or changed since they were read.
fn refresh(config: &Config, opts: &UsageOptions, spec: &LiveSpec, logs: &mut Vec<Log>) -> bool {
    let mut changed = false;
    let mut next = Vec::new();
    for input in spec.list() {
        let now = stamp(&input);
        match logs.iter().position(|l| l.input == input) {
            Some(i) if logs[i].stamp == now && now.is_some() => {
                next.push(logs.swap_remove(i));
            }
            _ => {
                let (records, limits) = read_one(config, opts, &input);
                next.push(Log {
                    input,
                    stamp: now,
                    records,
                    limits,
                });
                changed = true;
            }
        }
    }
    changed |= !logs.is_empty();
    *logs = next;
    changed
}

/// One log's calls and limits, read as `usage` reads it (warnings left out: the screen is
/// the report's).
fn read_one(config: &Config, opts: &UsageOptions, input: &Input) -> (Vec<Rec>, Vec<LimitRec>) {
    let Ok((rdr, parts)) = crate::stores::open::open(input).map(Opened::into_read) else {
        return (Vec::new(), Vec::new());
    };
    let ctx = Ctx::new(
        Output::new(Box::new(io::sink()), Box::new(io::sink()), quiet_mode()),
        Diag::new(false, true),
    );
    let name = input.name();
    let mut dispatcher = Dispatcher::new(
        ViewHandler::new(UsageView::new(opts.clone()), ctx),
        config.max_line,
    )
    .agent(config.agent);
    dispatcher.begin(&name);
    dispatcher.spliced(parts);
    let _ = dispatcher.resume(&name, rdr, input.first_line());
    let (handler, _) = dispatcher.into_parts();
    let mut view = handler.view;
    let records = view.take_records();
    (records, view.limits().to_vec())
}

fn quiet_mode() -> OutputMode {
    OutputMode {
        out_is_terminal: false,
        err_is_terminal: false,
        color_out: false,
        color_err: false,
        line_buffered: false,
        out_width: None,
        err_width: None,
    }
}

/// A `Write` into a shared buffer: the report, taken as text.
#[derive(Clone, Default)]
struct Buffer(Arc<Mutex<Vec<u8>>>);

impl Write for Buffer {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0
            .lock()
            .map_err(|_| io::Error::other("poisoned"))?
            .extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// The report over every log's calls, as `usage` writes it with `opts` and `mode`.
fn report(opts: &UsageOptions, logs: &[Log], mode: OutputMode) -> String {
    let mut view = UsageView::new(opts.clone());
    let records: Vec<Rec> = logs
        .iter()
        .flat_map(|l| l.records.iter().cloned())
        .collect();
    let limits: Vec<LimitRec> = logs.iter().flat_map(|l| l.limits.iter().cloned()).collect();
    view.put(records, limits);
    let buffer = Buffer::default();
    let mut ctx = Ctx::new(
        Output::new(Box::new(buffer.clone()), Box::new(io::sink()), mode),
        Diag::new(false, true),
    );
    let _ = view.finish(&mut ctx);
    let _ = ctx.out.flush();
    drop(ctx);
    let bytes = buffer.0.lock().map(|b| b.clone()).unwrap_or_default();
    String::from_utf8_lossy(&bytes).into_owned()
}

/// Waits for a change (or the tick); true when the logs changed, false for the tick.
fn wait(rx: &mpsc::Receiver<notify::Result<notify::Event>>, until: Instant) -> Option<bool> {
    match rx.recv_timeout(until.saturating_duration_since(Instant::now())) {
        Ok(_) => {
            // A burst of writes is one change.
            std::thread::sleep(SETTLE);
            while rx.try_recv().is_ok() {}
            Some(true)
        }
        Err(mpsc::RecvTimeoutError::Timeout) => Some(false),
        Err(mpsc::RecvTimeoutError::Disconnected) => None,
    }
}

/// Not on a terminal: a snapshot a line, at the start and at each change.
fn snapshots(
    config: &Config,
    opts: &UsageOptions,
    spec: &LiveSpec,
    logs: &mut Vec<Log>,
    rx: &mpsc::Receiver<notify::Result<notify::Event>>,
) -> anyhow::Result<ExitStatus> {
    let mut json = opts.clone();
    json.json = true;
    let mut out = io::stdout().lock();
    let mut last = String::new();
    loop {
        let rows = report(&json, logs, quiet_mode());
        if rows != last {
            let at = jiff::Timestamp::now()
                .strftime("%Y-%m-%dT%H:%M:%SZ")
                .to_string();
            let line = format!(
                "{{\"at\":\"{at}\",\"rows\":[{}]}}\n",
                rows.lines().collect::<Vec<_>>().join(",")
            );
            if out
                .write_all(line.as_bytes())
                .and_then(|()| out.flush())
                .is_err()
            {
                // A closed stdout ends quietly.
                return Ok(ExitStatus::SUCCESS);
            }
            last = rows;
        }
        match wait(rx, Instant::now() + TICK) {
            Some(true) => {
                refresh(config, opts, spec, logs);
            }
            Some(false) => {}
            None => return Ok(ExitStatus::SUCCESS),
        }
    }
}

/// Puts the terminal back as it was, however the loop ends.
struct Screen;

impl Screen {
    fn enter() -> io::Result<Screen> {
        crossterm::terminal::enable_raw_mode()?;
        crossterm::execute!(
            io::stdout(),
            crossterm::terminal::EnterAlternateScreen,
            crossterm::cursor::Hide
        )?;
        Ok(Screen)
    }
}

impl Drop for Screen {
    fn drop(&mut self) {
        let _ = crossterm::execute!(
            io::stdout(),
            crossterm::cursor::Show,
            crossterm::terminal::LeaveAlternateScreen
        );
        let _ = crossterm::terminal::disable_raw_mode();
    }
}

/// Whether a key asks to quit: `q`, Esc, Ctrl-C.
fn quits(event: &crossterm::event::Event) -> bool {
    use crossterm::event::{Event, KeyCode, KeyEventKind, KeyModifiers};
    let Event::Key(key) = event else { return false };
    key.kind == KeyEventKind::Press
        && match key.code {
            KeyCode::Char('q') | KeyCode::Esc => true,
            KeyCode::Char('c') => key.modifiers.contains(KeyModifiers::CONTROL),
            _ => false,
        }
}

/// The report's text on the alternate screen, from its top.
fn draw(opts: &UsageOptions, logs: &[Log], config: &Config) -> io::Result<()> {
    // (A terminal that says no size, 0: as wide as most.)
    let width = match crossterm::terminal::size() {
        Ok((w, _)) if w > 0 => usize::from(w),
        _ => 80,
    };
    let mode = OutputMode {
        out_is_terminal: true,
        err_is_terminal: false,
        color_out: config.color_out,
        color_err: false,
        line_buffered: false,
        out_width: Some(width),
        err_width: None,
    };
    let text = report(opts, logs, mode);
    let at = jiff::Zoned::now().strftime("%H:%M:%S").to_string();
    let mut out = io::stdout().lock();
    crossterm::queue!(
        out,
        crossterm::cursor::MoveTo(0, 0),
        crossterm::terminal::Clear(crossterm::terminal::ClearType::All)
    )?;
    for line in text.lines() {
        // Raw mode: a line feed does not return the carriage.
        write!(out, "{line}\r\n")?;
    }
    write!(out, "\r\nlive · {at} · q quits")?;
    out.flush()
}

/// On a terminal: the report redrawn in place until `q`.
fn on_terminal(
    config: &Config,
    opts: &UsageOptions,
    spec: &LiveSpec,
    logs: &mut Vec<Log>,
    rx: &mpsc::Receiver<notify::Result<notify::Event>>,
) -> anyhow::Result<ExitStatus> {
    let _screen = Screen::enter()?;
    draw(opts, logs, config)?;
    let mut next_tick = Instant::now() + TICK;
    loop {
        if crossterm::event::poll(Duration::from_millis(100))? {
            let event = crossterm::event::read()?;
            if quits(&event) {
                return Ok(ExitStatus::SUCCESS);
            }
            if matches!(event, crossterm::event::Event::Resize(..)) {
                draw(opts, logs, config)?;
            }
        }
        match rx.try_recv() {
            Ok(_) => {
                std::thread::sleep(SETTLE);
                while rx.try_recv().is_ok() {}
                refresh(config, opts, spec, logs);
                draw(opts, logs, config)?;
            }
            Err(mpsc::TryRecvError::Disconnected) => return Ok(ExitStatus::SUCCESS),
            Err(mpsc::TryRecvError::Empty) if Instant::now() >= next_tick => {
                next_tick = Instant::now() + TICK;
                draw(opts, logs, config)?;
            }
            Err(mpsc::TryRecvError::Empty) => {}
        }
    }
}
