//! `cargo xtask`: the project's tasks (tests, oracle, conformance), written in Rust.

use std::process::{Command, ExitCode};

use clap::{Parser, Subcommand};

mod gpu;

#[derive(Parser)]
#[command(name = "xtask")]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Run every test of the workspace.
    Test,
    /// Check the MMA register layouts on a real GPU (exit 3: no GPU here).
    Gpu(gpu::GpuArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.cmd {
        Cmd::Test => run(Command::new(env!("CARGO")).args(["test", "--workspace"])),
        Cmd::Gpu(args) => gpu::main(args),
    }
}

fn run(cmd: &mut Command) -> ExitCode {
    match cmd.status() {
        Ok(s) if s.success() => ExitCode::SUCCESS,
        Ok(_) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("error: could not run {cmd:?}: {e}");
            ExitCode::FAILURE
        }
    }
}
