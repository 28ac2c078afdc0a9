//! SIGINT (Ctrl-C) for long runs: the first one asks the run to stop, the second one ends the
//! process at once.
//!
//! [`install`] routes SIGINT through `signal-hook` (the kept crate for signal handling, whose
//! handlers only touch an atomic): the first SIGINT sets a flag ([`requested`]); a SIGINT that
//! finds the flag already set runs SIGINT's default action (`register_conditional_default`,
//! registered before the flag so that it sees the flag as the earlier SIGINTs left it), which
//! ends the process as a Ctrl-C does. The compiled driver polls the flag: no new batch starts, a
//! compile or a batch that is running is stopped with its whole process group
//! (`compiler::run_with`), and every case without an answer gets `Outcome::Error("interrupted
//! ...")`, which is never cached. What CuTe did answer stays answered and cached; every cache
//! write is atomic (write, fsync, rename: `cache::write_atomic`), so the caches are whole
//! whenever the process stops. The command then prints what was done (`cargo xtask conformance`:
//! its tables, with the unanswered cases as oracle errors, and one `interrupted` line) and exits
//! with status 130.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Once, OnceLock};

static REQUESTED: OnceLock<Arc<AtomicBool>> = OnceLock::new();

fn flag() -> &'static Arc<AtomicBool> {
    REQUESTED.get_or_init(|| Arc::new(AtomicBool::new(false)))
}

/// The text of the outcome of a case that was not answered because the run was interrupted.
pub const INTERRUPTED: &str = "interrupted (SIGINT) before CuTe answered this case";

/// Route SIGINT to the flag (idempotent: the handlers are registered once).
pub fn install() {
    static INSTALLED: Once = Once::new();
    INSTALLED.call_once(|| {
        use signal_hook::consts::SIGINT;
        // Order matters: the conditional default runs first and sees whether an earlier SIGINT
        // set the flag; then this one sets it. A failure leaves SIGINT's default action (a
        // Ctrl-C then ends the run at once, as before any handler): said once, not fatal.
        let installed = signal_hook::flag::register_conditional_default(SIGINT, Arc::clone(flag()))
            .and_then(|_| signal_hook::flag::register(SIGINT, Arc::clone(flag())));
        if let Err(e) = installed {
            eprintln!("cutecheck: cannot handle SIGINT ({e}); Ctrl-C stops at once");
        }
    });
}

/// Whether SIGINT asked the run to stop.
pub fn requested() -> bool {
    REQUESTED.get().is_some_and(|f| f.load(Ordering::Relaxed))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The first SIGINT sets the flag and the process lives on; the second ends it by SIGINT. Run
    /// in a child process (this test's own binary, filtered to the child part) so that the test
    /// runner survives.
    #[test]
    fn the_first_sigint_asks_and_the_second_ends() {
        if std::env::var_os("CUTECHECK_SIGINT_CHILD").is_some() {
            install();
            install();
            assert!(!requested());
            // SAFETY: raise has no memory-safety preconditions.
            unsafe { libc::raise(libc::SIGINT) };
            assert!(requested(), "the first SIGINT sets the flag");
            println!("survived the first");
            unsafe { libc::raise(libc::SIGINT) };
            println!("survived the second");
            return;
        }
        let o = std::process::Command::new(std::env::current_exe().unwrap())
            .args(["--exact", "oracle::interrupt::tests::the_first_sigint_asks_and_the_second_ends", "--nocapture"])
            .env("CUTECHECK_SIGINT_CHILD", "1")
            .output()
            .unwrap();
        let out = String::from_utf8_lossy(&o.stdout);
        use std::os::unix::process::ExitStatusExt;
        assert!(out.contains("survived the first"), "{out}");
        assert!(!out.contains("survived the second"), "{out}");
        assert_eq!(o.status.signal(), Some(libc::SIGINT), "{:?}\n{out}", o.status);
    }
}
