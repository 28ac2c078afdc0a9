//! The SM90 sparse GMMA check (`cargo xtask gpu-sparse`, `cutecheck::gpu::sparse`) without a GPU:
//! every sparse GMMA atom the engine knows is in `gpu::plan` (the SS ones run, the RS ones
//! skipped with a reason), the metadata tables made from the engine's ELayout describe every
//! element of A, the corrupted twin is a permutation that moves every code, and the recorded H200
//! run (fixtures/gpu/h200-sparse/) used the tables the engine makes now and shows what it must:
//! every atom PASS, every corrupted twin FAIL.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use cutecheck::engine::atom::mma::sparse_gmma_names;
use cutecheck::gpu::{self, sparse};

fn rec() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/gpu/h200-sparse")
}

fn cases() -> &'static [sparse::SparseCase] {
    static C: std::sync::OnceLock<Vec<sparse::SparseCase>> = std::sync::OnceLock::new();
    C.get_or_init(|| sparse::sparse_cases().expect("sparse cases"))
}

#[test]
fn every_sparse_atom_is_run_or_skipped_with_a_reason() {
    let plan = gpu::plan().unwrap();
    let mut seen = BTreeMap::new();
    for p in &plan {
        match p {
            gpu::Plan::Sparse(c) => {
                seen.insert(c.name.clone(), "run");
            }
            gpu::Plan::Skip { atom, reason } if atom.starts_with("SM90::GMMA::SPARSE::") => {
                // RS, or an integer atom with sparsity selector 1 (ptxas refuses it).
                assert!(
                    atom.contains("_RS") && reason.contains("compressed register A")
                        || atom.contains("_S32") && atom.contains("SparseSel::One") && reason.contains("ptxas"),
                    "{atom} skipped: {reason}"
                );
                seen.insert(atom.clone(), "skip");
            }
            _ => {}
        }
    }
    let names = sparse_gmma_names();
    assert_eq!(seen.len(), names.len());
    for n in &names {
        let run = n.contains("_SS") && !n.contains("SparseSel::One");
        assert_eq!(seen.get(n), Some(&if run { "run" } else { "skip" }), "{n}");
    }
    let runs: Vec<String> = gpu::sparse_of(&plan).into_iter().map(|c| c.name).collect();
    assert_eq!(runs, cases().iter().map(|c| c.name.clone()).collect::<Vec<_>>());
    // Every family and every N.
    let families: BTreeSet<String> = cases().iter().map(|c| c.name.replace(&format!("64x{}x", c.n), "64xNx")).collect();
    assert_eq!(families.len() * 8, cases().len());
    assert!(cases().len() >= 200, "{}", cases().len());
    assert!(families.len() >= 25, "{families:?}");
}

#[test]
fn metadata_tables_describe_every_element_in_4_bit_codes() {
    for c in cases() {
        let (ne, k) = (c.ne as usize, c.k);
        assert_eq!(c.e.len(), 128 * ne);
        let mut described = vec![0; (64 * k) as usize];
        for &i in &c.e {
            described[i as usize] += 1;
        }
        assert!(described.iter().all(|&d| d > 0), "{}: an element of A without metadata", c.name);
        // One 4-bit code (4 values of 1 bit; tf32: 2 of 2 bits) describes one row's group of
        // consecutive K, starting at a group boundary.
        let per_code = 4 * ne / 32;
        for t in 0..128 {
            for g in 0..ne / per_code {
                let vals: Vec<i64> = (0..per_code).map(|j| c.e[t * ne + g * per_code + j]).collect();
                let (m0, k0) = (vals[0] % 64, vals[0] / 64);
                assert_eq!(k0 % per_code as i64, 0, "{}: thread {t} code {g}", c.name);
                for (j, v) in vals.iter().enumerate() {
                    assert_eq!((v % 64, v / 64), (m0, k0 + j as i64), "{}: thread {t} code {g}", c.name);
                }
            }
        }
        // The corrupted twin: the same entries per thread, permuted, every one moved.
        let bad = sparse::corrupt_e(c);
        for t in 0..128 {
            let (mut a, mut b) = (c.e[t * ne..(t + 1) * ne].to_vec(), bad[t * ne..(t + 1) * ne].to_vec());
            assert!(a.iter().zip(&b).all(|(x, y)| x != y), "{}: thread {t}", c.name);
            a.sort();
            b.sort();
            assert_eq!(a, b);
        }
    }
}

#[test]
fn recorded_h200_run_used_these_tables_and_shows_what_it_must() {
    use sha2::{Digest, Sha256};
    let dir = rec();
    let sums = std::fs::read_to_string(dir.join("tables.sha256")).expect("fixtures/gpu/h200-sparse/tables.sha256");
    for (f, corrupt) in [("sparse_tables.txt", false), ("sparse_tables_corrupt.txt", true)] {
        let now = sparse::sparse_tables_file(cases(), corrupt);
        let hex: String = Sha256::digest(now.as_bytes()).iter().map(|b| format!("{b:02x}")).collect();
        assert!(
            sums.lines().any(|l| l == format!("{hex}  {f}")),
            "{f} differs from the recorded run's: the engine's sparse atoms changed; re-record (fixtures/gpu/README.md)"
        );
    }
    let device = std::fs::read_to_string(dir.join("device.txt")).unwrap();
    assert!(device.contains("H200") && device.contains("sm_90a"), "{device}");
    let read = |f: &str| -> serde_json::Value {
        serde_json::from_str(&std::fs::read_to_string(dir.join(f)).unwrap()).unwrap()
    };
    for (f, want) in [("results_sparse.json", "PASS"), ("results_sparse_corrupt.json", "FAIL")] {
        let v = read(f);
        assert_eq!(v["compute_capability"], 90, "{f}");
        let rows = v["results"].as_array().unwrap();
        let atoms: Vec<&str> = rows.iter().map(|r| r["atom"].as_str().unwrap()).collect();
        assert_eq!(atoms, cases().iter().map(|c| c.name.as_str()).collect::<Vec<_>>(), "{f}");
        for r in rows {
            assert_eq!(r["verdict"], want, "{f}: {} {}", r["atom"], r["detail"]);
        }
    }
}
