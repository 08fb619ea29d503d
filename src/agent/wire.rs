//! What several dialects read alike.

use serde::Deserialize;

use crate::input::json::MaybeStr;

/// An error object read for its message, `{"message":"…"}` (Claude's and Qwen's
/// `result.error`, Codex's `turn.failed` and failed items).
#[derive(Deserialize, Default)]
pub(crate) struct ErrorMessage<'a> {
    #[serde(borrow, default)]
    pub message: MaybeStr<'a>,
}
