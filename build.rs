// build.rs: tells cargo which data files the engine embeds, so editing them rebuilds the crate, and
// builds the in-process CuTe oracle (cpp/ffi) when CuTe is provisioned.
//
// The in-process oracle: cpp/ffi/*.cpp are compiled with `cc` against the CuTe headers, and the
// Rust declarations of cpp/ffi/cutecheck_ffi.h are generated with `bindgen` (into
// $OUT_DIR/cutecheck_ffi.rs; harness/oracle/inproc/ffi.rs includes them). Where the headers are:
// - `CUTECHECK_FFI_INCLUDE`: the include directories (a path list: CuTe's, then the CUDA headers'),
//   set by xtask after provisioning (`cargo xtask test`, `cargo xtask conformance`);
// - else the provisioned cache of CUTLASS 4.2.0.0 under `$CUTECHECK_DIR`,
//   `$CARGO_TARGET_DIR/cutecheck` or `target/cutecheck` (as the oracle finds it), once it exists.
// The compiled library is kept under `<state>/ffi/<hash of sources, headers, flags, compiler>/`, so
// a rebuild of the crate (another cfg, another environment) does not compile the C++ again.
// libclang (for bindgen): `LIBCLANG_PATH`, else the provisioned PyPI `libclang` wheel in that
// cache, else wherever clang-sys finds one. Without headers or libclang the crate still builds,
// with a cargo warning that the in-process oracle is off (`cfg(cutecheck_ffi)` unset).
use std::path::{Path, PathBuf};

const DEFAULT_CUTLASS: &str = "4.2.0.0";
const LIBCLANG_WHEEL: &str = "libclang-18.1.1";

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=cpp");
    println!("cargo:rerun-if-changed=fixtures");
    // `cargo xtask test` sets CUTECHECK_CUTE once real CuTe is provisioned; tests that need it
    // run only then (otherwise they are reported as ignored, with the reason).
    println!("cargo::rustc-check-cfg=cfg(cutecheck_cute)");
    println!("cargo::rustc-check-cfg=cfg(cutecheck_ffi)");
    for v in [
        "CUTECHECK_CUTE",
        "CUTECHECK_FFI_INCLUDE",
        "CUTECHECK_DIR",
        "CARGO_TARGET_DIR",
        "LIBCLANG_PATH",
        "CUTECHECK_FFI_OPT",
    ] {
        println!("cargo:rerun-if-env-changed={v}");
    }
    if std::env::var_os("CUTECHECK_CUTE").is_some() {
        println!("cargo:rustc-cfg=cutecheck_cute");
    }
    // Likewise CUTECHECK_DSL once the CuTe DSL is provisioned (tests/dsl_oracle.rs).
    println!("cargo::rustc-check-cfg=cfg(cutecheck_dsl)");
    println!("cargo:rerun-if-env-changed=CUTECHECK_DSL");
    if std::env::var_os("CUTECHECK_DSL").is_some() {
        println!("cargo:rustc-cfg=cutecheck_dsl");
    }
    match ffi() {
        Ok(version) => {
            println!("cargo:rustc-cfg=cutecheck_ffi");
            println!("cargo:rustc-env=CUTECHECK_FFI_BUILT_FOR={version}");
        }
        Err(why) => println!("cargo:warning=in-process CuTe oracle is off: {why}"),
    }
}

/// The directory the oracle keeps its state in (oracle::state_dir, seen from a build script).
fn state_dir() -> PathBuf {
    if let Some(d) = std::env::var_os("CUTECHECK_DIR") {
        return PathBuf::from(d);
    }
    if let Some(t) = std::env::var_os("CARGO_TARGET_DIR") {
        return PathBuf::from(t).join("cutecheck");
    }
    PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"))
        .join("target")
        .join("cutecheck")
}

/// The include directories of CuTe and the CUDA headers, and what they are (for the oracle's report).
fn includes() -> Result<(Vec<PathBuf>, String), String> {
    if let Some(v) = std::env::var_os("CUTECHECK_FFI_INCLUDE") {
        let dirs: Vec<PathBuf> = std::env::split_paths(&v).collect();
        if let Some(d) = dirs.iter().find(|d| !d.join("cute").is_dir() && !d.is_dir()) {
            return Err(format!("CUTECHECK_FFI_INCLUDE names {}, which is not a directory", d.display()));
        }
        return Ok((dirs, "CUTECHECK_FFI_INCLUDE".into()));
    }
    let cache = state_dir().join("cache");
    let entry = cache.join(format!("nvidia-cutlass-{DEFAULT_CUTLASS}"));
    let marker = entry.join(".cutecheck-provisioned");
    if !marker.is_file() {
        // Nothing to watch yet: xtask passes CUTECHECK_FFI_INCLUDE once it has provisioned CuTe,
        // and later builds find the cache through its marker (watched from then on).
        return Err(format!(
            "CuTe is not provisioned for this build (no {}); `cargo xtask test` and `cargo xtask conformance` provision it",
            marker.display()
        ));
    }
    println!("cargo:rerun-if-changed={}", marker.display());
    let cute = entry.join("cutlass_library/source/include");
    let mut dirs = vec![cute];
    // The CUDA header wheels, as provision.rs unpacks them.
    for (prefix, sub) in [
        ("nvidia-cuda-runtime-cu12-", "nvidia/cuda_runtime/include"),
        ("nvidia-cuda-cccl-cu12-", "nvidia/cuda_cccl/include"),
        ("nvidia-cuda-nvcc-cu12-", "nvidia/cuda_nvcc/include"),
    ] {
        let found = std::fs::read_dir(&cache)
            .ok()
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.starts_with(prefix)))
            .map(|p| p.join(sub))
            .find(|p| p.is_dir());
        match found {
            Some(d) => dirs.push(d),
            None => {
                return Err(format!(
                    "no provisioned {prefix}* headers in {} (run `cargo xtask cutlass`)",
                    cache.display()
                ))
            }
        }
    }
    Ok((dirs, format!("cache {}", cache.display())))
}

/// Point clang-sys at a libclang: LIBCLANG_PATH as given, else the provisioned wheel.
fn libclang() {
    if std::env::var_os("LIBCLANG_PATH").is_some() {
        return;
    }
    let native = state_dir().join("cache").join(LIBCLANG_WHEEL).join("libclang-18.1.1.data/platlib/clang/native");
    if native.join("libclang.so").is_file() {
        println!("cargo:rerun-if-changed={}", native.join("libclang.so").display());
        // SAFETY: a build script is single-threaded here; clang-sys reads the variable below.
        unsafe { std::env::set_var("LIBCLANG_PATH", &native) };
    }
}

/// Compile cpp/ffi and generate its bindings; the CUTLASS version built against.
fn ffi() -> Result<String, String> {
    let (dirs, from) = includes()?;
    let root = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").map_err(|e| e.to_string())?);
    let src = root.join("cpp").join("ffi");
    let header = src.join("cutecheck_ffi.h");
    let version =
        cutlass_version(&dirs).ok_or_else(|| format!("no cutlass/version.h under the include directories ({from})"))?;
    libclang();
    let out = PathBuf::from(std::env::var("OUT_DIR").map_err(|e| e.to_string())?);
    // bindgen first: when libclang is missing it fails fast, before the C++ build.
    let gcc_include = Command::output_of("g++", &["-print-file-name=include"]);
    let mut b = bindgen::Builder::default()
        .header(header.to_string_lossy())
        .allowlist_function("cc_ffi_.*")
        .allowlist_type("cc_.*")
        .allowlist_var("CC_FFI_.*")
        .constified_enum_module("cc_op")
        .constified_enum_module("cc_status")
        .derive_default(true)
        .layout_tests(false);
    if let Some(g) = gcc_include.filter(|g| Path::new(g).is_dir()) {
        b = b.clang_arg(format!("-isystem{g}"));
    }
    let bindings = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| b.generate()))
        .map_err(|_| {
            "bindgen could not load libclang (set LIBCLANG_PATH, or let xtask provision the PyPI libclang wheel)"
                .to_string()
        })?
        .map_err(|e| format!("bindgen failed on {}: {e}", header.display()))?;
    bindings.write_to_file(out.join("cutecheck_ffi.rs")).map_err(|e| e.to_string())?;

    let mut files: Vec<PathBuf> = std::fs::read_dir(&src)
        .map_err(|e| format!("{}: {e}", src.display()))?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "cpp"))
        .collect();
    files.sort();
    // -O1: measured best (BENCHMARKS.md); CUTECHECK_FFI_OPT overrides it.
    let opt = std::env::var("CUTECHECK_FFI_OPT").unwrap_or_else(|_| "1".into());
    let mut cc = cc::Build::new();
    cc.cpp(true).std("c++17").opt_level_str(&opt).debug(false).warnings(false).flag_if_supported("-w").include(&src);
    for d in &dirs {
        cc.include(d);
    }
    cc.files(&files);
    let key = build_key(&files, &header, &dirs, &opt, &cc);
    let kept = state_dir().join("ffi").join(&key);
    let lib = "libcutecheck_ffi.a";
    if kept.join(lib).is_file() && std::fs::copy(kept.join(lib), out.join(lib)).is_ok() {
        println!("cargo:rustc-link-search=native={}", out.display());
        println!("cargo:rustc-link-lib=static=cutecheck_ffi");
        println!("cargo:rustc-link-lib=stdc++");
        return Ok(version);
    }
    let started = std::time::Instant::now();
    cc.try_compile("cutecheck_ffi").map_err(|e| format!("compiling cpp/ffi failed: {e}"))?;
    println!(
        "cargo:warning=in-process CuTe oracle: cpp/ffi built against CUTLASS {version} ({from}) in {:.0} s",
        started.elapsed().as_secs_f64()
    );
    // Keep it for the next build (written to a temporary name, then renamed into place).
    if std::fs::create_dir_all(&kept).is_ok() {
        let tmp = kept.join(format!("{lib}.tmp{}", std::process::id()));
        if std::fs::copy(out.join(lib), &tmp).is_ok() {
            let _ = std::fs::rename(&tmp, kept.join(lib));
        }
    }
    Ok(version)
}

/// "4.2.0" from cutlass/version.h.
fn cutlass_version(dirs: &[PathBuf]) -> Option<String> {
    let text = dirs.iter().find_map(|d| std::fs::read_to_string(d.join("cutlass").join("version.h")).ok())?;
    let num = |name: &str| -> Option<String> {
        text.lines().find_map(|l| {
            let mut w = l.split_whitespace();
            (w.next() == Some("#define") && w.next() == Some(name)).then(|| w.next().map(str::to_string)).flatten()
        })
    };
    Some(format!("{}.{}.{}", num("CUTLASS_MAJOR")?, num("CUTLASS_MINOR")?, num("CUTLASS_PATCH")?))
}

/// Running a small command for its first output line.
struct Command;
impl Command {
    fn output_of(program: &str, args: &[&str]) -> Option<String> {
        let o = std::process::Command::new(program).args(args).output().ok()?;
        o.status.success().then(|| String::from_utf8_lossy(&o.stdout).trim().to_string())
    }
}

/// What the compiled library depends on: its sources, the headers' directories (each provisioned
/// entry is immutable), the optimisation level and the compiler's identity.
fn build_key(files: &[PathBuf], header: &Path, dirs: &[PathBuf], opt: &str, cc: &cc::Build) -> String {
    use std::hash::{Hash, Hasher};
    // A fixed-key hasher (FNV-1a would do too): DefaultHasher::new() is stable within a toolchain.
    let mut h = std::collections::hash_map::DefaultHasher::new();
    let src = header.parent().expect("cpp/ffi");
    let mut all: Vec<PathBuf> =
        std::fs::read_dir(src).map(|r| r.flatten().map(|e| e.path()).collect()).unwrap_or_default();
    all.sort();
    for f in all.iter().chain(files) {
        f.file_name().hash(&mut h);
        std::fs::read(f).unwrap_or_default().hash(&mut h);
    }
    for d in dirs {
        d.hash(&mut h);
        // The entry's marker (sha256 of the wheel) when there is one.
        for up in d.ancestors().take(5) {
            if let Ok(m) = std::fs::read(up.join(".cutecheck-provisioned")) {
                m.hash(&mut h);
                break;
            }
        }
    }
    opt.hash(&mut h);
    let compiler = cc.get_compiler();
    compiler.path().hash(&mut h);
    Command::output_of(&compiler.path().to_string_lossy(), &["--version"]).hash(&mut h);
    format!("{:016x}", h.finish())
}
