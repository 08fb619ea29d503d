//! `usage --live`, `sessions --live`: the report drawn again as the logs change.
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

use std::borrow::Cow;
use std::collections::HashSet;
use std::io::{self, Write};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::time::{Duration, Instant};

use crate::config::Config;
use crate::dispatch::Dispatcher;
use crate::exit::ExitStatus;
use crate::input::Input;
use crate::input::file::Opened;
use crate::out::diag::Diag;
use crate::out::{Output, OutputMode};
use crate::stores::watched::Watched;
use crate::view::{Ctx, View, ViewHandler};

/// How long changes are gathered before the logs are looked at (a burst of writes is one
/// redraw), and how often the time moves the report on with no change.
const SETTLE: Duration = Duration::from_millis(150);
const TICK: Duration = Duration::from_secs(10);

/// A log's view (what reading it alone gave), and the size and time it was read at.
struct Log<V> {
    input: Input,
    stamp: Option<(u64, std::time::SystemTime)>,
    view: V,
}

/// The view twice: as the terminal shows it, and as the snapshots write it (`--json`).
pub(crate) struct Views<V> {
    pub shown: V,
    pub json: V,
    /// Whether the report's newest rows are at its top (the sessions), else at its end
    /// (the reports by time): which end is kept when it is taller than the terminal.
    pub newest_first: bool,
}

impl<V> Views<V> {
    /// Both, from the view made with `--json` asked for or not.
    pub(crate) fn of(make: impl Fn(bool) -> V) -> Views<V> {
        Views {
            shown: make(false),
            json: make(true),
            newest_first: false,
        }
    }

    /// With its newest rows at the top.
    pub(crate) fn newest_first(self) -> Views<V> {
        Views {
            newest_first: true,
            ..self
        }
    }
}

/// The report's lines that fit `height` rows of a terminal, with the footer's two: all
/// when they fit; else its top (`newest_first`) or its header line and its end, with a
/// line saying how many are left out — the newest rows are never the ones cut.
fn fit_height<'t>(lines: &[&'t str], height: usize, newest_first: bool) -> Vec<Cow<'t, str>> {
    let room = height.saturating_sub(2).max(3);
    if lines.len() <= room {
        return lines.iter().map(|l| Cow::Borrowed(*l)).collect();
    }
    let cut = lines.len() - (room - 1);
    if newest_first {
        let mut kept: Vec<Cow<str>> = lines[..room - 1]
            .iter()
            .map(|l| Cow::Borrowed(*l))
            .collect();
        kept.push(Cow::Owned(format!("… {cut} more lines below")));
        kept
    } else {
        let mut kept = vec![Cow::Borrowed(lines[0])];
        kept.push(Cow::Owned(format!("… {cut} more lines above")));
        kept.extend(lines[cut + 1..].iter().map(|l| Cow::Borrowed(*l)));
        kept
    }
}

fn stamp(input: &Input) -> Option<(u64, std::time::SystemTime)> {
    let path = match input {
        Input::Path(p) | Input::Rest { path: p, .. } | Input::Database { path: p, .. } => p,
        Input::Stdin => return None,
    };
    let meta = std::fs::metadata(path).ok()?;
    Some((meta.len(), meta.modified().ok()?))
}

/// Runs the view `--live`.
pub(crate) fn run<V: View + Clone>(
    config: &Config,
    views: &Views<V>,
    spec: &Watched,
) -> anyhow::Result<ExitStatus> {
    // Before the watcher's thread starts: it inherits the signals blocked.
    let stop = if config.out_is_terminal {
        stop_signals()
    } else {
        Arc::default()
    };
    let (tx, rx) = mpsc::channel();
    let watcher = notify::recommended_watcher(move |event| {
        let _ = tx.send(event);
    })?;
    let mut watch = Watch {
        watcher,
        on: HashSet::new(),
    };
    watch.update(spec)?;
    let mut logs: Vec<Log<V>> = Vec::new();
    refresh(config, &views.shown, spec, &mut logs);
    let mut changes = Changes { rx, watch, stop };
    if config.out_is_terminal {
        on_terminal(config, views, spec, &mut logs, &mut changes)
    } else {
        snapshots(config, views, spec, &mut logs, &mut changes)
    }
}

/// The watcher, and the folders it watches: an agent's folder that is not there yet (no
/// session written since it was installed) is waited for, by watching the nearest folder
/// above it that is.
struct Watch {
    watcher: notify::RecommendedWatcher,
    on: HashSet<PathBuf>,
}

impl Watch {
    /// Watches each of the folders `spec` names that is there, and above each that is not.
    fn update(&mut self, spec: &Watched) -> notify::Result<()> {
        use notify::{RecursiveMode, Watcher};
        for root in spec.roots() {
            let (dir, mode) = if root.is_dir() {
                (root, RecursiveMode::Recursive)
            } else {
                match root.ancestors().skip(1).find(|a| a.is_dir()) {
                    Some(above) => (above.to_path_buf(), RecursiveMode::NonRecursive),
                    None => continue,
                }
            };
            if !self.on.contains(&dir) {
                self.watcher.watch(&dir, mode)?;
                self.on.insert(dir);
            }
        }
        Ok(())
    }
}

/// The changes to the logs, as the watcher tells them; and the signal that ends the view
/// on a terminal, when one came.
struct Changes {
    rx: mpsc::Receiver<notify::Result<notify::Event>>,
    watch: Watch,
    stop: Arc<AtomicU8>,
}

/// SIGTERM and SIGHUP (a `kill`, the terminal closed) end the view on a terminal as `q`
/// does, the terminal given back (their default would leave it in raw mode on the
/// alternate screen): blocked in this thread and those it starts after, and waited for by
/// a thread of their own, which notes the exit status they give (128 + the signal).
#[cfg(unix)]
fn stop_signals() -> Arc<AtomicU8> {
    use nix::sys::signal::{SigSet, Signal};
    let stop = Arc::new(AtomicU8::new(0));
    let mut set = SigSet::empty();
    set.add(Signal::SIGTERM);
    set.add(Signal::SIGHUP);
    if set.thread_block().is_ok() {
        let noted = Arc::clone(&stop);
        std::thread::spawn(move || {
            if let Ok(signal) = set.wait() {
                noted.store(128 + signal as u8, Ordering::Relaxed);
            }
        });
    }
    stop
}

#[cfg(not(unix))]
fn stop_signals() -> Arc<AtomicU8> {
    Arc::default()
}

impl Changes {
    /// After a change: a burst of writes taken as one, the folders that came since watched
    /// too (one that cannot be is tried again at the next change), the logs read again.
    fn take<V: View>(
        &mut self,
        config: &Config,
        template: &V,
        spec: &Watched,
        logs: &mut Vec<Log<V>>,
    ) {
        std::thread::sleep(SETTLE);
        while self.rx.try_recv().is_ok() {}
        let _ = self.watch.update(spec);
        refresh(config, template, spec, logs);
    }
}

/// Lists the logs again; reads those new or changed since they were read.
fn refresh<V: View>(config: &Config, template: &V, spec: &Watched, logs: &mut Vec<Log<V>>) {
    let mut next = Vec::new();
    for input in spec.list() {
        let now = stamp(&input);
        // By name: a resumed log's input learns where its own lines start once opened,
        // and the same log listed again has not yet.
        match logs.iter().position(|l| l.input.name() == input.name()) {
            Some(i) if logs[i].stamp == now && now.is_some() => {
                next.push(logs.swap_remove(i));
            }
            _ => {
                let view = read_one(config, template, &input);
                next.push(Log {
                    input,
                    stamp: now,
                    view,
                });
            }
        }
    }
    *logs = next;
}

/// One log, read by a view of its own (warnings left out: the screen is the report's).
fn read_one<V: View>(config: &Config, template: &V, input: &Input) -> V {
    let fresh = || template.fork().expect("the views --live reads fork");
    let Ok((rdr, parts)) = crate::stores::open::open(input).map(Opened::into_read) else {
        return fresh();
    };
    let ctx = Ctx::new(
        Output::new(Box::new(io::sink()), Box::new(io::sink()), quiet_mode()),
        Diag::new(false, true),
    );
    let name = input.name();
    let mut dispatcher =
        Dispatcher::new(ViewHandler::new(fresh(), ctx), config.max_line).agent(config.agent);
    dispatcher.begin(&name);
    dispatcher.spliced(parts);
    let _ = dispatcher.resume(&name, rdr, input.first_line());
    dispatcher.into_parts().0.view
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

/// The report over every log: `template`'s fork with every log's view merged into it, in
/// the logs' order, finished into text.
fn report<V: View + Clone>(template: &V, logs: &[Log<V>], mode: OutputMode) -> String {
    let mut view = template.fork().expect("the views --live reads fork");
    for log in logs {
        view.merge(log.view.clone());
    }
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
        Ok(_) => Some(true),
        Err(mpsc::RecvTimeoutError::Timeout) => Some(false),
        Err(mpsc::RecvTimeoutError::Disconnected) => None,
    }
}

/// Not on a terminal: a snapshot a line, at the start and at each change.
fn snapshots<V: View + Clone>(
    config: &Config,
    views: &Views<V>,
    spec: &Watched,
    logs: &mut Vec<Log<V>>,
    changes: &mut Changes,
) -> anyhow::Result<ExitStatus> {
    let mut out = io::stdout().lock();
    // None: the first snapshot is written, whatever it holds (no rows yet too).
    let mut last: Option<String> = None;
    loop {
        let rows = report(&views.json, logs, quiet_mode());
        if last.as_ref() != Some(&rows) {
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
            last = Some(rows);
        }
        match wait(&changes.rx, Instant::now() + TICK) {
            Some(true) => changes.take(config, &views.shown, spec, logs),
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
fn draw<V: View + Clone>(views: &Views<V>, logs: &[Log<V>], config: &Config) -> io::Result<()> {
    // (A terminal that says no size, 0: as most are.)
    let (width, height) = match crossterm::terminal::size() {
        Ok((w, h)) if w > 0 && h > 0 => (usize::from(w), usize::from(h)),
        _ => (80, 24),
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
    let text = report(&views.shown, logs, mode);
    let lines: Vec<&str> = text.lines().collect();
    let at = jiff::Zoned::now().strftime("%H:%M:%S").to_string();
    let mut out = io::stdout().lock();
    crossterm::queue!(
        out,
        crossterm::cursor::MoveTo(0, 0),
        crossterm::terminal::Clear(crossterm::terminal::ClearType::All)
    )?;
    for line in fit_height(&lines, height, views.newest_first) {
        // Raw mode: a line feed does not return the carriage.
        write!(out, "{line}\r\n")?;
    }
    write!(out, "\r\nlive · {at} · q quits")?;
    out.flush()
}

/// On a terminal: the report redrawn in place until `q`.
fn on_terminal<V: View + Clone>(
    config: &Config,
    views: &Views<V>,
    spec: &Watched,
    logs: &mut Vec<Log<V>>,
    changes: &mut Changes,
) -> anyhow::Result<ExitStatus> {
    let _screen = Screen::enter()?;
    let shown = &views.shown;
    draw(views, logs, config)?;
    let mut next_tick = Instant::now() + TICK;
    loop {
        let signalled = changes.stop.load(Ordering::Relaxed);
        if signalled != 0 {
            return Ok(ExitStatus(signalled));
        }
        if crossterm::event::poll(Duration::from_millis(100))? {
            let event = crossterm::event::read()?;
            if quits(&event) {
                return Ok(ExitStatus::SUCCESS);
            }
            if matches!(event, crossterm::event::Event::Resize(..)) {
                draw(views, logs, config)?;
            }
        }
        match changes.rx.try_recv() {
            Ok(_) => {
                changes.take(config, shown, spec, logs);
                draw(views, logs, config)?;
            }
            Err(mpsc::TryRecvError::Disconnected) => return Ok(ExitStatus::SUCCESS),
            Err(mpsc::TryRecvError::Empty) if Instant::now() >= next_tick => {
                next_tick = Instant::now() + TICK;
                draw(views, logs, config)?;
            }
            Err(mpsc::TryRecvError::Empty) => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::fit_height;

    #[test]
    fn a_report_taller_than_the_terminal_keeps_its_newest_rows() {
        let lines: Vec<String> = (0..30).map(|i| format!("line {i}")).collect();
        let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
        // Fits: all of it.
        assert_eq!(fit_height(&lines, 40, false).len(), 30);
        // By time: the header, what is cut, and the end (the newest), in 10 - 2 rows.
        let end = fit_height(&lines, 10, false);
        assert_eq!(end.len(), 8);
        assert_eq!(end[0], "line 0");
        assert_eq!(end[1], "… 23 more lines above");
        assert_eq!(end[2], "line 24");
        assert_eq!(end[7], "line 29");
        // Newest first: the top, then what is cut.
        let top = fit_height(&lines, 10, true);
        assert_eq!(top.len(), 8);
        assert_eq!(top[6], "line 6");
        assert_eq!(top[7], "… 23 more lines below");
    }
}
