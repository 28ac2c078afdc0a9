//! Command-line front end: `cutecheck eval`.

use std::io::{BufRead, Write};
use std::process::ExitCode;

use clap::{Parser, Subcommand};

use crate::case::{Case, Outcome};
use crate::engine::print_layout;
use crate::expr::{eval, eval_str, Value};
use crate::judge::Judge;

/// A line to stderr, like `eprintln!` but never a panic when stderr is a closed pipe (`2>&1 |
/// head -1`): the message is lost, the exit status still says what happened.
macro_rules! say {
    ($($t:tt)*) => {{
        let _ = writeln!(std::io::stderr(), $($t)*);
    }};
}

#[derive(Parser)]
#[command(name = "cutecheck", version, about = "CuTe's layout algebra, checked against real CuTe")]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
#[allow(clippy::large_enum_variant)] // parsed once per run
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
        /// With --svg: EXPR is an identity-tensor partition whose thread index is written THR;
        /// draw which of threads 0..N holds which coordinate (T<thread> V<element>).
        #[arg(long, value_name = "N", requires = "svg", conflicts_with = "tile")]
        threads: Option<i64>,
    },
    /// Explain one warp-wide load, `warp_access(SPACE, ELEM_BYTES, VECTOR_BYTES, DATA, THREADS)`:
    /// each thread's byte offset, the sectors (global) or the phases and colliding banks (shared).
    Access {
        /// The `warp_access(...)` expression.
        expr: String,
        /// Also draw DATA's tile (its first mode by the rest) into FILE, each cell coloured by bank
        /// (shared) or sector (global) and marked with the thread that loads it.
        #[arg(long, value_name = "FILE")]
        svg: Option<std::path::PathBuf>,
    },
    /// Explain a whole copy: every instruction of every warp of a TV layout ((thread, value) ->
    /// column-major index in DATA's domain: a TiledCopy's `tiled_copy_tv(...)`, a partition's)
    /// over DATA, each thread moving the widest vector CuTe's auto-vectorizing copy would use.
    AccessCopy {
        /// The instruction: global, shared, st_shared (see warp_access).
        space: String,
        /// Bytes per element.
        elem: i64,
        /// The data layout (plain or composition(Swizzle<B,M,S>,L)).
        data: String,
        /// The TV layout.
        tv: String,
        /// Bytes per thread and instruction instead of the widest vector.
        #[arg(long, value_name = "BYTES")]
        vector: Option<i64>,
        /// Also draw warp 0's first instruction over DATA's tile into FILE.
        #[arg(long, value_name = "FILE")]
        svg: Option<std::path::PathBuf>,
    },
    /// Print an MMA atom's (lane, value) -> (row, col) tables of A (MxK), B (NxK), C (MxN) as JSON.
    AtomTable {
        /// The atom as CuTe's C++ names it, e.g. SM80_16x8x16_F32F16F16F32_TN.
        atom: String,
    },
}

pub fn main() -> ExitCode {
    let mut cli = Cli::parse();
    // `--cutlass-dir` is resolved once, before anything runs: to the absolute include directory
    // that holds CuTe, or refused in one line.
    if let Cmd::Eval { oracle: crate::oracle::OracleArgs { cutlass_dir: Some(d), .. }, .. } = &mut cli.cmd {
        match crate::oracle::provision::resolve_cutlass_dir(d) {
            Ok(include) => *d = include,
            Err(e) => {
                say!("error: {e:#}");
                return ExitCode::FAILURE;
            }
        }
    }
    // Every command prints through this one handle; what a write error means is decided once, in
    // `printed`.
    let mut out = std::io::stdout().lock();
    let status = match cli.cmd {
        Cmd::Eval { expr, cute, both, oracle, table, .. } if cute || both => {
            oracle_cmd(&expr, both, table, &oracle, &mut out)
        }
        Cmd::Eval { expr, svg: Some(file), threads: Some(n), .. } => Ok(write_svg(&file, owners_picture(&expr, n))),
        Cmd::Eval { expr, svg: Some(file), tile, .. } => Ok(svg_cmd(&expr, &file, tile.as_deref())),
        // The engine alone models the release `--cutlass-version` / `--cutlass-dir` names (the
        // nearest older modelled release for one it does not model).
        Cmd::Eval { expr, table, unchecked: true, oracle, .. } => {
            with_model(&oracle, || crate::engine::without_definition_checks(|| eval_cmd(&expr, table, &mut out)))
        }
        Cmd::Eval { expr, table, oracle, .. } => with_model(&oracle, || eval_cmd(&expr, table, &mut out)),
        Cmd::AtomTable { atom } => atom_table_cmd(&atom, &mut out),
        Cmd::AccessCopy { space, elem, data, tv, vector, svg } => {
            match access_copy_report(&space, elem, &data, &tv, vector, svg.as_deref()) {
                Ok(text) => out.write_all(text.as_bytes()).map(|()| ExitCode::SUCCESS),
                Err(e) => {
                    say!("error: {e}");
                    Ok(ExitCode::FAILURE)
                }
            }
        }
        Cmd::Access { expr, svg } => match access_report(&expr, svg.as_deref()) {
            Ok(text) => out.write_all(text.as_bytes()).map(|()| ExitCode::SUCCESS),
            Err(e) => {
                say!("error: {e}");
                Ok(ExitCode::FAILURE)
            }
        },
    };
    printed(status.and_then(|s| out.flush().map(|()| s)))
}

/// The exit status of a command whose printing went as `status` says. A closed stdout (a reader
/// that has what it wanted, as `| head -1`) is a quiet success: the reader chose to stop, and
/// nothing was lost that it wanted. Any other write error (a full disk) is said on stderr and
/// fails, so a truncated answer is never taken for a whole one.
///
/// Why not restore SIGPIPE's default action instead: the process would die of the signal (status
/// 141 under `set -o pipefail`, not 0), without unwinding, so the oracle's temporary directories
/// would be left behind and a full disk would still pass silently.
pub fn printed(status: std::io::Result<ExitCode>) -> ExitCode {
    match status {
        Ok(s) => s,
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            say!("error: writing stdout: {e}");
            ExitCode::FAILURE
        }
    }
}

/// The picture of `--svg FILE --threads N`: each thread's identity-tensor partition (EXPR with
/// `THR` replaced by the thread index) over the coordinates it holds.
pub fn owners_picture(expr: &str, n: i64) -> Result<String, String> {
    if !expr.contains("THR") || !(1..=4096).contains(&n) {
        return Err("--threads N (1..=4096) needs THR in the expression where the thread index goes".into());
    }
    let mut parts = Vec::new();
    for t in 0..n {
        let text = expr.replace("THR", &t.to_string());
        match eval_str(&text).map_err(|e| format!("{text}: {e}"))? {
            crate::expr::Value::Atom(crate::expr::value::AtomValue::CoordTensor(p)) => parts.push(p),
            other => return Err(format!("{text}: expected an identity-tensor partition, got {}", other.kind())),
        }
    }
    crate::svg::owners_svg(&expr.replace("THR", "t"), &parts).map_err(|e| e.to_string())
}

fn write_svg(file: &std::path::Path, picture: Result<String, String>) -> ExitCode {
    match picture.and_then(|s| std::fs::write(file, s).map_err(|e| format!("writing {}: {e}", file.display()))) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            say!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

fn svg_cmd(expr: &str, file: &std::path::Path, tile: Option<&str>) -> ExitCode {
    let picture =
        eval_str(expr).map_err(|e| e.to_string()).and_then(|v| crate::svg::draw(&v, tile).map_err(|e| e.to_string()));
    match picture.and_then(|s| std::fs::write(file, s).map_err(|e| format!("writing {}: {e}", file.display()))) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            say!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

/// The report of `cutecheck access-copy` (and the picture, when asked).
pub fn access_copy_report(
    space: &str,
    elem: i64,
    data: &str,
    tv: &str,
    vector: Option<i64>,
    svg: Option<&std::path::Path>,
) -> anyhow::Result<String> {
    use crate::engine::warp_access::{self, Cost, Data, Space};
    use crate::expr::value::{AtomValue, Value};
    use std::fmt::Write as _;
    let sp = Space::parse(space).ok_or_else(|| anyhow::anyhow!("unknown instruction {space}"))?;
    if matches!(sp, Space::CpAsync { .. }) || sp.matrices().is_some() {
        anyhow::bail!("access-copy takes global, shared or st_shared (one address per thread and instruction)");
    }
    let dv = crate::expr::eval::eval_str(data)?;
    let (layout, d) = match &dv {
        Value::Layout(l) => (l.clone(), Data::Plain(l)),
        Value::Atom(AtomValue::Composed(c)) => (c.layout.clone(), Data::Swizzled(c)),
        other => anyhow::bail!("DATA must be a layout or a swizzled layout, not {}", other.kind()),
    };
    let tvl = crate::expr::eval::eval_str(tv)?.to_layout()?;
    let ca = warp_access::copy_access(sp, elem, d, &tvl, vector)?;
    let widest = warp_access::widest_vector(elem, d, &tvl)?;
    let threads = tvl.mode(0)?.size()?.value;
    let mut s = format!("copy: {space}, {elem}-byte elements, DATA {data}, TV {tv}\n");
    let _ = writeln!(
        s,
        "{threads} threads ({} warps), {} values per thread; {} bytes per thread and instruction{} (widest vector CuTe's auto-vectorizing copy would use: {} bytes)",
        ca.warps.len(),
        tvl.size()?.value / threads,
        ca.vector_bytes,
        if vector.is_some() { " (asked)" } else { "" },
        widest * elem
    );
    for (w, instrs) in ca.warps.iter().enumerate() {
        let mut sum = (0i64, 0i64, 0i64);
        for (j, (offs, c)) in instrs.iter().enumerate() {
            if w == 0 {
                let extra = match c {
                    Cost::Global(g) => format!(" ({:.0}% of the bytes moved used)", 100.0 * g.utilization()),
                    Cost::Shared(_) => {
                        format!(" (phases: {})", warp_access::phases_of(sp, offs, ca.vector_bytes).len())
                    }
                };
                let _ = writeln!(s, "warp 0 instruction {j}: {c}{extra}");
            }
            match c {
                Cost::Global(g) => {
                    sum.0 += g.sectors;
                    sum.1 += g.requests;
                    sum.2 += g.bytes;
                }
                Cost::Shared(sh) => {
                    sum.0 += sh.wavefronts;
                    sum.1 += sh.conflicts;
                }
            }
        }
        let what = if sp == Space::Global {
            format!("sectors={} requests={}", sum.0, sum.1)
        } else {
            format!("wavefronts={} conflicts={}", sum.0, sum.1)
        };
        let _ = writeln!(s, "warp {w}: {} instructions, {what}", instrs.len());
    }
    let (a, b) = ca.total();
    let what =
        if sp == Space::Global { format!("sectors={a} requests={b}") } else { format!("wavefronts={a} conflicts={b}") };
    let _ = writeln!(s, "total ({} instructions): {what}", ca.warps.len() * ca.instructions());
    if let Some(file) = svg {
        let rows = layout.mode(0)?.size()?.value;
        let cols = layout.size()?.value / rows.max(1);
        let cells = (0..rows * cols)
            .map(|i| warp_access::byte_offset(elem, d, i))
            .collect::<crate::engine::Result<Vec<i64>>>()?;
        let (offs, c) = &ca.warps[0][0];
        let title =
            format!("{space} {elem}B, {data}, TV {tv}: warp 0 instruction 0 ({} B/thread): {c}", ca.vector_bytes);
        std::fs::write(
            file,
            crate::svg::access_svg(&title, rows, cols, &cells, offs, ca.vector_bytes, sp.is_shared())?,
        )?;
        let _ = writeln!(s, "picture: {}", file.display());
    }
    Ok(s)
}

/// The report of `cutecheck access` (and the picture, when asked).
pub fn access_report(expr: &str, svg: Option<&std::path::Path>) -> anyhow::Result<String> {
    use crate::engine::warp_access::{self, Cost};
    use std::fmt::Write as _;
    let case = crate::gpu::access::AccessCase::from_expr(0, "ad hoc", expr.trim())?;
    let (offs, v) = (&case.offsets, case.vector);
    let mut s = format!("{}\n{}\n", case.expr, case.predicted()?);
    let _ = writeln!(
        s,
        "byte offsets: {}",
        offs.iter().enumerate().map(|(t, o)| format!("T{t}:{o}")).collect::<Vec<_>>().join(" ")
    );
    let global_part = |s: &mut String, offs: &[i64], g: &warp_access::GlobalCost| {
        let _ = writeln!(
            s,
            "{} useful bytes of {} moved ({:.0}%), {} request(s)",
            g.bytes,
            32 * g.sectors,
            100.0 * g.utilization(),
            g.requests
        );
        let mut sectors: std::collections::BTreeMap<i64, Vec<usize>> = std::collections::BTreeMap::new();
        for (t, o) in offs.iter().enumerate() {
            sectors.entry(o / 32).or_default().push(t);
        }
        for (sec, ts) in sectors {
            let used: std::collections::BTreeSet<i64> = ts.iter().flat_map(|&t| offs[t]..offs[t] + v).collect();
            let _ = writeln!(
                s,
                "sector {sec} (bytes {}..{}): {} of 32 bytes used, threads {ts:?}",
                sec * 32,
                sec * 32 + 32,
                used.len()
            );
        }
    };
    let shared_part = |s: &mut String, space: warp_access::Space, offs: &[i64], sh: &warp_access::SharedCost| {
        let phases = warp_access::phases_of(space, offs, v);
        let _ = writeln!(
            s,
            "{} phase(s){}, ideal {} wavefront(s), {} conflict(s)",
            phases.len(),
            if space.matrices().is_some() { " (one per 8x8 matrix)" } else { "" },
            phases.len(),
            sh.conflicts
        );
        for p in phases {
            let mut banks: std::collections::BTreeMap<i64, std::collections::BTreeMap<i64, Vec<usize>>> =
                Default::default();
            for t in p.clone() {
                for w in offs[t] / 4..=(offs[t] + v - 1) / 4 {
                    banks.entry(w % 32).or_default().entry(w).or_default().push(t);
                }
            }
            let depth = banks.values().map(|w| w.len()).max().unwrap_or(0);
            let _ = writeln!(s, "phase threads {}..{}: {depth} wavefront(s)", p.start, p.end);
            for (b, words) in banks.iter().filter(|(_, w)| w.len() > 1) {
                let ws: Vec<String> = words.iter().map(|(w, ts)| format!("word {w} (threads {ts:?})")).collect();
                let _ = writeln!(s, "  bank {b} collides: {}", ws.join(", "));
            }
        }
    };
    match case.predicted()? {
        Cost::Global(g) => global_part(&mut s, offs, &g),
        Cost::Shared(sh) => shared_part(&mut s, case.space, offs, &sh),
    }
    if let Some(file) = svg {
        let inner = case.expr.strip_prefix("warp_access(").and_then(|x| x.strip_suffix(')')).unwrap_or("");
        let crate::expr::value::Value::Tuple(args) = crate::expr::eval::eval_str(&format!("({inner})"))? else {
            anyhow::bail!("{expr}: arguments are not a tuple");
        };
        let (elem, data) = (args[1].to_int()?.value, &args[3]);
        use crate::expr::value::{AtomValue, Value};
        let (layout, data) = match data {
            Value::Layout(l) => (l.clone(), warp_access::Data::Plain(l)),
            Value::Atom(AtomValue::Composed(c)) => (c.layout.clone(), warp_access::Data::Swizzled(c)),
            other => anyhow::bail!("no picture for {}", other.kind()),
        };
        let rows = layout.mode(0)?.size()?.value;
        let cols = layout.size()?.value / rows.max(1);
        let cells = (0..rows * cols)
            .map(|i| warp_access::byte_offset(elem, data, i))
            .collect::<crate::engine::Result<Vec<i64>>>()?;
        let title = format!("{}: {}", case.expr, case.predicted()?);
        std::fs::write(file, crate::svg::access_svg(&title, rows, cols, &cells, offs, v, case.space.is_shared())?)?;
        let _ = writeln!(s, "picture: {}", file.display());
    }
    Ok(s)
}

fn atom_table_cmd(atom: &str, out: &mut impl Write) -> std::io::Result<ExitCode> {
    // Parse the name as an expression so spacing and spelling are checked once, in one place.
    let canonical = match crate::expr::parse(atom) {
        Ok(crate::expr::Expr::Call { name, called: false, .. }) => name.to_string(),
        Ok(_) => atom.to_string(),
        Err(e) => {
            say!("error: {e}");
            return Ok(ExitCode::FAILURE);
        }
    };
    match crate::engine::atom::atom_table(&canonical).map(|t| serde_json::to_string(&t)) {
        Ok(Ok(json)) => {
            writeln!(out, "{json}")?;
            Ok(ExitCode::SUCCESS)
        }
        Ok(Err(e)) => {
            say!("error: {e}");
            Ok(ExitCode::FAILURE)
        }
        Err(e) => {
            say!("error: {e}");
            Ok(ExitCode::FAILURE)
        }
    }
}

/// The text `cutecheck eval` prints for one expression: the result (and the grid with `table`),
/// or one line starting `error:`.
pub fn eval_line(expr: &str, table: bool) -> Result<String, String> {
    let mut text = String::new();
    if eval_line_into(expr, table, &mut text, &mut Default::default()) {
        Ok(text)
    } else {
        Err(text)
    }
}

/// Writing `error: ...` and a newline into a String (which cannot fail); false, the line failed.
macro_rules! error {
    ($out:expr, $($t:tt)*) => {{
        let _ = write!($out, "error: ");
        let _ = writeln!($out, $($t)*);
        false
    }};
}

/// [`eval_line`] written into `out` (`scratch`: buffers reused from line to line): returns whether
/// it succeeded.
fn eval_line_into(expr: &str, table: bool, out: &mut String, scratch: &mut crate::expr::eval::Scratch) -> bool {
    use std::fmt::Write as _;
    // Most lines are answered in one pass over the text; the others (the whole-line forms
    // `print_svg(X)` and `print_layout(L)`, a panic) are parsed, then evaluated.
    let value = match crate::expr::eval::eval_text_in(expr, scratch) {
        Some(Err(crate::expr::EvalError::Parse(e))) => return error!(out, "{e}"),
        Some(Err(crate::expr::EvalError::Engine(e))) => Err(e),
        Some(Ok(v)) => Ok(v),
        None => match parse_then_eval(expr, out) {
            std::ops::ControlFlow::Continue(v) => v,
            std::ops::ControlFlow::Break(good) => return good,
        },
    };
    match value {
        Ok(Value::Layout(l)) if table && l.rank() == 2 => push_grid(out, print_layout(&l)),
        Ok(v) => {
            let _ = v.write_to(out);
            out.push('\n');
            true
        }
        Err(e) => error!(out, "{e}"),
    }
}

/// A `print_layout` grid (or its error) written into `out`; whether it succeeded.
fn push_grid(out: &mut String, grid: crate::engine::Result<String>) -> bool {
    use std::fmt::Write as _;
    match grid {
        Ok(g) => {
            out.push_str(&g);
            true
        }
        Err(e) => error!(out, "{e}"),
    }
}

/// A line parsed, then evaluated: its value, or (`Break(whether it succeeded)`) its whole answer
/// written into `out`: a parse error, or one of the whole-line forms `print_svg(X)` and
/// `print_layout(L)`.
fn parse_then_eval(expr: &str, out: &mut String) -> std::ops::ControlFlow<bool, crate::engine::Result<Value>> {
    use std::fmt::Write as _;
    use std::ops::ControlFlow::Break;
    // Parsed once; `print_svg(X)` and `print_layout(L)` are forms of the whole line.
    let parsed = match crate::expr::parse(expr) {
        Ok(p) => p,
        Err(e) => return Break(error!(out, "{e}")),
    };
    let form = match &parsed {
        crate::expr::Expr::Call { name, args, called: true, .. } if args.len() == 1 => name.simple(),
        _ => None,
    };
    if form == Some("print_svg") {
        // `print_svg(X)` is CuTe's picture of an MMA atom or tiled MMA, like `--svg`.
        if let Ok(case) = crate::case::Case::parse(expr, "eval") {
            return Break(match crate::case::engine(&case, false).outcome {
                crate::case::Outcome::Printed(svg) => {
                    out.push_str(&svg);
                    true
                }
                o => error!(out, "{}", o.lines().join(" ").trim_start_matches("rejected: ")),
            });
        }
    }
    if form == Some("print_layout") {
        let crate::expr::Expr::Call { args, .. } = &parsed else { unreachable!("a call") };
        // `print_layout(L)` is CuTe's grid of a rank-2 layout, like `--table`.
        let grid = match eval(&args[0]) {
            Err(e) => return Break(error!(out, "{e}")),
            Ok(Value::Layout(l)) => print_layout(&l),
            Ok(Value::Atom(crate::expr::value::AtomValue::Composed(c))) => {
                crate::engine::atom::recast::print_layout_composed(&c)
            }
            Ok(v) => return Break(error!(out, "print_layout needs a layout, found {}", v.kind())),
        };
        return Break(push_grid(out, grid));
    }
    std::ops::ControlFlow::Continue(eval(&parsed))
}

/// `eval EXPR` / `eval -`; an error writing `stdout` (a closed pipe) is returned, to [`printed`].
fn eval_cmd(expr: &str, table: bool, stdout: &mut impl Write) -> std::io::Result<ExitCode> {
    // Answers and lines go through 64 KiB buffers: a batch of thousands of lines then costs a few
    // dozen system calls, not hundreds.
    let mut out = std::io::BufWriter::with_capacity(1 << 16, stdout);
    let ok = if expr == "-" {
        eval_lines(std::io::BufReader::with_capacity(1 << 16, std::io::stdin().lock()), &mut out, table)?
    } else {
        let (text, ok) = answer(expr, table);
        out.write_all(text.as_bytes())?;
        if let Some(c) = caret(expr) {
            // Under the answer (stdout keeps one line per expression): the text and a caret.
            out.flush()?;
            eprint!("{c}");
        }
        ok
    };
    out.flush()?;
    Ok(if ok { ExitCode::SUCCESS } else { ExitCode::FAILURE })
}

/// For an expression that does not parse: the expression and a caret under the column of the
/// error (`None` when it parses, or spans lines).
pub fn caret(expr: &str) -> Option<String> {
    let e = crate::expr::parse(expr).err()?;
    if expr.contains(['\n', '\r', '\t']) {
        return None;
    }
    Some(format!("  {expr}\n  {}^ {}\n", " ".repeat(e.col.saturating_sub(1)), e.msg))
}

/// The answer to one expression: its text (ending in a newline) and whether it succeeded. A panic
/// in the engine (a bug) is answered as an `error: internal error` line instead of ending the
/// batch; the panic message still goes to stderr.
pub fn answer(line: &str, table: bool) -> (String, bool) {
    let mut text = String::new();
    let ok = answer_into(line, table, &mut text, &mut Default::default());
    (text, ok)
}

/// [`answer`] written into `out` (cleared first; `scratch`: buffers reused from line to line):
/// returns whether it succeeded.
fn answer_into(line: &str, table: bool, out: &mut String, scratch: &mut crate::expr::eval::Scratch) -> bool {
    out.clear();
    // A panic leaves `out` half written: it is cleared and the error line written instead.
    let good = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| eval_line_into(line, table, out, scratch)));
    match good {
        Ok(good) => {
            if !out.ends_with('\n') {
                out.push('\n');
            }
            good
        }
        Err(p) => {
            let msg = p
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| p.downcast_ref::<String>().cloned())
                .unwrap_or_default();
            out.clear();
            out.push_str("error: internal error (a bug in cutecheck; please report it): ");
            out.push_str(&msg.replace('\n', " "));
            out.push('\n');
            false
        }
    }
}

/// One stdin line as read by [`eval_lines`].
#[derive(Debug, PartialEq, Eq)]
pub enum Line<'a> {
    /// A line of text (without its newline), in the caller's buffer.
    Text(&'a str),
    /// A line longer than [`crate::limits::INPUT_LEN`] bytes (only its length is kept).
    TooLong(usize),
    /// A line that is not UTF-8.
    NotUtf8,
}

/// Read one line of at most `max` bytes (its newline excluded) from `r` into `buf` (cleared
/// first, reused from line to line), consuming the rest of a longer line without keeping it.
/// `None` at the end of the input; read errors other than interruptions end the input.
pub fn read_line<'b>(r: &mut impl BufRead, max: usize, buf: &'b mut Vec<u8>) -> std::io::Result<Option<Line<'b>>> {
    buf.clear();
    let mut len = 0usize;
    let mut any = false;
    loop {
        let chunk = match r.fill_buf() {
            Ok(c) => c,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if chunk.is_empty() {
            break;
        }
        any = true;
        let (part, done) = match memchr::memchr(b'\n', chunk) {
            Some(p) => (&chunk[..p], Some(p + 1)),
            None => (chunk, None),
        };
        len += part.len();
        if buf.len() <= max {
            let room = (max + 1 - buf.len()).min(part.len());
            buf.extend_from_slice(&part[..room]);
        }
        let used = done.unwrap_or(chunk.len());
        r.consume(used);
        if done.is_some() {
            break;
        }
    }
    if !any {
        return Ok(None);
    }
    if len > max {
        return Ok(Some(Line::TooLong(len)));
    }
    if buf.last() == Some(&b'\r') {
        buf.pop();
    }
    Ok(Some(match std::str::from_utf8(buf) {
        Ok(s) => Line::Text(s),
        Err(_) => Line::NotUtf8,
    }))
}

/// `eval -`: one answer per non-blank input line, in order, whatever the line holds (a line that
/// is too long or not UTF-8 gets an `error:` line naming its number); never stops early, except
/// when `out` fails (a closed pipe: nobody is left to answer), whose error is returned. Returns
/// whether every line succeeded.
///
/// Answers are flushed whenever the input buffer is empty, before the read that may wait: a
/// program (or person) that sends a line and waits for its answer gets it, while a batch on a pipe
/// still costs one write per 64 KiB of input.
pub fn eval_lines<R: std::io::Read>(
    mut input: std::io::BufReader<R>,
    out: &mut impl Write,
    table: bool,
) -> std::io::Result<bool> {
    use std::fmt::Write as _;
    let max = crate::limits::INPUT_LEN;
    let mut ok = true;
    let mut n = 0usize;
    // One buffer for every line and one for every answer, written to `out` as it comes.
    let (mut line, mut text, mut scratch) = (Vec::new(), String::new(), crate::expr::eval::Scratch::default());
    loop {
        n += 1;
        if input.buffer().is_empty() {
            out.flush()?;
        }
        match read_line(&mut input, max, &mut line) {
            Ok(None) => break,
            Ok(Some(Line::Text(l))) if l.trim().is_empty() => continue,
            Ok(Some(Line::Text(l))) => ok &= answer_into(l, table, &mut text, &mut scratch),
            Ok(Some(Line::TooLong(len))) => {
                ok = false;
                text.clear();
                let _ = writeln!(text, "error: line {n} is {len} bytes long; expressions are limited to {max} bytes");
            }
            Ok(Some(Line::NotUtf8)) => {
                ok = false;
                text.clear();
                let _ = writeln!(text, "error: line {n} is not valid UTF-8");
            }
            Err(e) => {
                // The input itself failed (not a line's content): say so; nothing more can be read.
                writeln!(out, "error: reading stdin after line {}: {e}", n - 1)?;
                return Ok(false);
            }
        }
        out.write_all(text.as_bytes())?;
    }
    Ok(ok)
}

/// The expressions of `eval`'s argument: the one given, or one per non-blank stdin line for `-`,
/// each the line's text or (a line too long or not UTF-8) the error that answers it. A failing
/// input ends the list with an error.
fn expressions(expr: &str) -> Vec<Result<String, String>> {
    if expr != "-" {
        return vec![Ok(expr.to_string())];
    }
    let (max, mut v, mut n) = (crate::limits::INPUT_LEN, Vec::new(), 0usize);
    let (mut input, mut line) = (std::io::stdin().lock(), Vec::new());
    loop {
        n += 1;
        match read_line(&mut input, max, &mut line) {
            Ok(None) => return v,
            Ok(Some(Line::Text(l))) if l.trim().is_empty() => {}
            Ok(Some(Line::Text(l))) => v.push(Ok(l.trim().to_string())),
            Ok(Some(Line::TooLong(len))) => {
                v.push(Err(format!("line {n} is {len} bytes long; expressions are limited to {max} bytes")))
            }
            Ok(Some(Line::NotUtf8)) => v.push(Err(format!("line {n} is not valid UTF-8"))),
            Err(e) => {
                v.push(Err(format!("reading stdin after line {}: {e}", n - 1)));
                return v;
            }
        }
    }
}

/// `eval --cute` / `eval --both` (with `--table`, rank-2 layouts as print_layout grids on both
/// sides): one answer per expression, in order; a line that cannot be a case is answered with an
/// `error:` line and the others still run. An error writing `out` (a closed pipe) is returned, to
/// [`printed`].
fn oracle_cmd(
    expr: &str,
    both: bool,
    table: bool,
    args: &crate::oracle::OracleArgs,
    out: &mut impl Write,
) -> std::io::Result<ExitCode> {
    let exprs = expressions(expr);
    crate::oracle::interrupt::install();
    let oracle = match crate::oracle::Oracle::new(args.options()) {
        Ok(o) => o,
        Err(e) => {
            say!("error: {e:#}");
            return Ok(ExitCode::FAILURE);
        }
    };
    let cases: Vec<Result<Case, String>> = exprs
        .into_iter()
        .enumerate()
        .map(|(k, e)| e.and_then(|e| Case::parse(&e, format!("line {}", k + 1)).map_err(|err| format!("{e}: {err}"))))
        .collect();
    let mut ok = true;
    if !both {
        let parsed: Vec<&crate::expr::Expr> = cases.iter().filter_map(|c| c.as_ref().ok()).map(|c| &c.expr).collect();
        let mut results = cute_answers(&oracle, &parsed, table).into_iter();
        for case in &cases {
            if let Err(why) = case {
                writeln!(out, "error: {why}")?;
                ok = false;
                continue;
            }
            let cute = results.next().unwrap_or_else(|| Outcome::Error("no result".into()));
            for l in cute.lines() {
                writeln!(out, "{l}")?;
            }
            ok &= matches!(cute, Outcome::Printed(_));
        }
        return Ok(interrupted().unwrap_or(if ok { ExitCode::SUCCESS } else { ExitCode::FAILURE }));
    }
    // Both sides: the cases asked and judged by the one run loop.
    let known = crate::known::KnownDiscrepancies::load_default().unwrap_or_default();
    let judge = Judge::for_release(&known, version_of(args), release_of(args));
    let tables = crate::oracle::Tables(&oracle);
    let cpp: &dyn crate::case::Oracle = if table { &tables } else { &oracle };
    let given: Vec<Case> = cases.iter().filter_map(|c| c.as_ref().ok()).cloned().collect();
    let run = crate::run::given(&judge, given, &[cpp], table);
    let cutes = run.asked.cpp().unwrap_or_default();
    let mut answers = run.plan.cases.iter().zip(&run.asked.engines).zip(cutes).zip(&run.judged.cases);
    for case in &cases {
        if let Err(why) = case {
            writeln!(out, "error: {why}")?;
            ok = false;
            continue;
        }
        let Some((((p, engine), cute), judged)) = answers.next() else { break };
        let Some(j) = &judged.engine_cpp else { break };
        writeln!(out, "{}", p.case.text)?;
        writeln!(out, "  cute:   {}", cute.lines().join("\n          "))?;
        writeln!(out, "  engine: {}", engine.outcome.lines().join("\n          "))?;
        if let Some(t) = &j.triage {
            writeln!(out, "  triage: {t}")?;
        }
        writeln!(out, "{}", j.summary())?;
        ok &= j.agreement.agrees();
    }
    Ok(interrupted().unwrap_or(if ok { ExitCode::SUCCESS } else { ExitCode::FAILURE }))
}

/// CuTe's answers to `eval --cute`'s cases, in order. Many cases off a terminal (a CI log, a
/// pipe) are asked in chunks with a progress line every few seconds on stderr (done/total, an
/// estimate: `oracle::progress`), as `cargo xtask conformance` does; one case, or a terminal, asks
/// at once.
fn cute_answers(oracle: &crate::oracle::Oracle, parsed: &[&crate::expr::Expr], table: bool) -> Vec<Outcome> {
    use crate::oracle::progress;
    if parsed.len() < 2 || !progress::stderr_is_log() {
        return oracle.run_parsed(parsed, table);
    }
    // A chunk is many batches: the compiles within it still run in parallel.
    let chunk = 64 * std::thread::available_parallelism().map_or(1, |n| n.get());
    let done = std::sync::atomic::AtomicUsize::new(0);
    let mut out = Vec::with_capacity(parsed.len());
    std::thread::scope(|s| {
        let ticking = progress::ticker(s, "eval --cute", &done, parsed.len());
        for part in parsed.chunks(chunk) {
            out.extend(oracle.run_parsed(part, table));
            done.fetch_add(part.len(), std::sync::atomic::Ordering::Relaxed);
        }
        drop(ticking);
    });
    out
}

/// After a SIGINT: one line on stderr and status 130 (what was done is printed above; the
/// unanswered cases say `error: interrupted ...`).
fn interrupted() -> Option<ExitCode> {
    crate::oracle::interrupt::requested().then(|| {
        say!("interrupted (SIGINT): the cases without an answer say so; every cached answer is whole");
        ExitCode::from(130)
    })
}

/// Run `f` with the engine modelling the release the options name.
fn with_model<T>(args: &crate::oracle::OracleArgs, f: impl FnOnce() -> T) -> T {
    use crate::engine::release;
    let model = release_of(args).and_then(release::Release::model).unwrap_or(release::DEFAULT);
    release::with_release(model, f)
}

/// The CUTLASS release the oracle options name: the wheel version, or what `cutlass/version.h`
/// says in the include directory `--cutlass-dir` resolves to (a checkout's `include/`, the
/// directory itself, a wheel's `source/include`: see
/// [`crate::oracle::provision::resolve_cutlass_dir`]; `None` when it cannot be read). The engine
/// models it, or the nearest older modelled release.
pub fn release_of(args: &crate::oracle::OracleArgs) -> Option<crate::engine::release::Release> {
    match (&args.cutlass_dir, &args.cutlass_version) {
        (Some(d), _) => {
            let include = crate::oracle::provision::resolve_cutlass_dir(d).ok()?;
            let text = std::fs::read_to_string(include.join("cutlass").join("version.h")).ok()?;
            crate::engine::release::Release::from_version_h(&text)
        }
        (None, Some(v)) => v.parse().ok(),
        (None, None) => Some(crate::engine::release::DEFAULT),
    }
}

/// The CUTLASS version the oracle options name (the known discrepancies are matched against it):
/// for `--cutlass-dir`, `dir:` and the include directory it resolves to.
pub fn version_of(args: &crate::oracle::OracleArgs) -> String {
    match (&args.cutlass_dir, &args.cutlass_version) {
        (Some(d), _) => {
            let include = crate::oracle::provision::resolve_cutlass_dir(d).unwrap_or_else(|_| d.clone());
            format!("dir:{}", include.display())
        }
        (None, Some(v)) => v.clone(),
        (None, None) => crate::oracle::provision::DEFAULT_CUTLASS.to_string(),
    }
}

#[cfg(test)]
mod caret_tests {
    #[test]
    fn a_parse_error_gets_a_caret_under_its_column() {
        let c = super::caret("coalesce((_2,_4):(_1,_2)").expect("a parse error");
        let lines: Vec<&str> = c.lines().collect();
        assert_eq!(lines[0], "  coalesce((_2,_4):(_1,_2)");
        assert_eq!(lines[1].find('^'), Some(2 + 24), "{c}");
        assert!(lines[1].contains("expected ')'"), "{c}");
        assert_eq!(super::caret("coalesce(_2:_1)"), None);
    }
}
