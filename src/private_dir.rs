//! Private directories under the temporary directory, for every scratch file of ours that
//! other users must not plant, swap or read (the state `state edit` opens, the Python
//! launcher, the gRPC socket, the demo's project): a real directory (not a symlink), owned by
//! our effective uid, mode 0700; files in it created exclusively, never through a symlink.

use std::fs::{self, File, OpenOptions};
use std::io;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

/// How many taken names a fresh directory tries before it gives up.
const ATTEMPTS: usize = 8;

/// Creates `dir` with mode 0700 (an existing one is kept only when `reuse`), then refuses it
/// unless it is a real directory we own, and closes it to others if its mode was looser.
pub fn make_private_dir(dir: &Path, reuse: bool) -> io::Result<()> {
    match fs::DirBuilder::new().mode(0o700).create(dir) {
        Err(e) if !(reuse && e.kind() == io::ErrorKind::AlreadyExists) => return Err(e),
        _ => {}
    }
    // SAFETY: geteuid has no preconditions and cannot fail.
    let uid = unsafe { libc::geteuid() };
    let meta = fs::symlink_metadata(dir)?;
    let refuse = |why: &str| {
        Err(io::Error::new(
            io::ErrorKind::PermissionDenied,
            format!("{}: {why}; remove it and run again", dir.display()),
        ))
    };
    if !meta.file_type().is_dir() {
        return refuse("not a directory (a symlink or file planted there?)");
    }
    if meta.uid() != uid {
        return refuse(&format!("owned by uid {}, not by us ({uid})", meta.uid()));
    }
    if meta.mode() & 0o077 != 0 {
        fs::set_permissions(dir, fs::Permissions::from_mode(0o700))?;
    }
    Ok(())
}

/// Creates `path` for writing, mode 0600: never a file that exists, never through a symlink.
pub fn create_new_file(path: &Path) -> io::Result<File> {
    OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .custom_flags(libc::O_NOFOLLOW)
        .open(path)
}

/// A directory created fresh under an unpredictable name, private to us; removed with what is
/// in it when dropped, unless [`PrivateDir::keep`] says otherwise.
#[derive(Debug)]
pub struct PrivateDir(Option<PathBuf>);

impl PrivateDir {
    /// `<temp>/<prefix>-<random>`, never one that exists (so nothing planted is trusted).
    pub fn create(prefix: &str) -> io::Result<PrivateDir> {
        PrivateDir::create_in(&std::env::temp_dir(), prefix)
    }

    /// [`PrivateDir::create`] under `base`.
    pub fn create_in(base: &Path, prefix: &str) -> io::Result<PrivateDir> {
        let mut attempts = 0;
        loop {
            let candidate = base.join(format!("{prefix}-{:016x}", rand::random::<u64>()));
            match make_private_dir(&candidate, false) {
                Ok(()) => return Ok(PrivateDir(Some(candidate))),
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists && attempts < ATTEMPTS => {
                    attempts += 1;
                }
                Err(e) => return Err(e),
            }
        }
    }

    /// The directory.
    pub fn path(&self) -> &Path {
        self.0.as_deref().unwrap_or(Path::new(""))
    }

    /// Creates the file `name` in the directory (see [`create_new_file`]).
    pub fn create_file(&self, name: &str) -> io::Result<(PathBuf, File)> {
        let path = self.path().join(name);
        let file = create_new_file(&path)?;
        Ok((path, file))
    }

    /// Leaves the directory and its files in place (what they hold must not be lost).
    pub fn keep(mut self) -> PathBuf {
        self.0.take().unwrap_or_default()
    }
}

impl Drop for PrivateDir {
    fn drop(&mut self) {
        if let Some(dir) = self.0.take() {
            let _ = fs::remove_dir_all(dir);
        }
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use super::*;

    #[test]
    fn a_fresh_directory_is_never_one_that_exists() {
        let temp = tempfile::tempdir().unwrap();
        let dir = temp.path().join("fresh");
        make_private_dir(&dir, false).unwrap();
        assert_eq!(fs::metadata(&dir).unwrap().mode() & 0o777, 0o700);
        let again = make_private_dir(&dir, false).unwrap_err();
        assert_eq!(again.kind(), io::ErrorKind::AlreadyExists);
        make_private_dir(&dir, true).unwrap();
    }

    #[test]
    fn files_are_created_exclusively_and_never_through_a_symlink() {
        let temp = tempfile::tempdir().unwrap();
        let dir = PrivateDir::create_in(temp.path(), "scratch").unwrap();
        let (path, mut f) = dir.create_file("a.json").unwrap();
        f.write_all(b"{}").unwrap();
        assert_eq!(fs::metadata(&path).unwrap().mode() & 0o777, 0o600);
        assert_eq!(
            dir.create_file("a.json").unwrap_err().kind(),
            io::ErrorKind::AlreadyExists
        );
        let victim = temp.path().join("victim");
        fs::write(&victim, "keep").unwrap();
        std::os::unix::fs::symlink(&victim, dir.path().join("b.json")).unwrap();
        assert!(dir.create_file("b.json").is_err());
        assert_eq!(fs::read_to_string(&victim).unwrap(), "keep");

        let kept = dir.keep();
        assert!(kept.join("a.json").exists(), "kept on request");
        let gone = PrivateDir::create_in(temp.path(), "scratch").unwrap();
        let path = gone.path().to_path_buf();
        drop(gone);
        assert!(!path.exists(), "removed on drop");
    }
}
