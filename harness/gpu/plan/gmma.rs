//! The GMMA (wgmma) atoms' checks: the engine's C (and RS A) tables and the shared-memory operands
//! laid out by the engine's GMMA smem layout atoms, with their descriptors.

use anyhow::{anyhow, bail, Result};

use crate::engine::atom::mma::{mma_atom, GMMA_N};
use crate::engine::atom::recast::{gmma_smem_atom, Recastable};
use crate::gpu::plan::tv_table;
use crate::gpu::ptx::{desc, elem_bits, elem_of, gmma_parts, type_tokens, wgmma_imms, wgmma_instruction};

/// Shared-memory layout kind of a GMMA operand: the engine's `GMMA::Layout_{K,MN}_{kind}_Atom`.
pub const SMEM_KINDS: [&str; 4] = ["INTER", "SW32", "SW64", "SW128"];

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
    let ptx = wgmma_instruction(n, k, [*d, *a, *b], sat);
    let imms = wgmma_imms(ea, rs, amk, bmk);
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
