//! The model calls of the runs read, one record each, with the key that names the call the
//! same way on every machine that holds a copy of it: what `usage` sums and `export` writes.

use std::collections::HashMap;
use std::sync::Arc;

use crate::agent::event::{Agent, Billed, Limit, LimitWindow, RunEnd, RunInfo, Usage};

/// A run, as the records name it.
#[derive(Debug)]
pub(crate) struct RunKey {
    /// The input it was read from (for a ledger's records, the machine that exported it).
    pub file: Arc<str>,
    pub session: Option<Arc<str>>,
    /// Its place in its file, from 0.
    pub index: u32,
    /// When it started, where the input says (epoch ms).
    pub started_ms: Option<i64>,
    /// Its working directory, where the input says.
    pub cwd: Option<Arc<str>>,
}

impl RunKey {
    /// The run's name in the ledger, the same on every machine: its agent, its session
    /// (or, with none, its file) and its place in its file — and its start where the input
    /// says it, so that two streams of one resumed session (each a first run) differ.
    pub(crate) fn ledger_key(&self, agent: Agent) -> String {
        let mut key = format!("{}:{}:{}", agent.name(), self.session_name(), self.index);
        if let Some(at) = self.started_ms {
            key.push_str(&format!("@{at}"));
        }
        key
    }

    /// The session id, or for a run with none its file's name, hashed.
    fn session_name(&self) -> String {
        match &self.session {
            Some(s) => s.to_string(),
            None => format!("file-{:016x}", hash(self.file.as_bytes())),
        }
    }
}

/// A stable 64-bit hash (xxHash64): the same on every machine and in every version.
pub(crate) fn hash(bytes: &[u8]) -> u64 {
    twox_hash::XxHash64::oneshot(0, bytes)
}

/// One model call (or one stream's run).
#[derive(Debug, Clone)]
pub(crate) struct Rec {
    pub at_ms: Option<i64>,
    pub agent: Agent,
    pub model: Option<Arc<str>>,
    pub usage: Usage,
    pub run: Arc<RunKey>,
    /// What names the call on every machine (the ledger's `call_key`): the agent's own id
    /// where it has one, else what names the call everywhere (see [`Recorder`]).
    pub key: Box<str>,
    /// The machine whose export holds the record (a ledger's), else none: this one.
    pub machine: Option<Arc<str>>,
}

/// A rate limit's state, as the agent recorded it (`usage blocks` shows the last of each
/// window within a block).
#[derive(Debug, Clone)]
pub(crate) struct LimitRec {
    /// When it was recorded; for a line with no time, its run's (as a record's).
    pub at_ms: Option<i64>,
    pub agent: Agent,
    pub window: LimitWindow,
    pub used_percent: Option<f64>,
    pub resets_ms: Option<i64>,
    pub status: Option<Box<str>>,
    pub source: &'static str,
}

/// Collects the records of the runs as they are read. A call with an id of its own (a
/// response id, Claude's message and request ids) is keyed by it; one without (a Codex
/// count read from a `token_count` increase) by its run's key and its place in the run;
/// a stream's run, whose usage comes at its end, by its run's key and its `result`
/// line, which two runs of one session never share.
#[derive(Default, Clone)]
pub(crate) struct Recorder {
    pub records: Vec<Rec>,
    /// The rate limits' states read (with [`crate::agent::event::Wants::LIMITS`]).
    pub limits: Vec<LimitRec>,
    /// The open run, and where its records and limits start.
    run: Option<Arc<RunKey>>,
    run_records: usize,
    run_limits: usize,
    /// Records of the open run without an id of their own, so far.
    unnamed: u32,
    file: Arc<str>,
    runs_in_file: u32,
    models: HashMap<String, Arc<str>>,
}

impl Recorder {
    /// The run that is open, if any.
    pub(crate) fn open_run(&self) -> Option<&Arc<RunKey>> {
        self.run.as_ref()
    }

    pub(crate) fn model(&mut self, name: Option<&str>) -> Option<Arc<str>> {
        let name = name?;
        if let Some(m) = self.models.get(name) {
            return Some(m.clone());
        }
        let m: Arc<str> = Arc::from(name);
        self.models.insert(name.to_string(), m.clone());
        Some(m)
    }

    /// A run starts in the input `source`.
    pub(crate) fn run_start(&mut self, source: &str, info: &RunInfo) {
        if *self.file != *source {
            self.file = Arc::from(source);
            self.runs_in_file = 0;
        }
        self.run = Some(Arc::new(RunKey {
            file: self.file.clone(),
            session: info.session_id.as_deref().map(Arc::from),
            index: self.runs_in_file,
            started_ms: info.started_ms.and_then(|t| i64::try_from(t).ok()),
            cwd: info.cwd.as_deref().map(Arc::from),
        }));
        self.runs_in_file += 1;
        self.run_records = self.records.len();
        self.run_limits = self.limits.len();
        self.unnamed = 0;
    }

    /// A model call of the open run.
    pub(crate) fn billed(&mut self, billed: &Billed<'_>, info: &RunInfo) {
        let Some(run) = self.run.clone() else {
            return;
        };
        let model = self.model(billed.model.or(info.model.as_deref()));
        let agent = info.agent;
        // The run's key may change until it ends (a session id that comes late): a call
        // without an id is named at the run's end, by its place.
        let key = match billed.id {
            Some(id) => format!("{}:{id}", agent.name()).into(),
            None => {
                self.unnamed += 1;
                format!("#{}", self.unnamed).into()
            }
        };
        self.records.push(Rec {
            at_ms: billed.at_ms.and_then(|t| i64::try_from(t).ok()),
            agent,
            model,
            usage: billed.usage,
            run,
            key,
            machine: None,
        });
    }

    /// A rate limit's state.
    pub(crate) fn limit(&mut self, limit: &Limit<'_>, info: &RunInfo) {
        self.limits.push(LimitRec {
            at_ms: limit.at_ms.and_then(|t| i64::try_from(t).ok()),
            agent: info.agent,
            window: limit.window,
            used_percent: limit.used_percent,
            resets_ms: limit.resets_ms,
            status: limit.status.map(Box::from),
            source: limit.source,
        });
    }

    /// Ends the open run: its records get the run's final key and, when they say none,
    /// its time; a run with no record of its own gives one of its usage (a stream's).
    /// Returns the run's key.
    pub(crate) fn run_end(&mut self, end: &RunEnd<'_>, info: &RunInfo) -> Option<Arc<RunKey>> {
        let run = self.run.take()?;
        let run = Arc::new(RunKey {
            file: run.file.clone(),
            session: run
                .session
                .clone()
                .or_else(|| info.session_id.as_deref().map(Arc::from)),
            index: run.index,
            started_ms: run
                .started_ms
                .or_else(|| info.started_ms.and_then(|t| i64::try_from(t).ok())),
            cwd: run
                .cwd
                .clone()
                .or_else(|| info.cwd.as_deref().map(Arc::from)),
        });
        let at = end
            .last_ms
            .or(info.started_ms)
            .and_then(|t| i64::try_from(t).ok())
            .or_else(|| file_time(&run.file));
        let agent = info.agent;
        let run_key = run.ledger_key(agent);
        let mine = self.run_records;
        let limits = self.run_limits.min(self.limits.len());
        for l in &mut self.limits[limits..] {
            l.at_ms = l.at_ms.or(at);
        }
        for r in &mut self.records[mine..] {
            r.at_ms = r.at_ms.or(at);
            r.run = run.clone();
            if r.key.starts_with('#') {
                r.key = format!("{run_key}{}", r.key).into();
            }
        }
        if self.records.len() == mine
            && let Some(usage) = end.usage
        {
            // A stream's run: its usage, at its time, named by its `result` line.
            let key = match end.native_json {
                Some(line) if !line.is_empty() => format!("{run_key}#end-{:016x}", hash(line)),
                _ => format!("{run_key}#end"),
            };
            let model = self.model(info.model.as_deref());
            self.records.push(Rec {
                at_ms: at,
                agent,
                model,
                usage,
                run: run.clone(),
                key: key.into(),
                machine: None,
            });
        }
        Some(run)
    }
}

/// When a file was last changed: the time of a stream's run that says none.
fn file_time(file: &str) -> Option<i64> {
    let modified = std::fs::metadata(file).ok()?.modified().ok()?;
    let d = modified
        .duration_since(std::time::SystemTime::UNIX_EPOCH)
        .ok()?;
    i64::try_from(d.as_millis()).ok()
}
