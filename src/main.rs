//! The `cursor-stream` command: everything is in the library (`app`), which the tests drive
//! too.

fn main() -> std::process::ExitCode {
    cursor_stream::cli_main()
}
