//! The GPU check itself. It needs an NVIDIA GPU, nvcc and the CuTe headers, which this project's
//! CI and dev machine lack, so it is ignored (never passed vacuously); on a GPU machine run
//! `cargo xtask gpu` (or `cargo test --test gpu_device -- --ignored`).

use std::process::Command;

#[test]
#[ignore = "needs an NVIDIA GPU, nvcc and the CuTe 4.2 headers: run `cargo xtask gpu --all` on a GPU machine"]
fn mma_layouts_hold_on_the_gpu() {
    let status = Command::new(env!("CARGO"))
        .args(["run", "--release", "-p", "xtask", "--", "gpu", "--all"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .status()
        .expect("running cargo xtask gpu");
    assert_ne!(status.code(), Some(3), "cargo xtask gpu found no GPU on this machine");
    assert!(status.success(), "cargo xtask gpu --all: {status}");
}
