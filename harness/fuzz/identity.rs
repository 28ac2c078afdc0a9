//! Random identity-tensor cases (`fuzz::identity::identity_tensor_case`), built by construction as
//! kernels build their predicate tensors: `make_identity_tensor(S)` of a rank-2 shape (static or
//! run-time extents), tiled by a CTA tile that divides it (`local_tile`, with the sgemm tutorials'
//! projection of a rank-3 tiler sometimes), partitioned by a thread layout that divides the tile
//! (`local_partition`, with a `(_1,_)` projection sometimes), by a kernel's gmem TiledCopy
//! (`copy_partition_s/d`: sm80_mma_multistage.hpp's `gmem_thr_copy_A.partition_S(cA)`, the
//! tiled_copy_if tutorial's) or a TiledMMA (`mma_partition_a/b/c`, the epilogue's predicate
//! tensor), then sometimes sliced (`T(_,k)`) or read at one element (`T(i,j)`, a coordinate), in
//! the short spelling or CuTe's C++ one.
//!
//! Every case is admissible: each tile divides the shape, each thread layout the tile, each
//! coordinate, thread and element is in range.

use proptest::prelude::*;

use super::Case;

/// Kernels' tiled copies: (short spelling, C++ spelling, tile M, tile N, threads).
const COPIES: &[(&str, &str, i64, i64, i64)] = &[
    (
        "make_tiled_copy(copy_atom(SM80_CP_ASYNC_CACHEALWAYS<uint128_t>,half_t),(_16,_8):(_8,_1),(_1,_8))",
        "make_tiled_copy(Copy_Atom<SM80_CP_ASYNC_CACHEALWAYS<uint128_t>, cute::half_t>{}, Layout<Shape<_16,_8>,Stride<_8,_1>>{}, Layout<Shape<_1,_8>>{})",
        16,
        64,
        128,
    ),
    (
        "make_tiled_copy(copy_atom(SM80_CP_ASYNC_CACHEALWAYS<uint128_t>,half_t),(_32,_4):(_1,_32),(_8,_1))",
        "make_tiled_copy(Copy_Atom<SM80_CP_ASYNC_CACHEALWAYS<uint128_t>, cute::half_t>{}, Layout<Shape<_32,_4>,Stride<_1,_32>>{}, Layout<Shape<_8,_1>>{})",
        256,
        4,
        128,
    ),
    (
        "make_tiled_copy(copy_atom(UniversalCopy<uint128_t>,float),make_layout((_32,_8)),make_layout((_4,_1)))",
        "make_tiled_copy(Copy_Atom<UniversalCopy<uint128_t>, float>{}, make_layout(make_shape(Int<32>{}, Int<8>{})), make_layout(make_shape(Int<4>{}, Int<1>{})))",
        128,
        8,
        256,
    ),
    (
        "make_tiled_copy(copy_atom(UniversalCopy<float>,float),(_32,_8):(_1,_32),make_layout((_1,_1)))",
        "make_tiled_copy(Copy_Atom<UniversalCopy<float>, float>{}, Layout<Shape<_32,_8>,Stride<_1,_32>>{}, Layout<Shape<_1,_1>>{})",
        32,
        8,
        256,
    ),
];

/// Kernels' tiled MMAs: (short, C++, tile M, tile N, tile K, threads).
const MMAS: &[(&str, &str, i64, i64, i64, i64)] = &[
    (
        "make_tiled_mma(SM80_16x8x16_F32F16F16F32_TN,(_2,_2,_1))",
        "make_tiled_mma(SM80_16x8x16_F32F16F16F32_TN{}, Layout<Shape<_2,_2,_1>>{})",
        32,
        16,
        16,
        128,
    ),
    (
        "make_tiled_mma(UniversalFMA<float,float,float>,(_16,_16,_1))",
        "make_tiled_mma(UniversalFMA<float,float,float>{}, Layout<Shape<_16,_16,_1>>{})",
        16,
        16,
        1,
        256,
    ),
    (
        "make_tiled_mma(SM70_8x8x4_F32F16F16F32_NT,(_2,_2,_1))",
        "make_tiled_mma(SM70_8x8x4_F32F16F16F32_NT{}, Layout<Shape<_2,_2,_1>>{})",
        16,
        16,
        4,
        32,
    ),
];

fn ext(v: i64, st: bool, cpp: bool) -> String {
    match (st, cpp) {
        (true, false) => format!("_{v}"),
        (true, true) => format!("Int<{v}>{{}}"),
        (false, _) => v.to_string(),
    }
}

fn shape(m: i64, n: i64, st: bool, cpp: bool) -> String {
    if cpp {
        format!("make_shape({}, {})", ext(m, st, cpp), ext(n, st, cpp))
    } else {
        format!("({},{})", ext(m, st, cpp), ext(n, st, cpp))
    }
}

/// A divisor of `n` picked by `p`.
fn divisor(n: i64, p: u32) -> i64 {
    let ds: Vec<i64> = (1..=n).filter(|d| n % d == 0).collect();
    ds[p as usize % ds.len()]
}

/// `T(_,k)` (a column) or `T(i,j)` (an element) of a rank-2-or-more tensor of the given mode sizes,
/// or the tensor itself.
fn read(t: String, sizes: &[i64], how: u32, pick: u32) -> String {
    match how % 4 {
        0 | 1 => t,
        2 => {
            let k = pick as i64 % sizes.last().copied().unwrap_or(1).max(1);
            let mut parts = vec!["_".to_string(); sizes.len()];
            *parts.last_mut().expect("rank >= 1") = k.to_string();
            format!("{t}({})", parts.join(","))
        }
        _ => {
            let parts: Vec<String> =
                sizes.iter().enumerate().map(|(i, s)| ((pick as i64 >> (3 * i)) % s.max(&1)).to_string()).collect();
            format!("{t}({})", parts.join(","))
        }
    }
}

/// One random identity-tensor case (see the module doc).
pub fn identity_tensor_case() -> BoxedStrategy<Case> {
    (0..5u32, any::<[u32; 8]>(), any::<bool>(), any::<bool>())
        .prop_map(|(form, r, st, cpp)| {
            let (op, expr) = match form {
                // make_identity_tensor, local_tile (with a projection), local_partition of a tile.
                0 | 1 => {
                    let (tm, tn) = ([2i64, 4, 8, 16, 32][r[0] as usize % 5], [2i64, 4, 8, 16, 6][r[1] as usize % 5]);
                    let (a, b) = (1 + r[2] as i64 % 4, 1 + r[3] as i64 % 4);
                    let t = format!("make_identity_tensor({})", shape(tm * a, tn * b, st, cpp));
                    let (i, j) = (r[4] as i64 % a, r[5] as i64 % b);
                    let tile = if cpp {
                        format!("make_shape(Int<{tm}>{{}}, Int<{tn}>{{}})")
                    } else {
                        format!("(_{tm},_{tn})")
                    };
                    let tiled = if r[6] % 3 == 0 {
                        // sgemm's cta_tiler (BM,BN,BK) projected to (BM,BK) by Step<_1,X,_1>.
                        if cpp {
                            format!("local_tile({t}, make_shape(Int<{tm}>{{}}, Int<5>{{}}, Int<{tn}>{{}}), make_coord({i}, 0, {j}), Step<_1,X,_1>{{}})")
                        } else {
                            format!("local_tile({t},(_{tm},_5,_{tn}),({i},0,{j}),(_1,_,_1))")
                        }
                    } else if cpp {
                        format!("local_tile({t}, {tile}, make_coord({i}, {j}))")
                    } else {
                        format!("local_tile({t},{tile},({i},{j}))")
                    };
                    if form == 0 {
                        ("local_tile", read(tiled, &[tm, tn], r[7], r[4]))
                    } else {
                        let (p, q) = (divisor(tm, r[4]), divisor(tn, r[5]));
                        let thr = if r[6] % 2 == 0 { format!("(_{p},_{q}):(_{q},_1)") } else { format!("make_layout((_{p},_{q}))") };
                        let idx = r[7] as i64 % (p * q);
                        let proj = if r[7] % 5 == 0 { ",(_1,_)" } else { "" };
                        let sizes = if proj.is_empty() { [tm / p, tn / q] } else { [tm / p, tn] };
                        ("local_partition", read(format!("local_partition({tiled},{thr},{idx}{proj})"), &sizes, r[3], r[0]))
                    }
                }
                // A gmem TiledCopy's partition_S/D of an identity tensor (or of a tile of one).
                2 | 3 => {
                    let (short, long, tm, tn, threads) = COPIES[r[0] as usize % COPIES.len()];
                    let (a, b) = (1 + r[1] as i64 % 2, 1 + r[2] as i64 % 2);
                    let t = format!("make_identity_tensor({})", shape(tm * a, tn * b, st, cpp));
                    let op = if form == 2 { "copy_partition_s" } else { "copy_partition_d" };
                    let x = if cpp { long } else { short };
                    let thr = r[3] as i64 % threads;
                    ("copy_partition", read(format!("{op}({x}, {t}, {thr})"), &[1, a, b], r[4], r[5]))
                }
                // A TiledMMA's partition_A/B/C of an identity tensor.
                _ => {
                    let (short, long, tm, tn, tk, threads) = MMAS[r[0] as usize % MMAS.len()];
                    let (a, b) = (1 + r[1] as i64 % 2, 1 + r[2] as i64 % 2);
                    let (op, m, n) = match r[3] % 3 {
                        0 => ("mma_partition_c", tm * a, tn * b),
                        1 => ("mma_partition_a", tm * a, tk * b),
                        _ => ("mma_partition_b", tn * a, tk * b),
                    };
                    let x = if cpp { long } else { short };
                    let t = format!("make_identity_tensor({})", shape(m, n, st, cpp));
                    ("mma_partition", format!("{op}({x}, {t}, {})", r[4] as i64 % threads))
                }
            };
            Case::new(op, expr, true)
        })
        .boxed()
}

#[cfg(test)]
mod tests {
    use proptest::strategy::{Strategy, ValueTree};

    /// Every drawn case is admissible: the engine answers it with an identity tensor or one of its
    /// coordinates (no refusal).
    #[test]
    fn the_engine_answers_every_drawn_case() {
        let mut r = super::super::runner(28);
        let s = super::identity_tensor_case();
        for _ in 0..300 {
            let c = s.new_tree(&mut r).expect("by construction").current();
            let v = crate::expr::eval::eval_str(&c.expr);
            assert!(v.is_ok(), "{}: {:?}", c.expr, v);
        }
    }
}
