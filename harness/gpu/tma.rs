//! The TMA proof on silicon (`cargo xtask gpu-tma`): random TMA copies built by CuTe's own
//! `make_tma_copy` on the H200, each moving a tile whose elements carry their own index, and every
//! element checked against where the engine's layouts say it lands.
//!
//! A case ([`TmaCase`]) is an element type (1, 2, 4 or 8 bytes), a global layout `G` (rank 1 to 4,
//! one contiguous mode, the others padded to 16-byte strides in a random order; static or dynamic),
//! a static shared-memory layout `S` (a compact plain layout whose stride-1 mode is G's contiguous
//! one, or a GMMA atom `GMMA::Layout_{K,MN}_{INTER,SW32,SW64,SW128}_Atom<T>` tiled by
//! `tile_to_shape`), a CTA tiler (per mode an extent or a strided `N:_2` layout) whose sizes are S's
//! `product_each(shape)`, a tile coordinate (partial tiles included) and a direction (load 80 %,
//! store 20 %). [`random_cases`] draws them by construction from a seed.
//!
//! The device (`cpp/gpu/tma_check.cu{,h}`, `cpp/gpu/tma_run.sh`, no Rust) builds the copy with
//! `make_tma_copy(SM90_TMA_{LOAD,STORE}, G, S, tiler, Int<1>)` and moves the tile at the coordinate
//! (`local_tile(tma.get_tma_tensor(shape(G)), tiler, coord)`, `partition_S/D`, `copy`). A load
//! reports every shared-memory element (global element `j` carries `j+1`; 0 is the zero fill, -1
//! untouched), a store every element of the global allocation (shared element `i` carries `i+1`).
//! The engine's prediction ([`predict`]): for each index `k` of the tile, `local_tile(G, tiler,
//! coord)` and `local_tile_offset` give the global element, the same tiling of `shape(G)` with
//! stride 1 on mode `i` and 0 elsewhere its coordinate `i` (in bounds or not), and `S(k)` (for a
//! swizzled atom: the swizzle applied to the byte address, `smem_ptr_flag`) the shared element.
//!
//! The device also records the `cuTensorMapEncodeTiled` arguments CuTe passed (`args` lines), and a
//! corrupted twin must fail: `--corrupt` perturbs each case's descriptor one of four ways, chosen
//! on the device from the case id and printed as its `twin` line ([`twin_kind`]): the byte stride
//! of a TMA dimension `d >= 1` (rank 1: the global address), a box reshaped to the same bytes, the
//! swizzle mode, or an element stride of 2 over a doubled box extent. (The first runs' twin,
//! `--corrupt-stride1`, always perturbed the stride of dimension 1.)

use std::collections::BTreeMap;
use std::fmt::Write;

use anyhow::{bail, Context, Result};

use crate::engine::swizzle::Offset;
use crate::expr::eval::eval_str;
use crate::expr::value::{AtomValue, Value};
use crate::gpu::access::Rng;

/// Element types: C++ name, bytes, the name the expression language uses for its GMMA atom.
pub const TYPES: [(&str, i64, &str); 13] = [
    ("uint8_t", 1, "uint8_t"),
    ("int8_t", 1, "uint8_t"),
    ("cute::float_e4m3_t", 1, "uint8_t"),
    ("cute::float_e5m2_t", 1, "uint8_t"),
    ("uint16_t", 2, "half_t"),
    ("cute::half_t", 2, "half_t"),
    ("cute::bfloat16_t", 2, "half_t"),
    ("uint32_t", 4, "float"),
    ("int32_t", 4, "float"),
    ("float", 4, "float"),
    ("double", 8, "double"),
    ("int64_t", 8, "double"),
    ("uint64_t", 8, "double"),
];

/// The device's limits (tma_check.cuh): global allocation and shared memory.
pub const GLOBAL_ALLOC: i64 = 96 << 20;
pub const GLOBAL_SLACK: i64 = 1 << 20;
pub const SMEM_LIMIT: i64 = 160 * 1024;

/// The shared-memory layout of a case.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Smem {
    /// A compact static layout.
    Plain { shape: Vec<i64>, stride: Vec<i64> },
    /// `tile_to_shape(GMMA::Layout_{major}_{kind}_Atom<T>, shape)`.
    Gmma { major: &'static str, kind: &'static str, shape: Vec<i64> },
}

/// One TMA copy.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TmaCase {
    pub id: usize,
    pub store: bool,
    /// Index into [`TYPES`].
    pub ty: usize,
    pub gshape: Vec<i64>,
    pub gstride: Vec<i64>,
    /// Static (`Int<N>`) global shape and strides, else dynamic (the contiguous stride is `_1`).
    pub gstatic: bool,
    pub smem: Smem,
    /// Per mode (extent, stride): stride 1 is the plain extent `_N`, else the layout `_N:_s`.
    pub tiler: Vec<(i64, i64)>,
    pub coord: Vec<i64>,
}

fn join(v: &[i64], f: impl Fn(i64) -> String) -> String {
    v.iter().map(|&x| f(x)).collect::<Vec<_>>().join(",")
}

impl TmaCase {
    pub fn elem(&self) -> i64 {
        TYPES[self.ty].1
    }
    pub fn type_name(&self) -> &'static str {
        TYPES[self.ty].0
    }
    /// The contiguous (stride-1) global mode.
    pub fn contiguous(&self) -> usize {
        self.gstride.iter().position(|&d| d == 1).unwrap_or(0)
    }
    /// `G` as the expression language spells it.
    pub fn g_expr(&self) -> String {
        let s = |x: i64| if self.gstatic { format!("_{x}") } else { x.to_string() };
        let d = |x: i64| if self.gstatic || x == 1 { format!("_{x}") } else { x.to_string() };
        format!("({}):({})", join(&self.gshape, s), join(&self.gstride, d))
    }
    pub fn s_expr(&self) -> String {
        match &self.smem {
            Smem::Plain { shape, stride } => {
                format!("({}):({})", join(shape, |x| format!("_{x}")), join(stride, |x| format!("_{x}")))
            }
            Smem::Gmma { major, kind, shape } => format!(
                "tile_to_shape(GMMA::Layout_{major}_{kind}_Atom<{}>, ({}))",
                TYPES[self.ty].2,
                join(shape, |x| format!("_{x}"))
            ),
        }
    }
    pub fn tiler_expr(&self) -> String {
        let m: Vec<String> =
            self.tiler.iter().map(|&(n, s)| if s == 1 { format!("_{n}") } else { format!("_{n}:_{s}") }).collect();
        format!("({})", m.join(","))
    }
    pub fn coord_expr(&self) -> String {
        format!("({})", join(&self.coord, |x| x.to_string()))
    }
    /// The layout of G's coordinate `i`: `shape(G)` with stride 1 on mode `i`, 0 elsewhere.
    fn coord_layout(&self, i: usize) -> String {
        let strides: Vec<i64> = (0..self.gshape.len()).map(|j| (i == j) as i64).collect();
        format!("({}):({})", join(&self.gshape, |x| x.to_string()), join(&strides, |x| x.to_string()))
    }
    /// The plan line (`cases.txt`).
    pub fn line(&self) -> String {
        format!(
            "{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}",
            self.id,
            if self.store { "store" } else { "load" },
            self.type_name(),
            self.g_expr(),
            if self.gstatic { "static" } else { "dynamic" },
            self.s_expr(),
            self.tiler_expr(),
            self.coord_expr()
        )
    }
    /// The case's C++ (a function `run_ID` in a part file).
    pub fn cuda(&self) -> String {
        let t = self.type_name();
        let sh = |x: i64| if self.gstatic { format!("Int<{x}>{{}}") } else { x.to_string() };
        let st = |x: i64| {
            if x == 1 {
                "_1{}".to_string()
            } else if self.gstatic {
                format!("Int<{x}>{{}}")
            } else {
                x.to_string()
            }
        };
        let g = format!(
            "make_layout(make_shape({}), make_stride({}))",
            self.gshape.iter().map(|&x| sh(x)).collect::<Vec<_>>().join(", "),
            self.gstride.iter().map(|&x| st(x)).collect::<Vec<_>>().join(", ")
        );
        let ints = |v: &[i64]| v.iter().map(|x| format!("Int<{x}>")).collect::<Vec<_>>().join(",");
        let sl = match &self.smem {
            Smem::Plain { shape, stride } => format!("Layout<Shape<{}>, Stride<{}>>", ints(shape), ints(stride)),
            Smem::Gmma { major, kind, shape } => {
                format!(
                    "decltype(tile_to_shape(GMMA::Layout_{major}_{kind}_Atom<{t}>{{}}, Shape<{}>{{}}))",
                    ints(shape)
                )
            }
        };
        let tiler: Vec<String> = self
            .tiler
            .iter()
            .map(|&(n, s)| if s == 1 { format!("Int<{n}>{{}}") } else { format!("Layout<Int<{n}>,Int<{s}>>{{}}") })
            .collect();
        let mut o = String::new();
        let _ = writeln!(o, "// case {}: {}", self.id, self.line().replace('\t', " "));
        let _ = writeln!(o, "int tma_case_{}(tma_check::Ctx& ctx) {{", self.id);
        let _ = writeln!(o, "  auto g = {g};");
        let _ = writeln!(o, "  using SL = {sl};");
        let _ = writeln!(
            o,
            "  return tma_check::run_case<{t}, {}, SL>(ctx, {}, g, make_tile({}), make_coord({}));",
            self.store,
            self.id,
            tiler.join(", "),
            join(&self.coord, |x| x.to_string()).replace(',', ", ")
        );
        o += "}\n";
        o
    }
    /// Elements of the global allocation the device makes (and reports for a store).
    pub fn global_elems(&self) -> Result<i64> {
        let cos = 1 + self.gshape.iter().zip(&self.gstride).map(|(s, d)| (s - 1) * d).sum::<i64>();
        Ok(((cos * self.elem() + 15) / 16 * 16 + GLOBAL_SLACK) / self.elem())
    }
}

fn eval(text: &str) -> Result<Value> {
    eval_str(text).map_err(|e| anyhow::anyhow!("{text}: {e}"))
}

fn layout_values(text: &str) -> Result<Vec<i64>> {
    let l = eval(text)?.to_layout().map_err(|e| anyhow::anyhow!("{text}: {e}"))?;
    l.values().map_err(|e| anyhow::anyhow!("{text}: {e}"))
}

fn int_of(text: &str) -> Result<i64> {
    Ok(eval(text)?.to_int().map_err(|e| anyhow::anyhow!("{text}: {e}"))?.value)
}

/// The shared-memory element of each tile index `k` (S evaluated at `k`; a layout over
/// `smem_ptr_flag_bits<B>` swizzles the byte address).
pub fn smem_offsets(case: &TmaCase) -> Result<Vec<i64>> {
    let text = case.s_expr();
    match eval(&text)? {
        Value::Layout(l) => l.values().map_err(|e| anyhow::anyhow!("{text}: {e}")),
        Value::Atom(AtomValue::Composed(c)) => {
            let e = case.elem();
            match c.offset {
                Offset::SmemPtr(bits) => {
                    if bits != 8 * e {
                        bail!("{text}: smem_ptr flag of {bits} bits for a {e}-byte element");
                    }
                    let v = c.layout.values().map_err(|x| anyhow::anyhow!("{text}: {x}"))?;
                    Ok(v.into_iter().map(|i| c.swizzle.apply(i * e) / e).collect())
                }
                Offset::Int(_) | Offset::Mixed { .. } => c.values().map_err(|x| anyhow::anyhow!("{text}: {x}")),
            }
        }
        other => bail!("{text}: not a layout ({})", other.kind()),
    }
}

/// What the engine says the device must observe: per element of the reported array, the index
/// +1 it holds, 0 (zero fill) or -1 (untouched).
pub fn predict(case: &TmaCase) -> Result<Vec<i64>> {
    predict_from(case, &tile_maps(case)?)
}

/// [`predict`] from the case's [`tile_maps`].
pub fn predict_from(case: &TmaCase, m: &TileMaps) -> Result<Vec<i64>> {
    let (gt, so, inside) = (&m.global, &m.smem, &m.inside);
    let inb = |k: usize| inside[k];
    if case.store {
        let n = case.global_elems()? as usize;
        let mut out = vec![-1i64; n];
        for k in 0..so.len() {
            if inb(k) {
                let gi = gt[k] as usize;
                if gi >= n {
                    bail!("case {}: global index {gi} beyond the allocation", case.id);
                }
                out[gi] = so[k] + 1;
            }
        }
        Ok(out)
    } else {
        let mut out = vec![-1i64; so.len()];
        for k in 0..so.len() {
            let s = so[k] as usize;
            if s >= out.len() {
                bail!("case {}: smem index {s} beyond the tile", case.id);
            }
            out[s] = if inb(k) { gt[k] + 1 } else { 0 };
        }
        Ok(out)
    }
}

/// Per tile index `k`: the global element (bounds aside), the shared element, and whether the
/// element is inside G.
pub struct TileMaps {
    pub global: Vec<i64>,
    pub smem: Vec<i64>,
    pub inside: Vec<bool>,
}

/// The engine's layouts of a case, per tile index.
pub fn tile_maps(case: &TmaCase) -> Result<TileMaps> {
    let (g, t, c) = (case.g_expr(), case.tiler_expr(), case.coord_expr());
    let gt = layout_values(&format!("local_tile({g}, {t}, {c})"))?;
    let go = int_of(&format!("local_tile_offset({g}, {t}, {c})"))?;
    let so = smem_offsets(case)?;
    if gt.len() != so.len() {
        bail!("case {}: tile of {} elements, smem of {}", case.id, gt.len(), so.len());
    }
    // In bounds: every coordinate below its extent (coordinate i from the same tiling of the
    // coordinate layout of mode i).
    let mut inside = vec![true; so.len()];
    for (i, &extent) in case.gshape.iter().enumerate() {
        let d = case.coord_layout(i);
        let dt = layout_values(&format!("local_tile({d}, {t}, {c})"))?;
        let dof = int_of(&format!("local_tile_offset({d}, {t}, {c})"))?;
        if dt.len() != so.len() {
            bail!("case {}: coordinate tile of {} elements", case.id, dt.len());
        }
        for (k, x) in dt.iter().enumerate() {
            inside[k] &= dof + x < extent;
        }
    }
    Ok(TileMaps { global: gt.iter().map(|x| go + x).collect(), smem: so, inside })
}

/// The engine's `cuTensorMapEncodeTiled` arguments for a case (`engine::tma`, through
/// `tma_desc_args(make_tma_copy(OP, T, G, S, tiler, _1))`), spelled as the device's `args` line
/// after the case id: the line CuTe's call printed must equal it.
pub fn engine_args(case: &TmaCase) -> Result<String> {
    let op = if case.store { "SM90_TMA_STORE" } else { "SM90_TMA_LOAD" };
    let ty = case.type_name().trim_start_matches("cute::");
    let text = format!(
        "tma_desc_args(make_tma_copy({op}, {ty}, {}, {}, {}, _1))",
        case.g_expr(),
        case.s_expr(),
        case.tiler_expr()
    );
    let Value::Atom(AtomValue::TmaDesc(d)) = eval(&text)? else { bail!("{text}: not a descriptor") };
    let code = |v: &str, names: &[&str]| -> Result<usize> {
        names.iter().position(|n| *n == v).with_context(|| format!("{text}: no cuda.h code for {v}"))
    };
    let dtype = code(
        d.data_type,
        &[
            "UINT8",
            "UINT16",
            "UINT32",
            "INT32",
            "UINT64",
            "INT64",
            "FLOAT16",
            "FLOAT32",
            "FLOAT64",
            "BFLOAT16",
            "FLOAT32_FTZ",
            "TFLOAT32",
        ],
    )?;
    let list = |v: &[u64]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(",");
    let list32 = |v: &[u32]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(",");
    Ok(format!(
        "dtype={dtype} rank={} addr=0 dims={} strides={} box={} estr={} interleave={} swizzle={} l2={} oob={} result=0",
        d.rank,
        list(&d.global_dim),
        list(&d.global_strides),
        list32(&d.box_dim),
        list32(&d.element_strides),
        code(d.interleave, &["NONE", "16B", "32B"])?,
        code(d.swizzle, &["NONE", "32B", "64B", "128B"])?,
        code(d.l2_promotion, &["NONE", "L2_64B", "L2_128B", "L2_256B"])?,
        code(d.oob_fill, &["NONE", "NAN_REQUEST_ZERO_FMA"])?,
    ))
}

/// GMMA atom (rows, cols) for a major, a swizzle kind and an element size: K-major atoms are
/// 8 rows of `bytes/e` elements, MN-major their transpose.
fn atom_dims(major: &str, kind: &str, e: i64) -> (i64, i64) {
    let bytes = match kind {
        "INTER" => 16,
        "SW32" => 32,
        "SW64" => 64,
        _ => 128,
    };
    if major == "K" {
        (8, bytes / e)
    } else {
        (bytes / e, 8)
    }
}

fn draw(r: &mut Rng, id: usize) -> TmaCase {
    let ty = r.below(TYPES.len() as u64) as usize;
    let e = TYPES[ty].1;
    let vec16 = 16 / e; // elements in 16 bytes
    let store = r.chance(20);
    let gmma = r.chance(45);
    let rank = if gmma { 2 + r.below(2) as usize } else { r.pick(&[1usize, 2, 2, 2, 3, 3, 4]) };
    // Tile extents and smem.
    let (contig, tile, smem) = if gmma {
        let major = r.pick(&["K", "MN"]);
        let kind = r.pick(&["INTER", "SW32", "SW64", "SW128"]);
        let (ar, ac) = atom_dims(major, kind, e);
        let mut tile = vec![ar * r.pick(&[1i64, 1, 2, 4]), ac * r.pick(&[1i64, 1, 2])];
        while tile.len() < rank {
            tile.push(r.pick(&[1i64, 2, 3]));
        }
        let contig = if major == "K" { 1 } else { 0 };
        (contig, tile.clone(), Smem::Gmma { major, kind, shape: tile })
    } else {
        let contig = r.below(rank as u64) as usize;
        let mut tile = vec![0i64; rank];
        for (i, t) in tile.iter_mut().enumerate() {
            *t = if i == contig {
                vec16 * r.pick(&[1i64, 1, 2, 4, 8, 16])
            } else {
                r.pick(&[1i64, 2, 3, 4, 5, 8, 8, 16, 32])
            };
        }
        let tile: Vec<i64> = tile.iter().map(|&t| t.min(256)).collect();
        // Compact strides: the contiguous mode first, the others in a random order.
        let mut order: Vec<usize> = (0..rank).filter(|&i| i != contig).collect();
        for i in (1..order.len()).rev() {
            let j = r.below(i as u64 + 1) as usize;
            order.swap(i, j);
        }
        let mut stride = vec![0i64; rank];
        let mut cur = 1;
        for &m in std::iter::once(&contig).chain(order.iter()) {
            stride[m] = cur;
            cur *= tile[m];
        }
        (contig, tile.clone(), Smem::Plain { shape: tile, stride })
    };
    // Tiler: strided modes only on non-contiguous modes of a plain-or-GMMA tile.
    let tiler: Vec<(i64, i64)> =
        (0..rank).map(|i| (tile[i], if i != contig && tile[i] > 1 && r.chance(12) { 2 } else { 1 })).collect();
    // Global shape: per mode a few tiles, often a partial last one.
    let gshape: Vec<i64> = (0..rank)
        .map(|i| {
            let (t, s) = tiler[i];
            if s != 1 {
                2 * t * (1 + r.below(3) as i64)
            } else {
                match r.below(4) {
                    0 => t * (1 + r.below(3) as i64),
                    1 => (1 + r.below(t as u64 * 3) as i64).max(1),
                    _ => t * r.below(3) as i64 + 1 + r.below(t as u64) as i64,
                }
            }
        })
        .collect();
    // Global strides: the contiguous mode 1, the others in a random order, each padded to 16 bytes
    // and sometimes by more.
    let mut order: Vec<usize> = (0..rank).filter(|&i| i != contig).collect();
    for i in (1..order.len()).rev() {
        let j = r.below(i as u64 + 1) as usize;
        order.swap(i, j);
    }
    let mut gstride = vec![0i64; rank];
    gstride[contig] = 1;
    let mut extent = gshape[contig];
    for &m in &order {
        let padded = (extent + vec16 - 1) / vec16 * vec16 + vec16 * r.pick(&[0i64, 0, 0, 1, 2, 5]);
        gstride[m] = padded;
        extent = padded * gshape[m];
    }
    let gstatic = r.chance(25);
    // Tile coordinate: any tile (strided modes: the rest mode is (2, S/(2T))).
    let coord: Vec<i64> = (0..rank)
        .map(|i| {
            let (t, s) = tiler[i];
            let n = if s == 1 { (gshape[i] + t - 1) / t } else { gshape[i] / t };
            r.below(n.max(1) as u64) as i64
        })
        .collect();
    TmaCase { id, store, ty, gshape, gstride, gstatic, smem, tiler, coord }
}

/// Whether a drawn case fits the device and the engine takes it (the prediction exists).
fn usable(c: &TmaCase) -> bool {
    let Ok(n) = c.global_elems() else { return false };
    if n * c.elem() > GLOBAL_ALLOC {
        return false;
    }
    let size: i64 = c.tiler.iter().map(|t| t.0).product();
    if size * c.elem() > 48 * 1024 {
        return false;
    }
    let Ok(m) = tile_maps(c) else { return false };
    // Compact smem: S's values are exactly 0..size.
    let mut so = m.smem.clone();
    so.sort_unstable();
    if so.iter().enumerate().any(|(i, &v)| v != i as i64) {
        return false;
    }
    predict_from(c, &m).is_ok()
}

/// `n` random cases from `seed`.
pub fn random_cases(seed: u64, n: usize) -> Result<Vec<TmaCase>> {
    let mut r = Rng(seed);
    let mut out = Vec::with_capacity(n);
    let mut tries = 0;
    while out.len() < n {
        tries += 1;
        if tries > 20 * n + 100 {
            bail!("only {} of {n} cases drawn in {tries} tries", out.len());
        }
        let c = draw(&mut r, out.len());
        if usable(&c) {
            out.push(c);
        }
    }
    Ok(out)
}

/// `cases.txt`: a header and one line per case.
pub fn cases_file(seed: u64, cases: &[TmaCase]) -> String {
    let mut s = format!(
        "# seed {seed}, {} cases (cargo xtask gpu-tma --seed {seed} --cases {})\n# id\tdir\ttype\tG\tG kind\tS\ttiler\tcoord\n",
        cases.len(),
        cases.len()
    );
    for c in cases {
        s += &c.line();
        s.push('\n');
    }
    s
}

/// Cases per generated part file.
pub const PARTS: usize = 16;

/// The generated CUDA: `tma_parts.cuh` (the case table, weak declarations) and
/// `tma_part{K}.cu` (case `N` in part `N % PARTS`, each under `#if !defined(ONLY_CASE) ||
/// ONLY_CASE == N` so that tma_run.sh can build the cases of a part one by one when it fails).
pub fn cuda_files(cases: &[TmaCase]) -> Vec<(String, String)> {
    let mut files = Vec::new();
    let mut head =
        String::from("// Generated by cargo xtask gpu-tma (harness/gpu/tma.rs): the case table.\n#pragma once\n");
    let _ = writeln!(head, "#define TMA_NCASES {}", cases.len());
    for c in cases {
        let _ = writeln!(head, "extern int tma_case_{}(tma_check::Ctx&) __attribute__((weak));", c.id);
    }
    let names: Vec<String> = cases.iter().map(|c| format!("tma_case_{}", c.id)).collect();
    let _ = writeln!(head, "static int (*const TMA_CASES[])(tma_check::Ctx&) = {{{}}};", names.join(", "));
    files.push(("tma_parts.cuh".to_string(), head));
    for k in 0..PARTS {
        let mut s = String::from("// Generated by cargo xtask gpu-tma (harness/gpu/tma.rs).\n#include \"tma_check.cuh\"\nusing namespace cute;\n");
        for c in cases.iter().filter(|c| c.id % PARTS == k) {
            let _ = writeln!(s, "#if !defined(ONLY_CASE) || ONLY_CASE == {}", c.id);
            s += &c.cuda();
            s += "#endif\n";
        }
        files.push((format!("tma_part{k}.cu"), s));
    }
    files
}

/// The seed and case count of a plan (`cases.txt`'s first line).
pub fn plan_seed(text: &str) -> Result<(u64, usize)> {
    let head = text.lines().next().context("empty plan")?;
    let w: Vec<&str> = head.split_whitespace().collect();
    // "# seed S, N cases ..."
    if w.len() < 4 || w[1] != "seed" {
        bail!("plan header: {head}");
    }
    Ok((w[2].trim_end_matches(',').parse()?, w[3].parse()?))
}

/// The kind of a twin's perturbation (its `twin` line's `kind=`; `stride` of dimension 1 for the
/// first runs, which have no `twin` line) and the dimension(s) it names.
pub fn twin_kind(twin: Option<&str>) -> (String, Vec<i64>) {
    let Some(t) = twin else { return ("stride".into(), vec![1]) };
    let get = |k: &str| t.split_whitespace().find_map(|w| w.strip_prefix(k)).unwrap_or("");
    let dims = get("dim=").split(',').filter_map(|x| x.parse().ok()).collect();
    (get("kind=").to_string(), dims)
}

/// Why the corrupted descriptor cannot change what a case moves, if it cannot. A `stride` twin
/// adds 16 bytes to the stride of TMA dimension `d` (the first runs: always 1), so an element
/// moves unless its coordinate along dimension `d` is 0; the other kinds (`address`, `box`,
/// `swizzle`, `estride`) are not excused. The coordinates are read from CuTe's recorded
/// descriptor (`args`: the byte strides) and the engine's global element of every in-bounds
/// element of the tile (nested strides: the largest first). None when some element moves.
pub fn corrupt_cannot_fail(case: &TmaCase, args: &str, twin: Option<&str>) -> Option<String> {
    let (kind, dims_of) = twin_kind(twin);
    if matches!(kind.as_str(), "box" | "estride" | "swizzle") {
        return twin_moves_the_same(case, args, twin?);
    }
    if kind != "stride" {
        return None;
    }
    let dim = *dims_of.first()? as usize;
    let field = |k: &str| -> Option<Vec<i64>> {
        let v = args.split_whitespace().find_map(|w| w.strip_prefix(k))?;
        v.split(',').filter(|x| !x.is_empty()).map(|x| x.parse().ok()).collect()
    };
    let strides = field("strides=")?;
    if strides.is_empty() {
        return None; // rank 1: the address moves every element
    }
    let e = case.elem();
    // TMA dimensions 1.. by element stride, largest first.
    let mut dims: Vec<(i64, usize)> = strides.iter().enumerate().map(|(i, s)| (s / e, i + 1)).collect();
    dims.sort_unstable_by(|a, b| b.cmp(a));
    let p = predict(case).ok()?;
    let globals: Vec<i64> = if case.store {
        (0..p.len() as i64).filter(|&g| p[g as usize] > 0).collect()
    } else {
        p.iter().filter(|&&v| v > 0).map(|v| v - 1).collect()
    };
    for g in &globals {
        let mut rest = *g;
        for &(st, d) in &dims {
            let x = rest / st;
            rest %= st;
            if d == dim && x != 0 {
                return None;
            }
        }
    }
    Some(format!(
        "every one of its {} in-bounds elements has coordinate 0 along TMA dimension {dim} (strides {strides:?} bytes), so the perturbed stride never enters an address",
        globals.len()
    ))
}

/// A `box`, `estride` or `swizzle` twin that moves exactly what the true descriptor moves, by
/// simulating both as the TMA defines them: the box at the tile's origin `o` (TMA coordinates of the
/// tile's first element; for a tile of several boxes, with the same swizzle in both, the grid of
/// boxes from `o` when each TMA dimension is one G mode tiled by a plain extent), slot `s` of the traversal
/// (dimension 0 fastest, `ceil(box[d] / elementStrides[d])` elements along `d`, each `elementStrides[d]`
/// apart) at shared byte `swizzle(s * bytes)` (CU_TENSOR_MAP_SWIZZLE_{32,64,128}B: bits 4.. XORed
/// with bits 7..), holding global element `o + r` when it is inside `globalDim`, else zero (a load),
/// or written there (a store). The reason when both moves are the same map; None otherwise (a twin
/// that passes then is NOT EXPLAINED).
pub fn twin_moves_the_same(case: &TmaCase, args: &str, twin: &str) -> Option<String> {
    simulate_twin(case, args, twin).and_then(|(same, why)| same.then_some(why))
}

/// [`twin_moves_the_same`]'s simulation: `Some((whether the twin moves the same, the reason))`,
/// None when the case is not simulated (several boxes under a changed swizzle, a merged or
/// strided dimension, a swizzle with a 128B atom of another size).
pub fn simulate_twin(case: &TmaCase, args: &str, twin: &str) -> Option<(bool, String)> {
    let field = |t: &str, k: &str| -> Option<Vec<i64>> {
        let v = t.split_whitespace().find_map(|w| w.strip_prefix(k))?;
        v.split(',').filter(|x| !x.is_empty()).map(|x| x.parse().ok()).collect()
    };
    let d = Desc::parse(args)?;
    let e = case.elem();
    let (box_t, estr_t) = (field(args, "box=")?, field(args, "estr=")?);
    let (box_w, estr_w) = (field(twin, "box=")?, field(twin, "estr=")?);
    let (sw_t, sw_w) = (field(args, "swizzle=")?[0], field(twin, "swizzle=")?[0]);
    if field(twin, "strides=")? != d.strides || sw_t > 3 || sw_w > 3 {
        return None;
    }
    let tile: i64 = case.tiler.iter().map(|t| t.0).product();
    let per_box: i64 = box_t.iter().product();
    let m = tile_maps(case).ok()?;
    let o = d.coords(*m.global.first()?, e);
    let rank = d.dims.len();
    // Byte strides of every dimension (dimension 0: one element).
    let mut bstride = vec![e];
    bstride.extend(d.strides.iter().copied());
    // The boxes' origins: the tile's origin alone, or (the same swizzle in both, so a slot's
    // shared byte is the same function of its box and index) the grid of boxes over the tile when
    // each TMA dimension is one G mode tiled by a plain extent.
    let origins: Vec<Vec<i64>> = if tile == per_box {
        vec![o.clone()]
    } else {
        if sw_t != sw_w {
            return None; // several boxes under another swizzle: their bases are CuTe's order
        }
        let mut counts = Vec::new();
        for dd in 0..rank {
            let ext = if d.dims[dd] == 1 && (dd == 0 || bstride[dd] == 0) {
                1
            } else {
                let i = (0..case.gshape.len())
                    .find(|&i| case.gstride[i] * e == bstride[dd] && case.gshape[i] == d.dims[dd])?;
                if case.tiler[i].1 != 1 {
                    return None;
                }
                case.tiler[i].0
            };
            counts.push((ext + box_t[dd] - 1) / box_t[dd]);
        }
        if counts.iter().product::<i64>() * per_box != tile {
            return None;
        }
        let n: i64 = counts.iter().product();
        (0..n)
            .map(|mut j| {
                (0..rank)
                    .map(|dd| {
                        let x = o[dd] + (j % counts[dd]) * box_t[dd];
                        j /= counts[dd];
                        x
                    })
                    .collect()
            })
            .collect()
    };
    // Per slot: (box, shared byte address, Some(global element) or None out of bounds).
    let moves = |boxd: &[i64], estr: &[i64], sw: i64| -> Option<Vec<(usize, i64, Option<i64>)>> {
        let counts: Vec<i64> = boxd.iter().zip(estr).map(|(b, s)| (b + s - 1) / s).collect();
        let n: i64 = counts.iter().product();
        if n != per_box {
            return None;
        }
        let mask = [0, 1, 3, 7][sw as usize];
        let mut out = Vec::with_capacity(tile as usize);
        for (b, org) in origins.iter().enumerate() {
            for slot in 0..n {
                let (mut rest, mut inside, mut g) = (slot, true, 0i64);
                for dd in 0..rank {
                    let x = org[dd] + (rest % counts[dd]) * estr[dd];
                    rest /= counts[dd];
                    inside &= x < d.dims[dd];
                    g += x * bstride[dd] / e;
                }
                let a = slot * e;
                out.push((b, a ^ (((a >> 7) & mask) << 4), inside.then_some(g)));
            }
        }
        out.sort_unstable();
        Some(out)
    };
    let (t, w) = (moves(&box_t, &estr_t, sw_t)?, moves(&box_w, &estr_w, sw_w)?);
    let same = if case.store {
        // What reaches global memory: each in-bounds element and the shared byte it comes from.
        let keep = |v: &[(usize, i64, Option<i64>)]| {
            let mut k: Vec<(i64, usize, i64)> = v.iter().filter_map(|&(b, a, g)| g.map(|g| (g, b, a))).collect();
            k.sort_unstable();
            k
        };
        keep(&t) == keep(&w)
    } else {
        t == w
    };
    Some((same, {
        format!(
            "{} box(es) from TMA coordinate {o:?}: the twin's box {box_w:?} (element strides {estr_w:?}, swizzle {sw_w}) moves every in-bounds element to the shared byte the true box {box_t:?} (swizzle {sw_t}) does, and the rest out of bounds in both (globalDim {:?})",
            origins.len(),
            d.dims
        )
    }))
}

/// Whether a run is as it must be: every case agrees with the engine or differs only by the
/// findings, and (when the corrupted twin ran) every twin case fails but those
/// [`corrupt_cannot_fail`] explains.
pub fn run_is_sound(cases: &[TmaCase], v: &[Verdict], corrupt: Option<&[Verdict]>) -> bool {
    let _ = cases;
    v.iter().all(|x| x.pass() || x.explained_by_findings())
        && corrupt.is_none_or(|cv| cv.iter().all(|x| !x.pass() || x.explained.is_some()))
}

/// What the device printed for a case.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Observed {
    /// The `args` line's fields after the id (CuTe's cuTensorMapEncodeTiled arguments).
    pub args: Option<String>,
    /// The corrupted twin only: the `twin` line's fields after the id (`kind=K dim=D` and the
    /// perturbed strides, box, element strides and swizzle); none in the first runs' twin, which
    /// always perturbed the stride of TMA dimension 1.
    pub twin: Option<String>,
    /// `ok`, `timeout`, or the error text.
    pub status: String,
    pub passes: u32,
    pub values: Option<Vec<i64>>,
}

/// Decodes the `start:step:count` runs.
pub fn decode_runs(tokens: &[&str]) -> Result<Vec<i64>> {
    let mut v = Vec::new();
    for t in tokens {
        let p: Vec<&str> = t.split(':').collect();
        if p.len() != 3 {
            bail!("bad run {t}");
        }
        let (a, s, n): (i64, i64, usize) = (p[0].parse()?, p[1].parse()?, p[2].parse()?);
        for i in 0..n {
            v.push(a + s * i as i64);
        }
    }
    Ok(v)
}

/// Reads a results file (`tma_check` output, possibly several runs after restarts).
pub fn read_results(text: &str) -> Result<BTreeMap<usize, Observed>> {
    let mut out: BTreeMap<usize, Observed> = BTreeMap::new();
    for line in text.lines() {
        let mut it = line.split_whitespace();
        match it.next() {
            Some("args") => {
                let id: usize = it.next().context("args id")?.parse()?;
                out.entry(id).or_default().args = Some(it.collect::<Vec<_>>().join(" "));
            }
            Some("twin") => {
                let id: usize = it.next().context("twin id")?.parse()?;
                out.entry(id).or_default().twin = Some(it.collect::<Vec<_>>().join(" "));
            }
            Some("case") => {
                let id: usize = it.next().context("case id")?.parse()?;
                let rest: Vec<&str> = it.collect();
                let o = out.entry(id).or_default();
                if rest.first().is_some_and(|w| *w == "load" || *w == "store") {
                    o.passes = rest.get(1).and_then(|p| p.strip_prefix("passes=")).context("passes")?.parse()?;
                    o.status = rest.get(2).context("status")?.to_string();
                    let n: usize = rest.get(3).and_then(|p| p.strip_prefix("n=")).context("n=")?.parse()?;
                    let v = decode_runs(&rest[4..])?;
                    if v.len() != n {
                        bail!("case {id}: {} values for n={n}", v.len());
                    }
                    o.values = Some(v);
                } else {
                    o.status = rest.join(" ");
                }
            }
            _ => {}
        }
    }
    Ok(out)
}

/// What the H200 or CuTe did that the engine's layouts do not say. Each is a rule computed from
/// the case and CuTe's recorded descriptor arguments, and a run is sound only when every
/// difference from the engine is one of them (fixtures/gpu/README.md, `h200-tma/`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Finding {
    /// Hardware: a TMA store writes the out-of-bounds elements of dimension 0 up to the next
    /// 16-byte boundary (the descriptor's globalDim[0] is not a whole number of 16 bytes).
    StoreGranule16,
    /// CuTe: with static strides, the tile's modes are merged into one TMA dimension across G's
    /// padding (`fill_tma_gmem_shape_stride`'s recurrence: `(5,3):(1,8)` becomes one dimension of
    /// 21), so padding elements the engine puts outside G are inside the descriptor: a store
    /// writes them, a load reads them instead of the zero fill.
    MergedPadding,
    /// CuTe accepts a strided CTA tiler (`N:_2`) and issues one box per row: boxes of a size
    /// that is not a multiple of 128 bytes start at shared addresses TMA refuses
    /// (cudaErrorMisalignedAddress).
    StridedTilerMisaligned,
    /// Static G whose last TMA dimension has extent 1 with a box above 1: CuTe's copy faults
    /// (cudaErrorIllegalInstruction); CuTe gives a static extent-1 mode no TMA coordinate.
    StaticUnitLastDim,
    /// CuTe's `coalesce_256` merges a swizzle atom's rows into TMA dimension 0 when G's row stride
    /// equals the atom width (static), so the box's inner extent exceeds the swizzle span;
    /// cuTensorMapEncodeTiled refuses it and CuTe asserts (the run stops in `make_tma_copy`).
    SwizzleBoxRefused,
}

impl Finding {
    pub const ALL: [Finding; 5] = [
        Finding::StoreGranule16,
        Finding::MergedPadding,
        Finding::StridedTilerMisaligned,
        Finding::StaticUnitLastDim,
        Finding::SwizzleBoxRefused,
    ];
    pub fn name(self) -> &'static str {
        match self {
            Finding::StoreGranule16 => "store-16-byte-granule",
            Finding::MergedPadding => "cute-merged-padding",
            Finding::StridedTilerMisaligned => "strided-tiler-misaligned",
            Finding::StaticUnitLastDim => "static-unit-last-dim",
            Finding::SwizzleBoxRefused => "swizzle-box-refused",
        }
    }
}

/// CuTe's recorded descriptor (`args` line).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Desc {
    pub dims: Vec<i64>,
    /// Byte strides of dimensions 1.. .
    pub strides: Vec<i64>,
    pub boxes: Vec<i64>,
}

impl Desc {
    pub fn parse(args: &str) -> Option<Desc> {
        let field = |k: &str| -> Option<Vec<i64>> {
            let v = args.split_whitespace().find_map(|w| w.strip_prefix(k))?;
            v.split(',').filter(|x| !x.is_empty()).map(|x| x.parse().ok()).collect()
        };
        Some(Desc { dims: field("dims=")?, strides: field("strides=")?, boxes: field("box=")? })
    }
    /// The TMA coordinates of global element `g` (strides nested: the largest first; extent-1
    /// dimensions get 0).
    pub fn coords(&self, g: i64, e: i64) -> Vec<i64> {
        let mut x = vec![0i64; self.dims.len()];
        let mut order: Vec<(i64, usize)> = self
            .strides
            .iter()
            .enumerate()
            .filter(|(i, _)| self.dims[i + 1] > 1)
            .map(|(i, s)| (s / e, i + 1))
            .collect();
        order.sort_unstable_by(|a, b| b.cmp(a));
        let mut rest = g;
        for (st, d) in order {
            x[d] = rest / st;
            rest %= st;
        }
        x[0] = rest;
        x
    }
    fn inside(&self, x: &[i64]) -> bool {
        x.iter().zip(&self.dims).all(|(a, d)| a < d)
    }
}

/// The error a case must end in, by the findings' rules (None: it must run).
pub fn expected_error(case: &TmaCase, desc: Option<&Desc>) -> Option<Finding> {
    // SwizzleBoxRefused: static G, swizzled atom, G's stride along the atom's rows equal to the
    // atom's width, the tile one atom wide, rows times width within coalesce_256's 256.
    if let Smem::Gmma { major, kind, shape } = &case.smem {
        if case.gstatic && *kind != "INTER" {
            let (ar, ac) = atom_dims(major, kind, case.elem());
            let (contig, row, w) = if *major == "K" { (1, 0, ac) } else { (0, 1, ar) };
            if case.gstride[row] == w && shape[contig] == w && w * shape[row] <= 256 {
                return Some(Finding::SwizzleBoxRefused);
            }
        }
    }
    let d = desc?;
    let tile: i64 = case.tiler.iter().map(|t| t.0).product();
    let boxed: i64 = d.boxes.iter().product();
    if case.tiler.iter().any(|t| t.1 != 1) && tile / boxed > 1 && boxed * case.elem() % 128 != 0 {
        return Some(Finding::StridedTilerMisaligned);
    }
    if case.gstatic && d.dims.len() > 1 && d.dims.last() == Some(&1) && d.boxes.last().is_some_and(|&b| b > 1) {
        return Some(Finding::StaticUnitLastDim);
    }
    None
}

/// The status text of each case-level finding's error.
fn error_status(f: Finding) -> &'static str {
    match f {
        Finding::StridedTilerMisaligned => "error cuda cudaErrorMisalignedAddress (cudaDeviceSynchronize())",
        Finding::StaticUnitLastDim => "error cuda cudaErrorIllegalInstruction (cudaDeviceSynchronize())",
        Finding::SwizzleBoxRefused => "error crashed rc=134",
        _ => "",
    }
}

/// One case's verdict.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Verdict {
    pub id: usize,
    /// The copy ran and reported its elements.
    pub ran: bool,
    /// Elements that differ from the engine's prediction.
    pub wrong: usize,
    pub total: usize,
    /// The first few differences: (element, engine, device).
    pub first: Vec<(usize, i64, i64)>,
    pub status: String,
    /// Differences (elements, or 1 for a case-level error) each finding explains.
    pub findings: BTreeMap<Finding, usize>,
    /// Differences no finding explains (an error the rules do not predict counts 1, as does a
    /// predicted error that did not happen).
    pub unexplained: usize,
    /// Corrupted twin only: why this case cannot fail, when it passes ([`corrupt_cannot_fail`]).
    pub explained: Option<String>,
    /// Corrupted twin only: the perturbation's kind ([`twin_kind`]).
    pub twin_kind: Option<String>,
}

impl Verdict {
    /// Every element where the engine says.
    pub fn pass(&self) -> bool {
        self.ran && self.wrong == 0 && self.status == "ok"
    }
    /// Not a pass, and every difference is a finding's.
    pub fn explained_by_findings(&self) -> bool {
        !self.pass() && self.unexplained == 0 && !self.findings.is_empty()
    }
}

/// Classifies one differing element (None: no finding explains it).
fn finding_of(
    case: &TmaCase,
    m: &TileMaps,
    desc: Option<&Desc>,
    i: usize,
    engine: i64,
    device: i64,
) -> Option<Finding> {
    let d = desc?;
    let e = case.elem();
    if device <= 0 {
        return None;
    }
    // The tile index the device's value names, and the global element it stands for.
    let (k, g) = if case.store {
        let k = m.smem.iter().position(|&s| s == device - 1)?;
        (k, i as i64)
    } else {
        if engine != 0 {
            return None;
        }
        let k = m.smem.iter().position(|&s| s == i as i64)?;
        (k, device - 1)
    };
    if m.global[k] != g || m.inside[k] {
        return None;
    }
    let x = d.coords(g, e);
    if d.inside(&x) {
        return Some(Finding::MergedPadding);
    }
    let rest_inside = x.iter().zip(&d.dims).skip(1).all(|(a, b)| a < b);
    if case.store && engine == -1 && rest_inside && x[0] >= d.dims[0] && x[0] * e < (d.dims[0] * e + 15) / 16 * 16 {
        return Some(Finding::StoreGranule16);
    }
    None
}

/// Compares every case with what the device observed.
pub fn compare(cases: &[TmaCase], obs: &BTreeMap<usize, Observed>, corrupt: bool) -> Result<Vec<Verdict>> {
    let mut out = Vec::with_capacity(cases.len());
    for c in cases {
        let o = obs.get(&c.id);
        let desc = o.and_then(|o| o.args.as_deref()).and_then(Desc::parse);
        let want_error = expected_error(c, desc.as_ref());
        let status = o.map(|o| o.status.clone()).unwrap_or_else(|| "missing".into());
        let mut v = Verdict {
            id: c.id,
            ran: false,
            wrong: 0,
            total: 0,
            first: vec![],
            status: status.clone(),
            findings: BTreeMap::new(),
            unexplained: 0,
            explained: None,
            twin_kind: corrupt.then(|| twin_kind(o.and_then(|o| o.twin.as_deref())).0),
        };
        let Some(values) = o.and_then(|o| o.values.as_ref()) else {
            match want_error {
                Some(f) if error_status(f) == status => {
                    v.findings.insert(f, 1);
                }
                _ => v.unexplained = 1,
            }
            out.push(v);
            continue;
        };
        v.ran = true;
        if want_error.is_some() {
            v.unexplained += 1; // an error was predicted and the copy ran
        }
        let maps = tile_maps(c)?;
        let p = predict_from(c, &maps)?;
        v.total = p.len();
        for i in 0..p.len().max(values.len()) {
            let (a, b) = (p.get(i).copied().unwrap_or(i64::MIN), values.get(i).copied().unwrap_or(i64::MIN));
            if a != b {
                v.wrong += 1;
                if v.first.len() < 4 {
                    v.first.push((i, a, b));
                }
                if !corrupt {
                    match finding_of(c, &maps, desc.as_ref(), i, a, b) {
                        Some(f) => *v.findings.entry(f).or_insert(0) += 1,
                        None => v.unexplained += 1,
                    }
                }
            }
        }
        if status != "ok" {
            v.unexplained += 1;
        }
        if corrupt && v.pass() {
            v.explained = o.and_then(|o| {
                let a = o.args.as_deref()?;
                corrupt_cannot_fail(c, a, o.twin.as_deref())
            });
        }
        out.push(v);
    }
    Ok(out)
}

/// The summary text of a run and its corrupted twin.
pub fn summary(cases: &[TmaCase], v: &[Verdict], corrupt: Option<&[Verdict]>) -> String {
    let mut s = String::new();
    let pass = v.iter().filter(|x| x.pass()).count();
    let found = v.iter().filter(|x| x.explained_by_findings()).count();
    let loads = cases.iter().filter(|c| !c.store).count();
    let elements: usize = v.iter().filter(|x| x.pass()).map(|x| x.total).sum();
    let _ = writeln!(
        s,
        "cases {} (loads {loads}, stores {}): {pass} every element where the engine says ({elements} elements), {found} differ only by the findings, {} unexplained",
        cases.len(),
        cases.len() - loads,
        v.len() - pass - found
    );
    for f in Finding::ALL {
        let n = v.iter().filter(|x| x.findings.contains_key(&f)).count();
        let el: usize = v.iter().filter_map(|x| x.findings.get(&f)).sum();
        let _ = writeln!(s, "finding {}: {n} cases, {el} differences", f.name());
    }
    for x in v.iter().filter(|x| !x.pass() && !x.explained_by_findings()) {
        let _ = writeln!(
            s,
            "UNEXPLAINED case {} ({}): {} of {} elements differ, first {:?}",
            x.id, x.status, x.wrong, x.total, x.first
        );
    }
    for x in v.iter().filter(|x| x.explained_by_findings()) {
        let f: Vec<String> = x.findings.iter().map(|(f, n)| format!("{} {n}", f.name())).collect();
        let _ = writeln!(
            s,
            "finding case {} ({}): {}; {}",
            x.id,
            x.status,
            f.join(", "),
            cases[x.id].line().replace('\t', " ")
        );
    }
    if let Some(cv) = corrupt {
        let exact: Vec<usize> = v.iter().filter(|x| x.pass()).map(|x| x.id).collect();
        let failed = exact.iter().filter(|&&i| !cv[i].pass()).count();
        let _ = writeln!(
            s,
            "corrupted twin: of the {} cases the run moved exactly, {failed} fail and {} pass (all {} twin cases: {} fail)",
            exact.len(),
            exact.len() - failed,
            cv.len(),
            cv.iter().filter(|x| !x.pass()).count()
        );
        let mut kinds: BTreeMap<String, (usize, usize)> = BTreeMap::new();
        for &i in &exact {
            let e = kinds.entry(cv[i].twin_kind.clone().unwrap_or_default()).or_default();
            e.0 += 1;
            e.1 += usize::from(!cv[i].pass());
        }
        for (k, (n, f)) in &kinds {
            let _ = writeln!(s, "twin kind {k}: {n} cases the run moved exactly, {f} fail");
        }
        for x in cv.iter().filter(|x| x.pass()) {
            let why = x.explained.as_deref().unwrap_or("NOT EXPLAINED");
            let _ = writeln!(s, "corrupt PASS case {}: {} ({why})", x.id, cases[x.id].line().replace('\t', " "));
        }
    }
    s
}

/// Tallies for the record: by element size, smem kind, direction, rank.
pub fn tally(cases: &[TmaCase]) -> BTreeMap<String, usize> {
    let mut t = BTreeMap::new();
    for c in cases {
        *t.entry(format!("elem {}B", c.elem())).or_insert(0) += 1;
        *t.entry(format!("type {}", c.type_name())).or_insert(0) += 1;
        *t.entry(format!("rank {}", c.gshape.len())).or_insert(0) += 1;
        *t.entry((if c.store { "store" } else { "load" }).to_string()).or_insert(0) += 1;
        let k = match &c.smem {
            Smem::Plain { .. } => "smem plain".to_string(),
            Smem::Gmma { major, kind, .. } => format!("smem {major} {kind}"),
        };
        *t.entry(k).or_insert(0) += 1;
        if c.tiler.iter().any(|t| t.1 != 1) {
            *t.entry("strided tiler".into()).or_insert(0) += 1;
        }
        if c.gstatic {
            *t.entry("static G".into()).or_insert(0) += 1;
        }
        let partial = c.gshape.iter().zip(&c.tiler).zip(&c.coord).any(|((s, t), k)| t.1 == 1 && (k + 1) * t.0 > *s);
        if partial {
            *t.entry("partial tile".into()).or_insert(0) += 1;
        }
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The naive model of a case with plain (extent) tilers: tile index `k` is the colexicographic
    /// coordinate `c` of the tile, the global coordinate `coord*T + c`, in bounds when every mode
    /// is below G's extent, global element `sum(g_i * d_i)`.
    fn naive_global(c: &TmaCase, k: i64) -> (i64, bool) {
        let mut rest = k;
        let (mut off, mut inb) = (0, true);
        for i in 0..c.gshape.len() {
            let t = c.tiler[i].0;
            let ci = rest % t;
            rest /= t;
            let g = c.coord[i] * t + ci;
            inb &= g < c.gshape[i];
            off += g * c.gstride[i];
        }
        (off, inb)
    }

    #[test]
    fn predictions_equal_the_naive_model_for_plain_tilers() {
        let cases = random_cases(7, 120).unwrap();
        let mut checked = 0;
        for c in cases.iter().filter(|c| c.tiler.iter().all(|t| t.1 == 1)) {
            let p = predict(c).unwrap();
            let so = smem_offsets(c).unwrap();
            for (k, &s) in so.iter().enumerate() {
                let (g, inb) = naive_global(c, k as i64);
                if c.store {
                    if inb {
                        assert_eq!(p[g as usize], s + 1, "case {} k {k}", c.line());
                    }
                } else {
                    assert_eq!(p[s as usize], if inb { g + 1 } else { 0 }, "case {} k {k}", c.line());
                }
            }
            if c.store {
                let written = p.iter().filter(|&&v| v >= 0).count();
                let inb = (0..so.len() as i64).filter(|&k| naive_global(c, k).1).count();
                assert_eq!(written, inb, "case {}", c.line());
            }
            checked += 1;
        }
        assert!(checked > 80, "{checked}");
    }

    #[test]
    fn drawn_cases_cover_every_kind_and_are_reproducible() {
        let a = random_cases(1, 200).unwrap();
        assert_eq!(a, random_cases(1, 200).unwrap());
        let t = tally(&a);
        for k in ["elem 1B", "elem 2B", "elem 4B", "elem 8B", "load", "store", "smem plain", "partial tile", "static G"]
        {
            assert!(t.get(k).copied().unwrap_or(0) > 5, "{k}: {t:?}");
        }
        for kind in ["INTER", "SW32", "SW64", "SW128"] {
            assert!(t.keys().any(|k| k.starts_with("smem") && k.ends_with(kind)), "{kind}");
        }
    }

    #[test]
    fn results_round_trip_and_differences_are_counted() {
        let c = &random_cases(3, 1).unwrap()[0];
        let p = predict(c).unwrap();
        let mut runs = String::new();
        for v in &p {
            runs += &format!(" {v}:0:1");
        }
        let text = format!(
            "begin 0\nargs 0 dtype=0 rank=1 dims=5 box=4\ncase 0 {} passes=1 ok n={}{runs}\n",
            if c.store { "store" } else { "load" },
            p.len()
        );
        let obs = read_results(&text).unwrap();
        let v = compare(std::slice::from_ref(c), &obs, false).unwrap();
        assert!(v[0].pass(), "{v:?}");
        let mut bad = p.clone();
        let i = bad.iter().position(|&x| x > 0).unwrap();
        bad[i] += 1;
        let runs: String = bad.iter().map(|v| format!(" {v}:0:1")).collect();
        let text = format!("case 0 load passes=1 ok n={}{runs}\n", bad.len());
        let v = compare(std::slice::from_ref(c), &read_results(&text).unwrap(), false).unwrap();
        assert!(!v[0].pass());
        assert_eq!(v[0].wrong, 1);
        assert_eq!(decode_runs(&["3:2:4", "7:0:1"]).unwrap(), vec![3, 5, 7, 9, 7]);
    }
}
