//! A rollout's tool calls as Codex writes them: the main argument of the calls whose
//! arguments name none of the usual keys, and how a call went, from its output.

use serde::Deserialize;

use crate::agent::event::{Effect, StatusClass, ToolStatus, Wants};
use crate::input::json::MaybeStr;
use crate::input::lenient::{Num, Object};

/// The main argument of a call the usual keys do not give: `write_stdin`'s session and
/// what it writes, `wait`'s cell, the files an `apply_patch` patch touches, the script of
/// code mode's `exec` (`input` being the text of a custom tool's call).
pub(super) fn target(tool: &str, args: Option<&str>, input: Option<&str>) -> Option<String> {
    #[derive(Deserialize, Default)]
    #[serde(default)]
    struct Args<'a> {
        session_id: Num,
        #[serde(borrow)]
        chars: MaybeStr<'a>,
        cell_id: Num,
    }
    let read = || -> Args {
        args.and_then(|a| crate::input::json::from_str(a).ok())
            .unwrap_or_default()
    };
    // Ids Codex writes as numbers, or as numbers in strings.
    let id = |n: Num| n.as_i64().map(|n| n.to_string());
    match (tool, input) {
        ("apply_patch", Some(patch)) => patched_files(patch),
        ("exec", Some(script)) => Some(script.trim().to_string()).filter(|s| !s.is_empty()),
        ("write_stdin", None) => {
            let a = read();
            let session = id(a.session_id)?;
            Some(match a.chars.as_deref().filter(|c| !c.is_empty()) {
                Some(chars) => format!("session {session}: {chars}"),
                None => format!("session {session}"),
            })
        }
        ("wait", None) => id(read().cell_id).map(|cell| format!("cell {cell}")),
        _ => None,
    }
}

/// The files a patch (`*** Begin Patch` … `*** End Patch`) adds, updates or deletes.
fn patched_files(patch: &str) -> Option<String> {
    let files: Vec<&str> = patch
        .lines()
        .filter_map(|l| {
            ["*** Update File: ", "*** Add File: ", "*** Delete File: "]
                .iter()
                .find_map(|p| l.strip_prefix(p))
        })
        .map(str::trim)
        .collect();
    (!files.is_empty()).then(|| files.join(", "))
}

/// A call's output as text: a string, the texts of a list of content items (code mode's,
/// an MCP tool's), or (before 0.1xx) `{"output":"…","metadata":{"exit_code":N}}` in a
/// string.
pub(super) fn output_text(output: &serde_json::value::RawValue) -> String {
    #[derive(Deserialize)]
    struct Item<'a> {
        #[serde(borrow, default)]
        text: MaybeStr<'a>,
    }
    if let Ok(text) = crate::input::json::from_str::<String>(output.get()) {
        return text;
    }
    match crate::input::json::from_str::<Vec<Item>>(output.get()) {
        Ok(items) => items
            .iter()
            .filter_map(|i| i.text.as_deref())
            .collect::<Vec<_>>()
            .join("\n"),
        Err(_) => output.get().to_string(),
    }
}

/// How a call went, from its output: an exit code Codex reports (`Process exited with
/// code N`, or `metadata.exit_code`), a patch Codex could not apply, a code-mode script
/// that failed, a refusal of the approval policy or the user.
pub(super) fn outcome_of(output: &str, wants: Wants) -> (ToolStatus<'static>, Effect) {
    let exit_code = exit_code(output);
    let refused = output.starts_with("approval policy")
        || output.contains("rejected by user")
        || output.starts_with("exec command rejected");
    let failed = exit_code.is_some_and(|c| c != 0)
        || output.starts_with("apply_patch verification failed")
        || output.starts_with("Script failed");
    let status = if refused {
        ToolStatus::new("rejected", StatusClass::Rejected)
    } else if failed {
        ToolStatus::new("failed", StatusClass::Failed)
    } else {
        ToolStatus::success()
    };
    let effect = if wants.has(Wants::TOOL_DETAILS) {
        Effect {
            exit_code,
            error: (status.class != StatusClass::Ok).then(|| crate::out::one_line(output, 200)),
            ..Effect::default()
        }
    } else {
        Effect::default()
    };
    (status, effect)
}

fn exit_code(output: &str) -> Option<i64> {
    #[derive(Deserialize)]
    struct Old {
        #[serde(default)]
        metadata: Object<OldMeta>,
    }
    #[derive(Deserialize, Default)]
    #[serde(default)]
    struct OldMeta {
        exit_code: Num,
    }
    output
        .find("Process exited with code ")
        .and_then(|at| {
            output[at + 25..]
                .split(|c: char| !c.is_ascii_digit() && c != '-')
                .next()?
                .parse::<i64>()
                .ok()
        })
        .or_else(|| {
            crate::input::json::from_str::<Old>(output)
                .ok()
                .and_then(|o| o.metadata.0?.exit_code.as_i64())
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exit_codes_and_refusals_are_read_from_the_output() {
        let ok = "Chunk ID: 1\nProcess exited with code 0\nOutput:\nhi\n";
        assert_eq!(outcome_of(ok, Wants::ALL).0.class, StatusClass::Ok);
        let failed = outcome_of("Process exited with code 3\n", Wants::ALL);
        assert_eq!(failed.0.class, StatusClass::Failed);
        assert_eq!(failed.1.exit_code, Some(3));
        let old = r#"{"output":"x","metadata":{"exit_code":2,"duration_seconds":0.1}}"#;
        assert_eq!(outcome_of(old, Wants::ALL).1.exit_code, Some(2));
        let refused = "approval policy is Never; reject command — you cannot ask";
        assert_eq!(
            outcome_of(refused, Wants::ALL).0.class,
            StatusClass::Rejected
        );
    }

    /// 0.145's failures that give no exit code: a patch Codex could not apply (as
    /// `apply_patch` or through `exec_command`), a code-mode script that failed.
    #[test]
    fn failures_without_an_exit_code_are_failures() {
        for output in [
            "apply_patch verification failed: Failed to read file to update /w/a.py",
            "Script failed\nWall time 0.0 seconds\nOutput:\n\nScript error:\nexec cell 1 not found",
        ] {
            assert_eq!(outcome_of(output, Wants::ALL).0.class, StatusClass::Failed);
        }
        let running = "Script running with cell ID 3\nWall time 10.0 seconds\nOutput:\n";
        assert_eq!(outcome_of(running, Wants::ALL).0.class, StatusClass::Ok);
    }

    #[test]
    fn the_calls_the_usual_keys_miss_have_a_main_argument() {
        let stdin = r#"{"session_id":12556,"chars":"","yield_time_ms":30000}"#;
        assert_eq!(
            target("write_stdin", Some(stdin), None).as_deref(),
            Some("session 12556")
        );
        let wait = r#"{"cell_id":"3","yield_time_ms":30000}"#;
        assert_eq!(target("wait", Some(wait), None).as_deref(), Some("cell 3"));
        let patch = "*** Begin Patch\n*** Update File: a.py\n@@\n-x\n+y\n*** Add File: b.py\n+z\n*** End Patch";
        assert_eq!(
            target("apply_patch", None, Some(patch)).as_deref(),
            Some("a.py, b.py")
        );
        let script = "const r = await tools.exec_command({cmd:\"ls\"}); text(r.output);\n";
        assert_eq!(
            target("exec", None, Some(script)).as_deref(),
            Some(script.trim())
        );
    }
}
