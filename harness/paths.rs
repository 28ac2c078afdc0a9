//! Where things are: the checkout (`repo_root`) and the state directory (`state_dir`: caches,
//! builds, reports). A leaf module: it uses no other module of the crate.

use std::path::PathBuf;

/// The crate's root directory (where Cargo.toml, cpp/ and fixtures/ are).
///
/// Found at run time, so that a built `cutecheck` or `xtask` binary copied elsewhere works on the
/// checkout it is run in, not on the one it was built from:
/// 1. `$CUTECHECK_ROOT`, when set (it must hold this package's Cargo.toml);
/// 2. else the nearest directory at or above the current directory whose `Cargo.toml` is this
///    package's (`[package] name = "cutecheck"`);
/// 3. else the checkout the binary was built from (compiled in), as a last resort.
pub fn repo_root() -> PathBuf {
    static ROOT: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    ROOT.get_or_init(|| {
        find_repo_root(
            std::env::var_os("CUTECHECK_ROOT").map(PathBuf::from),
            std::env::current_dir().ok(),
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")),
        )
    })
    .clone()
}

/// [`repo_root`]'s rule with its inputs given: the `CUTECHECK_ROOT` value, the current directory,
/// the compiled-in checkout. A `CUTECHECK_ROOT` that is not a cutecheck checkout is ignored with a
/// warning (the walk from the current directory decides instead).
pub fn find_repo_root(env_root: Option<PathBuf>, cwd: Option<PathBuf>, compiled: &std::path::Path) -> PathBuf {
    if let Some(r) = env_root {
        if is_checkout(&r) {
            return r;
        }
        eprintln!("cutecheck: CUTECHECK_ROOT={} holds no cutecheck Cargo.toml; ignoring it", r.display());
    }
    if let Some(found) = cwd.as_deref().and_then(|d| d.ancestors().find(|a| is_checkout(a))) {
        return found.to_path_buf();
    }
    compiled.to_path_buf()
}

/// Whether `dir/Cargo.toml` is this package's manifest (`[package] name = "cutecheck"`).
pub fn is_checkout(dir: &std::path::Path) -> bool {
    let Ok(text) = std::fs::read_to_string(dir.join("Cargo.toml")) else { return false };
    let Ok(v) = text.parse::<toml::Table>() else { return false };
    v.get("package").and_then(|p| p.get("name")).and_then(|n| n.as_str()) == Some("cutecheck")
}

/// Where the oracle keeps its cache, builds and reports: `$CUTECHECK_DIR`, or
/// `$CARGO_TARGET_DIR/cutecheck`, or `<repo>/target/cutecheck`.
pub fn state_dir() -> PathBuf {
    if let Some(d) = std::env::var_os("CUTECHECK_DIR") {
        return PathBuf::from(d);
    }
    if let Some(t) = std::env::var_os("CARGO_TARGET_DIR") {
        return PathBuf::from(t).join("cutecheck");
    }
    repo_root().join("target").join("cutecheck")
}
