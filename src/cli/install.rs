//! `install`: the `packages:` of the project (or of the plugin, in a `PulumiPlugin.yaml`
//! directory), their SDKs generated and linked, then the dependencies, installed as Pulumi's
//! language hosts install them: Python into its virtualenv (`runtime.options.virtualenv`,
//! created when missing) with the `toolchain` the project names (pip, or poetry/uv when on
//! PATH), Node.js with its `packagemanager`, YAML needing nothing. Plugins are not downloaded.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, anyhow};
use serde_json::Value;

use super::errors::usage;
use super::package::install_packages;
use super::package::target;
use super::stdout::outln;

pub(super) async fn run(dir: &Path, no_dependencies: bool) -> Result<()> {
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
    if no_dependencies {
        return Ok(());
    }
    let option = |key: &str| target.runtime.options.get(key).and_then(Value::as_str);
    let root = &target.root;
    match target.runtime.name.as_str() {
        "yaml" => Ok(()),
        "python" => match option("toolchain").unwrap_or("pip") {
            "pip" => python_pip(root, option("virtualenv")),
            tool @ ("poetry" | "uv") => {
                let args: &[&str] = if tool == "poetry" {
                    &["install", "--no-root"]
                } else {
                    &["sync"]
                };
                outln!("Installing dependencies...\n")?;
                run_tool(tool, args, root, "toolchain")?;
                outln!("Finished installing dependencies")?;
                Ok(())
            }
            other => Err(usage(format!(
                "{}: runtime option toolchain: {other:?} is not pip, poetry or uv",
                target.file.display()
            ))),
        },
        "nodejs" => {
            let pm = match option("packagemanager").unwrap_or("auto") {
                "auto" => detect_package_manager(root),
                pm => pm,
            };
            outln!("Installing dependencies...\n")?;
            run_tool(pm, &["install"], root, "packagemanager")?;
            outln!("Finished installing dependencies")?;
            Ok(())
        }
        other => Err(usage(format!(
            "{}: runtime `{other}` is not supported (supported: yaml, python, nodejs)",
            target.file.display()
        ))),
    }
}

/// The package manager whose lock file the project holds (Pulumi's `auto`), else npm.
fn detect_package_manager(root: &Path) -> &'static str {
    [
        ("yarn.lock", "yarn"),
        ("pnpm-lock.yaml", "pnpm"),
        ("bun.lockb", "bun"),
        ("bun.lock", "bun"),
    ]
    .into_iter()
    .find(|(file, _)| root.join(file).exists())
    .map_or("npm", |(_, pm)| pm)
}

/// Python with pip: the virtualenv created when it has no interpreter yet, then
/// `pip install -r requirements.txt` in it (or, without a virtualenv, for `python3`).
/// Pulumi also upgrades pip, setuptools and wheel first; that needs the network, and is left
/// out.
fn python_pip(root: &Path, virtualenv: Option<&str>) -> Result<()> {
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
            }
            python
        }
        None => PathBuf::from("python3"),
    };
    if !root.join("requirements.txt").exists() {
        return Ok(());
    }
    outln!("Installing dependencies in virtual environment...")?;
    let status = Command::new(&python)
        .args(["-m", "pip", "install", "-r", "requirements.txt"])
        .current_dir(root)
        .status()
        .map_err(|e| anyhow!("running `{} -m pip`: {e}", python.display()))?;
    if !status.success() {
        return Err(anyhow!(
            "installing dependencies via '{} -m pip install -r requirements.txt': {status}",
            python.display()
        ));
    }
    outln!("Finished installing dependencies")?;
    Ok(())
}

/// Runs `tool args` in the project; a tool not on PATH is refused naming the option that
/// chose it.
fn run_tool(tool: &str, args: &[&str], root: &Path, option: &str) -> Result<()> {
    let status = match Command::new(tool).args(args).current_dir(root).status() {
        Ok(s) => s,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(usage(format!(
                "{tool} is not on PATH: install it, or choose another {option} in {}",
                root.join("Pulumi.yaml").display()
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
