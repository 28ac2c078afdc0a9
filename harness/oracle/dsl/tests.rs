use super::*;
use crate::expr::{eval_str, parse, Value};
use crate::judge::{compare_partial, judge_pair, Answer, Blame, Fault, Match, Roles, Side, Verdict};

fn dsl(j: Json) -> DslValue {
    DslValue::from_json(&j).unwrap()
}
fn val(s: &str) -> Value {
    eval_str(s).unwrap()
}

#[test]
fn the_ast_is_sent_as_structure_with_allow_listed_names_only() {
    let a = |s: &str| ast(&parse(s).unwrap());
    assert_eq!(
        a("composition((_6,2):(_8,_2),_4:_4)").unwrap(),
        json!([
            "c",
            "composition",
            [
                ["l", ["t", [["i", 6, true], ["i", 2, false]]], ["t", [["i", 8, true], ["i", 2, true]]]],
                ["l", ["i", 4, true], ["i", 4, true]]
            ]
        ])
    );
    assert_eq!(a("logical_divide(_8:_1,(_,_2:_1))").unwrap()[2][1][1][0], json!(["u"]));
    assert_eq!(a("(_4,_2):(_1,_4)(_1)").unwrap()[0], json!("a"));
    assert!(a("system(_1)").unwrap_err().contains("no system"));
    assert!(a("mma_layout_a(SM80_8x8x4_F64F64F64F64_TN)").is_err());
    assert!(a("local_tile(_8:_1,_2,_0)").is_err());
}

#[test]
fn atom_members_become_atom_nodes_or_unsupported() {
    let a = |s: &str| ast(&parse(s).unwrap());
    assert_eq!(a("mma_layout_a(SM80_16x8x16_F32F16F16F32_TN)").unwrap()[0], json!("m"));
    assert_eq!(
        a("mma_layout_c(SM90_64x8x16_F16F16F16_RS<GMMA::Major::K,GMMA::Major::K>)").unwrap()[2]["op"],
        json!("warpgroup.MmaF16BF16Op")
    );
    let k = a("copy_atom_dst(SM75_U32x4_LDSM_N,half_t)").unwrap();
    assert_eq!((k[0].clone(), k[1].clone()), (json!("k"), json!("copy_atom_dst")));
    assert!(a("copy_atom_ref(SM75_U32x4_LDSM_N,half_t)").unwrap_err().contains("reference layout"));
    assert!(a("copy_traits_src(SM75_U32x4_LDSM_N)").is_err());
    assert!(a("mma_layout_a(SM80_8x8x4_F64F64F64F64_TN)").is_err());
}

/// The worker's allow-lists hold every operation, element type and enum value atoms.rs writes.
#[test]
fn the_atom_allow_lists_match_the_worker() {
    for s in [
        "warp.MmaF16BF16Op",
        "warp.MmaTF32Op",
        "warp.MmaFP8Op",
        "warpgroup.MmaF16BF16Op",
        "warpgroup.MmaF8Op",
        "warp.LdMatrix8x8x16bOp",
        "warp.StMatrix8x8x16bOp",
        "cpasync.CopyG2SOp",
        "\"CopyUniversalOp\"",
        "OperandSource.SMEM",
        "OperandSource.RMEM",
        "OperandMajorMode.K",
        "OperandMajorMode.MN",
        "LoadCacheMode.ALWAYS",
        "LoadCacheMode.GLOBAL",
        "Float8E4M3FN",
        "Float8E5M2",
        "TFloat32",
        "Uint128",
        "Int4",
    ] {
        assert!(WORKER_PY.contains(s), "{s} is not in worker.py's allow-lists");
    }
    for &m in Op::ALL {
        if let Part::Has(DslForm::Mma(_) | DslForm::Copy(_)) = dsl_form(m) {
            assert!(WORKER_PY.contains(&format!("\"{m}\":")), "{m}");
        }
    }
}

/// The worker implements exactly the plain calls of `dsl_form` (its `OPS` table, plus `get`).
#[test]
fn the_allow_list_matches_the_worker_table() {
    let start = WORKER_PY.find("\nOPS = {").expect("OPS table in worker.py");
    let end = start + WORKER_PY[start..].find('}').unwrap();
    let mut py: Vec<&str> =
        WORKER_PY[start..end].lines().filter_map(|l| l.trim().strip_prefix('"')?.split('"').next()).collect();
    py.push("get");
    py.sort();
    let mut rs: Vec<&str> =
        Op::ALL.iter().filter(|&&op| matches!(dsl_form(op), Part::Has(DslForm::Call))).map(|op| op.name()).collect();
    rs.sort();
    assert_eq!(py, rs);
}

#[test]
fn values_render_in_cute_format_with_unknowns() {
    let v = dsl(
        json!({"shape": [4, [2, {"d": null, "v": null}]], "stride": [{"d": 2, "v": null}, [{"d": null, "v": 3}, 1]]}),
    );
    assert_eq!(v.to_string(), "(_4,(_2,?)):(?{div=2},(3,_1))");
    assert!(!v.is_known());
    assert_eq!(v.to_value(), None);
    assert_eq!(known_leaves(&v), (4, 6));
    let k = dsl(json!({"shape": [4, 2], "stride": [1, {"d": null, "v": 4}]}));
    assert_eq!(k.to_value(), Some(val("(_4,_2):(_1,4)")));
    assert!(DslValue::from_json(&json!("x")).is_err());
}

#[test]
fn compare_checks_structure_values_staticness_and_divisors() {
    let l = |j: Json| dsl(j);
    // static layout: identical
    assert_eq!(
        compare_partial(&val("(_2,_2):(_32,_2)"), &l(json!({"shape": [2, 2], "stride": [32, 2]}))),
        Match::Identical { unknown: 0 }
    );
    // dynamic leaves shown as ? match the reference's dynamic values
    let d = l(json!({"shape": [{"d": null, "v": null}, 8], "stride": [1, {"d": null, "v": null}]}));
    assert_eq!(compare_partial(&val("(4,_8):(_1,4)"), &d), Match::Identical { unknown: 2 });
    // a ? against a static leaf: static-ness differs
    assert!(matches!(compare_partial(&val("(_4,_8):(_1,4)"), &d), Match::Staticness { leaves: 1, .. }));
    // a known static value against a dynamic reference leaf
    assert!(matches!(
        compare_partial(&val("4:_1"), &l(json!({"shape": 4, "stride": 1}))),
        Match::Staticness { leaves: 1, .. }
    ));
    // a divisor that does not divide the reference's value
    let m = compare_partial(&val("12:_1"), &l(json!({"shape": {"d": 8, "v": null}, "stride": 1})));
    assert!(matches!(&m, Match::Different { at } if at.contains("multiple of 8")), "{m:?}");
    assert_eq!(
        compare_partial(&val("16:_1"), &l(json!({"shape": {"d": 8, "v": null}, "stride": 1}))),
        Match::Identical { unknown: 1 }
    );
    // different values, different ranks, different kinds
    assert!(matches!(compare_partial(&val("_4:_2"), &l(json!({"shape": 4, "stride": 1}))), Match::Different { .. }));
    assert!(matches!(
        compare_partial(&val("(_4):(_1)"), &l(json!({"shape": 4, "stride": 1}))),
        Match::Different { .. }
    ));
    assert!(matches!(compare_partial(&val("_4"), &l(json!({"shape": 4, "stride": 1}))), Match::Different { .. }));
    assert_eq!(compare_partial(&val("_24"), &l(json!(24))), Match::Identical { unknown: 0 });
}

fn answer(j: Json) -> DslAnswer {
    DslAnswer::from_json(&j)
}

/// The judge on a reference outcome (printed by CuTe C++ or the engine) against the DSL's answer.
fn judge_case(case: &Case, reference: &Outcome, dsl: &DslAnswer) -> Verdict {
    judge_pair(case, Answer::printed(reference, None), Answer::dsl(dsl))
}

#[test]
fn judge_classifies_with_blame_by_the_definition() {
    let roles = Roles { reference: "reference", oracle: "dsl" };
    let case = Case::parse("composition((_6,_2):(_8,_2),_4:_4)", "t").unwrap();
    let p = |s: &str| Outcome::Printed(s.into());
    // CuTe C++ and the DSL both print (_2,_2):(_32,_2), which violates the definition: agreement.
    let a = answer(json!({"value": {"shape": [2, 2], "stride": [32, 2]}, "text": "(2,2):(32,2)"}));
    assert_eq!(judge_case(&case, &p("(_2,_2):(_32,_2)"), &a), Verdict::Agree { unknown: 0 });
    // The engine refuses; the DSL's accepted result violates the definition.
    let v = judge_case(&case, &Outcome::Rejected("undefined".into()), &a);
    assert!(matches!(&v, Verdict::OneRejects { rejecter: Side::Reference, accepted_ok: Some(false), .. }), "{v:?}");
    assert!(!v.blames_reference());
    assert_eq!(v.fault(), Fault::OracleDefect);
    // A different function that satisfies the definition against one that does not: blame the DSL.
    let case = Case::parse("composition(_24:_1,_4:_2)", "t").unwrap();
    let wrong = answer(json!({"value": {"shape": 4, "stride": 3}, "text": "4:3"}));
    let v = judge_case(&case, &p("_4:_2"), &wrong);
    assert!(matches!(v, Verdict::DifferentFunction { blame: Blame::Oracle, .. }), "{v:?}");
    assert_eq!(v.signature(roles), "different-function:blame-dsl");
    assert_eq!(v.fault(), Fault::OracleDefect);
    // Same function, other representation.
    let case = Case::parse("coalesce((_2,_3):(_1,_2))", "t").unwrap();
    let flat = answer(json!({"value": {"shape": [2, 3], "stride": [1, 2]}, "text": "(2,3):(1,2)"}));
    assert_eq!(judge_case(&case, &p("_6:_1"), &flat), Verdict::SameFunction);
    // Different and the DSL's values unknown: no definition can be checked.
    let unk = answer(json!({"value": {"shape": {"d": null, "v": null}, "stride": 1}, "text": "?:1"}));
    assert!(matches!(judge_case(&case, &p("(_2,_3):(_1,_2)"), &unk), Verdict::DifferentUnknown { .. }));
    // The DSL refuses what the reference accepts (and the accepted result is right).
    let rej = answer(json!({"rejected": "MLIRError: unable to compute"}));
    let v = judge_case(&case, &p("_6:_1"), &rej);
    assert!(
        matches!(&v, Verdict::OneRejects { rejecter: Side::Oracle, accepted_ok: Some(true), message: Some(message), dynamic: false, .. } if message.contains("unable")),
        "{v:?}"
    );
    assert_eq!(judge_case(&case, &Outcome::Rejected("x".into()), &rej), Verdict::BothRefuse);
    // ... a refusal that names an operand type with a dynamic leaf is the DSL's static-only limit.
    let dynr = answer(
        json!({"rejected": "MLIRError: error: unknown: expects an input with static shape, but got '!cute.layout<\"(?,4):(1,?)\">'"}),
    );
    let v = judge_case(&case, &p("_6:_1"), &dynr);
    assert_eq!(v.signature(roles), "one-rejects:dsl-refuses-dynamic:accepted-ok");
    assert_eq!(v.fault(), Fault::OracleLimitation);
    let stat = answer(
        json!({"rejected": "MLIRError: error: unknown: unable to compute the left inverse of '!cute.layout<\"(4):(-1)\">'"}),
    );
    assert_eq!(judge_case(&case, &p("_6:_1"), &stat).signature(roles), "one-rejects:dsl-rejects:accepted-ok");
    assert_eq!(judge_case(&case, &p("_6:_1"), &stat).fault(), Fault::OracleDefect);
    let crash = answer(json!({"crashed": "the DSL died on this case: signal 8 (SIGFPE)"}));
    assert_eq!(judge_case(&case, &p("_6:_1"), &crash).signature(roles), "dsl-crashed:SIGFPE");
    assert_eq!(judge_case(&case, &p("_6:_1"), &crash).fault(), Fault::OracleDefect);
    let uns = answer(json!({"unsupported": "no such op"}));
    assert!(judge_case(&case, &p("_6:_1"), &uns).unchecked());
}

/// A stand-in worker (no DSL needed) speaking the protocol: `_666` kills it, `_777` hangs it,
/// `_888` ends the request early with a fatal trace error, `_999` is answered as a crash of the
/// worker's child, any other case echoes its integer.
const FAKE: &str = r#"
import json, os, sys, time
print(json.dumps({"ready": "fake"}), flush=True)
for line in sys.stdin:
    cases = json.loads(line)["cases"]
    for c in cases:
        if c[0] == "i" and c[1] == 666:
            sys.stderr.write("boom on 666\n"); sys.stderr.flush(); os._exit(3)
        if c[0] == "i" and c[1] == 777:
            time.sleep(60)
        if c[0] == "i" and c[1] == 999:
            print(json.dumps({"crashed": "child died"}), flush=True)
            continue
        if c[0] == "i" and c[1] == 888:
            print(json.dumps({"fatal": "trace broke"}), flush=True)
            break
        print(json.dumps({"value": c[1], "text": str(c[1])}), flush=True)
    print(json.dumps({"end": len(cases)}), flush=True)
"#;

#[test]
fn crashes_and_hangs_are_isolated_and_the_worker_restarted() {
    let t = tempfile::tempdir().unwrap();
    let script = t.path().join("fake.py");
    std::fs::write(&script, FAKE).unwrap();
    let opts = DslOptions {
        jobs: Some(2),
        batch: 4,
        case_timeout: Duration::from_millis(500),
        start_timeout: Duration::from_secs(30),
    };
    let o = DslOracle::with_command(vec!["python3".into(), script.into_os_string()], "fake".into(), opts);
    let texts = ["_1", "_2", "_666", "_3", "_4", "_777", "_5", "_6", "_999", "_9", "_888", "_7", "_8", "system(_1)"];
    let cases: Vec<Case> = texts.iter().map(|s| Case::parse(s, "t").unwrap()).collect();
    let refs: Vec<&Case> = cases.iter().collect();
    let got = o.answers(&refs);
    assert_eq!(got.len(), texts.len());
    for (s, a) in texts.iter().zip(&got) {
        match *s {
            "_666" => assert!(matches!(&a.outcome, Outcome::Crashed(m) if m.contains("boom on 666")), "{a:?}"),
            "_777" => assert!(matches!(&a.outcome, Outcome::Error(m) if m.contains("longer than")), "{a:?}"),
            "_999" => assert!(matches!(&a.outcome, Outcome::Crashed(m) if m.contains("child died")), "{a:?}"),
            "_888" | "_7" => assert!(matches!(&a.outcome, Outcome::Error(m) if m.contains("trace broke")), "{s} {a:?}"),
            "system(_1)" => assert!(matches!(&a.outcome, Outcome::Unsupported(_)), "{a:?}"),
            _ => assert_eq!(a.outcome, Outcome::Printed(s.to_string()), "{s}"),
        }
    }
    // The pool keeps answering after the failures (fresh workers).
    let again = o.answers(&refs[..2]);
    assert_eq!(again[1].outcome, Outcome::Printed("_2".into()));
    assert_eq!(got[6].outcome, Outcome::Printed("_5".into()), "the case after a hang is answered");
}

#[test]
fn a_worker_that_cannot_start_is_an_oracle_error() {
    let o = DslOracle::with_command(
        vec!["python3".into(), "-c".into(), "import sys; sys.exit(2)".into()],
        "bad".into(),
        DslOptions::default(),
    );
    let c = Case::parse("_1", "t").unwrap();
    let got = o.answers(&[&c]);
    assert!(matches!(&got[0].outcome, Outcome::Error(m) if m.contains("could not start")), "{got:?}");
}
