//! The CuTe DSL oracle against the real DSL (PyPI nvidia-cutlass-dsl, pinned in
//! fixtures/dsl-pins.toml): provisioning, cases that agree with the engine, and a DSL crash that
//! costs only its case.
//!
//! These tests need the DSL installed: `cargo xtask test` provisions it and sets `CUTECHECK_DSL`
//! at build time (build.rs turns it into `cfg(cutecheck_dsl)`); otherwise they are reported as
//! ignored, with the reason.

use std::time::Duration;

use cutecheck::case::{engine, Case, Oracle as _, Outcome};
use cutecheck::judge::{judge_pair, Answer, Verdict};
use cutecheck::oracle::dsl::{provision, DslOptions, DslOracle};

fn oracle(opts: DslOptions) -> DslOracle {
    DslOracle::new(opts).unwrap_or_else(|e| panic!("CUTECHECK_DSL is set but the DSL is not usable: {e:#}"))
}

fn cases(texts: &[&str]) -> Vec<Case> {
    texts.iter().enumerate().map(|(k, t)| Case::parse(t, format!("tests/dsl_oracle.rs case {k}")).unwrap()).collect()
}

#[test]
#[cfg_attr(
    not(cutecheck_dsl),
    ignore = "needs the CuTe DSL: run `cargo xtask test` (provisions nvidia-cutlass-dsl and sets CUTECHECK_DSL)"
)]
fn the_pinned_dsl_is_provisioned_and_imports() {
    let i = provision::provision(false).unwrap();
    provision::check_import(&i.site).unwrap();
    let pins = provision::DslPins::load().unwrap();
    assert_eq!(i.version, pins.version);
    // The install's marker lists the digest of every wheel it was made from; on the pinned
    // Python (cp311) each is the pinned one.
    let marker = std::fs::read_to_string(i.site.join(cutecheck::oracle::provision::MARKER)).unwrap();
    if provision::python_tag().unwrap().0 == "cp311" {
        for w in &pins.wheels {
            assert!(
                marker.contains(&format!("# {} {}", w.file, w.sha256)),
                "{} not installed from its pin:\n{marker}",
                w.file
            );
        }
    }
}

/// Static and dynamic cases whose DSL answer agrees with the engine's result (values, structure,
/// static-ness; `?` for the DSL's unknown dynamic values).
#[test]
#[cfg_attr(
    not(cutecheck_dsl),
    ignore = "needs the CuTe DSL: run `cargo xtask test` (provisions nvidia-cutlass-dsl and sets CUTECHECK_DSL)"
)]
fn dsl_cases_agree_with_the_engine() {
    let o = oracle(DslOptions::default());
    let texts = [
        "logical_divide(_24:_1,_4:_2)",
        "complement(_4:_2,_24)",
        "composition((_6,_2):(_2,_12),(_3,_4):(_1,_3))",
        "coalesce((_2,(_1,_6)):(_1,(_6,_2)))",
        "right_inverse((_4,_2):(_2,_1))",
        "left_inverse((_4,_2):(_2,_1))",
        "zipped_divide((_8,_8):(_1,_8),(_2:_1,_4:_1))",
        "blocked_product((_2,_2):(_1,_2),(_3,_4):(_1,_3))",
        "raked_product((_2,_2):(_1,_2),(_3,_4):(_1,_3))",
        "size((4,_8):(_1,4))",
        "cosize((_4,_3):(_3,_1))",
        "make_layout((4,_8))",
        "make_layout_right((_4,(_2,_3)))",
        "get((_4,(_2,_3)):(_1,(_4,_8)),_1,_0)",
        "flatten((_4,(_2,_3)):(_1,(_4,_8)))",
        "(_4,(_2,_3)):(_1,(_4,_8))((_1,(_1,_2)))",
        // warp MMA atoms (cute.nvgpu.warp.MmaF16BF16Op): TV layouts, shape and thread layout
        "mma_layout_a(SM80_16x8x16_F32F16F16F32_TN)",
        "mma_layout_b(SM80_16x8x16_F32BF16BF16F32_TN)",
        "mma_layout_c(SM80_16x8x8_F16F16F16F16_TN)",
        "mma_shape(SM80_16x8x8_F32BF16BF16F32_TN)",
        "mma_thr_id(SM80_16x8x16_F16F16F16F16_TN)",
    ];
    let cs = cases(&texts);
    let refs: Vec<&Case> = cs.iter().collect();
    let answers = o.answers(&refs);
    let mut bad = Vec::new();
    for (c, a) in cs.iter().zip(&answers) {
        let engine = engine(c, false).outcome;
        let v = judge_pair(c, Answer::printed(&engine, None), Answer::dsl(a));
        if !matches!(v, Verdict::Agree { .. }) {
            bad.push(format!("{}: engine {engine:?}, DSL {:?} ({:?}): {v:?}", c.text, a.outcome, a.dsl_text));
        }
    }
    assert!(bad.is_empty(), "the DSL disagrees with the engine:\n{}", bad.join("\n"));
    // The dynamic leaves really are unknown to the DSL (shown as `?`), and the static ones known.
    assert_eq!(answers[9].outcome, Outcome::Printed("?{div=8}".into()), "size of (4,_8): unknown, a multiple of 8");
    assert_eq!(answers[11].dsl_text.as_deref(), Some("(?,8):(1,?)"));
}

/// A case the DSL refuses is a refusal with its message; one it cannot express is unsupported;
/// one on which it aborts (a DSL bug: std::bad_variant_access in the complement of a layout with
/// dynamic strides) costs only that case, and one over the time limit is an oracle error.
#[test]
#[cfg_attr(
    not(cutecheck_dsl),
    ignore = "needs the CuTe DSL: run `cargo xtask test` (provisions nvidia-cutlass-dsl and sets CUTECHECK_DSL)"
)]
fn refusals_crashes_and_timeouts_cost_one_case() {
    let o = oracle(DslOptions { jobs: Some(1), ..DslOptions::default() });
    let cs = cases(&[
        "composition((_6,_2):(_8,_2),_3:_3)",
        "mma_layout_a(SM80_8x8x4_F64F64F64F64_TN)",
        "complement(((3,8,4,2)):((11,15,1,13)),53)",
        "size(_6:_1)",
    ]);
    let refs: Vec<&Case> = cs.iter().collect();
    let got = o.run(&refs);
    assert!(matches!(&got[0], Outcome::Rejected(m) if m.contains("composition")), "{:?}", got[0]);
    assert!(matches!(&got[1], Outcome::Unsupported(_)), "{:?}", got[1]);
    assert!(matches!(&got[2], Outcome::Crashed(m) if m.contains("SIGABRT")), "{:?}", got[2]);
    assert_eq!(got[3], Outcome::Printed("_6".into()));
    let slow = oracle(DslOptions { jobs: Some(1), case_timeout: Duration::from_millis(1), ..DslOptions::default() });
    let got = slow.run(&refs[3..]);
    assert!(matches!(&got[0], Outcome::Error(m) if m.contains("longer than")), "{:?}", got[0]);
    assert_eq!(o.run(&refs[3..])[0], Outcome::Printed("_6".into()), "the first oracle still answers");
}
