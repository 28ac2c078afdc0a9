//! Random TMA cases (`engine::tma`), built by construction:
//! - an element type TMA has a format for;
//! - a shared-memory tile: a GMMA shared-memory atom (K- or MN-major, INTER/SW32/SW64/SW128) tiled
//!   by `tile_to_shape` to a multiple of the atom, or a plain static compact tile (2-D row- or
//!   column-major, or 3-D), each mode at most 256 elements so the box fits;
//! - a global layout whose contiguous mode is the smem tile's contiguous mode (stride `_1` or `1`),
//!   its other strides padded to a multiple of 16 bytes, extents static or dynamic, sometimes a
//!   batch mode or a static size-1 mode the tile takes one of (tiler `(TM,TK,_1)`);
//! - the operation (load, multicast load, store, reduce-add), the cluster (`_1`, or 2 or 4 CTAs that
//!   split the box), CuTe's overload (no tiler, the cluster alone, or tiler and cluster), and what
//!   is printed: the TiledCopy, the Copy_Atom (`make_tma_atom`), the gbasis, the coordinate strides
//!   or the `cuTensorMapEncodeTiled` arguments.
//!
//! Inadmissible variants (CuTe refuses; the engine must too): the global layout's majorness
//! flipped against the tile's, a stride that is no multiple of 16 bytes.

use proptest::prelude::*;

use super::{case_of, Case};

/// Element types TMA takes, with their width in bytes (sub-byte types are not drawn).
const TYPES: &[(&str, i64)] = &[
    ("half_t", 2),
    ("bfloat16_t", 2),
    ("float", 4),
    ("tfloat32_t", 4),
    ("int8_t", 1),
    ("uint8_t", 1),
    ("float_e4m3_t", 1),
    ("double", 8),
    ("int32_t", 4),
    ("uint64_t", 8),
];

/// The GMMA atom's (M, K) extents for an element of `bytes` bytes (CuTe's atoms hold 8 rows of
/// 16/32/64/128 bytes: INTER, SW32, SW64, SW128).
fn atom_extents(sw: &str, major: &str, bytes: i64) -> (i64, i64) {
    let row = match sw {
        "INTER" => 16,
        "SW32" => 32,
        "SW64" => 64,
        _ => 128,
    } / bytes;
    if major == "K" {
        (8, row)
    } else {
        (row, 8)
    }
}

/// One drawn TMA case's parts before they are written as text.
#[derive(Clone, Debug)]
struct Draw {
    ty: usize,
    gmma: bool,
    sw: usize,
    k_major: bool,
    mult: (i64, i64),
    plain: (i64, i64),
    batch: bool,
    size_one: bool,
    dynamic: (bool, bool),
    pad: (i64, i64),
    op: usize,
    cluster: usize,
    form: usize,
    query: usize,
    bad: usize,
}

fn draw() -> impl Strategy<Value = Draw> {
    (
        (0..TYPES.len(), any::<bool>(), 0usize..4, any::<bool>(), (1i64..=4, 1i64..=4)),
        ((2u32..=7, 2u32..=7), any::<bool>(), 0u32..8, (any::<bool>(), any::<bool>()), (0i64..4, 0i64..4)),
        (0usize..4, 0usize..5, 0usize..3, 0usize..5, 0usize..12),
    )
        .prop_map(|(a, b, c)| Draw {
            ty: a.0,
            gmma: a.1,
            sw: a.2,
            k_major: a.3,
            mult: a.4,
            plain: (1 << b.0 .0, 1 << b.0 .1),
            batch: b.1,
            size_one: b.2 == 0,
            dynamic: b.3,
            pad: b.4,
            op: c.0,
            cluster: c.1,
            form: c.2,
            query: c.3,
            bad: c.4,
        })
}

fn int(v: i64, dynamic: bool) -> String {
    if dynamic {
        v.to_string()
    } else {
        format!("_{v}")
    }
}

/// The case text of a draw, and whether CuTe accepts it by construction.
fn write(d: &Draw) -> (String, bool) {
    let (ty, bytes) = TYPES[d.ty];
    let sw = ["INTER", "SW32", "SW64", "SW128"][d.sw];
    // The smem tile (TM, TK) and its text; `contiguous_m`: its first contiguous run is along M.
    let (tm, tk, smem, contiguous_m) = if d.gmma {
        let major = if d.k_major { "K" } else { "MN" };
        let (am, ak) = atom_extents(sw, major, bytes);
        let (tm, tk) = (am * d.mult.0, ak * d.mult.1);
        (tm, tk, format!("tile_to_shape(GMMA::Layout_{major}_{sw}_Atom<{ty}>,(_{tm},_{tk}))"), !d.k_major)
    } else {
        let (mut tm, mut tk) = d.plain;
        while tm * tk > 8192 {
            tm = (tm / 2).max(1);
            tk = (tk / 2).max(1);
        }
        if d.k_major {
            (tm, tk, format!("(_{tm},_{tk}):(_{tk},_1)"), false)
        } else {
            (tm, tk, format!("(_{tm},_{tk}):(_1,_{tm})"), true)
        }
    };
    // The gmem tensor: a multiple of the tile plus a little, its leading dimension padded to 16 bytes.
    let align = (16 / bytes).max(1);
    let mg = tm * (1 + d.pad.0) + if d.dynamic.0 { d.pad.1 } else { 0 };
    let kg = tk * (1 + d.pad.1) + if d.dynamic.1 { d.pad.0 } else { 0 };
    let (flip, mut misalign) = (d.bad == 0, d.bad == 1);
    let lead = |n: i64| {
        let p = (n + align - 1) / align * align;
        if misalign && p > 1 {
            p + 1
        } else {
            p
        }
    };
    // Contiguous along M (MN-major) or K (K-major), as the tile; flipped when inadmissible.
    let gm_contig = contiguous_m != flip;
    let (m_txt, k_txt) = (int(mg, d.dynamic.0), int(kg, d.dynamic.1));
    let (ld, m_stride, k_stride) = if gm_contig {
        let ld = lead(mg);
        (ld, "_1".to_string(), int(ld, true))
    } else {
        let ld = lead(kg);
        (ld, int(ld, true), "_1".to_string())
    };
    if ld % align == 0 {
        misalign = false;
    }
    let plane = ld * if gm_contig { kg } else { mg };
    let (mut gmem, mut tiler) = (format!("({m_txt},{k_txt}):({m_stride},{k_stride})"), None);
    if d.batch {
        let l = 2 + d.pad.0;
        gmem = format!("({m_txt},{k_txt},{l}):({m_stride},{k_stride},{plane})");
        tiler = Some(format!("(_{tm},_{tk},_1)"));
    } else if d.size_one {
        gmem = format!("({m_txt},{k_txt},_1):({m_stride},{k_stride},_0)");
        tiler = Some(format!("(_{tm},_{tk},_1)"));
    }
    let op = ["SM90_TMA_LOAD", "SM90_TMA_LOAD_MULTICAST", "SM90_TMA_STORE", "SM90_TMA_REDUCE_ADD"][d.op];
    // A cluster of 2 or 4 CTAs only where it splits the box's last mode: the tile's K extent
    // (or M for a K-contiguous box whose one mode is K) is a power of two of at least 8.
    let cluster = match d.cluster {
        3 if tk >= 8 && tm >= 8 => "_2",
        4 if tk >= 8 && tm >= 8 => "_4",
        _ => "_1",
    };
    let args = match (tiler, d.form) {
        (Some(t), _) => format!("{op}, {ty}, {gmem}, {smem}, {t}, {cluster}"),
        (None, 0) if cluster == "_1" => format!("{op}, {ty}, {gmem}, {smem}"),
        (None, 0 | 1) => format!("{op}, {ty}, {gmem}, {smem}, {cluster}"),
        (None, _) => format!("{op}, {ty}, {gmem}, {smem}, (_{tm},_{tk}), {cluster}"),
    };
    let tiled = format!("make_tma_copy({args})");
    let text = match d.query {
        0 => tiled,
        1 => {
            // make_tma_atom(op, g, s, tiler[, cluster]): the tiler always given.
            let t = if d.batch || d.size_one { format!("(_{tm},_{tk},_1)") } else { format!("(_{tm},_{tk})") };
            format!("make_tma_atom({op}, {ty}, {gmem}, {smem}, {t}, {cluster})")
        }
        2 => format!("tma_gbasis({tiled})"),
        3 => format!("tma_g_stride({tiled})"),
        _ => format!("tma_desc_args({tiled})"),
    };
    (text, !flip && !misalign)
}

/// One random TMA case (see the module doc).
pub fn tma_case() -> BoxedStrategy<Case> {
    draw()
        .prop_map(|d| {
            let (text, admissible) = write(&d);
            let op = match d.query {
                1 => "make_tma_atom",
                2 => "tma_gbasis",
                3 => "tma_g_stride",
                4 => "tma_desc_args",
                _ => "make_tma_copy",
            };
            case_of(op, text, admissible)
        })
        .boxed()
}

/// `tma_im2col_desc_args(...)`: an NHWC activation tensor `((W,H[,D],N),C)` with the channels
/// contiguous (dynamic extents), a K-major smem tile `(_M,_K):(_K,_1)` (plain, or a GMMA K-major
/// swizzle atom tiled to it), the default tiler or the smem's shape, and a multicast of 1, 2 or 4
/// for the multicast load, or the store (`SM90_TMA_STORE_IM2COL`); sometimes the seven convolution
/// offsets of CuTe's long overloads (corners in -3..=3, paddings 0..=2, traversal strides and
/// dilations 1..=3, one per spatial mode). Admissible where the engine's model accepts it; CuTe's
/// refusals (a multicast not dividing the tile, more channels in the tile than the tensor has) stay in.
pub fn im2col_case() -> BoxedStrategy<Case> {
    /// One spatial mode's (lower corner, upper corner, lower padding, upper padding, traversal
    /// stride, lower_srt, dilation).
    type Offsets = (i64, i64, i64, i64, i64, i64, i64);
    let ty = prop::sample::select(vec![("half_t", 16i64), ("bfloat16_t", 16), ("float", 32), ("int8_t", 8)]);
    let spatial = prop::collection::vec(1i64..6, 2..=3);
    let c = prop::sample::select(vec![8i64, 16, 32, 64, 128]);
    let m = prop::sample::select(vec![8i64, 16, 32, 64]);
    let k = prop::sample::select(vec![8i64, 16, 32, 64]);
    let mc = prop::sample::select(vec![0i64, 1, 2, 4]);
    let swizzled = any::<bool>();
    let tiler = any::<bool>();
    // (store, offsets): the offsets drawn for each of three spatial modes, the extra ones unused.
    let extra = (
        0usize..5,
        any::<bool>(),
        prop::collection::vec((-3i64..=3, -3i64..=3, 0i64..=2, 0i64..=2, 1i64..=3, 0i64..=1, 1i64..=3), 3),
    );
    (ty, spatial, c, m, k, mc, swizzled, tiler, extra)
        .prop_map(|((t, bits), sp, c, m, k, mc, swz, tiler, (store, with_offsets, offs))| {
            // Pixels: spatial extents (the last is N), each at least one; strides in elements.
            let mut shape = Vec::new();
            let mut stride = Vec::new();
            let mut s = c;
            for e in &sp {
                shape.push(e.to_string());
                stride.push(s.to_string());
                s *= e;
            }
            let gmem = format!("(({}),{c}):(({}),_1)", shape.join(","), stride.join(","));
            // A 128-byte swizzle atom spans 64 half_t: take it when the tile's K holds whole atoms.
            let atom_k = 1024 / bits;
            let smem = if swz && k % atom_k == 0 && m % 8 == 0 {
                let name = match bits {
                    8 => "int8_t",
                    32 => "float",
                    _ => t,
                };
                format!("tile_to_shape(GMMA::Layout_K_SW128_Atom<{name}>,(_{m},_{k}))")
            } else {
                format!("(_{m},_{k}):(_{k},_1)")
            };
            let store = store == 0 && mc == 0;
            let op = match (store, mc) {
                (true, _) => "SM90_TMA_STORE_IM2COL",
                (false, 0) => "SM90_TMA_LOAD_IM2COL",
                _ => "SM90_TMA_LOAD_IM2COL_MULTICAST",
            };
            let mut expr = format!("tma_im2col_desc_args({op},{t},{gmem},{smem}");
            if mc > 0 || tiler {
                expr.push_str(&format!(",(_{m},_{k})"));
            }
            if mc > 0 {
                expr.push_str(&format!(",_{mc}"));
            }
            if with_offsets {
                // One value per spatial mode (the pixel modes but N).
                let n = sp.len() - 1;
                let col = |f: &dyn Fn(&Offsets) -> i64| -> String {
                    format!("({})", offs[..n].iter().map(|o| f(o).to_string()).collect::<Vec<_>>().join(","))
                };
                for part in [
                    col(&|o| o.0),
                    col(&|o| o.1),
                    col(&|o| o.2),
                    col(&|o| o.3),
                    col(&|o| o.4),
                    col(&|o| o.5),
                    col(&|o| o.6),
                ] {
                    expr.push(',');
                    expr.push_str(&part);
                }
            }
            expr.push(')');
            let admissible = crate::expr::eval_str(&expr).is_ok();
            case_of(crate::expr::op::Op::TmaIm2colDescArgs.name(), expr, admissible)
        })
        .boxed()
}

#[cfg(test)]
mod tests {
    use proptest::strategy::{Strategy, ValueTree};

    /// Every admissible drawn case is answered by the engine, and every case flipped or misaligned
    /// is refused by it (as real CuTe 4.2 and 4.7 did in the random runs of the commit that added
    /// this generator).
    #[test]
    fn the_engine_answers_admissible_cases_and_refuses_the_others() {
        let mut r = super::super::runner(5);
        let s = super::tma_case();
        let (mut yes, mut no) = (0, 0);
        for _ in 0..300 {
            let c = s.new_tree(&mut r).expect("by construction").current();
            let v = crate::expr::eval::eval_str(&c.expr);
            if c.admissible {
                assert!(v.is_ok(), "{}: {:?}", c.expr, v);
                yes += 1;
            } else {
                assert!(v.is_err(), "{}: {:?}", c.expr, v);
                no += 1;
            }
        }
        assert!(yes > 150 && no > 10, "{yes} admissible, {no} not");
    }
}

/// SM100 TMA cases (`engine::tma_sm100`), by construction: a half/bf16 UMMA (one SM, M 64 or 128,
/// or two SMs, M 128 or 256; N 64..256; K-major or MN-major operands), an MMA tile of 1, 2 or 4
/// K-blocks of 16, operand A or B, a gmem matrix (dynamic extents, a multiple of the tile plus
/// some, the leading dimension padded to 16 bytes, sometimes a batch mode) contiguous like the
/// operand, a smem tile of the CTA's operand extent (plain compact, or the GMMA swizzle atom of the
/// major tiled to it when it fits), an operation the function takes (1-SM loads/stores or the 2-SM
/// loads, multicast over a VMNK cluster of 1, 2 or 4 CTAs), and what is printed: the atom
/// (`make_tma_atom_A/B_sm100`), the tiled copy (`make_tma_copy_A/B_sm100`), its gbasis, its
/// coordinate strides or its `cuTensorMapEncodeTiled` arguments. Inadmissible variants (CuTe
/// refuses; the engine must too): the gmem's majorness flipped against the smem tile's, and
/// `SM90_TMA_REDUCE_ADD`, which neither function takes.
pub fn sm100_case() -> BoxedStrategy<Case> {
    (
        (
            any::<bool>(),
            any::<bool>(),
            prop::sample::select(vec![64i64, 128, 256]),
            prop::sample::select(vec![1i64, 2, 4]),
        ),
        (any::<bool>(), any::<bool>(), any::<bool>(), 0usize..3, (1i64..3, 0i64..9)),
        (0usize..3, 0usize..5, any::<bool>(), 0usize..16, any::<bool>()),
    )
        .prop_map(|((two, big, n, kb), (a_op, k_major, bf16, op, (mult, extra)), (cl, query, swz, bad, batch))| {
            let m = match (two, big) {
                (false, false) => 64,
                (false, true) | (true, false) => 128,
                (true, true) => 256,
            };
            let ty = if bf16 { "bfloat16_t" } else { "half_t" };
            let major = if k_major { "K" } else { "MN" };
            let atom = format!(
                "SM100_MMA_F16BF16_{}SS<{ty},{ty},float,{m},{n},UMMA::Major::{major},UMMA::Major::{major}>",
                if two { "2x1SM_" } else { "" }
            );
            let tk = 16 * kb;
            let rows = if a_op { m } else { n } / if two { 2 } else { 1 };
            let (gr, gk) = (rows * 2 * mult + extra, tk * mult + extra);
            // The gmem's majorness flipped against the smem's (1 in 16): CuTe refuses.
            let flip = bad == 0;
            let gk_major = k_major != flip;
            let (stride, plane) = if gk_major {
                let ld = (gk + 7) / 8 * 8;
                (format!("{ld},_1"), ld * gr)
            } else {
                let ld = (gr + 7) / 8 * 8;
                (format!("_1,{ld}"), ld * gk)
            };
            let gmem =
                if batch { format!("({gr},{gk},2):({stride},{plane})") } else { format!("({gr},{gk}):({stride})") };
            // GMMA atoms: K-major SW128 rows of 64 halves, MN-major SW128 columns of 64.
            let fits = if k_major { tk % 64 == 0 } else { rows % 64 == 0 };
            let smem = if swz && fits {
                format!("tile_to_shape(GMMA::Layout_{major}_SW128_Atom<{ty}>,(_{rows},_{tk}))")
            } else if k_major {
                format!("(_{rows},_{tk}):(_{tk},_1)")
            } else {
                format!("(_{rows},_{tk}):(_1,_{rows})")
            };
            let reduce = bad == 1;
            let opname = if reduce {
                "SM90_TMA_REDUCE_ADD"
            } else if two {
                ["SM100_TMA_2SM_LOAD", "SM100_TMA_2SM_LOAD_MULTICAST", "SM100_TMA_2SM_LOAD"][op]
            } else {
                ["SM90_TMA_LOAD", "SM90_TMA_LOAD_MULTICAST", "SM90_TMA_STORE"][op]
            };
            let c = [1, 2, 4][cl];
            let cluster = format!("(_{},_{c},_{c},_1)", if two { 2 } else { 1 });
            let mma = format!("make_tiled_mma({atom})");
            let letter = if a_op { 'A' } else { 'B' };
            let tiler = format!("(_{m},_{n},_{tk})");
            let atom_call =
                format!("make_tma_atom_{letter}_sm100({opname}, {ty}, {gmem}, {smem}, {tiler}, {mma}, {cluster})");
            let copy_call = format!("make_tma_copy_{letter}_sm100({opname}, {ty}, {gmem}, {smem}, {tiler}, {mma})");
            let (op_name, text) = match (query, a_op) {
                (0, true) => ("make_tma_atom_A_sm100", atom_call),
                (0, false) => ("make_tma_atom_B_sm100", atom_call),
                (1, true) => ("make_tma_copy_A_sm100", copy_call),
                (1, false) => ("make_tma_copy_B_sm100", copy_call),
                (2, _) => ("tma_gbasis", format!("tma_gbasis({atom_call})")),
                (3, _) => ("tma_g_stride", format!("tma_g_stride({atom_call})")),
                _ => ("tma_desc_args", format!("tma_desc_args({atom_call})")),
            };
            case_of(op_name, text, !flip && !reduce)
        })
        .boxed()
}

#[cfg(test)]
mod sm100_tests {
    use proptest::strategy::{Strategy, ValueTree};
    use proptest::test_runner::TestRunner;

    /// The drawn SM100 cases are what their admissibility says: the admissible ones the engine
    /// answers, the others it refuses (CuTe refuses them too: majorness, an unsupported op).
    #[test]
    fn sm100_cases_are_answered_when_admissible_and_refused_otherwise() {
        let mut runner = TestRunner::deterministic();
        let mut out = String::new();
        let (mut ok, mut refused) = (0, 0);
        for _ in 0..96 {
            let c = super::sm100_case().new_tree(&mut runner).unwrap().current();
            let r = crate::expr::eval::eval_str(&c.expr);
            if std::env::var_os("CUTECHECK_PRINT_SM100").is_some() {
                out.push_str(&c.expr);
                out.push('\n');
            }
            if c.admissible {
                assert!(r.is_ok(), "{}: {:?}", c.expr, r.err());
                ok += 1;
            } else {
                assert!(r.is_err(), "{} should be refused", c.expr);
                refused += 1;
            }
        }
        if let Some(p) = std::env::var_os("CUTECHECK_PRINT_SM100") {
            std::fs::write(p, out).unwrap();
        }
        assert!(ok >= 60 && refused >= 1, "{ok} admissible, {refused} refused");
    }

    /// The im2col generator draws the long overloads (seven offsets) and the store, and the engine
    /// answers most of what it draws.
    #[test]
    fn im2col_cases_draw_offsets_and_stores() {
        let mut runner = TestRunner::deterministic();
        let (mut offsets, mut stores, mut ok, mut out) = (0, 0, 0, String::new());
        for _ in 0..96 {
            let c = super::im2col_case().new_tree(&mut runner).unwrap().current();
            offsets += usize::from(c.expr.matches(",(").count() >= 7);
            stores += usize::from(c.expr.contains("SM90_TMA_STORE_IM2COL"));
            ok += usize::from(c.admissible);
            out.push_str(&c.expr);
            out.push('\n');
        }
        if let Some(p) = std::env::var_os("CUTECHECK_PRINT_IM2COL") {
            std::fs::write(p, out).unwrap();
        }
        assert!(offsets >= 20 && stores >= 5 && ok >= 40, "{offsets} with offsets, {stores} stores, {ok} admissible");
    }
}
