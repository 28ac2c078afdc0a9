//! The engine's own results on fuzz cases satisfy the definition checks triage uses
//! (cutecheck::definition), so a blame on the engine in a conformance run is never an artefact of
//! the dispatcher; and every disagreement triage sees can be classified.

use cutecheck::definition::{check, op_name};
use cutecheck::expr::{eval, parse};
use cutecheck::fuzz::cases;
use proptest::strategy::Strategy;

#[test]
fn engine_results_satisfy_the_dispatched_definitions() {
    let mut checked = std::collections::BTreeMap::<String, usize>::new();
    // The run's own mix first, then, for an operation the mix happened not to reach (its weight is
    // small beside the atom and kernel arms), draws from that operation's own generator.
    let mix = cases(21, 1500, (0, 1)).into_iter().map(|(_, c)| c);
    let own = cutecheck::expr::Op::ALL.iter().filter_map(|&o| cutecheck::fuzz::generator(o).get().map(|(_, g)| g));
    let mut runner = cutecheck::fuzz::runner(21);
    let own: Vec<_> = own
        .flat_map(|g| {
            let s = g();
            (0..200)
                .map(|_| proptest::strategy::ValueTree::current(&s.new_tree(&mut runner).unwrap()))
                .collect::<Vec<_>>()
        })
        .collect();
    for c in mix.chain(own) {
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
