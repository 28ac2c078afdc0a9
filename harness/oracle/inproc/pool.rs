//! Forked worker processes that call the FFI, so CuTe's run-time asserts, aborts, SIGFPE and
//! endless loops end a worker, never the harness.
//!
//! A signal CuTe raises (SIGFPE, SIGABRT of a failed assert, SIGSEGV, the SIGALRM of the time
//! limit) is caught inside the worker by `cc_ffi_eval_guarded` (cpp/ffi/api.cpp), which jumps back
//! and reports it, so the worker usually lives on; the process boundary is the backstop.
//!
//! A worker is a `fork()` of the harness (no exec) that only reads a batch of fixed-size requests
//! (`[count u32]` then `cc_request`s) from a pipe, calls `cc_ffi_eval` on each (`alarm()` bounding
//! each call), and writes all the answers (`[status i32][len u32][bytes]` each) back at once: two
//! pipe transfers per batch, not per case. When a worker dies in a batch, a fresh one is forked and
//! the batch is asked again one request at a time, so the request that kills a worker is found and
//! reported as crashed (the signal named as the compiled driver names it, with what CuTe wrote to
//! stderr) while the others are answered. In the child only async-signal-safe system calls and
//! the C++ library run (glibc's malloc and stdio are fork-safe); every descriptor but the worker's
//! own three is closed, so one worker's death is seen as end-of-file by the parent at once.
//!
//! What is hand-written here, and why: the pipes are std's (`std::io::pipe`). The worker is a
//! `fork()` without `exec` (it is this process, with the FFI library loaded and CuTe's statics
//! set up), which neither `std::process` (it only spawns by exec) nor a process crate offers
//! (`nix::unistd::fork` is the same unsafe call behind another name); so are its `waitpid`, its
//! `kill` and the non-blocking stderr (`fcntl`), each a one-line system call on our own child or
//! descriptor with its SAFETY note. The child side (`child_main`, `read_exact`, `write_all`) uses
//! raw `read`/`write` because between fork and `_exit` only async-signal-safe calls are allowed
//! (std's buffered I/O may lock or allocate).

use crate::oracle::runner::signal_name;
use std::io::Read;
use std::os::fd::{AsRawFd, OwnedFd};
use std::sync::Mutex;

use super::ffi;

/// Largest printed result (a bigger one is reported as an oracle error).
pub const OUT_CAP: usize = 1 << 16;
/// Requests sent to a worker at once (its answers come back in one transfer).
const BATCH: usize = 512;
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
    from: std::io::BufReader<std::fs::File>,
    err: std::fs::File,
}

/// A fixed number of workers; each `run` call spreads its requests over them.
pub struct Pool {
    workers: Vec<Mutex<Option<Worker>>>,
}

/// A pipe (std's `std::io::pipe`: close-on-exec, owned descriptors), read end first.
fn pipe() -> std::io::Result<(OwnedFd, OwnedFd)> {
    let (r, w) = std::io::pipe()?;
    Ok((r.into(), w.into()))
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
        Ok(Worker {
            pid,
            to: req_w.into(),
            from: std::io::BufReader::with_capacity(1 << 16, resp_r.into()),
            err: err_r.into(),
        })
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
    let mut reqs: Vec<ffi::cc_request> = Vec::with_capacity(BATCH);
    let mut answers: Vec<u8> = Vec::with_capacity(BATCH * 64);
    loop {
        let mut count = [0u8; 4];
        if !read_exact(0, count.as_mut_ptr(), 4) {
            libc::_exit(0);
        }
        let n = u32::from_le_bytes(count) as usize;
        if n > BATCH {
            libc::_exit(2);
        }
        reqs.clear();
        reqs.resize(n, ffi::cc_request::default());
        if !read_exact(0, reqs.as_mut_ptr().cast(), n * size) {
            libc::_exit(0);
        }
        answers.clear();
        for r in &reqs {
            let (head, text) = out.split_at_mut(8);
            let mut len: u64 = 0;
            libc::alarm(CASE_SECONDS);
            let mut signal = 0;
            let mut status =
                ffi::cc_ffi_eval_guarded(r, text.as_mut_ptr().cast(), text.len() as u64, &mut len, &mut signal);
            libc::alarm(0);
            if status == ffi::cc_status::CC_SIGNAL as i32 {
                // A caught signal travels as its negated number, CuTe's stderr as the text.
                status = -signal;
            }
            let len = len.min(text.len() as u64) as u32;
            head[..4].copy_from_slice(&status.to_le_bytes());
            head[4..].copy_from_slice(&len.to_le_bytes());
            answers.extend_from_slice(&out[..8 + len as usize]);
        }
        if !write_all(1, &answers) {
            libc::_exit(1);
        }
    }
}

/// Read exactly `n` bytes from `fd` into `buf` (EINTR retried); false on end-of-file or error.
unsafe fn read_exact(fd: i32, buf: *mut u8, n: usize) -> bool {
    let mut got = 0;
    while got < n {
        let k = libc::read(fd, buf.add(got).cast(), n - got);
        if k < 0 && *libc::__errno_location() == libc::EINTR {
            continue;
        }
        if k <= 0 {
            return false;
        }
        got += k as usize;
    }
    true
}

/// The bytes of a request, as the worker reads them.
fn request_bytes(r: &ffi::cc_request) -> &[u8] {
    // SAFETY: cc_request is a plain C struct of i32s (no padding bytes left uninitialised matter:
    // it was created with Default, i.e. zeroed).
    unsafe {
        std::slice::from_raw_parts((r as *const ffi::cc_request).cast::<u8>(), std::mem::size_of::<ffi::cc_request>())
    }
}

impl Pool {
    /// A pool of `n` workers, forked now: a fork copies the parent's page tables, so forking
    /// while the harness is still small is much cheaper than later (a worker that dies is forked
    /// again when next needed).
    pub fn new(n: usize) -> Pool {
        Pool { workers: (0..n.max(1)).map(|_| Mutex::new(Worker::spawn().ok())).collect() }
    }

    pub fn size(&self) -> usize {
        self.workers.len()
    }

    /// Kill every worker (they are found dead, and replaced, when next used).
    #[cfg(test)]
    pub fn kill_all_for_test(&self) {
        for w in &self.workers {
            if let Some(w) = w.lock().unwrap_or_else(|e| e.into_inner()).as_ref() {
                // SAFETY: our own child.
                unsafe { libc::kill(w.pid, libc::SIGKILL) };
            }
        }
    }

    /// Answer every request, in order, spreading them over the workers.
    pub fn run(&self, reqs: &[ffi::cc_request]) -> Vec<Answer> {
        if reqs.is_empty() {
            return Vec::new();
        }
        let per = reqs.len().div_ceil(self.workers.len()).max(BATCH.min(reqs.len()));
        let mut out: Vec<Vec<Answer>> = Vec::new();
        std::thread::scope(|s| {
            let handles: Vec<_> =
                reqs.chunks(per).zip(&self.workers).map(|(part, w)| s.spawn(move || Self::run_on(w, part))).collect();
            out = handles
                .into_iter()
                .map(|h| h.join().unwrap_or_else(|_| vec![Answer::Failed("pool thread panicked".into())]))
                .collect();
        });
        let mut flat: Vec<Answer> = out.into_iter().flatten().collect();
        flat.resize(reqs.len(), Answer::Failed("no answer".into()));
        flat
    }

    fn run_on(slot: &Mutex<Option<Worker>>, reqs: &[ffi::cc_request]) -> Vec<Answer> {
        let mut guard = slot.lock().unwrap_or_else(|e| e.into_inner());
        let mut out = Vec::with_capacity(reqs.len());
        for batch in reqs.chunks(BATCH) {
            match Self::batch(&mut guard, batch) {
                Ok(answers) => out.extend(answers),
                // A worker died in this batch: ask again one request at a time.
                Err(_) => {
                    for r in batch {
                        out.push(match Self::batch(&mut guard, std::slice::from_ref(r)) {
                            Ok(mut a) => a.pop().unwrap_or_else(|| Answer::Failed("no answer".into())),
                            Err(a) => a,
                        });
                    }
                }
            }
        }
        out
    }

    /// One batch on the slot's worker (forked if needed); `Err` when the worker died in it (its
    /// signal as [`Answer::Crashed`]) or none could be forked ([`Answer::Failed`]).
    fn batch(guard: &mut Option<Worker>, reqs: &[ffi::cc_request]) -> Result<Vec<Answer>, Answer> {
        if guard.is_none() {
            *guard = Some(Worker::spawn().map_err(|e| Answer::Failed(format!("cannot fork a worker: {e}")))?);
        }
        let w = guard.as_mut().expect("a worker");
        let mut bytes = Vec::with_capacity(4 + std::mem::size_of_val(reqs));
        bytes.extend_from_slice(&(reqs.len() as u32).to_le_bytes());
        for r in reqs {
            bytes.extend_from_slice(request_bytes(r));
        }
        // A dead worker makes this fail (EPIPE; Rust ignores SIGPIPE), and the read below then
        // sees end-of-file.
        let _ = std::io::Write::write_all(&mut w.to, &bytes);
        let mut answers = Vec::with_capacity(reqs.len());
        for _ in reqs {
            match read_answer(&mut w.from) {
                Ok(a) => answers.push(a),
                Err(_) => {
                    let dead = guard.take().expect("a worker");
                    return Err(Answer::Crashed(dead.end(false)));
                }
            }
        }
        Ok(answers)
    }
}

fn read_answer(from: &mut std::io::BufReader<std::fs::File>) -> std::io::Result<Answer> {
    let mut head = [0u8; 8];
    from.read_exact(&mut head)?;
    let status = i32::from_le_bytes(head[..4].try_into().expect("4 bytes"));
    let len = u32::from_le_bytes(head[4..].try_into().expect("4 bytes")) as usize;
    if len > OUT_CAP + 8 {
        return Ok(Answer::Failed(format!("unreadable answer (length {len})")));
    }
    let mut text = vec![0u8; len];
    from.read_exact(&mut text)?;
    let text = String::from_utf8_lossy(&text).replace('\0', "");
    if status < 0 {
        // CuTe raised a signal the worker caught (cc_ffi_eval_guarded).
        let mut what = format!("{} (signal {})", signal_name(-status), -status);
        if !text.trim().is_empty() {
            what.push('\n');
            what.push_str(text.trim_end());
        }
        return Ok(Answer::Crashed(what));
    }
    Ok(Answer::Done { status, text })
}
