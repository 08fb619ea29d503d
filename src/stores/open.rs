//! Opening an input: a file of lines as it is; a zstd-compressed one decompressed as it is
//! read; a SQLite database read into lines by the agent whose database it is; a file an
//! agent reads its own way (a log with its sub-agents' read in, a chat kept as one
//! document) by that agent's store. Told by the first bytes and the path, whatever the
//! file's name says.

use std::io;
use std::path::Path;

use crate::agent::event::Agent;
use crate::agent::store::{Store, after_copy};
use crate::input::file::{Kind, Opened, decompressed, kind_of};
use crate::input::{Input, Pick, open_path};

/// Opens an input for the reading thread.
pub(crate) fn open(input: &Input) -> io::Result<Opened> {
    match input {
        Input::Stdin => Ok(Opened::Made(crate::input::stdin())),
        Input::Path(path) => {
            let file = open_path(path)?;
            match kind_of(&file) {
                Kind::Lines => match store_that_opens(path) {
                    Some(store) => store.open(path, file),
                    None => Ok(Opened::Plain(file)),
                },
                Kind::Zstd => decompressed(file),
                Kind::Sqlite => database(path, &Pick::default()),
            }
        }
        Input::Database { path, pick } => database(path, pick),
        Input::Rest {
            path,
            copy_of,
            first_line,
        } => {
            let (_, offset) =
                *first_line.get_or_init(|| after_copy(copy_of, path).unwrap_or((1, 0)));
            let mut file = open_path(path)?;
            io::Seek::seek(&mut file, io::SeekFrom::Start(offset))?;
            match store_that_opens(path) {
                Some(store) => store.open(path, file),
                None => Ok(Opened::Made(Box::new(file))),
            }
        }
    }
}

/// Whether a path names a regular file of lines as they are (one that may be read in
/// parts, at offsets).
pub(crate) fn is_plain(path: &Path) -> bool {
    std::fs::File::open(path).is_ok_and(|f| {
        f.metadata().is_ok_and(|m| m.is_file())
            && kind_of(&f) == Kind::Lines
            && store_that_opens(path).is_none()
    })
}

/// The store of the agent that reads the file at `path` its own way, if one does.
fn store_that_opens(path: &Path) -> Option<&'static dyn Store> {
    Agent::ALL
        .into_iter()
        .map(|agent| agent.spec().store())
        .find(|store| store.opens(path))
}

/// A database, read into lines by the first agent whose store reads it.
fn database(path: &Path, pick: &Pick) -> io::Result<Opened> {
    Agent::ALL
        .into_iter()
        .find_map(|agent| agent.spec().store().open_database(path, pick))
        .unwrap_or_else(|| {
            Err(io::Error::new(
                io::ErrorKind::InvalidData,
                "a SQLite database, but no agent's this tool reads",
            ))
        })
}
