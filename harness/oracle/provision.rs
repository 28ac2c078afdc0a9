//! Getting the CuTe headers: pinned PyPI wheels unpacked into a cache, or a user's directories.
//!
//! A wheel is fetched with `python3 -m pip download --no-deps NAME==VERSION -d DIR` (a wheel
//! already in `$CUTECHECK_WHEELHOUSE` or in the download directory is used as is), its sha256 is
//! checked against `fixtures/cutlass-pins.toml` (a version without a pin is trusted on first use,
//! with a warning; its digest is recorded in `<state>/cache/trust-on-first-use.toml` and a later
//! download with another digest is refused), and it is unpacked with
//! the `zip` crate into a temporary directory that is then renamed to
//! `<state>/cache/<name>-<version>/` — so an entry is either complete or absent. The entry's
//! marker file holds the wheel's sha256, the trust kind and the number of unpacked files; an entry
//! whose marker is missing, unreadable or disagrees with the pin is removed and provisioned again.
//!
//! Integrity by content: at unpack a manifest ([`MANIFEST`]) records every file's path, size,
//! modification time and sha256 (`<entry>.manifest` beside the entry). At each use the entry is checked against it cheaply (a stat per
//! file); a file whose size or time differs is hashed again, and an entry with a changed, missing
//! or extra file is provisioned again. The manifest's hash (over paths and contents) is part of
//! the headers' identity, so the results cache and the precompiled header are keyed by the exact
//! contents used. An entry unpacked before manifests existed is compared with a fresh unpack of
//! its (pinned) wheel and adopted only if identical.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{anyhow, bail, Context, Result};
use serde::Deserialize;

use super::cache::{sync_dir, write_atomic};
use super::{sha256_hex, state_dir};

/// The pins file, compiled in so the binary works from any directory.
pub const PINS_TOML: &str = include_str!("../../fixtures/cutlass-pins.toml");
/// The CUTLASS version the project follows.
pub const DEFAULT_CUTLASS: &str = "4.2.0.0";
/// Name of the marker file inside a complete cache entry.
pub const MARKER: &str = ".cutecheck-provisioned";
/// Suffix of the content manifest of a cache entry `<entry>`: `<entry>.manifest`, beside the
/// entry (not inside it, so the entry's files are exactly the wheel's).
pub const MANIFEST: &str = "manifest";

/// Where the manifest of the cache entry `dir` is.
pub fn manifest_path(dir: &Path) -> PathBuf {
    let name = dir.file_name().map(|n| n.to_string_lossy().to_string()).unwrap_or_default();
    dir.with_file_name(format!("{name}.{MANIFEST}"))
}

#[derive(Debug, Deserialize)]
pub struct Pins {
    pub cuda: std::collections::BTreeMap<String, String>,
    #[serde(rename = "wheel")]
    pub wheels: Vec<Pin>,
}

#[derive(Debug, Deserialize, Clone)]
pub struct Pin {
    pub name: String,
    pub version: String,
    pub sha256: String,
}

impl Pins {
    pub fn load() -> Result<Pins> {
        toml::from_str(PINS_TOML).context("fixtures/cutlass-pins.toml is not valid")
    }
    pub fn sha256(&self, name: &str, version: &str) -> Option<&str> {
        self.wheels.iter().find(|p| p.name == name && p.version == version).map(|p| p.sha256.as_str())
    }
}

/// CuTe's headers: the include directory holding `cute/` and `cutlass/`, and an identity string
/// that changes whenever the headers do (part of every result's cache key).
#[derive(Clone, Debug)]
pub struct Headers {
    pub include_dir: PathBuf,
    pub identity: String,
    pub describe: String,
}

/// The CUDA headers CuTe includes on the host (cuda_runtime.h, cuda/std/..., crt/...).
#[derive(Clone, Debug)]
pub struct CudaHeaders {
    pub include_dirs: Vec<PathBuf>,
    pub identity: String,
}

/// Provisions wheels into the cache under `root` (normally `<state>/cache`).
pub struct Provisioner {
    pub cache: PathBuf,
    pub downloads: PathBuf,
    pub pins: Pins,
    /// Print what is being fetched (to stderr).
    pub verbose: bool,
}

impl Provisioner {
    pub fn new() -> Result<Provisioner> {
        let s = state_dir();
        Ok(Provisioner { cache: s.join("cache"), downloads: s.join("wheels"), pins: Pins::load()?, verbose: true })
    }

    /// The unpacked wheel NAME==VERSION, provisioning it if needed.
    pub fn wheel(&self, name: &str, version: &str) -> Result<PathBuf> {
        self.wheel_verified(name, version).map(|(d, _)| d)
    }

    /// The unpacked wheel NAME==VERSION, verified against its manifest (provisioned again if it
    /// changed), and the manifest's hash.
    pub fn wheel_verified(&self, name: &str, version: &str) -> Result<(PathBuf, String)> {
        check_token(name)?;
        check_token(version)?;
        let dir = self.cache.join(format!("{name}-{version}"));
        let pinned = self.pins.sha256(name, version).map(str::to_string);
        if let Some(m) = read_marker(&dir) {
            let pin_ok = pinned.as_deref().is_none_or(|p| p == m.sha256);
            let why = match (pin_ok, verify_manifest(&dir)) {
                (false, _) => "its wheel's sha256 is not the pinned one".to_string(),
                (true, Ok(Verified::Intact(h))) => return Ok((dir, h)),
                (true, Ok(Verified::Changed(why))) => why,
                (true, Ok(Verified::Missing)) => match self.adopt(&dir, name, version)? {
                    Some(h) => return Ok((dir, h)),
                    None => "its files differ from its wheel's".to_string(),
                },
                (true, Err(e)) => format!("{e:#}"),
            };
            if self.verbose {
                eprintln!("cutecheck: cache entry {}: {why}; provisioning it again", dir.display());
            }
        } else if dir.exists() && self.verbose {
            eprintln!("cutecheck: cache entry {} has no valid marker; provisioning it again", dir.display());
        }
        if dir.exists() {
            std::fs::remove_dir_all(&dir).with_context(|| format!("removing {}", dir.display()))?;
        }
        let wheel = self.fetch(name, version)?;
        let (sha, trust) = check_wheel(
            &wheel,
            &format!("{name}=={version}"),
            pinned.as_deref(),
            "fixtures/cutlass-pins.toml",
            &self.cache.join(TOFU_LEDGER),
            (name, version),
            &self.downloads,
        )?;
        self.unpack(&wheel, &dir, &sha, trust)?;
        match verify_manifest(&dir)? {
            Verified::Intact(h) => Ok((dir, h)),
            Verified::Changed(why) => bail!("cache entry {} changed while it was provisioned: {why}", dir.display()),
            Verified::Missing => bail!("cache entry {} has no manifest after unpacking", dir.display()),
        }
    }

    /// An entry unpacked before manifests existed: unpack its wheel afresh and, if every file is
    /// the same, write the manifest into the entry (returning its hash); `None` if they differ.
    fn adopt(&self, dir: &Path, name: &str, version: &str) -> Result<Option<String>> {
        let wheel = self.fetch(name, version)?;
        if let Some(p) = self.pins.sha256(name, version) {
            let sha = sha256_hex(&std::fs::read(&wheel).with_context(|| format!("reading {}", wheel.display()))?);
            if sha != p {
                return Ok(None);
            }
        }
        std::fs::create_dir_all(&self.cache)?;
        let tmp = tempfile::Builder::new().prefix(".tmp-adopt-").tempdir_in(&self.cache)?;
        unzip(&wheel, tmp.path())?;
        let fresh = manifest_of(tmp.path())?;
        let here = manifest_of(dir)?;
        let same =
            fresh.len() == here.len() && fresh.iter().zip(&here).all(|(a, b)| a.path == b.path && a.sha256 == b.sha256);
        if !same {
            return Ok(None);
        }
        write_manifest_file(dir, &here)?;
        Ok(Some(manifest_hash(&here)))
    }

    /// Find the wheel file in the wheelhouse or the download directory, else download it.
    fn fetch(&self, name: &str, version: &str) -> Result<PathBuf> {
        let dirs = wheel_dirs(&self.downloads);
        if let Some(f) = dirs.iter().find_map(|d| find_wheel(d, name, version)) {
            return Ok(f);
        }
        if self.verbose {
            eprintln!("cutecheck: downloading {name}=={version} with pip");
        }
        pip_download(&[format!("{name}=={version}")], &self.downloads, &[])?;
        find_wheel(&self.downloads, name, version).ok_or_else(|| {
            anyhow!("pip reported success but no wheel for {name}=={version} is in {}", self.downloads.display())
        })
    }

    /// Unpack into a temporary sibling of `dir`, write the marker, then rename into place.
    fn unpack(&self, wheel: &Path, dir: &Path, sha: &str, trust: &str) -> Result<()> {
        std::fs::create_dir_all(&self.cache)?;
        let tmp = tempfile::Builder::new().prefix(".tmp-unpack-").tempdir_in(&self.cache)?;
        unzip(wheel, tmp.path())?;
        let files = count_files(tmp.path()).ok_or_else(|| anyhow!("cannot list {}", tmp.path().display()))?;
        let manifest = manifest_of(tmp.path())?;
        let marker = format!(
            "sha256 = \"{sha}\"\ntrust = \"{trust}\"\nfiles = {files}\nwheel = \"{}\"\n",
            wheel.file_name().and_then(|s| s.to_str()).unwrap_or("?")
        );
        write_atomic(&tmp.path().join(MARKER), marker.as_bytes())?;
        let tmp_path = tmp.keep();
        match std::fs::rename(&tmp_path, dir) {
            // Renaming keeps the files' times: the manifest made in the temporary place holds.
            Ok(()) => {
                sync_dir(&self.cache);
                write_manifest_file(dir, &manifest)
            }
            Err(_) if read_marker(dir).is_some() => {
                // Another process finished the same entry first; use theirs.
                let _ = std::fs::remove_dir_all(&tmp_path);
                Ok(())
            }
            Err(e) => {
                let _ = std::fs::remove_dir_all(&tmp_path);
                Err(anyhow!("could not move the unpacked wheel into {}: {e}", dir.display()))
            }
        }
    }

    /// CUTLASS's headers of this version from the PyPI wheel that ships them
    /// ([`crate::engine::release::registry_source`]): `nvidia-cutlass` up to 4.2.0.0, the pinned
    /// `flashinfer-python` wheel for 4.5.0.0. A later release with no wheel is refused, naming
    /// `--cutlass-dir`.
    pub fn cutlass(&self, version: &str) -> Result<Headers> {
        let (package, wheel_version) = match version.parse::<crate::engine::release::Release>() {
            Ok(r) => crate::engine::release::registry_source(r).ok_or_else(|| {
                anyhow!(
                    "CUTLASS {version}: no PyPI wheel ships these headers (nvidia-cutlass ends at 4.2.0.0; \
                     flashinfer-python 0.6.11 ships 4.5.0); give a checkout with --cutlass-dir"
                )
            })?,
            Err(_) => ("nvidia-cutlass", version.to_string()),
        };
        let (dir, content) = self.wheel_verified(package, &wheel_version)?;
        let include =
            find_include(&dir).ok_or_else(|| anyhow!("{package} {wheel_version} has no include/cute/tensor.hpp"))?;
        let m = read_marker(&dir).ok_or_else(|| anyhow!("cache entry {} lost its marker", dir.display()))?;
        let describe = if package == "nvidia-cutlass" {
            format!("CUTLASS {version} (PyPI wheel nvidia-cutlass)")
        } else {
            format!("CUTLASS {version} (headers of the PyPI wheel {package} {wheel_version})")
        };
        Ok(Headers {
            include_dir: include,
            identity: format!("{package}=={wheel_version} sha256:{} content:{content}", m.sha256),
            describe,
        })
    }

    /// The pinned CUDA header wheels (fetched and unpacked at once, one thread each: on a cold
    /// machine the downloads overlap).
    pub fn cuda(&self) -> Result<CudaHeaders> {
        let mut dirs = Vec::new();
        let mut id = String::new();
        let wheels: Vec<Result<(PathBuf, String)>> = std::thread::scope(|s| {
            let handles: Vec<_> = self
                .pins
                .cuda
                .iter()
                .map(|(name, version)| s.spawn(move || self.wheel_verified(name, version)))
                .collect();
            handles.into_iter().map(|h| h.join().unwrap_or_else(|_| Err(anyhow!("provisioning panicked")))).collect()
        });
        for ((name, version), wheel) in self.pins.cuda.iter().zip(wheels) {
            let (dir, content) = wheel?;
            let inc = cuda_include_of(&dir, name)?;
            let m = read_marker(&dir).ok_or_else(|| anyhow!("cache entry {} lost its marker", dir.display()))?;
            id.push_str(&format!("{name}=={version} sha256:{} content:{content};", m.sha256));
            dirs.push(inc);
        }
        Ok(CudaHeaders { include_dirs: dirs, identity: id })
    }
}

fn cuda_include_of(dir: &Path, name: &str) -> Result<PathBuf> {
    let sub = name.trim_start_matches("nvidia-").trim_end_matches("-cu12").replace('-', "_");
    let p = dir.join("nvidia").join(&sub).join("include");
    if p.is_dir() {
        Ok(p)
    } else {
        bail!("{name}: no {} in the unpacked wheel", p.display())
    }
}

/// The CUDA 13 wheels whose union is a working host-side nvcc (bin/, include/, lib/, nvvm/ under
/// nvidia/cu13/), enough for `nvcc -std=c++17 -arch=sm_80` on a machine without a GPU.
pub const NVCC13_WHEELS: &[(&str, &str)] = &[
    ("nvidia-cuda-nvcc", "13.0.88"),
    ("nvidia-cuda-runtime", "13.0.96"),
    ("nvidia-cuda-cccl", "13.0.85"),
    ("nvidia-cuda-crt", "13.0.88"),
    ("nvidia-nvvm", "13.0.88"),
];

/// The SASS tools (`cuobjdump`, `nvdisasm`) for `cargo xtask gpu-sm100`: the CUDA 13.2 wheels, which
/// read sm_100a / sm_120a cubins (unpacked into their own `nvidia/cu13/bin`).
pub const SASS_TOOL_WHEELS: &[(&str, &str)] =
    &[("nvidia-cuda-cuobjdump", "13.2.78"), ("nvidia-cuda-nvdisasm", "13.2.78")];

/// cuRAND's headers for CUDA 13 (`nvidia/cu13/include/curand*.h`): what a CUTLASS example that
/// includes `curand_kernel.h` (examples/49's helper.h) needs besides [`NVCC13_WHEELS`], for the
/// kernel-forms stage probes that compile such an example (`cargo xtask extract-kernel-forms
/// --probe-stages`). Its own cache entry, so that the nvcc tree stays as it is.
pub const CURAND13_WHEELS: &[(&str, &str)] = &[("nvidia-curand", "10.4.0.35")];

impl Provisioner {
    /// The cuRAND header tree (`.../nvidia/cu13`, `include/curand_kernel.h`) unpacked from
    /// [`CURAND13_WHEELS`].
    pub fn curand13(&self) -> Result<PathBuf> {
        self.wheel_tree("curand-10.4.0.35-tree", CURAND13_WHEELS, "include/curand_kernel.h")
    }

    /// The nvcc tree (`.../nvidia/cu13`) unpacked from [`NVCC13_WHEELS`] into one cache entry.
    pub fn nvcc13(&self) -> Result<PathBuf> {
        self.wheel_tree("nvcc-13.0.88-tree", NVCC13_WHEELS, "bin/nvcc")
    }

    /// The SASS tools' tree (`.../nvidia/cu13`, `bin/cuobjdump` and `bin/nvdisasm`) unpacked from
    /// [`SASS_TOOL_WHEELS`].
    pub fn sass_tools(&self) -> Result<PathBuf> {
        self.wheel_tree("sass-tools-13.2.78-tree", SASS_TOOL_WHEELS, "bin/cuobjdump")
    }

    /// The `nvidia/cu13` tree of `wheels` unpacked together into the cache entry `entry` (sha256
    /// pinned, atomic, verified by its manifest; `probe` a file the tree must have).
    fn wheel_tree(&self, entry: &str, wheels: &[(&str, &str)], probe: &str) -> Result<PathBuf> {
        let dir = self.cache.join(entry);
        let tree = dir.join("nvidia").join("cu13");
        let shas: Vec<Option<String>> =
            wheels.iter().map(|(n, v)| self.pins.sha256(n, v).map(str::to_string)).collect();
        if let Some(m) = read_marker(&dir) {
            match verify_manifest(&dir) {
                Ok(Verified::Intact(_)) if tree.join(probe).is_file() => return Ok(tree),
                // A tree unpacked before manifests: adopted as it is when its file count holds
                // (the check it had before), from then on checked by content.
                Ok(Verified::Missing) if count_files(&dir) == Some(m.files) && tree.join(probe).is_file() => {
                    write_manifest_file(&dir, &manifest_of(&dir)?)?;
                    return Ok(tree);
                }
                Ok(Verified::Changed(why)) if self.verbose => {
                    eprintln!("cutecheck: cache entry {}: {why}; provisioning it again", dir.display())
                }
                _ => {}
            }
        }
        if dir.exists() {
            std::fs::remove_dir_all(&dir)?;
        }
        std::fs::create_dir_all(&self.cache)?;
        let tmp = tempfile::Builder::new().prefix(".tmp-unpack-").tempdir_in(&self.cache)?;
        let mut all = String::new();
        for ((name, version), pin) in wheels.iter().zip(&shas) {
            let wheel = self.fetch(name, version)?;
            let sha = sha256_hex(&std::fs::read(&wheel)?);
            match pin {
                Some(p) if *p != sha => bail!("sha256 mismatch for {name}=={version}: expected {p}, got {sha}"),
                Some(_) => {}
                None => {
                    eprintln!("warning: {name}=={version} has no sha256 pin; trusting it on first use (sha256 {sha})")
                }
            }
            all.push_str(&sha);
            unzip(&wheel, tmp.path())?;
        }
        // Wheels need not record the executable bits.
        for sub in ["bin", "nvvm/bin"] {
            if let Ok(rd) = std::fs::read_dir(tmp.path().join("nvidia/cu13").join(sub)) {
                for e in rd.flatten() {
                    use std::os::unix::fs::PermissionsExt;
                    let _ = std::fs::set_permissions(e.path(), std::fs::Permissions::from_mode(0o755));
                }
            }
        }
        let files = count_files(tmp.path()).ok_or_else(|| anyhow!("cannot list the unpacked tree"))?;
        let manifest = manifest_of(tmp.path())?;
        write_atomic(
            &tmp.path().join(MARKER),
            format!("sha256 = \"{}\"\ntrust = \"wheels\"\nfiles = {files}\n", sha256_hex(all.as_bytes())).as_bytes(),
        )?;
        let p = tmp.keep();
        if std::fs::rename(&p, &dir).map(|()| sync_dir(&self.cache)).is_err() {
            let _ = std::fs::remove_dir_all(&p);
            if read_marker(&dir).is_none() {
                bail!("could not move the unpacked tree into {}", dir.display());
            }
        } else {
            write_manifest_file(&dir, &manifest)?;
        }
        Ok(tree)
    }
}

/// For `--cxx nvcc` with no nvcc on PATH: the provisioned CUDA 13 nvcc tree. `None` otherwise.
pub fn nvcc_tree_if_needed(prov: &Provisioner, cxx: Option<&str>) -> Result<Option<PathBuf>> {
    match cxx {
        Some("nvcc") => {
            let on_path = Command::new("nvcc").arg("--version").output().is_ok_and(|o| o.status.success());
            if on_path {
                Ok(None)
            } else {
                prov.nvcc13().map(Some)
            }
        }
        _ => Ok(None),
    }
}

/// The file whose presence marks CuTe's include directory (`--cutlass-dir`).
pub const CUTE_MARK: &str = "cute/layout.hpp";

/// Where `--cutlass-dir DIR` may keep CuTe's headers, in the order they are looked at: DIR itself
/// (an `include/`), DIR/include (a checkout, or an unpacked release tarball), DIR/source/include
/// (a wheel's `cutlass_library/`), DIR/cutlass_library/source/include (an unpacked wheel). Last,
/// DIR/*/include (a directory a tarball was unpacked into) is looked at by
/// [`resolve_cutlass_dir`].
pub fn cutlass_dir_candidates(dir: &Path) -> Vec<PathBuf> {
    vec![dir.to_path_buf(), dir.join("include"), dir.join("source/include"), dir.join("cutlass_library/source/include")]
}

/// `--cutlass-dir DIR` resolved, once: the absolute, canonical include directory holding
/// [`CUTE_MARK`] (see [`cutlass_dir_candidates`]; a DIR/*/include only when exactly one
/// subdirectory has one). A relative DIR is taken from the current directory. Refused, in one
/// line naming every path looked at, when none holds CuTe.
pub fn resolve_cutlass_dir(dir: &Path) -> Result<PathBuf> {
    let abs = std::path::absolute(dir).with_context(|| format!("--cutlass-dir {}", dir.display()))?;
    if !abs.is_dir() {
        bail!("--cutlass-dir {}: not a directory", dir.display());
    }
    let has_cute = |d: &Path| d.join(CUTE_MARK).is_file();
    let candidates = cutlass_dir_candidates(&abs);
    let hit = match candidates.iter().find(|d| has_cute(d)) {
        Some(d) => d.clone(),
        None => {
            let mut unpacked: Vec<PathBuf> = std::fs::read_dir(&abs)
                .with_context(|| format!("--cutlass-dir {}: reading it", dir.display()))?
                .flatten()
                .map(|e| e.path().join("include"))
                .filter(|d| has_cute(d))
                .collect();
            unpacked.sort();
            match unpacked.len() {
                1 => unpacked.remove(0),
                0 => {
                    let looked: Vec<String> = candidates
                        .iter()
                        .map(|d| d.join(CUTE_MARK).display().to_string())
                        .chain([abs.join("*/include").join(CUTE_MARK).display().to_string()])
                        .collect();
                    bail!(
                        "--cutlass-dir {}: no CuTe headers: looked for {} (give a CUTLASS checkout, its include/, or \
                         an unpacked nvidia-cutlass wheel)",
                        dir.display(),
                        looked.join(", ")
                    )
                }
                _ => bail!(
                    "--cutlass-dir {}: several CUTLASS trees under it ({}); name one",
                    dir.display(),
                    unpacked.iter().map(|d| d.display().to_string()).collect::<Vec<_>>().join(", ")
                ),
            }
        }
    };
    std::fs::canonicalize(&hit).with_context(|| format!("--cutlass-dir {}: resolving {}", dir.display(), hit.display()))
}

/// A user's CUTLASS checkout or install (anything [`resolve_cutlass_dir`] accepts).
pub fn cutlass_dir(dir: &Path) -> Result<Headers> {
    let include = resolve_cutlass_dir(dir)?;
    // Hashed in full at each use (a user's tree has no manifest): cute/ and the cutlass/ headers
    // CuTe includes.
    let id = hash_tree(&include.join("cute"))?;
    let cutlass = if include.join("cutlass").is_dir() { hash_tree(&include.join("cutlass"))? } else { String::new() };
    Ok(Headers {
        identity: format!("dir {} cute-sha256:{id} cutlass-sha256:{cutlass}", include.display()),
        describe: format!("CUTLASS from {}", include.display()),
        include_dir: include,
    })
}

/// A system CUDA's include directories (`--cuda-include DIR`, repeatable, or
/// `$CUDA_HOME/include`). One of them must hold cuda_runtime.h; a CUDA 13 `include/cccl` is
/// added on its own.
pub fn cuda_dirs(dirs: &[PathBuf]) -> Result<CudaHeaders> {
    for d in dirs {
        if !d.is_dir() {
            bail!("--cuda-include {}: not a directory", d.display());
        }
    }
    if !dirs.iter().any(|d| d.join("cuda_runtime.h").is_file()) {
        bail!(
            "--cuda-include: no cuda_runtime.h in {}",
            dirs.iter().map(|d| d.display().to_string()).collect::<Vec<_>>().join(", ")
        );
    }
    let mut out = dirs.to_vec();
    let mut id = String::new();
    for d in dirs {
        // CUDA 13 keeps CCCL (cuda/std) under include/cccl.
        if d.join("cccl").is_dir() && !out.contains(&d.join("cccl")) {
            out.push(d.join("cccl"));
        }
        id.push_str(&format!("dir {};", d.display()));
        for f in ["cuda_runtime_api.h", "cuda.h", "cuda/std/version"] {
            if let Ok(b) = std::fs::read(d.join(f)) {
                id.push_str(&format!("{f}:{};", sha256_hex(&b)));
            }
        }
    }
    Ok(CudaHeaders { include_dirs: out, identity: id })
}

/// The directory under `root` (at most 4 levels down) that holds `cute/tensor.hpp`.
pub fn find_include(root: &Path) -> Option<PathBuf> {
    fn walk(d: &Path, depth: usize) -> Option<PathBuf> {
        if d.join("cute").join("tensor.hpp").is_file() {
            return Some(d.to_path_buf());
        }
        if depth == 0 {
            return None;
        }
        let mut subs: Vec<PathBuf> =
            std::fs::read_dir(d).ok()?.flatten().map(|e| e.path()).filter(|p| p.is_dir()).collect();
        subs.sort();
        // Prefer include/ directories: cutlass_library/source/include in the wheels.
        subs.sort_by_key(|p| !p.ends_with("include") && !p.ends_with("source") && !p.ends_with("cutlass_library"));
        subs.iter().find_map(|s| walk(s, depth - 1))
    }
    walk(root, 4)
}

/// sha256 over the relative paths and contents of every file under `dir`, in sorted order.
pub fn hash_tree(dir: &Path) -> Result<String> {
    let mut files = Vec::new();
    list_files(dir, dir, &mut files)?;
    files.sort();
    let mut all = Vec::new();
    for rel in files {
        let b = std::fs::read(dir.join(&rel))?;
        all.extend_from_slice(rel.as_bytes());
        all.push(0);
        all.extend_from_slice(sha256_hex(&b).as_bytes());
    }
    Ok(sha256_hex(&all))
}

fn list_files(base: &Path, d: &Path, out: &mut Vec<String>) -> Result<()> {
    for e in std::fs::read_dir(d).with_context(|| format!("reading {}", d.display()))? {
        let p = e?.path();
        if p.is_dir() {
            list_files(base, &p, out)?;
        } else if let Ok(rel) = p.strip_prefix(base) {
            out.push(rel.to_string_lossy().to_string());
        }
    }
    Ok(())
}

/// The trust-on-first-use ledger in the cache: the sha256 first seen for each unpinned wheel
/// (kept when an entry is re-provisioned, so a wheel that changes later is refused).
pub const TOFU_LEDGER: &str = "trust-on-first-use.toml";

fn tofu_key(name: &str, version: &str) -> String {
    format!("{name}=={version}")
}

pub(crate) fn tofu_lookup(ledger: &Path, name: &str, version: &str) -> Option<String> {
    let text = std::fs::read_to_string(ledger).ok()?;
    let t: std::collections::BTreeMap<String, String> = toml::from_str(&text).ok()?;
    t.get(&tofu_key(name, version)).cloned()
}

/// Record a first use in the ledger: one run at a time (under an exclusive lock on
/// `<ledger>.lock`, so two runs recording different wheels keep both), the ledger read, extended
/// and written back whole with [`write_atomic`] (a crash never leaves half a line, which would
/// make the whole ledger unreadable and every digest forgotten).
pub(crate) fn tofu_record(ledger: &Path, name: &str, version: &str, sha: &str) -> Result<()> {
    if let Some(d) = ledger.parent() {
        std::fs::create_dir_all(d)?;
    }
    let mut lock_name = ledger.as_os_str().to_owned();
    lock_name.push(".lock");
    let lock = std::fs::OpenOptions::new().create(true).truncate(false).write(true).open(&lock_name)?;
    lock.lock().with_context(|| format!("locking {}", Path::new(&lock_name).display()))?;
    let mut text = match std::fs::read_to_string(ledger) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(e).with_context(|| format!("reading {}", ledger.display())),
    };
    if !text.is_empty() && !text.ends_with('\n') {
        text.push('\n');
    }
    text.push_str(&format!("\"{}\" = \"{sha}\"\n", tofu_key(name, version)));
    write_atomic(ledger, text.as_bytes()).with_context(|| format!("writing {}", ledger.display()))?;
    Ok(())
}

struct Marker {
    sha256: String,
    files: usize,
}

fn read_marker(dir: &Path) -> Option<Marker> {
    #[derive(Deserialize)]
    struct M {
        sha256: String,
        files: usize,
    }
    let text = std::fs::read_to_string(dir.join(MARKER)).ok()?;
    let m: M = toml::from_str(&text).ok()?;
    (m.sha256.len() == 64).then_some(Marker { sha256: m.sha256, files: m.files })
}

/// Number of files under `dir`, not counting the marker.
pub(crate) fn count_files(dir: &Path) -> Option<usize> {
    let mut files = Vec::new();
    list_files(dir, dir, &mut files).ok()?;
    Some(files.iter().filter(|f| f.as_str() != MARKER).count())
}

/// Unpack a wheel (a zip file) into `into` with the `zip` crate: names that would leave `into`
/// (absolute, `..`) are refused by its `extract`, Unix modes are kept where the archive has them.
fn unzip(wheel: &Path, into: &Path) -> Result<()> {
    let file = std::fs::File::open(wheel).with_context(|| format!("cannot open {}", wheel.display()))?;
    let mut archive =
        zip::ZipArchive::new(file).with_context(|| format!("{} is not a zip archive", wheel.display()))?;
    archive.extract(into).with_context(|| format!("unpacking {} failed", wheel.display()))?;
    Ok(())
}

/// One file of a manifest.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, Deserialize)]
pub struct ManifestEntry {
    pub path: String,
    pub size: u64,
    pub mtime_ns: i128,
    pub sha256: String,
}

/// What checking an entry against its manifest found.
#[derive(Debug, PartialEq, Eq)]
pub enum Verified {
    /// Every file is as recorded: the manifest's hash.
    Intact(String),
    /// A file changed, vanished or appeared (what, in words).
    Changed(String),
    /// The entry has no readable manifest.
    Missing,
}

fn stat_of(p: &Path) -> Result<(u64, i128)> {
    let m = std::fs::metadata(p).with_context(|| format!("reading {}", p.display()))?;
    let t = m
        .modified()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_nanos() as i128);
    Ok((m.len(), t))
}

/// Every file under `dir` (the marker and the manifest excepted) with its size, time and sha256,
/// sorted by path.
pub fn manifest_of(dir: &Path) -> Result<Vec<ManifestEntry>> {
    let mut files = Vec::new();
    list_files(dir, dir, &mut files)?;
    files.retain(|f| f != MARKER);
    files.sort();
    files
        .into_iter()
        .map(|path| {
            let p = dir.join(&path);
            let (size, mtime_ns) = stat_of(&p)?;
            let sha256 = sha256_hex(&std::fs::read(&p).with_context(|| format!("reading {}", p.display()))?);
            Ok(ManifestEntry { path, size, mtime_ns, sha256 })
        })
        .collect()
}

/// The manifest's hash: over each file's path and content hash (not its time), in order.
pub fn manifest_hash(m: &[ManifestEntry]) -> String {
    let mut all = String::new();
    for e in m {
        all.push_str(&e.path);
        all.push('\0');
        all.push_str(&e.sha256);
        all.push('\n');
    }
    sha256_hex(all.as_bytes())
}

fn write_manifest_file(dir: &Path, m: &[ManifestEntry]) -> Result<()> {
    let path = manifest_path(dir);
    write_atomic(&path, serde_json::to_string(m)?.as_bytes()).with_context(|| format!("writing {}", path.display()))
}

/// Check `dir` against its manifest: a stat per file, a hash only where size or time differ.
/// Files that were only touched (same content) get their new times recorded.
pub fn verify_manifest(dir: &Path) -> Result<Verified> {
    let Ok(text) = std::fs::read_to_string(manifest_path(dir)) else { return Ok(Verified::Missing) };
    let Ok(mut m) = serde_json::from_str::<Vec<ManifestEntry>>(&text) else { return Ok(Verified::Missing) };
    let mut on_disk = Vec::new();
    list_files(dir, dir, &mut on_disk)?;
    on_disk.retain(|f| f != MARKER);
    on_disk.sort();
    let recorded: Vec<&str> = m.iter().map(|e| e.path.as_str()).collect();
    if on_disk != recorded {
        let extra = on_disk.iter().find(|f| !recorded.contains(&f.as_str()));
        let missing = recorded.iter().find(|f| !on_disk.iter().any(|g| g == *f));
        return Ok(Verified::Changed(match (extra, missing) {
            (Some(f), _) => format!("{f} is not one of its files"),
            (_, Some(f)) => format!("{f} is missing"),
            _ => "its files are not the recorded ones".to_string(),
        }));
    }
    let mut touched = false;
    for e in m.iter_mut() {
        let p = dir.join(&e.path);
        let (size, mtime_ns) = stat_of(&p)?;
        if size == e.size && mtime_ns == e.mtime_ns {
            continue;
        }
        let sha = sha256_hex(&std::fs::read(&p).with_context(|| format!("reading {}", p.display()))?);
        if sha != e.sha256 {
            return Ok(Verified::Changed(format!("{} changed (sha256 {sha}, recorded {})", e.path, e.sha256)));
        }
        e.size = size;
        e.mtime_ns = mtime_ns;
        touched = true;
    }
    if touched {
        // Only a cheaper next check is at stake: a read-only cache still verifies.
        let _ = write_manifest_file(dir, &m);
    }
    Ok(Verified::Intact(manifest_hash(&m)))
}

/// Where wheels are looked for: `$CUTECHECK_WHEELHOUSE` (a path list), then the download directory.
pub(crate) fn wheel_dirs(downloads: &Path) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> =
        std::env::var_os("CUTECHECK_WHEELHOUSE").map(|v| std::env::split_paths(&v).collect()).unwrap_or_default();
    dirs.push(downloads.to_path_buf());
    dirs
}

/// `python3 -m pip download --no-deps [extra] -d dest REQ...` (requirements of plain tokens only).
pub(crate) fn pip_download(reqs: &[String], dest: &Path, extra: &[&str]) -> Result<()> {
    for r in reqs {
        let (name, version) = r.split_once("==").ok_or_else(|| anyhow!("'{r}' is not NAME==VERSION"))?;
        check_token(name)?;
        check_token(version)?;
    }
    std::fs::create_dir_all(dest)?;
    let out = Command::new("python3")
        .args(["-m", "pip", "download", "--no-deps", "--disable-pip-version-check", "-q"])
        .args(extra)
        .arg("-d")
        .arg(dest)
        .args(reqs)
        .output()
        .map_err(|e| anyhow!("could not run `python3 -m pip download`: {e}; install Python 3 with pip"))?;
    if !out.status.success() {
        bail!("`pip download --no-deps {}` failed:\n{}", reqs.join(" "), String::from_utf8_lossy(&out.stderr).trim());
    }
    Ok(())
}

/// A wheel file's sha256 against its pin (`pins_file` names where pins live), or against the
/// trust-on-first-use ledger (key `tofu`) when it has none: the sha256 and how it is trusted
/// ("pinned" or "first-use"). A downloaded file that disagrees with its pin is deleted, so the
/// next run downloads it anew.
pub(crate) fn check_wheel(
    wheel: &Path,
    label: &str,
    pin: Option<&str>,
    pins_file: &str,
    ledger: &Path,
    tofu: (&str, &str),
    downloads: &Path,
) -> Result<(String, &'static str)> {
    let sha = sha256_hex(&std::fs::read(wheel).with_context(|| format!("reading {}", wheel.display()))?);
    match pin {
        Some(p) if p == sha => Ok((sha, "pinned")),
        Some(p) => {
            if wheel.starts_with(downloads) {
                let _ = std::fs::remove_file(wheel);
            }
            bail!("sha256 mismatch for {label} ({}): expected {p} ({pins_file}), got {sha}", wheel.display())
        }
        None => {
            match tofu_lookup(ledger, tofu.0, tofu.1) {
                Some(first) if first != sha => bail!(
                    "sha256 of {label} ({}) is {sha}, but it was {first} when first used (recorded in {}); refusing a \
                     changed wheel",
                    wheel.display(),
                    ledger.display()
                ),
                Some(_) => {}
                None => {
                    eprintln!(
                        "warning: {label} has no sha256 pin in {pins_file}; trusting it on first use (sha256 {sha}, \
                         recorded in {})",
                        ledger.display()
                    );
                    tofu_record(ledger, tofu.0, tofu.1, &sha)?;
                }
            }
            Ok((sha, "first-use"))
        }
    }
}

pub(crate) fn find_wheel(dir: &Path, name: &str, version: &str) -> Option<PathBuf> {
    let prefix = format!("{}-{version}-", name.replace('-', "_"));
    let mut hits: Vec<PathBuf> = std::fs::read_dir(dir)
        .ok()?
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name().and_then(|s| s.to_str()).is_some_and(|f| f.starts_with(&prefix) && f.ends_with(".whl"))
        })
        .collect();
    hits.sort();
    hits.into_iter().next()
}

/// Names and versions go into file names and pip's command line: allow only plain tokens.
pub(crate) fn check_token(s: &str) -> Result<()> {
    if !s.is_empty()
        && s.len() < 64
        && s.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_'))
        && !s.starts_with('-')
    {
        Ok(())
    } else {
        bail!("'{s}' is not a valid package name or version")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wheels_are_checked_against_pins_and_the_first_use_ledger() {
        let d = tempfile::tempdir().unwrap();
        let (downloads, ledger) = (d.path().join("dl"), d.path().join(TOFU_LEDGER));
        std::fs::create_dir_all(&downloads).unwrap();
        let w = downloads.join("x-1.0-py3-none-any.whl");
        std::fs::write(&w, b"wheel").unwrap();
        let sha = sha256_hex(b"wheel");
        let check = |pin: Option<&str>| check_wheel(&w, "x==1.0", pin, "pins.toml", &ledger, ("x", "1.0"), &downloads);
        assert_eq!(check(Some(&sha)).unwrap(), (sha.clone(), "pinned"));
        // No pin: trusted on first use and recorded; a changed file is refused afterwards.
        assert_eq!(check(None).unwrap(), (sha.clone(), "first-use"));
        assert_eq!(check(None).unwrap().1, "first-use");
        std::fs::write(&w, b"changed").unwrap();
        assert!(check(None).unwrap_err().to_string().contains("when first used"));
        // A downloaded file that disagrees with its pin is refused and deleted.
        let e = check(Some(&sha)).unwrap_err().to_string();
        assert!(e.contains("sha256 mismatch for x==1.0") && e.contains("pins.toml"), "{e}");
        assert!(!w.exists());
        assert!(pip_download(&["x; rm -rf /==1".into()], &downloads, &[]).is_err());
    }

    #[test]
    fn pins_parse_and_cover_the_required_versions() {
        let p = Pins::load().unwrap();
        for v in ["4.2.0.0", "3.8.0.0", "3.5.1.0"] {
            assert!(p.sha256("nvidia-cutlass", v).is_some_and(|s| s.len() == 64), "{v}");
        }
        // Every modelled release with a registry source has its wheel pinned.
        for &r in crate::engine::release::MODELLED {
            if let Some((name, v)) = crate::engine::release::registry_source(r) {
                assert!(p.sha256(name, &v).is_some_and(|s| s.len() == 64), "{r}: {name} {v} is not pinned");
            }
        }
        for (n, v) in &p.cuda {
            assert!(p.sha256(n, v).is_some(), "{n} {v}");
        }
    }

    #[test]
    fn bad_tokens_are_refused() {
        assert!(check_token("4.2.0.0").is_ok());
        assert!(check_token("--index-url=x").is_err());
        assert!(check_token("a b").is_err());
    }

    /// Two runs recording first uses into one ledger at once: every record is kept, and the ledger
    /// stays whole (parses) throughout.
    #[test]
    fn two_runs_recording_first_uses_at_once_keep_both() {
        let t = tempfile::tempdir().unwrap();
        let l = t.path().join(TOFU_LEDGER);
        std::thread::scope(|s| {
            for run in ["a", "b"] {
                let l = &l;
                s.spawn(move || {
                    for k in 0..25 {
                        tofu_record(l, &format!("wheel-{run}"), &format!("{k}.0"), &run.repeat(64)).unwrap();
                    }
                });
            }
        });
        let text = std::fs::read_to_string(&l).unwrap();
        let t: std::collections::BTreeMap<String, String> = toml::from_str(&text).unwrap();
        assert_eq!(t.len(), 50, "records lost:\n{text}");
        for k in 0..25 {
            assert_eq!(tofu_lookup(&l, "wheel-a", &format!("{k}.0")), Some("a".repeat(64)));
            assert_eq!(tofu_lookup(&l, "wheel-b", &format!("{k}.0")), Some("b".repeat(64)));
        }
    }

    #[test]
    fn the_first_use_ledger_remembers() {
        let t = tempfile::tempdir().unwrap();
        let l = t.path().join(TOFU_LEDGER);
        assert_eq!(tofu_lookup(&l, "nvidia-cutlass", "9.9.9.9"), None);
        tofu_record(&l, "nvidia-cutlass", "9.9.9.9", &"a".repeat(64)).unwrap();
        tofu_record(&l, "nvidia-cutlass", "9.9.9.8", &"b".repeat(64)).unwrap();
        assert_eq!(tofu_lookup(&l, "nvidia-cutlass", "9.9.9.9"), Some("a".repeat(64)));
        assert_eq!(tofu_lookup(&l, "nvidia-cutlass", "9.9.9.8"), Some("b".repeat(64)));
    }

    /// A malicious wheel: entries whose names leave the directory (`../`, deeper `a/../../`, an
    /// absolute path) are refused, nothing is written outside, and the wheel fails to unpack; a
    /// symlink entry pointing outside is not followed by a later entry written through it.
    #[test]
    fn a_wheel_whose_names_escape_is_refused() {
        use std::io::Write;
        let t = tempfile::tempdir().unwrap();
        let make = |name: &str, entries: &[(&str, &str)]| {
            let path = t.path().join(name);
            let mut w = zip::ZipWriter::new(std::fs::File::create(&path).unwrap());
            for (n, body) in entries {
                w.start_file(*n, zip::write::SimpleFileOptions::default()).unwrap();
                w.write_all(body.as_bytes()).unwrap();
            }
            w.finish().unwrap();
            path
        };
        for (i, evil) in ["../escaped.txt", "pkg/../../escaped.txt", "/tmp/cutecheck-escaped.txt"].iter().enumerate() {
            let wheel = make(&format!("evil{i}.whl"), &[("pkg/ok.txt", "fine"), (evil, "pwned")]);
            let into = t.path().join(format!("into{i}"));
            std::fs::create_dir_all(&into).unwrap();
            let e = unzip(&wheel, &into).expect_err(&format!("{evil}: unpacked"));
            assert!(format!("{e:#}").contains("unpacking"), "{e:#}");
            assert!(!t.path().join("escaped.txt").exists(), "{evil} escaped");
            assert!(!into.parent().unwrap().join("escaped.txt").exists(), "{evil} escaped");
        }
        assert!(!Path::new("/tmp/cutecheck-escaped.txt").exists());
        // A symlink to outside, then a file through it.
        let outside = t.path().join("outside");
        std::fs::create_dir_all(&outside).unwrap();
        let wheel = t.path().join("link.whl");
        {
            let mut w = zip::ZipWriter::new(std::fs::File::create(&wheel).unwrap());
            w.add_symlink("pkg/link", outside.to_str().unwrap(), zip::write::SimpleFileOptions::default()).unwrap();
            w.start_file("pkg/link/escaped.txt", zip::write::SimpleFileOptions::default()).unwrap();
            w.write_all(b"pwned").unwrap();
            w.finish().unwrap();
        }
        let into = t.path().join("into-link");
        std::fs::create_dir_all(&into).unwrap();
        let _ = unzip(&wheel, &into);
        assert!(!outside.join("escaped.txt").exists(), "a file was written through a symlink to outside");
        // A well-formed wheel still unpacks.
        let good = make("good.whl", &[("pkg/ok.txt", "fine")]);
        let into = t.path().join("into-good");
        unzip(&good, &into).unwrap();
        assert_eq!(std::fs::read_to_string(into.join("pkg/ok.txt")).unwrap(), "fine");
    }

    /// Provision a small local "wheel" (no network: it sits in the download directory), then
    /// damage the cache entry in several ways; each time it must be detected and redone.
    #[test]
    fn entries_are_atomic_checked_and_repaired() {
        let t = tempfile::tempdir().unwrap();
        let src = t.path().join("src");
        std::fs::create_dir_all(src.join("pkg")).unwrap();
        std::fs::write(src.join("pkg/a.txt"), "alpha").unwrap();
        std::fs::write(src.join("pkg/b.txt"), "beta").unwrap();
        let downloads = t.path().join("wheels");
        std::fs::create_dir_all(&downloads).unwrap();
        let wheel = downloads.join("fake_pkg-1.0-py3-none-any.whl");
        let ok =
            Command::new("python3").args(["-m", "zipfile", "-c"]).arg(&wheel).arg(src.join("pkg")).status().unwrap();
        assert!(ok.success());
        let sha = sha256_hex(&std::fs::read(&wheel).unwrap());
        let pin = |sha: &str| Pins {
            cuda: Default::default(),
            wheels: vec![Pin { name: "fake-pkg".into(), version: "1.0".into(), sha256: sha.into() }],
        };
        let prov = Provisioner {
            cache: t.path().join("cache"),
            downloads: downloads.clone(),
            pins: pin(&sha),
            verbose: false,
        };
        let dir = prov.wheel("fake-pkg", "1.0").unwrap();
        assert_eq!(std::fs::read_to_string(dir.join("pkg/a.txt")).unwrap(), "alpha");
        assert!(read_marker(&dir).is_some());
        // A missing file: detected by the file count, re-provisioned.
        std::fs::remove_file(dir.join("pkg/b.txt")).unwrap();
        let dir = prov.wheel("fake-pkg", "1.0").unwrap();
        assert_eq!(std::fs::read_to_string(dir.join("pkg/b.txt")).unwrap(), "beta");
        // A header edited in place (same size): found by its content, provisioned again.
        let (_, h0) = prov.wheel_verified("fake-pkg", "1.0").unwrap();
        std::fs::write(dir.join("pkg/a.txt"), "alphA").unwrap();
        assert!(matches!(verify_manifest(&dir).unwrap(), Verified::Changed(w) if w.contains("pkg/a.txt")));
        let (dir, h1) = prov.wheel_verified("fake-pkg", "1.0").unwrap();
        assert_eq!(std::fs::read_to_string(dir.join("pkg/a.txt")).unwrap(), "alpha");
        assert_eq!(h0, h1, "the same contents give the same identity");
        // Only touched (same content, new time): still intact, same hash, no re-provisioning.
        let f = std::fs::File::options().write(true).open(dir.join("pkg/b.txt")).unwrap();
        f.set_modified(std::time::SystemTime::now() + std::time::Duration::from_secs(5)).unwrap();
        assert_eq!(verify_manifest(&dir).unwrap(), Verified::Intact(h0.clone()));
        // An extra file: not one of the wheel's.
        std::fs::write(dir.join("pkg/c.txt"), "extra").unwrap();
        assert!(matches!(verify_manifest(&dir).unwrap(), Verified::Changed(w) if w.contains("c.txt")));
        let dir = prov.wheel("fake-pkg", "1.0").unwrap();
        assert!(!dir.join("pkg/c.txt").exists());
        // An entry from before manifests: adopted when it matches its wheel ...
        std::fs::remove_file(manifest_path(&dir)).unwrap();
        assert_eq!(prov.wheel_verified("fake-pkg", "1.0").unwrap().1, h0);
        assert!(manifest_path(&dir).is_file());
        // ... and provisioned again when it does not.
        std::fs::remove_file(manifest_path(&dir)).unwrap();
        std::fs::write(dir.join("pkg/a.txt"), "tampered").unwrap();
        let (dir, h2) = prov.wheel_verified("fake-pkg", "1.0").unwrap();
        assert_eq!((std::fs::read_to_string(dir.join("pkg/a.txt")).unwrap().as_str(), h2), ("alpha", h0));
        // A garbled marker (as after a crash while writing it by hand): re-provisioned.
        std::fs::write(dir.join(MARKER), "garbage").unwrap();
        let dir = prov.wheel("fake-pkg", "1.0").unwrap();
        assert!(read_marker(&dir).is_some());
        // No temporary directories are left behind.
        let leftovers: Vec<_> = std::fs::read_dir(&prov.cache)
            .unwrap()
            .flatten()
            .filter(|e| e.file_name().to_string_lossy().starts_with(".tmp"))
            .collect();
        assert!(leftovers.is_empty());
        // A wheel that does not match its pin is refused and removed.
        std::fs::remove_dir_all(&dir).unwrap();
        let bad = Provisioner { pins: pin(&"0".repeat(64)), ..prov };
        let e = bad.wheel("fake-pkg", "1.0").unwrap_err().to_string();
        assert!(e.contains("sha256 mismatch"), "{e}");
        assert!(!wheel.exists());
        assert!(!dir.exists());
    }

    #[test]
    fn a_corrupt_entry_is_detected() {
        let t = tempfile::tempdir().unwrap();
        let d = t.path().join("x-1");
        std::fs::create_dir_all(&d).unwrap();
        std::fs::write(d.join("a"), "1").unwrap();
        assert!(read_marker(&d).is_none());
        std::fs::write(d.join(MARKER), format!("sha256 = \"{}\"\nfiles = 2\n", "0".repeat(64))).unwrap();
        let m = read_marker(&d).unwrap();
        assert_ne!(count_files(&d), Some(m.files), "one file is missing");
    }
}
