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
        /// Print what real CuTe prints instead (compiles the expression against the CuTe headers).
        #[arg(long, conflicts_with = "both")]
        cute: bool,
        /// Print the engine's and real CuTe's results side by side and whether they agree.
        #[arg(long)]
        both: bool,
        #[command(flatten)]
        oracle: crate::oracle::OracleArgs,
    },
}

pub fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.cmd {
        Cmd::Eval { expr, cute, both, oracle, .. } if cute || both => oracle_cmd(&expr, both, &oracle),
        Cmd::Eval { expr, table, .. } => eval_cmd(&expr, table),
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

/// The expressions of `eval`'s argument: the one given, or one per non-empty stdin line for `-`.
fn expressions(expr: &str) -> std::io::Result<Vec<String>> {
    if expr != "-" {
        return Ok(vec![expr.to_string()]);
    }
    let mut v = Vec::new();
    for l in std::io::stdin().lock().lines() {
        let l = l?;
        if !l.trim().is_empty() {
            v.push(l.trim().to_string());
        }
    }
    Ok(v)
}

/// The engine's result as snapshot lines: the print text, or `rejected: <engine error>`.
pub fn engine_lines(expr: &str) -> Vec<String> {
    match eval_str(expr) {
        Ok(v) => vec![v.to_string()],
        Err(e) => vec![format!("rejected: {e}")],
    }
}

/// `eval --cute` / `eval --both`.
fn oracle_cmd(expr: &str, both: bool, args: &crate::oracle::OracleArgs) -> ExitCode {
    let exprs = match expressions(expr) {
        Ok(v) => v,
        Err(e) => {
            eprintln!("error: reading stdin: {e}");
            return ExitCode::FAILURE;
        }
    };
    let oracle = match crate::oracle::Oracle::new(args.options()) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("error: {e:#}");
            return ExitCode::FAILURE;
        }
    };
    let results = oracle.run(&exprs);
    let mut ok = true;
    for (e, r) in exprs.iter().zip(&results) {
        let cute = r.lines();
        if !both {
            for l in &cute {
                println!("{l}");
            }
            ok &= matches!(r, crate::oracle::Outcome::Printed(_));
            continue;
        }
        let engine = engine_lines(e);
        let verdict = crate::suite::compare(&cute, &engine);
        println!("{e}");
        println!("  cute:   {}", cute.join("\n          "));
        println!("  engine: {}", engine.join("\n          "));
        println!("  {}", verdict.describe());
        ok &= verdict.agrees();
    }
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
