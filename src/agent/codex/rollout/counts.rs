//! Codex's cumulative token counts (`token_count`'s `info.total_token_usage`, with the
//! response's own `last_token_usage`), read into what each response of the file used.
//!
//! Each count's increase over the one before is what the responses since used; a count
//! sent again adds nothing. A count with none before it in the file, or below the one
//! before (a counter that started again after a resume's replay of its parent), adds what
//! its own response used (`last_token_usage`): what its total holds beyond that was used
//! before the file's lines (a window cut out of a longer file, a parent's history a fork
//! goes on from). And what the file's counts add up to never exceeds the cumulative count
//! they came to.

use crate::agent::codex::TurnUsage;
use crate::agent::event::Usage;

/// Raw cumulative counts (input, cached input, cache-written input, output, reasoning
/// output), to take differences of.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct Tokens([u64; 5]);

impl Tokens {
    pub(super) fn of(u: &TurnUsage) -> Tokens {
        Tokens([
            u.input_tokens.get(),
            u.cached_input_tokens.get(),
            u.cache_write_input_tokens.get(),
            u.output_tokens.get(),
            u.reasoning_output_tokens.get(),
        ])
    }

    /// Whether no count of this one is above `other`'s.
    fn below(&self, other: &Tokens) -> bool {
        (0..5).all(|i| self.0[i] <= other.0[i])
    }

    fn zip(self, other: Tokens, f: impl Fn(u64, u64) -> u64) -> Tokens {
        Tokens(std::array::from_fn(|i| f(self.0[i], other.0[i])))
    }

    /// As usage: `input_tokens` counts the cached and cache-written ones, `output_tokens`
    /// the reasoning ones.
    pub(super) fn usage(self) -> Usage {
        let [input, cached, written, output, reasoning] = self.0;
        Usage {
            input: input.saturating_sub(cached.saturating_add(written)),
            output,
            cache_read: cached,
            cache_write: written,
            reasoning: Some(reasoning),
            cost_usd: None,
            cache_write_1h: None,
        }
    }
}

/// The counts read so far.
#[derive(Debug, Default)]
pub(super) struct Counts {
    /// The last cumulative count.
    total: Option<Tokens>,
    /// What the file's own counts added.
    counted: Tokens,
}

impl Counts {
    /// A count of a fork's replay of its parent: not the fork's, but what the fork's own
    /// counts go on from.
    pub(super) fn replayed(&mut self, total: Tokens) {
        self.total = Some(total);
    }

    /// A count of the file's own, with its response's own usage when it gives it: what it
    /// adds (`None`: nothing).
    pub(super) fn own(&mut self, total: Tokens, last: Option<Tokens>) -> Option<Usage> {
        let increase = match self.total {
            Some(before) if before == total => return None,
            Some(before) if before.below(&total) => total.zip(before, u64::saturating_sub),
            _ => last.filter(|l| l.below(&total)).unwrap_or(total),
        };
        // The file's counts never add up to more than the count they came to.
        let room = total.zip(self.counted, u64::saturating_sub);
        let increase = increase.zip(room, u64::min);
        self.total = Some(total);
        self.counted = self.counted.zip(increase, u64::saturating_add);
        (increase != Tokens::default()).then(|| increase.usage())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(input: u64, cached: u64, output: u64) -> Tokens {
        Tokens([input, cached, 0, output, 0])
    }

    fn sum(counts: &[(Tokens, Tokens)]) -> (u64, u64, u64) {
        let mut c = Counts::default();
        let mut sum = Usage::default();
        for &(total, last) in counts {
            if let Some(u) = c.own(total, Some(last)) {
                sum.add(&u);
            }
        }
        (sum.input, sum.cache_read, sum.output)
    }

    #[test]
    fn usage_is_the_increase_of_the_total() {
        let mut c = Counts::default();
        c.own(Tokens([1000, 200, 0, 70, 0]), None);
        let u = c.own(Tokens([2003, 403, 0, 143, 10]), None).unwrap();
        assert_eq!(
            (u.input, u.cache_read, u.output, u.reasoning),
            (800, 203, 73, Some(10))
        );
        assert!(c.own(Tokens([2003, 403, 0, 143, 10]), None).is_none());
    }

    /// A file whose first count holds more than its response (a window of a longer file):
    /// what came before its lines is not its.
    #[test]
    fn a_first_count_adds_its_own_response_only() {
        let counts = [
            (t(16_000, 15_000, 100), t(215, 100, 5)),
            (t(16_300, 15_200, 110), t(300, 200, 10)),
        ];
        assert_eq!(sum(&counts), (115 + 100, 300, 15));
    }

    /// After a resume's replay the counter starts again: its first count is its
    /// response's; a counter below what was counted adds nothing until it passes it, so the
    /// sum never exceeds the cumulative count.
    #[test]
    fn counts_never_add_up_past_the_cumulative_count() {
        let mut c = Counts::default();
        c.replayed(t(2_000_000, 1_500_000, 40_000));
        let first = c.own(t(66_000, 60_000, 500), Some(t(66_000, 60_000, 500)));
        assert_eq!(first.map(|u| (u.input, u.output)), Some((6_000, 500)));
        let restarted = [
            (t(100, 0, 10), t(100, 0, 10)),
            (t(200, 0, 20), t(100, 0, 10)),
            (t(50, 0, 5), t(50, 0, 5)),
            (t(80, 0, 8), t(30, 0, 3)),
            (t(260, 0, 26), t(180, 0, 18)),
        ];
        assert_eq!(sum(&restarted), (260, 0, 26));
    }
}
