//! SIGINT (Ctrl-C) for long runs: the first one asks the run to stop, the second one ends the
//! process at once.
//!
//! [`install`] replaces SIGINT's default action with a handler that only sets a flag
//! ([`requested`]). The compiled driver polls it: no new batch starts, a compile or a batch
//! that is running is stopped with its whole process group (`compiler::run_with`), and every
//! case without an answer gets `Outcome::Error("interrupted ...")`, which is never cached. What
//! CuTe did answer stays answered and cached; every cache write is atomic (write, fsync,
//! rename: `cache::write_atomic`), so the caches are whole whenever the process stops. The
//! command then prints what was done (`cargo xtask conformance`: its tables, with the
//! unanswered cases as oracle errors, and one `interrupted` line) and exits with status 130.

use std::sync::atomic::{AtomicBool, Ordering};

static REQUESTED: AtomicBool = AtomicBool::new(false);

/// The text of the outcome of a case that was not answered because the run was interrupted.
pub const INTERRUPTED: &str = "interrupted (SIGINT) before CuTe answered this case";

extern "C" fn on_sigint(_: libc::c_int) {
    if REQUESTED.swap(true, Ordering::SeqCst) {
        // A second Ctrl-C: the default action, now. signal and raise are async-signal-safe.
        // SAFETY: both calls have no memory-safety preconditions.
        unsafe {
            libc::signal(libc::SIGINT, libc::SIG_DFL);
            libc::raise(libc::SIGINT);
        }
    }
}

/// Route SIGINT to the flag (idempotent).
pub fn install() {
    // SAFETY: a zeroed sigaction with a handler that only touches an atomic (async-signal-safe);
    // sigemptyset and sigaction have no other preconditions.
    unsafe {
        let mut sa: libc::sigaction = std::mem::zeroed();
        sa.sa_sigaction = on_sigint as extern "C" fn(libc::c_int) as libc::sighandler_t;
        libc::sigemptyset(&mut sa.sa_mask);
        sa.sa_flags = libc::SA_RESTART;
        libc::sigaction(libc::SIGINT, &sa, std::ptr::null_mut());
    }
}

/// Whether SIGINT asked the run to stop.
pub fn requested() -> bool {
    REQUESTED.load(Ordering::Relaxed)
}
