//! What the tool knows of an agent besides how its lines read: its names, its dialects,
//! where its logs live, the versions whose shape changed, how it names models, how its
//! final answer compares with its streamed text. Each agent's folder has a `SPEC` that
//! says it; the compiler checks that every agent in the list (`agents!` in the parent
//! module) has one.

use super::AnyDialect;
use super::event::Agent;
use super::store::Store;

/// Everything the tool knows of one agent, from its folder.
pub(crate) trait Spec: Sync {
    /// The name used on the command line and in machine-readable output.
    fn name(&self) -> &'static str;

    /// The programs the agent runs as (`run` tells the agent from the program it starts).
    fn programs(&self) -> &'static [&'static str];

    /// A dialect of its stream (`log` false) or of its session log.
    fn dialect(&self, log: bool) -> AnyDialect;

    /// The agent whose stream dialect reads this agent's stream (Qwen's: Claude's).
    fn stream_read_as(&self) -> Agent;

    /// Where its session logs live.
    fn store(&self) -> &'static dyn Store;

    /// The versions whose on-disk (or wire) shape changed, oldest first, each with the real
    /// file that shows it (`tests/fixtures/history/<name>/<fixture>`).
    fn versions(&self) -> &'static [Version];

    /// The model a name of the agent's own stands for, as the price table knows it (Cursor
    /// names models as its menu does: `Claude 4 Sonnet`; Qwen Code's `coder-model`). `name`
    /// is lowercase.
    fn model_alias(&self, _name: &str) -> Option<String> {
        None
    }

    /// Whether its answer comes as separate whole messages, which `text` keeps apart (a
    /// blank line) so they do not run together; else one text streamed across tool
    /// rounds, joined with nothing as its own result joins it.
    fn separates_messages(&self) -> bool {
        true
    }

    /// What of the streamed text its final answer repeats (`check` compares them); `None`:
    /// the final answer is taken from the stream itself, nothing to compare.
    fn answer_scope(&self) -> Option<AnswerScope> {
        None
    }
}

/// What of a run's streamed text the agent's own final answer holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum AnswerScope {
    /// All of it (Cursor's `result` joins every segment).
    Whole,
    /// The last message only (Claude's and Qwen's `result`).
    LastSegment,
}

/// A version of an agent whose on-disk (or wire) shape changed.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Version {
    /// The version (or the date, for an agent whose files say none) the shape is first
    /// seen in.
    pub since: &'static str,
    /// What changed.
    pub shape: &'static str,
    /// The real files that show it, under `tests/fixtures/history/<agent>/` (none: no
    /// public file was found; the tests' hand-made ones stand in).
    pub fixtures: &'static [&'static str],
}

impl Agent {
    /// The name used on the command line and in machine-readable output.
    pub fn name(self) -> &'static str {
        self.spec().name()
    }

    /// The agent a program is, from its name (`run` uses it before the stream tells).
    pub(crate) fn from_program(program: &str) -> Option<Agent> {
        let name = program.rsplit(['/', '\\']).next()?;
        let name = name.strip_suffix(".exe").unwrap_or(name);
        Agent::ALL
            .into_iter()
            .find(|a| a.spec().programs().contains(&name))
    }

    /// See [`Spec::separates_messages`].
    pub(crate) fn separates_messages(self) -> bool {
        self.spec().separates_messages()
    }
}

impl std::fmt::Display for Agent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The model a name of some agent's own stands for (see [`Spec::model_alias`]): an
/// alias's own alias too (Cursor's `Kimi K2` is OpenCode Zen's `kimi-k2`).
pub(crate) fn model_alias(lowercase: &str) -> Option<String> {
    let alias = |name: &str| {
        Agent::ALL
            .into_iter()
            .find_map(|a| a.spec().model_alias(name))
    };
    let first = alias(lowercase)?;
    Some(alias(&first).unwrap_or(first))
}

/// A table of an agent's own names for models: the model `name` stands for.
pub(crate) fn alias_in(table: &[(&str, &str)], name: &str) -> Option<String> {
    table
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, m)| m.to_string())
}
