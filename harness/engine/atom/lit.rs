//! Layout literals for the atom tables: the text CuTe prints (`((_4,_8),_2):((_16,_1),_8)`),
//! read back into a [`Layout`]. Only what the tables use is accepted: static (`_N`) or dynamic
//! (`N`) integer leaves, tuples, and one `:` between shape and stride.
//!
//! The tables are written in this notation so that each entry reads exactly like the line CuTe
//! prints for it; a malformed literal is an [`Error::Rejected`], never a panic.

use crate::{Error, Int, IntTuple, Layout, Result};

/// Parse an int tuple such as `(_4,(_2,_8))`.
pub fn int_tuple(text: &str) -> Result<IntTuple> {
    let b = text.as_bytes();
    let mut pos = 0;
    let t = tuple_at(b, &mut pos, 0)?;
    if pos != b.len() {
        return Err(bad(text, "trailing characters"));
    }
    Ok(t)
}

/// Parse `SHAPE:STRIDE`. Shape and stride need not be congruent: one CuTe atom
/// (`SM80_16x8x128_S32U1U1S32_TN_XORPOPC`) declares a non-congruent A layout, and the table keeps
/// it exactly as declared so that it prints as CuTe prints it.
pub fn layout(text: &str) -> Result<Layout> {
    let (s, d) = text.split_once(':').ok_or_else(|| bad(text, "missing ':'"))?;
    Ok(Layout { shape: int_tuple(s)?, stride: int_tuple(d)? })
}

fn bad(text: &str, why: &str) -> Error {
    Error::Rejected { condition: "malformed layout literal", detail: format!("{text}: {why}") }
}

fn tuple_at(b: &[u8], pos: &mut usize, depth: usize) -> Result<IntTuple> {
    let text = String::from_utf8_lossy(b).into_owned();
    if depth > 32 {
        return Err(bad(&text, "nested too deeply"));
    }
    match b.get(*pos) {
        Some(b'(') => {
            *pos += 1;
            let mut items = Vec::new();
            if b.get(*pos) == Some(&b')') {
                *pos += 1;
                return Ok(IntTuple::tuple(items));
            }
            loop {
                items.push(tuple_at(b, pos, depth + 1)?);
                match b.get(*pos) {
                    Some(b',') => *pos += 1,
                    Some(b')') => {
                        *pos += 1;
                        return Ok(IntTuple::tuple(items));
                    }
                    _ => return Err(bad(&text, "expected ',' or ')'")),
                }
            }
        }
        Some(_) => {
            let is_static = b[*pos] == b'_';
            if is_static {
                *pos += 1;
            }
            let start = *pos;
            if b.get(*pos) == Some(&b'-') {
                *pos += 1;
            }
            while b.get(*pos).is_some_and(u8::is_ascii_digit) {
                *pos += 1;
            }
            let v: i64 = std::str::from_utf8(&b[start..*pos])
                .ok()
                .and_then(|s| s.parse().ok())
                .filter(|v| (i32::MIN as i64..=i32::MAX as i64).contains(v))
                .ok_or_else(|| bad(&text, "expected an integer"))?;
            Ok(IntTuple::leaf(Int::new(v, is_static)))
        }
        None => Err(bad(&text, "unexpected end")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_back_what_it_prints() {
        for t in [
            "((_4,_8),(_2,_2)):((_32,_1),(_16,_8))",
            "_32:_1",
            "(_1,8):(_0,_1)",
            "((_4,_8),(_32,_2)):((_512,_1),((_16,_8)))",
        ] {
            assert_eq!(layout(t).unwrap().to_string(), t);
        }
        assert!(layout("(_4,_8").is_err());
        assert!(layout("(_4,_8)").is_err());
        assert!(int_tuple("(_4,)").is_err());
        assert!(int_tuple("_99999999999").is_err());
    }
}
