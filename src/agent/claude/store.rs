//! Where Claude Code keeps its session logs: `projects/<cwd-slug>/<session>.jsonl` under
//! each entry of `CLAUDE_CONFIG_DIR` (a comma-separated list, as ccusage reads it; an
//! entry may be the `projects/` folder itself), else under `~/.claude` and
//! `$XDG_CONFIG_HOME/claude`; a session's sub-agents in `<session>/subagents/agent-<id>.jsonl`
//! (2.1.2 on) or beside it as `agent-<id>.jsonl` (2.0). A log that starts with a copy of
//! another's lines (a session resumed or sent to the background) is read from where it
//! goes on from the copy.

use std::collections::HashMap;
use std::fs::File;
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use crate::agent::event::Agent;
use crate::agent::store::{self, Found, Store, env_dir, files_in, home, on_all_cores, subdirs};
use crate::input::Input;
use crate::input::file::Opened;
use crate::input::parts::PartsTx;

pub(crate) struct ClaudeStore;

impl Store for ClaudeStore {
    fn roots(&self) -> Vec<PathBuf> {
        projects_dirs_wanted()
    }

    fn logs(&self) -> Vec<Found> {
        let mut found = Vec::new();
        let mut projects = Vec::new();
        for dir in projects_dirs() {
            for project in subdirs(&dir) {
                let start = found.len();
                sessions_of(&project, &mut found);
                projects.push(start..found.len());
            }
        }
        // Every log looked into at once (most projects hold a few logs).
        let firsts = on_all_cores(&found, |f| f.path().and_then(first_message));
        for project in projects {
            without_copies(&mut found[project.clone()], &firsts[project]);
        }
        found
    }

    /// `projects/<cwd-slug>/<session>.jsonl`.
    fn names_log(&self, path: &Path) -> bool {
        let in_projects = path
            .parent()
            .and_then(Path::parent)
            .and_then(Path::file_name)
            .is_some_and(|n| n == "projects");
        in_projects && session_of_file(&path.to_string_lossy()).is_some()
    }

    fn opens(&self, path: &Path) -> bool {
        !subagents_of(path).is_empty()
    }

    /// 2.1's `subagents/` folder is read again at each call; 2.0's logs beside the session
    /// are known as the project folder was when first looked into (a 2.0 sub-agent that
    /// starts while its session is followed is not seen: that release is long gone).
    fn parts_of(&self, path: &Path) -> Vec<PathBuf> {
        subagents_of(path).into_values().collect()
    }

    fn open(&self, path: &Path, file: File) -> io::Result<Opened> {
        let subs = subagents_of(path);
        Ok(if subs.is_empty() {
            Opened::Plain(file)
        } else {
            let (tx, parts) = crate::input::parts::parts();
            Opened::Spliced(Box::new(WithSubagents::new(file, subs, tx)), parts)
        })
    }
}

/// A project folder's session logs; 2.0's sub-agent logs beside them are read with their
/// session (see [`subagents_of`]), but those whose session's log is gone are read on
/// their own, each a session named by its file (`agent-<id>`): their calls were billed
/// all the same.
fn sessions_of(project: &Path, found: &mut Vec<Found>) {
    let logs = files_in(project, |n| {
        n.ends_with(".jsonl") && agent_id_of(n).is_none()
    });
    let ids: std::collections::HashSet<String> = logs
        .iter()
        .filter_map(|p| store::stem(p, ".jsonl"))
        .collect();
    for path in logs {
        let id = store::stem(&path, ".jsonl");
        found.push(Found::file(Agent::Claude, path, id, None));
    }
    for (session, agents) in agent_files(project).iter() {
        if !ids.contains(session) {
            for path in agents.values() {
                let id = store::stem(path, ".jsonl");
                found.push(Found::file(Agent::Claude, path.clone(), id, None));
            }
        }
    }
}

/// Sub-agents' logs by their id.
type Subagents = std::collections::BTreeMap<String, PathBuf>;

/// A session log's sub-agents' logs: `<session>/subagents/agent-<id>.jsonl` (2.1.2 on),
/// or, before, the `agent-<id>.jsonl` beside it whose lines name its session.
fn subagents_of(path: &Path) -> Subagents {
    let (Some(session), Some(project)) = (store::stem(path, ".jsonl"), path.parent()) else {
        return Subagents::new();
    };
    let dir = project.join(&session).join("subagents");
    let mut subs: Subagents = files_in(&dir, |n| agent_id_of(n).is_some())
        .into_iter()
        .filter_map(|p| Some((agent_id_of(&store::name_of(&p)?)?.to_string(), p)))
        .collect();
    if let Some(beside) = agent_files(project).get(&session) {
        subs.extend(beside.iter().map(|(id, p)| (id.clone(), p.clone())));
    }
    subs
}

/// `agent-<id>.jsonl`: the id.
fn agent_id_of(name: &str) -> Option<&str> {
    let id = name.strip_prefix("agent-")?.strip_suffix(".jsonl")?;
    is_agent_id(id).then_some(id)
}

/// The 2.0 sub-agents' logs in a project folder, by the session their first line names.
/// Each folder is looked into once: every session of it asks.
fn agent_files(project: &Path) -> Arc<HashMap<String, Subagents>> {
    type ByFolder = HashMap<PathBuf, Arc<HashMap<String, Subagents>>>;
    static SEEN: OnceLock<Mutex<ByFolder>> = OnceLock::new();
    let seen = SEEN.get_or_init(Default::default);
    if let Some(known) = seen.lock().ok().and_then(|m| m.get(project).cloned()) {
        return known;
    }
    let mut by_session: HashMap<String, Subagents> = HashMap::new();
    for path in files_in(project, |n| agent_id_of(n).is_some()) {
        let id = store::name_of(&path).and_then(|n| agent_id_of(&n).map(str::to_string));
        if let (Some(id), Some(session)) = (id, first_session_id(&path)) {
            by_session.entry(session).or_default().insert(id, path);
        }
    }
    let known = Arc::new(by_session);
    if let Ok(mut m) = seen.lock() {
        m.insert(project.to_path_buf(), known.clone());
    }
    known
}

/// The `sessionId` of a log's first line that has one (in its first 256 KiB).
fn first_session_id(path: &Path) -> Option<String> {
    let head = crate::input::file::head(path, 256 << 10).ok()?;
    head.split(|&b| b == b'\n').find_map(|line| {
        let value = crate::input::json::top_level_value(line.trim_ascii(), "sessionId")?;
        let inner = value.strip_prefix(b"\"")?.strip_suffix(b"\"")?;
        std::str::from_utf8(inner).ok().map(str::to_string)
    })
}

/// The `projects/` folders, each once (the same folder named twice, by a link or in the
/// list, is read once).
fn projects_dirs() -> Vec<PathBuf> {
    let mut dirs: Vec<(PathBuf, PathBuf)> = Vec::new();
    for dir in projects_dirs_wanted() {
        let canonical = std::fs::canonicalize(&dir).unwrap_or_else(|_| dir.clone());
        if dir.is_dir() && !dirs.iter().any(|(c, _)| *c == canonical) {
            dirs.push((canonical, dir));
        }
    }
    dirs.into_iter().map(|(_, d)| d).collect()
}

/// Where the `projects/` folders are, whether they exist yet or not.
fn projects_dirs_wanted() -> Vec<PathBuf> {
    let roots: Vec<PathBuf> = match std::env::var("CLAUDE_CONFIG_DIR") {
        Ok(list) if !list.trim().is_empty() => list
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(PathBuf::from)
            .collect(),
        _ => {
            let config = env_dir("XDG_CONFIG_HOME").or_else(|| home().map(|h| h.join(".config")));
            home()
                .map(|h| h.join(".claude"))
                .into_iter()
                .chain(config.map(|c| c.join("claude")))
                .collect()
        }
    };
    roots
        .into_iter()
        .map(|root| {
            if root.file_name().is_some_and(|n| n == "projects") {
                root
            } else {
                root.join("projects")
            }
        })
        .collect()
}

/// Claude Code copies a session's conversation into a new log when it is resumed (older
/// releases) or sent to the background (2.x, `anthropics/claude-code` issues and
/// `kenn-io/agentsview#1370`): the new log starts with the old one's messages, their
/// `uuid`s kept, under a new session id. Read together, the copy would be shown and
/// counted twice: the new log is read from its first line that is not the old one's
/// ([`Input::Rest`]). Copies are told by their first message's `uuid`, the same as the
/// old log's ([`first_message`], in `firsts`, one for each of the project's `logs`);
/// only such logs are read further. The old log is the one whose first message follows
/// the `file-history-snapshot` of its prompt (a copy has only the messages), else the
/// smaller (a copy holds the old log's lines and goes on).
fn without_copies(logs: &mut [Found], firsts: &[Option<FirstMessage>]) {
    let mut by_first: std::collections::HashMap<&str, Vec<usize>> = Default::default();
    for (i, first) in firsts.iter().enumerate() {
        if let Some(first) = first {
            by_first.entry(&first.uuid).or_default().push(i);
        }
    }
    for (_, mut group) in by_first.into_iter().filter(|(_, g)| g.len() > 1) {
        let order = |i: &usize| {
            let size = logs[*i]
                .path()
                .map_or(0, |p| std::fs::metadata(p).map_or(0, |m| m.len()));
            let copy_like = !firsts[*i].as_ref().is_some_and(|f| f.after_snapshot);
            (copy_like, size)
        };
        group.sort_by_key(order);
        // Each copy goes on from the one before it (a session resumed twice holds both).
        let paths: Vec<Option<PathBuf>> = group
            .iter()
            .map(|i| logs[*i].path().map(Path::to_path_buf))
            .collect();
        for (k, pair) in group.windows(2).enumerate() {
            if let (Some(old), Some(new)) = (&paths[k], &paths[k + 1]) {
                logs[pair[1]].input = Input::Rest {
                    path: new.clone(),
                    copy_of: old.clone(),
                    first_line: std::sync::OnceLock::new(),
                };
            }
        }
    }
}

/// A log's first line that has a `uuid`, and whether a `file-history-snapshot` came
/// before it.
struct FirstMessage {
    uuid: String,
    after_snapshot: bool,
}

/// The first line that has a `uuid`, within the log's first 256 KiB; read a line at a
/// time, as it is most often on the first few (every log is looked at).
fn first_message(path: &Path) -> Option<FirstMessage> {
    use std::io::BufRead;
    let mut rdr = io::BufReader::new(File::open(path).ok()?.take(256 << 10));
    let mut line = Vec::new();
    let mut after_snapshot = false;
    while rdr.read_until(b'\n', &mut line).ok()? > 0 {
        let record = line.trim_ascii_end();
        if line.ends_with(b"\n") {
            if let Some(uuid) = store::uuid_of(record) {
                return Some(FirstMessage {
                    uuid: uuid.to_string(),
                    after_snapshot,
                });
            }
            let kind = crate::input::json::top_level_value(record, "type");
            after_snapshot |= kind == Some(&b"\"file-history-snapshot\""[..]);
        }
        line.clear();
    }
    None
}

/// A Claude Code session log with its sub-agents' logs read in: after the line whose
/// tool result names a sub-agent (`toolUseResult.agentId`), the lines of
/// `subagents/agent-<id>.jsonl` — where the stream would have had the sub-agent's events,
/// so that its calls belong to the call that started it (the dialect reads them so).
///
/// A sub-agent named again (a `Task` resumed) goes on from where its log was left; the
/// logs no line names (a `Task` interrupted, killed, or still running) are read at the
/// end of the main log: their calls were made, and billed, all the same.
///
/// The main log passes through in blocks, as read: only a line with `"agentId"` in it
/// (rare, and a must for naming one) is taken whole to be looked at, as are the
/// sub-agent's lines and a line longer than the buffer. Memory holds the buffer and the
/// longest such line.
///
/// Each line is reported (and `get`'s `$line` and `input_filename` tell it) in its own
/// file, at its own number there: the reading is told where each sub-agent's lines start
/// in the stream and where the main log's go on ([`PartsTx`]).
struct WithSubagents {
    main: io::BufReader<File>,
    /// The session's sub-agents' logs.
    subs: Subagents,
    /// The sub-agent being read, by its id.
    sub: Option<(String, io::BufReader<File>)>,
    /// How far each sub-agent's log was read, in bytes and lines, by its id.
    read: std::collections::HashMap<String, (u64, u64)>,
    /// Where the stretches of each file start in the stream, for the reading.
    parts: PartsTx,
    /// The bytes handed out, from where the main log was opened at: the next one's
    /// offset in the stream, as the line reader counts them.
    handed: u64,
    /// The sub-agent just opened, by its file's name: its first line read starts a
    /// stretch of its lines.
    announce: Option<Arc<str>>,
    /// A sub-agent's lines are being handed out: at its end, the main log's go on.
    in_sub: bool,
    /// The main log ended: the sub-agents' logs no line named are read.
    unnamed: Option<std::vec::IntoIter<String>>,
    /// A line taken whole, and how much of it is passed on.
    line: Vec<u8>,
    at: usize,
    /// The main log's last byte passed on was a newline (or none was passed): a sub-agent's
    /// lines read after a log cut mid-line must not join its last line.
    at_line_start: bool,
}

impl WithSubagents {
    fn new(mut file: File, subs: Subagents, parts: PartsTx) -> WithSubagents {
        // A resumed session's log is read from the end of its copy on: the stream's
        // offsets start there.
        let handed = io::Seek::stream_position(&mut file).unwrap_or(0);
        WithSubagents {
            main: io::BufReader::with_capacity(1 << 20, file),
            subs,
            sub: None,
            read: Default::default(),
            parts,
            handed,
            announce: None,
            in_sub: false,
            unnamed: None,
            line: Vec::new(),
            at: 0,
            at_line_start: true,
        }
    }

    /// Opens a sub-agent's log where the last reading of it stopped.
    fn open_sub(&mut self, agent: &str) {
        let Some(path) = self.subs.get(agent) else {
            self.sub = None;
            return;
        };
        let (from, _) = self.read.get(agent).copied().unwrap_or_default();
        self.announce = Some(Arc::from(path.display().to_string()));
        self.sub = File::open(path).ok().and_then(|mut f| {
            io::Seek::seek(&mut f, io::SeekFrom::Start(from)).ok()?;
            Some((agent.to_string(), io::BufReader::with_capacity(1 << 16, f)))
        });
    }

    /// The sub-agent's next line into `self.line`; `false` at its end.
    fn sub_line(&mut self) -> io::Result<bool> {
        use io::BufRead;
        let Some((agent, sub)) = &mut self.sub else {
            return Ok(false);
        };
        self.line.clear();
        self.at = 0;
        let n = sub.read_until(b'\n', &mut self.line)?;
        if n > 0 {
            let (bytes, lines) = self.read.entry(agent.clone()).or_default();
            *bytes += n as u64;
            *lines += 1;
            if let Some(file) = self.announce.take() {
                // Every byte before this line was handed out: it starts at `handed`.
                self.parts.starts(self.handed, Some((file, *lines)));
                self.in_sub = true;
            }
            if !self.line.ends_with(b"\n") {
                self.line.push(b'\n');
            }
            return Ok(true);
        }
        self.sub = None;
        self.announce = None;
        if std::mem::take(&mut self.in_sub) {
            self.parts.starts(self.handed, None);
        }
        Ok(false)
    }

    /// The main log's next line into `self.line`, and the sub-agent it names opened.
    /// `false` at the end of the log.
    fn main_line(&mut self) -> io::Result<bool> {
        use io::BufRead;
        self.line.clear();
        self.at = 0;
        if self.main.read_until(b'\n', &mut self.line)? == 0 {
            return Ok(false);
        }
        if let Some(agent) = super::subagent_of(&self.line)
            && is_agent_id(&agent)
        {
            self.open_sub(&agent);
            if self.sub.is_some() && !self.line.ends_with(b"\n") {
                self.line.push(b'\n');
            }
        }
        self.at_line_start = self.line.ends_with(b"\n");
        Ok(true)
    }

    /// After the main log: the next sub-agent log not read to its end opened; `false`
    /// when none is left.
    fn next_unnamed(&mut self) -> bool {
        let subs = &self.subs;
        let unnamed = self
            .unnamed
            .get_or_insert_with(|| subs.keys().cloned().collect::<Vec<_>>().into_iter());
        for agent in unnamed.by_ref() {
            let len = subs
                .get(&agent)
                .and_then(|p| std::fs::metadata(p).ok())
                .map_or(0, |m| m.len());
            if self.read.get(&agent).map_or(0, |&(bytes, _)| bytes) < len {
                self.open_sub(&agent);
                if !std::mem::replace(&mut self.at_line_start, true) {
                    self.line.clear();
                    self.line.push(b'\n');
                    self.at = 0;
                }
                return true;
            }
        }
        false
    }

    /// Passes on what the main log holds up to the next line that names a sub-agent
    /// (whole lines only); 0 when that line must be taken whole first.
    fn pass_main(&mut self, buf: &mut [u8]) -> io::Result<Option<usize>> {
        use io::BufRead;
        let data = self.main.fill_buf()?;
        if data.is_empty() {
            return Ok(None);
        }
        // Whole lines only: a line cut by the buffer's end is taken whole.
        let whole = memchr::memrchr(b'\n', data).map_or(0, |i| i + 1);
        let naming = memchr::memmem::find(&data[..whole], b"\"agentId\"");
        let line_start = naming.map(|at| memchr::memrchr(b'\n', &data[..at]).map_or(0, |i| i + 1));
        let pass = line_start.unwrap_or(whole).min(buf.len());
        if pass > 0 {
            buf[..pass].copy_from_slice(&data[..pass]);
            self.at_line_start = data[pass - 1] == b'\n';
            self.main.consume(pass);
        }
        Ok(Some(pass))
    }
}

/// The session id a log's file name gives: Claude Code names each session's log by its
/// id, and a sub-agent's by its own (`agent-<id>.jsonl`); a file named otherwise (a copy
/// renamed, stdin) gives none.
pub(super) fn session_of_file(name: &str) -> Option<String> {
    let file = std::path::Path::new(name).file_name()?.to_str()?;
    let stem = file.strip_suffix(".jsonl")?;
    let is_uuid = stem.len() == 36
        && stem.bytes().enumerate().all(|(i, b)| match i {
            8 | 13 | 18 | 23 => b == b'-',
            _ => b.is_ascii_hexdigit(),
        });
    let is_agent = stem.strip_prefix("agent-").is_some_and(is_agent_id);
    (is_uuid || is_agent).then(|| stem.to_string())
}

/// A sub-agent's id as Claude Code writes them (a file name is made of it).
pub(super) fn is_agent_id(id: &str) -> bool {
    !id.is_empty()
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

impl Read for WithSubagents {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.next_bytes(buf)?;
        self.handed += n as u64;
        Ok(n)
    }
}

impl WithSubagents {
    /// The next bytes of the stream: the line taken whole, the main log's next lines, a
    /// sub-agent's next line; none at the end.
    fn next_bytes(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            if self.at < self.line.len() {
                let n = buf.len().min(self.line.len() - self.at);
                buf[..n].copy_from_slice(&self.line[self.at..self.at + n]);
                self.at += n;
                return Ok(n);
            }
            if self.sub_line()? {
                continue;
            }
            if self.unnamed.is_some() {
                if self.next_unnamed() {
                    continue;
                }
                return Ok(0);
            }
            match self.pass_main(buf)? {
                Some(0) => {
                    if !self.main_line()? {
                        self.next_unnamed();
                    }
                }
                Some(n) => return Ok(n),
                None => {
                    self.next_unnamed();
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A user line of session S1, naming sub-agent `abc` in its tool result when `names`.
    fn line(uuid: &str, names: bool) -> String {
        let result = if names {
            r#","toolUseResult":{"status":"completed","agentId":"abc"}"#
        } else {
            ""
        };
        format!(r#"{{"type":"user","uuid":"{uuid}","sessionId":"S1"{result}}}"#) + "\n"
    }

    /// Each line of the stream with the file and number the reading gives it.
    fn placed(stream: &[u8], parts: &mut crate::input::parts::Parts) -> Vec<(String, u64)> {
        let mut at = 0;
        let mut out = Vec::new();
        for (i, text) in stream.split_inclusive(|&b| b == b'\n').enumerate() {
            let (file, number) = parts.place(at, i as u64 + 1);
            let name = file.map_or("main", |f| {
                if f.ends_with("agent-abc.jsonl") {
                    "abc"
                } else {
                    "?"
                }
            });
            let uuid = crate::input::json::top_level_value(text.trim_ascii(), "uuid");
            let uuid = String::from_utf8_lossy(uuid.unwrap_or_default());
            out.push((format!("{name} {uuid}"), number));
            at += text.len() as u64;
        }
        out
    }

    /// A sub-agent resumed after its log grew goes on at its next line, numbered there;
    /// the main log's lines keep their own numbers around it.
    #[test]
    fn spliced_lines_keep_their_files_and_numbers() {
        let dir = tempfile::tempdir().unwrap();
        let main = dir.path().join("S1.jsonl");
        let sub = dir.path().join("S1/subagents/agent-abc.jsonl");
        std::fs::create_dir_all(sub.parent().unwrap()).unwrap();
        let log = [line("u1", false), line("u2", true), line("u3", true)].concat();
        std::fs::write(&main, log).unwrap();
        std::fs::write(&sub, [line("s1", false), line("s2", false)].concat()).unwrap();
        let (tx, mut parts) = crate::input::parts::parts();
        let subs = Subagents::from([("abc".to_string(), sub.clone())]);
        let mut rdr = WithSubagents::new(File::open(&main).unwrap(), subs, tx);
        // Past the sub-agent's last line (into the main log's next), a few bytes at a
        // time; then its log grows.
        let mut stream = Vec::new();
        let mut buf = [0u8; 16];
        let s2 = line("s2", false);
        while !stream
            .windows(s2.len() + 1)
            .any(|w| w.starts_with(s2.as_bytes()))
        {
            let n = rdr.read(&mut buf).unwrap();
            assert!(n > 0);
            stream.extend_from_slice(&buf[..n]);
        }
        let mut f = std::fs::OpenOptions::new().append(true).open(&sub).unwrap();
        io::Write::write_all(&mut f, line("s3", false).as_bytes()).unwrap();
        rdr.read_to_end(&mut stream).unwrap();
        let got = placed(&stream, &mut parts);
        let want = [
            ("main \"u1\"", 1),
            ("main \"u2\"", 2),
            ("abc \"s1\"", 1),
            ("abc \"s2\"", 2),
            ("main \"u3\"", 3),
            ("abc \"s3\"", 3),
        ];
        let want: Vec<_> = want.iter().map(|(s, n)| (s.to_string(), *n)).collect();
        assert_eq!(got, want);
    }
}
