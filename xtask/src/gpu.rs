//! `cargo xtask gpu`: proves the engine's MMA and copy atom layouts on real hardware.
//!
//! The atom list comes from the engine: every MMA atom it knows (`mma_atom_names`: SM61, SM70,
//! SM75, SM80, SM89, SM90 mma.sync and the SM90 GMMA families) and the warp-wide copy atoms
//! (ldmatrix, stmatrix, movmatrix) and cp.async. For each atom the Rust side either writes a
//! check (the engine's (thread, value) tables, the instruction's PTX spelled from the atom's name,
//! shared-memory offsets and descriptors from the engine's GMMA smem layout atoms) or lists it as
//! skipped with the reason. No layout is written here: the tables are the engine's, and the
//! corrections used where CuTe's traits are wrong are data (`fixtures/gpu/corrections.txt`).
//!
//! The GPU side (`cpp/gpu/run.sh`, nvcc and a GPU, no Rust) builds the CUDA programs, partly
//! generated into the work folder (`gen_*.cuh`, `cute_part*.cu`), runs them and writes
//! `results_*.json`; the Rust side then prints the summary: every atom, every check, its verdict.
//!
//! Checks: `mma_check` (mma.sync: 1 = tables on silicon vs a float64/integer reference, 3 =
//! ownership of each accumulator register); `cute_gemm` (2 = CuTe's make_tiled_mma + gemm);
//! `gmma_check` (wgmma, inline PTX: C layout and, for RS, A register layout, SS/RS, both majors,
//! smem from the engine's layout atoms; ownership); `copy_check` (ldmatrix/stmatrix/movmatrix: each
//! lane's registers or the destination rows against the engine's Src/Dst TV layouts; cp.async).
//!
//! Exit codes: 0 every row shows what it must, 1 a row does not, 2 an error (build, CUDA, files),
//! 3 no GPU (no nvcc or nvidia-smi, or no device listed): nothing was checked.
//!
//! This file is also compiled into `tests/gpu_tables.rs` (by `#[path]`), so it depends only on
//! cutecheck, anyhow, clap, serde_json and std.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use anyhow::{anyhow, bail, Context, Result};
use cutecheck::engine::atom::copy::copy_atom;
use cutecheck::engine::atom::mma::{mma_atom, mma_atom_names, rs_with_mn_major_a, MmaAtom, GMMA_N};
use cutecheck::engine::atom::recast::{gmma_smem_atom, Recastable};
use cutecheck::engine::{IntTuple, Tup};
use cutecheck::expr::{eval_str, Value};

/// Exit code when there is no GPU to run on.
pub const NO_GPU: u8 = 3;

/// The corrections and known disagreements (`fixtures/gpu/corrections.txt`).
const CORRECTIONS: &str = include_str!("../../fixtures/gpu/corrections.txt");

/// One line of the corrections data: a corrected layout of one operand of one atom (operand
/// `'-'`: a known disagreement with no corrected layout).
#[derive(Clone, Debug, PartialEq)]
pub struct Correction {
    pub atom: String,
    pub operand: char,
    pub layout: String,
    pub reason: String,
}

/// The corrections data, parsed.
pub fn corrections() -> Result<Vec<Correction>> {
    let mut out = Vec::new();
    for (i, line) in CORRECTIONS.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let parts: Vec<&str> = line.splitn(4, " | ").collect();
        let [atom, op, layout, reason] = parts.as_slice() else {
            bail!("fixtures/gpu/corrections.txt:{}: expected ATOM | OPERAND | LAYOUT | REASON", i + 1)
        };
        let operand = match *op {
            "A" => 'A',
            "B" => 'B',
            "C" => 'C',
            "S" => 'S',
            "D" => 'D',
            "-" => '-',
            o => bail!("fixtures/gpu/corrections.txt:{}: operand {o}", i + 1),
        };
        out.push(Correction {
            atom: atom.to_string(),
            operand,
            layout: layout.to_string(),
            reason: reason.to_string(),
        });
    }
    Ok(out)
}

/// A TV layout evaluated at every (thread, value): entry `thread * n + value`.
#[derive(Clone, Debug)]
pub struct TvTable {
    pub idx: Vec<i64>,
    /// Why the table is not a bijection onto the tile (None if it is).
    pub not_bijective: Option<String>,
}

/// Evaluates a TV layout with the engine's expression language over `threads` x
/// `rows*cols/threads` values, checks that each index lies in the `rows x cols` tile and whether
/// the map is a bijection (a non-bijective table is still returned, so that the hardware can show
/// what it does).
pub fn tv_table(layout: &str, rows: i64, cols: i64, threads: i64) -> Result<TvTable> {
    let l = match eval_str(layout).map_err(|e| anyhow!("{layout}: {e}"))? {
        Value::Layout(l) => l,
        v => bail!("{layout}: not a layout but a {}", v.kind()),
    };
    let tile = rows * cols;
    if threads <= 0 || tile % threads != 0 {
        bail!("{rows}x{cols} tile does not split over {threads} threads");
    }
    let nv = tile / threads;
    let size = l.size().map_err(|e| anyhow!("{layout}: {e}"))?.value;
    if size != tile {
        bail!("{layout}: size {size}, but a {rows}x{cols} tile has {tile} elements");
    }
    let mut idx = Vec::with_capacity(tile as usize);
    let mut owner: Vec<Option<(i64, i64)>> = vec![None; tile as usize];
    let mut not_bijective = None;
    for t in 0..threads {
        for v in 0..nv {
            let i = l
                .call(&IntTuple::tuple([IntTuple::dy(t), IntTuple::dy(v)]))
                .map_err(|e| anyhow!("{layout} at ({t},{v}): {e}"))?
                .value;
            if !(0..tile).contains(&i) {
                bail!("{layout} at ({t},{v}) = {i}: outside the {rows}x{cols} tile");
            }
            if let Some((t0, v0)) = owner[i as usize] {
                if not_bijective.is_none() {
                    let (r, c) = (i % rows, i / rows);
                    not_bijective = Some(format!(
                        "not a bijection: (thread {t0}, value {v0}) and (thread {t}, value {v}) both map to index {i} = ({r},{c})"
                    ));
                }
            } else {
                owner[i as usize] = Some((t, v));
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

// =================================================================================================
// Element types

/// The element code the C++ side uses (`cpp/gpu/common.hpp`, `Elem`) for a CuTe value type.
pub fn elem_of(cute_type: &str) -> Option<&'static str> {
    Some(match cute_type {
        "half_t" => "f16",
        "bfloat16_t" => "bf16",
        "tfloat32_t" => "tf32",
        "float" => "f32",
        "double" => "f64",
        "int8_t" => "s8",
        "uint8_t" => "u8",
        "int4b_t" => "s4",
        "uint4b_t" => "u4",
        "uint1b_t" => "b1",
        "int32_t" => "s32",
        "int16_t" => "s16",
        "float_e4m3_t" => "e4m3",
        "float_e5m2_t" => "e5m2",
        _ => return None,
    })
}

/// Width in bits of an element code.
pub fn elem_bits(code: &str) -> i64 {
    match code {
        "f64" => 64,
        "f32" | "tf32" | "s32" => 32,
        "f16" | "bf16" | "s16" => 16,
        "s8" | "u8" | "e4m3" | "e5m2" => 8,
        "s4" | "u4" => 4,
        _ => 1,
    }
}

/// The C++ spelling of a CuTe value type in generated code.
fn cpp_type(cute_type: &str) -> String {
    match cute_type {
        "float" | "double" | "int8_t" | "uint8_t" | "int16_t" | "int32_t" => cute_type.to_string(),
        t => format!("cute::{t}"),
    }
}

/// The type tokens of an MMA atom's name (`F32F16F16F32` -> F32, F16, F16, F32).
fn type_tokens(s: &str) -> Option<Vec<&str>> {
    const TOK: [&str; 15] =
        ["BF16", "TF32", "F64", "F32", "F16", "S32", "S16", "S8", "U8", "S4", "U4", "U1", "E4M3", "E5M2", "GC64"];
    let mut out = Vec::new();
    let mut rest = s;
    while !rest.is_empty() {
        let t = TOK.iter().chain(["C64"].iter()).find(|t| rest.starts_with(**t))?;
        out.push(*t);
        rest = &rest[t.len()..];
    }
    Some(out)
}

/// A name token as the PTX type.
fn ptx_ty(tok: &str) -> &'static str {
    match tok {
        "BF16" => "bf16",
        "TF32" => "tf32",
        "F64" => "f64",
        "F32" => "f32",
        "F16" => "f16",
        "S32" => "s32",
        "S8" => "s8",
        "U8" => "u8",
        "S4" => "s4",
        "U4" => "u4",
        "U1" => "b1",
        "E4M3" => "e4m3",
        "E5M2" => "e5m2",
        _ => "?",
    }
}

// =================================================================================================
// mma.sync atoms

/// One warp-level MMA atom's check: the instruction, spelled from the atom's name, and the
/// engine's (logical thread, value) -> tile index tables (A: MxK, B: NxK, C: MxN, column-major).
#[derive(Clone, Debug)]
pub struct MmaCase {
    /// CuTe's operation name (for a corrected table: `NAME(corrected)`).
    pub name: String,
    /// CuTe's operation name itself.
    pub op: String,
    /// Identifier of the instruction in the generated code (`op<N>`).
    pub kind: String,
    pub m: i64,
    pub n: i64,
    pub k: i64,
    /// Logical threads of the atom (`size(ThrID)`) and their lanes (`ThrID(t)`).
    pub threads: i64,
    pub lanes: Vec<i64>,
    /// Copies of the atom in one warp and the lane offset between them (SM70 quad-pairs: 4 at
    /// offset 4; SM61 one-thread atoms: 32 at offset 1; else 1).
    pub groups: i64,
    pub gstride: i64,
    pub ptx: String,
    /// Element codes of A, B and C/D, and how products combine (`mul`, `and`, `xor`).
    pub ea: String,
    pub eb: String,
    pub ec: String,
    pub combine: String,
    pub layouts: [String; 3],
    pub a: Vec<i64>,
    pub b: Vec<i64>,
    pub c: Vec<i64>,
    pub source: String,
    pub note: String,
    /// CuTe's own path (check 2): the value types in C++, or why it is not run.
    pub cute: std::result::Result<[String; 3], String>,
    /// Whether this table is CuTe's own and CuTe's traits are known to be wrong (its checks must
    /// FAIL on hardware).
    pub finding: bool,
}

impl MmaCase {
    pub fn n_a(&self) -> usize {
        self.a.len() / self.threads as usize
    }
    pub fn n_b(&self) -> usize {
        self.b.len() / self.threads as usize
    }
    pub fn n_c(&self) -> usize {
        self.c.len() / self.threads as usize
    }
}

/// What happens to one atom the engine knows.
#[derive(Clone, Debug)]
pub enum Plan {
    /// mma.sync: CuTe's tables (if they can be made) and the corrected ones (if any).
    Mma(Vec<MmaCase>),
    Gmma(Box<GmmaCase>),
    Copy(CopyCase),
    Skip {
        atom: String,
        reason: String,
    },
}

/// The instruction of a warp-level atom, from its name: (PTX, combine), or why it is skipped.
fn mma_instruction(op: &str) -> std::result::Result<(String, String), String> {
    if op == "SM61_DP4A" {
        return Ok(("dp4a.s32.s32".into(), "mul".into()));
    }
    if op == "SM61_DP2A" {
        return Err("FINDING: CuTe 4.2's SM61_DP2A issues `dp2a.s32.s32`, which ptxas 13.0 rejects ('.hi/.lo' modifier \
                    required for instruction 'dp2a'; reproducer cpp/gpu/repro_dp2a.cu); PTX dp2a's b operand is 4x8-bit \
                    while the traits declare int16_t B values"
            .into());
    }
    let parts: Vec<&str> = op.split('_').collect();
    let (arch, mnk, types, lay) = match parts.as_slice() {
        [a, m, t, l, ..] => (*a, *m, *t, *l),
        _ => return Err(format!("no instruction known for {op}")),
    };
    let toks = type_tokens(types).ok_or_else(|| format!("cannot read the types of {op}"))?;
    if toks.iter().any(|t| t.ends_with("C64")) {
        return Err(
            "complex f64: CuTe's fma issues 4 (Gauss: 3) real m8n8k4/m16n8kK f64 mma.sync on the real and imaginary \
                    parts with the F64 atom's layouts; the F64 atom of the same shape is checked"
                .into(),
        );
    }
    let [d, a, b, c] = toks.as_slice() else { return Err(format!("expected 4 types in {op}")) };
    let dims: Vec<&str> = mnk.split('x').collect();
    let [m, n, k] = dims.as_slice() else { return Err(format!("no MxNxK in {op}")) };
    let la = if lay.as_bytes()[0] == b'T' { "row" } else { "col" };
    let lb = if lay.as_bytes().get(1) == Some(&b'N') { "col" } else { "row" };
    let sat = if op.ends_with("_SATURATE") { ".satfinite" } else { "" };
    let (popc, combine) = if op.ends_with("_XORPOPC") {
        (".xor.popc", "xor")
    } else if op.ends_with("_ANDPOPC") {
        (".and.popc", "and")
    } else {
        ("", "mul")
    };
    let _ = arch;
    Ok((
        format!(
            "mma.sync.aligned.m{m}n{n}k{k}.{la}.{lb}{sat}.{}.{}.{}.{}{popc}",
            ptx_ty(d),
            ptx_ty(a),
            ptx_ty(b),
            ptx_ty(c)
        ),
        combine.into(),
    ))
}

/// Why CuTe's own path (check 2) is not run for an atom on sm_90, if it is not.
fn cute_path_skip(op: &str) -> Option<String> {
    if op.ends_with("_XORPOPC") {
        return Some(
            "CuTe 4.2 compiles this atom's mma.sync only for __CUDA_ARCH__ <= 890 (CUTE_ARCH_MMA_B1_XOR_SM80_ENABLED)"
                .into(),
        );
    }
    None
}

/// The mma.sync cases of one warp-level atom.
pub fn mma_cases(atom: &MmaAtom, index: usize, fixes: &[Correction]) -> std::result::Result<Vec<MmaCase>, String> {
    let op = atom.name.clone();
    let (ptx, combine) = mma_instruction(&op)?;
    let [m, n, k] = atom.mnk().map_err(|e| e.to_string())?;
    let lanes = atom.thr_id.values().map_err(|e| e.to_string())?;
    let threads = lanes.len() as i64;
    let (groups, gstride) = match threads {
        32 => (1, 0),
        8 => (4, 4),
        1 => (32, 1),
        t => return Err(format!("{t} threads per atom: no warp arrangement known")),
    };
    let elems: Vec<&str> = atom.val_types.iter().map(|t| elem_of(t).unwrap_or("?")).collect();
    if elems.contains(&"?") {
        return Err(format!("value types {:?} not supported by the checker", atom.val_types));
    }
    let dims = |op: char| match op {
        'A' => (m, k),
        'B' => (n, k),
        _ => (m, n),
    };
    let layouts = [atom.a.to_string(), atom.b.to_string(), atom.c.to_string()];
    let my_fixes: Vec<&Correction> = fixes.iter().filter(|f| f.atom == op && f.operand != '-').collect();
    let known = fixes.iter().find(|f| f.atom == op && f.operand == '-');
    let mut notes = Vec::new();
    let mut cute: Vec<Option<Vec<i64>>> = vec![None, None, None];
    for (slot, opnd) in ['A', 'B', 'C'].into_iter().enumerate() {
        let (r, c) = dims(opnd);
        match tv_table(&layouts[slot], r, c, threads) {
            Ok(t) => {
                if let Some(why) = t.not_bijective {
                    notes.push(format!("FINDING: CuTe 4.2 {opnd}Layout {} is {why}", layouts[slot]));
                }
                cute[slot] = Some(t.idx);
            }
            Err(e) if my_fixes.iter().any(|f| f.operand == opnd) => notes.push(format!(
                "FINDING: CuTe 4.2 {opnd}Layout {} cannot be evaluated ({e:#}); CuTe fails to compile any use of it",
                layouts[slot]
            )),
            Err(e) => return Err(format!("{opnd}Layout: {e:#}")),
        }
    }
    // The engine's atom table must agree with the evaluated layouts.
    if cute.iter().all(Option::is_some) {
        let t = cutecheck::engine::atom::table::atom_table_of(atom).map_err(|e| e.to_string())?;
        for (slot, tab) in [&t.a, &t.b, &t.c].into_iter().enumerate() {
            let idx: Vec<i64> = tab.map.iter().flatten().map(|[r, c]| r + tab.rows * c).collect();
            if Some(&idx) != cute[slot].as_ref() {
                return Err(format!("engine atom_table({op}) differs from its layout evaluated at (thread, value)"));
            }
        }
    }
    if let Some(k) = known {
        notes.push(format!("FINDING: {}", k.reason));
    }
    let cute_types = match cute_path_skip(&op) {
        Some(why) => Err(why),
        None => Ok([cpp_type(&atom.val_types[1]), cpp_type(&atom.val_types[2]), cpp_type(&atom.val_types[3])]),
    };
    let base = MmaCase {
        name: op.clone(),
        op: op.clone(),
        kind: format!("op{index}"),
        m,
        n,
        k,
        threads,
        lanes,
        groups,
        gstride,
        ptx,
        ea: elems[1].into(),
        eb: elems[2].into(),
        ec: elems[3].into(),
        combine,
        layouts: layouts.clone(),
        a: vec![],
        b: vec![],
        c: vec![],
        source: format!("cutecheck engine mma_atom({op}) layouts at (thread, value)"),
        note: notes.join("; "),
        cute: cute_types,
        finding: !notes.is_empty(),
    };
    let mut out = Vec::new();
    if cute.iter().all(Option::is_some) {
        let mut c = base.clone();
        let mut it = cute.iter().cloned().map(Option::unwrap_or_default);
        (c.a, c.b, c.c) = (it.next().unwrap_or_default(), it.next().unwrap_or_default(), it.next().unwrap_or_default());
        out.push(c);
    } else if my_fixes.is_empty() {
        return Err("CuTe's layouts cannot be evaluated".into());
    }
    if !my_fixes.is_empty() {
        let mut parts = cute.clone();
        let mut c = base.clone();
        let mut fixed = Vec::new();
        for f in &my_fixes {
            let slot = match f.operand {
                'A' => 0,
                'B' => 1,
                _ => 2,
            };
            let (r, cc) = dims(f.operand);
            let t = tv_table(&f.layout, r, cc, threads).map_err(|e| format!("corrected {}Layout: {e:#}", f.operand))?;
            if let Some(why) = t.not_bijective {
                return Err(format!("corrected {}Layout {} is {why}", f.operand, f.layout));
            }
            parts[slot] = Some(t.idx);
            c.layouts[slot] = f.layout.clone();
            fixed.push(format!("{}Layout {} ({})", f.operand, f.layout, f.reason));
        }
        let mut it = parts.into_iter().map(Option::unwrap_or_default);
        (c.a, c.b, c.c) = (it.next().unwrap_or_default(), it.next().unwrap_or_default(), it.next().unwrap_or_default());
        c.name = format!("{op}(corrected)");
        c.note = format!("{}; this entry uses the corrected {}", base.note, fixed.join(", "));
        c.source =
            format!("{}; corrected layouts from fixtures/gpu/corrections.txt evaluated by the engine", base.source);
        c.finding = false;
        c.cute = match &base.cute {
            Ok(t) => Ok(t.clone()),
            Err(e) => Err(e.clone()),
        };
        out.push(c);
    }
    // CuTe's own traits that do not compile cannot run CuTe's path.
    if let Some(first) = out.first_mut() {
        if first.finding && first.note.contains("cannot be evaluated") {
            first.cute = Err("CuTe's layout does not compile".into());
        }
    }
    Ok(out)
}

/// Swaps two values of the A table (thread 0's values 0 and 1; threads 0 and 1 where a thread
/// holds one value): a corrupted ALayout that check 1 must catch.
pub fn corrupt(t: &mut MmaCase) {
    let second = if t.n_a() > 1 { 1 } else { t.n_a() };
    t.a.swap(0, second);
    t.note = format!(
        "CORRUPTED on purpose: A entries (thread 0, value 0) and ({}) swapped",
        if t.n_a() > 1 { "thread 0, value 1" } else { "thread 1, value 0" }
    );
    t.source.push_str(", then corrupted");
}

/// The tables file `mma_check` and `cute_gemm` read (format: `cpp/gpu/common.hpp`, read_tables).
pub fn tables_file(cases: &[MmaCase]) -> String {
    let mut s = String::from(
        "cutecheck-mma-tables 2\n# written by `cargo xtask gpu`; entry thread*n+value = column-major tile index\n",
    );
    for t in cases {
        let _ = writeln!(
            s,
            "atom {} {} {} {} {} {} {} {} {}",
            t.name,
            t.kind,
            t.m,
            t.n,
            t.k,
            t.threads,
            t.n_a(),
            t.n_b(),
            t.n_c()
        );
        let _ = writeln!(s, "instr {} {} {} {} {} {} {}", t.ptx, t.ea, t.eb, t.ec, t.combine, t.groups, t.gstride);
        let _ = writeln!(s, "lanes {}", t.lanes.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(" "));
        let _ = writeln!(s, "source {}", t.source);
        if !t.note.is_empty() {
            let _ = writeln!(s, "note {}", t.note.replace('\n', " "));
        }
        for (key, l) in ["A", "B", "C"].iter().zip(&t.layouts) {
            let _ = writeln!(s, "layout {key} {l}");
        }
        for (key, v) in [("A", &t.a), ("B", &t.b), ("C", &t.c)] {
            let nums: Vec<String> = v.iter().map(|x| x.to_string()).collect();
            let _ = writeln!(s, "{key} {}", nums.join(" "));
        }
        s.push_str("end\n");
    }
    s
}

/// The owner of each C element (column-major), as thread*100 + value, predicted by a C table.
#[allow(dead_code)] // used by tests/gpu_tables.rs
pub fn predicted_owners(c: &[i64], m: i64, n: i64, threads: i64) -> Vec<i64> {
    let nc = c.len() / threads as usize;
    let mut own = vec![-1; (m * n) as usize];
    for (i, &idx) in c.iter().enumerate() {
        own[idx as usize] = (i / nc * 100 + i % nc) as i64;
    }
    own
}

/// The generated instructions of the mma.sync atoms (`gen_mma_ops.cuh`): one struct per kind
/// with `fma(d, a, b, c)` on 32-bit registers, and the launcher table.
pub fn gen_mma_ops(cases: &[MmaCase]) -> String {
    let mut s = String::from(
        "// Generated by `cargo xtask gpu` from the engine's atom list: one instruction per atom.\n#pragma once\n",
    );
    let mut seen = std::collections::BTreeSet::new();
    let mut kinds = Vec::new();
    for c in cases {
        if !seen.insert(c.kind.clone()) {
            continue;
        }
        kinds.push(c.kind.clone());
        let regs = |n: usize, e: &str| ((n as i64 * elem_bits(e) + 31) / 32) as usize;
        let (ar, br, cr) = (regs(c.n_a(), &c.ea), regs(c.n_b(), &c.eb), regs(c.n_c(), &c.ec));
        let _ = writeln!(s, "// {}: {}", c.op, c.ptx);
        let _ = writeln!(s, "struct {} {{\n  static constexpr int AREGS = {ar}, BREGS = {br}, CREGS = {cr};", c.kind);
        s.push_str(
            "  __device__ static void fma(uint32_t* d, const uint32_t* a, const uint32_t* b, const uint32_t* c) {\n",
        );
        if c.ea == "f64" {
            // 64-bit operands: one double per value, from (lo, hi) register pairs.
            let (na, nb, nc) = (ar / 2, br / 2, cr / 2);
            let _ = writeln!(s, "    double A[{na}], B[{nb}], C[{nc}], D[{nc}];");
            let _ =
                writeln!(s, "    for (int i = 0; i < {na}; ++i) A[i] = __hiloint2double(int(a[2*i+1]), int(a[2*i]));");
            let _ =
                writeln!(s, "    for (int i = 0; i < {nb}; ++i) B[i] = __hiloint2double(int(b[2*i+1]), int(b[2*i]));");
            let _ =
                writeln!(s, "    for (int i = 0; i < {nc}; ++i) C[i] = __hiloint2double(int(c[2*i+1]), int(c[2*i]));");
            let list = |from: usize, n: usize| (from..from + n).map(|i| format!("%{i}")).collect::<Vec<_>>().join(",");
            let _ = writeln!(
                s,
                "    asm volatile(\"{} {{{}}}, {{{}}}, {{{}}}, {{{}}};\\n\"",
                c.ptx,
                list(0, nc),
                list(nc, na),
                list(nc + na, nb),
                list(nc + na + nb, nc)
            );
            let outs: Vec<String> = (0..nc).map(|i| format!("\"=d\"(D[{i}])")).collect();
            let mut ins: Vec<String> = (0..na).map(|i| format!("\"d\"(A[{i}])")).collect();
            ins.extend((0..nb).map(|i| format!("\"d\"(B[{i}])")));
            ins.extend((0..nc).map(|i| format!("\"d\"(C[{i}])")));
            let _ = writeln!(s, "      : {}\n      : {});", outs.join(", "), ins.join(", "));
            let _ = writeln!(
                s,
                "    for (int i = 0; i < {nc}; ++i) {{ d[2*i] = uint32_t(__double2loint(D[i])); d[2*i+1] = uint32_t(__double2hiint(D[i])); }}"
            );
        } else {
            let list = |from: usize, n: usize| (from..from + n).map(|i| format!("%{i}")).collect::<Vec<_>>().join(",");
            let operands = if c.ptx.starts_with("dp") {
                format!("{}, {}, {}, {}", list(0, cr), list(cr, ar), list(cr + ar, br), list(cr + ar + br, cr))
            } else {
                format!(
                    "{{{}}}, {{{}}}, {{{}}}, {{{}}}",
                    list(0, cr),
                    list(cr, ar),
                    list(cr + ar, br),
                    list(cr + ar + br, cr)
                )
            };
            let _ = writeln!(s, "    asm volatile(\"{} {operands};\\n\"", c.ptx);
            let outs: Vec<String> = (0..cr).map(|i| format!("\"=r\"(d[{i}])")).collect();
            let mut ins: Vec<String> = (0..ar).map(|i| format!("\"r\"(a[{i}])")).collect();
            ins.extend((0..br).map(|i| format!("\"r\"(b[{i}])")));
            ins.extend((0..cr).map(|i| format!("\"r\"(c[{i}])")));
            let _ = writeln!(s, "      : {}\n      : {});", outs.join(", "), ins.join(", "));
        }
        s.push_str("  }\n};\n");
    }
    s.push_str("\nstatic std::map<std::string, Launcher> launchers() {\n  std::map<std::string, Launcher> m;\n");
    for k in kinds {
        let _ = writeln!(s, "  m[\"{k}\"] = launch<{k}>;");
    }
    s.push_str("  return m;\n}\n");
    s
}

/// CuTe's layout as a C++ type (`((_4,_8),_2):((_16,_1),_8)` ->
/// `Layout<Shape<Shape<_4,_8>,_2>,Stride<Stride<_16,_1>,_8>>`), for the generated corrected traits.
fn cpp_layout(text: &str) -> Result<String> {
    let l = match eval_str(text).map_err(|e| anyhow!("{text}: {e}"))? {
        Value::Layout(l) => l,
        _ => bail!("{text}: not a layout"),
    };
    fn tup(t: &Tup, head: &str) -> Result<String> {
        if let Some(leaf) = t.as_leaf() {
            if !leaf.is_static {
                bail!("dynamic leaf in a trait layout");
            }
            return Ok(format!("_{}", leaf.value));
        }
        let items: Result<Vec<String>> = t.modes().iter().map(|m| tup(m, head)).collect();
        Ok(format!("{head}<{}>", items?.join(",")))
    }
    let shape = tup(&l.shape, "Shape")?;
    let stride = tup(&l.stride, "Stride")?;
    let shape = if l.shape.is_tuple() { shape } else { format!("Shape<{shape}>") };
    let stride = if l.stride.is_tuple() { stride } else { format!("Stride<{stride}>") };
    Ok(format!("Layout<{shape},{stride}>"))
}

/// The C++ type of an atom in CuTe's path: `cute::OP`, or the generated corrected type.
fn cute_op_type(c: &MmaCase) -> String {
    if c.name.ends_with("(corrected)") {
        format!("{}_FIXED", c.op)
    } else {
        format!("cute::{}", c.op)
    }
}

/// The warp grids of CuTe's path for an atom: (WM, WN) pairs and the row names. Quad-pair atoms
/// need a whole warp of quad-pairs, so they start at 2x2.
fn cute_grids(c: &MmaCase) -> Vec<(i64, i64, &'static str)> {
    match c.threads {
        8 => vec![(2, 2, "cute-1warp"), (4, 4, "cute-4warps")],
        1 => vec![(1, 1, "cute-1thread"), (2, 2, "cute-2x2")],
        _ => vec![(1, 1, "cute-1warp"), (2, 2, "cute-2x2")],
    }
}

/// The generated parts of check 2: corrected traits (`gen_fixed_traits.hpp`) and `parts`
/// translation units, each running a share of the atoms through CuTe's path.
pub fn gen_cute(cases: &[MmaCase], parts: usize) -> Result<(String, Vec<String>)> {
    let mut fixed = String::from(
        "// Generated by `cargo xtask gpu` from fixtures/gpu/corrections.txt: CuTe atoms with the faulty layout replaced,\n\
         // each a new operation type inheriting CuTe's instruction, and traits inheriting CuTe's but for that layout.\n\
         #pragma once\n#include <cute/atom/mma_traits_sm80.hpp>\n",
    );
    let fixes = corrections()?;
    let mut done = std::collections::BTreeSet::new();
    for c in cases.iter().filter(|c| c.name.ends_with("(corrected)") && c.cute.is_ok()) {
        if !done.insert(c.op.clone()) {
            continue;
        }
        let _ = writeln!(fixed, "struct {}_FIXED : cute::{} {{}};", c.op, c.op);
        let _ = writeln!(
            fixed,
            "namespace cute {{\ntemplate <>\nstruct MMA_Traits<{}_FIXED> : MMA_Traits<{}> {{",
            c.op, c.op
        );
        for f in fixes.iter().filter(|f| f.atom == c.op && f.operand != '-') {
            let _ = writeln!(fixed, "  using {}Layout = {};", f.operand, cpp_layout(&f.layout)?);
        }
        fixed.push_str("};\n}  // namespace cute\n");
    }
    let runnable: Vec<&MmaCase> = cases.iter().collect();
    let mut units = vec![String::new(); parts.max(1)];
    for (i, u) in units.iter_mut().enumerate() {
        let _ = writeln!(u, "// Generated by `cargo xtask gpu`: part {i} of CuTe's own path (check 2).\n#include \"cute_gemm_common.cuh\"\n#include \"gen_fixed_traits.hpp\"\n");
        let _ = writeln!(u, "void cute_part_{i}(std::vector<Row>& rows, const std::map<std::string, mmacheck::AtomTable>& tabs, mmacheck::Rng& rng, int trials) {{");
    }
    for (j, c) in runnable.iter().enumerate() {
        let u = &mut units[j % parts.max(1)];
        match &c.cute {
            Ok([ta, tb, tc]) => {
                for (wm, wn, label) in cute_grids(c) {
                    let _ = writeln!(
                        u,
                        "  rows.push_back(run_cute<{}, {ta}, {tb}, {tc}, {wm}, {wn}>(\"{}\", \"{label}\", tabs, rng, trials));",
                        cute_op_type(c),
                        c.name
                    );
                }
            }
            Err(why) => {
                let _ = writeln!(
                    u,
                    "  rows.push_back(Row{{\"{}\", \"cute\", \"SKIP\", {}, NAN, NAN}});",
                    c.name,
                    cpp_str(why)
                );
            }
        }
    }
    for u in &mut units {
        u.push_str("}\n");
    }
    Ok((fixed, units))
}

/// `gen_cute_parts.hpp`: the parts' declarations and the call of every part.
pub fn gen_cute_parts_header(parts: usize) -> String {
    let mut s = String::from("// Generated by `cargo xtask gpu`.\n#pragma once\n");
    for i in 0..parts {
        let _ = writeln!(s, "void cute_part_{i}(std::vector<Row>&, const std::map<std::string, mmacheck::AtomTable>&, mmacheck::Rng&, int);");
    }
    s.push_str("#define CUTE_PARTS_CALL(rows, tabs, rng, trials) \\\n");
    for i in 0..parts {
        let _ = writeln!(s, "  cute_part_{i}(rows, tabs, rng, trials); \\");
    }
    s.push_str("  ;\n");
    s
}

fn cpp_str(s: &str) -> String {
    format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))
}

// =================================================================================================
// GMMA (wgmma)

/// Shared-memory layout kind of a GMMA operand: the engine's `GMMA::Layout_{K,MN}_{kind}_Atom`.
pub const SMEM_KINDS: [&str; 4] = ["INTER", "SW32", "SW64", "SW128"];

#[allow(dead_code)] // k_major, kind and bytes: read by tests/gpu_tables.rs and plan.json readers
/// One operand in shared memory: the engine's layout atom, tiled over MN x Ktot (atoms along MN
/// first, CuTe's `tile_to_shape` order), as byte offsets, and the descriptors of its k-blocks.
#[derive(Clone, Debug)]
pub struct SmemOperand {
    /// `GMMA::Layout_K_SW64_Atom<half_t>` etc.
    pub atom: String,
    /// The engine's value of that atom, as CuTe prints it.
    pub atom_value: String,
    pub k_major: bool,
    pub kind: usize,
    /// Byte offset of element (mn, k) at index `mn + MN*k`.
    pub offsets: Vec<i64>,
    pub bytes: i64,
    /// Descriptor of k-block j (start address relative to the operand's base), and the same with
    /// LBO and SBO swapped (tried only if the first fails, to say which the hardware wants).
    pub desc: Vec<u64>,
    pub desc_alt: Vec<u64>,
}

/// One GMMA atom's check.
#[derive(Clone, Debug)]
pub struct GmmaCase {
    pub name: String,
    pub kind: String,
    pub n: i64,
    pub k: i64,
    pub ktot: i64,
    pub rs: bool,
    pub ea: String,
    pub eb: String,
    pub ec: String,
    /// The wgmma instruction, operands excluded, and the trailing immediates.
    pub ptx: String,
    pub imms: String,
    pub c_layout: String,
    pub a_layout: String,
    /// C table (128 threads x N/2 values, index m + 64 n), and for RS the A table (128 x K/2,
    /// index m + 64 k).
    pub c: Vec<i64>,
    pub a_regs: Vec<i64>,
    pub a: Option<SmemOperand>,
    pub b: SmemOperand,
}

impl GmmaCase {
    pub fn n_c(&self) -> i64 {
        self.n / 2
    }
    pub fn dregs(&self) -> i64 {
        self.n_c() * elem_bits(&self.ec) / 32
    }
}

/// The N values of the GMMA atoms run on the device (every family, both sources, every major):
/// all of the base header's.
pub const GMMA_RUN_N: [i64; 8] = GMMA_N;

fn desc(start: i64, lbo: i64, sbo: i64, kind: usize) -> u64 {
    let mode: u64 = match kind {
        0 => 0,
        1 => 3,
        2 => 2,
        _ => 1,
    };
    ((start as u64 >> 4) & 0x3fff)
        | (((lbo as u64 >> 4) & 0x3fff) << 16)
        | (((sbo as u64 >> 4) & 0x3fff) << 32)
        | (mode << 62)
}

/// The smem operand of MN rows x `ktot` columns (K-block of `k` elements), `bits`-bit values, in
/// the engine's `GMMA::Layout_{K|MN}_{kind}_Atom<type>`.
pub fn smem_operand(
    mn: i64,
    ktot: i64,
    k: i64,
    cute_type: &str,
    bits: i64,
    k_major: bool,
    kind: usize,
) -> Result<SmemOperand> {
    let name = format!("GMMA::Layout_{}_{}_Atom<{cute_type}>", if k_major { "K" } else { "MN" }, SMEM_KINDS[kind]);
    let atom = match gmma_smem_atom(&name) {
        Some(Ok(Recastable::Composed(c))) => c,
        Some(Ok(_)) => bail!("{name}: not a swizzled layout"),
        Some(Err(e)) => bail!("{name}: {e}"),
        None => bail!("{name}: unknown to the engine"),
    };
    let eb = bits / 8;
    let (ar, ac) = (atom.layout.shape.mode(0)?.product()?.value, atom.layout.shape.mode(1)?.product()?.value);
    if mn % ar != 0 || ktot % ac != 0 {
        bail!("{name} ({ar}x{ac}) does not tile {mn}x{ktot}");
    }
    let vals = atom.layout.values()?;
    let atom_elems = ar * ac;
    let atom_bytes = atom_elems * eb;
    let n_mn = mn / ar;
    let mut offsets = vec![0i64; (mn * ktot) as usize];
    for kk in 0..ktot {
        for r in 0..mn {
            let (ai, aj) = (r / ar, kk / ac);
            let base = (ai + aj * n_mn) * atom_bytes;
            let within = vals[((r % ar) + ar * (kk % ac)) as usize] * eb;
            // The swizzle of a smem_ptr_flag layout acts on byte addresses (CuTe's swizzle_ptr).
            offsets[(r + mn * kk) as usize] = base + atom.swizzle.apply(within);
        }
    }
    // Descriptors (PTX ISA, matrix descriptor; CuTe make_gmma_desc): in bytes.
    let row_bytes = (if k_major { ac } else { ar }) * eb; // 16 << kind
    let (mut d, mut alt) = (Vec::new(), Vec::new());
    for j in 0..ktot / k {
        let (start, lbo, sbo) = if k_major {
            let x = j * k * eb; // byte position along K of this k-block
            let start = (x / row_bytes) * n_mn * atom_bytes + x % row_bytes;
            if kind == 0 {
                (start, n_mn * atom_bytes, atom_bytes)
            } else {
                (start, 16, atom_bytes)
            }
        } else {
            let start = (j * k / 8) * n_mn * atom_bytes;
            if kind == 0 {
                (start, n_mn * atom_bytes, atom_bytes)
            } else {
                (start, atom_bytes, n_mn * atom_bytes)
            }
        };
        d.push(desc(start, lbo, sbo, kind));
        alt.push(desc(start, sbo, lbo, kind));
    }
    let mut seen = vec![false; (mn * ktot * eb) as usize];
    for &o in &offsets {
        for b in 0..eb {
            let i = (o + b) as usize;
            if i >= seen.len() || seen[i] {
                bail!("{name}: tiled offsets are not a bijection onto {} bytes", seen.len());
            }
            seen[i] = true;
        }
    }
    Ok(SmemOperand {
        atom: name,
        atom_value: atom.to_string(),
        k_major,
        kind,
        offsets,
        bytes: mn * ktot * eb,
        desc: d,
        desc_alt: alt,
    })
}

/// Parses a GMMA atom name: (N, K, code, RS, A K-major, B K-major, saturate).
fn gmma_parts(name: &str) -> Option<(i64, i64, String, bool, bool, bool, bool)> {
    let rest = name.strip_prefix("SM90_64x")?;
    let (head, targs) = match rest.split_once('<') {
        Some((h, t)) => (h, t.trim_end_matches('>')),
        None => (rest, ""),
    };
    let parts: Vec<&str> = head.split('_').collect();
    let (nk, code, src) = (parts.first()?, parts.get(1)?, parts.get(2)?);
    let (n, k) = nk.split_once('x')?;
    let majors: Vec<bool> = targs.split(',').filter(|a| a.contains("Major")).map(|a| a.ends_with("::K")).collect();
    let (amk, bmk) = (majors.first().copied().unwrap_or(true), majors.get(1).copied().unwrap_or(true));
    Some((n.parse().ok()?, k.parse().ok()?, code.to_string(), *src == "RS", amk, bmk, head.ends_with("_SATURATE")))
}

/// The check of one GMMA atom: the engine's C (and RS A) tables and smem operands laid out by
/// the engine's layout atoms. `index` picks the smem layout kinds (rotating through INTER, SW32,
/// SW64, SW128 over the atoms; an MN-major operand narrower than the atom gets the widest that fits).
pub fn gmma_case(name: &str, index: usize) -> Result<GmmaCase> {
    let atom = mma_atom(name).map_err(|e| anyhow!("{name}: {e}"))?;
    let (n, k, code, rs, amk, bmk, sat) = gmma_parts(&atom.name).ok_or_else(|| anyhow!("{name}: not a GMMA name"))?;
    let [m, an, ak] = atom.mnk()?;
    if m != 64 || an != n || ak != k {
        bail!("{name}: engine shape {m}x{an}x{ak}");
    }
    let et = |i: usize| elem_of(&atom.val_types[i]).ok_or_else(|| anyhow!("{name}: type {}", atom.val_types[i]));
    let (ea, eb, ec) = (et(1)?, et(2)?, et(3)?);
    let toks = type_tokens(&code).ok_or_else(|| anyhow!("{name}: types {code}"))?;
    let [d, a, b] = toks.as_slice() else { bail!("{name}: types {code}") };
    let sixteen = elem_bits(ea) == 16;
    let ptx = format!(
        "wgmma.mma_async.sync.aligned.m64n{n}k{k}.{}.{}.{}{}",
        ptx_ty(d),
        ptx_ty(a),
        ptx_ty(b),
        if sat { ".satfinite" } else { "" }
    );
    let imms = match (ea, sixteen, rs) {
        ("s8" | "u8", _, _) => String::new(),
        (_, true, false) => format!(", 1, 1, {}, {}", u8::from(!amk), u8::from(!bmk)),
        (_, true, true) => format!(", 1, 1, {}", u8::from(!bmk)),
        _ => ", 1, 1".to_string(),
    };
    let c = tv_table(&atom.c.to_string(), 64, n, 128)?;
    if let Some(why) = c.not_bijective {
        bail!("{name}: C layout {why}");
    }
    let a_regs = if rs {
        let t = tv_table(&atom.a.to_string(), 64, k, 128)?;
        if let Some(why) = t.not_bijective {
            bail!("{name}: A layout {why}");
        }
        t.idx
    } else {
        vec![]
    };
    // Smem layout kinds: rotate; K-major widths along K need ktot = the widest row.
    let bits = elem_bits(ea);
    let fit = |mn: i64, kmaj: bool, want: usize| -> usize {
        if kmaj {
            want
        } else {
            (0..=want).rev().find(|&s| mn % ((16i64 << s) * 8 / bits) == 0).unwrap_or(0)
        }
    };
    let ka = fit(64, amk, index % 4);
    let kb = fit(n, bmk, (index + 1) % 4);
    let kwidth = |kmaj: bool, kind: usize| if kmaj { (16i64 << kind) * 8 / bits } else { 8 };
    let ktot = [k, if rs { k } else { kwidth(amk, ka) }, kwidth(bmk, kb)].into_iter().max().unwrap_or(k);
    let a_type = &atom.val_types[1];
    let b_type = &atom.val_types[2];
    let a_smem = if rs { None } else { Some(smem_operand(64, ktot, k, a_type, bits, amk, ka)?) };
    let b_smem = smem_operand(n, ktot, k, b_type, bits, bmk, kb)?;
    Ok(GmmaCase {
        name: atom.name.clone(),
        kind: format!("g{index}"),
        n,
        k,
        ktot,
        rs,
        ea: ea.into(),
        eb: eb.into(),
        ec: ec.into(),
        ptx,
        imms,
        c_layout: atom.c.to_string(),
        a_layout: atom.a.to_string(),
        c: c.idx,
        a_regs,
        a: a_smem,
        b: b_smem,
    })
}

/// The tables file `gmma_check` reads.
pub fn gmma_tables_file(cases: &[GmmaCase]) -> String {
    let mut s =
        String::from("cutecheck-gmma-tables 1\n# written by `cargo xtask gpu`; offsets in bytes, descriptors as hex\n");
    let join = |v: &[i64]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(" ");
    let hex = |v: &[u64]| v.iter().map(|x| format!("{x:x}")).collect::<Vec<_>>().join(" ");
    for c in cases {
        let _ = writeln!(
            s,
            "atom {} {} {} {} {} {} {} {} {}",
            c.name,
            c.kind,
            c.n,
            c.k,
            c.ktot,
            u8::from(c.rs),
            c.ea,
            c.eb,
            c.ec
        );
        let _ = writeln!(s, "layout C {}", c.c_layout);
        let _ = writeln!(s, "layout A {}", c.a_layout);
        let _ = writeln!(s, "C {}", join(&c.c));
        if c.rs {
            let _ = writeln!(s, "AR {}", join(&c.a_regs));
        }
        for (key, op) in [("SA", c.a.as_ref()), ("SB", Some(&c.b))] {
            if let Some(op) = op {
                let _ = writeln!(s, "{key}atom {} {}", op.atom, op.atom_value.replace(' ', ""));
                let _ = writeln!(s, "{key} {}", join(&op.offsets));
                let _ = writeln!(s, "{key}desc {}", hex(&op.desc));
                let _ = writeln!(s, "{key}alt {}", hex(&op.desc_alt));
            }
        }
        s.push_str("end\n");
    }
    s
}

/// The generated wgmma instructions (`gen_gmma_ops.cuh`).
pub fn gen_gmma_ops(cases: &[GmmaCase]) -> String {
    let mut s =
        String::from("// Generated by `cargo xtask gpu`: one wgmma per GMMA atom (inline PTX).\n#pragma once\n");
    for c in cases {
        let dr = c.dregs() as usize;
        let _ = writeln!(s, "// {}", c.name);
        let _ = writeln!(
            s,
            "struct {} {{\n  static constexpr int N = {}, DREGS = {dr}, NC = {}, WC = {}, RS = {};",
            c.kind,
            c.n,
            c.n_c(),
            elem_bits(&c.ec),
            u8::from(c.rs)
        );
        s.push_str("  __device__ static void mma(uint32_t* d, const uint32_t* a, uint64_t da, uint64_t db) {\n");
        let dl = (0..dr).map(|i| format!("%{i}")).collect::<Vec<_>>().join(",");
        let (aop, mut ins, next) = if c.rs {
            (
                format!("{{%{},%{},%{},%{}}}", dr, dr + 1, dr + 2, dr + 3),
                (0..4).map(|i| format!("\"r\"(a[{i}])")).collect::<Vec<_>>(),
                dr + 4,
            )
        } else {
            (format!("%{dr}"), vec!["\"l\"(da)".to_string()], dr + 1)
        };
        ins.push("\"l\"(db)".into());
        ins.push("\"r\"(1)".into());
        let _ = writeln!(
            s,
            "    asm volatile(\"{{\\n.reg .pred p;\\nsetp.ne.b32 p, %{}, 0;\\n{} {{{dl}}}, {aop}, %{next}, p{};\\n}}\\n\"",
            next + 1,
            c.ptx,
            c.imms
        );
        let outs: Vec<String> = (0..dr).map(|i| format!("\"+r\"(d[{i}])")).collect();
        let _ = writeln!(s, "      : {}\n      : {});", outs.join(", "), ins.join(", "));
        s.push_str("  }\n};\n");
    }
    s.push_str("\nstatic std::map<std::string, GLauncher> glaunchers() {\n  std::map<std::string, GLauncher> m;\n");
    for c in cases {
        let _ = writeln!(s, "  m[\"{}\"] = glaunch<{}>;", c.kind, c.kind);
    }
    s.push_str("  return m;\n}\n");
    s
}

// =================================================================================================
// Copy atoms

/// One copy atom's check: the engine's Src and Dst TV layouts in 16-bit units (ldmatrix,
/// stmatrix, movmatrix) or the value's bits (cp.async), as logical indices per (thread, value).
#[derive(Clone, Debug)]
pub struct CopyCase {
    pub op: String,
    pub val_type: String,
    /// ldsm, stsm, movm, cpasync.
    pub kind: String,
    /// Matrices (x1/x2/x4) and transposition; for cp.async the bytes and whether it zero-fills.
    pub count: i64,
    pub trans: bool,
    pub src_layout: String,
    pub dst_layout: String,
    pub src: Vec<i64>,
    pub dst: Vec<i64>,
    pub threads: i64,
}

/// The copy atoms the device checks: every warp-wide one the engine knows with 16-bit values
/// and every cp.async op with its widest value.
pub fn copy_cases() -> Result<Vec<CopyCase>> {
    let mut out = Vec::new();
    let mut ops: Vec<(String, String)> = Vec::new();
    for (op, _) in cutecheck::engine::atom::copy::copy_atom_cases() {
        let warp = op.contains("LDSM") || op.contains("STSM") || op.contains("MOVM");
        let cp = op.starts_with("SM80_CP_ASYNC");
        if (warp || cp) && !ops.iter().any(|(o, _)| *o == op) {
            let t = if cp { "uint8_t" } else { "uint16_t" };
            ops.push((op, t.to_string()));
        }
    }
    for (op, t) in ops {
        let a = copy_atom(&op, &t).map_err(|e| anyhow!("Copy_Atom<{op},{t}>: {e}"))?;
        let nthr = a.thr_id.size()?.value;
        let eval = |l: &cutecheck::engine::Layout| -> Result<Vec<i64>> {
            let nv = l.mode(1)?.size()?.value;
            let mut v = Vec::new();
            for th in 0..nthr {
                for i in 0..nv {
                    v.push(l.call(&IntTuple::tuple([IntTuple::dy(th), IntTuple::dy(i)]))?.value);
                }
            }
            Ok(v)
        };
        let (kind, count, trans) = if op.starts_with("SM80_CP_ASYNC") {
            let bytes = if op.contains("uint128_t") {
                16
            } else if op.contains("uint64_t") {
                8
            } else {
                4
            };
            ("cpasync", bytes, op.contains("ZFILL"))
        } else {
            let x = op.split('_').nth(1).unwrap_or("");
            let count = match x {
                "U32x1" | "U16x2" => 1,
                "U32x2" | "U16x4" => 2,
                _ => 4,
            };
            let kind = if op.contains("LDSM") {
                "ldsm"
            } else if op.contains("STSM") {
                "stsm"
            } else {
                "movm"
            };
            (kind, count, op.ends_with("_T"))
        };
        let case = CopyCase {
            op: op.clone(),
            val_type: t.clone(),
            kind: kind.into(),
            count,
            trans,
            src_layout: a.src.to_string(),
            dst_layout: a.dst.to_string(),
            src: eval(&a.src)?,
            dst: eval(&a.dst)?,
            threads: nthr,
        };
        let fixes: Vec<Correction> =
            corrections()?.into_iter().filter(|f| f.atom == op && (f.operand == 'S' || f.operand == 'D')).collect();
        if !fixes.is_empty() {
            let mut fixed = case.clone();
            fixed.op = format!("{op}(corrected)");
            let bits = cutecheck::engine::atom::copy::type_bits(&t)?;
            for f in &fixes {
                let l = match eval_str(&f.layout).map_err(|e| anyhow!("{}: {e}", f.layout))? {
                    Value::Layout(l) => l,
                    _ => bail!("{}: not a layout", f.layout),
                };
                let l = cutecheck::engine::atom::copy::upcast(&l, bits)?;
                if f.operand == 'S' {
                    fixed.src = eval(&l)?;
                    fixed.src_layout = l.to_string();
                } else {
                    fixed.dst = eval(&l)?;
                    fixed.dst_layout = l.to_string();
                }
            }
            out.push(case);
            out.push(fixed);
        } else {
            out.push(case);
        }
    }
    Ok(out)
}

/// The tables file `copy_check` reads.
pub fn copy_tables_file(cases: &[CopyCase]) -> String {
    let mut s =
        String::from("cutecheck-copy-tables 1\n# written by `cargo xtask gpu`; entry thread*n+value = logical index\n");
    let join = |v: &[i64]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(" ");
    for c in cases {
        let _ = writeln!(
            s,
            "atom {} {} {} {} {} {} {} {}",
            c.op,
            c.val_type,
            c.kind,
            c.count,
            u8::from(c.trans),
            c.threads,
            c.src.len(),
            c.dst.len()
        );
        let _ = writeln!(s, "layout S {}", c.src_layout);
        let _ = writeln!(s, "layout D {}", c.dst_layout);
        let _ = writeln!(s, "S {}", join(&c.src));
        let _ = writeln!(s, "D {}", join(&c.dst));
        s.push_str("end\n");
    }
    s
}

// =================================================================================================
// The plan: every atom the engine knows

/// Every atom the engine knows and what the run does with it.
pub fn plan() -> Result<Vec<Plan>> {
    let fixes = corrections()?;
    let mut out = Vec::new();
    let mut gmma_index = 0usize;
    for (i, name) in mma_atom_names().into_iter().enumerate() {
        if name.starts_with("UniversalFMA") {
            out.push(Plan::Skip {
                atom: name,
                reason:
                    "one thread's scalar multiply-add (1x1x1, no tensor-core instruction): no register layout to prove"
                        .into(),
            });
            continue;
        }
        if name.starts_with("SM90_64x") {
            let n = gmma_parts(&name).map(|p| p.0).unwrap_or(0);
            if rs_with_mn_major_a(&name) {
                out.push(Plan::Skip {
                    atom: name,
                    reason: "RS with MN-major A: CuTe static_asserts K-major register A".into(),
                });
            } else if !GMMA_RUN_N.contains(&n) {
                out.push(Plan::Skip {
                    atom: name,
                    reason: format!(
                        "not in this run: GMMA atoms run at N in {GMMA_RUN_N:?} for every family, source and major; N = {n} \
                         uses the same engine layout generator (C ((4,8,4),(2,2,N/8)))"
                    ),
                });
            } else {
                out.push(Plan::Gmma(Box::new(gmma_case(&name, gmma_index)?)));
                gmma_index += 1;
            }
            continue;
        }
        let atom = mma_atom(&name).map_err(|e| anyhow!("{name}: {e}"))?;
        match mma_cases(&atom, i, &fixes) {
            Ok(cases) => out.push(Plan::Mma(cases)),
            Err(reason) => out.push(Plan::Skip { atom: name, reason }),
        }
    }
    for c in copy_cases()? {
        out.push(Plan::Copy(c));
    }
    Ok(out)
}

/// The mma.sync cases of a plan.
pub fn mma_of(plan: &[Plan]) -> Vec<MmaCase> {
    plan.iter().filter_map(|p| if let Plan::Mma(c) = p { Some(c.clone()) } else { None }).flatten().collect()
}

/// The GMMA cases of a plan.
pub fn gmma_of(plan: &[Plan]) -> Vec<GmmaCase> {
    plan.iter().filter_map(|p| if let Plan::Gmma(c) = p { Some((**c).clone()) } else { None }).collect()
}

/// Number of translation units CuTe's path and the GMMA kernels are split into (parallel builds).
pub const CUTE_PARTS: usize = 12;
pub const GMMA_PARTS: usize = 8;
pub const CUTE_GMMA_PARTS: usize = 32;

/// CuTe's own path for the GMMA atoms: `cute_gmma_part*.cu` (one call of `run_cute_gmma` per
/// atom, with the smem layout atoms the engine's tables used) and `gen_cute_gmma_parts.hpp`.
pub fn gen_cute_gmma(cases: &[GmmaCase], parts: usize) -> (String, Vec<String>) {
    let mut units: Vec<String> = (0..parts)
        .map(|i| {
            format!(
                "// Generated by `cargo xtask gpu`: CuTe's GMMA path, part {i}.\n#include \"cute_gmma_common.cuh\"\nusing namespace cute;\n\n\
                 void cute_gmma_part_{i}(std::vector<Row>& rows, const std::map<std::string, OpInfo>& ops, Rng& rng, int trials) {{\n"
            )
        })
        .collect();
    for (j, c) in cases.iter().enumerate() {
        let atom = mma_atom(&c.name).ok();
        let ty = |i: usize| atom.as_ref().map(|a| cpp_type(&a.val_types[i])).unwrap_or_default();
        let smem_a = match &c.a {
            Some(a) => a.atom.clone(),
            None => format!(
                "GMMA::Layout_K_INTER_Atom<{}>",
                atom.as_ref().map(|a| a.val_types[1].clone()).unwrap_or_default()
            ),
        };
        let _ = writeln!(
            units[j % parts],
            "  rows.push_back(run_cute_gmma<{}, {}, {}, {}, {}, {}, {}, {}, {}>(\"{}\", ops, rng, trials));",
            c.name,
            ty(1),
            ty(2),
            ty(3),
            c.n,
            c.ktot,
            smem_a,
            c.b.atom,
            c.rs,
            c.name
        );
    }
    for u in &mut units {
        u.push_str("}\n");
    }
    let mut h = String::from("// Generated by `cargo xtask gpu`.\n#pragma once\n");
    for i in 0..parts {
        let _ = writeln!(h, "void cute_gmma_part_{i}(std::vector<Row>&, const std::map<std::string, mmacheck::OpInfo>&, mmacheck::Rng&, int);");
    }
    h.push_str("#define CUTE_GMMA_PARTS_CALL(rows, ops, rng, trials) \\\n");
    for i in 0..parts {
        let _ = writeln!(h, "  cute_gmma_part_{i}(rows, ops, rng, trials); \\");
    }
    h.push_str("  ;\n");
    (h, units)
}

/// Writes the tables, the generated code and the plan (`plan.json`: every atom with its check or
/// skip reason) into `dir`, and copies the GPU sources to `dir/src` so that the folder is
/// self-contained.
pub fn prepare(dir: &Path, src: &Path) -> Result<Vec<Plan>> {
    std::fs::create_dir_all(dir.join("src")).with_context(|| format!("creating {}", dir.display()))?;
    let plan = plan()?;
    let mma = mma_of(&plan);
    let mut bad: Vec<MmaCase> = mma.iter().filter(|c| !c.finding).cloned().collect();
    bad.iter_mut().for_each(corrupt);
    std::fs::write(dir.join("tables.txt"), tables_file(&mma))?;
    std::fs::write(dir.join("tables_corrupt.txt"), tables_file(&bad))?;
    std::fs::write(dir.join("src/gen_mma_ops.cuh"), gen_mma_ops(&mma))?;
    let (fixed, parts) = gen_cute(&mma, CUTE_PARTS)?;
    std::fs::write(dir.join("src/gen_fixed_traits.hpp"), fixed)?;
    std::fs::write(dir.join("src/gen_cute_parts.hpp"), gen_cute_parts_header(CUTE_PARTS))?;
    for (i, p) in parts.iter().enumerate() {
        std::fs::write(dir.join(format!("src/cute_part{i}.cu")), p)?;
    }
    let gmma = gmma_of(&plan);
    std::fs::write(dir.join("gmma_tables.txt"), gmma_tables_file(&gmma))?;
    // GMMA kernels in parts: each part has its own ops header.
    for i in 0..GMMA_PARTS {
        let part: Vec<GmmaCase> =
            gmma.iter().enumerate().filter(|(j, _)| j % GMMA_PARTS == i).map(|(_, c)| c.clone()).collect();
        let body = gen_gmma_ops(&part).replace(
            "static std::map<std::string, GLauncher> glaunchers()",
            &format!("void glaunchers_{i}(std::map<std::string, GLauncher>& out)"),
        );
        let body = body
            .replace("  std::map<std::string, GLauncher> m;\n", "  auto& m = out;\n")
            .replace("  return m;\n}", "}")
            .replace("#pragma once\n", "");
        std::fs::write(
            dir.join(format!("src/gmma_part{i}.cu")),
            format!("// Generated by `cargo xtask gpu`: GMMA kernels, part {i}.\n#include \"gmma_common.cuh\"\n{body}"),
        )?;
    }
    let mut decl = String::from("// Generated by `cargo xtask gpu`.\n#pragma once\n");
    for i in 0..GMMA_PARTS {
        let _ = writeln!(decl, "void glaunchers_{i}(std::map<std::string, GLauncher>& out);");
    }
    decl.push_str("inline std::map<std::string, GLauncher> glaunchers() {\n  std::map<std::string, GLauncher> m;\n");
    for i in 0..GMMA_PARTS {
        let _ = writeln!(decl, "  glaunchers_{i}(m);");
    }
    decl.push_str("  return m;\n}\n");
    std::fs::write(dir.join("src/gen_gmma_parts.hpp"), decl)?;
    let (h, units) = gen_cute_gmma(&gmma, CUTE_GMMA_PARTS);
    std::fs::write(dir.join("src/gen_cute_gmma_parts.hpp"), h)?;
    for (i, u) in units.iter().enumerate() {
        std::fs::write(dir.join(format!("src/cute_gmma_part{i}.cu")), u)?;
    }
    let copies: Vec<CopyCase> =
        plan.iter().filter_map(|p| if let Plan::Copy(c) = p { Some(c.clone()) } else { None }).collect();
    std::fs::write(dir.join("copy_tables.txt"), copy_tables_file(&copies))?;
    let plan_json: Vec<serde_json::Value> = plan
        .iter()
        .map(|p| match p {
            Plan::Mma(cs) => serde_json::json!({"atom": cs[0].op, "check": "mma.sync", "instruction": cs[0].ptx,
                "tables": cs.iter().map(|c| c.name.clone()).collect::<Vec<_>>(), "finding": cs.iter().any(|c| c.finding),
                "note": cs.iter().map(|c| c.note.clone()).filter(|n| !n.is_empty()).collect::<Vec<_>>().join(" / ")}),
            Plan::Gmma(c) => serde_json::json!({"atom": c.name, "check": "wgmma", "instruction": c.ptx,
                "smem_a": c.a.as_ref().map(|a| a.atom.clone()), "smem_b": c.b.atom, "ktot": c.ktot}),
            Plan::Copy(c) => serde_json::json!({"atom": format!("Copy_Atom<{},{}>", c.op, c.val_type), "check": c.kind,
                "src": c.src_layout, "dst": c.dst_layout}),
            Plan::Skip { atom, reason } => serde_json::json!({"atom": atom, "check": "skip", "reason": reason}),
        })
        .collect();
    std::fs::write(dir.join("plan.json"), serde_json::to_string_pretty(&plan_json)? + "\n")?;
    for entry in std::fs::read_dir(src).with_context(|| format!("reading {}", src.display()))? {
        let p = entry?.path();
        if p.is_file() {
            let name = p.file_name().unwrap_or_default();
            std::fs::copy(&p, dir.join("src").join(name)).with_context(|| format!("copying {}", p.display()))?;
        }
    }
    Ok(plan)
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

// =================================================================================================
// Results and the summary

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

/// The result files of a run folder, by run name.
pub const RESULT_RUNS: [&str; 6] = ["tables", "cute", "gmma", "cute_gmma", "copy", "corrupt"];

/// Reads the `results_*.json` files of a run folder, and the skipped atoms of its `plan.json`.
pub fn read_results(dir: &Path) -> Result<(Vec<Row>, serde_json::Value)> {
    let mut rows = Vec::new();
    let mut info = serde_json::Map::new();
    for run in RESULT_RUNS {
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
            rows.push(Row {
                run: run.to_string(),
                atom: s("atom"),
                check: s("check"),
                max_err: r.get("max_err").and_then(|x| x.as_f64()),
                verdict: s("verdict"),
                detail,
            });
        }
    }
    if let Ok(text) = std::fs::read_to_string(dir.join("plan.json")) {
        let v: serde_json::Value = serde_json::from_str(&text).context("parsing plan.json")?;
        for p in v.as_array().into_iter().flatten() {
            if p["check"] == "skip" {
                rows.push(Row {
                    run: "plan".into(),
                    atom: p["atom"].as_str().unwrap_or("").into(),
                    check: "skip".into(),
                    max_err: None,
                    verdict: "SKIP".into(),
                    detail: p["reason"].as_str().unwrap_or("").into(),
                });
            }
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
        "{:<8} {:<60} {:<13} {:<10} {:<7} {:<9} {}\n",
        "run", "atom", "check", "max error", "verdict", "expected", "detail"
    );
    for r in rows {
        let err = r.max_err.map(|e| format!("{e:.2e}")).unwrap_or_else(|| "-".into());
        let want = expected(r, &findings);
        let mark = if r.verdict == "SKIP" || want == "-" || r.verdict == want {
            want.to_string()
        } else {
            format!("{want} !!")
        };
        let _ = writeln!(
            s,
            "{:<8} {:<60} {:<13} {:<10} {:<7} {:<9} {}",
            r.run, r.atom, r.check, err, r.verdict, mark, r.detail
        );
    }
    s
}

/// CuTe atoms whose own tables are known to be wrong (a layout fault the engine finds, or a
/// known disagreement in the corrections data): on hardware their checks must FAIL.
pub fn finding_atoms() -> Vec<String> {
    let Ok(fixes) = corrections() else { return vec![] };
    let mut out: Vec<String> = Vec::new();
    for name in mma_atom_names().into_iter().filter(|n| !n.starts_with("SM90_64x") && !n.starts_with("Universal")) {
        if let Ok(atom) = mma_atom(&name) {
            if let Ok(cases) = mma_cases(&atom, 0, &fixes) {
                out.extend(cases.iter().filter(|c| c.finding).map(|c| c.name.clone()));
            }
        }
    }
    out.extend(fixes.iter().filter(|f| f.operand == '-').map(|f| f.atom.clone()));
    // Copy atoms with a corrected Src/Dst: CuTe's own layouts must fail on hardware.
    out.extend(
        fixes
            .iter()
            .filter(|f| f.operand == 'S' || f.operand == 'D')
            .map(|f| format!("Copy_Atom<{},uint16_t>", f.atom)),
    );
    out.sort();
    out.dedup();
    out
}

/// What a row must show: "FAIL" for the corrupted tables' check 1 and for CuTe's own tables of
/// an atom with a finding, "-" where either is acceptable (ownership with wrong A/B tables, whose
/// inputs then land in the wrong places), "PASS" otherwise. SKIP rows are always acceptable.
pub fn expected(row: &Row, findings: &[String]) -> &'static str {
    let finding = findings.iter().any(|f| f == &row.atom);
    match (row.run.as_str(), row.check.as_str()) {
        ("corrupt", "table") => "FAIL",
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

/// Verdict counts per run and check, for the summary.
pub fn counts(rows: &[Row]) -> BTreeMap<(String, String, String), usize> {
    let mut m = BTreeMap::new();
    for r in rows {
        *m.entry((r.run.clone(), r.check.clone(), r.verdict.clone())).or_insert(0) += 1;
    }
    m
}

/// Reads a run folder, prints the summary, writes `summary.json`; the exit code by verdicts.
pub fn report(dir: &Path) -> Result<bool> {
    let (rows, info) = read_results(dir)?;
    println!("{}", summary_table(&rows));
    let ok = verdict(&rows);
    let findings = finding_atoms();
    for ((run, check, v), n) in counts(&rows) {
        println!("  {run:<8} {check:<13} {v:<5} {n}");
    }
    let json = serde_json::json!({
        "run": info,
        "all_pass": ok,
        "rows": rows.iter().map(|r| serde_json::json!({
            "run": r.run, "atom": r.atom, "check": r.check, "max_err": r.max_err,
            "verdict": r.verdict, "expected": expected(r, &findings), "detail": r.detail })).collect::<Vec<_>>(),
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
        let plan = prepare(dir, &src)?;
        let (mut m, mut g, mut c, mut s) = (0, 0, 0, 0);
        for p in &plan {
            match p {
                Plan::Mma(cs) => {
                    m += 1;
                    for t in cs.iter().filter(|t| !t.note.is_empty()) {
                        println!("{}: {}", t.name, t.note);
                    }
                }
                Plan::Gmma(_) => g += 1,
                Plan::Copy(_) => c += 1,
                Plan::Skip { .. } => s += 1,
            }
        }
        println!("plan: {m} mma.sync atoms, {g} GMMA atoms, {c} copy atoms checked; {s} skipped (plan.json says why)");
        println!("wrote tables and sources to {}", dir.display());
        return Ok(0);
    }
    if let Some(why) = gpu_missing(std::env::var_os("PATH").as_deref()) {
        println!("no GPU: {why}; nothing was checked (exit {NO_GPU})");
        return Ok(NO_GPU);
    }
    let include = cute_include()?;
    let work = if args.work.is_absolute() { args.work.clone() } else { root.join(&args.work) };
    for run in RESULT_RUNS {
        let _ = std::fs::remove_file(work.join(format!("results_{run}.json")));
    }
    prepare(&work, &src)?;
    let mode = if args.all {
        "all"
    } else if args.corrupt {
        "corrupt"
    } else {
        "normal"
    };
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
