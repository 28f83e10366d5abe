//! Crash-safe file replacement: readers see either the old file or the new one, never a mix,
//! whenever the process or the machine stops.

use std::fs::{self, File, OpenOptions};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

/// Writes `bytes` to a temporary file beside `path`, syncs it, renames it over `path` and
/// syncs the directory so that the rename itself survives a power cut.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    write_atomic_with(path, |f| f.write_all(bytes))
}

/// [`write_atomic`] for content produced piecewise by `write` (through a buffer), so that a
/// large file is never held whole in memory.
pub fn write_atomic_with(
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> io::Result<()> {
    Prepared::write(path, write)?.commit()
}

/// A file written and synced under a temporary name beside its target, not yet in place: the
/// slow part of [`write_atomic_with`], done before [`Prepared::commit`] so that the rename can
/// happen under a lock held only for it. Dropped uncommitted, the temporary file is removed.
pub struct Prepared {
    tmp: PathBuf,
    path: PathBuf,
    committed: bool,
}

impl Prepared {
    /// Writes the content of `path` to a new temporary file beside it and syncs it.
    pub fn write(
        path: &Path,
        write: impl FnOnce(&mut dyn Write) -> io::Result<()>,
    ) -> io::Result<Prepared> {
        let dir = path.parent().unwrap_or(Path::new("."));
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("file");
        let prepared = Prepared {
            tmp: dir.join(format!(".{name}.tmp-{}", uuid::Uuid::new_v4().simple())),
            path: path.to_path_buf(),
            committed: false,
        };
        let f = OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&prepared.tmp)?;
        let mut out = BufWriter::with_capacity(1 << 20, f);
        write(&mut out)?;
        let f = out.into_inner().map_err(io::IntoInnerError::into_error)?;
        f.sync_all()?;
        Ok(prepared)
    }

    /// Renames the file over its target and syncs the directory, so that the rename itself
    /// survives a power cut.
    pub fn commit(mut self) -> io::Result<()> {
        fs::rename(&self.tmp, &self.path)?;
        self.committed = true;
        sync_dir(self.path.parent().unwrap_or(Path::new(".")))
    }
}

impl Drop for Prepared {
    fn drop(&mut self) {
        if !self.committed {
            let _ = fs::remove_file(&self.tmp);
        }
    }
}

/// Makes renames, creations and removals in `dir` durable.
pub fn sync_dir(dir: &Path) -> io::Result<()> {
    File::open(dir)?.sync_all()
}

/// Whether a file name is a temporary left behind by an interrupted [`write_atomic`].
pub fn is_leftover_temp(name: &str) -> bool {
    name.starts_with('.') && name.contains(".tmp-")
}
