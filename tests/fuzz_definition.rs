//! The engine's own results on fuzz cases satisfy the definition checks triage uses
//! (cutecheck::definition), so a blame on the engine in a conformance run is never an artefact of
//! the dispatcher; and every disagreement triage sees can be classified.

use cutecheck::definition::{check, op_name};
use cutecheck::expr::{eval, parse};
use cutecheck::fuzz::cases;

#[test]
fn engine_results_satisfy_the_dispatched_definitions() {
    let mut checked = std::collections::BTreeMap::<String, usize>::new();
    for (_, c) in cases(21, 1500, (0, 1)) {
        let e = parse(&c.expr).unwrap();
        let Ok(v) = eval(&e) else { continue };
        if let Some(r) = check(&e, &v) {
            // Ill-defined operands (e.g. left_inverse of a non-injective layout) may give results
            // outside the definition, on both sides; admissible ones never do.
            if !c.admissible {
                continue;
            }
            assert_eq!(r, Ok(()), "{} = {v}", c.expr);
            *checked.entry(op_name(&e).unwrap().to_string()).or_default() += 1;
        }
    }
    // Every operation with both a definition check and a generator is generated and checked here.
    let both = |&&o: &&cutecheck::expr::Op| {
        cutecheck::definition::checker(o).get().is_some() && cutecheck::fuzz::generator(o).get().is_some()
    };
    for op in cutecheck::expr::Op::ALL.iter().filter(both) {
        assert!(checked.get(op.name()).copied().unwrap_or(0) > 0, "no {op} case was checked: {checked:?}");
    }
}
