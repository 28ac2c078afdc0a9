//! CuTe's order of failures: a compile-time condition (a static_assert anywhere in the instantiated
//! code) beats a run-time failure (a division by a dynamic zero, SIGFPE), which in turn beats the
//! engine's own definition checks (which CuTe does not have).
//!
//! Inside a [`deferred`] scope, an arithmetic failure involving a dynamic operand is remembered and
//! the computation goes on with a dynamic placeholder, so that a later compile-time condition is
//! still found; the remembered failure is returned when the scope ends without a compile-time
//! error. Outside a scope such failures are returned at once.

use std::cell::RefCell;

use super::error::{Error, Result};
use super::int::Int;

thread_local! {
    static PENDING: RefCell<Option<Option<Error>>> = const { RefCell::new(None) };
}

/// The result of one arithmetic step on `a` and `b` (see the module doc).
pub(crate) fn rt(r: std::result::Result<Int, impl Into<Error>>, a: Int, b: Int) -> Result<Int> {
    match r.map_err(Into::into) {
        Ok(v) => Ok(v),
        Err(e) if a.is_static && b.is_static => Err(e),
        Err(e) => PENDING.with(|p| match p.borrow_mut().as_mut() {
            Some(pending) => {
                pending.get_or_insert(e);
                Ok(Int::dy(1))
            }
            None => Err(e),
        }),
    }
}

/// Run CuTe's computation `f` with run-time failures deferred to its end (re-entrant: an inner
/// scope joins the outer one).
pub(crate) fn deferred<T>(f: impl FnOnce() -> Result<T>) -> Result<T> {
    if PENDING.with(|p| p.borrow().is_some()) {
        return f();
    }
    PENDING.with(|p| *p.borrow_mut() = Some(None));
    let r = f();
    let pending = PENDING.with(|p| p.borrow_mut().take()).flatten();
    let v = r?;
    match pending {
        Some(e) => Err(e),
        None => Ok(v),
    }
}

thread_local! {
    static CHECKS: std::cell::Cell<bool> = const { std::cell::Cell::new(true) };
}

/// Whether the engine checks results against the operations' definitions (on by default).
pub(crate) fn checks_on() -> bool {
    CHECKS.with(|c| c.get())
}

/// Run `f` with the definition checks off (on this thread): the operations then return what
/// CuTe's algorithm computes, even where that violates the definition. For triage and for tests
/// that the engine's algorithm reproduces CuTe's prints in the cases it refuses.
pub fn without_definition_checks<T>(f: impl FnOnce() -> T) -> T {
    let old = CHECKS.with(|c| c.replace(false));
    let r = f();
    CHECKS.with(|c| c.set(old));
    r
}

/// How an operation built from complements and compositions (the divides and products) treats
/// the definition checks of its parts.
#[derive(Clone, Copy)]
pub(crate) enum Mode<'a> {
    /// CuTe's algorithm alone.
    Unchecked,
    /// CuTe's algorithm; the flag is cleared unless every part is shown correct by the analytic
    /// certificates (`fast`). Nothing is refused in this mode.
    Certify(&'a std::cell::Cell<bool>),
    /// CuTe's algorithm, each part then checked (certificate, else brute force); a violation is
    /// refused.
    Checked,
}

/// Run CuTe's computation `f` once in [`Mode::Certify`]; when every certificate held (or the
/// checks are off) that is the result, otherwise `f` runs again in [`Mode::Checked`], which returns
/// the same layout or refuses it. Failures of the first run come in CuTe's order ([`deferred`]).
pub(crate) fn certified_or_checked<T>(f: impl Fn(Mode<'_>) -> Result<T>) -> Result<T> {
    let ok = std::cell::Cell::new(true);
    let r = deferred(|| f(Mode::Certify(&ok)))?;
    if ok.get() || !checks_on() {
        return Ok(r);
    }
    f(Mode::Checked)
}
