//! pycute, the Python reference shipped in the same nvidia-cutlass wheel, as an optional third
//! opinion (`conformance --pycute`). pycute has no static-ness, so its answers are compared with
//! CuTe's and the engine's as functions (a layout's values over its domain) or as numbers.
//!
//! The Python text is written from the parsed AST (never from the case's text): integers,
//! `_` (pycute's `None`), tuples, `Layout(shape, stride)` and calls of the pycute functions named by
//! the table of operations (the `pycute` part of each entry in harness/ops.rs).

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};

use anyhow::{bail, Context, Result};
use serde::{Deserialize, Serialize};

use cutecheck::expr::{parse, Expr, Value};
use cutecheck::oracle::Oracle;
use cutecheck::triage::read_printed;

const SCRIPT: &str = r#"
import sys, json
sys.path.insert(0, sys.argv[1])
from pycute import *
for line in sys.stdin:
    line = line.strip()
    try:
        r = eval(line)
        if isinstance(r, Layout):
            out = {"text": str(r), "values": [r(i) for i in range(size(r))]}
        elif isinstance(r, int):
            out = {"text": str(r), "number": r}
        else:
            out = {"text": str(r)}
    except BaseException as e:
        out = {"error": (type(e).__name__ + ": " + str(e)).strip()}
    print(json.dumps(out), flush=True)
"#;

#[derive(Deserialize, Default)]
struct Answer {
    text: Option<String>,
    values: Option<Vec<i64>>,
    number: Option<i64>,
    error: Option<String>,
}

/// pycute's answer to one case and how it compares with the other two.
#[derive(Serialize, Clone, Debug)]
pub struct Opinion {
    /// pycute's str() of the result, `error: ...`, or `unsupported: ...`.
    pub pycute: String,
    /// Same function / number as CuTe's result (None: not comparable).
    pub agrees_with_cute: Option<bool>,
    pub agrees_with_engine: Option<bool>,
}

impl Opinion {
    pub fn summary(&self) -> String {
        let y = |b: Option<bool>| match b {
            Some(true) => "same",
            Some(false) => "different",
            None => "n/a",
        };
        format!("`{}` (vs CuTe: {}, vs engine: {})", self.pycute, y(self.agrees_with_cute), y(self.agrees_with_engine))
    }
}

pub struct Pycute {
    root: PathBuf,
}

impl Pycute {
    /// pycute from the wheel the oracle's headers come from (`<wheel>/pycute`).
    pub fn new(oracle: &Oracle) -> Result<Pycute> {
        let mut dir = oracle.headers.include_dir.clone();
        loop {
            if dir.join("pycute").join("layout.py").is_file() {
                return Ok(Pycute { root: dir });
            }
            if !dir.pop() {
                bail!("no pycute next to {} (pycute comes with the nvidia-cutlass wheel)", oracle.headers.include_dir.display());
            }
        }
    }

    fn ask(&self, code: &str) -> Result<Answer> {
        let mut child = Command::new("python3")
            .arg("-c")
            .arg(SCRIPT)
            .arg(&self.root)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .context("running python3 for pycute")?;
        child.stdin.take().context("stdin")?.write_all(format!("{code}\n").as_bytes())?;
        let out = child.wait_with_output()?;
        let line = String::from_utf8_lossy(&out.stdout);
        Ok(serde_json::from_str(line.lines().next().unwrap_or("{}")).unwrap_or_default())
    }

    /// pycute's opinion on `expr`, compared with CuTe's outcome and the engine's result.
    pub fn opinion(&self, expr: &str, cute: &cutecheck::oracle::Outcome) -> Opinion {
        let code = match parse(expr).map_err(|e| e.to_string()).and_then(|e| python(&e)) {
            Ok(c) => c,
            Err(why) => return Opinion { pycute: format!("unsupported: {why}"), agrees_with_cute: None, agrees_with_engine: None },
        };
        let a = match self.ask(&code) {
            Ok(a) => a,
            Err(e) => return Opinion { pycute: format!("error: {e:#}"), agrees_with_cute: None, agrees_with_engine: None },
        };
        if let Some(e) = a.error {
            let cute_rejects = !matches!(cute, cutecheck::oracle::Outcome::Printed(_));
            let engine_rejects = cutecheck::expr::eval_str(expr).is_err();
            return Opinion { pycute: format!("error: {e}"), agrees_with_cute: Some(cute_rejects), agrees_with_engine: Some(engine_rejects) };
        }
        let same = |v: Option<Value>| -> Option<bool> {
            match v? {
                Value::Layout(l) => Some(Some(l.values().ok()?) == a.values),
                Value::Int(i) => Some(Some(i.value) == a.number),
                _ => None,
            }
        };
        let cute_v = match cute {
            cutecheck::oracle::Outcome::Printed(s) => read_printed(s),
            _ => None,
        };
        let cute_same = if matches!(cute, cutecheck::oracle::Outcome::Printed(_)) { same(cute_v) } else { Some(false) };
        let engine_same = match cutecheck::expr::eval_str(expr) {
            Ok(v) => same(Some(v)),
            Err(_) => Some(false),
        };
        Opinion { pycute: a.text.unwrap_or_default(), agrees_with_cute: cute_same, agrees_with_engine: engine_same }
    }
}

/// The Python text of an expression, or why pycute has no counterpart.
pub fn python(e: &Expr) -> std::result::Result<String, String> {
    Ok(match e {
        Expr::Int { value, .. } => value.to_string(),
        Expr::Underscore { .. } => "None".into(),
        Expr::Tuple { items, .. } => {
            let v: Vec<String> = items.iter().map(python).collect::<std::result::Result<_, _>>()?;
            format!("({},)", v.join(","))
        }
        Expr::Layout { shape, stride, .. } => format!("Layout({},{})", python(shape)?, python(stride)?),
        Expr::Call { name, args, called: true, .. } => {
            // The spelling comes from the operation's entry in the table of operations.
            let n = cutecheck::ops::lookup(name)
                .and_then(|op| op.pycute.get())
                .ok_or_else(|| format!("pycute has no {}", name.base()))?;
            let v: Vec<String> = args.iter().map(python).collect::<std::result::Result<_, _>>()?;
            format!("{n}({})", v.join(","))
        }
        Expr::Apply { target, args, .. } if args.len() == 1 => format!("({})({})", python(target)?, python(&args[0])?),
        _ => return Err("no pycute form".into()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_is_written_from_the_ast() {
        let py = |s: &str| python(&parse(s).unwrap());
        assert_eq!(py("composition((_6,_2):(_8,_2),_4:_4)").unwrap(), "composition(Layout((6,2,),(8,2,)),Layout(4,4))");
        assert_eq!(py("logical_divide(24:1,(_,4:2))").unwrap(), "logical_divide(Layout(24,1),(None,Layout(4,2),))");
        assert!(py("blocked_product(_2:_1,_2:_1)").is_err());
        assert!(py("make_layout_right((_4,_8))").is_err());
    }
}
