//! Progress of an oracle's long answer in a log: when stderr is not a terminal (every CI log),
//! a line every [`PROGRESS_EVERY_SECS`] from a ticker thread ([`ticker`]), also while the oracle
//! is busy with one slow part ([`progress_line`]: done/total, percent, seconds, an estimate of
//! what is left). A terminal gets indicatif's bar instead (drawn by the caller). One place for
//! both the compiled driver's chunks (crate::run::ask) and the pycute workers (super::pycute).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender};
use std::time::{Duration, Instant};

/// How often a log (stderr not a terminal) gets a progress line, in seconds.
pub const PROGRESS_EVERY_SECS: f64 = 5.0;

/// `LABEL: 300/1000 cases (30%), 12 s, about 28 s left`: a progress line for a log.
pub fn progress_line(label: &str, done: usize, total: usize, seconds: f64) -> String {
    let pct = (done * 100).checked_div(total).unwrap_or(100);
    let left = if done == 0 {
        "estimating".to_string()
    } else {
        format!("about {:.0} s left", seconds / done as f64 * total.saturating_sub(done) as f64)
    };
    format!("{label}: {done}/{total} cases ({pct}%), {seconds:.0} s, {left}")
}

/// Whether stderr is a log (not a terminal): then [`ticker`] prints lines, else a bar is drawn.
pub fn stderr_is_log() -> bool {
    use std::io::IsTerminal;
    !std::io::stderr().is_terminal()
}

/// The stop signal of a [`ticker`]: the ticker ends when this is dropped.
pub struct Stop(#[allow(dead_code)] Sender<()>);

/// Spawn, in `scope`, a thread that prints [`progress_line`] of `done` (read every
/// [`PROGRESS_EVERY_SECS`], or `CUTECHECK_PROGRESS_SECS` when set to a positive number) out of
/// `total` on stderr until the returned [`Stop`] is dropped.
pub fn ticker<'scope>(
    scope: &'scope std::thread::Scope<'scope, '_>,
    label: &'scope str,
    done: &'scope AtomicUsize,
    total: usize,
) -> Stop {
    let (stop, stopped): (Sender<()>, Receiver<()>) = std::sync::mpsc::channel();
    let start = Instant::now();
    scope.spawn(move || {
        let every = Duration::from_secs_f64(every_secs());
        while let Err(RecvTimeoutError::Timeout) = stopped.recv_timeout(every) {
            let n = done.load(Ordering::Relaxed);
            eprintln!("{}", progress_line(label, n, total, start.elapsed().as_secs_f64()));
        }
    });
    Stop(stop)
}

/// The ticker's period: `CUTECHECK_PROGRESS_SECS` when it is a positive number (tests use a short
/// one, so that a progress line does not depend on how fast the machine is), else
/// [`PROGRESS_EVERY_SECS`].
fn every_secs() -> f64 {
    std::env::var("CUTECHECK_PROGRESS_SECS")
        .ok()
        .and_then(|v| v.parse::<f64>().ok())
        .filter(|v| *v > 0.0 && v.is_finite())
        .unwrap_or(PROGRESS_EVERY_SECS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_ticker_ends_when_its_stop_is_dropped() {
        let done = AtomicUsize::new(0);
        let t = Instant::now();
        std::thread::scope(|s| {
            let stop = ticker(s, "test", &done, 10);
            done.store(10, Ordering::Relaxed);
            drop(stop);
        });
        // The scope waits for the ticker: it ended at once, not after PROGRESS_EVERY_SECS.
        assert!(t.elapsed() < Duration::from_secs_f64(PROGRESS_EVERY_SECS / 2.0), "{:?}", t.elapsed());
        assert_eq!(progress_line("pycute", 250, 5000, 10.0), "pycute: 250/5000 cases (5%), 10 s, about 190 s left");
    }
}
