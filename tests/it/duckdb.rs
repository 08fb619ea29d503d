//! The guide's DuckDB recipes, run as written over the agents' fixtures, their numbers
//! checked against what the fixtures are known to hold (their `.expect.json`). Skipped when
//! the `duckdb` Python package is not installed (a failure under `CI=true`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::prerequisite;

const BIN: &str = env!("CARGO_BIN_EXE_cursor-stream");

fn have_duckdb() -> bool {
    Command::new("python3")
        .args(["-c", "import duckdb"])
        .output()
        .is_ok_and(|o| o.status.success())
}

/// The queries of `doc`'s `sql` block in its section `heading`, each with the comment
/// that names it (the ledger's recipes in the README are read the same way).
pub(crate) fn sql_recipes(doc: &str, heading: &str) -> Vec<(String, String)> {
    let text = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(doc)).unwrap();
    let section = &text[text.find(heading).unwrap()..];
    let start = section.find("```sql\n").unwrap() + "```sql\n".len();
    let block = &section[start..start + section[start..].find("```").unwrap()];
    block
        .split(';')
        .map(str::trim)
        .filter(|q| !q.is_empty())
        .map(|q| {
            let (name, sql) = q.split_once('\n').unwrap();
            (name.trim_start_matches("-- ").to_string(), sql.to_string())
        })
        .collect()
}

/// The queries of the guide's `sql` block.
fn recipes() -> Vec<(String, String)> {
    sql_recipes("docs/GUIDE.md", "## Tables for query engines")
}

/// Runs `sql` in `dir` through DuckDB: the rows, each as JSON values.
fn query(dir: &Path, sql: &str) -> Vec<Vec<Value>> {
    const RUN: &str = r#"
import decimal, json, sys, duckdb
rows = duckdb.sql(sys.argv[1]).fetchall()
def plain(v):
    if isinstance(v, decimal.Decimal):
        return int(v) if v == v.to_integral_value() else float(v)
    return v
print(json.dumps([[plain(v) for v in row] for row in rows]))
"#;
    let out = Command::new("python3")
        .args(["-c", RUN, sql])
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{sql}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// The fixtures read without `--agent`, with what each is known to hold.
fn logs() -> Vec<(PathBuf, Value)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/agents");
    let mut logs = Vec::new();
    for dir in std::fs::read_dir(&root).unwrap() {
        let dir = dir.unwrap().path();
        if !dir.is_dir() {
            continue;
        }
        for file in std::fs::read_dir(&dir).unwrap() {
            let path = file.unwrap().path();
            let name = path.to_str().unwrap();
            let Some(stem) = name.strip_suffix(".ndjson") else {
                continue;
            };
            let Ok(expect) = std::fs::read(format!("{stem}.expect.json")) else {
                continue;
            };
            let expect: Value = serde_json::from_slice(&expect).unwrap();
            if expect["agent_flag"].is_null() {
                logs.push((path, expect));
            }
        }
    }
    logs.sort_by(|a, b| a.0.cmp(&b.0));
    logs
}

fn table(dir: &Path, view: &str, logs: &[(PathBuf, Value)], name: &str) -> Vec<Value> {
    let out = Command::new(BIN)
        .args([view, "--json", "--quiet"])
        .args(logs.iter().map(|(p, _)| p))
        .output()
        .unwrap();
    std::fs::write(dir.join(name), &out.stdout).unwrap();
    out.stdout
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_slice(l).unwrap())
        .collect()
}

#[test]
fn the_guides_recipes_give_the_numbers_the_logs_hold() {
    if !have_duckdb() {
        return prerequisite::missing(
            "the duckdb Python package is not installed (pip install duckdb)",
        );
    }
    let logs = logs();
    assert!(logs.len() > 40, "{} logs", logs.len());
    let dir = tempfile::tempdir().unwrap();
    let runs = table(dir.path(), "stats", &logs, "runs.ndjson");
    table(dir.path(), "tools", &logs, "calls.ndjson");

    let recipes = recipes();
    let names: Vec<&str> = recipes.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        names,
        [
            "runs per agent and status",
            "failures by tool",
            "tokens and cost per model",
            "runs that did not finish, and where they are",
        ]
    );

    // What the fixtures hold, from their expectations (which know nothing of our output).
    let mut by_status: BTreeMap<(String, String), u64> = BTreeMap::new();
    let mut failures: BTreeMap<(String, String), u64> = BTreeMap::new();
    let mut unfinished = Vec::new();
    for (path, expect) in &logs {
        for run in expect["runs"].as_array().unwrap() {
            let agent = run["agent"].as_str().unwrap().to_string();
            let status = match run["status"].as_str().unwrap() {
                "failed" => "error",
                s => s,
            };
            *by_status.entry((agent.clone(), status.into())).or_default() += 1;
            if status == "no_result" {
                unfinished.push(vec![
                    Value::from(path.to_str().unwrap()),
                    Value::from(agent.as_str()),
                    run["session_id"].clone(),
                ]);
            }
            for call in run["tools"].as_array().unwrap() {
                if !matches!(call["class"].as_str(), Some("success" | "pending")) {
                    let tool = call["tool"].as_str().unwrap().to_string();
                    *failures.entry((agent.clone(), tool)).or_default() += 1;
                }
            }
        }
    }

    let rows = query(dir.path(), &recipes[0].1);
    let got: BTreeMap<(String, String), u64> = rows
        .iter()
        .map(|r| {
            let key = (r[0].as_str().unwrap().into(), r[1].as_str().unwrap().into());
            (key, r[2].as_u64().unwrap())
        })
        .collect();
    assert_eq!(got, by_status);

    let rows = query(dir.path(), &recipes[1].1);
    let got: BTreeMap<(String, String), u64> = rows
        .iter()
        .map(|r| {
            let key = (r[0].as_str().unwrap().into(), r[1].as_str().unwrap().into());
            (key, r[2].as_u64().unwrap())
        })
        .collect();
    assert_eq!(got, failures);
    let counts: Vec<u64> = rows.iter().map(|r| r[2].as_u64().unwrap()).collect();
    assert!(counts.is_sorted_by(|a, b| a >= b), "{counts:?}");

    // Tokens: the sums of the rows' usage, per agent and model.
    let mut tokens: BTreeMap<(String, String), (u64, u64, u64)> = BTreeMap::new();
    for run in &runs {
        let key = (
            run["agent"].as_str().unwrap().to_string(),
            run["model"].as_str().unwrap_or("").to_string(),
        );
        let t = tokens.entry(key).or_default();
        t.0 += 1;
        t.1 += run["usage"]["input_tokens"].as_u64().unwrap_or(0);
        t.2 += run["usage"]["output_tokens"].as_u64().unwrap_or(0);
    }
    let rows = query(dir.path(), &recipes[2].1);
    let got: BTreeMap<(String, String), (u64, u64, u64)> = rows
        .iter()
        .map(|r| {
            let key = (
                r[0].as_str().unwrap().to_string(),
                r[1].as_str().unwrap_or("").to_string(),
            );
            let n = |v: &Value| v.as_u64().unwrap_or(0);
            (key, (n(&r[2]), n(&r[3]), n(&r[4])))
        })
        .collect();
    assert_eq!(got, tokens);
    assert!(got.values().any(|t| t.1 > 0), "some usage: {got:?}");

    let mut rows = query(dir.path(), &recipes[3].1);
    rows.sort_by_key(|r| r[0].to_string());
    unfinished.sort_by_key(|r| r[0].to_string());
    assert_eq!(rows, unfinished);
}
