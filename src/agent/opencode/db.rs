//! OpenCode's database (`~/.local/share/opencode/opencode.db`, 1.2 on), read into lines:
//! its sessions, in the order they started, each as the lines `opencode run --format
//! json` prints for its parts, with a line for the session and one for each message
//! around them. The OpenCode dialect reads them ([`super::log`]); `events` and `get` see
//! these lines.
//!
//! ```text
//! {"type":"session","timestamp":<ms>,"sessionID":"ses_…","session":{"id","title","directory","parentID","version","time":{"created","updated"}}}
//! {"type":"user","timestamp":<ms>,"sessionID":"ses_…","message":{<message.data>,"id":"msg_…"},"parts":[{<part.data>,"id":"prt_…"},…]}
//! {"type":"assistant","timestamp":<ms>,"sessionID":"ses_…","message":{<message.data>,"id":"msg_…"}}
//! {"type":"step_start"|"text"|"reasoning"|"tool_use"|"step_finish"|"<part type>","timestamp":<ms>,"sessionID":"ses_…","part":{<part.data>,"id","messageID","sessionID"}}
//! {"type":"error","timestamp":<ms>,"sessionID":"ses_…","error":<an assistant message's error>}
//! ```
//!
//! Tables read (what OpenCode 1.18 writes): `session`, `message` (`data`: the message
//! without its parts), `part` (`data`: one part). Rows are read in a thread of their own,
//! a session at a time, and handed over in chunks: memory holds one message's parts.

use std::io::{self, Read};
use std::path::Path;
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};

use rusqlite::{Connection, OpenFlags, params};
use serde_json::value::RawValue;

use crate::input::Pick;

/// How many bytes of lines are gathered before they are handed to the reader.
const CHUNK: usize = 256 << 10;

/// The lines of the sessions of the database at `path` (a private copy, in `dir`, which
/// is removed when the reading ends) that `pick` chooses.
pub(crate) fn lines(
    dir: tempfile::TempDir,
    path: &Path,
    pick: Pick,
) -> Result<impl Read + Send + use<>, String> {
    let conn = connect(path)?;
    check_schema(&conn)?;
    let (tx, rx) = sync_channel::<io::Result<Vec<u8>>>(4);
    std::thread::Builder::new()
        .name("opencode-db".into())
        .spawn(move || {
            let mut out = Out {
                lines: Lines(Vec::with_capacity(CHUNK)),
                tx,
            };
            let written = write_sessions(&conn, &pick, &mut out);
            // The private copy goes before the reader hears of the end: the process may
            // exit as soon as it has, and the copy would be left behind.
            drop(conn);
            drop(dir);
            match written {
                Ok(()) => out.flush(),
                Err(e) => {
                    out.flush();
                    let _ = out.tx.send(Err(io::Error::other(format!(
                        "reading the OpenCode database: {e}"
                    ))));
                }
            }
        })
        .map_err(|e| e.to_string())?;
    Ok(Chunks {
        rx,
        chunk: Vec::new(),
        at: 0,
    })
}

/// The ids of the sessions that start with `prefix`.
pub(crate) fn session_ids(path: &Path, prefix: &str) -> Result<Vec<String>, String> {
    let conn = connect(path)?;
    check_schema(&conn)?;
    let mut stmt = conn
        .prepare("SELECT id FROM session WHERE substr(id, 1, length(?1)) = ?1 ORDER BY id")
        .map_err(|e| e.to_string())?;
    stmt.query_map(params![prefix], |row| row.get::<_, String>(0))
        .map_err(|e| e.to_string())?
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| e.to_string())
}

fn connect(path: &Path) -> Result<Connection, String> {
    Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .map_err(|e| format!("not a database this tool reads ({e})"))
}

fn check_schema(conn: &Connection) -> Result<(), String> {
    let has = |table: &str| {
        conn.query_row(
            "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?1",
            params![table],
            |row| row.get::<_, i64>(0),
        )
        .is_ok_and(|n| n > 0)
    };
    if has("session") && has("message") && has("part") {
        Ok(())
    } else {
        Err("a SQLite database, but not OpenCode's (no session, message and part tables)".into())
    }
}

struct Out {
    lines: Lines,
    tx: SyncSender<io::Result<Vec<u8>>>,
}

impl Out {
    /// Hands the lines made so far to the reader once they are a chunk.
    fn flush_full(&mut self) {
        if self.lines.0.len() >= CHUNK {
            self.flush();
        }
    }

    fn flush(&mut self) {
        if !self.lines.0.is_empty() {
            let chunk = std::mem::replace(&mut self.lines.0, Vec::with_capacity(CHUNK));
            // The reader is gone (the view stopped early): nothing more is wanted.
            let _ = self.tx.send(Ok(chunk));
        }
    }
}

/// Lines being made, one JSON value each (the database's, and the JSON storage's of
/// [`super::storage`]).
#[derive(Default)]
pub(super) struct Lines(pub(super) Vec<u8>);

impl Lines {
    fn line(&mut self, value: &impl serde::Serialize) -> Result<(), String> {
        serde_json::to_writer(&mut self.0, value).map_err(|e| e.to_string())?;
        self.0.push(b'\n');
        Ok(())
    }

    /// A row (or a file) that does not read, as a line that is not JSON: the reading
    /// reports it at its line (`--strict` stops there) and goes on with the next, as with
    /// a log's bad line.
    pub(super) fn unreadable_row(&mut self, table: &str, id: &str, session: &str, why: &str) {
        // The row first: the report shows the line's start only.
        let text = format!("{table} {id} is not read: {why} (session {session})");
        // One line, whatever the error says.
        self.0.extend(
            text.bytes()
                .map(|b| if b == b'\n' || b == b'\r' { b' ' } else { b }),
        );
        self.0.push(b'\n');
    }
}

/// A session row, as its line gives it.
#[derive(serde::Serialize, Default)]
pub(super) struct Session {
    pub(super) id: String,
    pub(super) title: Option<String>,
    pub(super) directory: Option<String>,
    #[serde(rename = "parentID")]
    pub(super) parent_id: Option<String>,
    pub(super) version: Option<String>,
    pub(super) time: Times,
}

#[derive(serde::Serialize, serde::Deserialize, Default)]
pub(super) struct Times {
    pub(super) created: Option<i64>,
    pub(super) updated: Option<i64>,
}

/// A session's first line.
pub(super) fn session_line(session: &Session, lines: &mut Lines) -> Result<(), String> {
    lines.line(&SessionLine {
        kind: "session",
        timestamp: session.time.created,
        session_id: &session.id,
        session,
    })
}

#[derive(serde::Serialize)]
struct SessionLine<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    timestamp: Option<i64>,
    #[serde(rename = "sessionID")]
    session_id: &'a str,
    session: &'a Session,
}

fn write_sessions(conn: &Connection, pick: &Pick, out: &mut Out) -> Result<(), String> {
    let mut stmt = conn
        .prepare(
            "SELECT id, title, directory, parent_id, version, time_created, time_updated \
             FROM session WHERE (?1 = '' OR id = ?1) AND (?2 = 0 OR time_updated >= ?2) \
             AND (?3 = 0 OR time_created <= ?3) ORDER BY time_created, id",
        )
        .map_err(|e| e.to_string())?;
    let rows = stmt
        .query_map(
            params![
                pick.id.as_deref().unwrap_or(""),
                pick.since_ms.unwrap_or(0),
                pick.until_ms.unwrap_or(0)
            ],
            |row| {
                Ok(Session {
                    id: row.get(0)?,
                    title: row.get(1).ok(),
                    directory: row.get(2).ok(),
                    parent_id: row.get(3).ok(),
                    version: row.get(4).ok(),
                    time: Times {
                        created: row.get(5).ok(),
                        updated: row.get(6).ok(),
                    },
                })
            },
        )
        .map_err(|e| e.to_string())?;
    let sessions: Vec<Session> = rows.collect::<Result<_, _>>().map_err(|e| e.to_string())?;
    for session in &sessions {
        if let Some(dir) = &pick.project
            && !session
                .directory
                .as_deref()
                .is_some_and(|d| Path::new(d).starts_with(dir))
        {
            continue;
        }
        session_line(session, &mut out.lines)?;
        write_messages(conn, &session.id, out)?;
    }
    Ok(())
}

/// A message's `data` or a part's, with the ids the row keeps beside it.
pub(super) fn with_ids(data: &str, ids: &[(&str, &str)]) -> Result<Box<RawValue>, String> {
    let mut map: serde_json::Map<String, serde_json::Value> =
        serde_json::from_str(data).map_err(|e| format!("a row's data is not JSON: {e}"))?;
    for (key, value) in ids {
        map.entry(*key)
            .or_insert_with(|| serde_json::Value::String((*value).to_string()));
    }
    serde_json::value::to_raw_value(&map).map_err(|e| e.to_string())
}

#[derive(serde::Serialize)]
struct MessageLine<'a> {
    #[serde(rename = "type")]
    kind: &'a str,
    timestamp: Option<i64>,
    #[serde(rename = "sessionID")]
    session_id: &'a str,
    message: &'a RawValue,
    #[serde(skip_serializing_if = "Option::is_none")]
    parts: Option<&'a [Box<RawValue>]>,
}

#[derive(serde::Serialize)]
struct PartLine<'a> {
    #[serde(rename = "type")]
    kind: &'a str,
    timestamp: Option<i64>,
    #[serde(rename = "sessionID")]
    session_id: &'a str,
    part: &'a RawValue,
}

#[derive(serde::Serialize)]
struct ErrorLine<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    timestamp: Option<i64>,
    #[serde(rename = "sessionID")]
    session_id: &'a str,
    error: &'a RawValue,
}

/// What the lines need of a message's and a part's data.
#[derive(serde::Deserialize, Default)]
#[serde(default)]
struct Data<'a> {
    #[serde(borrow)]
    role: Option<std::borrow::Cow<'a, str>>,
    #[serde(rename = "type", borrow)]
    kind: Option<std::borrow::Cow<'a, str>>,
    #[serde(borrow)]
    error: Option<&'a RawValue>,
    time: Option<PartTime>,
}

#[derive(serde::Deserialize, Default)]
#[serde(default)]
struct PartTime {
    created: Option<f64>,
    start: Option<f64>,
    end: Option<f64>,
    completed: Option<f64>,
}

fn write_messages(conn: &Connection, session: &str, out: &mut Out) -> Result<(), String> {
    let mut messages = conn
        .prepare(
            "SELECT id, time_created, data FROM message WHERE session_id = ?1 \
             ORDER BY time_created, id",
        )
        .map_err(|e| e.to_string())?;
    let mut parts = conn
        .prepare("SELECT id, data FROM part WHERE message_id = ?1 ORDER BY id")
        .map_err(|e| e.to_string())?;
    let rows = messages
        .query_map(params![session], |row| {
            Ok((
                row.get::<_, String>(0)?,
                row.get::<_, Option<i64>>(1)?,
                row.get::<_, String>(2),
            ))
        })
        .map_err(|e| e.to_string())?;
    for row in rows {
        let (id, created, data) = row.map_err(|e| e.to_string())?;
        let message = data
            .map_err(|e| e.to_string())
            .and_then(|data| with_ids(&data, &[("id", &id), ("sessionID", session)]));
        match message {
            Ok(message) => {
                let parts = read_parts(&mut parts, &id, session, &mut out.lines)?;
                write_message(&message, &parts, created, session, &mut out.lines)?;
            }
            Err(why) => out.lines.unreadable_row("message", &id, session, &why),
        }
        out.flush_full();
    }
    Ok(())
}

/// A message's parts, each with its ids; a part that does not read is reported (and left
/// out) where it would have been.
fn read_parts(
    parts: &mut rusqlite::Statement<'_>,
    message: &str,
    session: &str,
    lines: &mut Lines,
) -> Result<Vec<Box<RawValue>>, String> {
    let rows: Vec<(String, Result<String, String>)> = parts
        .query_map(params![message], |row| {
            Ok((row.get(0)?, row.get(1).map_err(|e| e.to_string())))
        })
        .map_err(|e| e.to_string())?
        .collect::<Result<_, _>>()
        .map_err(|e| e.to_string())?;
    let mut values = Vec::with_capacity(rows.len());
    for (id, data) in rows {
        let ids = [
            ("id", id.as_str()),
            ("messageID", message),
            ("sessionID", session),
        ];
        match data.and_then(|data| with_ids(&data, &ids)) {
            Ok(value) => values.push(value),
            Err(why) => lines.unreadable_row("part", &id, session, &why),
        }
    }
    Ok(values)
}

/// A message's lines: a user's with its parts; an answer's, then a line for each of its
/// parts (as the stream's events), then its error if it failed.
pub(super) fn write_message(
    message: &RawValue,
    parts: &[Box<RawValue>],
    created: Option<i64>,
    session: &str,
    out: &mut Lines,
) -> Result<(), String> {
    let info: Data = serde_json::from_str(message.get()).unwrap_or_default();
    if info.role.as_deref() == Some("user") {
        return out.line(&MessageLine {
            kind: "user",
            timestamp: created,
            session_id: session,
            message,
            parts: Some(parts),
        });
    }
    out.line(&MessageLine {
        kind: info.role.as_deref().unwrap_or("assistant"),
        timestamp: created,
        session_id: session,
        message,
        parts: None,
    })?;
    let completed = info
        .time
        .as_ref()
        .and_then(|t| t.completed)
        .map(|t| t as i64);
    for part in parts {
        let data: Data = serde_json::from_str(part.get()).unwrap_or_default();
        let kind = data.kind.as_deref().unwrap_or("part");
        // A part's own time (0.x wrote 0 for none); a step's end, which keeps none, is its
        // message's completion.
        let at = data
            .time
            .as_ref()
            .and_then(|t| {
                [t.end, t.completed, t.start, t.created]
                    .into_iter()
                    .flatten()
                    .find(|t| *t > 0.0)
            })
            .map(|t| t as i64)
            .or(completed.filter(|_| kind == "step-finish"))
            .or(created);
        out.line(&PartLine {
            kind: stream_type(kind),
            timestamp: at,
            session_id: session,
            part,
        })?;
    }
    let Some(error) = info.error else {
        return Ok(());
    };
    let at = info
        .time
        .as_ref()
        .and_then(|t| t.completed.or(t.created))
        .map(|t| t as i64)
        .or(created);
    out.line(&ErrorLine {
        kind: "error",
        timestamp: at,
        session_id: session,
        error,
    })
}

/// The type `opencode run --format json` gives a part's event.
fn stream_type(part: &str) -> &str {
    match part {
        "step-start" => "step_start",
        "step-finish" => "step_finish",
        "tool" => "tool_use",
        other => other,
    }
}

/// The reading end: the chunks the database's thread sends.
struct Chunks {
    rx: Receiver<io::Result<Vec<u8>>>,
    chunk: Vec<u8>,
    at: usize,
}

impl Read for Chunks {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        while self.at == self.chunk.len() {
            match self.rx.recv() {
                Ok(Ok(chunk)) => {
                    self.chunk = chunk;
                    self.at = 0;
                }
                Ok(Err(e)) => return Err(e),
                Err(_) => return Ok(0),
            }
        }
        let n = buf.len().min(self.chunk.len() - self.at);
        buf[..n].copy_from_slice(&self.chunk[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}
