//! Finding sessions: each agent's store (honouring the variable that moves it), listed
//! for `--from`, chosen by `--since`, `--until` and `--project`, or looked up by a
//! session id's prefix.

use std::fs;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use crate::agent::event::Agent;
use crate::input::{Input, Pick};

/// Which sessions `--since`, `--until` and `--project` keep: those active in the window
/// (the last change at or after `since`, the start at or before `until`) whose working
/// directory is `project` or below.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Window {
    pub since_ms: Option<i64>,
    pub until_ms: Option<i64>,
    /// Absolute.
    pub project: Option<PathBuf>,
}

impl Window {
    pub(crate) fn is_open(&self) -> bool {
        *self == Window::default()
    }

    fn pick(&self, id: Option<String>) -> Pick {
        Pick {
            id,
            since_ms: self.since_ms,
            until_ms: self.until_ms,
            project: self.project.clone(),
        }
    }
}

/// A session log found in a store.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Found {
    pub agent: Agent,
    pub input: Input,
    /// The session id the file's name gives (a database holds many: `None`).
    pub id: Option<String>,
    /// When it started, as far as the name or the file tells (epoch ms).
    pub started_ms: i64,
}

/// Every session log of `agents` in the window, oldest first.
pub(crate) fn find(agents: &[Agent], window: &Window) -> Vec<Found> {
    let mut found = Vec::new();
    for &agent in agents {
        for f in files(agent) {
            if keep(&f, window) {
                found.push(f);
            }
        }
    }
    found.sort_by(|a, b| {
        (a.started_ms, input_path(&a.input)).cmp(&(b.started_ms, input_path(&b.input)))
    });
    found
}

/// The session whose id starts with `prefix`, in any agent's store: its log, or why
/// there is none (no such session, or several).
pub(crate) fn lookup(prefix: &str) -> Result<Input, String> {
    let mut hits: Vec<(Agent, String, Input)> = Vec::new();
    for agent in STORE_AGENTS {
        for f in files(agent) {
            match (&f.input, &f.id) {
                (Input::Database { path, .. }, _) => {
                    for id in crate::stores::open::database_sessions(path, prefix) {
                        let pick = Pick {
                            id: Some(id.clone()),
                            ..Pick::default()
                        };
                        hits.push((
                            agent,
                            id,
                            Input::Database {
                                path: path.clone(),
                                pick,
                            },
                        ));
                    }
                }
                (input, Some(id)) if id.starts_with(prefix) || prefix.starts_with(id.as_str()) => {
                    // Gemini names a file by the first 8 characters of its id only.
                    let full = match input {
                        Input::Path(path) if agent == Agent::Gemini => {
                            gemini_session_id(path).unwrap_or_else(|| id.clone())
                        }
                        _ => id.clone(),
                    };
                    if full.starts_with(prefix) {
                        hits.push((agent, full, input.clone()));
                    }
                }
                _ => {}
            }
        }
    }
    hits.dedup_by(|a, b| a.1 == b.1 && a.2 == b.2);
    match hits.len() {
        1 => Ok(hits.pop().map(|h| h.2).unwrap_or(Input::Stdin)),
        0 => Err(format!(
            "no such file, and no session whose id starts with `{prefix}`"
        )),
        n => {
            let mut msg = format!("`{prefix}` starts {n} session ids; give more of it:");
            for (agent, id, input) in hits.iter().take(10) {
                msg.push_str(&format!("\n  {agent:8} {id}  {}", input.name()));
            }
            if n > 10 {
                msg.push_str(&format!("\n  … and {} more", n - 10));
            }
            Err(msg)
        }
    }
}

/// The agents that keep session logs this tool reads.
pub(crate) const STORE_AGENTS: [Agent; 6] = [
    Agent::Claude,
    Agent::Codex,
    Agent::Gemini,
    Agent::Qwen,
    Agent::OpenCode,
    Agent::Cursor,
];

fn input_path(input: &Input) -> Option<&Path> {
    match input {
        Input::Path(p) | Input::Database { path: p, .. } | Input::Rest { path: p, .. } => Some(p),
        Input::Stdin => None,
    }
}

fn home() -> Option<PathBuf> {
    std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(PathBuf::from)
        .or_else(std::env::home_dir)
}

fn env_dir(name: &str) -> Option<PathBuf> {
    std::env::var_os(name)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
}

/// Every session log of one agent, unfiltered.
fn files(agent: Agent) -> Vec<Found> {
    match agent {
        Agent::Claude => claude(),
        Agent::Codex => codex(),
        Agent::Gemini => gemini(),
        Agent::Qwen => qwen(),
        Agent::OpenCode => opencode(),
        Agent::Cursor => cursor(),
    }
}

/// `projects/` directories: each entry of `CLAUDE_CONFIG_DIR` (a list, as ccusage reads
/// it; an entry may be the `projects/` folder itself), else `~/.claude` and
/// `$XDG_CONFIG_HOME/claude`.
fn claude_projects() -> Vec<PathBuf> {
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
    let mut dirs = Vec::new();
    for root in roots {
        let dir = if root.file_name().is_some_and(|n| n == "projects") {
            root
        } else {
            root.join("projects")
        };
        let canonical = fs::canonicalize(&dir).unwrap_or_else(|_| dir.clone());
        if dir.is_dir()
            && !dirs
                .iter()
                .any(|(c, _): &(PathBuf, PathBuf)| *c == canonical)
        {
            dirs.push((canonical, dir));
        }
    }
    dirs.into_iter().map(|(_, d)| d).collect()
}

fn claude() -> Vec<Found> {
    let mut found = Vec::new();
    let mut projects = Vec::new();
    for dir in claude_projects() {
        for project in subdirs(&dir) {
            let start = found.len();
            for path in files_in(&project, |n| n.ends_with(".jsonl")) {
                let id = stem(&path, ".jsonl");
                found.push(session(Agent::Claude, path, id, None));
            }
            projects.push(start..found.len());
        }
    }
    // Every log looked into at once (most projects hold a few logs).
    let firsts = on_all_cores(&found, |f| match &f.input {
        Input::Path(path) => first_uuid(path),
        _ => None,
    });
    for project in projects {
        without_copies(&mut found[project.clone()], &firsts[project]);
    }
    found
}

/// Claude Code copies a session's conversation into a new log when it is resumed (older
/// releases) or sent to the background (2.x, `anthropics/claude-code` issues and
/// `kenn-io/agentsview#1370`): the new log starts with the old one's messages, their
/// `uuid`s kept, under a new session id. Read together, the copy would be shown and
/// counted twice: the new log is read from its first line that is not the old one's
/// ([`Input::Rest`]). Copies are told by their first message's `uuid`, the same as the
/// old log's ([`first_uuid`], in `firsts`, one for each of the project's `logs`); only
/// such logs are read further.
fn without_copies(logs: &mut [Found], firsts: &[Option<String>]) {
    let mut by_first: std::collections::HashMap<&str, Vec<usize>> = Default::default();
    for (i, uuid) in firsts.iter().enumerate() {
        if let Some(uuid) = uuid {
            by_first.entry(uuid).or_default().push(i);
        }
    }
    for (_, mut group) in by_first.into_iter().filter(|(_, g)| g.len() > 1) {
        let size = |i: &usize| match &logs[*i].input {
            Input::Path(p) => fs::metadata(p).map_or(0, |m| m.len()),
            _ => 0,
        };
        group.sort_by_key(size);
        // Each copy goes on from the one before it (a session resumed twice holds both).
        let paths: Vec<Option<PathBuf>> = group
            .iter()
            .map(|i| input_path(&logs[*i].input).map(Path::to_path_buf))
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

/// `f` of each item, in order, the items shared among a thread per core: looking into
/// hundreds of logs before the reading starts is time no reader works.
fn on_all_cores<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    if cores < 2 || items.len() < 2 {
        return items.iter().map(f).collect();
    }
    let chunk = items.len().div_ceil(cores);
    let f = &f;
    std::thread::scope(|s| {
        let parts: Vec<_> = items
            .chunks(chunk)
            .map(|part| s.spawn(move || part.iter().map(f).collect::<Vec<R>>()))
            .collect();
        parts
            .into_iter()
            .flat_map(|part| part.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .collect()
    })
}

/// The `uuid` of a log's first line that has one, within its first 256 KiB; read a line
/// at a time, as it is most often on the first few (every log is looked at).
fn first_uuid(path: &Path) -> Option<String> {
    use std::io::{BufRead, Read};
    let mut rdr = std::io::BufReader::new(fs::File::open(path).ok()?.take(256 << 10));
    let mut line = Vec::new();
    while rdr.read_until(b'\n', &mut line).ok()? > 0 {
        if line.ends_with(b"\n")
            && let Some(uuid) = uuid_of(line.trim_ascii_end())
        {
            return Some(uuid.to_string());
        }
        line.clear();
    }
    None
}

/// A log line's own `uuid` (a top-level key).
fn uuid_of(line: &[u8]) -> Option<&str> {
    let value = crate::input::json::top_level_value(line, "uuid")?;
    let inner = value.strip_prefix(b"\"")?.strip_suffix(b"\"")?;
    std::str::from_utf8(inner).ok()
}

/// Where `new` goes on from its copy of `old`: the number and offset of its first line
/// with a `uuid` that `old` does not have, or its end when it holds nothing else (`None`:
/// no copy).
pub(super) fn after_copy(old: &Path, new: &Path) -> Option<(u64, u64)> {
    use std::io::BufRead;
    let mut seen = std::collections::HashSet::new();
    let mut line = Vec::new();
    let mut rdr = std::io::BufReader::new(fs::File::open(old).ok()?);
    while rdr.read_until(b'\n', &mut line).ok()? > 0 {
        if let Some(uuid) = uuid_of(line.trim_ascii_end()) {
            seen.insert(uuid.to_string());
        }
        line.clear();
    }
    let mut rdr = std::io::BufReader::new(fs::File::open(new).ok()?);
    let (mut number, mut offset, mut copied) = (1u64, 0u64, false);
    loop {
        line.clear();
        let n = rdr.read_until(b'\n', &mut line).ok()?;
        if n == 0 {
            // Nothing after the copy: none of it is this log's own (read from its end).
            return copied.then_some((number, offset));
        }
        match uuid_of(line.trim_ascii_end()) {
            Some(uuid) if seen.contains(uuid) => copied = true,
            Some(_) => return copied.then_some((number, offset)),
            None => {}
        }
        number += 1;
        offset += n as u64;
    }
}

fn codex() -> Vec<Found> {
    let Some(root) = env_dir("CODEX_HOME").or_else(|| home().map(|h| h.join(".codex"))) else {
        return Vec::new();
    };
    let mut found: Vec<Found> = Vec::new();
    let mut names = std::collections::HashSet::new();
    for sub in ["sessions", "archived_sessions"] {
        let mut paths = Vec::new();
        walk(&root.join(sub), 4, &mut paths);
        paths.retain(|p| {
            name_of(p).is_some_and(|n| {
                n.starts_with("rollout-") && (n.ends_with(".jsonl") || n.ends_with(".jsonl.zst"))
            })
        });
        // A plain rollout wins over its compressed sibling; `sessions/` over the archive.
        paths.sort_by_key(|p| name_of(p).is_some_and(|n| n.ends_with(".zst")));
        for path in paths {
            let name = name_of(&path).unwrap_or_default();
            let base = name.trim_end_matches(".zst").to_string();
            if !names.insert(base.clone()) {
                continue;
            }
            let stem = base.trim_end_matches(".jsonl");
            // rollout-YYYY-MM-DDThh-mm-ss-<uuid>
            // By bytes: a stray file's name need not be ASCII (`get` gives `None` where
            // the cut would fall inside a character).
            let id = stem
                .len()
                .checked_sub(36)
                .filter(|&at| at > 0)
                .and_then(|at| stem.get(at..))
                .map(str::to_string);
            let started = stem
                .strip_prefix("rollout-")
                .and_then(|s| s.get(..19))
                .and_then(name_time);
            found.push(session(Agent::Codex, path, id, started));
        }
    }
    found
}

fn gemini() -> Vec<Found> {
    let Some(home) = env_dir("GEMINI_CLI_HOME").or_else(home) else {
        return Vec::new();
    };
    let mut found = Vec::new();
    for project in subdirs(&home.join(".gemini").join("tmp")) {
        let chats = project.join("chats");
        let logs = files_in(&chats, |n| {
            n.starts_with("session-") && (n.ends_with(".jsonl") || n.ends_with(".json"))
        });
        for path in &logs {
            let document = path.extension().is_some_and(|e| e == "json");
            // A chat document (before 0.39) that became a log on resume: the log.
            if document && logs.contains(&path.with_extension("jsonl")) {
                continue;
            }
            let path = path.clone();
            // session-YYYY-MM-DDTHH-MM-<id8>.jsonl
            let ext = if document { ".json" } else { ".jsonl" };
            let stem = stem(&path, ext).unwrap_or_default();
            let rest = stem.strip_prefix("session-").unwrap_or(&stem);
            let id = rest.rsplit('-').next().map(str::to_string);
            let started = rest.get(..16).and_then(name_time);
            found.push(session(Agent::Gemini, path, id, started));
        }
    }
    found
}

fn qwen() -> Vec<Found> {
    let Some(root) = env_dir("QWEN_RUNTIME_DIR").or_else(|| home().map(|h| h.join(".qwen"))) else {
        return Vec::new();
    };
    let mut found = Vec::new();
    for project in subdirs(&root.join("projects")) {
        for path in files_in(&project.join("chats"), |n| n.ends_with(".jsonl")) {
            let id = stem(&path, ".jsonl");
            found.push(session(Agent::Qwen, path, id, None));
        }
    }
    found
}

fn opencode() -> Vec<Found> {
    let Some(data) = env_dir("XDG_DATA_HOME").or_else(|| home().map(|h| h.join(".local/share")))
    else {
        return Vec::new();
    };
    let dir = data.join("opencode");
    files_in(&dir, |n| {
        n == "opencode.db" || (n.starts_with("opencode-") && n.ends_with(".db"))
    })
    .into_iter()
    .map(|path| {
        let started = modified_ms(&path);
        Found {
            agent: Agent::OpenCode,
            input: Input::Database {
                path,
                pick: Pick::default(),
            },
            id: None,
            started_ms: started,
        }
    })
    .collect()
}

fn cursor() -> Vec<Found> {
    let Some(root) = env_dir("CURSOR_CONFIG_DIR").or_else(|| home().map(|h| h.join(".cursor")))
    else {
        return Vec::new();
    };
    let projects = root.join("projects");
    let mut dirs = vec![projects.join("agent-transcripts")];
    dirs.extend(
        subdirs(&projects)
            .into_iter()
            .map(|p| p.join("agent-transcripts")),
    );
    let mut found = Vec::new();
    for transcripts in dirs {
        // <id>/<id>.jsonl, or <id>.jsonl before.
        for path in files_in(&transcripts, |n| n.ends_with(".jsonl")) {
            let id = stem(&path, ".jsonl");
            found.push(session(Agent::Cursor, path, id, None));
        }
        for dir in subdirs(&transcripts) {
            let Some(name) = name_of(&dir) else { continue };
            let path = dir.join(format!("{name}.jsonl"));
            if path.is_file() {
                found.push(session(Agent::Cursor, path, Some(name), None));
            }
        }
    }
    found
}

fn session(agent: Agent, path: PathBuf, id: Option<String>, started: Option<i64>) -> Found {
    let started_ms = started.unwrap_or_else(|| created_ms(&path));
    Found {
        agent,
        input: Input::Path(path),
        id,
        started_ms,
    }
}

/// Whether a session is in the window.
fn keep(f: &Found, window: &Window) -> bool {
    let path = match &f.input {
        Input::Path(path) | Input::Rest { path, .. } => path,
        // A database's sessions are chosen as it is read.
        Input::Database { .. } => return true,
        Input::Stdin => return false,
    };
    if let Some(since) = window.since_ms {
        // The file's last change bounds its records' times (nothing in it is later): a
        // cheap first test. A file changed since is not always active since — a copy, a
        // restore, a rollout Codex compressed a week after its last record: its last
        // record's time decides.
        if modified_ms(path) < since || last_record_ms(path).is_some_and(|t| t < since) {
            return false;
        }
    }
    if window
        .until_ms
        .is_some_and(|until| started(f, path, until) > until)
    {
        return false;
    }
    match &window.project {
        Some(dir) if f.agent == Agent::Cursor => cursor_in_project(path, dir),
        Some(dir) => project_of(f.agent, path).is_some_and(|cwd| Path::new(&cwd).starts_with(dir)),
        None => true,
    }
}

/// A database of sessions, with the window's choice applied as it is read.
pub(crate) fn with_window(found: Found, window: &Window) -> Found {
    match found.input {
        Input::Database { path, pick } => Found {
            input: Input::Database {
                path,
                pick: Pick {
                    id: pick.id,
                    ..window.pick(None)
                },
            },
            ..found
        },
        _ => found,
    }
}

/// The working directory a session log was written in, read from its first records
/// (Claude, Codex and Qwen write `cwd` there; Gemini maps its project folders to their
/// roots in `projects.json`, and kept the root beside the chats before).
fn project_of(agent: Agent, path: &Path) -> Option<String> {
    if agent == Agent::Gemini {
        let project = path.parent()?.parent()?;
        let slug = project.file_name()?.to_str()?;
        let gemini = project.parent()?.parent()?;
        #[derive(serde::Deserialize)]
        struct Projects {
            projects: std::collections::HashMap<String, String>,
        }
        let mapped = fs::read(gemini.join("projects.json"))
            .ok()
            .and_then(|bytes| serde_json::from_slice::<Projects>(&bytes).ok())
            .and_then(|p| {
                p.projects
                    .into_iter()
                    .find_map(|(root, s)| (s == slug).then_some(root))
            });
        return mapped.or_else(|| {
            fs::read_to_string(project.join(".project_root"))
                .ok()
                .map(|s| s.trim().to_string())
        });
    }
    let head = crate::stores::open::head(path, 1 << 20).ok()?;
    let at = memchr::memmem::find(&head, b"\"cwd\":")?;
    let rest = &head[at + 6..];
    let start = rest.iter().position(|b| !b.is_ascii_whitespace())?;
    let mut de = serde_json::Deserializer::from_slice(&rest[start..]);
    let cwd: String = serde::Deserialize::deserialize(&mut de).ok()?;
    Some(cwd)
}

/// Whether a Cursor transcript was written in `dir` or below. A transcript holds no
/// working directory; its project folder's name is the directory's path with `/` and `.`
/// made `-` (`projects/home-dev-app/agent-transcripts/…`), which is compared with `dir`'s
/// made so. The name is lossy: `/home/dev/app-2` is taken for a folder below
/// `/home/dev/app`. A transcript outside any project is only under `/`.
fn cursor_in_project(path: &Path, dir: &Path) -> bool {
    let slug = |p: &str| {
        p.trim_start_matches(['/', '\\'])
            .replace(['/', '\\', '.', ':'], "-")
    };
    let wanted = slug(&dir.to_string_lossy());
    let project = path
        .ancestors()
        .find(|a| a.file_name().is_some_and(|n| n == "agent-transcripts"))
        .and_then(Path::parent)
        .filter(|p| p.file_name().is_some_and(|n| n != "projects"))
        .and_then(|p| p.file_name())
        .map(|n| n.to_string_lossy().into_owned());
    match project {
        Some(project) => {
            wanted.is_empty()
                || project == wanted
                || project
                    .strip_prefix(&wanted)
                    .is_some_and(|rest| rest.starts_with('-'))
        }
        None => wanted.is_empty(),
    }
}

/// A Gemini chat's whole session id, from its first record.
fn gemini_session_id(path: &Path) -> Option<String> {
    let head = crate::stores::open::head(path, 64 << 10).ok()?;
    let line = head.split(|&b| b == b'\n').next()?;
    #[derive(serde::Deserialize)]
    struct First {
        #[serde(rename = "sessionId")]
        session_id: String,
    }
    serde_json::from_slice::<First>(line)
        .ok()
        .map(|f| f.session_id)
}

fn subdirs(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut dirs: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    dirs
}

fn files_in(dir: &Path, wanted: impl Fn(&str) -> bool) -> Vec<PathBuf> {
    let Ok(entries) = fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| name_of(p).is_some_and(|n| wanted(&n)) && p.is_file())
        .collect();
    files.sort();
    files
}

/// Every file under `dir`, at most `depth` folders down. Links are followed (a store's
/// folders and logs are often links to another disk); the depth bounds a loop of them.
fn walk(dir: &Path, depth: usize, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let path = e.path();
        let Ok(meta) = fs::metadata(&path) else {
            continue;
        };
        if meta.is_dir() && depth > 0 {
            walk(&path, depth - 1, out);
        } else if meta.is_file() {
            out.push(path);
        }
    }
}

fn name_of(path: &Path) -> Option<String> {
    path.file_name()?.to_str().map(str::to_string)
}

fn stem(path: &Path, ext: &str) -> Option<String> {
    name_of(path)?.strip_suffix(ext).map(str::to_string)
}

/// `YYYY-MM-DDThh-mm[-ss]` in a file's name, as UTC (Codex and Gemini write their local
/// time there: it is a hint for `--until`, not a record's time).
fn name_time(s: &str) -> Option<i64> {
    let (date, time) = s.split_once('T')?;
    let mut parts = time.split('-');
    let h = parts.next()?;
    let m = parts.next()?;
    let sec = parts.next().unwrap_or("00");
    let text = format!("{date}T{h}:{m}:{sec}Z");
    text.parse::<jiff::Timestamp>()
        .ok()
        .map(|t| t.as_millisecond())
}

fn to_ms(t: std::io::Result<SystemTime>) -> Option<i64> {
    let d = t.ok()?.duration_since(SystemTime::UNIX_EPOCH).ok()?;
    i64::try_from(d.as_millis()).ok()
}

fn modified_ms(path: &Path) -> i64 {
    fs::metadata(path)
        .ok()
        .and_then(|m| to_ms(m.modified()))
        .unwrap_or(0)
}

/// When a file was made, as far as the file system says (the earlier of its creation and
/// its last change: a copied log was created when copied).
fn created_ms(path: &Path) -> i64 {
    let Ok(meta) = fs::metadata(path) else {
        return 0;
    };
    match (to_ms(meta.created()), to_ms(meta.modified())) {
        (Some(c), Some(m)) => c.min(m),
        (c, m) => c.or(m).unwrap_or(0),
    }
}

/// When a session started, for `--until`: Gemini's file name says (in UTC); else its
/// first record's time (in its first 16 KiB), else the file's.
///
/// Codex names a rollout by the local time it started in, in a zone the name does not
/// give (UTC−12 to UTC+14): the name only bounds the start, and the first record is read
/// only when the bounds do not decide.
fn started(f: &Found, path: &Path, until: i64) -> i64 {
    const HOUR: i64 = 3_600_000;
    match f.agent {
        Agent::Gemini if f.started_ms > 0 => return f.started_ms,
        Agent::Codex if f.started_ms > 0 && f.started_ms + 12 * HOUR <= until => {
            return f.started_ms + 12 * HOUR;
        }
        Agent::Codex if f.started_ms > 0 && f.started_ms - 14 * HOUR > until => {
            return f.started_ms - 14 * HOUR;
        }
        _ => {}
    }
    let first = crate::stores::open::head(path, 16 << 10)
        .ok()
        .and_then(|head| head.split(|&b| b == b'\n').find_map(record_ms));
    first.unwrap_or(f.started_ms)
}

/// The time of a session log's last record that has one (in its last 64 KiB).
fn last_record_ms(path: &Path) -> Option<i64> {
    const LIMIT: u64 = 64 << 10;
    let tail = crate::stores::open::tail(path, LIMIT).ok()?;
    // A tail of the whole limit may start inside a line: that one is not looked at.
    let cut = tail.len() as u64 >= LIMIT;
    let mut lines = tail.split(|&b| b == b'\n');
    if cut {
        lines.next();
    }
    lines.rev().find_map(record_ms)
}

/// A log line's own time: its top-level `timestamp` (Claude, Codex, Gemini, Qwen).
fn record_ms(line: &[u8]) -> Option<i64> {
    let value = crate::input::json::top_level_value(line.trim_ascii(), "timestamp")?;
    let text = std::str::from_utf8(value.strip_prefix(b"\"")?.strip_suffix(b"\"")?).ok()?;
    text.parse::<jiff::Timestamp>()
        .ok()
        .map(|t| t.as_millisecond())
}
