//! The C++ compiler the oracle uses: which one, its version, its flags, and running it with a
//! time limit (a hanging compiler is killed with its whole process group).
//!
//! The process control is std's (`Command`, `process_group`, piped output, `try_wait`) except two
//! parts no kept crate covers, kept hand-written with their SAFETY notes: the pre-exec supervisor
//! ([`supervise`]: a fork that waits for the compiler and kills its whole group when cutecheck
//! dies, even by SIGKILL: `PR_SET_PDEATHSIG` on the compiler, the supervisor polling its parent;
//! `command-group` kills a group only when its handle is dropped, which a SIGKILLed process never
//! does) with the compile's memory limit (`setrlimit`, which std does not expose), and `killpg` of
//! the group on a timeout, an output cap or SIGINT.

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
        let kind = if kind == CompilerKind::Gcc && version.to_lowercase().contains("clang") {
            CompilerKind::Clang
        } else {
            kind
        };
        let mut flags: Vec<String> = vec!["-std=c++17".into(), "-O0".into()];
        match kind {
            // No `-w`: the compiler's overflow diagnostics (-Woverflow, -Winteger-overflow) are
            // facts about CuTe (crate::oracle::runner reads them). UBSan stops a case whose
            // run-time arithmetic overflows CuTe's int (undefined behaviour) and names CuTe's
            // file:line; at -O0 most of CuTe's static arithmetic runs at run time too.
            CompilerKind::Gcc => flags.extend(
                ["-fdiagnostics-color=never", "-ftemplate-backtrace-limit=0", SANITIZE, SANITIZE_STOP]
                    .map(String::from),
            ),
            CompilerKind::Clang => flags.extend(["-fno-color-diagnostics", SANITIZE, SANITIZE_STOP].map(String::from)),
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

/// UBSan's check of signed integer overflow (CuTe's `int` arithmetic), for g++ and clang++.
pub const SANITIZE: &str = "-fsanitize=signed-integer-overflow";
/// A case whose arithmetic overflows stops at the first overflow (exit status 1, UBSan's
/// `runtime error:` line in its record) instead of printing a result computed through undefined
/// behaviour.
pub const SANITIZE_STOP: &str = "-fno-sanitize-recover=signed-integer-overflow";

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
        CompilerKind::Clang => {
            "install it (Debian/Ubuntu: apt-get install clang) or use the default --cxx g++".to_string()
        }
        CompilerKind::Nvcc => {
            "provision the CUDA 13 nvcc wheels (`cargo xtask cutlass --nvcc`) or put nvcc on PATH".to_string()
        }
    };
    format!("C++ compiler '{name}' not found; {fix}")
}

/// The result of running a program with a time limit.
pub struct Ran {
    pub success: bool,
    pub timed_out: bool,
    /// The program printed more than [`RunLimits::stdout_max`] (in one section) and was stopped.
    pub output_capped: bool,
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    pub status: Option<std::process::ExitStatus>,
    /// SIGINT asked the run to stop ([`super::interrupt`]) and the program was stopped.
    pub interrupted: bool,
}

/// What one run of a child program may use.
#[derive(Clone, Debug)]
pub struct RunLimits {
    /// Wall-clock time; then the whole process group is killed.
    pub time: Duration,
    /// Address-space limit (RLIMIT_AS) of the program and everything it starts, in MiB.
    pub memory_mb: Option<u64>,
    /// Most bytes of stdout kept; more stops the program (`output_capped`). With
    /// `stdout_section`, the count restarts at every line starting with that marker (one
    /// section per case).
    pub stdout_max: usize,
    pub stdout_section: Option<&'static str>,
    /// Most bytes of stderr kept; the rest is read and dropped (the program goes on).
    pub stderr_max: usize,
}

impl RunLimits {
    /// A compile: `time`, the per-compile memory limit, diagnostics capped.
    pub fn compile(time: Duration, memory_mb: Option<u64>) -> RunLimits {
        RunLimits {
            time,
            memory_mb,
            stdout_max: crate::limits::DIAGNOSTICS,
            stdout_section: None,
            stderr_max: crate::limits::DIAGNOSTICS,
        }
    }
}

/// Run `cmd` to completion or until `limit` passes (no memory or output limits beyond the
/// defaults of a compile); see [`run_with`].
pub fn run_limited(cmd: Command, limit: Duration) -> Result<Ran> {
    run_with(cmd, &RunLimits::compile(limit, None))
}

/// Run `cmd` within `limits`. The program runs in a process group of its own that dies with this
/// process: the group's first process is a small supervisor (forked before the program is
/// executed) that waits for the program, passes on its exit status, and kills the whole group as
/// soon as the process that started it is gone, even by SIGKILL (so killing cutecheck never
/// leaves a cc1plus running). A timeout or an output cap kills the group too.
pub fn run_with(mut cmd: Command, limits: &RunLimits) -> Result<Ran> {
    use std::os::unix::process::CommandExt;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;
    let parent = std::process::id() as libc::pid_t;
    let memory = limits.memory_mb.map(|mb| mb.saturating_mul(1 << 20));
    cmd.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped()).process_group(0);
    // SAFETY: the hook runs in the forked child before exec and calls only async-signal-safe
    // functions (fork, setrlimit, prctl, waitpid, getppid, kill, nanosleep, close, _exit).
    unsafe {
        cmd.pre_exec(move || supervise(parent, memory));
    }
    let mut child = cmd.spawn().with_context(|| format!("could not start {:?}", cmd.get_program()))?;
    let pgid = child.id() as libc::pid_t;
    let guard = GroupGuard(pgid);
    let capped = Arc::new(AtomicBool::new(false));
    let mut out = child.stdout.take().expect("piped");
    let mut err = child.stderr.take().expect("piped");
    let (max, section, flag) = (limits.stdout_max, limits.stdout_section, capped.clone());
    let t_out = std::thread::spawn(move || read_capped(&mut out, max, section, Some(&flag)));
    let err_max = limits.stderr_max;
    let t_err = std::thread::spawn(move || read_capped(&mut err, err_max, None, None));
    let start = Instant::now();
    let mut timed_out = false;
    let mut interrupted = false;
    let status = loop {
        if let Some(s) = child.try_wait()? {
            break Some(s);
        }
        if super::interrupt::requested() {
            interrupted = true;
            guard.kill();
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        if start.elapsed() > limits.time || capped.load(Ordering::Relaxed) {
            timed_out = !capped.load(Ordering::Relaxed);
            guard.kill();
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    // Anything the program left behind in its group (a straggler holding the pipes) goes too.
    drop(guard);
    let stdout = t_out.join().unwrap_or_default();
    let stderr = t_err.join().unwrap_or_default();
    let output_capped = capped.load(Ordering::Relaxed);
    Ok(Ran {
        success: status.is_some_and(|s| s.success()),
        timed_out,
        output_capped,
        stdout,
        stderr,
        status,
        interrupted,
    })
}

/// Kills a process group when dropped (also when the caller unwinds).
struct GroupGuard(libc::pid_t);

impl GroupGuard {
    fn kill(&self) {
        // SAFETY: killpg has no memory-safety preconditions; the group is the one we created.
        unsafe {
            libc::killpg(self.0, libc::SIGKILL);
        }
    }
}

impl Drop for GroupGuard {
    fn drop(&mut self) {
        self.kill();
    }
}

/// Read `r` to its end keeping at most `max` bytes. With `section`, the count restarts at each
/// line that starts with it, and going over `max` within a section sets `flag` and stops reading
/// (the caller then kills the program). Without a flag, bytes over `max` are dropped.
fn read_capped(
    r: &mut impl Read,
    max: usize,
    section: Option<&str>,
    flag: Option<&std::sync::atomic::AtomicBool>,
) -> Vec<u8> {
    let mut v: Vec<u8> = Vec::new();
    let mut chunk = vec![0u8; 1 << 16];
    let mut section_start = 0usize;
    let mut dropped = false;
    loop {
        let n = match r.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) => break,
        };
        if dropped {
            continue;
        }
        let old = v.len();
        v.extend_from_slice(&chunk[..n]);
        if let Some(m) = section {
            let from = old.saturating_sub(m.len() + 1);
            let mut at = from;
            while let Some(p) = find(&v[at..], m.as_bytes()) {
                let q = at + p;
                if q == 0 || v[q - 1] == b'\n' {
                    section_start = q;
                }
                at = q + 1;
            }
        }
        if v.len() - section_start > max {
            match flag {
                Some(f) => {
                    v.truncate(section_start + max);
                    f.store(true, std::sync::atomic::Ordering::Relaxed);
                    break;
                }
                None => {
                    v.truncate(max);
                    dropped = true;
                }
            }
        }
    }
    v
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    if needle.is_empty() || hay.len() < needle.len() {
        return None;
    }
    hay.windows(needle.len()).position(|w| w == needle)
}

/// The pre-exec hook: fork; the child sets its memory limit and goes on to exec the program; the
/// parent (the group's leader, the process the caller holds) supervises it and never returns.
///
/// # Safety
/// Called only between fork and exec; uses only async-signal-safe functions.
unsafe fn supervise(parent: libc::pid_t, memory: Option<u64>) -> std::io::Result<()> {
    let pid = libc::fork();
    if pid < 0 {
        return Err(std::io::Error::last_os_error());
    }
    if pid == 0 {
        // The program: dies if its supervisor does.
        libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL as libc::c_ulong, 0, 0, 0);
        if let Some(bytes) = memory {
            let lim = libc::rlimit { rlim_cur: bytes as libc::rlim_t, rlim_max: bytes as libc::rlim_t };
            if libc::setrlimit(libc::RLIMIT_AS, &lim) != 0 {
                return Err(std::io::Error::last_os_error());
            }
        }
        return Ok(());
    }
    // The supervisor holds no file: the caller's pipes then end when the program's side does,
    // and std's exec-error pipe reports the program's exec, not ours.
    if libc::syscall(libc::SYS_close_range, 0u32, u32::MAX, 0u32) != 0 {
        for fd in 0..4096 {
            libc::close(fd);
        }
    }
    let pause = libc::timespec { tv_sec: 0, tv_nsec: 50_000_000 };
    loop {
        let mut status = 0;
        let r = libc::waitpid(pid, &mut status, libc::WNOHANG);
        if r == pid {
            if libc::WIFEXITED(status) {
                libc::_exit(libc::WEXITSTATUS(status));
            }
            if libc::WIFSIGNALED(status) {
                let sig = libc::WTERMSIG(status);
                libc::signal(sig, libc::SIG_DFL);
                let mut set: libc::sigset_t = std::mem::zeroed();
                libc::sigemptyset(&mut set);
                libc::sigaddset(&mut set, sig);
                libc::sigprocmask(libc::SIG_UNBLOCK, &set, std::ptr::null_mut());
                libc::kill(libc::getpid(), sig);
                libc::_exit(128 + sig);
            }
        } else if r < 0 && *libc::__errno_location() != libc::EINTR {
            libc::_exit(127);
        }
        if libc::getppid() != parent {
            // The harness is gone: take the whole group (the program and its children) along.
            libc::kill(0, libc::SIGKILL);
            libc::_exit(137);
        }
        libc::nanosleep(&pause, std::ptr::null_mut());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sh(script: &str) -> Command {
        let mut c = Command::new("sh");
        c.arg("-c").arg(script);
        c
    }

    #[test]
    fn exit_status_and_output_pass_through() {
        let r = run_limited(sh("echo out; echo err >&2; exit 3"), Duration::from_secs(30)).unwrap();
        assert_eq!(r.stdout, b"out\n");
        assert_eq!(r.stderr, b"err\n");
        assert_eq!(r.status.and_then(|s| s.code()), Some(3));
        assert!(!r.success && !r.timed_out && !r.output_capped);
        let r = run_limited(sh("kill -SEGV $$"), Duration::from_secs(30)).unwrap();
        use std::os::unix::process::ExitStatusExt;
        assert_eq!(r.status.and_then(|s| s.signal()), Some(libc::SIGSEGV));
        let e = run_limited(Command::new("/nonexistent/compiler"), Duration::from_secs(30));
        assert!(e.is_err(), "a program that cannot start is an error");
    }

    #[test]
    fn the_memory_limit_reaches_the_program() {
        let mut l = RunLimits::compile(Duration::from_secs(30), Some(1024));
        l.stdout_max = 1 << 10;
        let r = run_with(sh("ulimit -v"), &l).unwrap();
        assert_eq!(String::from_utf8_lossy(&r.stdout).trim(), (1024 * 1024).to_string());
        // A program that wants more than its limit fails instead of taking the machine's memory.
        let l = RunLimits::compile(Duration::from_secs(30), Some(64));
        let r = run_with(sh("python3 -c 'x = bytearray(512 << 20)'"), &l).unwrap();
        assert!(!r.success, "{}", String::from_utf8_lossy(&r.stderr));
    }

    #[test]
    fn output_is_capped_per_section() {
        let limits = RunLimits {
            time: Duration::from_secs(60),
            memory_mb: None,
            stdout_max: 1 << 20,
            stdout_section: Some("@@s "),
            stderr_max: 1 << 10,
        };
        // Small sections pass whatever their total.
        let ok = "for i in $(seq 1 40); do echo \"@@s $i\"; head -c 100000 /dev/zero | tr '\\0' x; echo; done";
        let r = run_with(sh(ok), &limits).unwrap();
        assert!(r.success && !r.output_capped);
        assert!(r.stdout.len() > 4_000_000);
        // One endless section is stopped at the cap, quickly, with the program killed.
        let start = Instant::now();
        let r = run_with(sh("echo '@@s 1'; echo small; echo '@@s 2'; yes"), &limits).unwrap();
        assert!(r.output_capped && !r.timed_out && !r.success);
        assert!(r.stdout.len() <= (1 << 20) + 32, "{}", r.stdout.len());
        assert!(r.stdout.starts_with(b"@@s 1\nsmall\n@@s 2\n"));
        assert!(start.elapsed() < Duration::from_secs(30));
        // Endless diagnostics are read and dropped, not kept.
        let r = run_with(sh("head -c 5000000 /dev/zero >&2; echo done"), &limits).unwrap();
        assert!(r.success && r.stderr.len() == 1 << 10 && r.stdout == b"done\n");
    }

    #[test]
    fn a_timeout_kills_the_whole_group() {
        let t = tempfile::tempdir().unwrap();
        let pidfile = t.path().join("pid");
        let script = format!("sleep 300 & echo $! > {}; wait", pidfile.display());
        let r = run_limited(sh(&script), Duration::from_secs(2)).unwrap();
        assert!(r.timed_out);
        let pid: i32 = std::fs::read_to_string(&pidfile).unwrap().trim().parse().unwrap();
        assert!(gone(pid), "the grandchild {pid} outlived the timeout");
    }

    /// Whether process `pid` has ended, waiting up to 5 s (a zombie counts as ended: where
    /// PID 1 does not reap orphans, an ended orphan stays one).
    pub(crate) fn gone(pid: i32) -> bool {
        let ended = || {
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
            stat.is_empty() || stat.split(") ").nth(1).is_some_and(|r| r.starts_with('Z'))
        };
        (0..100).any(|_| {
            ended() || {
                std::thread::sleep(Duration::from_millis(50));
                false
            }
        })
    }
}
