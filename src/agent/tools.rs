//! What the agents' tools are, whatever each calls them: the kind of a tool by its name,
//! and the main argument of a call, read from arguments written in any agent's style.

use std::fmt;

use serde::Deserialize;
use serde::de::value::MapAccessDeserializer;
use serde::de::{self, Deserializer, MapAccess, Visitor};
use serde_json::value::RawValue;

use std::borrow::Cow;

use super::event::{ToolCall, ToolKind, Wants};
use crate::input::lenient::{Count, Text};

/// Each kind and the tool names (any case) of every agent that are of it.
const KINDS: &[(ToolKind, &[&str])] = &[
    (
        ToolKind::Shell,
        &[
            "shell",
            "bash",
            "run_shell_command",
            "command_execution",
            "exec_command",
            "local_shell",
            // Codex's shell tool since 0.1xx, and its input to a command still running.
            "shell_command",
            "write_stdin",
        ],
    ),
    (
        ToolKind::Read,
        &[
            "read",
            "read_file",
            "read_many_files",
            "view",
            "notebookread",
            "readfile",
        ],
    ),
    (
        ToolKind::Edit,
        &[
            "edit",
            "multiedit",
            "replace",
            "apply_patch",
            "file_change",
            "patch_apply",
            "notebookedit",
            "edit_file",
            "str_replace",
            // Cursor's transcripts name the model's functions.
            "applypatch",
            "strreplace",
        ],
    ),
    (ToolKind::Write, &["write", "write_file", "create_file"]),
    (ToolKind::Delete, &["delete", "delete_file"]),
    (
        ToolKind::Grep,
        &["grep", "grep_search", "search_file_content"],
    ),
    (ToolKind::Glob, &["glob", "glob_file_search", "find"]),
    (ToolKind::List, &["ls", "list", "list_directory"]),
    (ToolKind::Fetch, &["webfetch", "web_fetch", "fetch"]),
    (
        ToolKind::WebSearch,
        &["websearch", "web_search", "google_web_search"],
    ),
    (
        ToolKind::CodeSearch,
        &["semsearch", "codebase_search", "codesearch"],
    ),
    (
        ToolKind::Todo,
        &[
            "updatetodos",
            "todowrite",
            "todo_write",
            "todoread",
            "todo_list",
            "update_plan",
            // Claude Code 2.1's task list, which took TodoWrite's place.
            "taskcreate",
            "taskupdate",
            "taskget",
            "tasklist",
        ],
    ),
    (ToolKind::Task, &["task", "agent", "collab_tool_call"]),
    (
        ToolKind::Mcp,
        &[
            "mcp",
            "mcp_tool_call",
            "callmcptool",
            "getmcptools",
            "list_mcp_resources",
            "list_mcp_resource_templates",
            "read_mcp_resource",
        ],
    ),
];

/// The kind of a tool from its name, for agents whose tools are named by the model's
/// function names (`Bash`, `read_file`, `grep_search`, `webfetch`, `mcp__github__get_pr`…).
/// Compared without regard to case. Unknown names are [`ToolKind::Other`].
pub(crate) fn kind_of(name: &str) -> ToolKind {
    // By bytes: a name is the model's text, and a character may straddle byte 5.
    if name.len() > 5 && name.as_bytes()[..5].eq_ignore_ascii_case(b"mcp__") {
        return ToolKind::Mcp;
    }
    KINDS
        .iter()
        .find(|(_, names)| names.iter().any(|n| n.eq_ignore_ascii_case(name)))
        .map_or(ToolKind::Other, |(kind, _)| *kind)
}

/// A call of the tool named `tool`, whose arguments the agent wrote as `args`: its kind from
/// the name, and of the arguments what the view wants (as written, or the main one).
pub(crate) fn call<'a>(
    id: Option<Cow<'a, str>>,
    tool: Cow<'a, str>,
    args: Option<&'a RawValue>,
    wants: Wants,
) -> ToolCall<'a> {
    let kind = kind_of(&tool);
    ToolCall {
        id,
        kind,
        args: args
            .filter(|_| wants.has(Wants::TOOL_RAW))
            .map(Cow::Borrowed),
        target: args
            .filter(|_| wants.has(Wants::TOOL_DETAILS))
            .and_then(|a| ArgsSummary::read(a).target(kind))
            .map(Cow::Owned),
        tool,
        parent: None,
        at_ms: None,
    }
}

/// The arguments the human views show, under any agent's key names (Cursor's camelCase,
/// Claude's and Gemini's snake_case, OpenCode's camelCase). Fields of an unexpected type
/// are taken as absent.
#[derive(Debug, Default, Clone, PartialEq, Deserialize)]
#[serde(default)]
pub(crate) struct ArgsSummary {
    #[serde(alias = "file_path", alias = "filePath", alias = "absolute_path")]
    #[serde(alias = "notebook_path", alias = "dir_path")]
    pub path: Text,
    #[serde(alias = "cmd")]
    pub command: Text,
    pub pattern: Text,
    #[serde(rename = "globPattern", alias = "glob_pattern")]
    pub glob_pattern: Text,
    #[serde(rename = "targetDirectory", alias = "target_directory")]
    pub target_directory: Text,
    pub name: Text,
    #[serde(rename = "toolName", alias = "tool_name")]
    pub tool_name: Text,
    #[serde(rename = "providerIdentifier", alias = "server")]
    pub provider_identifier: Text,
    pub description: Text,
    pub url: Text,
    pub query: Text,
    #[serde(rename = "searchTerm", alias = "search_term")]
    pub search_term: Text,
    pub prompt: Text,
    pub todos: Count,
}

impl ArgsSummary {
    /// Reads arguments given as an object, or as a JSON string holding one (the
    /// `function` shape's `arguments`); anything else gives nothing.
    pub(crate) fn read(args: &RawValue) -> ArgsSummary {
        crate::input::json::from_str::<Lenient>(args.get())
            .map(|l| l.0)
            .unwrap_or_default()
    }

    /// The call's main argument: the path, command, pattern, MCP tool, … as written.
    pub(crate) fn target(&self, kind: ToolKind) -> Option<String> {
        let text = |t: &Text| t.0.clone().filter(|s| !s.is_empty());
        let specific = match kind {
            ToolKind::Grep => text(&self.pattern).map(|p| match text(&self.path) {
                Some(path) => format!("'{p}' in {path}"),
                None => format!("'{p}'"),
            }),
            ToolKind::Glob => text(&self.glob_pattern)
                .or_else(|| text(&self.pattern))
                .map(
                    |p| match text(&self.target_directory).or_else(|| text(&self.path)) {
                        Some(dir) => format!("{p} in {dir}"),
                        None => p,
                    },
                ),
            ToolKind::Mcp => match (text(&self.provider_identifier), text(&self.tool_name)) {
                (Some(p), Some(t)) => Some(format!("{p}/{t}")),
                (_, t) => t.or_else(|| text(&self.name)),
            },
            ToolKind::Todo => self
                .todos
                .0
                .map(|n| format!("{n} {}", if n == 1 { "todo" } else { "todos" })),
            ToolKind::Task => text(&self.description).or_else(|| text(&self.prompt)),
            _ => None,
        };
        specific.or_else(|| {
            [
                &self.command,
                &self.path,
                &self.pattern,
                &self.glob_pattern,
                &self.url,
                &self.query,
                &self.search_term,
                &self.tool_name,
                &self.name,
                &self.description,
                &self.target_directory,
                &self.prompt,
            ]
            .into_iter()
            .find_map(text)
        })
    }
}

/// An arguments object, or a string holding one.
struct Lenient(ArgsSummary);

impl<'de> Deserialize<'de> for Lenient {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Lenient, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Lenient;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an arguments object")
            }
            fn visit_map<M: MapAccess<'de>>(self, map: M) -> Result<Lenient, M::Error> {
                ArgsSummary::deserialize(MapAccessDeserializer::new(map)).map(Lenient)
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Lenient, E> {
                Ok(Lenient(serde_json::from_str(v).unwrap_or_default()))
            }
        }
        d.deserialize_any(V)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw(s: &str) -> Box<RawValue> {
        RawValue::from_string(s.to_owned()).unwrap()
    }

    /// A tool's name is the model's text: one whose fifth byte is inside a character is
    /// an unknown tool, not a panic.
    #[test]
    fn a_name_of_any_characters_has_a_kind() {
        assert_eq!(kind_of("mcp_é_x"), ToolKind::Other);
        assert_eq!(kind_of("ab€cd"), ToolKind::Other);
        assert_eq!(kind_of("MCP__gh__pr"), ToolKind::Mcp);
    }

    #[test]
    fn kinds_by_any_agents_name() {
        assert_eq!(kind_of("Bash"), ToolKind::Shell);
        assert_eq!(kind_of("run_shell_command"), ToolKind::Shell);
        assert_eq!(kind_of("read_file"), ToolKind::Read);
        assert_eq!(kind_of("apply_patch"), ToolKind::Edit);
        assert_eq!(kind_of("mcp__github__get_pr"), ToolKind::Mcp);
        assert_eq!(kind_of("Agent"), ToolKind::Task);
        assert_eq!(kind_of("shell_command"), ToolKind::Shell);
        assert_eq!(kind_of("TaskCreate"), ToolKind::Todo);
        assert_eq!(kind_of("ApplyPatch"), ToolKind::Edit);
        assert_eq!(kind_of("brandNew"), ToolKind::Other);
    }

    #[test]
    fn targets_from_any_agents_arguments() {
        let t = |args: &str, kind| ArgsSummary::read(&raw(args)).target(kind);
        assert_eq!(
            t(r#"{"pattern":"TODO","path":"src"}"#, ToolKind::Grep).as_deref(),
            Some("'TODO' in src")
        );
        assert_eq!(
            t(r#"{"file_path":"/w/a.rs"}"#, ToolKind::Read).as_deref(),
            Some("/w/a.rs")
        );
        assert_eq!(
            t(r#"{"filePath":"/w/a.rs","offset":1}"#, ToolKind::Read).as_deref(),
            Some("/w/a.rs")
        );
        assert_eq!(
            t(r#"{"command":"cargo test"}"#, ToolKind::Other).as_deref(),
            Some("cargo test")
        );
        assert_eq!(
            t(r#""{\"query\":\"rust\"}""#, ToolKind::Other).as_deref(),
            Some("rust"),
            "arguments as a JSON string"
        );
        assert_eq!(
            t(
                r#"{"providerIdentifier":"gh","toolName":"pr"}"#,
                ToolKind::Mcp
            )
            .as_deref(),
            Some("gh/pr")
        );
        assert_eq!(
            t(r#"{"todos":[1,2]}"#, ToolKind::Todo).as_deref(),
            Some("2 todos")
        );
        assert_eq!(t("42", ToolKind::Read), None);
        assert_eq!(t(r#"{"command":["ls"]}"#, ToolKind::Shell), None);
    }
}
