//! Random cases in the forms of CuTe users' reports (fixtures/cases/user_issues.cases):
//! - #3253: `coalesce(make_layout(complement(X, N), X))`, the coalesce of a layout prepended with
//!   its complement, for `X = (s):(d)` and `N` a multiple of `s*d`, static or dynamic;
//! - #3454: a swizzled row-major `(a,b)` tile sliced at `(_,j)` or `(j,_)`, `a` sometimes no
//!   multiple of the swizzle's period (CuTe then refuses: not drawn as admissible);
//! - #2094: `left_inverse((M,N):(D,_1))` of a TMEM-like layout, `N` no power of two, `D >= N`
//!   (before 3.9 not admissible: CuTe's left_inverse then is no left inverse).

use proptest::prelude::*;

use super::{case_of, Case};

fn int(v: i64, dynamic: bool) -> String {
    if dynamic {
        v.to_string()
    } else {
        format!("_{v}")
    }
}

/// One random case of the reported forms (see the module doc).
pub fn issue_case() -> BoxedStrategy<Case> {
    let prepend = (1i64..=8, 1i64..=6, 1i64..=3, any::<bool>()).prop_map(|(s, d, k, dy)| {
        let x = format!("({}):({})", int(s, dy), int(d, dy));
        let n = int(s * d * k, dy);
        case_of("coalesce", format!("coalesce(make_layout(complement({x},{n}),{x}))"), true)
    });
    let slice =
        ((1u32..=3, 0u32..=4), (2i64..=20, 1u32..=3), 0i64..2, any::<bool>()).prop_map(|((b, m), (a, lb), j, row)| {
            let s = b.max(3);
            let cols = 1i64 << lb;
            let coord = if row { format!("(_,{})", j % cols) } else { format!("({},_)", j % a) };
            let text = format!("composition(Swizzle<{b},{m},{s}>,(_{a},_{cols}):(_{cols},_1)){coord}");
            // A tile whose rows are a multiple of the swizzle's reach slices; others may be refused.
            let admissible = a % (1 << (b + m + s).min(10)) == 0;
            case_of("slice", text, admissible)
        });
    let tmem =
        (prop::sample::select(vec![32i64, 64, 128]), prop::sample::select(vec![96i64, 160, 192, 224, 48]), 0u32..3)
            .prop_map(|(m, n, e)| {
                let d = 1i64 << (8 + 4 * e);
                // Before 3.9 left_inverse goes through complement, which needs N to divide D (the
                // strides to nest: known.rs complement-strides-do-not-nest); N is no power of two.
                let admissible = crate::engine::release::INVERSES_SORTED.on() || d % n == 0;
                case_of("left_inverse", format!("left_inverse((_{m},_{n}):(_{d},_1))"), admissible)
            });
    prop_oneof![2 => prepend, 2 => slice, 1 => tmem].boxed()
}
