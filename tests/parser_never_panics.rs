//! The parser and evaluator never panic, whatever the input: every string gives a value or an error.
//! `cargo test` runs a modest number of cases; `PROPTEST_CASES=100000 cargo test --release --test
//! parser_never_panics` is the long run (see BENCHMARKS.md).

use cutecheck::expr::{eval_str, parse};
use proptest::prelude::*;

/// Strings made of the language's own characters, so many of them get deep into the parser.
fn near_miss() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![
            Just("(".to_string()),
            Just(")".to_string()),
            Just(",".to_string()),
            Just(":".to_string()),
            Just("_".to_string()),
            Just("-".to_string()),
            Just("<".to_string()),
            Just(">".to_string()),
            Just(" ".to_string()),
            "[0-9]{1,12}",
            "(coalesce|composition|complement|logical_divide|zipped_divide|make_layout|size|cosize|get|flatten|Swizzle|SM80_16x8x16_F32F16F16F32_TN)",
            Just("{".to_string()),
            Just("}".to_string()),
            Just("::".to_string()),
            Just("+".to_string()),
            Just("*".to_string()),
            // CuTe's C++ spelling (parse.rs, module cpp).
            "(Int|C|Shape|Stride|Step|Layout|X|make_shape|make_stride|make_coord|make_tile|cute|MMA_Atom|Copy_Atom|LayoutRight|GenRowMajor|tile_to_shape|_4|_8)",
        ],
        0..40,
    )
    .prop_map(|parts| parts.concat())
}

proptest! {
    // PROPTEST_CASES overrides the count (the long run uses 100000).
    #![proptest_config(ProptestConfig {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(2000),
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn arbitrary_strings_never_panic(s in any::<String>()) {
        let _ = eval_str(&s);
    }

    #[test]
    fn near_misses_never_panic(s in near_miss()) {
        let _ = eval_str(&s);
        if let Ok(e) = parse(&s) {
            // The canonical text of a parsed expression parses to the same expression.
            let again = parse(&e.to_string()).expect("canonical text parses");
            prop_assert_eq!(again.to_string(), e.to_string());
        }
    }
}

#[test]
fn huge_and_overflowing_inputs_are_errors() {
    for s in [
        "size(make_layout((65536,65536)))",
        "size((65536,65536,65536))",
        "(_2147483647,_2):(_1,_2147483647)(1,1)",
        "_2147483648",
        "cosize((_46341,_46341):(_46341,_1))",
    ] {
        match eval_str(s) {
            Ok(v) => panic!("{s} gave {v}, expected an overflow error"),
            Err(e) => assert!(e.to_string().contains("overflow") || e.to_string().contains("32-bit"), "{s}: {e}"),
        }
    }
}
