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
    /// cp.async: the destination's byte offsets (`offsets` are the source's).
    pub dst: Option<Vec<i64>>,
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
        if !(5..=6).contains(&args.len()) {
            bail!("{expr}: warp_access takes 5 arguments (6 for cp.async)");
        }
        let (space, vector, offsets, dst) =
            crate::expr::builtins::atoms::warp_access_offsets(&args).map_err(|e| anyhow::anyhow!("{expr}: {e}"))?;
        let elem = args[1].to_int().map_err(|e| anyhow::anyhow!("{e}"))?.value;
        let c = AccessCase { id, family, expr: expr.to_string(), space, elem, vector, offsets, dst };
        c.predicted()?;
        Ok(c)
    }
    /// The engine's figures.
    pub fn predicted(&self) -> Result<Cost> {
        match &self.dst {
            Some(d) => warp_access::cost_copy(self.space, &self.offsets, d, self.vector),
            None => warp_access::cost(self.space, &self.offsets, self.vector),
        }
        .map_err(|e| anyhow::anyhow!("{}: {e}", self.expr))
    }
    /// The instruction's token in `cases.txt` (g and s: the loads of the first run).
    pub fn token(&self) -> String {
        match self.space {
            Space::Global => "g".into(),
            Space::Shared => "s".into(),
            Space::StShared => "ss".into(),
            Space::Ldmatrix { x, trans } => format!("lm{x}{}", if trans { "t" } else { "" }),
            Space::Stmatrix { x, trans } => format!("sm{x}{}", if trans { "t" } else { "" }),
            Space::CpAsync { cg } => if cg { "cpg" } else { "cp" }.into(),
        }
    }
    /// The kernel ncu must name for this case (access_check.cu).
    pub fn kernel(&self) -> String {
        match self.space {
            Space::Global | Space::Shared => {
                format!("warp_load<{}, {}>", self.vector, (self.space == Space::Shared) as u8)
            }
            Space::StShared => format!("warp_store<{}>", self.vector),
            Space::Ldmatrix { x, trans } => format!("warp_ldsm<{x}, {}>", trans as u8),
            Space::Stmatrix { x, trans } => format!("warp_stsm<{x}, {}>", trans as u8),
            Space::CpAsync { cg } => format!("warp_cp<{}, {}>", self.vector, cg as u8),
        }
    }
    /// The line of `cases.txt` (for cp.async the 32 destination offsets follow the source's).
    pub fn device_line(&self) -> String {
        let offs: Vec<String> = self.offsets.iter().chain(self.dst.iter().flatten()).map(|o| o.to_string()).collect();
        format!("{} {} {} {}", self.id, self.token(), self.vector, offs.join(" "))
    }
}

impl AccessCase {
    /// Whether the offsets lie in the memory access_check.cu allocates.
    pub fn fits(&self) -> bool {
        let limit = if self.space == Space::Global || self.dst.is_some() { GLOBAL_LIMIT } else { SHARED_LIMIT };
        self.offsets.iter().all(|&o| o + 16 <= limit) && self.dst.iter().flatten().all(|&o| o + 16 <= SHARED_LIMIT)
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
    draw_parts(r, family, space, vector).text()
}

/// The parts of one drawn `warp_access(...)`.
struct Drawn {
    space: &'static str,
    elem: i64,
    vector: i64,
    data: String,
    threads: String,
}

impl Drawn {
    fn text(&self) -> String {
        format!("warp_access({}, {}, {}, {}, {})", self.space, self.elem, self.vector, self.data, self.threads)
    }
}

/// The element sizes (bytes) that fit in a vector of `vector` bytes, smallest first.
fn elems_up_to(vector: i64) -> Vec<i64> {
    warp_access::VECTOR_WIDTHS.iter().copied().filter(|&e| e <= vector).collect()
}

/// `plain` under a random `Swizzle<B,M,S>` (M at least the vector's bits, `k` elements a vector)
/// `percent` times in a hundred, else `plain` itself.
fn maybe_swizzled(r: &mut Rng, percent: u64, k: i64, plain: String) -> String {
    if !r.chance(percent) {
        return plain;
    }
    let b = 1 + r.below(3) as i64;
    let m = k.trailing_zeros() as i64 + r.below(2) as i64;
    let sh = b + r.below(3) as i64;
    format!("composition(Swizzle<{b},{m},{sh}>,{plain})")
}

/// A random access of a family for this instruction and width.
fn draw_parts(r: &mut Rng, family: &'static str, space: &'static str, vector: i64) -> Drawn {
    let elems = elems_up_to(vector);
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
    Drawn { space, elem, vector, data, threads }
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
        if !c.fits() {
            continue;
        }
        out.push(c);
    }
    Ok(out)
}

/// A mixed-radix access (modes of extent 2 to 8, not only powers of two, so that carries make
/// the lanes' address patterns differ from quad to quad and from half warp to half warp).
fn draw_mixed(r: &mut Rng, space: &'static str, vector: i64) -> Drawn {
    let elem = r.pick(&elems_up_to(vector));
    let k = vector / elem;
    let n = 2 + r.below(3) as usize;
    let shape: Vec<i64> = (0..n).map(|_| r.pick(&[2i64, 3, 4, 5, 6, 8])).collect();
    let stride: Vec<i64> =
        (0..n).map(|_| k * r.pick(&[0i64, 0, 1, 1, 2, 3, 4, 8, 16, 32, 64, 128, 5, 24, 40])).collect();
    let size: i64 = shape.iter().product();
    let threads = match r.below(4) {
        0 => "(32):(1)".to_string(),
        1 => format!("(16,2):(1,{})", r.below(size as u64 / 2 + 1).max(1)),
        2 => format!("(4,8):({},{})", r.pick(&[0i64, 1, 2, 3]), 1 + r.below(6)),
        _ => format!("(2,16):({},1)", 16 + r.below(size as u64 / 2 + 1)),
    };
    Drawn { space, elem, vector, data: layout_text(&shape, &stride), threads }
}

/// An access whose first half warp pairs up (lanes 2j and 2j+1 on one address: DATA's first mode
/// has extent 2 and stride 0, the half starts at an even index) and whose second half does not
/// (it starts at an odd index, so its quads straddle three addresses).
fn draw_halves(r: &mut Rng, space: &'static str) -> Drawn {
    let vector = r.pick(&[16i64, 16, 16, 8]);
    let elem = r.pick(&elems_up_to(vector));
    let k = vector / elem;
    let n1 = r.pick(&[8i64, 16, 32]);
    let n2 = r.pick(&[2i64, 4, 8]);
    let s1 = k * r.pick(&[1i64, 1, 2, 3, 4, 5, 8, 16, 32]);
    let s2 = k * r.pick(&[0i64, 1, 8, 16, 64, 128, 256, 24, 40]);
    let plain = layout_text(&[2, n1, n2], &[0, s1, s2]);
    let data = maybe_swizzled(r, 40, k, plain);
    let size = 2 * n1 * n2;
    let c = 1 + 2 * r.below(((size - 16) / 2).max(1) as u64) as i64; // odd, c + 15 < size
    let threads = if r.chance(50) { format!("(16,2):(1,{c})") } else { format!("(2,8,2):(1,2,{c})") };
    Drawn { space, elem, vector, data, threads }
}

/// An access whose quads read `{a,a,b,b}`, `{a,b,b,b}`, `{a,a,a,b}` or one address, depending
/// on where each group of lanes starts in DATA's stride-0 first mode (extent 2, 4 or 8): the
/// loads that tell "every quad in pairs" from "at most 2 addresses per quad".
fn draw_quads(r: &mut Rng, space: &'static str) -> Drawn {
    let vector = r.pick(&[16i64, 16, 8]);
    let elem = r.pick(&elems_up_to(vector));
    let k = vector / elem;
    let e0 = r.pick(&[2i64, 4, 4, 8]);
    let n1 = r.pick(&[4i64, 8, 16]);
    let n2 = r.pick(&[2i64, 4, 8]);
    let s1 = k * r.pick(&[1i64, 1, 2, 3, 4, 5, 8, 16, 32]);
    let s2 = k * r.pick(&[0i64, 1, 8, 16, 64, 128, 256, 24, 40]);
    let plain = layout_text(&[e0, n1, n2], &[0, s1, s2]);
    let data = maybe_swizzled(r, 30, k, plain);
    let size = e0 * n1 * n2;
    let threads = if r.chance(50) {
        format!("(16,2):(1,{})", r.below((size - 15).max(1) as u64))
    } else {
        format!("(8,4):(1,{})", r.below(((size - 8) / 3).max(1) as u64))
    };
    Drawn { space, elem, vector, data, threads }
}

/// The third run (`cargo xtask gpu --access --quads`): shared 8/16-byte loads and stores whose
/// quads read one, two-in-pairs or two-unpaired addresses ([`draw_quads`]), 3 of 4 of them loads.
pub fn random_quad_cases(seed: u64, n: usize) -> Result<Vec<AccessCase>> {
    let mut out = Vec::with_capacity(n);
    let mut r = Rng(seed);
    let mut tries = 0usize;
    while out.len() < n {
        tries += 1;
        if tries > 1000 * n.max(1) {
            bail!("could not draw {n} cases ({} drawn)", out.len());
        }
        let space = if out.len() * 4 < n * 3 { "shared" } else { "st_shared" };
        let text = draw_quads(&mut r, space).text();
        let Ok(c) = AccessCase::from_expr(out.len(), "quads", &text) else { continue };
        if c.fits() {
            out.push(c);
        }
    }
    Ok(out)
}

/// The first 16 lanes pair up (every quad reads at most 2 addresses) and the last 16 do not, or
/// the other way round.
pub fn halves_differ(offsets: &[i64]) -> bool {
    warp_access::quads_pair_up(&offsets[..16]) != warp_access::quads_pair_up(&offsets[16..])
}

/// The half warps' offsets lie in different 256-byte windows.
pub fn windows_differ(offsets: &[i64]) -> bool {
    let w = |h: &[i64]| h.iter().map(|o| o / 256).collect::<std::collections::BTreeSet<_>>();
    w(&offsets[..16]) != w(&offsets[16..])
}

/// The rule the first run's one difference replaced (each 256-byte group of an 8/16-byte shared
/// access merged when its own quads pair up), kept to show which cases tell the two apart.
pub fn half_warp_rule(offsets: &[i64], vector: i64) -> (i64, i64) {
    if vector <= 4 {
        let w = warp_access::bank_depth(offsets, vector);
        return (w, w - 1);
    }
    let (mut w, mut ph) = (0, 0);
    for g in offsets.chunks((256 / vector) as usize) {
        let n = if warp_access::quads_pair_up(g) { g.len() } else { (128 / vector) as usize };
        for c in g.chunks(n) {
            w += warp_access::bank_depth(c, vector);
            ph += 1;
        }
    }
    (w, w - ph)
}

/// The fixed cases from CuTe's users (CUTLASS issues), first in the second run: see
/// fixtures/gpu/README.md.
pub const USERS: [&str; 5] = [
    // #3172: SM75_U16x8_LDSM_T (ldmatrix.x4.trans) of the m16n8k16 A operand, M-major half_t
    // (128,32) tile of the (128,8) atom under Swizzle<3,3,4>: thread t gives row k = t%8 + 8(t/16)
    // of M-block 8((t/8)%2).
    "warp_access(ldmatrix_x4_trans, 2, 16, composition(Swizzle<3,3,4>,(128,32):(1,128)), (8,2,2):(128,8,1024))",
    // the same without the swizzle
    "warp_access(ldmatrix_x4_trans, 2, 16, (128,32):(1,128), (8,2,2):(128,8,1024))",
    // #1882: the tutorial's copy with a (8,32):(32,1) thread layout storing half_t into a (16,32)
    // tile of a column-major (128,32) shared tensor: warp 0 stores row 0, threads along the columns.
    "warp_access(st_shared, 2, 2, (16,32):(1,128), (32):(16))",
    // the same tile row-major
    "warp_access(st_shared, 2, 2, (16,32):(32,1), (32):(16))",
    // #1882 with CuTe's widest vector for that partition of a row-major tile: 16 bytes per thread
    "warp_access(st_shared, 2, 16, (16,32):(32,1), (4,8):(128,1))",
];

/// The second run (`cargo xtask gpu --access --ops`): the users' cases, then `n` random cases in
/// groups of one kind of instruction each: shared 8/16-byte loads whose half warps differ (in
/// pairing or in 256-byte window), st.shared, ldmatrix, stmatrix, cp.async.
pub fn random_op_cases(seed: u64, n: usize) -> Result<Vec<AccessCase>> {
    let mut out = Vec::with_capacity(n + USERS.len());
    for e in USERS {
        out.push(AccessCase::from_expr(out.len(), "users", e)?);
    }
    let mut r = Rng(seed);
    // (share of n in percent, what to draw)
    let groups: [(usize, &str); 5] = [(28, "halves"), (14, "st"), (22, "ldsm"), (16, "stsm"), (20, "cp")];
    let fams = ["tile", "bits", "swizzle", "swizzle", "gmma"];
    for (share, group) in groups {
        let want = out.len() + n * share / 100;
        let mut tries = 0usize;
        while out.len() < want {
            tries += 1;
            if tries > 2000 * n.max(1) {
                bail!("could not draw the {group} cases ({} drawn)", out.len());
            }
            let (family, text): (&'static str, String) = match group {
                "halves" => {
                    if r.chance(70) {
                        ("halves", draw_halves(&mut r, "shared").text())
                    } else {
                        let v = r.pick(&[8i64, 16]);
                        ("windows", draw_mixed(&mut r, "shared", v).text())
                    }
                }
                "st" => {
                    let v = r.pick(&[1i64, 2, 4, 8, 16, 8, 16]);
                    if r.chance(30) {
                        ("halves", draw_halves(&mut r, "st_shared").text())
                    } else {
                        let f = r.pick(&fams);
                        (f, draw_parts(&mut r, f, "st_shared", v).text())
                    }
                }
                "ldsm" | "stsm" => {
                    let x = r.pick(&["x1", "x2", "x4", "x4"]);
                    let t = if r.chance(50) { "_trans" } else { "" };
                    let name = format!("{}matrix_{x}{t}", if group == "ldsm" { "ld" } else { "st" });
                    let sp: &'static str = warp_access::Space::names().find(|n| *n == name).unwrap_or("ldmatrix_x4");
                    let f = r.pick(&fams);
                    (f, draw_parts(&mut r, f, sp, 16).text())
                }
                _ => {
                    let cg = r.chance(25);
                    let v = if cg { 16 } else { r.pick(&[4i64, 8, 16]) };
                    let f = r.pick(&["tile", "bits", "swizzle", "swizzle"]);
                    let d = draw_parts(&mut r, f, "cp_async", v);
                    // The source: the destination's domain read from global memory, column-major
                    // with a random row pitch, or the destination's own layout unswizzled.
                    let plain = d
                        .data
                        .strip_prefix("composition(")
                        .and_then(|x| x.split_once(">,"))
                        .and_then(|p| p.1.strip_suffix(')'))
                        .map(str::to_string);
                    let src = match plain {
                        Some(p) if r.chance(50) => p,
                        _ => {
                            let Ok(size) = eval_str(&format!("size({})", d.data)).map(|v| v.to_string()) else {
                                continue;
                            };
                            format!("({size}):({})", r.pick(&[1i64, 1, 2, 4]))
                        }
                    };
                    let sp = if cg { "cp_async_cg" } else { "cp_async" };
                    (f, format!("warp_access({sp}, {}, {}, {src}, {}, {})", d.elem, d.vector, d.data, d.threads))
                }
            };
            let c = match AccessCase::from_expr(out.len(), family, &text) {
                Ok(c) => c,
                Err(e) => {
                    if std::env::var_os("ACCESS_DEBUG").is_some() {
                        eprintln!("{e}");
                    }
                    continue;
                }
            };
            if !c.fits() {
                continue;
            }
            let keep = match family {
                "halves" => c.vector >= 8 && halves_differ(&c.offsets),
                "windows" => c.vector >= 8 && windows_differ(&c.offsets),
                _ => true,
            };
            if keep {
                out.push(c);
            }
        }
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
    let fams = ["chapter", "tile", "bits", "swizzle", "gmma", "halves", "windows", "users", "quads"];
    let mut out = Vec::new();
    for line in text.lines().filter(|l| !l.starts_with('#') && !l.trim().is_empty()) {
        let mut it = line.splitn(3, '\t');
        let (Some(id), Some(fam), Some(e)) = (it.next(), it.next(), it.next()) else { bail!("bad line: {line}") };
        let family = fams.iter().copied().find(|f| *f == fam).unwrap_or("other");
        out.push(AccessCase::from_expr(id.parse()?, family, e)?);
    }
    Ok(out)
}

/// ncu's counters of one launch (the four of the first run; 0 where a launch's metrics did not
/// include one).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Counters {
    pub sectors: i64,
    pub requests: i64,
    pub wavefronts: i64,
    pub conflicts: i64,
}

/// One launch as ncu saw it: the kernel's name, the four counters and every metric measured.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Launch {
    pub kernel: String,
    pub counters: Counters,
    /// Every metric of the launch (name as ncu prints it, `.sum` included).
    pub all: BTreeMap<String, i64>,
}

impl Launch {
    pub fn from_all(kernel: String, all: BTreeMap<String, i64>) -> Launch {
        let g = |m: &str| all.get(m).copied().unwrap_or(0);
        let counters = Counters {
            sectors: g(METRICS[0]),
            requests: g(METRICS[1]),
            wavefronts: g(METRICS[2]),
            conflicts: g(METRICS[3]),
        };
        Launch { kernel, counters, all }
    }
    pub fn get(&self, metric: &str) -> Option<i64> {
        self.all.get(metric).copied()
    }
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

/// Whether an ncu column is one of the counters this check reads (l1tex metrics).
fn is_metric(name: &str) -> bool {
    name.starts_with("l1tex__") && name.ends_with(".sum")
}

/// ncu's raw page (`--page raw --csv`): one row per launch, in launch order; the file may hold
/// several blocks (one per ncu process, each with its header, its metrics and IDs from 0), read
/// in order.
pub fn read_counters(csv: &str) -> Result<Vec<Launch>> {
    let mut out = Vec::new();
    type Columns = (usize, usize, Vec<(usize, String)>);
    let mut cols: Option<Columns> = None;
    let mut base = 0usize;
    for line in csv.lines() {
        let f = csv_fields(line);
        if f.first().map(String::as_str) == Some("ID") {
            let col =
                |name: &str| f.iter().position(|h| h == name).with_context(|| format!("ncu.csv has no column {name}"));
            let metrics: Vec<(usize, String)> =
                f.iter().enumerate().filter(|(_, h)| is_metric(h)).map(|(i, h)| (i, h.clone())).collect();
            if metrics.is_empty() {
                bail!("ncu.csv: a block without l1tex metrics");
            }
            cols = Some((col("ID")?, col("Kernel Name")?, metrics));
            base = out.len();
            continue;
        }
        let Some((id_col, kname, mcols)) = &cols else { continue };
        // The units row follows the header; ncu's own messages are not rows.
        let Some(Ok(id)) = f.get(*id_col).map(|s| s.parse::<usize>()) else { continue };
        let mut all = BTreeMap::new();
        for (i, name) in mcols {
            let s = f.get(*i).map(|s| s.replace(',', "")).unwrap_or_default();
            let v = s
                .trim()
                .parse::<f64>()
                .map(|x| x as i64)
                .with_context(|| format!("ncu.csv: not a number: {s:?} in {line}"))?;
            all.insert(name.clone(), v);
        }
        if base + id != out.len() {
            bail!("ncu.csv: launch {id} of a block out of order");
        }
        out.push(Launch::from_all(f[*kname].clone(), all));
    }
    if cols.is_none() {
        bail!("ncu.csv has no header row");
    }
    Ok(out)
}

fn short_kernel(k: &str) -> &str {
    k.split('(').next().unwrap_or(k).trim_start_matches("void ").trim()
}

/// `counters.tsv`: the launches as read from ncu.csv, the form the recorded runs keep (ncu's raw
/// page repeats the device's attributes on every row). The first run's form: launch number,
/// kernel, the four counters; when a launch has other metrics (the second run), every launch is
/// `launch, kernel, metric=value...`.
pub fn counters_file(launches: &[Launch]) -> String {
    let only_four = launches.iter().all(|l| l.all.len() == 4 && METRICS.iter().all(|m| l.all.contains_key(*m)));
    let mut s = String::new();
    if only_four {
        s += "# launch\tkernel\tsectors\trequests\twavefronts\tconflicts (ncu: ";
        s += &METRICS.join(", ");
        s += ")\n";
        for (i, l) in launches.iter().enumerate() {
            let c = l.counters;
            s += &format!(
                "{i}\t{}\t{}\t{}\t{}\t{}\n",
                short_kernel(&l.kernel),
                c.sectors,
                c.requests,
                c.wavefronts,
                c.conflicts
            );
        }
    } else {
        s += "# launch\tkernel\tmetric=value ... (ncu's counters of the launch, as ncu named them)\n";
        for (i, l) in launches.iter().enumerate() {
            let m: Vec<String> = l.all.iter().map(|(k, v)| format!("{k}={v}")).collect();
            s += &format!("{i}\t{}\t{}\n", short_kernel(&l.kernel), m.join("\t"));
        }
    }
    s
}

/// Reads `counters.tsv` (either form).
pub fn read_counters_file(text: &str) -> Result<Vec<Launch>> {
    let mut out = Vec::new();
    for line in text.lines().filter(|l| !l.starts_with('#') && !l.trim().is_empty()) {
        let f: Vec<&str> = line.split('\t').collect();
        if f.len() < 3 || f[0].parse::<usize>().ok() != Some(out.len()) {
            bail!("counters.tsv: bad line {line:?}");
        }
        let mut all = BTreeMap::new();
        if f[2].contains('=') {
            for kv in &f[2..] {
                let (k, v) = kv.split_once('=').with_context(|| format!("counters.tsv: {line:?}"))?;
                all.insert(k.to_string(), v.parse::<i64>().with_context(|| format!("counters.tsv: {line:?}"))?);
            }
        } else {
            if f.len() != 6 {
                bail!("counters.tsv: bad line {line:?}");
            }
            for (i, m) in METRICS.iter().enumerate() {
                all.insert(m.to_string(), f[2 + i].parse::<i64>().with_context(|| format!("counters.tsv: {line:?}"))?);
            }
        }
        out.push(Launch::from_all(f[1].to_string(), all));
    }
    Ok(out)
}

fn wavefronts(op: &str) -> String {
    format!("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{op}.sum")
}
fn bank_conflicts(op: &str) -> String {
    format!("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_{op}.sum")
}

/// A pair of figures ncu measured (sectors and requests, or wavefronts and conflicts).
pub type Pair = Option<(i64, i64)>;

/// What ncu measured for the case's instruction: (sectors, requests) of global memory and
/// (wavefronts, conflicts) of shared memory, each None where the instruction has none.
pub fn measured(space: Space, l: &Launch) -> (Pair, Pair) {
    let shared_op =
        |ops: &[&str]| ops.iter().find_map(|op| Some((l.get(&wavefronts(op))?, l.get(&bank_conflicts(op))?)));
    match space {
        Space::Global => (Some((l.counters.sectors, l.counters.requests)), None),
        Space::Shared => (None, Some((l.counters.wavefronts, l.counters.conflicts))),
        Space::StShared => (None, shared_op(&["st"])),
        Space::Ldmatrix { .. } => (None, shared_op(&["ldsm", "ld"])),
        Space::Stmatrix { .. } => (None, shared_op(&["stsm", "st"])),
        Space::CpAsync { .. } => {
            let g = |what: &str| {
                let base = format!("l1tex__t_{what}_pipe_lsu_mem_global_op_ldgsts");
                l.get(&format!("{base}.sum")).or_else(|| {
                    let a = l.get(&format!("{base}_cache_access.sum"));
                    let b = l.get(&format!("{base}_cache_bypass.sum"));
                    (a.is_some() || b.is_some()).then(|| a.unwrap_or(0) + b.unwrap_or(0))
                })
            };
            // cp.async.cg bypasses L1: no l1tex counter sees its sectors.
            let global =
                if matches!(space, Space::CpAsync { cg: true }) { None } else { g("sectors").zip(g("requests")) };
            (global, None)
        }
    }
}

/// A case's verdict: the engine's figures against the counters.
#[derive(Clone, Debug)]
pub struct Compared {
    pub case: AccessCase,
    pub predicted: Cost,
    pub measured: Counters,
    /// Every counter of the launch.
    pub launch: Launch,
    pub agrees: bool,
    /// False where ncu has no counter of the case's figures (cp.async.cg: its sectors bypass L1).
    pub checked: bool,
}

/// Compares every case with its launch (cases and launches in the same order; the kernel's
/// template arguments must name the case's instruction and width).
pub fn compare(cases: &[AccessCase], launches: &[Launch]) -> Result<Vec<Compared>> {
    if cases.len() != launches.len() {
        bail!("{} cases but {} launches measured", cases.len(), launches.len());
    }
    let mut out = Vec::with_capacity(cases.len());
    for (c, l) in cases.iter().zip(launches) {
        let want = c.kernel();
        if !l.kernel.contains(&want) {
            bail!("case {}: launch is {}, not {want}", c.id, l.kernel);
        }
        let p = c.predicted()?;
        let m = l.counters;
        let agrees = match (c.space, p) {
            (Space::Global, Cost::Global(g)) => g.sectors == m.sectors && g.requests == m.requests && m.wavefronts == 0,
            (Space::Shared, Cost::Shared(s)) => {
                s.wavefronts == m.wavefronts && s.conflicts == m.conflicts && m.sectors == 0
            }
            (sp, Cost::Shared(s)) => measured(sp, l).1 == Some((s.wavefronts, s.conflicts)),
            (sp @ Space::CpAsync { .. }, Cost::Global(g)) => measured(sp, l).0 == Some((g.sectors, g.requests)),
            _ => false,
        };
        let checked = !matches!(c.space, Space::CpAsync { cg: true });
        out.push(Compared {
            case: c.clone(),
            predicted: p,
            measured: m,
            launch: l.clone(),
            agrees: agrees && checked,
            checked,
        });
    }
    Ok(out)
}

/// ncu's figures for a case as the engine prints its own (`sectors=.. requests=..`,
/// `wavefronts=.. conflicts=..`, or both for cp.async).
pub fn measured_text(r: &Compared) -> String {
    let m = r.measured;
    let (g, s) = match r.case.space {
        Space::Global => (Some((m.sectors, m.requests)), None),
        Space::Shared => (None, Some((m.wavefronts, m.conflicts))),
        sp => measured(sp, &r.launch),
    };
    let mut parts = Vec::new();
    if let Some((a, b)) = g {
        parts.push(format!("sectors={a} requests={b}"));
    }
    if let Some((a, b)) = s {
        parts.push(format!("wavefronts={a} conflicts={b}"));
    }
    if parts.is_empty() {
        parts.push("(no counter of this instruction)".into());
    }
    parts.join(" ")
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
