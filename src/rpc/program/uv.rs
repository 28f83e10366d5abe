//! The uv toolchain as Pulumi's Python host uses it before any Python of a project or policy
//! pack runs: where uv keeps the virtualenv, and `uv sync --inexact` into it, so that a
//! project's `pyproject.toml` is what its Python sees.

use std::path::{Path, PathBuf};
use std::process::Command;

/// Why the uv virtualenv could not be made ready.
#[derive(Debug, thiserror::Error)]
pub enum UvError {
    #[error("uv is not on PATH: install it, or choose another toolchain in {file}")]
    NotOnPath { file: String },
    #[error("running `uv sync --inexact` in {dir}: {source}")]
    Io { dir: String, source: std::io::Error },
    #[error("error creating virtual environment via 'uv sync --inexact' in {dir}: {stderr}")]
    Sync { dir: String, stderr: String },
}

/// The first of `start` and its ancestors holding `file`.
pub fn search_up(start: &Path, file: &str) -> Option<PathBuf> {
    start
        .ancestors()
        .find(|d| d.join(file).is_file())
        .map(Path::to_path_buf)
}

/// Where uv puts the project's virtualenv, as Pulumi's uv toolchain chooses it: the
/// `virtualenv` option (relative to the project), else `UV_PROJECT_ENVIRONMENT` or `.venv`
/// beside the nearest `uv.lock`, else beside the nearest `pyproject.toml`, else in the project.
pub fn uv_virtualenv(root: &Path, virtualenv: Option<&str>) -> PathBuf {
    virtualenv_for(
        root,
        virtualenv,
        std::env::var_os("UV_PROJECT_ENVIRONMENT").filter(|v| !v.is_empty()),
    )
}

fn virtualenv_for(
    root: &Path,
    virtualenv: Option<&str>,
    project_environment: Option<std::ffi::OsString>,
) -> PathBuf {
    match virtualenv {
        Some(v) => root.join(v),
        None => search_up(root, "uv.lock")
            .or_else(|| search_up(root, "pyproject.toml"))
            .unwrap_or_else(|| root.to_path_buf())
            .join(project_environment.unwrap_or_else(|| ".venv".into())),
    }
}

/// `uv sync --inexact` in `root` (packages it did not lock are left alone), as Pulumi's uv
/// toolchain runs it before it starts the project's Python: the virtualenv made and its
/// dependencies added when a `pyproject.toml` is found; returns the virtualenv. `file` is the
/// project file that chose uv, named when uv is missing.
pub fn uv_synced(root: &Path, virtualenv: Option<&str>, file: &Path) -> Result<PathBuf, UvError> {
    let venv = uv_virtualenv(root, virtualenv);
    if search_up(root, "pyproject.toml").is_none() {
        return Ok(venv);
    }
    let out = Command::new("uv")
        .args(["sync", "--inexact"])
        .env("UV_PROJECT_ENVIRONMENT", &venv)
        .current_dir(root)
        .output()
        .map_err(|source| match source.kind() {
            std::io::ErrorKind::NotFound => UvError::NotOnPath {
                file: file.display().to_string(),
            },
            _ => UvError::Io {
                dir: root.display().to_string(),
                source,
            },
        })?;
    if !out.status.success() {
        return Err(UvError::Sync {
            dir: root.display().to_string(),
            stderr: String::from_utf8_lossy(&out.stderr).trim_end().to_string(),
        });
    }
    Ok(venv)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uvs_virtualenv_is_the_option_else_beside_the_lock_else_beside_pyproject() {
        let dir = tempfile::tempdir().unwrap();
        let project = dir.path().join("infra/projects/app");
        std::fs::create_dir_all(&project).unwrap();
        assert_eq!(
            uv_virtualenv(&project, Some("my-venv")),
            project.join("my-venv")
        );
        std::fs::write(dir.path().join("infra/pyproject.toml"), "").unwrap();
        assert_eq!(
            uv_virtualenv(&project, None),
            dir.path().join("infra/.venv")
        );
        std::fs::write(dir.path().join("uv.lock"), "").unwrap();
        assert_eq!(uv_virtualenv(&project, None), dir.path().join(".venv"));
    }

    #[test]
    fn uv_project_environment_places_the_virtualenv_the_option_does_not_name() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("uv.lock"), "").unwrap();
        let env = |v: &str| Some(std::ffi::OsString::from(v));
        assert_eq!(
            virtualenv_for(dir.path(), None, env("envs/dev")),
            dir.path().join("envs/dev")
        );
        assert_eq!(
            virtualenv_for(dir.path(), None, env("/opt/venv")),
            Path::new("/opt/venv")
        );
        assert_eq!(
            virtualenv_for(dir.path(), Some("venv"), env("/opt/venv")),
            dir.path().join("venv")
        );
    }
}
