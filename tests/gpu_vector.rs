//! The recorded SASS check (fixtures/gpu/sass-vector/, `cargo xtask gpu --vector`): for every case
//! (element type x source layout x register layout, from global and from shared memory), the loads
//! nvcc emitted for CuTe 4.2's `copy(src, dst)` are all as wide as the engine's
//! `copy_vector_bits` says, and as many as the copy needs. The recorded source is what the
//! generator writes now.

use std::path::{Path, PathBuf};

use cutecheck::gpu::vector;

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/gpu/sass-vector")
}

#[test]
fn cute_copy_emits_the_engine_vector_width() {
    let cases = vector::vector_cases().unwrap();
    let sass = vector::read_sass(&std::fs::read_to_string(dir().join("sass.txt")).unwrap()).unwrap();
    let rows = vector::compare(&cases, &sass).unwrap();
    let bad: Vec<&vector::VectorVerdict> = rows.iter().filter(|r| !r.agrees).collect();
    assert!(bad.is_empty(), "{}", vector::summary(&rows));
    assert_eq!(rows.len(), 128);
    let widths: std::collections::BTreeSet<i64> = rows.iter().map(|r| r.case.predicted).collect();
    assert_eq!(widths.len(), 5, "8, 16, 32, 64 and 128-bit loads all occur: {widths:?}");
}

#[test]
fn the_recorded_source_is_what_the_generator_writes() {
    let cases = vector::vector_cases().unwrap();
    assert_eq!(vector::cuda(&cases), std::fs::read_to_string(dir().join("vector_cases.cu")).unwrap());
}

#[test]
fn a_wrong_width_is_a_difference() {
    let mut cases = vector::vector_cases().unwrap();
    let sass = vector::read_sass(&std::fs::read_to_string(dir().join("sass.txt")).unwrap()).unwrap();
    cases[0].predicted *= 2;
    assert!(!vector::compare(&cases, &sass).unwrap()[0].agrees);
    assert_eq!(vector::width_of("LDG.E.128"), 128);
    assert_eq!(vector::width_of("LDS.U16"), 16);
    assert_eq!(vector::width_of("LDG.E"), 32);
}
