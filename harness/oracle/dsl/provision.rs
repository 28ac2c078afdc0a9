//! Getting the CuTe DSL: `nvidia-cutlass-dsl` and every wheel it depends on, pinned by sha256 in
//! `fixtures/dsl-pins.toml`, installed into a private directory of the cache.
//!
//! 1. The pinned set is fetched with one `python3 -m pip download --no-deps --only-binary=:all:
//!    NAME==VERSION ...` into `<state>/wheels/dsl-<version>/` (files already there, or in
//!    `$CUTECHECK_WHEELHOUSE`, are used as they are).
//! 2. Every file's sha256 is checked against its pin (by file name). A file without a pin (another
//!    Python or platform picks other wheels) is trusted on first use, with a warning, through the
//!    same ledger as the CUTLASS wheels; a changed file is refused.
//! 3. `python3 -m pip install --no-deps --no-index --target TMP FILES` (the machine's Python, no
//!    global install, nothing fetched at this step), a marker with the digests and the file count,
//!    then TMP is renamed to `<state>/cache/nvidia-cutlass-dsl-<version>-<python tag>/`, so an entry
//!    is complete or absent. An entry whose marker is missing or disagrees with its files is removed
//!    and installed again.
//! 4. The entry is checked by importing `cutlass.cute` from it.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{anyhow, bail, Context, Result};
use serde::Deserialize;

use crate::oracle::cache::{sync_dir, write_atomic};
use crate::oracle::provision::{
    check_token, check_wheel, count_files, find_wheel, pip_download, wheel_dirs, MARKER, TOFU_LEDGER,
};
use crate::oracle::state_dir;

/// The pins file, compiled in.
pub const DSL_PINS_TOML: &str = include_str!("../../../fixtures/dsl-pins.toml");

#[derive(Debug, Deserialize, Clone)]
pub struct DslPins {
    /// The `nvidia-cutlass-dsl` version.
    pub version: String,
    #[serde(rename = "wheel")]
    pub wheels: Vec<DslWheel>,
}

#[derive(Debug, Deserialize, Clone)]
pub struct DslWheel {
    pub file: String,
    pub sha256: String,
}

impl DslWheel {
    /// `NAME==VERSION` from the wheel's file name (`name_with_underscores-version-...whl`).
    pub fn requirement(&self) -> Result<String> {
        let mut parts = self.file.split('-');
        let (Some(name), Some(version)) = (parts.next(), parts.next()) else {
            bail!("{} is not a wheel file name", self.file);
        };
        let name = name.replace('_', "-");
        check_token(&name)?;
        check_token(version)?;
        Ok(format!("{name}=={version}"))
    }
}

impl DslPins {
    pub fn load() -> Result<DslPins> {
        toml::from_str(DSL_PINS_TOML).context("fixtures/dsl-pins.toml is not valid")
    }
}

/// A provisioned DSL: the site directory to add, and an identity for reports.
#[derive(Clone, Debug)]
pub struct DslInstall {
    pub site: PathBuf,
    pub version: String,
    pub python: String,
    pub describe: String,
}

/// Provision the pinned DSL (or reuse the cache entry).
pub fn provision(verbose: bool) -> Result<DslInstall> {
    let pins = DslPins::load()?;
    let state = state_dir();
    provision_in(&pins, &state.join("cache"), &state.join("wheels").join(format!("dsl-{}", pins.version)), verbose)
}

/// The machine's Python tag (`cp311`) and version, from `python3`.
pub fn python_tag() -> Result<(String, String)> {
    let out = Command::new("python3")
        .args(["-c", "import sys; print('cp%d%d' % sys.version_info[:2]); print(sys.version.split()[0])"])
        .output()
        .map_err(|e| anyhow!("could not run python3: {e}; the CuTe DSL needs Python 3.10+ with pip"))?;
    let text = String::from_utf8_lossy(&out.stdout);
    let mut l = text.lines();
    match (l.next(), l.next()) {
        (Some(t), Some(v)) if out.status.success() => Ok((t.trim().to_string(), v.trim().to_string())),
        _ => bail!("python3 did not report its version: {}", String::from_utf8_lossy(&out.stderr).trim()),
    }
}

pub fn provision_in(pins: &DslPins, cache: &Path, downloads: &Path, verbose: bool) -> Result<DslInstall> {
    let (tag, pyver) = python_tag()?;
    check_token(&tag)?;
    check_token(&pins.version)?;
    let dir = cache.join(format!("nvidia-cutlass-dsl-{}-{tag}", pins.version));
    let install = DslInstall {
        site: dir.clone(),
        version: pins.version.clone(),
        python: pyver.clone(),
        describe: format!("CuTe DSL {} (PyPI nvidia-cutlass-dsl, Python {pyver})", pins.version),
    };
    if let Some(files) = marker_files(&dir) {
        if count_files(&dir) == Some(files) {
            return Ok(install);
        }
        if verbose {
            eprintln!("cutecheck: cache entry {} is incomplete; installing it again", dir.display());
        }
    }
    if dir.exists() {
        std::fs::remove_dir_all(&dir).with_context(|| format!("removing {}", dir.display()))?;
    }
    let files = fetch(pins, downloads, verbose)?;
    let mut digests = String::new();
    for f in &files {
        let name = f.file_name().and_then(|s| s.to_str()).unwrap_or("?").to_string();
        let pin = pins.wheels.iter().find(|w| w.file == name).map(|w| w.sha256.as_str());
        let ledger = cache.join(TOFU_LEDGER);
        let (sha, _) = check_wheel(f, &name, pin, "fixtures/dsl-pins.toml", &ledger, (&name, "file"), downloads)?;
        digests.push_str(&format!("# {name} {sha}\n"));
    }
    std::fs::create_dir_all(cache)?;
    let tmp = tempfile::Builder::new().prefix(".tmp-dsl-").tempdir_in(cache)?;
    if verbose {
        eprintln!("cutecheck: installing the CuTe DSL {} into {}", pins.version, dir.display());
    }
    let out = Command::new("python3")
        .args(["-m", "pip", "install", "--no-deps", "--no-index", "--disable-pip-version-check", "-q", "--target"])
        .arg(tmp.path())
        .args(&files)
        .env("PIP_ROOT_USER_ACTION", "ignore")
        .output()
        .map_err(|e| anyhow!("could not run `python3 -m pip install`: {e}"))?;
    if !out.status.success() {
        bail!(
            "`pip install --no-deps --no-index --target` of the DSL wheels failed:\n{}",
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    check_import(tmp.path())?;
    let n = count_files(tmp.path()).ok_or_else(|| anyhow!("cannot list {}", tmp.path().display()))?;
    write_atomic(&tmp.path().join(MARKER), format!("{digests}files = {n}\n").as_bytes())?;
    let p = tmp.keep();
    if let Err(e) = std::fs::rename(&p, &dir).map(|()| sync_dir(cache)) {
        let _ = std::fs::remove_dir_all(&p);
        if marker_files(&dir).is_none() {
            bail!("could not move the DSL install into {}: {e}", dir.display());
        }
    }
    Ok(install)
}

/// The pinned wheel files: from the wheelhouse or the download directory, else one `pip download`.
fn fetch(pins: &DslPins, downloads: &Path, verbose: bool) -> Result<Vec<PathBuf>> {
    let dirs = wheel_dirs(downloads);
    let reqs: Vec<String> = pins.wheels.iter().map(DslWheel::requirement).collect::<Result<_>>()?;
    let find = |req: &str| -> Option<PathBuf> {
        let (name, version) = req.split_once("==")?;
        dirs.iter().find_map(|d| find_wheel(d, name, version))
    };
    let missing: Vec<String> = reqs.iter().filter(|r| find(r).is_none()).cloned().collect();
    if !missing.is_empty() {
        if verbose {
            eprintln!(
                "cutecheck: downloading the CuTe DSL {} ({} wheels, about 105 MB) with pip",
                pins.version,
                missing.len()
            );
        }
        pip_download(&missing, downloads, &["--only-binary=:all:"])?;
    }
    reqs.iter()
        .map(|r| {
            find(r).ok_or_else(|| anyhow!("pip reported success but no wheel for {r} is in {}", downloads.display()))
        })
        .collect()
}

/// Import the DSL from `site` (a fresh Python, nothing else on its path).
pub fn check_import(site: &Path) -> Result<()> {
    let out = Command::new("python3")
        .args(["-c", "import site, sys; site.addsitedir(sys.argv[1]); import cutlass.cute"])
        .arg(site)
        .env("CUTE_DSL_DRYRUN", "1")
        .output()
        .map_err(|e| anyhow!("could not run python3: {e}"))?;
    if !out.status.success() {
        bail!(
            "the CuTe DSL installed in {} does not import:\n{}",
            site.display(),
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    Ok(())
}

fn marker_files(dir: &Path) -> Option<usize> {
    #[derive(Deserialize)]
    struct M {
        files: usize,
    }
    let text = std::fs::read_to_string(dir.join(MARKER)).ok()?;
    toml::from_str::<M>(&text).ok().map(|m| m.files)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pins_parse_and_name_plain_requirements() {
        let p = DslPins::load().unwrap();
        assert!(p.version.starts_with("4.8"), "{}", p.version);
        let reqs: Vec<String> = p.wheels.iter().map(|w| w.requirement().unwrap()).collect();
        assert!(reqs.contains(&format!("nvidia-cutlass-dsl=={}", p.version)), "{reqs:?}");
        assert!(reqs.iter().any(|r| r.starts_with("nvidia-cutlass-dsl-libs-base==")), "{reqs:?}");
        for w in &p.wheels {
            assert_eq!(w.sha256.len(), 64, "{}", w.file);
            assert!(w.sha256.chars().all(|c| c.is_ascii_hexdigit()), "{}", w.file);
        }
    }

    #[test]
    fn bad_wheel_names_are_refused() {
        let w = DslWheel { file: "--index-url=x-1.whl".into(), sha256: String::new() };
        assert!(w.requirement().is_err());
        let w = DslWheel { file: "nowheel".into(), sha256: String::new() };
        assert!(w.requirement().is_err());
    }
}
