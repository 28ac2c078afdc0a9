//! C++ source as tokens with their lines, for the extractors (`extract-cutlass-tests`,
//! `extract-kernel-forms`): comments, string and character literals and preprocessor lines are
//! dropped; what is left is words and punctuation. Facts are read from the tokens, never code.

/// A token: a word (identifier or number, as written) or one punctuation character.
#[derive(Clone, Debug, PartialEq)]
pub enum Tok {
    Word(String),
    Punct(char),
}

/// Tokens with their lines; comments, strings, character literals and preprocessor lines dropped.
pub fn tokenize(text: &str) -> Vec<(Tok, usize)> {
    tokenize_opts(text, false)
}

/// As [`tokenize`], but a character literal is kept as one word, quotes included (`'N'`): the
/// kernel-forms extractor reads `if (transA == 'N')` in a tutorial's host code.
pub fn tokenize_with_chars(text: &str) -> Vec<(Tok, usize)> {
    tokenize_opts(text, true)
}

fn tokenize_opts(text: &str, keep_chars: bool) -> Vec<(Tok, usize)> {
    let b: Vec<char> = text.chars().collect();
    let (mut i, mut line, mut out) = (0, 1, Vec::new());
    let mut at_line_start = true;
    while i < b.len() {
        let c = b[i];
        if c == '\n' {
            line += 1;
            i += 1;
            at_line_start = true;
            continue;
        }
        if c.is_whitespace() {
            i += 1;
            continue;
        }
        if at_line_start && c == '#' {
            while i < b.len() && b[i] != '\n' {
                i += 1;
            }
            continue;
        }
        at_line_start = false;
        if c == '/' && b.get(i + 1) == Some(&'/') {
            while i < b.len() && b[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && b.get(i + 1) == Some(&'*') {
            i += 2;
            while i < b.len() && !(b[i] == '*' && b.get(i + 1) == Some(&'/')) {
                line += usize::from(b[i] == '\n');
                i += 1;
            }
            i += 2;
        } else if keep_chars && c == '\'' && b.get(i + 2) == Some(&'\'') && b.get(i + 1) != Some(&'\\') {
            out.push((Tok::Word(b[i..i + 3].iter().collect()), line));
            i += 3;
        } else if c == '"' || c == '\'' {
            i += 1;
            while i < b.len() && b[i] != c {
                line += usize::from(b[i] == '\n');
                i += if b[i] == '\\' { 2 } else { 1 };
            }
            i += 1;
        } else if c.is_alphanumeric() || c == '_' {
            let s = i;
            while i < b.len() && (b[i].is_alphanumeric() || b[i] == '_') {
                i += 1;
            }
            out.push((Tok::Word(b[s..i].iter().collect()), line));
        } else {
            out.push((Tok::Punct(c), line));
            i += 1;
        }
    }
    out
}
