//! The `cursor-stream` command: everything is in the library (`app`), which the tests drive
//! too.

/// mimalloc: see Cargo.toml.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    cursor_stream::cli_main()
}
