//! The Python launcher script, written where no other user can plant or swap it: a private
//! directory (`$TMPDIR/stepdeck-<uid>`, mode 0700, owned by us, not a symlink, checked on each
//! use), the file created exclusively under a fresh name and renamed into place, and an
//! existing copy run only when its content is ours byte for byte.

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use crate::private_dir::{create_new_file, make_private_dir};

/// Our Python program runner (the PyPI SDK ships none), written to a file at run time.
const PYTHON_LAUNCHER: &str = include_str!("../../../assets/python/launcher.py");

/// Writes the launcher (once per content version) under the system's temporary directory and
/// returns its path.
pub(in crate::rpc) fn write_python_launcher() -> io::Result<PathBuf> {
    write_launcher_in(&std::env::temp_dir())
}

fn write_launcher_in(temp: &Path) -> io::Result<PathBuf> {
    let dir = private_dir(temp)?;
    let digest = hex::encode(&Sha256::digest(PYTHON_LAUNCHER.as_bytes())[..8]);
    let path = dir.join(format!("python-launcher-{digest}.py"));
    let ours = fs::symlink_metadata(&path).is_ok_and(|m| m.file_type().is_file())
        && fs::read(&path).is_ok_and(|b| b == PYTHON_LAUNCHER.as_bytes());
    if !ours {
        let tmp = dir.join(format!(
            ".python-launcher-{digest}.{}.tmp",
            uuid::Uuid::new_v4().simple()
        ));
        let written = create_new_file(&tmp)
            .and_then(|mut f| f.write_all(PYTHON_LAUNCHER.as_bytes()))
            .and_then(|()| fs::rename(&tmp, &path));
        if let Err(e) = written {
            let _ = fs::remove_file(&tmp);
            return Err(e);
        }
    }
    Ok(path)
}

/// `<temp>/stepdeck-<uid>`, created if missing and kept across runs, private to us.
fn private_dir(temp: &Path) -> io::Result<PathBuf> {
    // SAFETY: geteuid has no preconditions and cannot fail.
    let uid = unsafe { libc::geteuid() };
    let dir = temp.join(format!("stepdeck-{uid}"));
    make_private_dir(&dir, true)?;
    Ok(dir)
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};

    use super::*;

    fn digest() -> String {
        hex::encode(&Sha256::digest(PYTHON_LAUNCHER.as_bytes())[..8])
    }

    #[test]
    fn a_planted_launcher_is_never_the_one_run() {
        let temp = tempfile::tempdir().unwrap();
        // Where launchers used to go: shared by every user of the machine.
        let shared = temp.path().join("stepdeck");
        fs::create_dir_all(&shared).unwrap();
        let planted = shared.join(format!("python-launcher-{}.py", digest()));
        fs::write(&planted, "import os; os.system('touch /tmp/pwned')\n").unwrap();
        let path = write_launcher_in(temp.path()).unwrap();
        assert_ne!(path, planted);
        assert_eq!(fs::read_to_string(&path).unwrap(), PYTHON_LAUNCHER);
        let dir = path.parent().unwrap();
        assert_eq!(fs::metadata(dir).unwrap().mode() & 0o777, 0o700);

        // A different file at our own name is replaced, not run.
        fs::write(&path, "print('planted')\n").unwrap();
        assert_eq!(write_launcher_in(temp.path()).unwrap(), path);
        assert_eq!(fs::read_to_string(&path).unwrap(), PYTHON_LAUNCHER);

        // A symlink at our name is replaced; its target is not written through.
        let victim = temp.path().join("victim");
        fs::write(&victim, "precious").unwrap();
        fs::remove_file(&path).unwrap();
        std::os::unix::fs::symlink(&victim, &path).unwrap();
        write_launcher_in(temp.path()).unwrap();
        assert_eq!(fs::read_to_string(&victim).unwrap(), "precious");
        assert!(fs::symlink_metadata(&path).unwrap().file_type().is_file());
    }

    #[test]
    fn a_planted_private_directory_is_refused_or_closed() {
        let temp = tempfile::tempdir().unwrap();
        // SAFETY: geteuid has no preconditions and cannot fail.
        let uid = unsafe { libc::geteuid() };
        let dir = temp.path().join(format!("stepdeck-{uid}"));
        let elsewhere = temp.path().join("elsewhere");
        fs::create_dir_all(&elsewhere).unwrap();
        std::os::unix::fs::symlink(&elsewhere, &dir).unwrap();
        let e = write_launcher_in(temp.path()).unwrap_err().to_string();
        assert!(e.contains("not a directory"), "{e}");
        assert_eq!(fs::read_dir(&elsewhere).unwrap().count(), 0);

        fs::remove_file(&dir).unwrap();
        fs::create_dir(&dir).unwrap();
        fs::set_permissions(&dir, fs::Permissions::from_mode(0o777)).unwrap();
        write_launcher_in(temp.path()).unwrap();
        assert_eq!(fs::metadata(&dir).unwrap().mode() & 0o777, 0o700);
    }
}
