//! The `cutecheck` command line.

use std::process::ExitCode;

fn main() -> ExitCode {
    cutecheck::cli::main()
}
