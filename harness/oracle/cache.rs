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

    /// Store an outcome (errors of the oracle itself are never stored), with [`write_atomic`]: a
    /// reader (another run sharing the directory) never sees half a file, nor does a run after a
    /// crash or an interrupt.
    pub fn put(&self, key: &str, outcome: &Outcome) -> std::io::Result<()> {
        if outcome.is_error() {
            return Ok(());
        }
        let p = self.path(key);
        std::fs::create_dir_all(p.parent().unwrap_or(Path::new(".")))?;
        let e = Entry { key: key.to_string(), outcome: outcome.clone(), checksum: checksum(key, outcome) };
        write_atomic(&p, serde_json::to_string(&e)?.as_bytes())
    }
}

/// Write `bytes` as the whole of the file `path`, atomically: into a temporary file in the same
/// directory (so the rename cannot cross file systems), flushed to disk (fsync), then renamed over
/// `path`, and the directory synced so the rename itself lasts. A reader sees the old file or the
/// new one, never a mix; two writers of the same path both finish, and the last rename wins whole.
/// An interrupted write leaves at most a `.tmp-*` file, which no reader opens. The file is made
/// readable by all (0644), like one written with `std::fs::write`, so a cache can be shared.
///
/// Every write into the caches goes through here (results, manifests, markers, the first-use
/// ledger).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    use std::os::unix::fs::PermissionsExt;
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let mut tmp = tempfile::Builder::new().prefix(".tmp-").tempfile_in(dir)?;
    tmp.write_all(bytes)?;
    tmp.as_file().set_permissions(std::fs::Permissions::from_mode(0o644))?;
    tmp.as_file().sync_all()?;
    tmp.persist(path).map_err(|e| e.error)?;
    sync_dir(dir);
    Ok(())
}

/// Sync the directory `dir`, so that a rename into it lasts through a crash. Best effort: some file
/// systems cannot sync a directory (EINVAL), and what was renamed is whole either way.
pub fn sync_dir(dir: &Path) {
    if let Ok(d) = std::fs::File::open(dir) {
        let _ = d.sync_all();
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

    /// Two writers of one path at once (threads here; processes share nothing more) both finish,
    /// and a reader watching throughout only ever sees one of the two contents whole, never a
    /// truncated or mixed file; no temporary file is left behind.
    #[test]
    fn concurrent_atomic_writes_of_one_path_stay_whole() {
        use std::sync::atomic::{AtomicBool, Ordering};
        let t = tempfile::tempdir().unwrap();
        let p = t.path().join("entry.json");
        // Large enough that a plain truncate-and-write is caught half done.
        let contents: [Vec<u8>; 2] = [vec![b'a'; 1 << 20], vec![b'b'; (1 << 20) + 4096]];
        write_atomic(&p, &contents[0]).unwrap();
        let done = AtomicBool::new(false);
        std::thread::scope(|s| {
            let reader = s.spawn(|| {
                let mut seen = 0usize;
                while !done.load(Ordering::Relaxed) {
                    let got = std::fs::read(&p).unwrap();
                    assert!(contents.contains(&got), "a reader saw {} bytes, not a whole file", got.len());
                    seen += 1;
                }
                seen
            });
            let writers: Vec<_> = contents
                .iter()
                .map(|c| {
                    s.spawn(|| {
                        for _ in 0..40 {
                            write_atomic(&p, c).unwrap();
                        }
                    })
                })
                .collect();
            for w in writers {
                w.join().unwrap();
            }
            done.store(true, Ordering::Relaxed);
            assert!(reader.join().unwrap() > 0);
        });
        assert!(contents.contains(&std::fs::read(&p).unwrap()));
        let names: Vec<String> =
            std::fs::read_dir(t.path()).unwrap().flatten().map(|e| e.file_name().to_string_lossy().into()).collect();
        assert_eq!(names, ["entry.json"], "temporary files left behind");
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(std::fs::metadata(&p).unwrap().permissions().mode() & 0o777, 0o644);
    }

    /// Two runs sharing one results directory store the same key at once: both finish, and the
    /// entry reads back intact.
    #[test]
    fn two_runs_storing_one_key_both_finish() {
        let t = tempfile::tempdir().unwrap();
        let key = sha256_hex(b"shared");
        let outcomes = [Outcome::Printed("_4:_1".repeat(20_000)), Outcome::Printed("_8:_1".repeat(20_000))];
        std::thread::scope(|s| {
            let runs: Vec<_> = outcomes
                .iter()
                .map(|o| {
                    let c = ResultCache::new(t.path());
                    let key = &key;
                    s.spawn(move || (0..20).try_for_each(|_| c.put(key, o)))
                })
                .collect();
            for r in runs {
                r.join().unwrap().unwrap();
            }
        });
        let got = ResultCache::new(t.path()).get(&key).expect("an intact entry");
        assert!(outcomes.contains(&got));
    }

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
