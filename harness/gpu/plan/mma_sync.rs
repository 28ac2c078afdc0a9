//! The mma.sync atoms' checks: the engine's A/B/C tables at every (thread, value), CuTe's own and
//! corrected where the corrections data has a layout.

use crate::engine::atom::mma::MmaAtom;
use crate::gpu::cuda::cpp_type;
use crate::gpu::plan::{tv_table, Correction};
use crate::gpu::ptx::{elem_of, mma_instruction};

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
        let t = crate::engine::atom::table::atom_table_of(atom).map_err(|e| e.to_string())?;
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

/// The owner of each C element (column-major), as thread*100 + value, predicted by a C table.
pub fn predicted_owners(c: &[i64], m: i64, n: i64, threads: i64) -> Vec<i64> {
    let nc = c.len() / threads as usize;
    let mut own = vec![-1; (m * n) as usize];
    for (i, &idx) in c.iter().enumerate() {
        own[idx as usize] = (i / nc * 100 + i % nc) as i64;
    }
    own
}
