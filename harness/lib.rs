//! cutecheck: CuTe's layout algebra in Rust, checked against the real CuTe C++ headers.
//!
//! - [`engine`]: integers with static-ness, int tuples, layouts and the operations on them.
//! - [`expr`]: the expression language (`composition(_24:_1,_4:_2)`), its parser and evaluator.
//! - [`oracle`]: real CuTe: provisioning, C++ codegen from the AST, batched compile and run.
//! - [`suite`]: fixed suites (fixtures/cases) and their snapshots.
//! - [`case`]: the case pipeline: one parsed case, one typed outcome per side, one judgement.
//! - [`expr::op`]: the operations as one enum; each layer (engine entry, C++ emitter, definition
//!   check, generator, pycute spelling) matches it exhaustively.
//! - [`limits`]: every resource limit (input size, nesting, walks, CuTe output, compile time
//!   and memory), with its default.
//! - [`fuzz`], [`triage`], [`known`]: random cases, disagreement classes, accepted discrepancies.

pub mod case;
pub mod cli;
pub mod definition;
/// The engine is its own crate (harness/engine), below everything here; re-exported under its old path.
pub use cutecheck_engine as engine;
pub mod expr;
pub mod fuzz;
pub use cutecheck_engine::gen;
pub mod gpu;
pub mod judge;
pub mod known;
pub mod limits;
pub mod oracle;
pub mod paths;
pub mod report;
pub mod run;
pub mod snapshot;
pub mod suite;
pub mod svg;
