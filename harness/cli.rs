//! Command-line front end: `cutecheck eval`.

use std::io::{BufRead, Write};
use std::process::ExitCode;

use clap::{Parser, Subcommand};

use crate::case::{Case, Judge, Origin, Outcome};
use crate::engine::print_layout;
use crate::expr::{eval, eval_str, Value};

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
        /// Print what CuTe's algorithm computes even where the result violates the operation's
        /// definition (the engine normally refuses such a result with an `Undefined` error).
        #[arg(long, conflicts_with_all = ["cute", "both"])]
        unchecked: bool,
        /// Print what real CuTe prints instead (compiles the expression against the CuTe headers).
        #[arg(long, conflicts_with = "both")]
        cute: bool,
        /// Print the engine's and real CuTe's results side by side and whether they agree.
        #[arg(long)]
        both: bool,
        #[command(flatten)]
        oracle: crate::oracle::OracleArgs,
        /// Also draw the result as SVG into FILE: an MMA atom name as CuTe's print_svg draws it, a
        /// layout as a grid of its values, or (with --tile) a TV layout over a tile.
        #[arg(long, value_name = "FILE")]
        svg: Option<std::path::PathBuf>,
        /// With --svg: read the layout as (thread,value) -> index over an ROWS x COLS tile.
        #[arg(long, value_name = "ROWS,COLS")]
        tile: Option<String>,
    },
    /// Print an MMA atom's (lane, value) -> (row, col) tables of A (MxK), B (NxK), C (MxN) as JSON.
    AtomTable {
        /// The atom as CuTe's C++ names it, e.g. SM80_16x8x16_F32F16F16F32_TN.
        atom: String,
    },
}

pub fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.cmd {
        Cmd::Eval { expr, cute, both, oracle, table, .. } if cute || both => oracle_cmd(&expr, both, table, &oracle),
        Cmd::Eval { expr, svg: Some(file), tile, .. } => svg_cmd(&expr, &file, tile.as_deref()),
        // The engine alone models the release `--cutlass-version` / `--cutlass-dir` names (the
        // nearest older modelled release for one it does not model).
        Cmd::Eval { expr, table, unchecked: true, oracle, .. } => with_model(&oracle, || {
            crate::engine::without_definition_checks(|| eval_cmd(&expr, table))
        }),
        Cmd::Eval { expr, table, oracle, .. } => with_model(&oracle, || eval_cmd(&expr, table)),
        Cmd::AtomTable { atom } => atom_table_cmd(&atom),
    }
}

fn svg_cmd(expr: &str, file: &std::path::Path, tile: Option<&str>) -> ExitCode {
    let picture = eval_str(expr).map_err(|e| e.to_string()).and_then(|v| crate::svg::svg_of(&v, tile).map_err(|e| e.to_string()));
    match picture.and_then(|s| std::fs::write(file, s).map_err(|e| format!("writing {}: {e}", file.display()))) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

fn atom_table_cmd(atom: &str) -> ExitCode {
    // Parse the name as an expression so spacing and spelling are checked once, in one place.
    let canonical = match crate::expr::parse(atom) {
        Ok(crate::expr::Expr::Call { name, called: false, .. }) => name.to_string(),
        Ok(_) => atom.to_string(),
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    match crate::engine::atom::atom_table(&canonical).map(|t| serde_json::to_string(&t)) {
        Ok(Ok(json)) => {
            println!("{json}");
            ExitCode::SUCCESS
        }
        Ok(Err(e)) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

/// The argument of a top-level `print_layout(L)` case, if `expr` is one. `print_layout` prints
/// rather than returns, so it is a form of a whole case, not a value.
pub fn print_layout_arg(expr: &str) -> Option<crate::expr::Expr> {
    match crate::expr::parse(expr).ok()? {
        crate::expr::Expr::Call { name, mut args, called: true, .. } if name.simple() == Some("print_layout") && args.len() == 1 => {
            args.pop()
        }
        _ => None,
    }
}

/// The text `cutecheck eval` prints for one expression: the result (and the grid with `table`),
/// or one line starting `error:`.
pub fn eval_line(expr: &str, table: bool) -> Result<String, String> {
    if let Ok(case) = crate::case::Case::parse(expr, "eval") {
        if case.print_svg_arg().is_some() {
            // `print_svg(X)` is CuTe's picture of an MMA atom or tiled MMA, like `--svg`.
            return match crate::case::engine(&case, false).outcome {
                crate::case::Outcome::Printed(svg) => Ok(svg),
                o => Err(format!("error: {}\n", o.lines().join(" ").trim_start_matches("rejected: "))),
            };
        }
    }
    if let Some(inner) = print_layout_arg(expr) {
        // `print_layout(L)` is CuTe's grid of a rank-2 layout, like `--table`.
        return match eval(&inner).map_err(|e| format!("error: {e}\n"))? {
            Value::Layout(l) => print_layout(&l).map_err(|e| format!("error: {e}\n")),
            v => Err(format!("error: print_layout needs a layout, found {}\n", v.kind())),
        };
    }
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

/// `eval --cute` / `eval --both` (with `--table`, rank-2 layouts as print_layout grids on both sides).
fn oracle_cmd(expr: &str, both: bool, table: bool, args: &crate::oracle::OracleArgs) -> ExitCode {
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
    let mut cases = Vec::with_capacity(exprs.len());
    for (k, e) in exprs.iter().enumerate() {
        match Case::parse(e, format!("line {}", k + 1)) {
            Ok(c) => cases.push(c),
            Err(err) => {
                eprintln!("error: {e}: {err}");
                return ExitCode::FAILURE;
            }
        }
    }
    let parsed: Vec<&crate::expr::Expr> = cases.iter().map(|c| &c.expr).collect();
    let results = oracle.run_parsed(&parsed, table);
    let known = if both { crate::known::KnownDiscrepancies::load_default().unwrap_or_default() } else { Default::default() };
    let judge = Judge::for_release(&known, version_of(args), release_of(args));
    let mut ok = true;
    for (case, cute) in cases.iter().zip(&results) {
        if !both {
            for l in cute.lines() {
                println!("{l}");
            }
            ok &= matches!(cute, Outcome::Printed(_));
            continue;
        }
        let engine = judge.engine(case, table);
        let j = judge.judge(case, Origin::Adhoc, &engine, cute);
        println!("{}", case.text);
        println!("  cute:   {}", cute.lines().join("\n          "));
        println!("  engine: {}", engine.outcome.lines().join("\n          "));
        if let Some(t) = &j.triage {
            println!("  triage: {t}");
        }
        println!("{}", j.summary());
        ok &= j.agreement.agrees();
    }
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// Run `f` with the engine modelling the release the options name.
fn with_model<T>(args: &crate::oracle::OracleArgs, f: impl FnOnce() -> T) -> T {
    use crate::engine::release;
    let model = release_of(args).and_then(release::Release::model).unwrap_or(release::DEFAULT);
    release::with_release(model, f)
}

/// The CUTLASS release the oracle options name: the wheel version, or what a checkout's
/// `include/cutlass/version.h` says (`None` when it cannot be read). The engine models it, or the
/// nearest older modelled release.
pub fn release_of(args: &crate::oracle::OracleArgs) -> Option<crate::engine::release::Release> {
    match (&args.cutlass_dir, &args.cutlass_version) {
        (Some(d), _) => {
            let text = std::fs::read_to_string(d.join("include").join("cutlass").join("version.h")).ok()?;
            crate::engine::release::Release::from_version_h(&text)
        }
        (None, Some(v)) => v.parse().ok(),
        (None, None) => Some(crate::engine::release::DEFAULT),
    }
}

/// The CUTLASS version the oracle options name (the known discrepancies are matched against it).
pub fn version_of(args: &crate::oracle::OracleArgs) -> String {
    match (&args.cutlass_dir, &args.cutlass_version) {
        (Some(d), _) => format!("dir:{}", d.display()),
        (None, Some(v)) => v.clone(),
        (None, None) => crate::oracle::provision::DEFAULT_CUTLASS.to_string(),
    }
}
