//! Command-line front end: `cutecheck eval`.

use std::io::{BufRead, Write};
use std::process::ExitCode;

use clap::{Parser, Subcommand};

use crate::engine::print_layout;
use crate::expr::{eval_str, Value};

#[derive(Parser)]
#[command(name = "cutecheck", version, about = "CuTe's layout algebra, checked against real CuTe")]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Evaluate an expression and print the result exactly as CuTe's print() does.
    Eval {
        /// The expression, or `-` to read one expression per line from stdin.
        expr: String,
        /// Also print the print_layout grid for rank-2 layout results.
        #[arg(long)]
        table: bool,
    },
}

pub fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.cmd {
        Cmd::Eval { expr, table } => eval_cmd(&expr, table),
    }
}

/// The text `cutecheck eval` prints for one expression: the result (and the grid with `table`),
/// or one line starting `error:`.
pub fn eval_line(expr: &str, table: bool) -> Result<String, String> {
    match eval_str(expr) {
        Ok(Value::Layout(l)) if table && l.rank() == 2 => print_layout(&l).map_err(|e| format!("error: {e}")),
        Ok(v) => Ok(format!("{v}\n")),
        Err(e) => Err(format!("error: {e}\n")),
    }
}

fn eval_cmd(expr: &str, table: bool) -> ExitCode {
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let mut failed = false;
    let mut one = |line: &str, out: &mut dyn Write| match eval_line(line, table) {
        Ok(s) => {
            let _ = out.write_all(s.as_bytes());
        }
        Err(s) => {
            failed = true;
            let _ = out.write_all(s.as_bytes());
        }
    };
    if expr == "-" {
        for line in std::io::stdin().lock().lines() {
            match line {
                Ok(l) if l.trim().is_empty() => continue,
                Ok(l) => one(&l, &mut out),
                Err(e) => {
                    let _ = writeln!(out, "error: reading stdin: {e}");
                    return ExitCode::FAILURE;
                }
            }
        }
    } else {
        one(expr, &mut out);
    }
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
