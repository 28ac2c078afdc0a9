//! The body of a snapshot file (insta's format: a header between `---` lines, then one case per
//! line with its result lines prefixed `=> `). A leaf module: it uses no other module of the crate.

/// The body of an insta snapshot file (everything after the header's closing `---`).
pub fn snapshot_body_of(file: &str) -> Option<&str> {
    let rest = file.strip_prefix("---\n")?;
    let end = rest.find("\n---\n")?;
    Some(&rest[end + "\n---\n".len()..])
}

/// Split a snapshot body into (expression, result lines) per case.
pub fn parse_snapshot_body(body: &str) -> Vec<(String, Vec<String>)> {
    let mut out: Vec<(String, Vec<String>)> = Vec::new();
    for l in body.lines() {
        if l.is_empty() {
            continue;
        }
        match l.strip_prefix("=> ") {
            Some(r) => {
                if let Some(last) = out.last_mut() {
                    last.1.push(r.to_string());
                }
            }
            None if l == "=>" => {
                if let Some(last) = out.last_mut() {
                    last.1.push(String::new());
                }
            }
            None => out.push((l.to_string(), Vec::new())),
        }
    }
    out
}
