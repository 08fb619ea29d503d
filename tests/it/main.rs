//! The integration tests, one binary: each file here is a module, named for what it tests.
//! One binary rather than one per file because each would link the whole crate again — on
//! two cores that was most of what a fresh `cargo test` spent after compiling the crate —
//! and because the harness then spreads every test over the threads, not one file at a time.
//!
//! `cargo test --test it MODULE::` runs one file's tests (`cargo test --test it hostile::`);
//! `cargo test --test it -- --ignored e2e_run::` the real agent CLIs (`scripts/record/ci-e2e.sh`).

mod agents;
mod architecture;
mod browser;
mod ccusage;
mod cli;
mod conformance;
mod duckdb;
mod e2e_run;
mod follow;
mod history;
mod homes;
mod hostile;
mod jq;
mod ledger;
mod library;
mod live;
mod logs;
mod normalized;
mod prices;
mod properties;
mod reference;
#[cfg(unix)]
mod run;
mod statusline;
mod stores;
mod tools;
mod transcript;
mod usage;
#[cfg(unix)]
mod width;

#[allow(dead_code)]
#[path = "../../examples/generate.rs"]
mod generate;
mod home;
mod prerequisite;
#[cfg(unix)]
mod terminal;
