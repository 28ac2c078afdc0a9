//! The Action (action.yml) run as a GitHub runner runs a composite action, here, without GitHub:
//! a local emulation, not a runner. Each step of `runs.steps` in order: `${{ inputs.X }}`,
//! `${{ github.action_path }}`, `${{ github.run_id }}` and `${{ steps.ID.outputs.K }}` expanded in
//! `env:`, `with:` and `working-directory:` (any other expression fails the emulation, and
//! tests/ci_workflow.rs checks no `run:` script holds one); a `run:` step written to a file and run
//! as the runner runs `shell: bash` (`bash --noprofile --norc -eo pipefail FILE`) in the
//! working directory (default: the workspace) with the runner's variables (`GITHUB_WORKSPACE`,
//! `GITHUB_ACTION_PATH`, `GITHUB_OUTPUT` and `GITHUB_STEP_SUMMARY` fresh per step, `GITHUB_PATH`,
//! `GITHUB_ENV`, `RUNNER_TEMP`, `RUNNER_OS`, `GITHUB_ACTIONS`, `CI`); `GITHUB_OUTPUT` is read back
//! into the step's outputs, the step summaries are concatenated, and `::error`/`::warning` lines
//! of the log are the annotations. A `uses:` step (actions/cache) is not run: a cache miss, which
//! is the cold first run. What is not emulated: the runner's image, `GITHUB_PATH` and `GITHUB_ENV`
//! taking effect in later steps, and the Action's outputs seen by the caller (the test reads the
//! step's outputs directly). nektos/act, which runs workflows in Docker images, could not stand in
//! for this on the machines this was written on: no Docker daemon runs there, act is not packaged
//! in the registries they reach (the npm wrapper `@kie/act-js` fetches act's binary from GitHub at
//! install), and Docker Hub's runner images are out of reach.
//!
//! The user's repository is a temporary directory with a case file and a known list (from
//! examples/ci/, plus one entry this user accepted that no longer reproduces); the Action runs on
//! the pinned PyPI release 4.2.0.0. It needs real CuTe: it runs under `cargo xtask test`
//! (`CUTECHECK_CUTE` set at build time) and is reported as ignored, with the reason, otherwise
//! (`--ignored` runs it anyway). `CUTECHECK_ACTION_OUT=DIR` keeps the step summary, the annotations and the log there.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use cutecheck::oracle::repo_root;
use serde_yaml_ng::Value;

/// What one emulated run of the Action gave.
struct ActionRun {
    /// The exit status of the step that failed, or 0.
    status: i32,
    /// Every step summary, in step order.
    summary: String,
    /// `::error ...` and `::warning ...` lines of the log.
    annotations: Vec<String>,
    /// The steps' outputs, by step id.
    outputs: BTreeMap<String, BTreeMap<String, String>>,
    /// Every step's stdout and stderr.
    log: String,
    /// RUNNER_TEMP, kept while the run's files are read.
    _temp: tempfile::TempDir,
}

/// `${{ ... }}` expressions of `s` replaced by their values.
fn expand(
    s: &str,
    inputs: &BTreeMap<String, String>,
    action_path: &Path,
    outputs: &BTreeMap<String, BTreeMap<String, String>>,
) -> String {
    let mut out = String::new();
    let mut rest = s;
    while let Some(i) = rest.find("${{") {
        out.push_str(&rest[..i]);
        let end = rest[i..].find("}}").unwrap_or_else(|| panic!("action.yml: unclosed expression in {s:?}"));
        let expr = rest[i + 3..i + end].trim();
        let value = if let Some(name) = expr.strip_prefix("inputs.") {
            inputs.get(name).cloned().unwrap_or_else(|| panic!("action.yml: input {name} is not declared"))
        } else if expr == "github.action_path" {
            action_path.display().to_string()
        } else if expr == "github.run_id" {
            "4242".to_string()
        } else if let Some(path) = expr.strip_prefix("steps.") {
            let (id, key) = path.split_once(".outputs.").unwrap_or_else(|| panic!("action.yml: {expr}"));
            outputs.get(id).and_then(|o| o.get(key)).cloned().unwrap_or_default()
        } else {
            panic!("action.yml: the emulation does not know the expression {expr:?}")
        };
        out.push_str(&value);
        rest = &rest[i + end + 2..];
    }
    out.push_str(rest);
    out
}

/// `NAME=VALUE` lines and `NAME<<DELIM` blocks of a `GITHUB_OUTPUT` file.
fn read_outputs(text: &str) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let mut lines = text.lines();
    while let Some(l) = lines.next() {
        if let Some((k, delim)) = l.split_once("<<") {
            let v: Vec<&str> = lines.by_ref().take_while(|x| *x != delim).collect();
            out.insert(k.to_string(), v.join("\n"));
        } else if let Some((k, v)) = l.split_once('=') {
            out.insert(k.to_string(), v.to_string());
        }
    }
    out
}

/// Run action.yml's steps with `with` as a runner would, in `workspace`.
fn run_action(workspace: &Path, with: &[(&str, &str)]) -> ActionRun {
    let action_path = repo_root();
    let text = std::fs::read_to_string(action_path.join("action.yml")).expect("action.yml");
    let action: Value = serde_yaml_ng::from_str(&text).expect("action.yml is YAML");
    assert_eq!(action["runs"]["using"].as_str(), Some("composite"));
    let mut inputs = BTreeMap::new();
    for (k, v) in action["inputs"].as_mapping().expect("inputs") {
        let k = k.as_str().expect("input name").to_string();
        inputs.insert(k, v["default"].as_str().unwrap_or("").to_string());
    }
    for (k, v) in with {
        assert!(inputs.contains_key(*k), "with: {k} is not an input of action.yml");
        inputs.insert(k.to_string(), v.to_string());
    }
    let mut run = ActionRun {
        status: 0,
        summary: String::new(),
        annotations: Vec::new(),
        outputs: BTreeMap::new(),
        log: String::new(),
        _temp: tempfile::tempdir().expect("RUNNER_TEMP"),
    };
    let runner_temp = run._temp.path().to_path_buf();
    let runner_temp = runner_temp.as_path();
    for (n, step) in action["runs"]["steps"].as_sequence().expect("steps").iter().enumerate() {
        let name = step["name"].as_str().unwrap_or("(unnamed)");
        if let Some(uses) = step["uses"].as_str() {
            // with: is expanded (so an unknown expression still fails), then the step is a miss.
            for (_, v) in step["with"].as_mapping().into_iter().flatten() {
                expand(v.as_str().unwrap_or(""), &inputs, &action_path, &run.outputs);
            }
            run.log.push_str(&format!("== step {n}: {name}: `uses: {uses}` not run (a cache miss)\n"));
            continue;
        }
        let script = step["run"].as_str().unwrap_or_else(|| panic!("step {name}: neither run nor uses"));
        assert_eq!(step["shell"].as_str(), Some("bash"), "step {name}: a composite step names its shell");
        let dir = match step["working-directory"].as_str() {
            Some(d) => PathBuf::from(expand(d, &inputs, &action_path, &run.outputs)),
            None => workspace.to_path_buf(),
        };
        let file = runner_temp.join(format!("step{n}.sh"));
        std::fs::write(&file, script).unwrap();
        let output = runner_temp.join(format!("output{n}"));
        let summary = runner_temp.join(format!("summary{n}"));
        for f in [&output, &summary] {
            std::fs::write(f, "").unwrap();
        }
        let mut cmd = Command::new("bash");
        cmd.args(["--noprofile", "--norc", "-eo", "pipefail"]).arg(&file).current_dir(&dir);
        for (k, v) in step["env"].as_mapping().into_iter().flatten() {
            let v = expand(v.as_str().unwrap_or(""), &inputs, &action_path, &run.outputs);
            cmd.env(k.as_str().expect("env name"), v);
        }
        cmd.env("GITHUB_ACTIONS", "true")
            .env("CI", "true")
            .env("GITHUB_WORKSPACE", workspace)
            .env("GITHUB_ACTION_PATH", &action_path)
            .env("GITHUB_RUN_ID", "4242")
            .env("GITHUB_OUTPUT", &output)
            .env("GITHUB_STEP_SUMMARY", &summary)
            .env("GITHUB_PATH", runner_temp.join("path"))
            .env("GITHUB_ENV", runner_temp.join("env"))
            .env("RUNNER_TEMP", runner_temp)
            .env("RUNNER_OS", "Linux");
        let out = cmd.output().unwrap_or_else(|e| panic!("step {name}: bash: {e}"));
        let log = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
        run.annotations
            .extend(log.lines().filter(|l| l.starts_with("::error") || l.starts_with("::warning")).map(str::to_string));
        run.log.push_str(&format!("== step {n}: {name} (exit {:?})\n{log}", out.status.code()));
        if let Some(id) = step["id"].as_str() {
            run.outputs.insert(id.to_string(), read_outputs(&std::fs::read_to_string(&output).unwrap()));
        }
        run.summary.push_str(&std::fs::read_to_string(&summary).unwrap());
        if !out.status.success() {
            run.status = out.status.code().unwrap_or(-1);
            break;
        }
    }
    run
}

#[test]
fn outputs_and_expressions_are_read_as_the_runner_reads_them() {
    let o = read_outputs("junit=/t/j.xml\nreport<<EOF\na\nb\nEOF\nx=1=2\n");
    assert_eq!(o["junit"], "/t/j.xml");
    assert_eq!(o["report"], "a\nb");
    assert_eq!(o["x"], "1=2");
    let inputs: BTreeMap<String, String> = [("seed".to_string(), "7".to_string())].into();
    let outputs: BTreeMap<_, _> = [("key".to_string(), [("key".to_string(), "k1".to_string())].into())].into();
    assert_eq!(
        expand(
            "${{ inputs.seed }}-${{github.action_path}}/${{ steps.key.outputs.key }}",
            &inputs,
            Path::new("/a"),
            &outputs
        ),
        "7-/a/k1"
    );
    assert!(std::panic::catch_unwind(|| expand("${{ secrets.X }}", &inputs, Path::new("/a"), &outputs)).is_err());
}

#[test]
#[cfg_attr(
    not(cutecheck_cute),
    ignore = "needs real CuTe: run `cargo xtask test` (provisions CUTLASS 4.2 and sets CUTECHECK_CUTE), or this test with --ignored"
)]
fn the_action_runs_on_a_users_repository_with_their_cases_and_known_list() {
    // The user's repository: examples/ci's case file, and its known list with one more entry this
    // user once accepted that no longer disagrees (so the run fails, at that line).
    let ws = tempfile::tempdir().unwrap();
    let ci = ws.path().join("ci");
    std::fs::create_dir_all(&ci).unwrap();
    let examples = repo_root().join("examples/ci");
    std::fs::copy(examples.join("kernel.cases"), ci.join("kernel.cases")).unwrap();
    let mut known = std::fs::read_to_string(examples.join("known.toml")).unwrap();
    let stale_line = known.lines().count() + 3;
    known.push_str(
        "\n[[discrepancy]]\nexpr = \"coalesce((_8,_4):(_1,_8))\"\nversions = [\"4.2.0.0\"]\nclass = \"one-rejects\"\nexplanation = \"once accepted; CuTe and the engine agree on it\"\n",
    );
    std::fs::write(ci.join("known.toml"), &known).unwrap();
    assert!(known.lines().nth(stale_line - 1).unwrap().starts_with("expr = \"coalesce"), "{known}");
    let with = [
        ("cutlass-version", "4.2.0.0"),
        ("case-file", "ci/kernel.cases"),
        ("known", "ci/known.toml"),
        ("seed", "1"),
        ("cases", "20"),
        ("jobs", "2"),
    ];
    let run = run_action(ws.path(), &with);
    // What GitHub would show: the step summary (the job's summary page) and the annotations (the
    // marks on the files' lines), printed here (`--nocapture` shows them) and, with
    // CUTECHECK_ACTION_OUT=DIR, kept (docs/action-run/ is one such run's, written by this test).
    println!("== step summary ==\n{}\n== annotations ==\n{}", run.summary, run.annotations.join("\n"));
    if let Some(d) = std::env::var_os("CUTECHECK_ACTION_OUT") {
        let d = PathBuf::from(d);
        std::fs::create_dir_all(&d).unwrap();
        let inputs: Vec<String> = with.iter().map(|(k, v)| format!("{k}: {v}")).collect();
        let head = format!(
            "<!-- Written by tests/action_emulation.rs (CUTECHECK_ACTION_OUT): the step summary the Action wrote on a user's repository (ci/kernel.cases, ci/known.toml) with {} -->\n",
            inputs.join(", ")
        );
        std::fs::write(d.join("step-summary.md"), head + &run.summary).unwrap();
        std::fs::write(d.join("annotations.txt"), run.annotations.join("\n") + "\n").unwrap();
        // The log names this machine's paths: kept beside, not in docs.
        if std::env::var_os("CUTECHECK_ACTION_LOG").is_some() {
            std::fs::write(d.join("log.txt"), &run.log).unwrap();
        }
    }
    let log = &run.log;
    // The stale entry fails the step (exit 1), and nothing else does.
    assert_eq!(run.status, 1, "{log}");
    assert!(run.summary.starts_with("## cutecheck conformance: FAIL\n"), "{}\n{log}", run.summary);
    assert!(
        run.summary.contains(&format!("| STALE | ci/known.toml:{stale_line} | `coalesce((_8,_4):(_1,_8))` |")),
        "{}",
        run.summary
    );
    assert!(run.summary.contains("cargo xtask repro 'coalesce((_8,_4):(_1,_8))'"), "{}", run.summary);
    assert_eq!(
        run.summary.matches("\n| STALE |").count() + run.summary.matches("\n| NEW |").count(),
        1,
        "{}",
        run.summary
    );
    // One annotation, an error at the known list's line of the stale entry, as GitHub names it.
    assert_eq!(
        run.annotations.iter().map(|a| a.split("::").nth(1).unwrap_or("")).collect::<Vec<_>>(),
        vec![format!("error file=ci/known.toml,line={stale_line}")],
        "{:?}\n{log}",
        run.annotations
    );
    // The user's cases ran at their lines (the agreeing ones too), and the user's own accepted
    // entry explained its case.
    let outputs = &run.outputs["conformance"];
    let junit = std::fs::read_to_string(&outputs["junit"]).expect("the junit output names a file");
    assert!(junit.contains("ci/kernel.cases:5 coalesce((_8,_4):(_1,_8))"), "{junit}");
    let report = std::fs::read_to_string(&outputs["report"]).expect("the report output names a file");
    assert!(report.contains("complement(1:4)"), "{report}");
    // The pictures' folder is an output, beside the report; no NEW case printed two layouts here,
    // so it holds no picture (report::picture; tests/disagreement_pictures.rs draws a real one).
    let pictures = PathBuf::from(&outputs["pictures"]);
    assert_eq!(pictures.parent(), PathBuf::from(&outputs["report"]).parent(), "{outputs:?}");
    assert!(pictures.ends_with("disagreements"), "{outputs:?}");
    let drawn = std::fs::read_dir(&pictures).map(|d| d.count()).unwrap_or(0);
    assert_eq!(drawn, 0, "pictures of a run without a NEW disagreement");
    // The summary line closes the log; the cache key was computed from Cargo.lock and the pins.
    assert!(log.lines().any(|l| l.starts_with("FAIL: ") && l.contains("1 STALE")), "{log}");
    assert!(run.outputs["key"]["key"].starts_with("cutecheck-Linux-"), "{:?}", run.outputs);
}

/// README's copy of the step summary and the annotation is what the emulated run wrote into
/// docs/action-run/ (not written by hand).
#[test]
fn the_readme_shows_the_recorded_run() {
    let root = repo_root();
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let summary = std::fs::read_to_string(root.join("docs/action-run/step-summary.md")).unwrap();
    let (head, body) = summary.split_once('\n').unwrap();
    assert!(head.starts_with("<!-- Written by tests/action_emulation.rs"), "{head}");
    assert!(
        readme.contains(&format!("```markdown\n{}```", body.trim_end_matches('\n').to_string() + "\n")),
        "README's step summary is not docs/action-run/step-summary.md's"
    );
    let annotations = std::fs::read_to_string(root.join("docs/action-run/annotations.txt")).unwrap();
    assert!(annotations.starts_with("::error file=ci/known.toml,line="), "{annotations}");
    assert!(
        readme.contains(&format!("```text\n{annotations}```")),
        "README's annotation is not docs/action-run/annotations.txt's"
    );
}

/// A copy of `include` whose cutlass/version.h says 4.2.0 (a fork that bumped its version and
/// not its CuTe; as tests/disagreement_pictures.rs).
fn relabelled_as_4_2(include: &Path, to: &Path) {
    let status = Command::new("cp").arg("-r").arg(include).arg(to.join("include")).status().unwrap();
    assert!(status.success());
    let vh = to.join("include/cutlass/version.h");
    let text = std::fs::read_to_string(&vh).unwrap();
    let relabelled: String = text
        .lines()
        .map(|l| match l.split_whitespace().collect::<Vec<_>>()[..] {
            ["#define", "CUTLASS_MAJOR", _] => "#define CUTLASS_MAJOR 4\n".to_string(),
            ["#define", "CUTLASS_MINOR", _] => "#define CUTLASS_MINOR 2\n".to_string(),
            ["#define", "CUTLASS_PATCH", _] => "#define CUTLASS_PATCH 0\n".to_string(),
            _ => format!("{l}\n"),
        })
        .collect();
    assert_ne!(text, relabelled);
    std::fs::write(&vh, relabelled).unwrap();
}

/// The Action on a user's CUTLASS checkout (`cutlass-dir`) with their case file, the fixed
/// suites left out (`fixed-suites: "false"`): a real NEW disagreement of two layouts fails the
/// step, the step summary tables it at the case file's line with its picture, an `::error`
/// annotation marks that line, and the `pictures` output holds `new-1.svg`. The checkout is
/// CUTLASS 3.5.1.0's headers whose version.h says 4.2.0 (the engine models 4.2; CuTe computes as
/// 3.5.1), so the project's accepted 4.2 entries that 3.5.1 does not reproduce are STALE too (at
/// fixtures/known-discrepancies.toml, not annotated: not the user's files). With
/// CUTECHECK_ACTION_OUT=DIR, the summary, the annotations and the picture are kept there
/// (docs/action-run-new/ is one such run's).
#[test]
#[cfg_attr(
    not(cutecheck_cute),
    ignore = "needs real CuTe: run `cargo xtask test` (provisions CUTLASS 4.2 and sets CUTECHECK_CUTE), or this test with --ignored"
)]
fn the_action_draws_a_new_disagreement_at_the_users_line() {
    let ws = tempfile::tempdir().unwrap();
    let prov = cutecheck::oracle::provision::Provisioner::new().expect("the provisioner");
    let headers = prov.cutlass("3.5.1.0").expect("CUTLASS 3.5.1.0 from PyPI");
    std::fs::create_dir_all(ws.path().join("cutlass")).unwrap();
    relabelled_as_4_2(&headers.include_dir, &ws.path().join("cutlass"));
    std::fs::create_dir_all(ws.path().join("ci")).unwrap();
    let cases = "# the layouts of my kernel\ncoalesce((_2,_4):(_1,_2))\nleft_inverse((_2,_4):(_1,_4))\n";
    std::fs::write(ws.path().join("ci/kernel.cases"), cases).unwrap();
    let with = [
        ("cutlass-dir", "cutlass"),
        ("case-file", "ci/kernel.cases"),
        ("fixed-suites", "false"),
        ("seed", "1"),
        ("cases", "0"),
        ("jobs", "2"),
    ];
    let run = run_action(ws.path(), &with);
    println!("== step summary ==\n{}\n== annotations ==\n{}", run.summary, run.annotations.join("\n"));
    let log = &run.log;
    assert_eq!(run.status, 1, "{log}");
    assert!(run.summary.starts_with("## cutecheck conformance: FAIL\n"), "{}", run.summary);
    let row = run.summary.lines().find(|l| l.starts_with("| NEW |")).unwrap_or_else(|| panic!("{}", run.summary));
    assert!(row.starts_with("| NEW | ci/kernel.cases:3 | `left_inverse((_2,_4):(_1,_4))` |"), "{row}");
    assert!(row.contains("picture: `new-1.svg`"), "{row}");
    assert_eq!(run.summary.matches("\n| NEW |").count(), 1, "{}", run.summary);
    let errors: Vec<&String> = run.annotations.iter().filter(|a| a.starts_with("::error")).collect();
    assert_eq!(errors.len(), 1, "{:?}", run.annotations);
    assert!(
        errors[0].starts_with("::error file=ci/kernel.cases,line=3::NEW left_inverse((_2,_4):(_1,_4))"),
        "{}",
        errors[0]
    );
    let pictures = PathBuf::from(&run.outputs["conformance"]["pictures"]);
    let svg = std::fs::read_to_string(pictures.join("new-1.svg")).expect("the picture in the pictures output");
    assert!(svg.contains("engine: (_4,_4):(_1,_2)") && svg.contains("<!-- differing cells (red): 28 -->"), "{svg}");
    if let Some(d) = std::env::var_os("CUTECHECK_ACTION_OUT") {
        let d = PathBuf::from(d);
        std::fs::create_dir_all(&d).unwrap();
        let inputs: Vec<String> = with.iter().map(|(k, v)| format!("{k}: {v}")).collect();
        let head = format!(
            "<!-- Written by tests/action_emulation.rs (CUTECHECK_ACTION_OUT): the step summary the Action wrote on a user's repository (ci/kernel.cases; cutlass/: CUTLASS 3.5.1.0's headers, version.h relabelled 4.2.0) with {} -->\n",
            inputs.join(", ")
        );
        std::fs::write(d.join("step-summary.md"), head + &run.summary).unwrap();
        std::fs::write(d.join("annotations.txt"), run.annotations.join("\n") + "\n").unwrap();
        std::fs::write(d.join("new-1.svg"), &svg).unwrap();
    }
}
