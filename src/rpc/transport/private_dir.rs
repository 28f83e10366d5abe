//! Private directories under the temporary directory, for what other users must not plant,
//! swap or reach (the Python launcher, the gRPC socket): a real directory (not a symlink),
//! owned by our effective uid, mode 0700.

use std::fs;
use std::io;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, PermissionsExt};
use std::path::Path;

/// Creates `dir` with mode 0700 (an existing one is kept only when `reuse`), then refuses it
/// unless it is a real directory we own, and closes it to others if its mode was looser.
pub(in crate::rpc) fn make_private_dir(dir: &Path, reuse: bool) -> io::Result<()> {
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

#[cfg(test)]
mod tests {
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
}
