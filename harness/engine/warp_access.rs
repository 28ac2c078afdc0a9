//! `warp_access`: what one warp-wide load costs the memory system, from the layouts that place
//! its addresses (not a CuTe function: CuTe has no such analysis; the figures are the ones Nsight
//! Compute measures).
//!
//! Instructions ([`Space`]): ld.global, ld.shared, st.shared, ldmatrix / stmatrix (x1, x2, x4,
//! .trans; one 128-byte phase per 8x8 matrix, [`matrix`]) and cp.async (its global side,
//! [`cost_copy`]); [`copy_access`] gives every instruction of a whole copy through a TV layout.
//!
//! Definition. A warp of 32 threads executes one load instruction. Thread `t` moves
//! `vector_bytes` bytes starting at byte offset `elem_bytes * DATA(THREADS(t))`, where `THREADS`
//! is a layout of 32 threads giving the column-major index, in `DATA`'s domain, of the first element
//! the thread loads, and `DATA` a layout, a swizzled layout `Swizzle<B,M,S> o L` (the swizzle
//! acts on element offsets), or a GMMA shared-memory atom (`Swizzle o smem_ptr[Nb] o L`: the
//! swizzle acts on byte addresses, as CuTe applies it to a shared-memory pointer). The base
//! address is assumed aligned to 1024 bytes (a swizzle's period, CuTe's requirement for the GMMA
//! atoms), so offsets are addresses modulo that alignment.
//!
//! The rules, with their sources:
//!
//! - **Global memory** (CUDA C++ Programming Guide, "Device Memory Accesses": global memory is
//!   accessed through 32-, 64- or 128-byte memory transactions, and a warp's accesses coalesce
//!   into as few as the addresses allow; Nsight Compute Kernel Profiling Guide, "Memory Tables":
//!   a *sector* is an aligned 32-byte chunk of memory, a *request* a command into L1TEX, and the
//!   metrics `l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum` and
//!   `l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum`). `sectors` is the number of distinct
//!   32-byte sectors the warp's bytes lie in, however many threads touch each (an aligned access
//!   of at most 16 bytes lies in one sector). `requests` is 1: one instruction of 32 active
//!   threads is one request, for every width from 1 to 16 bytes and every pattern the H200 run
//!   measured (a 128-byte *cache line* is 4 sectors; the request count does not grow with the
//!   lines touched). Utilization is the distinct bytes requested over `32 * sectors`.
//! - **Shared memory** (CUDA C++ Programming Guide, Compute Capability 5.x and later, "Shared
//!   Memory": 32 banks of 4 bytes, successive 32-bit words in successive banks; a request for
//!   several distinct words in one bank is a bank conflict and is split into as many
//!   conflict-free requests; threads reading the same 32-bit word get it broadcast (multicast),
//!   without a conflict. Nsight Compute: a *wavefront* is the unit of work processed per cycle in
//!   the data stage of L1TEX, `l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum`; the bank
//!   conflicts `l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum` are the wavefronts
//!   beyond the ideal). A phase moves at most 128 bytes from the banks: 8-byte accesses are served
//!   by half warps and 16-byte accesses by quarter warps (the guide's 64-bit and 128-bit modes).
//!   That is not the whole truth for repeated addresses: the H200 serves 256-byte groups of lanes
//!   (8-byte: the warp, 16-byte: a half warp) as *one* phase each when every quad of the warp's
//!   lanes reads at most 2 distinct addresses ([`phases`]; measured, not documented). Each phase
//!   takes as many wavefronts as its most-loaded bank has distinct words; the ideal is one per
//!   phase, and the conflicts are the difference.
//!
//! Postconditions (checked by the tests below and, against the hardware, by the recorded H200 run
//! in `fixtures/gpu/h200-access/`):
//! 1. `32 * sectors >= distinct bytes >= vector_bytes` (for a global load), so utilization is in (0, 1];
//! 2. `wavefronts >= 1` and `conflicts = wavefronts - ideal >= 0`, `ideal` the wavefronts the
//!    same access with distinct, conflict-free addresses takes;
//! 3. permuting the threads changes neither the sectors nor the requests of a global load.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use super::error::{Error, Result};
use super::int::Int;
use super::layout::Layout;
use super::swizzle::{ComposedLayout, Offset};

/// The threads of a warp.
pub const WARP: usize = 32;
/// Bytes of a global-memory sector.
pub const SECTOR: i64 = 32;
/// Shared-memory banks, and bytes per bank word.
pub const BANKS: i64 = 32;
pub const BANK_BYTES: i64 = 4;

/// The instruction of a warp-wide access: a load (`global`, `shared`), a shared store
/// (`st_shared`), a matrix load or store (`ldmatrix_xN[_trans]`, `stmatrix_xN[_trans]`: N 8x8
/// matrices of 16-byte rows, thread `8i + r` giving the address of row `r` of matrix `i`), or an
/// asynchronous copy from global to shared memory (`cp_async`: `cp.async.ca`, `cp_async_cg`:
/// `cp.async.cg`, 16 bytes only).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Space {
    Global,
    Shared,
    StShared,
    Ldmatrix { x: u8, trans: bool },
    Stmatrix { x: u8, trans: bool },
    CpAsync { cg: bool },
}

/// Every instruction with its name in the expression language.
pub const SPACES: [(&str, Space); 17] = [
    ("global", Space::Global),
    ("shared", Space::Shared),
    ("st_shared", Space::StShared),
    ("ldmatrix_x1", Space::Ldmatrix { x: 1, trans: false }),
    ("ldmatrix_x2", Space::Ldmatrix { x: 2, trans: false }),
    ("ldmatrix_x4", Space::Ldmatrix { x: 4, trans: false }),
    ("ldmatrix_x1_trans", Space::Ldmatrix { x: 1, trans: true }),
    ("ldmatrix_x2_trans", Space::Ldmatrix { x: 2, trans: true }),
    ("ldmatrix_x4_trans", Space::Ldmatrix { x: 4, trans: true }),
    ("stmatrix_x1", Space::Stmatrix { x: 1, trans: false }),
    ("stmatrix_x2", Space::Stmatrix { x: 2, trans: false }),
    ("stmatrix_x4", Space::Stmatrix { x: 4, trans: false }),
    ("stmatrix_x1_trans", Space::Stmatrix { x: 1, trans: true }),
    ("stmatrix_x2_trans", Space::Stmatrix { x: 2, trans: true }),
    ("stmatrix_x4_trans", Space::Stmatrix { x: 4, trans: true }),
    ("cp_async", Space::CpAsync { cg: false }),
    ("cp_async_cg", Space::CpAsync { cg: true }),
];

impl Space {
    pub fn parse(s: &str) -> Option<Space> {
        SPACES.iter().find(|(n, _)| *n == s).map(|(_, sp)| *sp)
    }
    pub fn name(self) -> &'static str {
        SPACES.iter().find(|(_, sp)| *sp == self).map(|(n, _)| *n).unwrap_or("?")
    }
    /// Every name the expression language accepts.
    pub fn names() -> impl Iterator<Item = &'static str> {
        SPACES.iter().map(|(n, _)| *n)
    }
    /// Whether the access reads or writes shared memory only (its figures are wavefronts and conflicts).
    pub fn is_shared(self) -> bool {
        !matches!(self, Space::Global | Space::CpAsync { .. })
    }
    /// The 8x8 matrices of an ldmatrix / stmatrix, else None.
    pub fn matrices(self) -> Option<usize> {
        match self {
            Space::Ldmatrix { x, .. } | Space::Stmatrix { x, .. } => Some(x as usize),
            _ => None,
        }
    }
    /// The widths this instruction moves per thread.
    pub fn widths(self) -> &'static [i64] {
        match self {
            Space::Ldmatrix { .. } | Space::Stmatrix { .. } | Space::CpAsync { cg: true } => &[16],
            Space::CpAsync { cg: false } => &[4, 8, 16],
            _ => &VECTOR_WIDTHS,
        }
    }
}

/// The data layout of a load: plain or swizzled (see the module doc for where the swizzle acts).
#[derive(Clone, Copy, Debug)]
pub enum Data<'a> {
    Plain(&'a Layout),
    Swizzled(&'a ComposedLayout),
}

/// The widths a thread can move in one instruction (ld.u8 .. ld.v4.b32).
pub const VECTOR_WIDTHS: [i64; 5] = [1, 2, 4, 8, 16];

/// The byte offset of element `i` (a column-major index in DATA's domain).
pub fn byte_offset(elem_bytes: i64, data: Data<'_>, i: i64) -> Result<i64> {
    Ok(match data {
        Data::Plain(l) => elem_bytes * l.call_int(Int::dy(i))?.value,
        Data::Swizzled(c) => match c.offset {
            Offset::Int(o) => elem_bytes * c.swizzle.apply(o.value + c.layout.call_int(Int::dy(i))?.value),
            Offset::Mixed { s, d, .. } => {
                elem_bytes * c.swizzle.apply((s | d) as i64 + c.layout.call_int(Int::dy(i))?.value)
            }
            Offset::SmemPtr(bits) => {
                if bits != 8 * elem_bytes {
                    return Err(Error::Rejected {
                        condition: "a smem_ptr layout's element size is its own",
                        detail: format!("{c} holds {bits}-bit elements, not {elem_bytes}-byte ones"),
                    });
                }
                c.swizzle.apply(elem_bytes * c.layout.call_int(Int::dy(i))?.value)
            }
        },
    })
}

/// The byte offset each of the 32 threads loads from (`elem_bytes * DATA(THREADS(t))`).
pub fn lane_offsets(elem_bytes: i64, vector_bytes: i64, data: Data<'_>, threads: &Layout) -> Result<Vec<i64>> {
    if !(1..=16).contains(&elem_bytes) {
        return Err(Error::Rejected {
            condition: "element size out of range",
            detail: format!("{elem_bytes} bytes (1 to 16)"),
        });
    }
    if !VECTOR_WIDTHS.contains(&vector_bytes) {
        return Err(Error::Rejected {
            condition: "a thread moves 1, 2, 4, 8 or 16 bytes",
            detail: format!("{vector_bytes} bytes"),
        });
    }
    if threads.size()?.value != WARP as i64 {
        return Err(Error::Rejected {
            condition: "the thread layout has 32 threads (one warp)",
            detail: format!("size({threads}) = {}", threads.size()?.value),
        });
    }
    let domain = match data {
        Data::Plain(l) => l.size()?.value,
        Data::Swizzled(c) => c.layout.size()?.value,
    };
    let mut out = Vec::with_capacity(WARP);
    for t in 0..WARP as i64 {
        let i = threads.call_int(Int::dy(t))?.value;
        if !(0..domain).contains(&i) {
            return Err(Error::OutOfRange(format!("THREADS({t}) = {i} is outside DATA's domain 0..{domain}")));
        }
        let off = byte_offset(elem_bytes, data, i)?;
        if off < 0 {
            return Err(Error::OutOfRange(format!("thread {t} loads at byte offset {off} < 0")));
        }
        if off % vector_bytes != 0 {
            return Err(Error::Rejected {
                condition: "a vector access is aligned to its width",
                detail: format!("thread {t} loads {vector_bytes} bytes at byte offset {off}"),
            });
        }
        out.push(off);
    }
    Ok(out)
}

/// What a warp-wide global load costs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GlobalCost {
    pub sectors: i64,
    pub requests: i64,
    /// Distinct bytes the warp asked for.
    pub bytes: i64,
}

impl GlobalCost {
    /// Useful bytes over bytes moved (`bytes / (32 * sectors)`).
    pub fn utilization(&self) -> f64 {
        self.bytes as f64 / (SECTOR * self.sectors) as f64
    }
}

impl fmt::Display for GlobalCost {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "sectors={} requests={}", self.sectors, self.requests)
    }
}

/// What a warp-wide shared load costs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SharedCost {
    pub wavefronts: i64,
    pub conflicts: i64,
}

impl fmt::Display for SharedCost {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "wavefronts={} conflicts={}", self.wavefronts, self.conflicts)
    }
}

fn check_offsets(offsets: &[i64], vector_bytes: i64) -> Result<()> {
    if offsets.len() != WARP || !VECTOR_WIDTHS.contains(&vector_bytes) {
        return Err(Error::Rejected {
            condition: "one warp of 32 threads, each moving 1, 2, 4, 8 or 16 bytes",
            detail: format!("{} threads, {vector_bytes} bytes", offsets.len()),
        });
    }
    if let Some(o) = offsets.iter().find(|&&o| o < 0 || o % vector_bytes != 0) {
        return Err(Error::Rejected {
            condition: "a vector access is aligned to its width",
            detail: format!("offset {o}"),
        });
    }
    Ok(())
}

/// The requests of one global load instruction of a full warp: 1 (see the module doc).
pub fn requests(_offsets: &[i64], _vector_bytes: i64) -> i64 {
    1
}

/// The cost of one warp-wide global load at these byte offsets.
pub fn global(offsets: &[i64], vector_bytes: i64) -> Result<GlobalCost> {
    check_offsets(offsets, vector_bytes)?;
    let sectors: BTreeSet<i64> = offsets.iter().map(|o| o / SECTOR).collect();
    let addrs: BTreeSet<i64> = offsets.iter().copied().collect();
    Ok(GlobalCost {
        sectors: sectors.len() as i64,
        requests: requests(offsets, vector_bytes),
        bytes: addrs.len() as i64 * vector_bytes,
    })
}

/// Wavefronts one group of accesses needs: the most distinct 4-byte words in one bank (a word
/// several threads read is read once: broadcast and multicast).
pub fn bank_depth(offsets: &[i64], vector_bytes: i64) -> i64 {
    let mut banks: BTreeMap<i64, BTreeSet<i64>> = BTreeMap::new();
    for &o in offsets {
        let first = o / BANK_BYTES;
        let last = (o + vector_bytes - 1) / BANK_BYTES;
        for w in first..=last {
            banks.entry(w % BANKS).or_default().insert(w);
        }
    }
    banks.values().map(|s| s.len() as i64).max().unwrap_or(0)
}

/// Whether every quad of threads (4 consecutive lanes) reads at most 2 distinct addresses: the
/// condition of the first two recorded runs' rule, kept because the second run's generator draws
/// with it (the model's condition is [`quads_in_pairs`]).
pub fn quads_pair_up(lanes: &[i64]) -> bool {
    lanes.chunks(4).all(|q| q.iter().collect::<BTreeSet<_>>().len() <= 2)
}

/// Whether every quad of threads (4 consecutive lanes) falls into pairs of lanes on one address:
/// each address a quad reads is read by an even number of its lanes (`{a,a,b,b}`, `{a,b,a,b}`,
/// `{a,a,a,a}`, not `{a,b,b,b}`): the condition under which the H200 serves an 8- or 16-byte load
/// in 256-byte phases (see [`phases`]).
pub fn quads_in_pairs(lanes: &[i64]) -> bool {
    lanes.chunks(4).all(|q| q.iter().all(|a| q.iter().filter(|b| *b == a).count() % 2 == 0))
}

/// The 128-byte phases of an access (the whole warp up to 4 bytes, half warps for 8 bytes,
/// quarter warps for 16): the CUDA guide's phases, which the H200 keeps for every shared store.
pub fn phases_128(vector_bytes: i64) -> Vec<std::ops::Range<usize>> {
    let group = if vector_bytes <= BANK_BYTES { WARP } else { (128 / vector_bytes) as usize };
    (0..WARP).step_by(group).map(|s| s..s + group).collect()
}

/// The phases a warp-wide shared load is served in, as ranges of lanes: the whole warp for
/// accesses up to 4 bytes (at most 128 bytes). An 8- or 16-byte load is served in 256-byte phases
/// (8-byte: the warp, 16-byte: each half warp) when every quad of the warp's lanes falls into
/// pairs of lanes on one address ([`quads_in_pairs`]), and in the 128-byte phases (8-byte: half
/// warps, 16-byte: quarter warps) otherwise.
///
/// The 128-byte phases are what the CUDA documentation implies; the 256-byte phase is what the
/// H200 measures (fixtures/gpu/h200-access*): e.g. all 32 threads reading one 16-byte address
/// take 2 wavefronts, not 4, and one 8-byte address 1, not 2, while 8-byte loads in which each quad
/// reads 4 distinct addresses take one wavefront per half warp even when the whole warp's words
/// are conflict-free. The condition is the warp's, not each half warp's: in the only 16-byte load
/// of the recorded runs whose half warps differ (one pairs up, the other does not: case 1771 of
/// h200-access), both half warps were served in quarter-warp phases; the second run
/// (h200-access-ops) confirmed that on 224 loads whose half warps differ. That run also showed
/// that "at most 2 distinct addresses per quad" is too wide: a load whose quads read `{a,b,b,b}`
/// is served in quarter warps (case 259), so the condition is that every quad falls into pairs.
pub fn phases(offsets: &[i64], vector_bytes: i64) -> Vec<std::ops::Range<usize>> {
    let mut out = Vec::new();
    if vector_bytes <= BANK_BYTES {
        out.push(0..WARP);
        return out;
    }
    let wide = quads_in_pairs(offsets);
    let bytes = if wide { 256 } else { 128 };
    let group = (bytes / vector_bytes) as usize;
    for start in (0..WARP).step_by(group) {
        out.push(start..start + group);
    }
    out
}

/// The cost of one warp-wide shared load at these byte offsets: each phase takes as many
/// wavefronts as its most-loaded bank has distinct words; the conflicts are the wavefronts beyond
/// one per phase.
pub fn shared(offsets: &[i64], vector_bytes: i64) -> Result<SharedCost> {
    check_offsets(offsets, vector_bytes)?;
    Ok(cost_in(offsets, vector_bytes, &phases(offsets, vector_bytes)))
}

fn cost_in(offsets: &[i64], vector_bytes: i64, ph: &[std::ops::Range<usize>]) -> SharedCost {
    let wavefronts: i64 = ph.iter().map(|r| bank_depth(&offsets[r.clone()], vector_bytes)).sum();
    SharedCost { wavefronts, conflicts: wavefronts - ph.len() as i64 }
}

/// The cost of one warp-wide shared store (st.shared): as a load, but always in the 128-byte
/// phases ([`phases_128`]): the H200 never merges the phases of a store (the second run: 199 of
/// 199 stores, 15 of them ones a load would have merged). Several lanes storing to one word
/// write it once (no conflict).
pub fn shared_store(offsets: &[i64], vector_bytes: i64) -> Result<SharedCost> {
    check_offsets(offsets, vector_bytes)?;
    Ok(cost_in(offsets, vector_bytes, &phases_128(vector_bytes)))
}

/// The cost of an ldmatrix / stmatrix of `x` 8x8 matrices: matrix `i` is 8 rows of 16 bytes at
/// the addresses of threads `8i..8i+8` (the other threads' addresses are not used), and each
/// matrix is one phase of at most 128 bytes: it takes as many wavefronts as its most-loaded bank
/// has distinct words (PTX ISA, "ldmatrix": "each thread in a group of 8 provides the address of
/// one row"; the phase per matrix is the model the H200 run tests).
pub fn matrix(offsets: &[i64], x: usize) -> Result<SharedCost> {
    check_offsets(offsets, 16)?;
    let wavefronts: i64 = (0..x).map(|i| bank_depth(&offsets[8 * i..8 * i + 8], 16)).sum();
    Ok(SharedCost { wavefronts, conflicts: wavefronts - x as i64 })
}

/// The phases of a shared-memory access of this instruction, as ranges of lanes (the matrices of
/// an ldmatrix / stmatrix, else [`phases`]).
pub fn phases_of(space: Space, offsets: &[i64], vector_bytes: i64) -> Vec<std::ops::Range<usize>> {
    match (space, space.matrices()) {
        (_, Some(x)) => (0..x).map(|i| 8 * i..8 * i + 8).collect(),
        (Space::StShared, _) => phases_128(vector_bytes),
        _ => phases(offsets, vector_bytes),
    }
}

/// One warp-wide access as the expression language states it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cost {
    Global(GlobalCost),
    Shared(SharedCost),
}

impl fmt::Display for Cost {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Cost::Global(g) => g.fmt(f),
            Cost::Shared(s) => s.fmt(f),
        }
    }
}

/// `warp_access(SPACE, ELEM_BYTES, VECTOR_BYTES, DATA, THREADS)`.
pub fn warp_access(space: Space, elem_bytes: i64, vector_bytes: i64, data: Data<'_>, threads: &Layout) -> Result<Cost> {
    let offsets = lane_offsets(elem_bytes, vector_bytes, data, threads)?;
    cost(space, &offsets, vector_bytes)
}

fn check_width(space: Space, vector_bytes: i64) -> Result<()> {
    if !space.widths().contains(&vector_bytes) {
        return Err(Error::Rejected {
            condition: "the instruction moves this many bytes per thread",
            detail: format!("{} moves {:?} bytes per thread, not {vector_bytes}", space.name(), space.widths()),
        });
    }
    Ok(())
}

/// The cost of one warp-wide access at these byte offsets (every instruction but cp.async, which
/// has two: [`cost_copy`]).
pub fn cost(space: Space, offsets: &[i64], vector_bytes: i64) -> Result<Cost> {
    check_width(space, vector_bytes)?;
    Ok(match space {
        Space::Global => Cost::Global(global(offsets, vector_bytes)?),
        Space::Shared => Cost::Shared(shared(offsets, vector_bytes)?),
        Space::StShared => Cost::Shared(shared_store(offsets, vector_bytes)?),
        Space::Ldmatrix { x, .. } | Space::Stmatrix { x, .. } => Cost::Shared(matrix(offsets, x as usize)?),
        Space::CpAsync { .. } => {
            return Err(Error::Rejected {
                condition: "cp.async reads global and writes shared memory",
                detail: "give it a source and a destination layout: warp_access(cp_async, E, V, SRC, DST, THREADS)"
                    .into(),
            })
        }
    })
}

/// The cost of one warp-wide cp.async: the global sectors and requests of the source offsets (as
/// a global load of that width; the H200 run: 214 of 214 `cp.async.ca`). The destination's
/// offsets are checked (aligned, in range) but its shared-memory cost is not predicted: on the
/// H200 the bank conflicts of LDGSTS depend on more than the destination's words (e.g. 32 lanes
/// copying to one word conflict 31 times; a third of the run's copies differ from any
/// destination-only model tried), and ncu 2025.3 has no wavefront counter of its own for it.
/// `cp.async.cg` bypasses L1, so ncu's l1tex counters do not see its sectors.
pub fn cost_copy(space: Space, src: &[i64], dst: &[i64], vector_bytes: i64) -> Result<Cost> {
    check_width(space, vector_bytes)?;
    if !matches!(space, Space::CpAsync { .. }) {
        return Err(Error::Rejected {
            condition: "only cp.async takes a source and a destination",
            detail: format!("{} takes one data layout", space.name()),
        });
    }
    check_offsets(dst, vector_bytes)?;
    Ok(Cost::Global(global(src, vector_bytes)?))
}

/// One warp's instructions of a whole copy (a TiledCopy's or a partition's TV layout over a
/// tensor): what [`copy_access`] gives.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CopyAccess {
    /// Bytes each thread moves per instruction.
    pub vector_bytes: i64,
    /// Per warp, per instruction: the 32 byte offsets and the cost.
    pub warps: Vec<Vec<(Vec<i64>, Cost)>>,
}

impl CopyAccess {
    /// Instructions per warp.
    pub fn instructions(&self) -> usize {
        self.warps.first().map_or(0, Vec::len)
    }
    /// The sum of every instruction's figures: (sectors, requests) or (wavefronts, conflicts).
    pub fn total(&self) -> (i64, i64) {
        self.warps.iter().flatten().fold((0, 0), |(a, b), (_, c)| match c {
            Cost::Global(g) => (a + g.sectors, b + g.requests),
            Cost::Shared(s) => (a + s.wavefronts, b + s.conflicts),
        })
    }
}

/// The widest vector (in elements) every thread's values can be moved in: the largest power of
/// two `k`, at most 16 bytes, dividing the values per thread, such that each run of `k` values
/// of every thread lies at consecutive addresses starting at a multiple of `k` elements. This is
/// what CuTe's auto-vectorizing copy (copy.hpp, `AutoVectorizingCopyWithAssumedAlignment<128>`:
/// `max_common_vector` of source and register destination, capped by `max_alignment`) uses when
/// the other side is a register fragment and every thread's start is aligned to it (the test
/// below checks the two agree). CuTe assumes each thread's pointer 128-bit aligned; where a
/// thread's start is not (a padded tile), CuTe's rule is wider than the addresses allow and this
/// is the narrower, safe width (e.g. `(8,8):(1,9)` floats, 2 per thread down a column: CuTe 64
/// bits, thread 4 starting at byte 36).
pub fn widest_vector(elem_bytes: i64, data: Data<'_>, tv: &Layout) -> Result<i64> {
    let threads = tv.mode(0)?.size()?.value;
    let values = tv.size()?.value / threads.max(1);
    let mut k = 1i64;
    'grow: while (2 * k) * elem_bytes <= 16 && values % (2 * k) == 0 {
        let w = 2 * k;
        for t in 0..threads {
            for j in 0..values / w {
                let first = byte_offset(elem_bytes, data, tv.call_int(Int::dy(t + threads * j * w))?.value)?;
                if first % (w * elem_bytes) != 0 {
                    break 'grow;
                }
                for i in 1..w {
                    let idx = tv.call_int(Int::dy(t + threads * (j * w + i)))?.value;
                    if byte_offset(elem_bytes, data, idx)? != first + i * elem_bytes {
                        break 'grow;
                    }
                }
            }
        }
        k = w;
    }
    Ok(k)
}

/// Every warp's instructions of a copy through this TV layout ((thread, value) -> column-major
/// index in DATA's domain; a multiple of 32 threads): instruction `j` of thread `t` moves values
/// `j*k .. j*k+k` (`k` elements: `vector_bytes / elem_bytes`, by default [`widest_vector`]).
pub fn copy_access(
    space: Space,
    elem_bytes: i64,
    data: Data<'_>,
    tv: &Layout,
    vector_bytes: Option<i64>,
) -> Result<CopyAccess> {
    let threads = tv.mode(0)?.size()?.value;
    if threads <= 0 || threads % WARP as i64 != 0 {
        return Err(Error::Rejected {
            condition: "a TV layout of whole warps",
            detail: format!("{threads} threads in {tv}"),
        });
    }
    let values = tv.size()?.value / threads;
    let vector_bytes = match vector_bytes {
        Some(v) => v,
        None => elem_bytes * widest_vector(elem_bytes, data, tv)?,
    };
    let k = vector_bytes / elem_bytes;
    if k < 1 || vector_bytes % elem_bytes != 0 || values % k != 0 {
        return Err(Error::Rejected {
            condition: "a whole number of vectors per thread",
            detail: format!("{values} values of {elem_bytes} bytes per thread, vectors of {vector_bytes} bytes"),
        });
    }
    let domain = match data {
        Data::Plain(l) => l.size()?.value,
        Data::Swizzled(c) => c.layout.size()?.value,
    };
    let mut warps = Vec::new();
    for w in 0..threads / WARP as i64 {
        let mut instrs = Vec::new();
        for j in 0..values / k {
            let mut offs = Vec::with_capacity(WARP);
            for l in 0..WARP as i64 {
                let idx = tv.call_int(Int::dy(w * WARP as i64 + l + threads * j * k))?.value;
                if !(0..domain).contains(&idx) {
                    return Err(Error::OutOfRange(format!(
                        "TV maps into index {idx}, outside DATA's domain 0..{domain}"
                    )));
                }
                offs.push(byte_offset(elem_bytes, data, idx)?);
            }
            let c = cost(space, &offs, vector_bytes)?;
            instrs.push((offs, c));
        }
        warps.push(instrs);
    }
    Ok(CopyAccess { vector_bytes, warps })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// 32 aligned offsets drawn from a few addresses (so that broadcasts and conflicts occur).
    fn warp(vector: i64) -> impl Strategy<Value = Vec<i64>> {
        (prop::collection::vec(0i64..4096, 1..9), prop::collection::vec(0usize..8, 32))
            .prop_map(move |(pool, pick)| pick.iter().map(|&i| pool[i % pool.len()] / vector * vector).collect())
    }

    fn width() -> impl Strategy<Value = i64> {
        prop::sample::select(VECTOR_WIDTHS.to_vec())
    }

    proptest! {
        /// Postconditions 1 and 3.
        #[test]
        fn global_postconditions((v, offs, rot) in width().prop_flat_map(|v| (Just(v), warp(v), 0usize..32))) {
            let g = global(&offs, v).unwrap();
            prop_assert!(SECTOR * g.sectors >= g.bytes && g.bytes >= v);
            prop_assert!(g.utilization() > 0.0 && g.utilization() <= 1.0);
            let mut p = offs.clone();
            p.rotate_left(rot);
            p.reverse();
            prop_assert_eq!(global(&p, v).unwrap(), g);
        }

        /// Postcondition 2, and the merged phases never cost more than the 128-byte phases.
        #[test]
        fn shared_postconditions((v, offs) in width().prop_flat_map(|v| (Just(v), warp(v)))) {
            let s = shared(&offs, v).unwrap();
            let ph = phases(&offs, v);
            prop_assert!(s.conflicts >= 0 && s.wavefronts >= ph.len() as i64);
            prop_assert_eq!(ph.iter().map(|r| r.len()).sum::<usize>(), WARP);
            let naive = WARP / (WARP * 4 / v.max(4) as usize);
            prop_assert!(ph.len() <= naive && ph.len() >= naive.div_ceil(2).max(1));
            let n = WARP * 4 / v.max(4) as usize;
            let per_128: i64 = offs.chunks(n).map(|c| bank_depth(c, v)).sum();
            prop_assert!(s.wavefronts <= per_128);
            // A store is served in the 128-byte phases: never fewer wavefronts than the load.
            let st = shared_store(&offs, v).unwrap();
            prop_assert_eq!(st.wavefronts, per_128);
            prop_assert!(st.wavefronts >= s.wavefronts && st.conflicts >= 0);
        }

        /// An ldmatrix / stmatrix of x matrices takes between x and 8x wavefronts (a matrix's 8
        /// rows of 4 words each reach a bank at most 8 times), and the threads past 8x are ignored.
        #[test]
        fn matrix_postconditions((offs, x, junk) in (warp(16), prop::sample::select(vec![1usize, 2, 4]), warp(16))) {
            let m = matrix(&offs, x).unwrap();
            prop_assert!(m.wavefronts >= x as i64 && m.wavefronts <= 8 * x as i64);
            prop_assert_eq!(m.conflicts, m.wavefronts - x as i64);
            let mut other = offs.clone();
            other[8 * x..].copy_from_slice(&junk[8 * x..]);
            prop_assert_eq!(matrix(&other, x).unwrap(), m);
        }
    }

    /// The widest vector equals CuTe's `copy_vector_bits` (max_common_vector of the thread's
    /// source layout `DATA o TV(t,_)` and its register fragment, capped by max_alignment and 128
    /// bits) on static tiles whose per-thread starts are 16-byte aligned.
    #[test]
    fn the_widest_vector_is_cutes_copy_vector() {
        use crate::max_alignment::copy_vector_bits;
        use crate::test_util::l;
        let cases = [
            ("(_8,_32):(_32,_1)", "((_4,_8),_8):((_64,_1),_8)", 2),
            ("(_8,_32):(_1,_8)", "((_4,_8),_8):((_64,_1),_8)", 2),
            ("(_16,_8):(_1,_16)", "((_8,_4),(_2,_2)):((_2,_32),(_1,_16))", 4),
            ("(_16,_8):(_1,_16)", "((_16,_2),_4):((_1,_16),_32)", 4),
            ("(_32,_32):(_32,_1)", "((_8,_4),_8):((_128,_1),_4)", 4),
            ("(_64,_8):(_8,_1)", "(_32,(_2,_8)):(_2,(_1,_64))", 8),
        ];
        for (data, tv, elem) in cases {
            let (d, t) = (l(data), l(tv));
            let vals = t.mode(1).unwrap();
            let src = crate::composition::composition(&d, &vals).unwrap();
            let dst = Layout::col_major(vals.shape.clone()).unwrap();
            let bits = copy_vector_bits(&src, &dst, 8 * elem).unwrap();
            let k = widest_vector(elem, Data::Plain(&d), &t).unwrap();
            assert_eq!(k * 8 * elem, bits, "{data} {tv}");
        }
        // Where a thread's start is not aligned, CuTe's rule (which assumes 128-bit aligned
        // thread pointers) is wider than what the addresses allow: the padded (8,8):(1,9) tile
        // with 2 floats per thread down a column: CuTe 64 bits, but thread 4 starts at byte 36.
        let (d, t) = (l("(_8,_8):(_1,_9)"), l("(_32,_2):(_2,_1)"));
        let vals = t.mode(1).unwrap();
        let src = crate::composition::composition(&d, &vals).unwrap();
        let dst = Layout::col_major(vals.shape.clone()).unwrap();
        assert_eq!(copy_vector_bits(&src, &dst, 32).unwrap(), 64);
        assert_eq!(byte_offset(4, Data::Plain(&d), t.call_int(Int::dy(4)).unwrap().value).unwrap(), 36);
        assert_eq!(widest_vector(4, Data::Plain(&d), &t).unwrap(), 1);
    }

    #[test]
    fn misaligned_or_partial_warps_are_refused() {
        assert!(global(&[4; 32], 8).is_err());
        assert!(shared(&[0; 16], 4).is_err());
        assert!(shared(&[0; 32], 3).is_err());
    }
}
