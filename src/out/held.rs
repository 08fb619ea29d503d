//! Output held back until the end (`events --last-run`, the sections of `transcript
//! --full`), in memory up to [`IN_MEMORY`] and past it in an unnamed temporary file, so
//! that memory stays flat however large the held part of the log grows.
//!
//! The file is made with `tempfile::tempfile()` (in `TMPDIR`, or `/tmp`; already unlinked
//! on Linux, removed at exit elsewhere). When it cannot be made or written (a missing,
//! read-only or full temporary directory), the bytes stay in memory: the output is never
//! lost for want of a temporary file.

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom, Write};

use crate::out::Output;

/// What is held in memory before the bytes go to the file, in writes this large.
const IN_MEMORY: usize = 2 << 20;

#[derive(Default)]
pub(crate) struct HeldOutput {
    /// The newest bytes; the older ones are in `file`.
    bytes: Vec<u8>,
    file: Option<File>,
    /// Bytes in `file` (it is cut back to nothing, never recreated, on `clear`).
    in_file: u64,
    /// No temporary file could be made: everything stays in `bytes`.
    no_file: bool,
}

impl HeldOutput {
    pub(crate) fn push(&mut self, bytes: &[u8]) -> anyhow::Result<()> {
        if self.bytes.len() + bytes.len() > IN_MEMORY && !self.bytes.is_empty() {
            self.spill()?;
        }
        self.bytes.extend_from_slice(bytes);
        Ok(())
    }

    /// Moves the bytes in memory to the file, unless none can be made.
    fn spill(&mut self) -> anyhow::Result<()> {
        if self.no_file {
            return Ok(());
        }
        if self.file.is_none() {
            match tempfile::tempfile() {
                Ok(file) => self.file = Some(file),
                Err(_) => {
                    self.no_file = true;
                    return Ok(());
                }
            }
        }
        if let Some(file) = &mut self.file {
            if file.write_all(&self.bytes).is_err() {
                // A full temporary directory: what the file holds so far stays there (the
                // bytes of this write past `in_file` are never read back), the rest in
                // memory.
                self.no_file = true;
                return Ok(());
            }
            self.in_file += self.bytes.len() as u64;
            self.bytes.clear();
        }
        Ok(())
    }

    /// Forgets everything held (a new run starts); keeps the file and the buffer.
    pub(crate) fn clear(&mut self) -> anyhow::Result<()> {
        self.bytes.clear();
        if let Some(file) = &mut self.file {
            file.set_len(0)
                .and_then(|()| file.rewind())
                .map_err(|e| anyhow::anyhow!("cannot empty the temporary file: {e}"))?;
            self.in_file = 0;
        }
        Ok(())
    }

    /// Writes everything held to stdout, in order.
    pub(crate) fn write_to(&mut self, out: &mut Output) -> anyhow::Result<()> {
        if self.in_file > 0
            && let Some(file) = &mut self.file
        {
            file.seek(SeekFrom::Start(0))?;
            let mut chunk = vec![0; 256 * 1024];
            let mut left = self.in_file;
            while left > 0 {
                let n = match file.read(&mut chunk) {
                    Ok(0) => anyhow::bail!("the temporary file holding the last run was cut short"),
                    Ok(n) => n,
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                    Err(e) => {
                        anyhow::bail!("cannot read the temporary file holding the last run: {e}")
                    }
                };
                out.write_out(&chunk[..n])?;
                left = left.saturating_sub(n as u64);
            }
        }
        out.write_out(&self.bytes)?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::out::OutputMode;
    use crate::out::testing::capture;

    fn written(held: &mut HeldOutput) -> Vec<u8> {
        let (mut out, stdout, _) = capture(OutputMode::default());
        held.write_to(&mut out).unwrap();
        out.flush().unwrap();
        stdout.take()
    }

    /// Past [`IN_MEMORY`], the bytes go to the file and come back in order; a new run
    /// empties both, and the file is filled again from its start.
    #[test]
    fn held_bytes_come_back_in_order_from_memory_and_the_file() {
        let mut held = HeldOutput::default();
        let line: Vec<u8> = (0..1000u32).flat_map(|i| i.to_le_bytes()).collect();
        for _ in 0..1000 {
            held.push(&line).unwrap();
        }
        assert!(
            held.file.is_some() && held.in_file > 0,
            "4 MB went to the file"
        );
        assert!(held.bytes.len() <= IN_MEMORY);
        assert_eq!(written(&mut held), line.repeat(1000));

        held.clear().unwrap();
        assert_eq!(written(&mut held), b"");
        held.push(b"second run\n").unwrap();
        assert_eq!(written(&mut held), b"second run\n");
        for _ in 0..600 {
            held.push(&line).unwrap();
        }
        let mut want = b"second run\n".to_vec();
        want.extend(line.repeat(600));
        assert_eq!(written(&mut held), want);
    }

    /// A temporary file that cannot be written (a full directory): what it holds comes
    /// back, the rest stays in memory.
    #[test]
    fn a_file_that_cannot_be_written_leaves_the_bytes_in_memory() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("held");
        std::fs::write(&path, b"").unwrap();
        let mut held = HeldOutput::default();
        let chunk = vec![b'a'; IN_MEMORY];
        held.push(&chunk).unwrap();
        held.push(b"b").unwrap();
        assert_eq!(
            held.in_file, IN_MEMORY as u64,
            "the first chunk went to the file"
        );
        // The same file, now refusing writes.
        let read_only = std::fs::File::open(&path).unwrap();
        let kept = held.file.replace(read_only).unwrap();
        std::fs::write(
            &path,
            std::iter::repeat_n(b'a', IN_MEMORY).collect::<Vec<_>>(),
        )
        .unwrap();
        drop(kept);
        held.push(&chunk).unwrap();
        held.push(b"c").unwrap();
        assert!(held.no_file);
        let mut want = chunk.clone();
        want.push(b'b');
        want.extend(&chunk);
        want.push(b'c');
        assert!(written(&mut held) == want);
    }
}
