//! The poetry toolchain as Pulumi's Python host asks it where a project's or policy pack's
//! Python is: the virtualenv poetry keeps for the directory's `pyproject.toml`.

use std::path::{Path, PathBuf};
use std::process::Command;

/// Why poetry could not be asked.
#[derive(Debug, thiserror::Error)]
pub enum PoetryError {
    #[error("poetry is not on PATH: install it, or choose another toolchain in {file}")]
    NotOnPath { file: String },
    #[error("running `poetry env info --path` in {dir}: {source}")]
    Io { dir: String, source: std::io::Error },
}

/// The virtualenv `poetry env info --path` names for `dir`, or `None` while poetry has made
/// none. `file` is the project file that chose poetry, named when poetry is missing.
pub fn poetry_env_path(dir: &Path, file: &Path) -> Result<Option<PathBuf>, PoetryError> {
    let out = Command::new("poetry")
        .args(["env", "info", "--path"])
        .current_dir(dir)
        .output()
        .map_err(|source| match source.kind() {
            std::io::ErrorKind::NotFound => PoetryError::NotOnPath {
                file: file.display().to_string(),
            },
            _ => PoetryError::Io {
                dir: dir.display().to_string(),
                source,
            },
        })?;
    let path = String::from_utf8_lossy(&out.stdout).trim().to_string();
    Ok((out.status.success() && !path.is_empty()).then(|| PathBuf::from(path)))
}
