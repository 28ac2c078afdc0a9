//! Results on disk: one JSON file per case under `<state>/results/`, keyed by the sha256 of
//! (headers identity, compiler identity, driver sources, generated case code). Each file carries
//! a checksum of its payload; a file that does not parse or whose checksum disagrees is treated
//! as absent (and overwritten when the case is computed again). An entry is opened without
//! following a symbolic link and read only if it is a regular file of at most [`MAX_ENTRY`]
//! bytes, so a planted link (to /dev/zero, to a FIFO) or a huge file costs nothing.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::{sha256_hex, Outcome};

pub struct ResultCache {
    pub dir: PathBuf,
}

#[derive(Serialize, Deserialize)]
struct Entry {
    key: String,
    outcome: Outcome,
    checksum: String,
}

fn checksum(key: &str, outcome: &Outcome) -> String {
    let payload = serde_json::to_string(outcome).unwrap_or_default();
    sha256_hex(format!("{key}\0{payload}").as_bytes())
}

impl ResultCache {
    pub fn new(dir: impl Into<PathBuf>) -> ResultCache {
        ResultCache { dir: dir.into() }
    }

    fn path(&self, key: &str) -> PathBuf {
        self.dir.join(&key[..2]).join(format!("{key}.json"))
    }

    /// The cached outcome for `key`, if present and intact.
    pub fn get(&self, key: &str) -> Option<Outcome> {
        let text = read_entry(&self.path(key))?;
        let e: Entry = serde_json::from_str(&text).ok()?;
        (e.key == key && e.checksum == checksum(key, &e.outcome)).then_some(e.outcome)
    }

    /// Store an outcome (errors of the oracle itself are never stored). Written to a temporary
    /// file and renamed, so a reader never sees half a file.
    pub fn put(&self, key: &str, outcome: &Outcome) -> std::io::Result<()> {
        if outcome.is_error() {
            return Ok(());
        }
        let p = self.path(key);
        let dir = p.parent().unwrap_or(Path::new("."));
        std::fs::create_dir_all(dir)?;
        let e = Entry { key: key.to_string(), outcome: outcome.clone(), checksum: checksum(key, outcome) };
        let mut tmp = tempfile::NamedTempFile::new_in(dir)?;
        std::io::Write::write_all(&mut tmp, serde_json::to_string(&e)?.as_bytes())?;
        tmp.persist(&p).map_err(|e| e.error)?;
        Ok(())
    }
}

/// Largest entry read: a case's output cap, escaped as JSON (at most 6 bytes a byte), plus room.
pub const MAX_ENTRY: u64 = 6 * crate::limits::CASE_OUTPUT as u64 + (1 << 16);

/// The text of the entry at `p`: opened with O_NOFOLLOW and O_NONBLOCK (a link or a FIFO is not
/// followed or waited on), read only if it is a regular file no larger than [`MAX_ENTRY`], and
/// never more than that many bytes.
fn read_entry(p: &Path) -> Option<String> {
    use std::io::Read;
    use std::os::unix::fs::OpenOptionsExt;
    let f = std::fs::OpenOptions::new().read(true).custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK).open(p).ok()?;
    let m = f.metadata().ok()?;
    if !m.is_file() || m.len() > MAX_ENTRY {
        return None;
    }
    let mut text = String::new();
    f.take(MAX_ENTRY).read_to_string(&mut text).ok()?;
    Some(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_corruption() {
        let t = tempfile::tempdir().unwrap();
        let c = ResultCache::new(t.path());
        let key = sha256_hex(b"case");
        assert!(c.get(&key).is_none());
        c.put(&key, &Outcome::Printed("_4:_1".into())).unwrap();
        assert_eq!(c.get(&key), Some(Outcome::Printed("_4:_1".into())));
        // Tamper with the stored outcome: the checksum no longer matches.
        let p = c.path(&key);
        let text = std::fs::read_to_string(&p).unwrap().replace("_4:_1", "_4:_2");
        std::fs::write(&p, text).unwrap();
        assert!(c.get(&key).is_none());
        std::fs::write(&p, "{not json").unwrap();
        assert!(c.get(&key).is_none());
        c.put(&key, &Outcome::Error("x".into())).unwrap();
        assert!(c.get(&key).is_none(), "oracle errors are not cached");
    }

    #[test]
    fn hostile_entries_are_not_read() {
        let t = tempfile::tempdir().unwrap();
        let c = ResultCache::new(t.path());
        let key = sha256_hex(b"hostile");
        let p = c.path(&key);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        // A link to an endless device: refused at open, at once.
        std::os::unix::fs::symlink("/dev/zero", &p).unwrap();
        let start = std::time::Instant::now();
        assert!(c.get(&key).is_none());
        assert!(start.elapsed() < std::time::Duration::from_secs(5));
        std::fs::remove_file(&p).unwrap();
        // A FIFO nobody writes to: not waited on.
        let cp = std::ffi::CString::new(p.to_str().unwrap()).unwrap();
        assert_eq!(unsafe { libc::mkfifo(cp.as_ptr(), 0o600) }, 0);
        assert!(c.get(&key).is_none());
        std::fs::remove_file(&p).unwrap();
        // An oversized file (sparse, so the test is cheap): not read.
        let f = std::fs::File::create(&p).unwrap();
        f.set_len(MAX_ENTRY + 1).unwrap();
        assert!(c.get(&key).is_none());
        // A good entry written over it is read again.
        c.put(&key, &Outcome::Printed("_4:_1".into())).unwrap();
        assert_eq!(c.get(&key), Some(Outcome::Printed("_4:_1".into())));
    }
}
