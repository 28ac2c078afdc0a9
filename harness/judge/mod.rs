//! The one judge: what two answers to one case mean.
//!
//! - [`compare`]: two printed answers as text (identical, both refuse by the refusal rule, one
//!   side without an answer, different).
//! - [`classify`]: what a difference means, for any pair of sides (the engine against CuTe C++,
//!   the engine or CuTe C++ against the CuTe DSL or pycute), reading the oracle's answer for what
//!   it can report ([`crate::case::Caps`]: values all known or partly, static-ness shown or not);
//!   [`Verdict::fault`] is the blame matrix (reference fault, oracle defect, oracle limitation).
//! - [`Judge`]: the conformance judge, an engine answer against CuTe C++'s with the known
//!   discrepancies of one CUTLASS version, giving a [`Judgement`] and its [`Status`].
//! - [`release_blame`]: what a change of CuTe's output between two releases is blamed on (a
//!   release switch, an atom's first release, or not modelled).
//!
//! Oracles report what they saw (crate::oracle) and never judge; reports read verdicts and
//! compute none. This module is the only place a verdict or a blame is computed.

mod compare;
mod conformance;
mod release_blame;
mod verdict;

pub use compare::{compare, Agreement};
pub use conformance::{disagreement_line, triage, EngineMemo, Judge, Judgement, Status, CHANGED_IN_RELEASE_EXIT};
pub use release_blame::release_blame;
pub use verdict::{
    blame_name, classify, compare_partial, crash_signal, judge_pair, read_printed, refuses_dynamic, same_function,
    Answer, Blame, DefinitionCheck, Fault, Function, Match, Roles, Side, Verdict, ENGINE_CUTE,
};
