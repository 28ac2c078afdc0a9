//! What the in-process oracle needs at build time, provisioned like the CuTe and CUDA headers:
//! the CUTLASS wheel, the CUDA header wheels and PyPI's `libclang` wheel (for bindgen), all
//! sha256-pinned in fixtures/cutlass-pins.toml. xtask calls [`build_env`] and passes the variables
//! to the cargo that builds the crate, so build.rs compiles cpp/ffi.

use std::ffi::OsString;
use std::path::PathBuf;

use anyhow::{Context, Result};

use crate::oracle::provision::Provisioner;

/// The PyPI wheel holding libclang.so.
pub const LIBCLANG: (&str, &str) = ("libclang", "18.1.1");

/// The directory of the provisioned libclang.so.
pub fn libclang_dir(prov: &Provisioner) -> Result<PathBuf> {
    let dir = prov.wheel(LIBCLANG.0, LIBCLANG.1)?;
    let native = dir.join(format!("{}-{}.data/platlib/clang/native", LIBCLANG.0, LIBCLANG.1));
    if !native.join("libclang.so").is_file() {
        anyhow::bail!("the {}=={} wheel has no libclang.so at {}", LIBCLANG.0, LIBCLANG.1, native.display());
    }
    Ok(native)
}

/// The environment under which build.rs builds cpp/ffi against CUTLASS `version`:
/// `CUTECHECK_FFI_INCLUDE` (CuTe's and the CUDA headers' include directories) and `LIBCLANG_PATH`.
pub fn build_env(prov: &Provisioner, version: &str) -> Result<Vec<(&'static str, OsString)>> {
    let h = prov.cutlass(version)?;
    let c = prov.cuda()?;
    let dirs = std::iter::once(h.include_dir).chain(c.include_dirs);
    let include = std::env::join_paths(dirs).context("include directories")?;
    let mut env = vec![("CUTECHECK_FFI_INCLUDE", include)];
    match std::env::var_os("LIBCLANG_PATH") {
        Some(p) => env.push(("LIBCLANG_PATH", p)),
        None => env.push(("LIBCLANG_PATH", libclang_dir(prov)?.into_os_string())),
    }
    Ok(env)
}
