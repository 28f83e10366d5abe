//! `install`: the `packages:` of the project (or of the plugin, in a `PulumiPlugin.yaml`
//! directory), their SDKs generated and linked, then the dependencies (a policy pack's, in a
//! `PulumiPolicy.yaml` directory, which has no `packages:`), installed as Pulumi's
//! language hosts install them: Python into its virtualenv (`runtime.options.virtualenv`,
//! created when missing) with the `toolchain` the project names (pip, or poetry/uv when on
//! PATH), Node.js with its `packagemanager`, YAML needing nothing. Plugins are not downloaded.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, anyhow};
use serde_json::Value;
use stepdeck::policy::pack_file::{PACK_FILE, PackProject};
use stepdeck::project::{Project, Runtime};
use stepdeck::rpc::program::poetry::{PoetryError, poetry_env_path};
use stepdeck::rpc::program::uv::{search_up, uv_virtualenv};

use super::errors::usage;
use super::node_package_manager::detect_package_manager;
use super::node_workspace::workspace_root;
use super::package::install_packages;
use super::package::target::{self, Target};
use super::stdout::outln;

pub(super) async fn run(dir: &Path, no_dependencies: bool) -> Result<()> {
    let target = match policy_pack_at(dir)? {
        Some(pack) => pack,
        None => {
            let target = target::at(dir)?.ok_or_else(|| {
                usage(format!(
                    "no Pulumi.yaml project file found in {}; pass --cwd DIR or run from a project directory",
                    dir.display()
                ))
            })?;
            let file = target
                .file
                .file_name()
                .map(|f| f.to_string_lossy().into_owned())
                .unwrap_or_default();
            install_packages(&target)
                .await
                .with_context(|| format!("installing `packages` from {file}"))?;
            target
        }
    };
    if no_dependencies {
        return Ok(());
    }
    let option = |key: &str| target.runtime.options.get(key).and_then(Value::as_str);
    let root = &target.root;
    match target.runtime.name.as_str() {
        "yaml" => Ok(()),
        "python" => match option("toolchain").unwrap_or("pip") {
            "pip" => python_pip(root, &program_directory(root), option("virtualenv")),
            "poetry" => {
                outln!("Installing dependencies...\n")?;
                let dir = program_directory(root);
                poetry_convert_requirements(&dir)?;
                run_tool("poetry", &["install", "--no-ansi"], &dir, &[], "toolchain")?;
                outln!("Finished installing dependencies")?;
                Ok(())
            }
            "uv" => {
                outln!("Installing dependencies...\n")?;
                let venv = uv_virtualenv(root, option("virtualenv"));
                let env = [("UV_PROJECT_ENVIRONMENT", venv.as_os_str())];
                if search_up(root, "uv.lock").is_none() {
                    uv_convert_requirements(root, &env)?;
                }
                run_tool("uv", &["sync"], root, &env, "toolchain")?;
                outln!("Finished installing dependencies")?;
                Ok(())
            }
            other => Err(usage(format!(
                "{}: runtime option toolchain: {other:?} is not pip, poetry or uv",
                target.file.display()
            ))),
        },
        name @ ("nodejs" | "bun") => {
            // Pulumi's host in bun mode installs with bun whatever `packagemanager` says.
            let pm = match (name, option("packagemanager").unwrap_or("auto")) {
                ("bun", _) => "bun",
                (_, "auto") => detect_package_manager(root),
                (_, pm) => pm,
            };
            outln!("Installing dependencies...\n")?;
            let dir = workspace_root(root).unwrap_or_else(|| root.clone());
            run_tool(pm, &["install"], &dir, &[], "packagemanager")?;
            outln!("Finished installing dependencies")?;
            Ok(())
        }
        other => Err(usage(format!(
            "{}: runtime `{other}` is not supported (supported: yaml, python, nodejs, bun)",
            target.file.display()
        ))),
    }
}

/// The policy pack whose `PulumiPolicy.yaml` is in `dir`, as a target whose dependencies are
/// installed as a program's of its runtime are (Pulumi's `InstallPluginDependencies`).
fn policy_pack_at(dir: &Path) -> Result<Option<Target>> {
    let file = dir.join(PACK_FILE);
    if !file.is_file() {
        return Ok(None);
    }
    let pack = PackProject::load(dir).map_err(|e| {
        usage(format!(
            "failed to load Pulumi policy project located at {:?}: {e}",
            file.display().to_string()
        ))
    })?;
    Ok(Some(Target {
        root: dir.to_path_buf(),
        file,
        runtime: Runtime {
            name: pack.runtime.name,
            options: pack.runtime.options,
        },
    }))
}

/// Python with pip: the virtualenv created when it has no interpreter yet (with pip,
/// setuptools and wheel upgraded in it, as Pulumi's pip toolchain does), then
/// `pip install -r requirements.txt` from the program directory in it (or, without a
/// virtualenv, for `python3`).
fn python_pip(root: &Path, program_dir: &Path, virtualenv: Option<&str>) -> Result<()> {
    let python = match virtualenv {
        Some(v) => {
            let venv = root.join(v);
            let python = venv.join("bin").join("python");
            if !python.exists() {
                outln!("Creating virtual environment...")?;
                let interpreter = std::env::var("PULUMI_PYTHON_CMD").unwrap_or("python3".into());
                let status = Command::new(&interpreter)
                    .args(["-m", "venv"])
                    .arg(&venv)
                    .current_dir(root)
                    .status()
                    .map_err(|e| anyhow!("running `{interpreter} -m venv`: {e}"))?;
                if !status.success() {
                    return Err(anyhow!(
                        "creating virtual environment at '{}': {status}",
                        venv.display()
                    ));
                }
                outln!("Finished creating virtual environment")?;
                outln!("Updating pip, setuptools, and wheel in virtual environment...")?;
                pip(
                    &python,
                    &["install", "--upgrade", "pip", "setuptools", "wheel"],
                    program_dir,
                )?;
                outln!("Finished updating")?;
            }
            python
        }
        None => PathBuf::from("python3"),
    };
    if !program_dir.join("requirements.txt").exists() {
        return Ok(());
    }
    outln!("Installing dependencies in virtual environment...")?;
    pip(&python, &["install", "-r", "requirements.txt"], program_dir)?;
    outln!("Finished installing dependencies")?;
    Ok(())
}

/// `python -m pip args` in `dir`, which must succeed.
fn pip(python: &Path, args: &[&str], dir: &Path) -> Result<()> {
    let status = Command::new(python)
        .args(["-m", "pip"])
        .args(args)
        .current_dir(dir)
        .status()
        .map_err(|e| anyhow!("running `{} -m pip`: {e}", python.display()))?;
    if !status.success() {
        return Err(anyhow!(
            "installing dependencies via '{} -m pip {}': {status}",
            python.display(),
            args.join(" ")
        ));
    }
    Ok(())
}

/// As Pulumi's pip toolchain's `EnsureVenv` before a program runs: a `virtualenv` option
/// naming no virtualenv yet gets one, with the program's `requirements.txt` installed in it.
pub(super) fn ensure_pip_virtualenv(root: &Path, virtualenv: &str) -> Result<()> {
    if root.join(virtualenv).join("pyvenv.cfg").is_file() {
        return Ok(());
    }
    python_pip(root, &program_directory(root), Some(virtualenv))
}

/// Runs `tool args` in the project; a tool not on PATH is refused naming the option that
/// chose it.
fn run_tool(
    tool: &str,
    args: &[&str],
    root: &Path,
    env: &[(&str, &std::ffi::OsStr)],
    option: &str,
) -> Result<()> {
    let status = match Command::new(tool)
        .args(args)
        .envs(env.iter().copied())
        .current_dir(root)
        .status()
    {
        Ok(s) => s,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let file = Some(root.join(PACK_FILE))
                .filter(|f| f.is_file())
                .unwrap_or_else(|| root.join("Pulumi.yaml"));
            return Err(usage(format!(
                "{tool} is not on PATH: install it, or choose another {option} in {}",
                file.display()
            )));
        }
        Err(e) => return Err(e).with_context(|| format!("running `{tool}`")),
    };
    if !status.success() {
        return Err(anyhow!(
            "installing dependencies via '{tool} {}': {status}",
            args.join(" ")
        ));
    }
    Ok(())
}

/// The directory the program runs in (`main` when it names a directory), where Pulumi runs
/// poetry so that the program's own `pyproject.toml` is the one found.
fn program_directory(root: &Path) -> PathBuf {
    match Project::load(root).ok().and_then(|p| p.main) {
        Some(main) if root.join(&main).is_dir() => root.join(main),
        _ => root.to_path_buf(),
    }
}

/// A project without a `pyproject.toml` becomes a uv project: `uv init` where its nearest
/// `requirements.txt` is (else in the project), whose requirements are added and which is then
/// deleted, as Pulumi's uv toolchain converts it.
pub(super) fn uv_convert_requirements(root: &Path, env: &[(&str, &std::ffi::OsStr)]) -> Result<()> {
    if search_up(root, "pyproject.toml").is_some() {
        return Ok(());
    }
    let name = Project::load(root).ok().map(|p| p.name);
    let requirements = search_up(root, "requirements.txt");
    let dir = requirements.clone().unwrap_or_else(|| root.to_path_buf());
    let mut init = vec!["init", "--bare", "--no-package", "--no-pin-python"];
    if let Some(name) = &name {
        init.extend(["--name", name]);
    }
    run_tool("uv", &init, &dir, env, "toolchain")?;
    if let Some(dir) = requirements {
        run_tool(
            "uv",
            &["add", "--no-sync", "-r", "requirements.txt"],
            &dir,
            env,
            "toolchain",
        )?;
        requirements_converted(&dir)?;
    }
    Ok(())
}

/// The virtualenv of a poetry project, as `poetry env info --path` in the program's directory
/// names it; when it has none yet, `poetry install` makes it first, as Pulumi's Python host
/// does before it runs the program.
pub(super) fn poetry_virtualenv(program_dir: &Path) -> Result<PathBuf> {
    let file = program_dir.join("Pulumi.yaml");
    let info = || {
        poetry_env_path(program_dir, &file).map_err(|e| match e {
            PoetryError::NotOnPath { .. } => usage(e.to_string()),
            e => anyhow!(e),
        })
    };
    if let Some(venv) = info()? {
        return Ok(venv);
    }
    let install = Command::new("poetry")
        .args(["install", "--no-ansi"])
        .current_dir(program_dir)
        .output()
        .context("running `poetry install`")?;
    if !install.status.success() {
        return Err(anyhow!(
            "installing dependencies via 'poetry install --no-ansi' in {}: {}\n{}",
            program_dir.display(),
            install.status,
            String::from_utf8_lossy(&install.stderr)
        ));
    }
    info()?.ok_or_else(|| anyhow!("poetry made no virtualenv for {}", program_dir.display()))
}

/// A poetry project without a `pyproject.toml` gets one, where its nearest `requirements.txt`
/// is (which is then deleted; else in the program's directory), naming those requirements as
/// poetry dependencies, as Pulumi's poetry toolchain converts it.
pub(super) fn poetry_convert_requirements(dir: &Path) -> Result<()> {
    if search_up(dir, "pyproject.toml").is_some() {
        return Ok(());
    }
    let requirements = search_up(dir, "requirements.txt");
    let mut deps = vec![("python".to_string(), "^3.10".to_string())];
    if let Some(at) = &requirements {
        let file = at.join("requirements.txt");
        let text = std::fs::read_to_string(&file)
            .with_context(|| format!("reading {}", file.display()))?;
        deps.extend(text.lines().filter_map(requirement));
    }
    let name = Project::load(dir)
        .ok()
        .map(|p| format!("[project]\nname = {:?}\n\n", p.name))
        .unwrap_or_default();
    let deps: String = deps
        .iter()
        .map(|(k, v)| format!("{k:?} = {v:?}\n"))
        .collect();
    let text = format!(
        "{name}[build-system]\nrequires = [\"poetry-core\"]\nbuild-backend = \"poetry.core.masonry.api\"\n\n\
         [tool.poetry]\npackage-mode = false\n\n[tool.poetry.dependencies]\n{deps}"
    );
    let at = requirements.clone().unwrap_or_else(|| dir.to_path_buf());
    std::fs::write(at.join("pyproject.toml"), text)
        .with_context(|| format!("writing {}", at.join("pyproject.toml").display()))?;
    if let Some(at) = requirements {
        requirements_converted(&at)?;
    }
    Ok(())
}

/// Removes `dir`'s requirements.txt once pyproject.toml holds its dependencies, and says so
/// in Pulumi's words.
fn requirements_converted(dir: &Path) -> Result<()> {
    let requirements = dir.join("requirements.txt");
    std::fs::remove_file(&requirements)
        .with_context(|| format!("removing {}", requirements.display()))?;
    outln!(
        "Deleted requirements.txt, dependencies for this project are tracked in pyproject.toml"
    )?;
    Ok(())
}

/// A requirements line as a poetry dependency: `pulumi>=3.0,<4` is `pulumi = ">=3.0,<4"`, a
/// bare name any version, `==` dropped from an exact one.
fn requirement(line: &str) -> Option<(String, String)> {
    let line = line.split('#').next().unwrap_or("").trim();
    if line.is_empty() {
        return None;
    }
    let at = line.find(['<', '>', '=']).unwrap_or(line.len());
    let (name, version) = line.split_at(at);
    let version = version.trim();
    let version = version.strip_prefix("==").unwrap_or(version).trim();
    let version = if version.is_empty() { "*" } else { version };
    Some((name.trim().to_string(), version.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requirements_become_poetry_dependencies_as_pulumi_converts_them() {
        let dep = |line: &str| requirement(line).map(|(n, v)| format!("{n} = {v}"));
        assert_eq!(
            dep("pulumi>=3.0.0,<4.0.0").as_deref(),
            Some("pulumi = >=3.0.0,<4.0.0")
        );
        assert_eq!(
            dep("pulumi-random==4.16.7  # pinned").as_deref(),
            Some("pulumi-random = 4.16.7")
        );
        assert_eq!(dep("requests").as_deref(), Some("requests = *"));
        assert_eq!(dep("  # a comment"), None);
        assert_eq!(dep(""), None);
    }
}
