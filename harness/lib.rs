//! cutecheck: CuTe's layout algebra in Rust, checked against the real CuTe C++ headers.
//!
//! - [`engine`]: integers with static-ness, int tuples, layouts and the operations on them.
//! - [`expr`]: the expression language (`composition(_24:_1,_4:_2)`), its parser and evaluator.

pub mod cli;
pub mod engine;
pub mod expr;
pub mod gen;
pub mod oracle;
pub mod suite;
