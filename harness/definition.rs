//! The definition check used by triage: operation name + operand values -> the engine module's
//! `check_postconditions` run on a printed result.
//!
//! Operands are the case's arguments evaluated by the engine (they are literals in generated
//! cases); the result is whatever one side printed, read back as a value. The check never calls
//! the operation itself, only the numbered postconditions of its definition, so it can blame the
//! engine as well as CuTe.

use crate::engine::{blocked_product, coalesce, complement, composition, filter, left_inverse, logical_divide};
use crate::engine::{logical_product, max_common, right_inverse, Layout, Tiler};
use crate::expr::builtins::algebra::to_tiler;
use crate::expr::parse::Expr;
use crate::expr::{eval, parse, Value};

/// The operations [`check`] knows a definition for.
pub const CHECKED_OPS: &[&str] = &[
    "coalesce",
    "filter",
    "composition",
    "complement",
    "right_inverse",
    "left_inverse",
    "logical_divide",
    "zipped_divide",
    "tiled_divide",
    "flat_divide",
    "logical_product",
    "zipped_product",
    "tiled_product",
    "flat_product",
    "blocked_product",
    "raked_product",
    "max_common_vector",
    "max_common_layout",
];

/// The top-level operation name of a case (`None` for a literal or an evaluation `L(c)`).
pub fn op_name(e: &Expr) -> Option<&str> {
    match e {
        Expr::Call { name, called: true, .. } => name.simple(),
        _ => None,
    }
}

/// Check `result` against the definition of the case `expr`: `None` when no definition is known
/// (unknown operation, operands the engine cannot evaluate, a result of the wrong kind),
/// `Some(Err(why))` naming the violated postcondition.
pub fn check(expr: &Expr, result: &Value) -> Option<Result<(), String>> {
    let Expr::Call { name, args, called: true, .. } = expr else { return None };
    let op = name.simple()?;
    if !CHECKED_OPS.contains(&op) {
        return None;
    }
    let vals: Vec<Value> = args.iter().map(eval).collect::<Result<_, _>>().ok()?;
    let lay = |k: usize| -> Option<Layout> { vals.get(k)?.to_layout().ok() };
    if op == "max_common_vector" {
        let n = result.to_int().ok()?;
        return Some(max_common::check_vector(&lay(0)?, &lay(1)?, n));
    }
    let r = result.to_layout().ok()?;
    let a = lay(0)?;
    Some(match (op, vals.len()) {
        ("coalesce", 1) => coalesce::check_postconditions(&a, &r),
        ("filter", 1) => filter::check_postconditions(&a, &r),
        ("composition", 2) => match &vals[1] {
            Value::Layout(b) => composition::check_postconditions(&a, b, &r),
            t => composition::check_tiler(&a, &to_tiler(t).ok()?, &r),
        },
        ("complement", 1) => complement::check_postconditions(&a, None, &r),
        ("complement", 2) => {
            let cot = match &vals[1] {
                Value::Layout(l) => l.shape.clone(),
                v => v.to_int_tuple().ok()?,
            };
            complement::check_postconditions(&a, Some(&cot), &r)
        }
        ("right_inverse", 1) => right_inverse::check_postconditions(&a, &r),
        ("left_inverse", 1) => left_inverse::check_postconditions(&a, &r),
        ("logical_divide", 2) => logical_divide::check_postconditions(&a, &to_tiler(&vals[1]).ok()?, &r),
        ("logical_product", 2) => logical_product::check_postconditions(&a, &to_tiler(&vals[1]).ok()?, &r),
        (f @ ("zipped_divide" | "tiled_divide" | "flat_divide" | "zipped_product" | "tiled_product" | "flat_product"), 2) => {
            let t = to_tiler(&vals[1]).ok()?;
            let how = &f[..f.find('_')?];
            let l = match &t {
                Tiler::Tuple(items) => unzip(&r, a.rank(), items.len(), how)?,
                // A layout tiler: zipped and tiled forms are the logical form; the flat product
                // unpacks (A, rest) into A's modes then the rest's.
                // A layout tiler: the zipped form is the logical one, (tile, rest); the tiled form
                // unpacks the rest, (tile, rest_0, rest_1, ...); the flat product unpacks both,
                // A's modes then the rest's.
                Tiler::Layout(_) | Tiler::Int(_) => {
                    let group = |m: &[Layout]| if m.len() == 1 { m[0].clone() } else { Layout::concat(m) };
                    let m = r.modes();
                    match how {
                        "zipped" => r.clone(),
                        "tiled" if m.len() >= 2 => Layout::concat(&[m[0].clone(), group(&m[1..])]),
                        "flat" if f.ends_with("product") && m.len() > a.rank() => {
                            Layout::concat(&[group(&m[..a.rank()]), group(&m[a.rank()..])])
                        }
                        _ => return None,
                    }
                }
                Tiler::Underscore => return None,
            };
            if f.ends_with("divide") {
                logical_divide::check_postconditions(&a, &t, &l)
            } else {
                logical_product::check_postconditions(&a, &t, &l)
            }
        }
        ("blocked_product", 2) => blocked_product::check_blocked(&a, &lay(1)?, &r, false),
        ("raked_product", 2) => blocked_product::check_blocked(&a, &lay(1)?, &r, true),
        ("max_common_layout", 2) => max_common::check_layout(&a, &lay(1)?, &r),
        _ => return None,
    })
}

/// Undo the regrouping of zipped / tiled / flat divides and products: rebuild the by-mode result
/// (`(tile_k, rest_k)` for the `t` tiled modes, then the untouched modes) that logical_divide /
/// logical_product would give, so their postconditions apply. `None` when `r` does not have the
/// form (the check then knows no definition for it rather than guessing).
fn unzip(r: &Layout, a_rank: usize, t: usize, how: &str) -> Option<Layout> {
    if t == 0 || t > a_rank {
        return None;
    }
    let (tiles, rests): (Vec<Layout>, Vec<Layout>) = match how {
        "zipped" if r.rank() == 2 => (r.mode(0).ok()?.modes(), r.mode(1).ok()?.modes()),
        "tiled" if r.rank() == 1 + a_rank => (r.mode(0).ok()?.modes(), r.modes()[1..].to_vec()),
        "flat" if r.rank() == t + a_rank => (r.modes()[..t].to_vec(), r.modes()[t..].to_vec()),
        _ => return None,
    };
    if tiles.len() != t || rests.len() != a_rank {
        return None;
    }
    // A regrouped mode may come wrapped in 1-tuples (`((_6,_6))`); the by-mode form has none.
    let unwrap = |mut l: Layout| {
        while l.rank() == 1 && matches!(l.shape, crate::engine::IntTuple::Tuple(_)) {
            match l.mode(0) {
                Ok(m) => l = m,
                Err(_) => break,
            }
        }
        l
    };
    let (tiles, rests): (Vec<Layout>, Vec<Layout>) =
        (tiles.into_iter().map(unwrap).collect(), rests.into_iter().map(unwrap).collect());
    let mut modes: Vec<Layout> = (0..t).map(|k| Layout::concat(&[tiles[k].clone(), rests[k].clone()])).collect();
    modes.extend(rests[t..].iter().cloned());
    Some(Layout::concat(&modes))
}

/// [`check`] on the text of a case; `None` when it does not parse.
pub fn check_str(expr: &str, result: &Value) -> Option<Result<(), String>> {
    check(&parse(expr).ok()?, result)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expr::eval_str;

    fn v(s: &str) -> Value {
        eval_str(s).unwrap()
    }

    #[test]
    fn dispatches_to_the_module_checks() {
        // CuTe 4.2 prints (_2,_2):(_32,_2) for this composition (the chapter's example; recorded
        // in fixtures/known-discrepancies.toml): R(2) = 2 but A(B(2)) = 18.
        let e = "composition((_6,_2):(_8,_2),_4:_4)";
        let r = check_str(e, &v("(_2,_2):(_32,_2)")).unwrap();
        assert!(r.is_err(), "{r:?}");
        // The chapter's table: complement(_4:_2,_24) = (_2,_3):(_1,_8), logical_divide(_24:_1,_4:_2).
        assert_eq!(check_str("complement(_4:_2,_24)", &v("(_2,_3):(_1,_8)")), Some(Ok(())));
        assert!(check_str("complement(_4:_2,_24)", &v("(_2,_3):(_1,_4)")).unwrap().is_err());
        assert_eq!(check_str("logical_divide(_24:_1,_4:_2)", &v("(_4,(_2,_3)):(_2,(_1,_8))")), Some(Ok(())));
        assert_eq!(check_str("coalesce((_2,(_1,_6)):(_1,(_6,_2)))", &v("_12:_1")), Some(Ok(())));
        assert!(check_str("coalesce((_2,(_1,_6)):(_1,(_6,_2)))", &v("_12:_2")).unwrap().is_err());
        // The chapter's zipped_divide (same output as real CuTe 4.2, see builtins::algebra tests).
        let z = "zipped_divide(make_layout((_16,_8)),(_2,_2))";
        assert_eq!(check_str(z, &v("((_2,_2),(_8,_4)):((_1,_16),(_2,_32))")), Some(Ok(())));
        assert!(check_str(z, &v("((_2,_2),(_8,_4)):((_1,_16),(_2,_16))")).unwrap().is_err());
        assert_eq!(check_str("size(_4:_1)", &v("_4")), None);
        assert_eq!(check_str("_4:_1", &v("_4:_1")), None);
    }
}
