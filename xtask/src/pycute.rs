//! pycute, the Python reference shipped in the same nvidia-cutlass wheel, as a third oracle
//! (`conformance --pycute`): every case pycute can express is asked through the pycute oracle
//! (`cutecheck::oracle::pycute`: parallel python3 workers, each case bounded in time), a peer of
//! the run (`cutecheck::run`), whose answer the run's judge compares with CuTe's and the engine's
//! (with pycute's capabilities: values, no static-ness, so results compare as functions); this
//! file makes the oracle and prints how it answered; cutecheck::report::pycute reads the verdicts. pycute's own
//! defects are reported separately from the engine's and CuTe's, and so are the cases pycute did
//! not answer in time. The Python text is written from the parsed AST
//! (`cutecheck::oracle::pycute::spelling`).

use std::time::Duration;

use anyhow::Result;

use cutecheck::case::Outcome;
use cutecheck::oracle::pycute::PycuteOptions;
use cutecheck::oracle::Oracle;
use cutecheck::run::Peer;

/// pycute from the wheel the oracle's headers come from (`<wheel>/pycute`), with `jobs` workers
/// (default: one per core): a peer of the run (`cutecheck::run`).
pub fn oracle(oracle: &Oracle, jobs: Option<usize>) -> Result<cutecheck::oracle::pycute::Pycute> {
    let opts = PycuteOptions { jobs, ..PycuteOptions::default() };
    cutecheck::oracle::pycute::Pycute::next_to(&oracle.headers.include_dir, opts)
}

/// The line on how pycute answered.
pub fn asked(p: &Peer, o: &cutecheck::oracle::pycute::Pycute) {
    let asked = p.replies.iter().filter(|r| !matches!(r.outcome, Outcome::Unsupported(_))).count();
    let timeouts = p.replies.iter().filter(|r| r.timed_out()).count();
    eprintln!(
        "xtask: pycute answered {asked} cases in {:.1?} ({} workers, {timeouts} timeouts of {} s)",
        Duration::from_secs_f64(p.seconds),
        o.jobs(),
        o.opts.case_timeout.as_secs_f64()
    );
}

#[cfg(test)]
mod tests {
    /// The Python text of an expression (the library's, shared with the whole-command bench).
    use cutecheck::oracle::pycute::spelling::pycute_text as python;

    #[test]
    fn python_is_written_from_the_ast() {
        let py = |s: &str| python(&cutecheck::expr::parse(s).unwrap());
        assert_eq!(py("composition((_6,_2):(_8,_2),_4:_4)").unwrap(), "composition(Layout((6,2,),(8,2,)),Layout(4,4))");
        assert_eq!(py("logical_divide(24:1,(_,4:2))").unwrap(), "logical_divide(Layout(24,1),(None,Layout(4,2),))");
        assert!(py("blocked_product(_2:_1,_2:_1)").is_err());
        assert!(py("make_layout_right((_4,_8))").is_err());
    }
}
