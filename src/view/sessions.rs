//! `sessions`: the sessions in the inputs (by default every agent's session logs), newest
//! first: agent, session id, when it started, its last activity, its prompts (runs), how
//! its last run ended, its working directory, its title or first prompt, and the file.
//!
//! A session is a session id in a file (a database holds many); its runs are counted as
//! they are read, and the table is written at the end, sorted by last activity. `--json`
//! writes one object per session instead (schema in docs/GUIDE.md).

use std::collections::HashMap;
use std::hash::{BuildHasher, RandomState};

use serde::Serialize;

use crate::agent::event::{RunEnd, RunInfo, Wants};
use crate::exit::ExitStatus;
use crate::out::{Channel, escape_line, fit};
use crate::runs::Runs;
use crate::view::{Ctx, View, words};

#[derive(Debug, Clone, Default)]
pub struct SessionsOptions {
    pub json: bool,
}

/// One session, as `--json` writes it.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Session {
    pub agent: &'static str,
    pub session_id: Option<String>,
    /// Epoch milliseconds, where the log says.
    pub started_ms: Option<u64>,
    pub last_activity_ms: Option<u64>,
    /// Runs: one per prompt.
    pub prompts: u64,
    /// How the last run ended: `success`, `error`, `no_result`.
    pub status: &'static str,
    pub cwd: Option<String>,
    pub model: Option<String>,
    pub title: Option<String>,
    pub first_prompt: Option<String>,
    pub file: String,
}

#[derive(Clone)]
pub(crate) struct SessionsView {
    opts: SessionsOptions,
    sessions: Vec<Session>,
    /// Where each (file, session id) is in `sessions`.
    index: HashMap<(String, Option<String>), usize>,
    /// Titles given for a file's session before its runs (by file).
    titles: HashMap<(String, Option<String>), String>,
    /// Titles that name a line of their session, wherever they were written.
    by_line: LineTitles,
}

impl SessionsView {
    pub(crate) fn new(opts: SessionsOptions) -> SessionsView {
        SessionsView {
            opts,
            sessions: Vec::new(),
            index: HashMap::new(),
            titles: HashMap::new(),
            by_line: LineTitles::default(),
        }
    }
}

impl SessionsView {
    /// The session `run` is of (in the file being read), listed once.
    fn session_of(&mut self, run: &RunInfo, ctx: &Ctx) -> &mut Session {
        let file = ctx.diag.source().to_string();
        let key = (file.clone(), run.session_id.clone());
        let i = *self.index.entry(key).or_insert_with(|| {
            self.sessions.push(Session {
                agent: run.agent.name(),
                session_id: run.session_id.clone(),
                started_ms: run.started_ms,
                last_activity_ms: None,
                prompts: 0,
                status: "no_result",
                cwd: None,
                model: None,
                title: None,
                first_prompt: None,
                file,
            });
            self.sessions.len() - 1
        });
        &mut self.sessions[i]
    }
}

impl View for SessionsView {
    fn wants(&self) -> Wants {
        Wants::TITLES
    }

    fn reports_runs(&self) -> bool {
        false
    }

    fn exit_status(&self, _runs: &Runs) -> ExitStatus {
        ExitStatus::SUCCESS
    }

    fn fork(&self) -> Option<Self> {
        // The same keys: a line's id must hash alike in every worker.
        Some(SessionsView {
            by_line: self.by_line.fork(),
            ..SessionsView::new(self.opts.clone())
        })
    }

    fn merge(&mut self, later: Self) {
        for (key, title) in later.titles {
            self.titles.insert(key, title);
        }
        self.by_line.merge(later.by_line);
        for s in later.sessions {
            let key = (s.file.clone(), s.session_id.clone());
            match self.index.get(&key) {
                Some(&i) => merge_into(&mut self.sessions[i], s),
                None => {
                    self.index.insert(key, self.sessions.len());
                    self.sessions.push(s);
                }
            }
        }
    }

    fn title(&mut self, session: Option<&str>, title: &str, ctx: &mut Ctx) {
        let file = ctx.diag.source().to_string();
        let session = session
            .map(str::to_owned)
            .or_else(|| ctx.run.session_id.clone());
        self.titles.insert((file, session), title.to_string());
    }

    fn title_of_line(&mut self, line: &str, title: &str, _ctx: &mut Ctx) {
        self.by_line.title(line, title);
    }

    fn line_id(&mut self, id: &str, ctx: &mut Ctx) {
        let session = (ctx.diag.source().to_string(), ctx.run.session_id.clone());
        self.by_line.line(id, session);
    }

    fn empty_session(&mut self, info: &RunInfo, last_ms: Option<u64>, ctx: &mut Ctx) {
        let s = self.session_of(info, ctx);
        s.started_ms = min_some(s.started_ms, info.started_ms);
        s.last_activity_ms = s.last_activity_ms.max(last_ms).max(info.started_ms);
        if s.cwd.is_none() {
            s.cwd.clone_from(&info.cwd);
        }
    }

    fn run_end(&mut self, end: &RunEnd<'_>, ctx: &mut Ctx) -> anyhow::Result<()> {
        let ctx: &Ctx = ctx;
        let run = &ctx.run;
        let s = self.session_of(run, ctx);
        s.prompts += 1;
        s.status = end.outcome.word();
        s.started_ms = min_some(s.started_ms, run.started_ms);
        s.last_activity_ms = [s.last_activity_ms, end.last_ms, run.started_ms]
            .into_iter()
            .flatten()
            .max();
        if s.cwd.is_none() {
            s.cwd.clone_from(&run.cwd);
        }
        if run.model.is_some() {
            s.model.clone_from(&run.model);
        }
        if s.first_prompt.is_none() {
            s.first_prompt = run.prompt.as_deref().map(first_line);
        }
        Ok(())
    }

    fn finish(&mut self, ctx: &mut Ctx) -> anyhow::Result<()> {
        let titles = std::mem::take(&mut self.titles);
        let by_line = std::mem::take(&mut self.by_line).resolve();
        for s in &mut self.sessions {
            let key = (s.file.clone(), s.session_id.clone());
            let by_file = (s.file.clone(), None);
            let title = by_line
                .get(&key)
                .or_else(|| titles.get(&key))
                .or_else(|| titles.get(&by_file));
            if let Some(t) = title {
                s.title = Some(first_line(t));
            }
        }
        // Newest first; a session with no time last.
        self.sessions.sort_by(|a, b| {
            let at = |s: &Session| s.last_activity_ms.or(s.started_ms);
            at(b).cmp(&at(a)).then_with(|| a.file.cmp(&b.file))
        });
        if self.opts.json {
            for s in &self.sessions {
                let mut line = serde_json::to_vec(s)?;
                line.push(b'\n');
                ctx.out.write_out(&line)?;
            }
            return Ok(());
        }
        if self.sessions.is_empty() {
            ctx.out.write_out(b"no sessions\n")?;
            return Ok(());
        }
        let width = ctx.out.width(Channel::Out);
        let tz = jiff::tz::TimeZone::system();
        let mut text = String::new();
        text.push_str(&line(&HEADER.map(String::from), width));
        for s in &self.sessions {
            let cells = [
                s.agent.to_string(),
                words::short_session(s.session_id.as_deref().unwrap_or("-")),
                time(s.started_ms, &tz),
                time(s.last_activity_ms, &tz),
                s.prompts.to_string(),
                match s.status {
                    "no_result" => "no result".to_string(),
                    w => w.to_string(),
                },
                escape_line(&words::tilde(s.cwd.as_deref().unwrap_or("-"))),
                escape_line(
                    s.title
                        .as_deref()
                        .or(s.first_prompt.as_deref())
                        .unwrap_or("-"),
                ),
                escape_line(&words::tilde(&s.file)),
            ];
            text.push_str(&line(&cells, width));
        }
        ctx.out.write_out(text.as_bytes())?;
        Ok(())
    }
}

/// A session, as the titles that name its lines know it: its file and session id.
type SessionKey = (String, Option<String>);

/// Titles given by naming one of their session's lines (Claude's `summary` and its
/// `leafUuid`), often from another session's log, read before or after it, on another
/// worker: each log tells the ids of its lines as it is read, and the titles are matched
/// to them once all is read. A line's id is kept as a hash (8 bytes a line: a gigabyte of
/// logs holds some hundreds of thousands of lines).
#[derive(Default, Clone)]
struct LineTitles {
    hasher: RandomState,
    sessions: Vec<SessionKey>,
    slots: HashMap<SessionKey, u32>,
    /// Each line's session (its slot) and its place in the order read.
    lines: HashMap<u64, (u32, u64)>,
    read: u64,
    /// The titles, by the line each names.
    titles: Vec<(u64, String)>,
}

impl LineTitles {
    fn fork(&self) -> LineTitles {
        LineTitles {
            hasher: self.hasher.clone(),
            ..LineTitles::default()
        }
    }

    fn line(&mut self, id: &str, session: SessionKey) {
        let next = self.sessions.len() as u32;
        let slot = *self.slots.entry(session.clone()).or_insert(next);
        if slot == next {
            self.sessions.push(session);
        }
        self.read += 1;
        self.lines
            .insert(self.hasher.hash_one(id), (slot, self.read));
    }

    fn title(&mut self, line: &str, title: &str) {
        self.titles
            .push((self.hasher.hash_one(line), title.to_string()));
    }

    /// A later worker's: its lines come after these (their order is the files' order).
    fn merge(&mut self, later: LineTitles) {
        let slots: Vec<u32> = later
            .sessions
            .into_iter()
            .map(|key| {
                let next = self.sessions.len() as u32;
                let slot = *self.slots.entry(key.clone()).or_insert(next);
                if slot == next {
                    self.sessions.push(key);
                }
                slot
            })
            .collect();
        for (line, (slot, at)) in later.lines {
            self.lines
                .insert(line, (slots[slot as usize], self.read + at));
        }
        self.read += later.read;
        self.titles.extend(later.titles);
    }

    /// Each session's title: of those naming its lines, the one that names its latest.
    fn resolve(self) -> HashMap<SessionKey, String> {
        let mut best: HashMap<u32, (u64, String)> = HashMap::new();
        for (line, title) in self.titles {
            let Some(&(slot, at)) = self.lines.get(&line) else {
                continue;
            };
            if best.get(&slot).is_none_or(|(seen, _)| at >= *seen) {
                best.insert(slot, (at, title));
            }
        }
        best.into_iter()
            .map(|(slot, (_, title))| (self.sessions[slot as usize].clone(), title))
            .collect()
    }
}

fn merge_into(s: &mut Session, later: Session) {
    s.prompts += later.prompts;
    s.status = later.status;
    s.started_ms = min_some(s.started_ms, later.started_ms);
    s.last_activity_ms = s.last_activity_ms.max(later.last_activity_ms);
    if s.cwd.is_none() {
        s.cwd = later.cwd;
    }
    if later.model.is_some() {
        s.model = later.model;
    }
    if s.first_prompt.is_none() {
        s.first_prompt = later.first_prompt;
    }
}

fn min_some(a: Option<u64>, b: Option<u64>) -> Option<u64> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// The first line of a prompt or title, at most 200 characters.
fn first_line(text: &str) -> String {
    let line = text.trim().lines().next().unwrap_or("");
    fit::cut_end(line, 200).into_owned()
}

/// A time in the local time zone, to the minute.
fn time(ms: Option<u64>, tz: &jiff::tz::TimeZone) -> String {
    let Some(ms) = ms.and_then(|ms| i64::try_from(ms).ok()) else {
        return "-".to_string();
    };
    match jiff::Timestamp::from_millisecond(ms) {
        Ok(t) => t
            .to_zoned(tz.clone())
            .strftime("%Y-%m-%d %H:%M")
            .to_string(),
        Err(_) => "-".to_string(),
    }
}

const HEADER: [&str; 9] = [
    "AGENT",
    "SESSION",
    "STARTED",
    "LAST",
    "PROMPTS",
    "STATUS",
    "DIRECTORY",
    "TITLE",
    "FILE",
];

/// The fixed columns' widths (agent, session, started, last, prompts, status).
const FIXED: [usize; 6] = [8, 8, 16, 16, 7, 9];

/// A row: fixed columns, then the directory, the title and the file. On a terminal the
/// three share what is left of its width (the title most, the paths cut in their middle);
/// piped, every value is whole, separated by two spaces.
fn line(c: &[String; 9], width: Option<usize>) -> String {
    let mut out = String::new();
    for (i, w) in FIXED.iter().enumerate() {
        let value = fit::cut_end(&c[i], *w);
        out.push_str(&value);
        out.push_str(&" ".repeat(w.saturating_sub(fit::width(&value)) + 2));
    }
    let fixed: usize = FIXED.iter().map(|w| w + 2).sum();
    match width {
        Some(width) if width > fixed + 30 => {
            let room = width - fixed - 4;
            let dir = room / 4;
            let file = room / 4;
            let title = room - dir - file;
            for (value, w, path) in [
                (&c[6], dir, true),
                (&c[7], title, false),
                (&c[8], file, true),
            ] {
                let value = if path {
                    fit::elide_path(value, w)
                } else {
                    fit::cut_end(value, w)
                };
                out.push_str(&value);
                out.push_str(&" ".repeat(w.saturating_sub(fit::width(&value)) + 2));
            }
        }
        _ => {
            out.push_str(&c[6]);
            out.push_str("  ");
            out.push_str(&c[7]);
            out.push_str("  ");
            out.push_str(&c[8]);
        }
    }
    out.truncate(out.trim_end().len());
    out.push('\n');
    out
}
