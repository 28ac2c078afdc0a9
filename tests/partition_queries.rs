//! The queries and fragments of a partitioned tensor are those of its layout (tensor_impl.hpp:
//! `make_fragment_like(T)` is `make_tensor<T::value_type>(make_fragment_like(T.layout()))`,
//! `make_tensor_like(T)` is `make_layout_like(T.layout())`, and `size<I>(T)`, `shape(T)`,
//! `get<I>(T)`, `rank(T)` read `T.layout()`), as the kernels write them: the tiled_copy tutorial's
//! `make_fragment_like(thr_tile_D)`, sm80_mma_multistage.hpp's predicate tensors
//! `make_tensor<bool>(make_shape(size<1>(tAsA), size<2>(tAsA)), Stride<_1,_0>{})`. Checked against
//! real CuTe in fixtures/cases/kernel_forms.cases (suite::kernel_forms).
//!
//! Property: for a TiledCopy partition P (partition_S or _D, any thread) of a layout L, each query
//! of P equals the same query of P's layout.

use cutecheck::expr::eval::eval_str;
use cutecheck::expr::value::{AtomValue, Value};
use proptest::prelude::*;

fn eval(text: &str) -> Value {
    eval_str(text).unwrap_or_else(|e| panic!("{text}: {e}"))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]
    #[test]
    fn a_partitions_queries_are_its_layouts(
        tm in 0usize..3, tn in 0usize..3, vm in 0usize..3, rows in 1i64..4, cols in 1i64..4,
        stages in 1i64..4, thread in 0i64..64, dst in any::<bool>(), right in any::<bool>(),
    ) {
        let (thr_m, thr_n, val_m) = ([2, 4, 8][tm], [2, 4, 8][tn], [1, 2, 4][vm]);
        let shape = format!("(_{},_{},_{stages})", thr_m * val_m * rows, thr_n * cols);
        let layout = if right { format!("make_layout_right({shape})") } else { format!("make_layout({shape})") };
        let copy = format!(
            "make_tiled_copy(copy_atom(UniversalCopy<uint32_t>,float),make_layout((_{thr_m},_{thr_n})),make_layout((_{val_m},_1)))"
        );
        let op = if dst { "copy_partition_d" } else { "copy_partition_s" };
        let p = format!("{op}({copy},{layout},{})", thread % (thr_m * thr_n));
        let Value::Atom(AtomValue::Partition(part)) = eval(&p) else { panic!("{p}: not a partition") };
        let l = part.layout.to_string();
        for q in ["make_fragment_like", "make_layout_like", "size", "shape", "rank"] {
            prop_assert_eq!(eval(&format!("{q}({p})")), eval(&format!("{q}({l})")), "{}", q);
        }
        for i in 0..part.layout.rank() {
            prop_assert_eq!(eval(&format!("size(get({p},{i}))")), eval(&format!("size(get({l},{i}))")));
        }
    }
}

// A UMMA's accumulator fragment (make_fragment_C of an SM100_MMA atom) is CuTe's TMEM allocation
// (engine::atom::tmem::umma_accumulator_fragment): element (m, n) of each MMA tile at TMEM lane m
// (address bits 16 and up, `DP<float>` = 65536) and column n, the MMA tiles side by side in
// columns. CuTe 4.2 and 4.7 print `((_128,_256),_1,_1):((_65536,_1),_0,_0)` for the Blackwell
// tutorial's 128x256 tile (kernel_forms.cases).
proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]
    #[test]
    fn a_umma_accumulator_lives_at_lane_m_column_n(nn in 0usize..3, tiles_m in 1i64..3, tiles_n in 1i64..3) {
        let n = [64, 128, 256][nn];
        let mma = format!("make_tiled_mma(SM100_MMA_F16BF16_SS<cutlass::half_t,cutlass::half_t,float,128,{n},UMMA::Major::K,UMMA::Major::K>)");
        let c = format!("make_layout((_{},_{}))", 128 * tiles_m, n * tiles_n);
        let Value::Layout(f) = eval(&format!("mma_fragment_c({mma},{c},0)")) else { panic!("not a layout") };
        prop_assert_eq!(f.size().unwrap().value, 128 * n * tiles_m * tiles_n);
        let mut seen = std::collections::HashSet::new();
        for m in 0..128 {
            for j in 0..n {
                let a = f.call_int(cutecheck::engine::Int::dy(m + 128 * j)).unwrap().value;
                prop_assert_eq!(a, m * 65536 + j, "TMEM address of ({}, {})", m, j);
                prop_assert!(seen.insert(a), "({}, {}) shares TMEM address {}", m, j, a);
            }
        }
        prop_assert!(f.to_string().starts_with(&format!("((_128,_{n}),")), "{}", f);
    }
}

#[test]
fn the_blackwell_tutorials_accumulator_is_cutes() {
    let mma = "make_tiled_mma(SM100_MMA_F16BF16_SS<cutlass::half_t,cutlass::half_t,float,128,256,UMMA::Major::K,UMMA::Major::K>)";
    let f = eval(&format!(
        "mma_fragment_c({mma},local_tile(make_layout((512,1024),(1024,_1)),(_128,_256,_64),(0,0,_),(_1,_1,_)),0)"
    ));
    assert_eq!(f.to_string(), "((_128,_256),_1,_1):((_65536,_1),_0,_0)");
}
