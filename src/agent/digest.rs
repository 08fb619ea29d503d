//! Text remembered as a length and a CRC-32: enough to tell whether two texts are the
//! same, with memory bounded whatever their length. The dispatcher checks the streamed
//! answer against the final one with it; Claude's dialect recognises a block it already
//! streamed.

/// Text remembered as a length and a CRC-32, so that it can be compared with bounded
/// memory. Hashing a few KiB at once costs far less than hashing each delta of a few
/// bytes, so text is gathered in batches.
pub(crate) struct Digest {
    pub len: u64,
    crc: crc32fast::Hasher,
    batch: Vec<u8>,
}

const HASH_BATCH: usize = 16 * 1024;

impl Default for Digest {
    fn default() -> Self {
        Digest {
            len: 0,
            crc: crc32fast::Hasher::new(),
            batch: Vec::new(),
        }
    }
}

impl Digest {
    pub(crate) fn add(&mut self, text: &[u8]) {
        self.len += text.len() as u64;
        if self.batch.len() + text.len() > HASH_BATCH {
            self.crc.update(&self.batch);
            self.batch.clear();
            if text.len() > HASH_BATCH {
                self.crc.update(text);
                return;
            }
        }
        self.batch.extend_from_slice(text);
    }

    /// Whether the text added is `expected`, byte for byte (by length and CRC).
    pub(crate) fn matches(&self, expected: &[u8]) -> bool {
        // Most comparisons fail on the length: no hashing then.
        if self.len != expected.len() as u64 {
            return false;
        }
        let mut crc = self.crc.clone();
        crc.update(&self.batch);
        self.len == expected.len() as u64 && crc.finalize() == crc32fast::hash(expected)
    }

    /// Whether `text` starts with the text added (by length and CRC of its start).
    pub(crate) fn is_prefix_of(&self, text: &[u8]) -> bool {
        usize::try_from(self.len)
            .ok()
            .and_then(|len| text.get(..len))
            .is_some_and(|start| self.matches(start))
    }

    pub(crate) fn clear(&mut self) {
        self.len = 0;
        self.crc = crc32fast::Hasher::new();
        self.batch.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digest_compares_whatever_the_batching() {
        let mut d = Digest::default();
        let text = "x".repeat(40_000);
        for chunk in text.as_bytes().chunks(7) {
            d.add(chunk);
        }
        assert!(d.matches(text.as_bytes()));
        assert!(!d.matches(&text.as_bytes()[1..]));
        d.add(&vec![b'y'; 20_000]);
        let more = format!("{text}{}", "y".repeat(20_000));
        assert!(d.matches(more.as_bytes()));
        d.clear();
        assert!(d.matches(b""));
    }
}
