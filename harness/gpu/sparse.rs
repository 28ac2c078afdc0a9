//! The SM90 sparse GMMA check (`cargo xtask gpu-sparse`): CuTe's own
//! `SM90::GMMA::SPARSE::GMMA_64xNxK_*_SS` atoms (cute/arch/mma_sm90_gmma_sparse.hpp) on a real
//! sm_90a device, their operands laid out by the engine alone.
//!
//! For each sparse SS atom the engine lists: A is a 64 x K structured-sparse matrix (2:4; 1:2 for
//! tf32), stored compressed (64 x K/2) in shared memory at the offsets of the engine's
//! `GMMA::Layout_*_Atom` of A's type, B (N x K) likewise; the metadata register of each thread is
//! built element by element from the engine's `ELayout` (`mma_extra`, what `mma_layout_e` evaluates) (bits `v*32/V ..` of thread `t`'s
//! register describe logical element `E(t, v)` of A: its share of the 4-bit code of its group);
//! C is loaded and D stored through the engine's C layout, and D is compared element by element
//! with the float64/integer product of the logical A. The corrupted twin permutes the metadata
//! layout (each thread's values rotated by one 4-bit code) and must fail.
//!
//! Not run (listed as skipped by [`crate::gpu::plan`], [`skip_reason`]): the register-A (`_RS`)
//! atoms (their compressed A register layout is not modelled here), and the 8-bit integer
//! `_SATURATE<GMMA::SparseSel::One>` atoms, whose instruction ptxas refuses.

use std::fmt::Write as _;

use anyhow::{anyhow, bail, Result};

use crate::engine::atom::mma::{mma_atom, mma_extra, sparse_gmma_names};
use crate::engine::{IntTuple, Layout};
use crate::gpu::plan::gmma::{smem_operand, SmemOperand};
use crate::gpu::plan::tv_table;
use crate::gpu::ptx::{elem_bits, elem_of};

/// One sparse GMMA atom's check.
#[derive(Clone, Debug)]
pub struct SparseCase {
    pub name: String,
    pub kind: String,
    pub n: i64,
    /// Logical K (the atom's), and the compressed A's K/2.
    pub k: i64,
    pub ea: String,
    pub eb: String,
    pub ec: String,
    pub c_layout: String,
    pub e_layout: String,
    /// C table: 128 threads x N/2 values, index m + 64 n.
    pub c: Vec<i64>,
    /// Metadata table: 128 threads x `ne` values, index m + 64 k of the logical A.
    pub e: Vec<i64>,
    pub ne: i64,
    /// Compressed A (64 x K/2) and B (N x K) in shared memory.
    pub a: SmemOperand,
    pub b: SmemOperand,
}

impl SparseCase {
    pub fn dregs(&self) -> i64 {
        self.n / 2 * elem_bits(&self.ec) / 32
    }
}

/// Why a sparse GMMA atom is not run (None: it is run).
pub fn skip_reason(name: &str) -> Option<String> {
    if !name.contains("_SS") {
        return Some(
            "sparse RS (A in registers): the compressed register A layout is not modelled by the sparse run; the SS \
             atoms of every family prove the metadata (ELayout), B and C layouts"
                .into(),
        );
    }
    if name.contains("SparseSel::One") && name.contains("_S32") {
        return Some(
            "CuTe declares it, but ptxas (CUDA 13.0.88, sm_90a) refuses its instruction: \"Argument 4 of instruction \
             'Sparse wgmma.mma_async with integer types': unexpected value '1', expected to be 0\" (an 8-bit integer \
             sparse wgmma takes sparsity selector 0 only; built for S32S8S8 and S32U8U8 at N = 8); its selector-0 \
             twin `_SATURATE` is not declared, the plain atom (selector 0) runs"
                .into(),
        );
    }
    None
}

/// Whether a sparse GMMA atom is run.
pub fn runs(name: &str) -> bool {
    name.starts_with("SM90::GMMA::SPARSE::") && skip_reason(name).is_none()
}

/// The sparse atoms that are run, each with its check (as [`crate::gpu::plan`] lists them).
pub fn sparse_cases() -> Result<Vec<SparseCase>> {
    sparse_gmma_names().iter().filter(|n| runs(n)).enumerate().map(|(i, n)| sparse_case(n, i)).collect()
}

/// The check of one sparse SS atom.
pub fn sparse_case(name: &str, index: usize) -> Result<SparseCase> {
    let atom = mma_atom(name).map_err(|e| anyhow!("{name}: {e}"))?;
    let e_layout =
        mma_extra(name).map_err(|e| anyhow!("{name}: {e}"))?.e.ok_or_else(|| anyhow!("{name}: no ELayout"))?;
    let [m, n, k] = atom.mnk()?;
    if m != 64 {
        bail!("{name}: M = {m}");
    }
    let a_type = atom.val_types[1]
        .strip_prefix("sparse_elem<2,")
        .and_then(|t| t.strip_suffix('>'))
        .ok_or_else(|| anyhow!("{name}: A type {}", atom.val_types[1]))?
        .to_string();
    let et = |t: &str| elem_of(t).ok_or_else(|| anyhow!("{name}: type {t}"));
    let (ea, eb, ec) = (et(&a_type)?, et(&atom.val_types[2])?, et(&atom.val_types[3])?);
    let targs = name.split_once('<').map(|(_, t)| t).unwrap_or("");
    let majors: Vec<bool> = targs.split(',').filter(|a| a.contains("Major")).map(|a| a.contains("::K")).collect();
    let (amk, bmk) = (majors.first().copied().unwrap_or(true), majors.get(1).copied().unwrap_or(true));
    let c = tv_table(&atom.c.to_string(), 64, n, 128)?;
    if let Some(why) = c.not_bijective {
        bail!("{name}: C layout {why}");
    }
    let (e, ne) = e_table(&e_layout, 64 * k)?;
    let bits = elem_bits(ea);
    // One K-block. K-major: INTER (core matrices along K, LBO apart), or a swizzle atom exactly
    // as wide as the operand's K (a wgmma's K-major operand cannot span two swizzle atoms along
    // K: the first H200 run, with SW32 under a 64-byte B, failed those 50 atoms, and only those).
    // MN-major: the widest that tiles MN. Rotating over the atoms.
    let kind = |mn: i64, kk: i64, kmaj: bool, want: usize| -> usize {
        (0..=want)
            .rev()
            .find(|&s| {
                let width = (16i64 << s) * 8 / bits;
                if kmaj {
                    s == 0 && kk % width == 0 || width == kk
                } else {
                    mn % width == 0
                }
            })
            .unwrap_or(0)
    };
    let kc = k / 2;
    let a = smem_operand(64, kc, kc, &a_type, bits, amk, kind(64, kc, amk, index % 4))?;
    let b = smem_operand(n, k, k, &atom.val_types[2], bits, bmk, kind(n, k, bmk, (index + 1) % 4))?;
    Ok(SparseCase {
        name: atom.name.clone(),
        kind: format!("s{index}"),
        n,
        k,
        ea: ea.into(),
        eb: eb.into(),
        ec: ec.into(),
        c_layout: atom.c.to_string(),
        e_layout: e_layout.to_string(),
        c: c.idx,
        e,
        ne,
        a,
        b,
    })
}

/// The metadata layout evaluated at every (thread, value) of 128 threads: (entries `t * V + v`,
/// V). Two threads may share an entry (the stride-0 thread modes: the sparsity selector's pairs),
/// but every element of the `tile`-element logical A must be described.
pub fn e_table(e: &Layout, tile: i64) -> Result<(Vec<i64>, i64)> {
    let size = e.size().map_err(|x| anyhow!("{e}: {x}"))?.value;
    if size % 128 != 0 {
        bail!("{e}: size {size} is not 128 threads' values");
    }
    let ne = size / 128;
    let mut idx = Vec::with_capacity(size as usize);
    let mut seen = vec![false; tile as usize];
    for t in 0..128 {
        for v in 0..ne {
            let i = e
                .call(&IntTuple::tuple([IntTuple::dy(t), IntTuple::dy(v)]))
                .map_err(|x| anyhow!("{e} at ({t},{v}): {x}"))?
                .value;
            if !(0..tile).contains(&i) {
                bail!("{e} at ({t},{v}) = {i}: outside the {tile}-element tile");
            }
            seen[i as usize] = true;
            idx.push(i);
        }
    }
    if let Some(i) = seen.iter().position(|s| !s) {
        bail!("{e}: element {i} of the tile has no metadata");
    }
    Ok((idx, ne))
}

/// The corrupted metadata table: each thread's values rotated by one 4-bit code (4 values of one
/// bit, 2 of two bits), a permuted metadata layout.
pub fn corrupt_e(c: &SparseCase) -> Vec<i64> {
    let ne = c.ne as usize;
    let step = (4 * ne / 32).max(1);
    let mut out = c.e.clone();
    for t in 0..128 {
        for v in 0..ne {
            out[t * ne + v] = c.e[t * ne + (v + step) % ne];
        }
    }
    out
}

/// The tables file `sparse_check` reads: the cases, their metadata tables correct or (`corrupt`)
/// permuted.
pub fn sparse_tables_file(cases: &[SparseCase], corrupt: bool) -> String {
    let mut s = String::from("cutecheck-sparse-tables 1\n# written by `cargo xtask gpu-sparse`; offsets in bytes\n");
    let join = |v: &[i64]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(" ");
    for c in cases {
        let _ = writeln!(s, "atom {} {} {} {} {} {} {} {}", c.name, c.kind, c.n, c.k, c.ne, c.ea, c.eb, c.ec);
        let _ = writeln!(s, "layout C {}", c.c_layout);
        let _ = writeln!(s, "layout E {}", c.e_layout.replace(' ', ""));
        let _ = writeln!(s, "C {}", join(&c.c));
        let e = if corrupt { corrupt_e(c) } else { c.e.clone() };
        let _ = writeln!(s, "E {}", join(&e));
        for (key, op) in [("SA", &c.a), ("SB", &c.b)] {
            let _ = writeln!(s, "{key}atom {} {}", op.atom, op.atom_value.replace(' ', ""));
            let _ = writeln!(s, "{key} {}", join(&op.offsets));
            let _ = writeln!(s, "{key}desc {:x}", op.desc[0]);
        }
        s.push_str("end\n");
    }
    s
}

/// The generated translation unit `i` of `parts` (`sparse_part<i>.cu`, atom `j` in part
/// `j % parts`): one struct per atom calling CuTe's atom's own `fma`, each registered in the
/// launcher table (`sregistry`, sparse_common.cuh) as the unit is loaded.
pub fn gen_sparse_part(cases: &[SparseCase], i: usize, parts: usize) -> String {
    let mut s = format!(
        "// Generated by `cargo xtask gpu-sparse`: CuTe's SM90 sparse GMMA atoms, part {i}.\n#include \"sparse_common.cuh\"\n"
    );
    for c in cases.iter().skip(i).step_by(parts.max(1)) {
        let dr = c.dregs();
        let regs = (0..dr).map(|r| format!("x[{r}]")).collect::<Vec<_>>().join(", ");
        let _ = writeln!(
            s,
            "struct {k} {{\n  using Op = cute::{};\n  static constexpr int N = {}, DREGS = {dr}, NC = {}, WC = {};\n  \
             __device__ static void mma(uint32_t* d, uint64_t da, uint64_t db, uint32_t e) {{\n    \
             using R = std::remove_extent_t<typename Op::CRegisters>;\n    R* x = reinterpret_cast<R*>(d);\n    \
             Op::fma(da, db, {regs}, e);\n  }}\n}};\nstatic const bool reg_{k} = sregister(\"{k}\", slaunch<{k}>);",
            c.name,
            c.n,
            c.n / 2,
            elem_bits(&c.ec),
            k = c.kind,
        );
    }
    s
}

/// Every generated file of the sparse work folder, by name.
pub fn sparse_work_files(parts: usize) -> Result<Vec<(String, String)>> {
    let cases = sparse_cases()?;
    let mut out = vec![
        ("sparse_tables.txt".to_string(), sparse_tables_file(&cases, false)),
        ("sparse_tables_corrupt.txt".to_string(), sparse_tables_file(&cases, true)),
    ];
    for i in 0..parts {
        out.push((format!("sparse_part{i}.cu"), gen_sparse_part(&cases, i, parts)));
    }
    Ok(out)
}
