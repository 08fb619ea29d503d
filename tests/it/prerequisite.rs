//! What a test does when something it needs is not here (the real captures in
//! `../shared/captures`, jq, Chromium, the `duckdb` Python package, util-linux `script`):
//! it says so and returns, skipped; under `CI=true`, where CI provides all of them, it
//! fails, so that no test passes there having checked nothing.

use std::io::Write;

/// Reports the missing prerequisite `why`: panics when the environment has `CI=true`,
/// else prints it as a skip with the test's name (the caller then returns). The line goes
/// to stderr itself, not through `eprintln!`, which the test harness captures and shows
/// only for a failing test.
pub fn missing(why: &str) {
    if std::env::var_os("CI").is_some_and(|v| v == "true") {
        panic!("{why}; under CI=true a missing prerequisite fails the test");
    }
    let test = std::thread::current().name().unwrap_or("main").to_string();
    let _ = writeln!(std::io::stderr(), "skipped: {test}: {why}");
}
