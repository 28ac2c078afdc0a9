//! Forked worker processes that call the FFI, so CuTe's run-time asserts, aborts, SIGFPE and
//! endless loops end a worker, never the harness.
//!
//! A worker is a `fork()` of the harness (no exec) that only reads fixed-size requests
//! (`cc_request`) from a pipe, calls `cc_ffi_eval`, and writes `[status i32][len u32][bytes]` back,
//! one answer per request, with `alarm()` bounding each call. The parent writes a sub-batch of
//! requests (small enough to sit in the pipe's buffer), then reads the answers; when a worker dies
//! the first unanswered request is the one that killed it: it is reported as crashed (the signal
//! named as the compiled driver names it, with what CuTe wrote to stderr), a fresh worker is forked
//! and the rest of the sub-batch goes to it. In the child only async-signal-safe system calls and
//! the C++ library run (glibc's malloc and stdio are fork-safe); every descriptor but the worker's
//! own three is closed, so one worker's death is seen as end-of-file by the parent at once.

use std::io::Read;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::sync::Mutex;

use super::ffi;

/// Largest printed result (a bigger one is reported as an oracle error).
pub const OUT_CAP: usize = 1 << 16;
/// Requests written before their answers are read (must fit in a pipe's 64 KiB buffer).
const SUB_BATCH: usize = 128;
/// Seconds one request may run in a worker (as the compiled driver's case limit).
pub const CASE_SECONDS: u32 = 20;

/// What a worker answered for one request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Answer {
    /// `cc_ffi_eval` returned this status and wrote this text.
    Done { status: i32, text: String },
    /// The worker died on this request: "SIGFPE (signal 8)" and anything it wrote to stderr.
    Crashed(String),
    /// The pool itself failed (no fork, broken pipe, unreadable answer).
    Failed(String),
}

struct Worker {
    pid: libc::pid_t,
    to: std::fs::File,
    from: std::fs::File,
    err: std::fs::File,
}

/// A fixed number of workers; each `run` call spreads its requests over them.
pub struct Pool {
    workers: Vec<Mutex<Option<Worker>>>,
}

fn pipe() -> std::io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0; 2];
    // SAFETY: pipe2 writes two descriptors into `fds`, which we then own.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: both descriptors were just created and are owned by nobody else.
    Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
}

impl Worker {
    fn spawn() -> std::io::Result<Worker> {
        let (req_r, req_w) = pipe()?;
        let (resp_r, resp_w) = pipe()?;
        let (err_r, err_w) = pipe()?;
        // The child's buffer is allocated before fork: the child allocates nothing itself.
        let mut out = vec![0u8; OUT_CAP + 8];
        // SAFETY: the child runs only `child_main` (system calls and the C++ library) and leaves
        // with `_exit`; it never returns into the parent's Rust code.
        let pid = unsafe { libc::fork() };
        if pid < 0 {
            return Err(std::io::Error::last_os_error());
        }
        if pid == 0 {
            // SAFETY: in the child; see above.
            unsafe { child_main(req_r.as_raw_fd(), resp_w.as_raw_fd(), err_w.as_raw_fd(), &mut out) }
        }
        drop((req_r, resp_w, err_w));
        // Reading stderr must never block: it holds at most what a dying worker wrote.
        // SAFETY: fcntl on a descriptor we own.
        unsafe {
            let fl = libc::fcntl(err_r.as_raw_fd(), libc::F_GETFL);
            libc::fcntl(err_r.as_raw_fd(), libc::F_SETFL, fl | libc::O_NONBLOCK);
        }
        Ok(Worker { pid, to: req_w.into(), from: resp_r.into(), err: err_r.into() })
    }

    /// Reap a worker that died (or kill and reap one that is still running); the signal text.
    fn end(mut self, kill: bool) -> String {
        if kill {
            // SAFETY: `pid` is our own child.
            unsafe { libc::kill(self.pid, libc::SIGKILL) };
        }
        let mut status = 0;
        // SAFETY: waiting for our own child.
        while unsafe { libc::waitpid(self.pid, &mut status, 0) } < 0 {
            if std::io::Error::last_os_error().kind() != std::io::ErrorKind::Interrupted {
                break;
            }
        }
        let mut what = if libc::WIFSIGNALED(status) {
            let n = libc::WTERMSIG(status);
            format!("{} (signal {n})", signal_name(n))
        } else {
            format!("exit status {}", libc::WEXITSTATUS(status))
        };
        let mut err = Vec::new();
        let _ = self.err.read_to_end(&mut err);
        let err = String::from_utf8_lossy(&err);
        if !err.trim().is_empty() {
            what.push('\n');
            what.push_str(err.trim_end());
        }
        self.pid = 0;
        what
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        if self.pid > 0 {
            // SAFETY: our own child; closing its pipe would end it too, this is quicker.
            unsafe {
                libc::kill(self.pid, libc::SIGKILL);
                libc::waitpid(self.pid, std::ptr::null_mut(), 0);
            }
        }
    }
}

/// The names the compiled driver's runner gives signals (oracle/runner.rs).
fn signal_name(n: i32) -> &'static str {
    match n {
        4 => "SIGILL",
        5 => "SIGTRAP",
        6 => "SIGABRT",
        7 => "SIGBUS",
        8 => "SIGFPE",
        9 => "SIGKILL",
        11 => "SIGSEGV",
        14 => "SIGALRM (case time limit)",
        _ => "signal",
    }
}

/// Write all of `buf` to `fd` with write(2) (EINTR retried); false on any failure.
unsafe fn write_all(fd: i32, mut buf: &[u8]) -> bool {
    while !buf.is_empty() {
        let n = libc::write(fd, buf.as_ptr().cast(), buf.len());
        if n < 0 {
            if *libc::__errno_location() == libc::EINTR {
                continue;
            }
            return false;
        }
        buf = &buf[n as usize..];
    }
    true
}

/// The worker: requests in on `req`, answers out on `resp`, CuTe's stderr to `err`.
unsafe fn child_main(req: i32, resp: i32, err: i32, out: &mut [u8]) -> ! {
    // Keep exactly our three descriptors (as 0, 1, 2): another worker's pipe end held here would
    // hide that worker's death from the parent.
    libc::dup2(req, 0);
    libc::dup2(resp, 1);
    libc::dup2(err, 2);
    if libc::syscall(libc::SYS_close_range, 3u32, u32::MAX, 0u32) != 0 {
        for fd in 3..4096 {
            libc::close(fd);
        }
    }
    let size = std::mem::size_of::<ffi::cc_request>();
    let mut r = ffi::cc_request::default();
    loop {
        let mut got = 0;
        while got < size {
            let n = libc::read(0, (&mut r as *mut ffi::cc_request).cast::<u8>().add(got).cast(), size - got);
            if n < 0 && *libc::__errno_location() == libc::EINTR {
                continue;
            }
            if n <= 0 {
                libc::_exit(0);
            }
            got += n as usize;
        }
        let (head, text) = out.split_at_mut(8);
        let mut len: u64 = 0;
        libc::alarm(CASE_SECONDS);
        let status = ffi::cc_ffi_eval(&r, text.as_mut_ptr().cast(), text.len() as u64, &mut len);
        libc::alarm(0);
        let len = len.min(text.len() as u64) as u32;
        head[..4].copy_from_slice(&status.to_le_bytes());
        head[4..].copy_from_slice(&len.to_le_bytes());
        if !write_all(1, &out[..8 + len as usize]) {
            libc::_exit(1);
        }
    }
}

/// The bytes of a request, as the worker reads them.
fn request_bytes(r: &ffi::cc_request) -> &[u8] {
    // SAFETY: cc_request is a plain C struct of i32s (no padding bytes left uninitialised matter:
    // it was created with Default, i.e. zeroed).
    unsafe { std::slice::from_raw_parts((r as *const ffi::cc_request).cast::<u8>(), std::mem::size_of::<ffi::cc_request>()) }
}

impl Pool {
    /// A pool of `n` workers (forked when first used).
    pub fn new(n: usize) -> Pool {
        Pool { workers: (0..n.max(1)).map(|_| Mutex::new(None)).collect() }
    }

    pub fn size(&self) -> usize {
        self.workers.len()
    }

    /// Answer every request, in order, spreading them over the workers.
    pub fn run(&self, reqs: &[ffi::cc_request]) -> Vec<Answer> {
        if reqs.is_empty() {
            return Vec::new();
        }
        let per = reqs.len().div_ceil(self.workers.len()).max(SUB_BATCH.min(reqs.len()));
        let mut out: Vec<Vec<Answer>> = Vec::new();
        std::thread::scope(|s| {
            let handles: Vec<_> = reqs
                .chunks(per)
                .zip(&self.workers)
                .map(|(part, w)| s.spawn(move || Self::run_on(w, part)))
                .collect();
            out = handles.into_iter().map(|h| h.join().unwrap_or_else(|_| vec![Answer::Failed("pool thread panicked".into())])).collect();
        });
        let mut flat: Vec<Answer> = out.into_iter().flatten().collect();
        flat.resize(reqs.len(), Answer::Failed("no answer".into()));
        flat
    }

    fn run_on(slot: &Mutex<Option<Worker>>, reqs: &[ffi::cc_request]) -> Vec<Answer> {
        let mut guard = slot.lock().unwrap_or_else(|e| e.into_inner());
        let mut out = Vec::with_capacity(reqs.len());
        let mut next = 0;
        let mut bytes = Vec::with_capacity(SUB_BATCH * std::mem::size_of::<ffi::cc_request>());
        while next < reqs.len() {
            if guard.is_none() {
                match Worker::spawn() {
                    Ok(w) => *guard = Some(w),
                    Err(e) => {
                        out.extend((next..reqs.len()).map(|_| Answer::Failed(format!("cannot fork a worker: {e}"))));
                        return out;
                    }
                }
            }
            let w = guard.as_mut().expect("a worker");
            let end = (next + SUB_BATCH).min(reqs.len());
            bytes.clear();
            for r in &reqs[next..end] {
                bytes.extend_from_slice(request_bytes(r));
            }
            // A dead worker makes this fail (EPIPE; Rust ignores SIGPIPE): the reads below then see
            // end-of-file at the request that killed it.
            let _ = std::io::Write::write_all(&mut w.to, &bytes);
            while next < end {
                match read_answer(&mut w.from) {
                    Ok(a) => {
                        out.push(a);
                        next += 1;
                    }
                    Err(_) => {
                        let dead = guard.take().expect("a worker");
                        out.push(Answer::Crashed(dead.end(false)));
                        next += 1;
                        break;
                    }
                }
            }
        }
        out
    }
}

fn read_answer(from: &mut std::fs::File) -> std::io::Result<Answer> {
    let mut head = [0u8; 8];
    from.read_exact(&mut head)?;
    let status = i32::from_le_bytes(head[..4].try_into().expect("4 bytes"));
    let len = u32::from_le_bytes(head[4..].try_into().expect("4 bytes")) as usize;
    if len > OUT_CAP + 8 {
        return Ok(Answer::Failed(format!("unreadable answer (length {len})")));
    }
    let mut text = vec![0u8; len];
    from.read_exact(&mut text)?;
    Ok(Answer::Done { status, text: String::from_utf8_lossy(&text).replace('\0', "") })
}
