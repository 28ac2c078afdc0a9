//! The reports of the commands that compare the engine with CuTe: what a run (crate::run) found,
//! as tables, markdown and JSON. A report reads the judge's verdicts and computes none.
//!
//! - [`ci`]: what a CI reader needs: every failing case with its reproducer, a PASS/FAIL line,
//!   JUnit, a GitHub step summary and `::error` annotations.
//! - [`conformance`]: `cargo xtask conformance` (the C++ oracle, the dynamic cases, pycute).
//! - [`pycute`]: pycute's opinion on each case and its summary over a run.
//! - [`picture`]: the picture of each NEW disagreement whose outputs are layouts, side by side.
//! - [`dsl`]: `cargo xtask conformance --oracle dsl|cpp,dsl`, by pair, class and the DSL's message.
//! - [`release_diff`]: `cargo xtask release-diff`, the cases whose CuTe output changed.

pub mod ci;
pub mod conformance;
pub mod dsl;
pub mod picture;
pub mod pycute;
pub mod release_diff;
