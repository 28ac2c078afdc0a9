//! The C++ compiler the oracle uses: which one, its version, its flags, and running it with a
//! time limit (a hanging compiler is killed with its whole process group).

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CompilerKind {
    Gcc,
    Clang,
    Nvcc,
}

/// A C++ compiler that was found and asked for its version.
#[derive(Clone, Debug)]
pub struct Compiler {
    pub kind: CompilerKind,
    pub program: PathBuf,
    /// First line of `--version` (or nvcc's release line).
    pub version: String,
    /// Flags this compiler needs besides the include directories.
    pub flags: Vec<String>,
}

impl Compiler {
    /// Find a compiler by name or path: `g++` (the default), `clang++`, `nvcc`, or a path to one
    /// of these. `nvcc_tree` is a CUDA toolkit tree (bin/, include/, lib/) for `nvcc`.
    pub fn find(name: Option<&str>, nvcc_tree: Option<&Path>) -> Result<Compiler> {
        let name = match name {
            Some(n) => n.to_string(),
            None => default_cxx(),
        };
        let base = Path::new(&name).file_name().and_then(|s| s.to_str()).unwrap_or(&name).to_string();
        let (program, kind) = if base.contains("nvcc") {
            let p = match nvcc_tree {
                Some(t) if Path::new(&name).components().count() == 1 => t.join("bin").join("nvcc"),
                _ => PathBuf::from(&name),
            };
            (p, CompilerKind::Nvcc)
        } else if base.contains("clang") {
            (PathBuf::from(&name), CompilerKind::Clang)
        } else {
            (PathBuf::from(&name), CompilerKind::Gcc)
        };
        let out = match Command::new(&program).arg("--version").env("LC_ALL", "C").output() {
            Ok(o) => o,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => bail!("{}", missing_help(&name, kind)),
            Err(e) => bail!("could not run the C++ compiler '{}': {e}", program.display()),
        };
        if !out.status.success() {
            bail!("'{} --version' failed: {}", program.display(), String::from_utf8_lossy(&out.stderr).trim());
        }
        let text = String::from_utf8_lossy(&out.stdout).to_string();
        let version = match kind {
            CompilerKind::Nvcc => text.lines().rfind(|l| l.contains("release")).unwrap_or("nvcc").trim().to_string(),
            _ => text.lines().next().unwrap_or("").trim().to_string(),
        };
        // `g++`/`c++` may be clang underneath (macOS); believe the version text.
        let kind = if kind == CompilerKind::Gcc && version.to_lowercase().contains("clang") { CompilerKind::Clang } else { kind };
        let mut flags: Vec<String> = vec!["-std=c++17".into(), "-O0".into()];
        match kind {
            CompilerKind::Gcc => flags.extend(["-w", "-fdiagnostics-color=never", "-ftemplate-backtrace-limit=0"].map(String::from)),
            CompilerKind::Clang => flags.extend(["-w", "-fno-color-diagnostics"].map(String::from)),
            CompilerKind::Nvcc => {
                flags.extend(["-arch=sm_80", "-w"].map(String::from));
                if let Some(t) = nvcc_tree {
                    flags.push(format!("-L{}", t.join("lib").display()));
                }
            }
        }
        Ok(Compiler { kind, program, version, flags })
    }

    /// Identity of the compiler for cache keys: kind, version text and flags.
    pub fn identity(&self) -> String {
        format!("{:?}|{}|{}", self.kind, self.version, self.flags.join(" "))
    }

    /// A short description for reports.
    pub fn describe(&self) -> String {
        format!("{} ({})", self.program.display(), self.version)
    }

    /// Whether the oracle builds a precompiled header for this compiler.
    pub fn supports_pch(&self) -> bool {
        matches!(self.kind, CompilerKind::Gcc | CompilerKind::Clang)
    }
}

/// The compiler used when none is named: `$CXX` if set (as the `cc` crate reads it), else `g++`.
fn default_cxx() -> String {
    let b = cc::Build::new()
        .cpp(true)
        .cargo_metadata(false)
        .opt_level(0)
        .target("x86_64-unknown-linux-gnu")
        .host("x86_64-unknown-linux-gnu")
        .try_get_compiler();
    match (std::env::var_os("CXX"), b) {
        (Some(_), Ok(t)) => t.path().display().to_string(),
        _ => "g++".to_string(),
    }
}

fn missing_help(name: &str, kind: CompilerKind) -> String {
    let fix = match kind {
        CompilerKind::Gcc => "install it (Debian/Ubuntu: apt-get install g++) or pass --cxx clang++".to_string(),
        CompilerKind::Clang => "install it (Debian/Ubuntu: apt-get install clang) or use the default --cxx g++".to_string(),
        CompilerKind::Nvcc => "provision the CUDA 13 nvcc wheels (`cargo xtask cutlass --nvcc`) or put nvcc on PATH".to_string(),
    };
    format!("C++ compiler '{name}' not found; {fix}")
}

/// The result of running a program with a time limit.
pub struct Ran {
    pub success: bool,
    pub timed_out: bool,
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    pub status: Option<std::process::ExitStatus>,
}

/// Run `cmd` to completion or until `limit` passes; on timeout kill its process group (the
/// compiler driver and the compilers it started).
pub fn run_limited(mut cmd: Command, limit: Duration) -> Result<Ran> {
    use std::os::unix::process::CommandExt;
    cmd.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped()).process_group(0);
    let mut child = cmd.spawn().with_context(|| format!("could not start {:?}", cmd.get_program()))?;
    let mut out = child.stdout.take().expect("piped");
    let mut err = child.stderr.take().expect("piped");
    let t_out = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = out.read_to_end(&mut v);
        v
    });
    let t_err = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = err.read_to_end(&mut v);
        v
    });
    let start = Instant::now();
    let mut timed_out = false;
    let status = loop {
        if let Some(s) = child.try_wait()? {
            break Some(s);
        }
        if start.elapsed() > limit {
            timed_out = true;
            // Kill the whole group we created (pgid == the child's pid).
            let _ = Command::new("kill").arg("-KILL").arg("--").arg(format!("-{}", child.id())).status();
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let stdout = t_out.join().unwrap_or_default();
    let stderr = t_err.join().unwrap_or_default();
    Ok(Ran { success: status.is_some_and(|s| s.success()), timed_out, stdout, stderr, status })
}
