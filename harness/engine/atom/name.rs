//! Atom names as CuTe's C++ spells them: a base identifier and optional template arguments,
//! e.g. `SM90_64x64x16_F16F16F16_SS<GMMA::Major::K,GMMA::Major::K>`. The expression parser
//! already checked the syntax; this splits the canonical text (no spaces) for the atom tables.

use crate::{Error, Result};

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AtomName {
    /// The identifier without a leading `cute::` (namespace-qualified where C++ qualifies it).
    pub base: String,
    /// The template arguments (each as text, spaces removed), if the name had `<...>`.
    pub targs: Option<Vec<String>>,
}

impl AtomName {
    pub fn parse(text: &str) -> Result<AtomName> {
        let text: String = text.chars().filter(|c| !c.is_whitespace()).collect();
        let bad = || Error::Type(format!("malformed atom name '{text}'"));
        let (base, targs) = match text.find('<') {
            None => (text.as_str(), None),
            Some(i) => {
                let inner = text[i + 1..].strip_suffix('>').ok_or_else(bad)?;
                let mut args = Vec::new();
                let mut depth = 0usize;
                let mut cur = String::new();
                for ch in inner.chars() {
                    match ch {
                        '<' => depth += 1,
                        '>' => depth = depth.checked_sub(1).ok_or_else(bad)?,
                        ',' if depth == 0 => {
                            args.push(std::mem::take(&mut cur));
                            continue;
                        }
                        _ => {}
                    }
                    cur.push(ch);
                }
                if depth != 0 {
                    return Err(bad());
                }
                if !cur.is_empty() || !args.is_empty() {
                    args.push(cur);
                }
                if args.iter().any(String::is_empty) {
                    return Err(bad());
                }
                (&text[..i], Some(args))
            }
        };
        let base = base.strip_prefix("cute::").unwrap_or(base);
        // An identifier, or namespace-qualified ones (`SM120::BLOCKSCALED::SM120_16x8x32_TN_VS`).
        let ident = |p: &str| !p.is_empty() && p.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if !base.split("::").all(ident) {
            return Err(bad());
        }
        Ok(AtomName { base: base.to_string(), targs })
    }

    /// The name as written back: `BASE` or `BASE<A,B>` (no spaces).
    pub fn canonical(&self) -> String {
        match &self.targs {
            None => self.base.clone(),
            Some(t) => format!("{}<{}>", self.base, t.join(",")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_names() {
        let n = AtomName::parse("SM90_64x64x16_F16F16F16_SS< GMMA::Major::K , GMMA::Major::MN >").unwrap();
        assert_eq!(n.base, "SM90_64x64x16_F16F16F16_SS");
        assert_eq!(n.targs.unwrap(), vec!["GMMA::Major::K", "GMMA::Major::MN"]);
        assert_eq!(AtomName::parse("X<>").unwrap().targs, Some(vec![]));
        assert_eq!(AtomName::parse("cute::X").unwrap().canonical(), "X");
        let n = AtomName::parse("UniversalCopy<uint_bit_t<128>>").unwrap();
        assert_eq!(n.targs.unwrap(), vec!["uint_bit_t<128>"]);
        assert!(AtomName::parse("X<a,>").is_err());
        assert!(AtomName::parse("X<a").is_err());
        assert_eq!(AtomName::parse("cute::A::B<x>").unwrap().base, "A::B");
        assert!(AtomName::parse("A::<x>").is_err() && AtomName::parse("::A").is_err());
    }
}
