//! The scripts our language hosts start programs with (the Python launcher, the Node preload),
//! written where no other user can plant or swap them: a private directory
//! (`$TMPDIR/stepdeck-<uid>`, mode 0700, owned by us, not a symlink, checked on each use), each
//! file created exclusively under a fresh name and renamed into place, and an existing copy run
//! only when its content is ours byte for byte.

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use crate::private_dir::{create_new_file, make_private_dir};

/// Our Python program runner (the PyPI SDK ships none), written to a file at run time.
const PYTHON_LAUNCHER: Script = Script {
    stem: "python-launcher",
    extension: "py",
    text: include_str!("../../../assets/python/launcher.py"),
};

/// Loaded before the Node SDK's runner so an uncaught error is reported at once, not after
/// Node 20.20's colored error formatting loops for tens of seconds (see the file).
const NODE_PRELOAD: Script = Script {
    stem: "node-preload",
    extension: "js",
    text: include_str!("../../../assets/node/preload.js"),
};

struct Script {
    stem: &'static str,
    extension: &'static str,
    text: &'static str,
}

/// Writes the Python launcher (once per content version) under the system's temporary
/// directory and returns its path.
pub(in crate::rpc) fn write_python_launcher() -> io::Result<PathBuf> {
    write_script_in(&std::env::temp_dir(), &PYTHON_LAUNCHER)
}

/// Writes the Node preload (once per content version) and returns its path.
pub(in crate::rpc) fn write_node_preload() -> io::Result<PathBuf> {
    write_script_in(&std::env::temp_dir(), &NODE_PRELOAD)
}

fn write_script_in(temp: &Path, script: &Script) -> io::Result<PathBuf> {
    let dir = private_dir(temp)?;
    let Script {
        stem,
        extension,
        text,
    } = script;
    let digest = hex::encode(&Sha256::digest(text.as_bytes())[..8]);
    let path = dir.join(format!("{stem}-{digest}.{extension}"));
    let ours = fs::symlink_metadata(&path).is_ok_and(|m| m.file_type().is_file())
        && fs::read(&path).is_ok_and(|b| b == text.as_bytes());
    if !ours {
        let tmp = dir.join(format!(
            ".{stem}-{digest}.{}.tmp",
            uuid::Uuid::new_v4().simple()
        ));
        let written = create_new_file(&tmp)
            .and_then(|mut f| f.write_all(text.as_bytes()))
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
        hex::encode(&Sha256::digest(PYTHON_LAUNCHER.text.as_bytes())[..8])
    }

    fn write_launcher_in(temp: &Path) -> io::Result<PathBuf> {
        write_script_in(temp, &PYTHON_LAUNCHER)
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
        assert_eq!(fs::read_to_string(&path).unwrap(), PYTHON_LAUNCHER.text);
        let dir = path.parent().unwrap();
        assert_eq!(fs::metadata(dir).unwrap().mode() & 0o777, 0o700);

        // A different file at our own name is replaced, not run.
        fs::write(&path, "print('planted')\n").unwrap();
        assert_eq!(write_launcher_in(temp.path()).unwrap(), path);
        assert_eq!(fs::read_to_string(&path).unwrap(), PYTHON_LAUNCHER.text);

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
