//! The CI workflow README points at (.github/workflows/conformance.yml) is a real file that
//! parses, whose matrix covers every modelled CUTLASS release on PyPI, and whose shards partition
//! one seeded run: for one N, each `K/N` (K = 0..N) exactly once, all with the same seed and case
//! count, so the shards together are exactly the cases of the unsharded run.

use std::collections::BTreeSet;

use cutecheck::oracle::repo_root;
use serde_yaml::Value;

const WORKFLOW: &str = ".github/workflows/conformance.yml";

fn workflow() -> Value {
    let path = repo_root().join(WORKFLOW);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_yaml::from_str(&text).unwrap_or_else(|e| panic!("{WORKFLOW}: not YAML: {e}"))
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
        // and version, and a seed and case count that do not depend on the matrix.
        let steps = job["steps"].as_sequence().expect("steps");
        let run = steps
            .iter()
            .filter_map(|s| s["run"].as_str())
            .find(|r| r.contains("xtask conformance"))
            .unwrap_or_else(|| panic!("job {name:?} has no `cargo xtask conformance` step"));
        assert!(run.contains("--shard ${{ matrix.shard }}"), "{run}");
        assert!(run.contains("--cutlass-version ${{ matrix.cutlass }}"), "{run}");
        assert!(run.contains("--seed ${{ steps.seed.outputs.seed }}"), "{run}");
        let cases = run.split_whitespace().skip_while(|w| *w != "--cases").nth(1).expect("--cases N");
        assert!(cases.parse::<u64>().is_ok(), "--cases {cases} depends on the matrix");
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
    // nvidia-cutlass from 3.5.1.0 (the oldest the engine models) to 4.2.0.0, then 4.5.0.0 from
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
