//! `cargo xtask repro 'EXPR'`: a standalone reproducer a CUTLASS maintainer can run without
//! cutecheck. Under `target/cutecheck/repro/<id>/` it writes
//! - `repro.cpp`: includes only CuTe, prints CuTe's result and, where the operation has one, checks
//!   the definition by brute force in C++ (composition: `R(i) == A(B(i))` over B's domain, ...)
//!   and prints `PASS` / `FAIL: ...`;
//! - `compile.sh`: the exact compile command (the oracle's compiler, flags and include dirs), then
//!   the run;
//! - `README.txt`: the case, the `cutecheck eval` line, both results, the triage verdict and what
//!   the standalone run printed.
//!
//! The C++ is generated from the parsed AST by the oracle's codegen (never from the text); `<id>`
//! is a digest of the canonical expression. The program is compiled and run once to confirm.

use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

use anyhow::{Context, Result};

use cutecheck::case::{Case, Outcome};
use cutecheck::expr::Expr;
use cutecheck::judge::Judge;
use cutecheck::known::KnownDiscrepancies;
use cutecheck::oracle::codegen::{self, Kind};
use cutecheck::oracle::compiler::run_limited;
use cutecheck::oracle::runner::static_assert_message;
use cutecheck::oracle::{sha256_hex, state_dir, Oracle, OracleArgs};

/// What the reproducer's run showed.
pub struct Repro {
    pub dir: PathBuf,
    /// `compiled`, `rejected: <static_assert>`, or `compile error`.
    pub compile: String,
    /// The program's output (CuTe's result, then PASS / FAIL / the no-check note).
    pub output: String,
}

/// The brute-force definition check in C++ for a case, over named operands `A`, `B` and the result
/// `r`; `None` when the operation has none.
fn check_code(op: &str, args: &[Expr]) -> Option<(Vec<String>, String)> {
    let ops: Vec<codegen::Cpp> = args.iter().map(codegen::expression).collect::<Result<_, _>>().ok()?;
    let lay = |k: usize| ops.get(k).filter(|c| c.kind == Kind::Layout).map(|c| c.code.clone());
    // `what` is a printf format, `vals` its arguments.
    let fail = |cond: &str, what: &str, vals: &str| {
        format!("    if ({cond}) {{ printf(\"FAIL: {what}\\n\", {vals}); return 1; }}\n")
    };
    let (decls, body) = match (op, args.len()) {
        ("composition", 2) => {
            let (a, b) = (lay(0)?, lay(1)?);
            (
                vec![format!("auto A = {a};"), format!("auto B = {b};")],
                format!(
                    "  if (int(size(r)) != int(size(B))) {{ printf(\"FAIL: size(R) != size(B)\\n\"); return 1; }}\n  for (int i = 0; i < int(size(B)); ++i) {{\n{}  }}\n  printf(\"PASS: R(i) == A(B(i)) for every i < size(B)\\n\");\n",
                    fail("int(r(i)) != int(A(B(i)))", "R(%d) = %d but A(B(%d)) = A(%d) = %d", "i, int(r(i)), i, int(B(i)), int(A(B(i)))")
                ),
            )
        }
        ("logical_divide", 2) => {
            let (a, b) = (lay(0)?, lay(1)?);
            (
                vec![format!("auto A = {a};"), format!("auto B = {b};")],
                format!(
                    "  if (int(size<0>(r)) != int(size(B))) {{ printf(\"FAIL: size(mode 0 of R) != size(B)\\n\"); return 1; }}\n  for (int i = 0; i < int(size(B)); ++i) {{\n{}  }}\n  for (int i = 0; i < int(size(r)); ++i) {{\n{}  }}\n  printf(\"PASS: R(i,0) == A(B(i)) for every i < size(B), R's image is in A's\\n\");\n",
                    fail("int(layout<0>(r)(i)) != int(A(B(i)))", "R(%d,0) = %d but A(B(%d)) = A(%d) = %d", "i, int(layout<0>(r)(i)), i, int(B(i)), int(A(B(i)))"),
                    "    bool found = false;\n    for (int j = 0; j < int(size(A)); ++j) found = found || int(A(j)) == int(r(i));\n    if (!found) { printf(\"FAIL: R(%d) is not in the image of A\\n\", i); return 1; }\n"
                ),
            )
        }
        ("coalesce", 1) => {
            let a = lay(0)?;
            (
                vec![format!("auto A = {a};")],
                format!(
                    "  if (int(size(r)) != int(size(A))) {{ printf(\"FAIL: size(R) != size(A)\\n\"); return 1; }}\n  for (int i = 0; i < int(size(A)); ++i) {{\n{}  }}\n  printf(\"PASS: R(i) == A(i) for every i < size(A)\\n\");\n",
                    fail("int(r(i)) != int(A(i))", "R(%d) = %d but A(%d) = %d", "i, int(r(i)), i, int(A(i))")
                ),
            )
        }
        ("right_inverse", 1) => {
            let a = lay(0)?;
            (
                vec![format!("auto A = {a};")],
                format!(
                    "  for (int i = 0; i < int(size(r)); ++i) {{\n{}  }}\n  printf(\"PASS: A(R(i)) == i for every i < size(R)\\n\");\n",
                    fail("int(A(r(i))) != i", "A(R(%d)) = A(%d) = %d", "i, int(r(i)), int(A(r(i)))")
                ),
            )
        }
        ("left_inverse", 1) => {
            let a = lay(0)?;
            (
                vec![format!("auto A = {a};")],
                format!(
                    "  for (int i = 0; i < int(size(A)); ++i) {{\n{}  }}\n  printf(\"PASS: R(A(i)) == i for every i < size(A)\\n\");\n",
                    fail("int(r(A(i))) != i", "R(A(%d)) = R(%d) = %d", "i, int(A(i)), int(r(A(i)))")
                ),
            )
        }
        ("complement", 1 | 2) => {
            let a = lay(0)?;
            // The cotarget: the given one (its size when a shape), else cosize(A).
            let m = match ops.get(1) {
                Some(c) => format!("int(size({}))", c.code),
                None => "int(cosize(A))".to_string(),
            };
            (
                vec![format!("auto A = {a};"), format!("int M = {m};")],
                "  for (int i = 1; i < int(size(r)); ++i) {\n    if (int(r(i - 1)) >= int(r(i))) { printf(\"FAIL: R is not ordered at %d\\n\", i); return 1; }\n  }\n  for (int i = 1; i < int(size(r)); ++i) {\n    for (int j = 0; j < int(size(A)); ++j) {\n      if (int(A(j)) == int(r(i))) { printf(\"FAIL: R(%d) = A(%d): images overlap\\n\", i, j); return 1; }\n    }\n  }\n  if (int(size(filter(A))) * int(size(r)) < M) { printf(\"FAIL: size(filter(A)) * size(R) = %d < %d: (A, R) does not cover the cotarget\\n\", int(size(filter(A))) * int(size(r)), M); return 1; }\n  printf(\"PASS: R is ordered, R(i) (i > 0) is never in the image of A, size(filter(A)) * size(R) >= cotarget\\n\");\n".to_string(),
            )
        }
        _ => return None,
    };
    Some((decls, body))
}

/// The standalone C++ of a case.
pub fn cpp_source(case: &Case) -> Result<String> {
    let (expr, e) = (&case.text, &case.expr);
    let c = codegen::expression(e).map_err(|e| anyhow::anyhow!("the oracle cannot write this case as C++: {e}"))?;
    let mut s = String::new();
    s.push_str("// Standalone reproducer written by `cargo xtask repro` (cutecheck). Needs only CuTe.\n");
    s.push_str(&format!("// Case: {expr}\n"));
    s.push_str("#include <cstdio>\n#include <cute/tensor.hpp>\nusing namespace cute;\n\nint main() {\n");
    let check = match e {
        Expr::Call { name, args, called: true, .. } => name.simple().and_then(|op| check_code(op, args)),
        _ => None,
    };
    if let Some((decls, _)) = &check {
        for d in decls {
            s.push_str(&format!("  {d}\n"));
        }
    }
    s.push_str(&format!("  auto r = {};\n  print(r);\n  printf(\"\\n\");\n", c.code));
    match check {
        Some((_, body)) => s.push_str(&body),
        None => s.push_str("  printf(\"NO-CHECK: no brute-force definition check in C++ for this operation\\n\");\n"),
    }
    s.push_str("  return 0;\n}\n");
    Ok(s)
}

fn shell_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

/// Write, compile and run the reproducer of `expr`.
pub fn make(oracle: &Oracle, judge: &Judge<'_>, case: &Case) -> Result<Repro> {
    let expr = case.text.as_str();
    let src = cpp_source(case)?;
    let id = &sha256_hex(case.expr.to_string().as_bytes())[..12];
    let dir = state_dir().join("repro").join(id);
    std::fs::create_dir_all(&dir)?;
    std::fs::write(dir.join("repro.cpp"), &src)?;
    let mut args: Vec<String> = oracle.compiler.flags.clone();
    args.push(format!("-I{}", oracle.headers.include_dir.display()));
    args.extend(oracle.cuda.include_dirs.iter().map(|d| format!("-I{}", d.display())));
    args.extend(["repro.cpp", "-o", "repro"].map(String::from));
    let cmdline = std::iter::once(oracle.compiler.program.display().to_string())
        .chain(args.iter().cloned())
        .map(|a| shell_quote(&a))
        .collect::<Vec<_>>()
        .join(" ");
    let script = format!(
        "#!/bin/sh\n# Compile and run the reproducer ({}).\nset -e\ncd \"$(dirname \"$0\")\"\n{cmdline}\n./repro\n",
        oracle.describe()
    );
    std::fs::write(dir.join("compile.sh"), &script)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(dir.join("compile.sh"), std::fs::Permissions::from_mode(0o755))?;
    }
    let mut cc = Command::new(&oracle.compiler.program);
    cc.current_dir(&dir).env("LC_ALL", "C").args(&args);
    let ran = run_limited(cc, Duration::from_secs(600)).context("compiling the reproducer")?;
    let (compile, output) = if ran.success {
        let mut run = Command::new(dir.join("repro"));
        run.current_dir(&dir);
        let r = run_limited(run, Duration::from_secs(60)).context("running the reproducer")?;
        let mut out = String::from_utf8_lossy(&r.stdout).replace('\0', "");
        if !r.success && !out.contains("FAIL") {
            let status = r.status.map_or("killed (time limit)".to_string(), |s| s.to_string());
            out.push_str(&format!("(exit: {status}; stderr: {})\n", String::from_utf8_lossy(&r.stderr).trim()));
        }
        ("compiled".to_string(), out)
    } else {
        let stderr = String::from_utf8_lossy(&ran.stderr).to_string();
        let msg =
            static_assert_message(&stderr).map(|m| format!("rejected: {m}")).unwrap_or_else(|| "compile error".into());
        let first: String = stderr.lines().filter(|l| l.contains("error")).take(3).collect::<Vec<_>>().join("\n");
        (msg, first)
    };
    // CuTe and the engine asked, and judged, by the run.
    let run = cutecheck::run::given(judge, vec![case.clone()], &[oracle], false);
    let cute = run.asked.cpp().and_then(|c| c.first().cloned().cloned());
    let cute = cute.unwrap_or_else(|| Outcome::Error("no result".into()));
    let engine = &run.asked.engines[0];
    let verdict = run.judged.cases[0].engine_cpp.clone().context("no judgement")?;
    let mut readme = String::new();
    readme.push_str(&format!("Case:     {expr}\n"));
    readme.push_str(&format!("CuTe:     {}\n", oracle.describe()));
    readme.push_str(&format!("Reproduce with cutecheck:  cutecheck eval --both {}\n", shell_quote(expr)));
    readme.push_str("Reproduce without it:      sh compile.sh   (the compile command is in it)\n\n");
    readme.push_str(&format!("CuTe prints:   {}\n", cute.lines().join(" | ")));
    readme.push_str(&format!("engine prints: {}\n", engine.outcome.lines().join(" | ")));
    readme.push_str(&format!("verdict:       {}\n", verdict.summary()));
    if let Some(t) = &verdict.triage {
        readme.push_str(&format!(
            "triage:        {} ({}): {t}\n",
            t.class(),
            t.signature(cutecheck::judge::ENGINE_CUTE)
        ));
    }
    readme.push_str(&format!("\nStandalone run ({compile}):\n{output}\n"));
    std::fs::write(dir.join("README.txt"), &readme)?;
    Ok(Repro { dir, compile, output })
}

pub fn run(args: &OracleArgs, exprs: &[String]) -> Result<bool> {
    let oracle = Oracle::new(args.options())?;
    let known = KnownDiscrepancies::load_default()?;
    let judge = Judge::for_release(&known, cutecheck::cli::version_of(args), cutecheck::cli::release_of(args));
    let mut ok = true;
    for e in exprs {
        let case = Case::parse(e, "command line").map_err(|err| anyhow::anyhow!("{e}: {err}"))?;
        let r = make(&oracle, &judge, &case)?;
        println!("{}", r.dir.display());
        print!("{}", std::fs::read_to_string(r.dir.join("README.txt"))?);
        if let Some(last) = r.output.lines().last() {
            println!("confirmed by the standalone run: {last}");
        }
        ok &= r.compile == "compiled" || r.compile.starts_with("rejected");
    }
    Ok(ok)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn source_includes_only_cute_and_checks_the_definition() {
        let src = |e: &str| cpp_source(&Case::parse(e, "test").unwrap());
        let s = src("composition((_6,_2):(_8,_2),_4:_4)").unwrap();
        let includes: Vec<&str> = s.lines().filter(|l| l.starts_with("#include")).collect();
        assert_eq!(includes, ["#include <cstdio>", "#include <cute/tensor.hpp>"]);
        assert!(s.contains("auto B = make_layout(Int<4>{}, Int<4>{});"), "{s}");
        assert!(s.contains("int(r(i)) != int(A(B(i)))"), "{s}");
        assert!(src("size(_4:_1)").unwrap().contains("NO-CHECK"));
        assert!(src("nonsense(_4:_1)").is_err());
    }
}
