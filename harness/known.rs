//! Known discrepancies: accepted disagreements between the engine and real CuTe, kept as data in
//! `fixtures/known-discrepancies.toml`.
//!
//! Each entry names the case (an expression), the CUTLASS versions where it reproduces, the triage
//! class it falls in and why it is accepted. A conformance run evaluates every listed case on the
//! version under test and fails on (a) a disagreement that is not listed and (b) a listed entry for
//! that version that no longer reproduces (it must then be removed or its versions narrowed).

use crate::expr::Op;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::case::Case;
use crate::engine::{coalesce, complement, Layout};
use crate::expr::{eval, parse, Expr, Value};

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Discrepancy {
    /// The case, in the expression language.
    pub expr: String,
    /// CUTLASS versions (e.g. "4.2.0.0") where this reproduces; `"*"` matches every version.
    pub versions: Vec<String>,
    /// The triage class (`same-function`, `different-function`, `one-rejects`, `cute-crashed`).
    pub class: String,
    /// Why the disagreement is accepted (also spelt `reason`): required and not blank, an entry
    /// without one is refused ([`KnownDiscrepancies::parse`]).
    #[serde(alias = "reason")]
    pub explanation: String,
    /// Optional: the family of cases this entry stands for -- every case of one of the operations
    /// `ops` whose triage signature (`triage::Verdict::signature`) equals `signature` and whose
    /// operands satisfy the family's `predicate` (a condition code checks, [`PREDICATES`]). A random
    /// case built to be admissible is never covered by a family. `expr` stays the family's
    /// reproducer and must keep reproducing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub family: Option<Family>,
    /// Where the entry is written (`FILE:line` of its `expr`), set by [`KnownDiscrepancies::load`].
    #[serde(skip)]
    pub location: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Family {
    /// The operations (one mechanism, e.g. composition and the divides and products built on it).
    pub ops: Vec<String>,
    pub signature: String,
    /// The name of the condition on the operands that defines the family ([`PREDICATES`]).
    pub predicate: String,
}

/// A family's condition on a case's operands: `true` when the case belongs to the family.
pub type Predicate = fn(&Case) -> bool;

/// The named conditions a family may state, each checked on the case's evaluated operands.
pub const PREDICATES: &[(&str, &str, Predicate)] = &[
    (
        "composition-divisibility-fails",
        "composition(A, B): walking B's leaves through coalesce(A)'s modes meets a step where neither the rest stride nor the mode's extent divides the other (the strong Stride Divisibility Condition), or the rest shape is not divisible by what is taken (Shape Divisibility Condition)",
        composition_divisibility_fails,
    ),
    (
        "left-inverse-of-non-injective",
        "left_inverse(L) of a layout L that is not injective (two coordinates with one index), walked within the walk limit",
        left_inverse_of_non_injective,
    ),
    (
        "product-carries",
        "logical_product(A, B) and the products built on it: the composition of complement(A, size(A)*cosize(B)) with B divides evenly but carries, as composition-carries",
        product_carries,
    ),
    (
        "composition-carries",
        "composition(A, B): the walk divides evenly, but two of B's leaves put digits on one mode of coalesce(A) (all but its last) whose largest values add up past its extent, so A is not additive over B(c) and no layout of B's shape equals A o B (e.g. B not injective, or overlapping A's modes)",
        composition_carries,
    ),
    (
        "divide-divisibility-fails",
        "logical_divide(A, B) and the divides built on it: the composition of A (mode by mode for a tuple tiler) with (B, complement(B, size(A))) fails a divisibility condition as above",
        divide_divisibility_fails,
    ),
    (
        "product-divisibility-fails",
        "logical_product(A, B) and the products built on it: the composition of complement(A, size(A)*cosize(B)) with B fails a divisibility condition as above",
        product_divisibility_fails,
    ),
    (
        "complement-strides-do-not-nest",
        "complement(A[, M]): among filter(A)'s modes sorted by stride, a stride is not a multiple of the previous mode's extent times stride",
        complement_strides_do_not_nest,
    ),
    (
        "complement-of-negative-stride",
        "complement(A[, M]), left_inverse(A) (the right inverse of (A, complement(A))) and the products (A's complement) of a layout A with a negative stride on a mode of extent above 1, or a divide whose tiler (B's complement) has one: CuTe's complement walks the strides as if they were positive",
        complement_of_negative_stride,
    ),
    (
        "complement-breaks-cute-definition",
        "complement(A[, M]): CuTe's algorithm (the engine's unchecked model of it) gives a result that violates one of CuTe's own conditions of complement (test/unit/cute/core/complement.cpp, e.g. its cosize upper bound (2)); conditions of ours alone never count",
        complement_breaks_cute_definition,
    ),
    (
        "left-inverse-of-dynamic-layout",
        "left_inverse(L) of a layout L with a dynamic extent or stride: before 3.9 layout.hpp states @pre is_static<Layout> and computes right_inverse(make_layout(L, complement(L))), whose chain of strides from _1 (inverse_seq) stops at the first product that is not static",
        left_inverse_of_dynamic_layout,
    ),
    (
        "inverse-of-negative-stride",
        "right_inverse(L) / left_inverse(L) of a layout L with a negative stride on a mode of extent above 1: before 3.9 the inverse follows the absolute strides (inverse_seq on abs(stride)) and multiplies the result's strides by their signum",
        inverse_of_negative_stride,
    ),
    (
        "mma-atom-breaks-definition",
        "a tiled MMA (or one of its layouts) over an MMA atom whose own traits break the atom's definition (engine::atom::definition, e.g. a BLayout that is not one-to-one onto its tile): the tiled layouts inherit the defect",
        mma_atom_breaks_definition,
    ),
    (
        "tiled-mma-thr-id-not-compact-before-4.2",
        "before 4.1 (release switch TILED_MMA_THREADS_WITH_COMPLEMENT) a tiled MMA maps thread indices with right_inverse(ThrLayoutVMNK), which covers the tile only when the atom's thread-ID layout is compact; over an atom whose ThrID is not (SM70's quad pairs, (_4,_2):(_1,_16)) its TV layouts miss elements of the tile",
        tiled_mma_thr_id_not_compact,
    ),
];

/// The predicate named `name`.
pub fn predicate(name: &str) -> Option<Predicate> {
    PREDICATES.iter().find(|(n, _, _)| *n == name).map(|(_, _, p)| *p)
}

/// The case's operands, evaluated by the engine (they are literals in generated cases).
fn operands(case: &Case) -> Option<Vec<Value>> {
    let Expr::Call { args, called: true, .. } = &case.expr else {
        return None;
    };
    args.iter().map(|a| eval(a).ok()).collect()
}

/// The (tiler element, mode of A) pairs a by-mode operation works on: a tuple tiler pairs element
/// `i` with mode `i` of A; anything else pairs the whole tiler with the whole A.
fn by_mode(a: &Layout, b: &Value) -> Vec<(Layout, Layout)> {
    let as_layout = |v: &Value| match v {
        Value::Layout(l) => Some(l.clone()),
        Value::Int(i) => Some(Layout::leaf(*i, crate::engine::Int::st(1))),
        _ => None,
    };
    match b {
        Value::Tuple(items) => {
            items.iter().enumerate().filter_map(|(i, t)| Some((a.mode(i).ok()?, as_layout(t)?))).collect()
        }
        v => as_layout(v).map(|l| vec![(a.clone(), l)]).unwrap_or_default(),
    }
}

/// Whether composing `a` with `b` meets a failing divisibility step (the walk of CuTe's
/// composition, on values; see the composition module's doc).
pub fn divisibility_fails(a: &Layout, b: &Layout) -> bool {
    walk_fails(a, b, false)
}

/// Whether composing `a` with `b` leaves CuTe's walk undefined: a failing divisibility step (as
/// [`divisibility_fails`]), or, with `carries`, two of B's leaves putting digits on one mode of
/// coalesce(A) (all but its last) whose largest values add up past that mode's extent, so that A
/// is not additive over `B(c) = sum c_k t_k` and no layout of B's shape equals A o B.
/// The walk is over A as the modelled release's composition reads it: coalesce_x(A), before 3.5
/// flatten(A) (`COMPOSITION_COALESCES_LHS`), whose uncoalesced modes can fail a step that the
/// coalesced ones pass (`tiled_divide(make_layout(((_6,_3,_5))),7)` on 3.4: 7 over `_6`).
pub fn walk_fails(a: &Layout, b: &Layout, carries: bool) -> bool {
    let ca = if crate::engine::release::COMPOSITION_COALESCES_LHS.on() {
        let Ok(ca) = coalesce::coalesce_x(a) else {
            return false;
        };
        ca
    } else {
        a.clone()
    };
    let modes: Vec<(i64, i64)> = ca.leaf_pairs().iter().map(|(n, d)| (n.value, d.value)).collect();
    let Some((_, init)) = modes.split_last() else {
        return false;
    };
    // The largest digit all of B's leaves together put on each mode of A (but the last).
    let mut used = vec![0i64; init.len()];
    for (s, t) in b.leaf_pairs() {
        let (mut s, mut t) = (s.value, t.value.abs());
        if t == 0 || s <= 1 {
            continue;
        }
        for (i, &(n, _)) in init.iter().enumerate() {
            if s <= 1 || n <= 0 {
                break;
            }
            if t % n == 0 {
                t /= n;
                continue;
            }
            if n % t != 0 {
                return true;
            }
            let take = (n / t).min(s);
            if s % take != 0 {
                return true;
            }
            used[i] = used[i].saturating_add((take - 1).saturating_mul(t));
            s /= take;
            t = 1;
        }
    }
    carries && init.iter().zip(&used).any(|(&(n, _), &u)| u >= n)
}

fn left_inverse_of_non_injective(case: &Case) -> bool {
    let Some(v) = operands(case) else { return false };
    let Some(Value::Layout(a)) = v.first() else { return false };
    if a.size().map_or(true, |n| n.value > crate::limits::WALK) {
        return false;
    }
    let Ok(mut vals) = a.values() else { return false };
    let n = vals.len();
    vals.sort_unstable();
    vals.dedup();
    vals.len() < n
}

fn composition_carries(case: &Case) -> bool {
    let Some(v) = operands(case) else { return false };
    match v.as_slice() {
        [Value::Layout(a), b] => by_mode(a, b).iter().any(|(a, b)| !divisibility_fails(a, b) && walk_fails(a, b, true)),
        _ => false,
    }
}

fn composition_divisibility_fails(case: &Case) -> bool {
    let Some(v) = operands(case) else {
        return false;
    };
    match v.as_slice() {
        [Value::Layout(a), b] => by_mode(a, b).iter().any(|(a, b)| divisibility_fails(a, b)),
        _ => false,
    }
}

fn divide_divisibility_fails(case: &Case) -> bool {
    let Some(v) = operands(case) else {
        return false;
    };
    let [Value::Layout(a), b] = v.as_slice() else {
        return false;
    };
    by_mode(a, b).iter().any(|(a, b)| {
        let Ok(size) = a.size() else { return false };
        let Ok(c) = complement::complement_unchecked(b, Some(&crate::engine::IntTuple::leaf(size))) else {
            return false;
        };
        divisibility_fails(a, &Layout::concat(&[b.clone(), c]))
    })
}

/// The (complement(A, size(A)*cosize(B)), B) pairs a product composes.
fn product_pairs(case: &Case) -> Vec<(Layout, Layout)> {
    let Some(v) = operands(case) else { return Vec::new() };
    let [Value::Layout(a), b] = v.as_slice() else { return Vec::new() };
    by_mode(a, b)
        .into_iter()
        .filter_map(|(a, b)| {
            let m = a.size().ok()?.mul(b.cosize().ok()?).ok()?;
            let c = complement::complement_unchecked(&a, Some(&crate::engine::IntTuple::leaf(m))).ok()?;
            Some((c, b))
        })
        .collect()
}

fn product_carries(case: &Case) -> bool {
    product_pairs(case).iter().any(|(a, b)| !divisibility_fails(a, b) && walk_fails(a, b, true))
}

fn product_divisibility_fails(case: &Case) -> bool {
    let Some(v) = operands(case) else {
        return false;
    };
    let [Value::Layout(a), b] = v.as_slice() else {
        return false;
    };
    by_mode(a, b).iter().any(|(a, b)| {
        let (Ok(sa), Ok(cb)) = (a.size(), b.cosize()) else {
            return false;
        };
        let Ok(m) = sa.mul(cb) else { return false };
        let Ok(c) = complement::complement_unchecked(a, Some(&crate::engine::IntTuple::leaf(m))) else {
            return false;
        };
        divisibility_fails(&c, b)
    })
}

fn complement_strides_do_not_nest(case: &Case) -> bool {
    let Some(v) = operands(case) else {
        return false;
    };
    let Some(Value::Layout(a)) = v.first() else {
        return false;
    };
    strides_do_not_nest(a)
}

/// Among `a`'s modes of extent above 1 and non-zero stride, sorted by stride, some stride is not a
/// multiple of the previous mode's extent times stride (complement's precondition fails; before
/// 3.9 left_inverse, built on complement, is then no left inverse).
pub fn strides_do_not_nest(a: &Layout) -> bool {
    let mut modes: Vec<(i64, i64)> =
        a.leaf_pairs().iter().map(|(n, d)| (n.value, d.value)).filter(|&(n, d)| n > 1 && d != 0).collect();
    modes.sort_by_key(|&(n, d)| (d, n));
    modes.windows(2).any(|w| {
        let ((n0, d0), (_, d1)) = (w[0], w[1]);
        n0.checked_mul(d0).is_some_and(|span| span != 0 && d1 % span != 0)
    })
}

/// The layout whose complement the operation takes has a negative stride on a mode of extent
/// above 1: A for complement and the products, the tiler (or a layout in a tuple tiler) for the
/// divides.
fn complement_of_negative_stride(case: &Case) -> bool {
    let Some(v) = operands(case) else {
        return false;
    };
    let negative = |x: &Value| match x {
        Value::Layout(l) => l.leaf_pairs().iter().any(|(n, d)| d.value < 0 && n.value != 1),
        _ => false,
    };
    match case.operation() {
        Some(Op::LogicalDivide | Op::ZippedDivide | Op::TiledDivide | Op::FlatDivide) => match v.get(1) {
            Some(Value::Tuple(items)) => items.iter().any(negative),
            Some(b) => negative(b),
            None => false,
        },
        _ => v.first().is_some_and(negative),
    }
}

/// A layout with a negative stride on a mode of extent above 1.
fn has_negative_stride(x: &Value) -> bool {
    matches!(x, Value::Layout(l) if l.leaf_pairs().iter().any(|(n, d)| d.value < 0 && n.value != 1))
}

fn left_inverse_of_dynamic_layout(case: &Case) -> bool {
    let Some(v) = operands(case) else { return false };
    case.operation() == Some(Op::LeftInverse)
        && matches!(v.first(), Some(Value::Layout(l)) if l.leaf_pairs().iter().any(|(n, d)| !n.is_static || !d.is_static))
}

fn inverse_of_negative_stride(case: &Case) -> bool {
    let Some(v) = operands(case) else { return false };
    matches!(case.op(), Some("left_inverse" | "right_inverse")) && v.first().is_some_and(has_negative_stride)
}

/// Whether the engine accepts the MMA atom's A, B and C layouts (its definition check, under the
/// modelled release): false for an atom whose traits break the atom's definition.
pub fn mma_atom_meets_definition(atom: &str) -> bool {
    [Op::MmaLayoutA, Op::MmaLayoutB, Op::MmaLayoutC]
        .iter()
        .all(|f| crate::expr::eval_str(&format!("{f}({atom})")).is_ok())
}

/// `true` when the engine models a release before 4.1 and `atom`'s thread-ID layout
/// (`mma_thr_id`) is not compact: then the tiled MMAs over it are built by a pre-4.1 algorithm
/// that does not cover their tile (see the predicate above). For the generator's admissibility.
pub fn mma_thr_id_not_compact_before_4_2(atom: &str) -> bool {
    !crate::engine::release::TILED_MMA_THREADS_WITH_COMPLEMENT.on() && mma_thr_id_not_compact(atom)
}

/// `true` when `atom`'s thread-ID layout (`mma_thr_id`) is not compact (its cosize exceeds its
/// size). The family's entries name the releases (before 4.1) where that breaks tiled MMAs.
fn mma_thr_id_not_compact(atom: &str) -> bool {
    match crate::expr::eval_str(&format!("mma_thr_id({atom})")).map(|v| v.to_layout()) {
        Ok(Ok(l)) => matches!((l.size(), l.cosize()), (Ok(s), Ok(c)) if c.value > s.value),
        _ => false,
    }
}

fn tiled_mma_thr_id_not_compact(case: &Case) -> bool {
    let Expr::Call { args, called: true, .. } = &case.expr else { return false };
    case.op().is_some_and(|o| o.starts_with("tiled_mma"))
        && args.first().is_some_and(|a| mma_thr_id_not_compact(&a.to_string()))
}

fn mma_atom_breaks_definition(case: &Case) -> bool {
    let Expr::Call { args, called: true, .. } = &case.expr else { return false };
    case.op().is_some_and(|o| o.starts_with("tiled_mma"))
        && args.first().is_some_and(|a| !mma_atom_meets_definition(&a.to_string()))
}

fn complement_breaks_cute_definition(case: &Case) -> bool {
    let Some(v) = operands(case) else {
        return false;
    };
    let Some(Value::Layout(a)) = v.first() else {
        return false;
    };
    let cot = match v.get(1) {
        None => None,
        Some(Value::Layout(l)) => Some(l.shape.clone()),
        Some(x) => match x.to_int_tuple() {
            Ok(t) => Some(t),
            Err(_) => return false,
        },
    };
    let Ok(r) = crate::engine::complement::complement_unchecked(a, cot.as_deref()) else {
        return false;
    };
    crate::engine::complement::check_postconditions(a, cot.as_deref(), &r).is_err_and(|e| e.is_cute())
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct KnownDiscrepancies {
    #[serde(default, rename = "discrepancy")]
    pub entries: Vec<Discrepancy>,
    /// Each entry's expression, parsed once at load, in canonical form (the lookup key).
    #[serde(skip)]
    canonical: Vec<String>,
    /// The hash of each canonical form (see [`canonical_hash`]) to the entries that have it: a
    /// lookup hashes the case's printed expression without building it (the dynamic path looks up
    /// every disagreeing case) and compares text only on a hit.
    #[serde(skip)]
    index: std::collections::HashMap<u64, Vec<usize>>,
}

/// The hash of `e`'s canonical (printed) form, computed as it prints: no string is built.
fn canonical_hash(e: &impl std::fmt::Display) -> u64 {
    use std::hash::Hasher;
    struct Feed(std::collections::hash_map::DefaultHasher);
    impl std::fmt::Write for Feed {
        fn write_str(&mut self, s: &str) -> std::fmt::Result {
            self.0.write(s.as_bytes());
            Ok(())
        }
    }
    let mut f = Feed(std::collections::hash_map::DefaultHasher::new());
    // Writing into a hasher cannot fail.
    let _ = std::fmt::write(&mut f, format_args!("{e}"));
    f.0.finish()
}

impl Discrepancy {
    pub fn applies_to(&self, version: &str) -> bool {
        self.versions.iter().any(|v| v == "*" || v == version)
    }
}

impl KnownDiscrepancies {
    pub fn load(path: &Path) -> anyhow::Result<Self> {
        let text = std::fs::read_to_string(path).map_err(|e| anyhow::anyhow!("cannot read {}: {e}", path.display()))?;
        let shown = path.strip_prefix(crate::paths::repo_root()).unwrap_or(path);
        Self::parse_at(&text, &shown.display().to_string()).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))
    }

    /// [`parse`](Self::parse), each entry located at `file:line` of its `expr = ` line.
    pub fn parse_at(text: &str, file: &str) -> anyhow::Result<Self> {
        let mut k = Self::parse(text)?;
        let expr_lines: Vec<usize> = text
            .lines()
            .enumerate()
            .filter(|(_, l)| l.trim_start().starts_with("expr") && l.contains('='))
            .map(|(i, _)| i + 1)
            .collect();
        for (i, d) in k.entries.iter_mut().enumerate() {
            d.location = match expr_lines.get(i) {
                Some(line) if expr_lines.len() == k.canonical.len() => format!("{file}:{line}"),
                _ => file.to_string(),
            };
        }
        Ok(k)
    }

    /// The project's list and the user's (`--known FILE`) as one list; the user's entries keep
    /// their locations.
    pub fn extend(&mut self, other: KnownDiscrepancies) {
        self.entries.extend(other.entries);
        self.canonical.extend(other.canonical);
        self.reindex();
    }

    fn reindex(&mut self) {
        self.index.clear();
        for (i, c) in self.canonical.iter().enumerate() {
            self.index.entry(canonical_hash(c)).or_default().push(i);
        }
    }

    /// The project's list, fixtures/known-discrepancies.toml (empty when the file is absent).
    pub fn load_default() -> anyhow::Result<Self> {
        let path = crate::paths::repo_root().join("fixtures").join("known-discrepancies.toml");
        if path.is_file() {
            Self::load(&path)
        } else {
            Ok(Self::default())
        }
    }

    pub fn parse(text: &str) -> anyhow::Result<Self> {
        let mut k: KnownDiscrepancies = toml::from_str(text)?;
        for d in &k.entries {
            let e = parse(&d.expr).map_err(|e| anyhow::anyhow!("entry `{}`: {e}", d.expr))?;
            if d.versions.is_empty() {
                anyhow::bail!("entry `{}` lists no versions", d.expr);
            }
            if d.explanation.trim().is_empty() {
                anyhow::bail!(
                    "entry `{}` gives no reason: an accepted discrepancy says why it is accepted (explanation = \"...\")",
                    d.expr
                );
            }
            if let Some(f) = &d.family {
                if predicate(&f.predicate).is_none() {
                    let names: Vec<&str> = PREDICATES.iter().map(|p| p.0).collect();
                    anyhow::bail!(
                        "entry `{}`: unknown family predicate `{}` (known: {})",
                        d.expr,
                        f.predicate,
                        names.join(", ")
                    );
                }
            }
            k.canonical.push(e.to_string());
        }
        k.reindex();
        Ok(k)
    }

    /// The entry for the parsed expression `expr` on `version`, if listed.
    pub fn lookup(&self, expr: &Expr, version: &str) -> Option<&Discrepancy> {
        let hits = self.index.get(&canonical_hash(expr))?;
        let key = expr.to_string();
        hits.iter()
            .find(|&&i| self.entries[i].applies_to(version) && self.canonical[i] == key)
            .map(|&i| &self.entries[i])
    }

    /// The entry whose family covers `case`: its operation is one of the family's, its triage
    /// signature is the family's, and the family's predicate holds on its operands.
    pub fn lookup_family(&self, case: &Case, signature: &str, version: &str) -> Option<&Discrepancy> {
        let op = case.op()?;
        self.entries.iter().find(|d| {
            d.applies_to(version)
                && d.family.as_ref().is_some_and(|f| {
                    f.ops.iter().any(|o| o == op)
                        && f.signature == signature
                        && predicate(&f.predicate).is_some_and(|p| p(case))
                })
        })
    }

    /// The entries that apply to `version` (all of them are re-run by a conformance run).
    pub fn for_version<'a>(&'a self, version: &'a str) -> impl Iterator<Item = &'a Discrepancy> + 'a {
        self.entries.iter().filter(move |d| d.applies_to(version))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn case(s: &str) -> Case {
        Case::parse(s, "test").unwrap()
    }

    #[test]
    fn lookup_is_whitespace_insensitive_and_versioned() {
        let k = KnownDiscrepancies::parse(
            r#"
            [[discrepancy]]
            expr = "composition((_6,_2):(_8,_2), _4:_4)"
            versions = ["4.2.0.0"]
            class = "one-rejects"
            explanation = "CuTe accepts an undefined composition"
            "#,
        )
        .unwrap();
        assert!(k.lookup(&case("composition( (_6,_2):(_8,_2),_4:_4 )").expr, "4.2.0.0").is_some());
        assert!(k.lookup(&case("composition((_6,_2):(_8,_2),_4:_4)").expr, "3.8.0.0").is_none());
        assert!(KnownDiscrepancies::parse(
            "[[discrepancy]]\nexpr = \"((\"\nversions=[\"*\"]\nclass=\"x\"\nexplanation=\"\""
        )
        .is_err());
    }

    /// An accepted discrepancy needs a reason: an entry without `explanation` (or `reason`), or
    /// with a blank one, is refused; the user's list says where.
    #[test]
    fn an_entry_without_a_reason_is_refused() {
        let entry = |reason: &str| {
            format!(
                "[[discrepancy]]\nexpr = \"coalesce(_2:_1)\"\nversions = [\"*\"]\nclass = \"one-rejects\"\n{reason}"
            )
        };
        let missing = format!("{:#}", KnownDiscrepancies::parse(&entry("")).unwrap_err());
        assert!(missing.contains("missing field `explanation`"), "{missing}");
        for blank in ["explanation = \"\"\n", "explanation = \"  \"\n", "reason = \"\"\n"] {
            let e = format!("{:#}", KnownDiscrepancies::parse(&entry(blank)).unwrap_err());
            assert!(e.contains("entry `coalesce(_2:_1)` gives no reason"), "{blank}: {e}");
        }
        let k = KnownDiscrepancies::parse(&entry("reason = \"CuTe 4.2 prints it so; our kernels never use it\"\n"))
            .unwrap();
        assert_eq!(k.entries[0].explanation, "CuTe 4.2 prints it so; our kernels never use it");
        // A user's file: the error names it.
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("known.toml");
        std::fs::write(&f, entry("explanation = \"\"\n")).unwrap();
        let e = format!("{:#}", KnownDiscrepancies::load(&f).unwrap_err());
        assert!(e.starts_with(&format!("{}: ", f.display())) && e.contains("gives no reason"), "{e}");
        // The project's own list: every entry has one.
        let project = KnownDiscrepancies::load_default().unwrap();
        assert!(project.entries.iter().all(|d| !d.explanation.trim().is_empty()));
    }

    #[test]
    fn families_need_a_known_predicate_that_holds() {
        let entry = |pred: &str| {
            format!(
                "[[discrepancy]]\nexpr = \"composition((_6,_2):(_8,_2),_4:_4)\"\nversions = [\"*\"]\nclass = \"one-rejects\"\nexplanation = \"x\"\nfamily = {{ ops = [\"composition\"], signature = \"one-rejects:engine-rejects:accepted-wrong\", predicate = \"{pred}\" }}\n"
            )
        };
        assert!(KnownDiscrepancies::parse(&entry("no-such-predicate")).is_err());
        let f = KnownDiscrepancies::parse(&entry("composition-divisibility-fails")).unwrap();
        let sig = "one-rejects:engine-rejects:accepted-wrong";
        // The weak stride condition holds (4 < 6), the strong one fails (4 does not divide 6).
        assert!(f.lookup_family(&case("composition((_6,_2):(_8,_2),_4:_4)"), sig, "3.8.0.0").is_some());
        // A composition whose walk divides evenly is not in the family, whatever its signature.
        assert!(f.lookup_family(&case("composition((_6,_2):(_8,_2),_3:_2)"), sig, "3.8.0.0").is_none());
        assert!(f.lookup_family(&case("composition((_6,_2):(_8,_2),_4:_4)"), "cute-crashed", "3.8.0.0").is_none());
    }

    #[test]
    fn the_predicates_on_examples() {
        let holds = |name: &str, e: &str| predicate(name).unwrap()(&case(e));
        // B's leaves 2:1 and 4:1 both land on A's first mode (extent 4): 1 + 3 carries into the next.
        let carry = "composition((4,2):(2,1),((2,4,1),(1,1)):((1,1,8),(2,4)))";
        assert!(holds("composition-carries", carry) && !holds("composition-divisibility-fails", carry));
        assert!(!holds("composition-carries", "composition((_4,_8):(_1,_4),(_2,_4):(_2,_8))"));
        assert!(!holds("composition-carries", "composition((_6,_2):(_8,_2),_4:_4)"));
        assert!(holds("left-inverse-of-non-injective", "left_inverse(((_1,_2,_2,_1)):((_0,_1,_1,_0)))"));
        assert!(!holds("left-inverse-of-non-injective", "left_inverse((_2,_4):(_1,_2))"));
        assert!(holds("composition-divisibility-fails", "composition((_6,_2):(_8,_2),_4:_4)"));
        assert!(holds("composition-divisibility-fails", "composition((4,8):(1,4),(_3,_2):(_1,_3))"));
        assert!(!holds("composition-divisibility-fails", "composition((_4,_8):(_1,_4),(_2,_4):(_2,_8))"));
        assert!(holds("divide-divisibility-fails", "logical_divide((4,8):(1,4),_2:_13)"));
        assert!(!holds("divide-divisibility-fails", "logical_divide(_24:_1,_4:_2)"));
        // Before 3.5 composition walks flatten(A): 7 does not divide A's first mode _6.
        let td = "tiled_divide(make_layout(((_6,_3,_5))),7)";
        assert!(!holds("divide-divisibility-fails", td), "coalesced, A is 90:_1");
        let v34 = crate::engine::release::Release::new(3, 4, 0, 0);
        assert!(crate::engine::release::with_release(v34, || holds("divide-divisibility-fails", td)));
        assert!(holds("product-divisibility-fails", "logical_product(1:3,((_1,_4)):((_4,_4)))"));
        assert!(!holds("product-divisibility-fails", "logical_product((_2,_2):(_1,_2),_3:_1)"));
        assert!(holds("complement-strides-do-not-nest", "complement(((_1,_2,_2)):((_0,_1,_3)))"));
        assert!(holds("complement-strides-do-not-nest", "complement((_4,_6):(_1,_6))"));
        assert!(!holds("complement-strides-do-not-nest", "complement((_4,_6):(_1,_4))"));
        assert!(!holds("complement-strides-do-not-nest", "complement(_4:_2,_24)"));
        // Before 3.9: left_inverse of dynamic layouts, inverses of reversed views.
        assert!(holds("left-inverse-of-dynamic-layout", "left_inverse(21:1)"));
        assert!(holds("left-inverse-of-dynamic-layout", "left_inverse((_4,2):(_1,_4))"));
        assert!(!holds("left-inverse-of-dynamic-layout", "left_inverse((_4,_2):(_1,_4))"));
        assert!(!holds("left-inverse-of-dynamic-layout", "right_inverse(21:1)"));
        assert!(holds("inverse-of-negative-stride", "right_inverse((_4,_2):(_-1,_4))"));
        assert!(holds("inverse-of-negative-stride", "left_inverse((_2,_16):(_-1,_2))"));
        assert!(!holds("inverse-of-negative-stride", "right_inverse((_1,_4):(_-1,_1))"));
        assert!(!holds("inverse-of-negative-stride", "complement((_4,_2):(_-1,_4))"));
        assert!(holds("mma-atom-breaks-definition", "tiled_mma_tv_b(SM80_16x8x32_S32S4U4S32_TN_SATURATE,(_2,_2,_1))"));
        assert!(!holds("mma-atom-breaks-definition", "tiled_mma_tv_b(SM80_16x8x16_F32F16F16F32_TN,(_2,_2,_1))"));
        let sm70 = "tiled_mma_tv_a(SM70_8x8x4_F16F16F16F16_TN,(_1,_1,_1),(_8,_,_4))";
        assert!(holds("tiled-mma-thr-id-not-compact-before-4.2", sm70));
        assert!(!holds(
            "tiled-mma-thr-id-not-compact-before-4.2",
            "tiled_mma_tv_a(SM80_16x8x16_F32F16F16F32_TN,(_2,_2,_1))"
        ));
        // Admissible for the generator on 4.2 (built through the complement), not before.
        assert!(!mma_thr_id_not_compact_before_4_2("SM70_8x8x4_F16F16F16F16_TN"));
        let v38 = crate::engine::release::Release::new(3, 8, 0, 0);
        assert!(crate::engine::release::with_release(v38, || mma_thr_id_not_compact_before_4_2(
            "SM70_8x8x4_F16F16F16F16_TN"
        )));
    }
}
