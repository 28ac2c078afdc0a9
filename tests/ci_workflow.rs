//! The CI workflow README points at (.github/workflows/conformance.yml) is a real file that
//! parses, whose matrix covers every modelled CUTLASS release on PyPI, and whose shards partition
//! one seeded run: for one N, each `K/N` (K = 0..N) exactly once, all with the same seed and case
//! count, so the shards together are exactly the cases of the unsharded run. The Action
//! (action.yml) and the workflow that uses it as a user would (.github/workflows/action-selftest.yml)
//! are well-formed and agree: every input declared is used and every input used is declared,
//! every `with:` names an input, the example case file and known list parse; no workflow or action
//! pastes an expression into a shell line (inputs go through `env:`), and every workflow states
//! its `permissions` and each job its `timeout-minutes`.

use std::collections::BTreeSet;

use cutecheck::oracle::repo_root;
use serde_yaml_ng::Value;

const WORKFLOW: &str = ".github/workflows/conformance.yml";
const SELFTEST: &str = ".github/workflows/action-selftest.yml";
const ACTION: &str = "action.yml";

fn yaml(file: &str) -> Value {
    let path = repo_root().join(file);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_yaml_ng::from_str(&text).unwrap_or_else(|e| panic!("{file}: not YAML: {e}"))
}

fn workflow() -> Value {
    yaml(WORKFLOW)
}

fn strings(v: &Value, what: &str) -> Vec<String> {
    v.as_sequence()
        .unwrap_or_else(|| panic!("{WORKFLOW}: {what} is not a list"))
        .iter()
        .map(|x| x.as_str().unwrap_or_else(|| panic!("{WORKFLOW}: {what} holds a non-string {x:?}")).to_string())
        .collect()
}

/// Whether `shards` ("K/N" strings) partition a run: one N, each K in 0..N exactly once.
fn partition_error(shards: &[String]) -> Option<String> {
    let mut ns = BTreeSet::new();
    let mut ks = Vec::new();
    for s in shards {
        let Some((k, n)) =
            s.split_once('/').and_then(|(k, n)| Some((k.parse::<usize>().ok()?, n.parse::<usize>().ok()?)))
        else {
            return Some(format!("shard {s:?} is not K/N"));
        };
        ns.insert(n);
        ks.push(k);
    }
    let [n] = ns.into_iter().collect::<Vec<_>>()[..] else { return Some(format!("shards of several N: {shards:?}")) };
    ks.sort_unstable();
    (ks != (0..n).collect::<Vec<_>>())
        .then(|| format!("shards {shards:?} are not each of 0/{n}..{}/{n} once", n.saturating_sub(1)))
}

#[test]
fn the_shards_partition_the_run() {
    let w = workflow();
    let jobs = w["jobs"].as_mapping().expect("jobs");
    let mut sharded = 0;
    for (name, job) in jobs {
        let matrix = &job["strategy"]["matrix"];
        if matrix["shard"].is_null() {
            continue;
        }
        sharded += 1;
        let shards = strings(&matrix["shard"], "matrix.shard");
        assert_eq!(partition_error(&shards), None, "job {name:?}");
        // Every shard runs the same seeded cases: the conformance step passes the matrix's shard
        // and version, and a seed and case count that do not depend on the matrix, each through
        // an environment variable of the step.
        let steps = job["steps"].as_sequence().expect("steps");
        let step = steps
            .iter()
            .find(|s| s["run"].as_str().is_some_and(|r| r.contains("xtask conformance")))
            .unwrap_or_else(|| panic!("job {name:?} has no `cargo xtask conformance` step"));
        let run = step["run"].as_str().unwrap();
        let var_of = |expr: &str| {
            let env = step["env"].as_mapping().unwrap_or_else(|| panic!("the conformance step has no env"));
            env.iter()
                .find(|(_, v)| v.as_str() == Some(expr))
                .and_then(|(k, _)| k.as_str())
                .unwrap_or_else(|| panic!("the conformance step's env has no variable for {expr}"))
                .to_string()
        };
        for (flag, expr) in [
            ("--shard", "${{ matrix.shard }}"),
            ("--cutlass-version", "${{ matrix.cutlass }}"),
            ("--seed", "${{ steps.seed.outputs.seed }}"),
        ] {
            let v = var_of(expr);
            assert!(run.contains(&format!("{flag} \"${v}\"")), "{flag} is not passed as \"${v}\": {run}");
        }
        let fail_fast = job["strategy"]["fail-fast"].as_bool();
        assert_eq!(fail_fast, Some(false), "a failing shard must not cancel the others");
    }
    assert_eq!(sharded, 1, "{WORKFLOW}: expected one sharded job");
}

#[test]
fn the_partition_check_can_fail() {
    let v = |s: &[&str]| s.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    assert_eq!(partition_error(&v(&["0/2", "1/2"])), None);
    assert!(partition_error(&v(&["0/4", "1/4", "3/4"])).is_some());
    assert!(partition_error(&v(&["0/2", "1/2", "1/2"])).is_some());
    assert!(partition_error(&v(&["0/2", "1/3"])).is_some());
    assert!(partition_error(&v(&["0/2", "2/2"])).is_some());
    assert!(partition_error(&v(&["a"])).is_some());
}

#[test]
fn the_matrix_runs_every_modelled_release_on_pypi() {
    let w = workflow();
    let got = strings(&w["jobs"]["fuzz"]["strategy"]["matrix"]["cutlass"], "matrix.cutlass");
    // The modelled releases a pinned PyPI wheel ships (engine::release::registry_source):
    // nvidia-cutlass from 3.3.0.0 (a release in release::PARTIAL would be left out) to 4.2.0.0, then 4.5.0.0 from
    // flashinfer-python; each pinned.
    let pins: toml::Table = cutecheck::oracle::provision::PINS_TOML.parse().expect("cutlass-pins.toml");
    let key = |v: &str| v.split('.').map(|x| x.parse::<u32>().unwrap_or(0)).collect::<Vec<_>>();
    let pinned = |name: &str, version: &str| {
        pins["wheel"]
            .as_array()
            .expect("[[wheel]]")
            .iter()
            .any(|w| w["name"].as_str() == Some(name) && w["version"].as_str() == Some(version))
    };
    let mut want: Vec<String> = cutecheck::engine::release::MODELLED
        .iter()
        .filter(|r| cutecheck::engine::release::registry_source(**r).is_some_and(|(name, v)| pinned(name, &v)))
        // A model not complete yet (tests/releases.rs lists its problems) is left out.
        .filter(|r| !cutecheck::engine::release::PARTIAL.contains(r))
        .map(|r| r.to_string())
        .collect();
    want.sort_by_key(|v| key(v));
    let mut sorted = got.clone();
    sorted.sort_by_key(|v| key(v));
    assert_eq!(sorted, want, "{WORKFLOW}: matrix.cutlass");
    assert_eq!(got.iter().collect::<BTreeSet<_>>().len(), got.len(), "a version listed twice");
}

#[test]
fn readme_points_at_the_workflow() {
    let readme = std::fs::read_to_string(repo_root().join("README.md")).expect("README.md");
    assert!(readme.contains(WORKFLOW), "README.md does not name {WORKFLOW}");
    // An inline copy, if README shows one, must be the file itself.
    let file = std::fs::read_to_string(repo_root().join(WORKFLOW)).unwrap();
    let marker = format!("```yaml\n# {WORKFLOW}\n");
    if let Some(i) = readme.find(&marker) {
        let body = &readme[i + "```yaml\n".len()..];
        let body = &body[..body.find("```").expect("closing ```")];
        assert_eq!(body, file, "README's copy of {WORKFLOW} differs from the file");
    }
}

/// Every `run:` script of a workflow's jobs or of an action's steps, with where it is.
fn run_scripts(doc: &Value) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut steps_of = |what: String, steps: &Value| {
        for (i, s) in steps.as_sequence().into_iter().flatten().enumerate() {
            if let Some(r) = s["run"].as_str() {
                out.push((format!("{what} step {i}"), r.to_string()));
            }
        }
    };
    if let Some(jobs) = doc["jobs"].as_mapping() {
        for (name, job) in jobs {
            steps_of(format!("job {}", name.as_str().unwrap_or("?")), &job["steps"]);
        }
    }
    steps_of("runs".into(), &doc["runs"]["steps"]);
    out
}

/// The `${{ ... }}` expressions pasted into shell scripts: a script must read them from `env:`.
fn pasted_expressions(doc: &Value) -> Vec<String> {
    run_scripts(doc).into_iter().filter(|(_, r)| r.contains("${{")).map(|(w, r)| format!("{w}: {r}")).collect()
}

#[test]
fn no_workflow_or_action_pastes_an_expression_into_a_shell_line() {
    for f in [WORKFLOW, SELFTEST, ACTION] {
        let doc = yaml(f);
        assert!(!run_scripts(&doc).is_empty() || f == SELFTEST, "{f}: no run scripts seen");
        assert_eq!(pasted_expressions(&doc), Vec::<String>::new(), "{f}");
    }
    let bad: Value = serde_yaml_ng::from_str("jobs: {a: {steps: [{run: 'echo ${{ inputs.seed }}'}]}}").unwrap();
    assert_eq!(pasted_expressions(&bad).len(), 1, "the check can fail");
}

#[test]
fn every_workflow_states_permissions_and_every_job_a_timeout() {
    for f in [WORKFLOW, SELFTEST] {
        let w = yaml(f);
        assert!(w["permissions"].is_mapping() || w["permissions"].is_string(), "{f}: no top-level permissions");
        for (name, job) in w["jobs"].as_mapping().expect("jobs") {
            let t = job["timeout-minutes"].as_u64();
            assert!(t.is_some_and(|t| t > 0 && t <= 360), "{f}: job {name:?} has no timeout-minutes");
        }
    }
}

#[test]
fn the_nightly_cache_key_changes_with_the_lock_file_and_the_commit() {
    let w = workflow();
    let cache = w["jobs"]["fuzz"]["steps"]
        .as_sequence()
        .unwrap()
        .iter()
        .find(|s| s["uses"].as_str().is_some_and(|u| u.starts_with("actions/cache@")))
        .expect("a cache step");
    let key = cache["with"]["key"].as_str().expect("key");
    assert!(key.contains("hashFiles('Cargo.lock'"), "{key}");
    assert!(key.contains("${{ github.sha }}"), "a key that never changes is never saved again: {key}");
    let restore = cache["with"]["restore-keys"].as_str().expect("restore-keys");
    assert!(key.starts_with(restore.trim()), "{restore} is not a prefix of {key}");
}

#[test]
fn the_action_is_composite_and_its_inputs_are_declared_and_used() {
    let a = yaml(ACTION);
    assert_eq!(a["runs"]["using"].as_str(), Some("composite"));
    let declared: BTreeSet<String> = a["inputs"]
        .as_mapping()
        .expect("inputs")
        .iter()
        .map(|(k, v)| {
            assert!(v["description"].is_string(), "input {k:?} has no description");
            k.as_str().unwrap().to_string()
        })
        .collect();
    for want in ["cutlass-dir", "cutlass-version", "case-file", "known", "seed", "cases", "jobs"] {
        assert!(declared.contains(want), "{ACTION}: no input {want}");
    }
    let text = std::fs::read_to_string(repo_root().join(ACTION)).unwrap();
    let used: BTreeSet<String> = text
        .split("inputs.")
        .skip(1)
        .map(|r| r.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_').collect())
        .collect();
    assert_eq!(used, declared, "{ACTION}: inputs used vs declared");
    let steps = a["runs"]["steps"].as_sequence().expect("steps");
    for (i, s) in steps.iter().enumerate() {
        if s["run"].is_string() {
            assert_eq!(s["shell"].as_str(), Some("bash"), "{ACTION}: step {i} runs without `shell: bash`");
        }
    }
    // Each input given to the conformance step reaches a flag of `cargo xtask conformance`.
    let run = steps.iter().filter_map(|s| s["run"].as_str()).find(|r| r.contains("cargo xtask")).expect("the run");
    for flag in
        ["--cutlass-dir", "--cutlass-version", "--case-file", "--known", "--seed", "--cases", "--jobs", "--junit"]
    {
        assert!(run.contains(flag), "{ACTION}: the run passes no {flag}");
    }
    // The cache is keyed by Cargo.lock and the CUTLASS headers.
    let key_step = steps.iter().find(|s| s["id"].as_str() == Some("key")).expect("the key step");
    let key_run = key_step["run"].as_str().unwrap();
    assert!(key_run.contains("Cargo.lock") && key_run.contains("include") && key_run.contains("cutlass-pins.toml"));
    let cache = steps.iter().find(|s| s["uses"].as_str().is_some_and(|u| u.starts_with("actions/cache@"))).unwrap();
    assert_eq!(cache["with"]["key"].as_str(), Some("${{ steps.key.outputs.key }}"));
    assert!(cache["with"]["path"].as_str().is_some_and(|p| p.ends_with("/target")));
}

#[test]
fn the_selftest_uses_the_action_as_a_user_would() {
    let w = yaml(SELFTEST);
    let a = yaml(ACTION);
    let inputs = a["inputs"].as_mapping().unwrap();
    let mut uses = 0;
    for (_, job) in w["jobs"].as_mapping().expect("jobs") {
        for s in job["steps"].as_sequence().into_iter().flatten() {
            if s["uses"].as_str() != Some("./") {
                continue;
            }
            uses += 1;
            let with = s["with"].as_mapping().expect("with:");
            for (k, _) in with {
                assert!(inputs.contains_key(k), "{SELFTEST}: `with: {k:?}` is no input of {ACTION}");
            }
            let case_file = with.get("case-file").and_then(Value::as_str).expect("a case-file");
            let cases = cutecheck::run::plan::case_file_cases(&repo_root().join(case_file)).expect("the case file");
            assert!(!cases.is_empty());
            let known = with.get("known").and_then(Value::as_str).expect("a known list");
            let k = cutecheck::known::KnownDiscrepancies::load(&repo_root().join(known)).expect("the known list");
            assert!(!k.entries.is_empty());
            assert!(with.get("cutlass-version").or(with.get("cutlass-dir")).is_some(), "a CUTLASS to check against");
        }
    }
    assert_eq!(uses, 2, "{SELFTEST}: expected two steps `uses: ./` (a passing run, a stale entry)");
}
