//! `cargo xtask gpu`: proves the MMA register layouts on real hardware.
//!
//! The Rust side takes the (lane, value) -> tile index tables for A, B and C of each atom from
//! the engine's atom table (`cutecheck atom-table ATOM`), cross-checked against the layouts CuTe
//! 4.2 prints and their evaluation by the expression language, and writes them to text files;
//! the GPU side (`cpp/gpu/run.sh`, needing nvcc and a GPU but no Rust) builds the CUDA programs
//! for the device's own architecture, runs checks 1-3 and writes `results_*.json`; the Rust side
//! then reads those and prints the summary (atom, check, max error, verdict).
//!
//! Exit codes: 0 all checks pass, 1 a check failed, 2 an error (build, CUDA, files), 3 no GPU
//! (no nvcc or nvidia-smi, or no device listed): nothing was checked.
//!
//! This file is also compiled into `tests/gpu_tables.rs` (by `#[path]`), so it depends only on
//! cutecheck, anyhow, clap, serde_json and std.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use anyhow::{anyhow, bail, Context, Result};
use cutecheck::engine::atom::atom_table;
use cutecheck::engine::IntTuple;
use cutecheck::expr::{eval_str, Value};

/// Exit code when there is no GPU to run on.
pub const NO_GPU: u8 = 3;

/// One MMA atom: CuTe's operation name, the instruction's tag in the tables file, the tile, and
/// the layouts exactly as CuTe 4.2 prints `MMA_Traits<Op>::{A,B,C}Layout` (recorded by
/// `cpp/gpu/probe_traits.cpp` in `fixtures/gpu/cute_traits_probe.txt`).
#[derive(Clone, Debug)]
pub struct AtomSpec {
    pub name: &'static str,
    pub kind: &'static str,
    pub m: i64,
    pub n: i64,
    pub k: i64,
    pub a: &'static str,
    pub b: &'static str,
    pub c: &'static str,
    /// Layouts that replace CuTe's where CuTe's are wrong, as (operand, layout): the atom is then
    /// checked twice, with CuTe's tables (where they can be made at all) and with the corrected
    /// ones, so that the hardware shows both the fault and the mapping the instruction needs.
    pub corrected: &'static [(char, &'static str)],
    /// b1 xor.popc: run in its own process (CuTe 4.2 disables it above sm_89).
    pub xor: bool,
}

const C16X8: &str = "((_4,_8),(_2,_2)):((_32,_1),(_16,_8))";
const C8X8: &str = "((_4,_8),_2):((_16,_1),_8)";

pub const ATOMS: &[AtomSpec] = &[
    AtomSpec { name: "SM80_16x8x16_F32F16F16F32_TN", kind: "m16n8k16_f32_f16", m: 16, n: 8, k: 16,
        a: "((_4,_8),(_2,_2,_2)):((_32,_1),(_16,_8,_128))", b: "((_4,_8),(_2,_2)):((_16,_1),(_8,_64))", c: C16X8,
        corrected: &[], xor: false },
    AtomSpec { name: "SM80_16x8x16_F32BF16BF16F32_TN", kind: "m16n8k16_f32_bf16", m: 16, n: 8, k: 16,
        a: "((_4,_8),(_2,_2,_2)):((_32,_1),(_16,_8,_128))", b: "((_4,_8),(_2,_2)):((_16,_1),(_8,_64))", c: C16X8,
        corrected: &[], xor: false },
    AtomSpec { name: "SM80_16x8x8_F32TF32TF32F32_TN", kind: "m16n8k8_f32_tf32", m: 16, n: 8, k: 8,
        a: "((_4,_8),(_2,_2)):((_16,_1),(_8,_64))", b: "((_4,_8),_2):((_8,_1),_32)", c: C16X8,
        corrected: &[], xor: false },
    AtomSpec { name: "SM80_16x8x32_S32S8S8S32_TN", kind: "m16n8k32_s32_s8", m: 16, n: 8, k: 32,
        a: "((_4,_8),(_4,_2,_2)):((_64,_1),(_16,_8,_256))", b: "((_4,_8),(_4,_2)):((_32,_1),(_8,_128))", c: C16X8,
        corrected: &[], xor: false },
    AtomSpec { name: "SM80_16x8x8_F16F16F16F16_TN", kind: "m16n8k8_f16_f16", m: 16, n: 8, k: 8,
        a: "((_4,_8),(_2,_2)):((_32,_1),(_16,_8))", b: "((_4,_8),_2):((_16,_1),_8)", c: C16X8,
        corrected: &[], xor: false },
    AtomSpec { name: "SM80_16x8x32_S32S4S4S32_TN", kind: "m16n8k32_s32_s4", m: 16, n: 8, k: 32,
        a: "((_4,_8),(_8,_2)):((_128,_1),(_16,_8))", b: "((_4,_8),(_8)):((_32,_1),(_8))", c: C16X8,
        corrected: &[('B', "((_4,_8),(_8)):((_64,_1),(_8))")], xor: false },
    AtomSpec { name: "SM80_16x8x64_S32S4S4S32_TN", kind: "m16n8k64_s32_s4", m: 16, n: 8, k: 64,
        a: "((_4,_8),(_8,_2,_2)):((_128,_1),(_16,_8,_512))", b: "((_4,_8),(_8,_2)):((_64,_1),(_8,_256))", c: C16X8,
        corrected: &[], xor: false },
    AtomSpec { name: "SM80_8x8x4_F64F64F64F64_TN", kind: "m8n8k4_f64", m: 8, n: 8, k: 4,
        a: "((_4,_8),_1):((_8,_1),_0)", b: "((_4,_8),_1):((_8,_1),_0)", c: C8X8,
        corrected: &[], xor: false },
    AtomSpec { name: "SM80_8x8x128_S32U1U1S32_TN_ANDPOPC", kind: "m8n8k128_b1_and", m: 8, n: 8, k: 128,
        a: "((_4,_8),_32):((_256,_1),_8)", b: "((_4,_8),_32):((_256,_1),_8)", c: C8X8,
        corrected: &[], xor: false },
    AtomSpec { name: "SM80_16x8x128_S32U1U1S32_TN_ANDPOPC", kind: "m16n8k128_b1_and", m: 16, n: 8, k: 128,
        a: "((_4,_8),(_32,_2)):((_512,_1),((_16,_8)))", b: "((_4,_8),_32):((_256,_1),_8)", c: C16X8,
        corrected: &[('A', "((_4,_8),(_32,_2)):((_512,_1),(_16,_8))")], xor: false },
    AtomSpec { name: "SM80_16x8x256_S32U1U1S32_TN_ANDPOPC", kind: "m16n8k256_b1_and", m: 16, n: 8, k: 256,
        a: "((_4,_8),(_32,_2,_2)):((_512,_1),(_16,_8,_2048))", b: "((_4,_8),(_32,_2)):((_256,_1),(_8,_1024))", c: C16X8,
        corrected: &[], xor: false },
    AtomSpec { name: "SM80_8x8x128_S32U1U1S32_TN_XORPOPC", kind: "m8n8k128_b1_xor", m: 8, n: 8, k: 128,
        a: "((_4,_8),_32):((_256,_1),_8)", b: "((_4,_8),_32):((_256,_1),_8)", c: C8X8,
        corrected: &[], xor: true },
    AtomSpec { name: "SM80_16x8x128_S32U1U1S32_TN_XORPOPC", kind: "m16n8k128_b1_xor", m: 16, n: 8, k: 128,
        a: "((_4,_8),(_32,_2)):((_512,_1),((_16,_8)))", b: "((_4,_8),_32):((_256,_1),_8)", c: C16X8,
        corrected: &[('A', "((_4,_8),(_32,_2)):((_512,_1),(_16,_8))")], xor: true },
    AtomSpec { name: "SM80_16x8x256_S32U1U1S32_TN_XORPOPC", kind: "m16n8k256_b1_xor", m: 16, n: 8, k: 256,
        a: "((_4,_8),(_32,_2,_2)):((_512,_1),(_16,_8,_2048))", b: "((_4,_8),(_32,_2)):((_256,_1),(_8,_1024))", c: C16X8,
        corrected: &[], xor: true },
];

/// The tables of one atom: entry `lane * n + value` is the column-major index into the tile
/// (A: MxK, B: NxK, C: MxN).
#[derive(Clone, Debug)]
pub struct AtomTables {
    pub spec: AtomSpec,
    pub a: Vec<i64>,
    pub b: Vec<i64>,
    pub c: Vec<i64>,
    /// Where the tables came from.
    pub source: String,
    /// A finding to report with the results (empty if none).
    pub note: String,
}

impl AtomTables {
    pub fn n_a(&self) -> usize { self.a.len() / 32 }
    pub fn n_b(&self) -> usize { self.b.len() / 32 }
    pub fn n_c(&self) -> usize { self.c.len() / 32 }
}

/// A TV layout evaluated at every (lane, value): entry `lane * n + value`.
#[derive(Clone, Debug)]
pub struct TvTable {
    pub idx: Vec<i64>,
    /// Why the table is not a bijection onto the tile (None if it is).
    pub not_bijective: Option<String>,
}

/// Evaluates a TV layout at every (lane, value) with the engine, over 32 lanes x `rows*cols/32`
/// values, and checks that each index lies in the `rows x cols` tile and whether the map is a
/// bijection (it must be for a correct atom; a non-bijective table is still returned, so that
/// the hardware can show what it does).
pub fn tv_table(layout: &str, rows: i64, cols: i64) -> Result<TvTable> {
    let l = match eval_str(layout).map_err(|e| anyhow!("{layout}: {e}"))? {
        Value::Layout(l) => l,
        v => bail!("{layout}: not a layout but a {}", v.kind()),
    };
    let tile = rows * cols;
    if tile % 32 != 0 {
        bail!("{rows}x{cols} tile does not split over 32 lanes");
    }
    let nv = tile / 32;
    let size = l.size().map_err(|e| anyhow!("{layout}: {e}"))?.value;
    if size != tile {
        bail!("{layout}: size {size}, but a {rows}x{cols} tile has {tile} elements");
    }
    let mut idx = Vec::with_capacity(tile as usize);
    let mut owner: Vec<Option<(i64, i64)>> = vec![None; tile as usize];
    let mut not_bijective = None;
    for lane in 0..32 {
        for v in 0..nv {
            let i = l
                .call(&IntTuple::tuple([IntTuple::dy(lane), IntTuple::dy(v)]))
                .map_err(|e| anyhow!("{layout} at ({lane},{v}): {e}"))?
                .value;
            if !(0..tile).contains(&i) {
                bail!("{layout} at ({lane},{v}) = {i}: outside the {rows}x{cols} tile");
            }
            if let Some((l0, v0)) = owner[i as usize] {
                if not_bijective.is_none() {
                    let (r, c) = (i % rows, i / rows);
                    not_bijective = Some(format!(
                        "not a bijection: (lane {l0}, value {v0}) and (lane {lane}, value {v}) both map to index {i} = ({r},{c})"
                    ));
                }
            } else {
                owner[i as usize] = Some((lane, v));
            }
            idx.push(i);
        }
    }
    if let Some(msg) = &mut not_bijective {
        let missed = owner.iter().filter(|o| o.is_none()).count();
        msg.push_str(&format!("; {missed} of {tile} elements never loaded"));
    }
    Ok(TvTable { idx, not_bijective })
}

/// The engine's atom table (`cutecheck::engine::atom::atom_table`, also `cutecheck atom-table`)
/// of one atom as (A, B, C) column-major index tables in lane order, after checking that the
/// engine's layouts are the ones recorded from CuTe and that its maps equal the layouts evaluated
/// by the expression language.
pub fn engine_tables(spec: &AtomSpec) -> Result<[Vec<i64>; 3]> {
    let t = atom_table(spec.name).map_err(|e| anyhow!("engine atom_table({}): {e}", spec.name))?;
    if t.shape_mnk != [spec.m, spec.n, spec.k] {
        bail!("engine atom_table({}): shape {:?}, CuTe prints ({},{},{})", spec.name, t.shape_mnk, spec.m, spec.n, spec.k);
    }
    if t.lanes != (0..32).collect::<Vec<i64>>() {
        bail!("engine atom_table({}): ThrID is not the identity on 32 lanes", spec.name);
    }
    let mut out: [Vec<i64>; 3] = Default::default();
    for (slot, (op, tab, want)) in [('A', &t.a, spec.a), ('B', &t.b, spec.b), ('C', &t.c, spec.c)].into_iter().enumerate() {
        if tab.layout != want {
            bail!("engine atom_table({}): {op}Layout {} but CuTe prints {want}", spec.name, tab.layout);
        }
        let idx: Vec<i64> = tab.map.iter().flatten().map(|[r, c]| r + tab.rows * c).collect();
        let evaluated = tv_table(want, tab.rows, tab.cols)?;
        if evaluated.idx != idx {
            bail!("engine atom_table({}): {op} map differs from {want} evaluated at (lane, value)", spec.name);
        }
        out[slot] = idx;
    }
    Ok(out)
}

/// The tables of an atom: first with CuTe's own layouts, from the engine's atom table (absent
/// when the engine cannot evaluate one of the layouts), then, for an atom with corrections, with
/// the corrected layouts. Faults found in CuTe's layouts are recorded in `note` as FINDINGs.
pub fn atom_tables(spec: &AtomSpec) -> Result<Vec<AtomTables>> {
    let source = format!("cutecheck engine atom_table({}), CuTe 4.2 layouts at (lane, value)", spec.name);
    let dims = |op: char| match op {
        'A' => (spec.m, spec.k),
        'B' => (spec.n, spec.k),
        _ => (spec.m, spec.n),
    };
    let mut notes = Vec::new();
    let mut cute: Vec<Option<Vec<i64>>> = vec![None, None, None];
    match engine_tables(spec) {
        Ok(tabs) => {
            for (slot, (op, lay)) in [('A', spec.a), ('B', spec.b), ('C', spec.c)].into_iter().enumerate() {
                let (r, c) = dims(op);
                if let Some(why) = tv_table(lay, r, c)?.not_bijective {
                    notes.push(format!("FINDING: CuTe 4.2 {op}Layout {lay} is {why}"));
                }
                cute[slot] = Some(tabs[slot].clone());
            }
        }
        Err(engine_err) => {
            // Which layout the engine cannot evaluate: only a known, corrected one is accepted.
            for (slot, (op, lay)) in [('A', spec.a), ('B', spec.b), ('C', spec.c)].into_iter().enumerate() {
                let (r, c) = dims(op);
                match tv_table(lay, r, c) {
                    Ok(t) => cute[slot] = Some(t.idx),
                    Err(e) if spec.corrected.iter().any(|(o, _)| *o == op) => notes.push(format!(
                        "FINDING: CuTe 4.2 {op}Layout {lay} cannot be evaluated ({e:#}; {engine_err:#}); CuTe fails to \
                         compile any use of it (crd2idx static_assert 'Mismatched Ranks')"
                    )),
                    Err(e) => return Err(e.context(format!("{} {op}Layout", spec.name))),
                }
            }
            if cute.iter().all(Option::is_some) {
                return Err(engine_err);
            }
        }
    }
    let mut out = Vec::new();
    if cute.iter().all(Option::is_some) {
        let mut it = cute.iter().cloned().map(Option::unwrap_or_default);
        let (a, b, c) = (it.next().unwrap_or_default(), it.next().unwrap_or_default(), it.next().unwrap_or_default());
        out.push(AtomTables { spec: spec.clone(), a, b, c, source: source.clone(), note: notes.join("; ") });
    }
    if !spec.corrected.is_empty() {
        let mut parts = cute.clone();
        let mut fixes = Vec::new();
        for (op, lay) in spec.corrected {
            let (r, c) = dims(*op);
            let t = tv_table(lay, r, c).with_context(|| format!("{} corrected {op}Layout", spec.name))?;
            if let Some(why) = t.not_bijective {
                bail!("{} corrected {op}Layout {lay} is {why}", spec.name);
            }
            parts[match op { 'A' => 0, 'B' => 1, _ => 2 }] = Some(t.idx);
            fixes.push(format!("{op}Layout {lay}"));
        }
        let mut it = parts.into_iter().map(Option::unwrap_or_default);
        let (a, b, c) = (it.next().unwrap_or_default(), it.next().unwrap_or_default(), it.next().unwrap_or_default());
        let mut fixed = spec.clone();
        fixed.name = corrected_name(spec.name);
        let note = format!("{}; this entry uses the corrected {}", notes.join("; "), fixes.join(", "));
        let source = format!("{source}; corrected layouts evaluated by the engine's expression language");
        out.push(AtomTables { spec: fixed, a, b, c, source, note });
    }
    Ok(out)
}

/// The name of the corrected variant of an atom in the results.
pub fn corrected_name(name: &'static str) -> &'static str {
    // A leaked string per corrected atom (a handful, once per run) keeps AtomSpec 'static.
    Box::leak(format!("{name}(corrected)").into_boxed_str())
}

/// Swaps two values of the A table (lane 0's values 0 and 1; lane 0 and lane 1 where a lane holds
/// one value): a corrupted ALayout that check 1 must catch.
pub fn corrupt(t: &mut AtomTables) {
    let second = if t.n_a() > 1 { 1 } else { t.n_a() };
    t.a.swap(0, second);
    t.note = format!("CORRUPTED on purpose: A entries (lane 0, value 0) and ({}) swapped", if t.n_a() > 1 { "lane 0, value 1" } else { "lane 1, value 0" });
    t.source.push_str(", then corrupted");
}

/// The tables file the CUDA program reads (format: `cpp/gpu/common.hpp`, read_tables).
pub fn tables_file(tables: &[AtomTables]) -> String {
    let mut s = String::from("cutecheck-mma-tables 1\n# written by `cargo xtask gpu`; entry lane*n+value = column-major tile index\n");
    for t in tables {
        let sp = &t.spec;
        let _ = writeln!(s, "atom {} {} {} {} {} {} {} {}", sp.name, sp.kind, sp.m, sp.n, sp.k, t.n_a(), t.n_b(), t.n_c());
        let _ = writeln!(s, "source {}", t.source);
        if !t.note.is_empty() {
            let _ = writeln!(s, "note {}", t.note.replace('\n', " "));
        }
        let _ = writeln!(s, "layout A {}", sp.a);
        let _ = writeln!(s, "layout B {}", sp.b);
        let _ = writeln!(s, "layout C {}", sp.c);
        for (key, v) in [("A", &t.a), ("B", &t.b), ("C", &t.c)] {
            let nums: Vec<String> = v.iter().map(|x| x.to_string()).collect();
            let _ = writeln!(s, "{key} {}", nums.join(" "));
        }
        s.push_str("end\n");
    }
    s
}

/// The owner of each C element (column-major), as lane*100 + value, predicted by a C table.
#[allow(dead_code)] // used by tests/gpu_tables.rs
pub fn predicted_owners(c: &[i64], m: i64, n: i64) -> Vec<i64> {
    let nc = c.len() / 32;
    let mut own = vec![-1; (m * n) as usize];
    for (i, &idx) in c.iter().enumerate() {
        own[idx as usize] = (i / nc * 100 + i % nc) as i64;
    }
    own
}

/// Writes tables.txt (all but xor), tables_xor.txt and tables_corrupt.txt into `dir`, and
/// copies the GPU sources to `dir/src` so that the folder is self-contained.
pub fn prepare(dir: &Path, src: &Path) -> Result<Vec<AtomTables>> {
    std::fs::create_dir_all(dir.join("src")).with_context(|| format!("creating {}", dir.display()))?;
    let all: Vec<AtomTables> = ATOMS.iter().map(atom_tables).collect::<Result<Vec<_>>>()?.into_iter().flatten().collect();
    let (xor, plain): (Vec<_>, Vec<_>) = all.iter().cloned().partition(|t| t.spec.xor);
    let mut bad = plain.clone();
    bad.iter_mut().for_each(corrupt);
    std::fs::write(dir.join("tables.txt"), tables_file(&plain))?;
    std::fs::write(dir.join("tables_xor.txt"), tables_file(&xor))?;
    std::fs::write(dir.join("tables_corrupt.txt"), tables_file(&bad))?;
    for f in ["common.hpp", "cute_path.hpp", "fixed_traits.hpp", "mma_check.cu", "cute_gemm.cu", "run.sh"] {
        std::fs::copy(src.join(f), dir.join("src").join(f)).with_context(|| format!("copying {f}"))?;
    }
    Ok(all)
}

/// Why this machine cannot run the GPU checks, if it cannot: `nvcc` and `nvidia-smi` must be on
/// `path` and nvidia-smi must list a device.
pub fn gpu_missing(path: Option<&std::ffi::OsStr>) -> Option<String> {
    let dirs: Vec<PathBuf> = path.map(|p| std::env::split_paths(p).collect()).unwrap_or_default();
    let find = |exe: &str| dirs.iter().map(|d| d.join(exe)).find(|p| p.is_file());
    let Some(_nvcc) = find("nvcc") else { return Some("nvcc is not on PATH".into()) };
    let Some(smi) = find("nvidia-smi") else { return Some("nvidia-smi is not on PATH".into()) };
    match Command::new(smi).args(["--query-gpu=compute_cap", "--format=csv,noheader"]).output() {
        Ok(o) if o.status.success() && !String::from_utf8_lossy(&o.stdout).trim().is_empty() => None,
        Ok(o) => Some(format!("nvidia-smi lists no GPU ({})", String::from_utf8_lossy(&o.stderr).trim())),
        Err(e) => Some(format!("nvidia-smi failed: {e}")),
    }
}

/// One line of the summary.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    pub run: String,
    pub atom: String,
    pub check: String,
    pub max_err: Option<f64>,
    pub verdict: String,
    pub detail: String,
}

/// Reads the `results_*.json` files of a run folder.
pub fn read_results(dir: &Path) -> Result<(Vec<Row>, serde_json::Value)> {
    let mut rows = Vec::new();
    let mut info = serde_json::Map::new();
    for run in ["tables", "xor", "cute", "corrupt"] {
        let p = dir.join(format!("results_{run}.json"));
        if !p.exists() {
            continue;
        }
        let text = std::fs::read_to_string(&p)?;
        let v: serde_json::Value = serde_json::from_str(&text).with_context(|| format!("parsing {}", p.display()))?;
        for key in ["device", "compute_capability", "cuda_driver_api", "cuda_runtime"] {
            if let Some(x) = v.get(key) {
                info.insert(key.to_string(), x.clone());
            }
        }
        info.insert(format!("seed_{run}"), v.get("seed").cloned().unwrap_or_default());
        for r in v.get("results").and_then(|r| r.as_array()).into_iter().flatten() {
            let s = |k: &str| r.get(k).and_then(|x| x.as_str()).unwrap_or("").to_string();
            let mut detail = s("detail");
            if !s("note").is_empty() && s("check") == "table" {
                detail = format!("{detail} [{}]", s("note"));
            }
            rows.push(Row { run: run.to_string(), atom: s("atom"), check: s("check"),
                max_err: r.get("max_err").and_then(|x| x.as_f64()), verdict: s("verdict"), detail });
        }
    }
    if let Ok(d) = std::fs::read_to_string(dir.join("device.txt")) {
        for line in d.lines() {
            if let Some((k, v)) = line.split_once(": ") {
                info.insert(format!("run_{k}"), serde_json::Value::String(v.to_string()));
            }
        }
    }
    if rows.is_empty() {
        bail!("no results_*.json in {}", dir.display());
    }
    Ok((rows, serde_json::Value::Object(info)))
}

/// The printed summary table.
pub fn summary_table(rows: &[Row]) -> String {
    let findings = finding_atoms();
    let mut s = format!(
        "{:<8} {:<48} {:<11} {:<10} {:<7} {:<9} {}\n",
        "run", "atom", "check", "max error", "verdict", "expected", "detail"
    );
    for r in rows {
        let err = r.max_err.map(|e| format!("{e:.2e}")).unwrap_or_else(|| "-".into());
        let want = expected(r, &findings);
        let mark = if r.verdict == "SKIP" || want == "-" || r.verdict == want { want.to_string() } else { format!("{want} !!") };
        let _ = writeln!(s, "{:<8} {:<48} {:<11} {:<10} {:<7} {:<9} {}", r.run, r.atom, r.check, err, r.verdict, mark, r.detail);
    }
    s
}

/// CuTe atoms whose own tables carry a FINDING (a layout fault found by the engine): on hardware
/// their checks must FAIL.
pub fn finding_atoms() -> Vec<String> {
    ATOMS
        .iter()
        .filter_map(|sp| atom_tables(sp).ok())
        .flatten()
        .filter(|t| t.note.contains("FINDING") && !t.spec.name.ends_with("(corrected)"))
        .map(|t| t.spec.name.to_string())
        .collect()
}

/// What a row must show: "FAIL" for the corrupted tables' check 1 and for CuTe's own tables of
/// an atom with a finding (check 1 and check 2), "-" where either is acceptable (ownership with
/// wrong A/B tables, whose inputs then land in the wrong places), "PASS" otherwise. SKIP rows
/// are always acceptable.
pub fn expected(row: &Row, findings: &[String]) -> &'static str {
    let finding = findings.iter().any(|f| f == &row.atom);
    match (row.run.as_str(), row.check.as_str()) {
        ("corrupt", "table") => "FAIL",
        // Check 3 feeds its inputs through the A and B tables too: wrong ones spoil it.
        (_, "ownership") if finding => "-",
        ("corrupt", "ownership") => "-",
        _ if finding => "FAIL",
        _ => "PASS",
    }
}

/// Whether every row shows what it must.
pub fn verdict(rows: &[Row]) -> bool {
    let findings = finding_atoms();
    rows.iter().all(|r| {
        let want = expected(r, &findings);
        r.verdict == "SKIP" || want == "-" || r.verdict == want
    })
}

/// Reads a run folder, prints the summary, writes `summary.json`; the exit code by verdicts.
pub fn report(dir: &Path) -> Result<bool> {
    let (rows, info) = read_results(dir)?;
    println!("{}", summary_table(&rows));
    let ok = verdict(&rows);
    let json = serde_json::json!({
        "run": info,
        "all_pass": ok,
        "rows": rows.iter().map(|r| serde_json::json!({
            "run": r.run, "atom": r.atom, "check": r.check, "max_err": r.max_err,
            "verdict": r.verdict, "expected": expected(r, &finding_atoms()), "detail": r.detail })).collect::<Vec<_>>(),
    });
    std::fs::write(dir.join("summary.json"), serde_json::to_string_pretty(&json)? + "\n")?;
    println!("summary: {} ({})", if ok { "PASS" } else { "FAIL" }, dir.join("summary.json").display());
    Ok(ok)
}

#[derive(clap::Args, Debug)]
pub struct GpuArgs {
    /// Run check 1 on deliberately corrupted A tables (two values of ALayout swapped) instead;
    /// passes when every atom's check 1 fails.
    #[arg(long)]
    pub corrupt: bool,
    /// Run the normal checks and the corrupted-table run.
    #[arg(long, conflicts_with = "corrupt")]
    pub all: bool,
    /// Seed for the random inputs (default: fresh each run; printed).
    #[arg(long)]
    pub seed: Option<u64>,
    /// Work folder for tables, binaries and results.
    #[arg(long, default_value = "target/gpu")]
    pub work: PathBuf,
    /// Only write the tables and sources into this folder (for running run.sh elsewhere).
    #[arg(long, value_name = "DIR")]
    pub prepare: Option<PathBuf>,
    /// Only read the results in this folder (e.g. a recorded run) and print the summary.
    #[arg(long, value_name = "DIR")]
    pub report: Option<PathBuf>,
}

/// CuTe's include directory: `$CUTE_INCLUDE`, else CUTLASS 4.2 as the oracle provisions it.
pub fn cute_include() -> Result<PathBuf> {
    let include = match std::env::var_os("CUTE_INCLUDE") {
        Some(p) => PathBuf::from(p),
        None => {
            use cutecheck::oracle::provision::{Provisioner, DEFAULT_CUTLASS};
            Provisioner::new()?.cutlass(DEFAULT_CUTLASS).context("provisioning CuTe (or set CUTE_INCLUDE)")?.include_dir
        }
    };
    if !include.join("cute/tensor.hpp").is_file() {
        bail!("CuTe headers not found at {} (set CUTE_INCLUDE)", include.display());
    }
    Ok(include)
}

/// The checkout whose `cpp/gpu` is used: the current directory if it has one (so that a copied
/// xtask binary works in a copied checkout), else the one this xtask was built from.
fn repo_root() -> PathBuf {
    if let Ok(cwd) = std::env::current_dir() {
        if cwd.join("cpp/gpu/run.sh").is_file() {
            return cwd;
        }
    }
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().map(Path::to_path_buf).unwrap_or_else(|| PathBuf::from("."))
}

pub fn main(args: GpuArgs) -> ExitCode {
    match run(args) {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(2)
        }
    }
}

fn run(args: GpuArgs) -> Result<u8> {
    let root = repo_root();
    let src = root.join("cpp/gpu");
    if let Some(dir) = &args.report {
        return Ok(if report(dir)? { 0 } else { 1 });
    }
    if let Some(dir) = &args.prepare {
        let tables = prepare(dir, &src)?;
        for t in tables.iter().filter(|t| !t.note.is_empty()) {
            println!("{}: {}", t.spec.name, t.note);
        }
        println!("wrote tables and sources to {}", dir.display());
        return Ok(0);
    }
    if let Some(why) = gpu_missing(std::env::var_os("PATH").as_deref()) {
        println!("no GPU: {why}; nothing was checked (exit {NO_GPU})");
        return Ok(NO_GPU);
    }
    let include = cute_include()?;
    let work = if args.work.is_absolute() { args.work.clone() } else { root.join(&args.work) };
    for old in ["results_tables.json", "results_xor.json", "results_cute.json", "results_corrupt.json"] {
        let _ = std::fs::remove_file(work.join(old));
    }
    prepare(&work, &src)?;
    let mode = if args.all { "all" } else if args.corrupt { "corrupt" } else { "normal" };
    let mut cmd = Command::new("bash");
    cmd.arg(work.join("src/run.sh")).arg(work.join("src")).arg(&work).arg(&include).arg(mode);
    if let Some(s) = args.seed {
        cmd.arg(s.to_string());
    }
    let status = cmd.status().context("running run.sh")?;
    match status.code() {
        Some(3) => {
            println!("no GPU (run.sh); nothing was checked (exit {NO_GPU})");
            return Ok(NO_GPU);
        }
        Some(2) | None => {
            eprintln!("run.sh failed ({status}); see the logs in {}", work.display());
            let _ = report(&work);
            return Ok(2);
        }
        _ => {}
    }
    Ok(if report(&work)? { 0 } else { 1 })
}
