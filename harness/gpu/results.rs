//! Reading a run folder: what the GPU programs wrote (`results_*.json`), the plan's skipped atoms
//! (`plan.json`) and the device (`device.txt`), as summary rows.

use std::path::Path;

use anyhow::{bail, Context, Result};

/// One line of the summary.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    pub run: String,
    pub atom: String,
    pub check: String,
    pub max_err: Option<f64>,
    pub verdict: String,
    pub detail: String,
}

/// The result files of a run folder, by run name.
pub const RESULT_RUNS: [&str; 6] = ["tables", "cute", "gmma", "cute_gmma", "copy", "corrupt"];

/// Reads the `results_*.json` files of a run folder, and the skipped atoms of its `plan.json`.
pub fn read_results(dir: &Path) -> Result<(Vec<Row>, serde_json::Value)> {
    let mut rows = Vec::new();
    let mut info = serde_json::Map::new();
    for run in RESULT_RUNS {
        let p = dir.join(format!("results_{run}.json"));
        if !p.exists() {
            continue;
        }
        let text = std::fs::read_to_string(&p)?;
        let v: serde_json::Value = serde_json::from_str(&text).with_context(|| format!("parsing {}", p.display()))?;
        for key in ["device", "compute_capability", "cuda_driver_api", "cuda_runtime"] {
            if let Some(x) = v.get(key) {
                info.insert(key.to_string(), x.clone());
            }
        }
        info.insert(format!("seed_{run}"), v.get("seed").cloned().unwrap_or_default());
        for r in v.get("results").and_then(|r| r.as_array()).into_iter().flatten() {
            let s = |k: &str| r.get(k).and_then(|x| x.as_str()).unwrap_or("").to_string();
            let mut detail = s("detail");
            if !s("note").is_empty() && s("check") == "table" {
                detail = format!("{detail} [{}]", s("note"));
            }
            rows.push(Row {
                run: run.to_string(),
                atom: s("atom"),
                check: s("check"),
                max_err: r.get("max_err").and_then(|x| x.as_f64()),
                verdict: s("verdict"),
                detail,
            });
        }
    }
    if let Ok(text) = std::fs::read_to_string(dir.join("plan.json")) {
        let v: serde_json::Value = serde_json::from_str(&text).context("parsing plan.json")?;
        for p in v.as_array().into_iter().flatten() {
            if p["check"] == "skip" {
                rows.push(Row {
                    run: "plan".into(),
                    atom: p["atom"].as_str().unwrap_or("").into(),
                    check: "skip".into(),
                    max_err: None,
                    verdict: "SKIP".into(),
                    detail: p["reason"].as_str().unwrap_or("").into(),
                });
            }
        }
    }
    if let Ok(d) = std::fs::read_to_string(dir.join("device.txt")) {
        for line in d.lines() {
            if let Some((k, v)) = line.split_once(": ") {
                info.insert(format!("run_{k}"), serde_json::Value::String(v.to_string()));
            }
        }
    }
    if rows.is_empty() {
        bail!("no results_*.json in {}", dir.display());
    }
    Ok((rows, serde_json::Value::Object(info)))
}
