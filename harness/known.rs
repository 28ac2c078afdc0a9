//! Known discrepancies: accepted disagreements between the engine and real CuTe, kept as data in
//! `fixtures/known-discrepancies.toml`.
//!
//! Each entry names the case (an expression), the CUTLASS versions where it reproduces, the triage
//! class it falls in and why it is accepted. A conformance run evaluates every listed case on the
//! version under test and fails on (a) a disagreement that is not listed and (b) a listed entry for
//! that version that no longer reproduces (it must then be removed or its versions narrowed).

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::expr::parse;

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Discrepancy {
    /// The case, in the expression language.
    pub expr: String,
    /// CUTLASS versions (e.g. "4.2.0.0") where this reproduces; `"*"` matches every version.
    pub versions: Vec<String>,
    /// The triage class (`same-function`, `different-function`, `one-rejects`, `cute-crashed`).
    pub class: String,
    /// Why the disagreement is accepted.
    pub explanation: String,
    /// Optional: the family of random cases this entry stands for -- every case of one of the
    /// operations `ops` whose triage signature (`triage::Verdict::signature`) equals `signature`. `expr` stays
    /// the family's reproducer and must keep reproducing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub family: Option<Family>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Family {
    /// The operations (one mechanism, e.g. composition and the divides and products built on it).
    pub ops: Vec<String>,
    pub signature: String,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct KnownDiscrepancies {
    #[serde(default, rename = "discrepancy")]
    pub entries: Vec<Discrepancy>,
}

/// Canonical text of an expression (whitespace removed the parser's way), used as the lookup key.
pub fn canonical(expr: &str) -> String {
    parse(expr).map(|e| e.to_string()).unwrap_or_else(|_| expr.split_whitespace().collect())
}

impl Discrepancy {
    pub fn applies_to(&self, version: &str) -> bool {
        self.versions.iter().any(|v| v == "*" || v == version)
    }
}

impl KnownDiscrepancies {
    pub fn load(path: &Path) -> anyhow::Result<Self> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| anyhow::anyhow!("cannot read {}: {e}", path.display()))?;
        Self::parse(&text).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))
    }

    pub fn parse(text: &str) -> anyhow::Result<Self> {
        let k: KnownDiscrepancies = toml::from_str(text)?;
        for d in &k.entries {
            parse(&d.expr).map_err(|e| anyhow::anyhow!("entry `{}`: {e}", d.expr))?;
            if d.versions.is_empty() {
                anyhow::bail!("entry `{}` lists no versions", d.expr);
            }
        }
        Ok(k)
    }

    /// The entry for `expr` on `version`, if listed.
    pub fn lookup(&self, expr: &str, version: &str) -> Option<&Discrepancy> {
        let key = canonical(expr);
        self.entries.iter().find(|d| d.applies_to(version) && canonical(&d.expr) == key)
    }

    /// The entry whose family covers a case of `op` with triage signature `signature`.
    pub fn lookup_family(&self, op: &str, signature: &str, version: &str) -> Option<&Discrepancy> {
        self.entries.iter().find(|d| {
            d.applies_to(version) && d.family.as_ref().is_some_and(|f| f.ops.iter().any(|o| o == op) && f.signature == signature)
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
        assert!(k.lookup("composition( (_6,_2):(_8,_2),_4:_4 )", "4.2.0.0").is_some());
        assert!(k.lookup("composition((_6,_2):(_8,_2),_4:_4)", "3.8.0.0").is_none());
        let f = KnownDiscrepancies::parse(
            "[[discrepancy]]\nexpr = \"coalesce(_2:_1)\"\nversions = [\"*\"]\nclass = \"same-function\"\nexplanation = \"\"\nfamily = { ops = [\"coalesce\"], signature = \"same-function\" }\n",
        )
        .unwrap();
        assert!(f.lookup_family("coalesce", "same-function", "3.8.0.0").is_some());
        assert!(f.lookup_family("coalesce", "cute-crashed", "3.8.0.0").is_none());
        assert!(KnownDiscrepancies::parse("[[discrepancy]]\nexpr = \"((\"\nversions=[\"*\"]\nclass=\"x\"\nexplanation=\"\"").is_err());
    }
}
