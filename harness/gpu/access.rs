//! The GPU check of `warp_access` (`cargo xtask gpu --access`): random warp-wide loads, each
//! written as the `warp_access(...)` expression it is, run one kernel per case under Nsight
//! Compute on the device (`cpp/gpu/access_check.cu`, `cpp/gpu/access_run.sh`), and ncu's counters
//! compared with the engine's figures.
//!
//! The cases are built by construction from a seed ([`random_cases`]): plain tiles (column- or
//! row-major, padded), bit-structured layouts (every mode of extent 2 with a random stride, so
//! that thread layouts with stride-0 modes give broadcasts and multicasts over arbitrary address
//! patterns), swizzled tiles `composition(Swizzle<B,M,S>, tile)`, the GMMA shared-memory atoms
//! `GMMA::Layout_{K,MN}_{INTER,SW32,SW64,SW128}_Atom<T>`, and the partitions of the chapter's
//! 16x8 tile; elements of 1 to 16 bytes, vectors of 1 to 16 bytes, both spaces. The byte offsets
//! sent to the GPU are the engine's `lane_offsets` of the expression; the counters are ncu's.
//!
//! Files: `cases.txt` (what the xtask writes for the device: `ID SPACE VECTOR_BYTES O0..O31`),
//! `expressions.txt` (`ID<TAB>warp_access(...)`), `ncu.csv` (ncu's raw page, one row per launch,
//! in launch order), read by [`read_counters`]; [`compare`] gives each case's verdict.

use std::collections::BTreeMap;

use anyhow::{bail, Context, Result};

use crate::engine::warp_access::{self, Cost, Space};
use crate::expr::eval::eval_str;
use crate::expr::value::Value;

/// The four ncu metrics, in the order [`Counters`] holds them.
pub const METRICS: [&str; 4] = [
    "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
    "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
];

/// Offsets stay below these (the limits `access_check.cu` allocates).
pub const GLOBAL_LIMIT: i64 = 64 << 20;
pub const SHARED_LIMIT: i64 = 200 * 1024;

/// One case: the expression and what the GPU is sent.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AccessCase {
    pub id: usize,
    /// The family it was drawn from (tile, bits, swizzle, gmma, chapter).
    pub family: &'static str,
    pub expr: String,
    pub space: Space,
    pub elem: i64,
    pub vector: i64,
    pub offsets: Vec<i64>,
}

impl AccessCase {
    /// The case from its expression: the engine's lane offsets.
    pub fn from_expr(id: usize, family: &'static str, expr: &str) -> Result<AccessCase> {
        let inner = expr
            .strip_prefix("warp_access(")
            .and_then(|s| s.strip_suffix(')'))
            .with_context(|| format!("not a warp_access expression: {expr}"))?;
        // Evaluate the arguments as a tuple: the same values the operation receives.
        let v = eval_str(&format!("({inner})")).map_err(|e| anyhow::anyhow!("{expr}: {e}"))?;
        let Value::Tuple(args) = v else { bail!("{expr}: arguments are not a tuple") };
        if args.len() != 5 {
            bail!("{expr}: warp_access takes 5 arguments");
        }
        let (space, vector, offsets) =
            crate::expr::builtins::atoms::warp_access_offsets(&args).map_err(|e| anyhow::anyhow!("{expr}: {e}"))?;
        let elem = args[1].to_int().map_err(|e| anyhow::anyhow!("{e}"))?.value;
        Ok(AccessCase { id, family, expr: expr.to_string(), space, elem, vector, offsets })
    }
    /// The engine's figures.
    pub fn predicted(&self) -> Result<Cost> {
        warp_access::cost(self.space, &self.offsets, self.vector).map_err(|e| anyhow::anyhow!("{}: {e}", self.expr))
    }
    /// The line of `cases.txt`.
    pub fn device_line(&self) -> String {
        let sp = if self.space == Space::Global { 'g' } else { 's' };
        let offs: Vec<String> = self.offsets.iter().map(|o| o.to_string()).collect();
        format!("{} {} {} {}", self.id, sp, self.vector, offs.join(" "))
    }
}

/// splitmix64.
pub struct Rng(pub u64);

impl Rng {
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in `0..n`.
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n.max(1)
    }
    pub fn pick<T: Copy>(&mut self, xs: &[T]) -> T {
        xs[self.below(xs.len() as u64) as usize]
    }
    pub fn chance(&mut self, p_percent: u64) -> bool {
        self.below(100) < p_percent
    }
}

fn layout_text(shape: &[i64], stride: &[i64]) -> String {
    let j = |v: &[i64]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(",");
    format!("({}):({})", j(shape), j(stride))
}

/// A random factorization of 32 into 1 to 4 modes.
fn thread_shape(r: &mut Rng) -> Vec<i64> {
    let mut left = 5u64; // log2(32)
    let modes = 1 + r.below(4);
    let mut shape = Vec::new();
    for m in 0..modes {
        let e = if m + 1 == modes { left } else { r.below(left + 1) };
        left -= e;
        shape.push(1i64 << e);
    }
    shape.retain(|&s| s > 1);
    if shape.is_empty() {
        shape.push(32);
    }
    shape
}

/// The element types of the GMMA atoms, by element size.
fn gmma_type(elem: i64) -> Option<&'static str> {
    match elem {
        1 => Some("uint8_t"),
        2 => Some("half_t"),
        4 => Some("float"),
        8 => Some("double"),
        _ => None,
    }
}

/// One random expression of a family (it may still be refused, e.g. misaligned: the caller draws again).
fn draw(r: &mut Rng, family: &'static str) -> String {
    let space = if family == "gmma" || r.chance(50) { "shared" } else { "global" };
    let vector = r.pick(&[1i64, 2, 4, 8, 16, 8, 16]); // 8 and 16 twice: the merged shared phases
    let elems: Vec<i64> = warp_access::VECTOR_WIDTHS.iter().copied().filter(|&e| e <= vector).collect();
    let elem = if family == "gmma" { r.pick(&elems[..elems.len().min(4)]) } else { r.pick(&elems) };
    let k = vector / elem; // elements per vector
    let tshape = thread_shape(r);
    let (data, rows, cols) = match family {
        "bits" => {
            // Every mode of extent 2, strides random (multiples of k): arbitrary address patterns.
            let n = 5 + r.below(4) as usize;
            let strides: Vec<i64> =
                (0..n).map(|_| k * r.pick(&[0i64, 1, 2, 4, 8, 16, 32, 64, 3, 5, 24, 40, 128, 256, 96])).collect();
            let tiles = vec![2i64; n];
            (layout_text(&tiles, &strides), 1i64 << n, 1)
        }
        "gmma" => {
            let t = gmma_type(elem).unwrap_or("half_t");
            let major = r.pick(&["K", "MN"]);
            let kind = r.pick(&["INTER", "SW32", "SW64", "SW128"]);
            let b = ["INTER", "SW32", "SW64", "SW128"].iter().position(|x| *x == kind).unwrap_or(0) as i64;
            let w = (128i64 << b) * 8 / (8 * gmma_type(elem).map(|_| elem).unwrap_or(2));
            let (rows, cols) = if major == "K" { (8, w) } else { (w, 8) };
            (format!("GMMA::Layout_{major}_{kind}_Atom<{t}>"), rows, cols)
        }
        _ => {
            let rows = k * r.pick(&[1i64, 2, 4, 8, 16, 32, 64]);
            let cols = r.pick(&[1i64, 2, 4, 8, 16, 32, 64]);
            let pad = k * r.pick(&[0i64, 0, 0, 1, 2, 4, 8, 16]);
            let col_major = family == "chapter" || r.chance(50);
            let tile = if col_major {
                layout_text(&[rows, cols], &[1, rows + pad])
            } else {
                layout_text(&[rows, cols], &[cols + pad, 1])
            };
            let tile = if family == "swizzle" {
                let b = r.below(4) as i64;
                let m = (k.trailing_zeros() as i64) + r.below(4) as i64;
                let s = b.max(1) + r.below(3) as i64;
                format!("composition(Swizzle<{b},{m},{s}>,{tile})")
            } else {
                tile
            };
            (tile, rows, cols)
        }
    };
    // Thread strides: steps along the rows (by whole vectors), along the columns, or 0 (broadcast).
    let size = rows * cols;
    let tstride: Vec<i64> = tshape
        .iter()
        .map(|_| match r.below(10) {
            0 => 0,
            1 if family == "bits" => 0,
            1..=4 => k * r.pick(&[1i64, 1, 2, 4]),
            5..=7 => rows * r.pick(&[1i64, 1, 2, 3]),
            _ => (k * r.below(size as u64 / k as u64 + 1) as i64).max(0),
        })
        .collect();
    let threads = layout_text(&tshape, &tstride);
    format!("warp_access({space}, {elem}, {vector}, {data}, {threads})")
}

/// The chapter's cases (its 16x8 column-major fp32 tile), first in every run.
pub const CHAPTER: [&str; 3] = [
    "warp_access(global, 4, 4, (16,8):(1,16), (8,4):(2,32))",
    "warp_access(global, 4, 4, (16,8):(1,16), (16,2):(1,16))",
    "warp_access(global, 4, 8, (16,8):(1,16), (8,4):(2,32))",
];

/// `n` random cases from `seed` (after the chapter's, on both spaces), each one the engine accepts
/// and the device can run.
pub fn random_cases(seed: u64, n: usize) -> Result<Vec<AccessCase>> {
    let mut out = Vec::with_capacity(n + 6);
    for e in CHAPTER {
        out.push(AccessCase::from_expr(out.len(), "chapter", e)?);
        let shared = e.replace("global", "shared");
        out.push(AccessCase::from_expr(out.len(), "chapter", &shared)?);
    }
    let mut r = Rng(seed);
    let families = ["tile", "tile", "bits", "bits", "bits", "swizzle", "swizzle", "gmma", "chapter"];
    let mut tries = 0usize;
    while out.len() < n + 6 {
        tries += 1;
        if tries > 200 * (n + 6) {
            bail!("could not draw {n} cases ({} drawn in {tries} tries)", out.len());
        }
        let family = r.pick(&families);
        let e = draw(&mut r, family);
        let Ok(c) = AccessCase::from_expr(out.len(), family, &e) else { continue };
        let limit = if c.space == Space::Global { GLOBAL_LIMIT } else { SHARED_LIMIT };
        if c.offsets.iter().any(|&o| o + 16 > limit) {
            continue;
        }
        out.push(c);
    }
    Ok(out)
}

/// `cases.txt` for the device.
pub fn cases_file(cases: &[AccessCase]) -> String {
    let mut s = String::from("# ID SPACE(g|s) VECTOR_BYTES O0..O31 (byte offsets of threads 0..31)\n");
    for c in cases {
        s += &c.device_line();
        s.push('\n');
    }
    s
}

/// `expressions.txt`: the record of what each case is.
pub fn expressions_file(cases: &[AccessCase]) -> String {
    let mut s = String::from("# ID\tFAMILY\twarp_access(...)\n");
    for c in cases {
        s += &format!("{}\t{}\t{}\n", c.id, c.family, c.expr);
    }
    s
}

/// Reads `expressions.txt` back into cases.
pub fn read_expressions(text: &str) -> Result<Vec<AccessCase>> {
    let fams = ["chapter", "tile", "bits", "swizzle", "gmma"];
    let mut out = Vec::new();
    for line in text.lines().filter(|l| !l.starts_with('#') && !l.trim().is_empty()) {
        let mut it = line.splitn(3, '\t');
        let (Some(id), Some(fam), Some(e)) = (it.next(), it.next(), it.next()) else { bail!("bad line: {line}") };
        let family = fams.iter().copied().find(|f| *f == fam).unwrap_or("other");
        out.push(AccessCase::from_expr(id.parse()?, family, e)?);
    }
    Ok(out)
}

/// ncu's counters of one launch.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Counters {
    pub sectors: i64,
    pub requests: i64,
    pub wavefronts: i64,
    pub conflicts: i64,
}

/// One launch as ncu saw it: the kernel's name and its counters.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Launch {
    pub kernel: String,
    pub counters: Counters,
}

/// Splits one CSV line (fields in double quotes, `""` an escaped quote).
fn csv_fields(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quoted = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, quoted) {
            ('"', true) if chars.peek() == Some(&'"') => {
                cur.push('"');
                chars.next();
            }
            ('"', _) => quoted = !quoted,
            (',', false) => out.push(std::mem::take(&mut cur)),
            _ => cur.push(c),
        }
    }
    out.push(cur);
    out
}

/// ncu's raw page (`--page raw --csv`): one row per launch, in launch order; the file may hold
/// several blocks (one per ncu process, each with its header and IDs from 0), read in order.
pub fn read_counters(csv: &str) -> Result<Vec<Launch>> {
    let mut out = Vec::new();
    let mut cols: Option<(usize, usize, Vec<usize>)> = None;
    let mut base = 0usize;
    for line in csv.lines() {
        let f = csv_fields(line);
        if f.first().map(String::as_str) == Some("ID") {
            let col =
                |name: &str| f.iter().position(|h| h == name).with_context(|| format!("ncu.csv has no column {name}"));
            cols = Some((col("ID")?, col("Kernel Name")?, METRICS.iter().map(|m| col(m)).collect::<Result<_>>()?));
            base = out.len();
            continue;
        }
        let Some((id_col, kname, mcols)) = &cols else { continue };
        // The units row follows the header; ncu's own messages are not rows.
        let Some(Ok(id)) = f.get(*id_col).map(|s| s.parse::<usize>()) else { continue };
        let num = |i: usize| -> Result<i64> {
            let s = f.get(i).map(|s| s.replace(',', "")).unwrap_or_default();
            s.trim().parse::<f64>().map(|x| x as i64).with_context(|| format!("ncu.csv: not a number: {s:?} in {line}"))
        };
        let c = Counters {
            sectors: num(mcols[0])?,
            requests: num(mcols[1])?,
            wavefronts: num(mcols[2])?,
            conflicts: num(mcols[3])?,
        };
        if base + id != out.len() {
            bail!("ncu.csv: launch {id} of a block out of order");
        }
        out.push(Launch { kernel: f[*kname].clone(), counters: c });
    }
    if cols.is_none() {
        bail!("ncu.csv has no header row");
    }
    Ok(out)
}

/// `counters.tsv`: the launches as read from ncu.csv (launch number, kernel, the four counters),
/// the form the recorded run keeps (ncu's raw page repeats the device's attributes on every row).
pub fn counters_file(launches: &[Launch]) -> String {
    let mut s = String::from("# launch\tkernel\tsectors\trequests\twavefronts\tconflicts (ncu: ");
    s += &METRICS.join(", ");
    s += ")\n";
    for (i, l) in launches.iter().enumerate() {
        let k = l.kernel.split('(').next().unwrap_or(&l.kernel).trim_start_matches("void ").trim();
        let c = l.counters;
        s += &format!("{i}\t{k}\t{}\t{}\t{}\t{}\n", c.sectors, c.requests, c.wavefronts, c.conflicts);
    }
    s
}

/// Reads `counters.tsv`.
pub fn read_counters_file(text: &str) -> Result<Vec<Launch>> {
    let mut out = Vec::new();
    for line in text.lines().filter(|l| !l.starts_with('#') && !l.trim().is_empty()) {
        let f: Vec<&str> = line.split('\t').collect();
        if f.len() != 6 || f[0].parse::<usize>().ok() != Some(out.len()) {
            bail!("counters.tsv: bad line {line:?}");
        }
        let n = |i: usize| f[i].parse::<i64>().with_context(|| format!("counters.tsv: {line:?}"));
        out.push(Launch {
            kernel: f[1].to_string(),
            counters: Counters { sectors: n(2)?, requests: n(3)?, wavefronts: n(4)?, conflicts: n(5)? },
        });
    }
    Ok(out)
}

/// A case's verdict: the engine's figures against the counters.
#[derive(Clone, Debug)]
pub struct Compared {
    pub case: AccessCase,
    pub predicted: Cost,
    pub measured: Counters,
    pub agrees: bool,
}

/// Compares every case with its launch (cases and launches in the same order; the kernel's
/// template arguments must name the case's width and space).
pub fn compare(cases: &[AccessCase], launches: &[Launch]) -> Result<Vec<Compared>> {
    if cases.len() != launches.len() {
        bail!("{} cases but {} launches measured", cases.len(), launches.len());
    }
    let mut out = Vec::with_capacity(cases.len());
    for (c, l) in cases.iter().zip(launches) {
        let want = format!("warp_load<{}, {}>", c.vector, (c.space == Space::Shared) as u8);
        if !l.kernel.contains(&want) {
            bail!("case {}: launch is {}, not {want}", c.id, l.kernel);
        }
        let p = c.predicted()?;
        let m = l.counters;
        let agrees = match p {
            Cost::Global(g) => g.sectors == m.sectors && g.requests == m.requests && m.wavefronts == 0,
            Cost::Shared(s) => s.wavefronts == m.wavefronts && s.conflicts == m.conflicts && m.sectors == 0,
        };
        out.push(Compared { case: c.clone(), predicted: p, measured: m, agrees });
    }
    Ok(out)
}

/// Counts by (space, vector bytes): cases and agreements.
pub fn tally(rows: &[Compared]) -> BTreeMap<(&'static str, i64), (usize, usize)> {
    let mut t = BTreeMap::new();
    for r in rows {
        let e = t.entry((r.case.space.name(), r.case.vector)).or_insert((0, 0));
        e.0 += 1;
        e.1 += r.agrees as usize;
    }
    t
}
