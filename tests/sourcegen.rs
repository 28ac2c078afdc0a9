//! The generated lists of operations (`cargo xtask sourcegen`, xtask/src/sourcegen.rs) are what the
//! command writes from the Rust tables, and the hand-written code around them agrees with them.

#[allow(dead_code)]
#[path = "../xtask/src/sourcegen.rs"]
mod sourcegen;

use std::path::Path;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn generated_files_are_fresh() {
    let stale = sourcegen::stale(root()).unwrap();
    assert!(stale.is_empty(), "stale generated files {stale:?}: run `cargo xtask sourcegen`");
}

#[test]
fn generated_texts_start_with_the_header_and_list_something() {
    for g in sourcegen::generated() {
        let first = g.text.lines().next().unwrap_or("");
        assert!(first.contains(sourcegen::HEADER), "{}: first line {first:?}", g.path);
        assert!(g.text.lines().count() > 10, "{}: {}", g.path, g.text);
    }
}

#[test]
fn a_stale_block_is_replaced_and_a_missing_one_is_an_error() {
    let g = sourcegen::generated().into_iter().find(|g| g.block.is_some()).unwrap();
    let current = std::fs::read_to_string(root().join(g.path)).unwrap();
    let fresh = sourcegen::apply(&g, Some(&current)).unwrap();
    // An edited block comes back as generated, the code around it untouched.
    let edited = fresh.replacen("CALLS = frozenset({\n", "CALLS = frozenset({\n    \"hand_added\",\n", 1);
    assert_ne!(edited, fresh);
    assert_eq!(sourcegen::apply(&g, Some(&edited)).unwrap(), fresh);
    assert!(sourcegen::apply(&g, Some("no markers here\n")).is_err());
    assert!(sourcegen::apply(&g, None).is_err());
}

/// Every lookup function the generated ABI table names is defined by an op TU (the link would fail
/// otherwise, but only where CuTe is provisioned), and every one defined is in the table.
#[test]
fn the_abi_table_names_the_op_tus_lookup_functions() {
    let mut defined = std::collections::BTreeSet::new();
    for e in std::fs::read_dir(root().join("cpp/ffi")).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "cpp") {
            for l in std::fs::read_to_string(&p).unwrap().lines() {
                if let Some(rest) = l.trim_start().strip_prefix("CUTECHECK_FFI_OP(") {
                    defined.insert(rest.split(',').next().unwrap().trim().to_string());
                }
            }
        }
    }
    let named: std::collections::BTreeSet<String> =
        cutecheck::oracle::inproc::gen::abi_rows().into_iter().map(|r| r.find).collect();
    assert!(!defined.is_empty());
    assert_eq!(named, defined);
}
