//! The command that starts a policy pack, as Pulumi's language hosts build it for `RunPlugin`
//! with kind `analyzer`: a Python pack runs `python -u -m pulumi.policy <engine> <dir>` in its
//! virtualenv (on `toolchain: uv` synced first, on poetry the one poetry keeps for the pack,
//! as the program toolchains of `rpc::program` find them), a Node pack runs its own `node_modules`' `run-policy-pack` with the same two
//! arguments (a `runtime: bun` pack under `bun run`, as Pulumi's Node.js host in its bun mode
//! starts one), an executable file runs as a binary analyzer. The working directory is the
//! pack's, and the stack's identity and decrypted configuration are in the environment, which
//! the SDKs read when the pack's module loads.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::rpc::program::language_host::{find_node_module, sdk_too_old_for_bun};
use crate::rpc::program::poetry::poetry_env_path;
use crate::rpc::program::uv::uv_synced;

/// The file in a pack's directory that says how it runs (read by `policy::pack_file`).
pub const PACK_FILE: &str = "PulumiPolicy.yaml";

/// The Node SDK's policy pack runner, resolved from the pack's directory.
pub const RUN_POLICY_PACK_MODULE: &str = "@pulumi/pulumi/cmd/run-policy-pack/index.js";

/// The stack a pack analyzes, as the pack's environment and `ConfigureStack` carry it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StackIdentity {
    pub organization: String,
    pub project: String,
    pub stack: String,
    pub dry_run: bool,
    /// `<namespace>:<key>` to the value's text, secrets decrypted.
    pub config: BTreeMap<String, String>,
    pub secret_keys: Vec<String>,
    pub tags: BTreeMap<String, String>,
}

/// How a pack's runtime is named in `PulumiPolicy.yaml`, with its options.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PackRuntime {
    pub name: String,
    pub options: BTreeMap<String, Value>,
}

/// Why a pack's command cannot be built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LaunchError {
    #[error(
        "it looks like the policy pack's dependencies are not installed; try running npm install or yarn install in {0:?}"
    )]
    NodeDependencies(String),
    #[error(
        "{path} is not a virtualenv (it has no bin/python): create it and install the pack's requirements into it"
    )]
    NoVirtualenv { path: String },
    #[error("PulumiPolicy.yaml: runtime.options.{option} must be {expected}")]
    BadOption {
        option: String,
        expected: &'static str,
    },
    #[error(
        "PulumiPolicy.yaml: runtime {0:?} is not supported (stepdeck runs python, nodejs and bun policy packs)"
    )]
    UnsupportedRuntime(String),
    /// A bun pack whose `@pulumi/pulumi` is older than bun needs.
    #[error("{0}")]
    SdkTooOldForBun(String),
    /// A poetry pack for which poetry could not be asked.
    #[error("{0}")]
    Poetry(String),
    #[error(
        "poetry has no virtualenv for the policy pack in {0}: run `stepdeck install` in the pack"
    )]
    NoPoetryVirtualenv(String),
    /// A uv pack whose virtualenv could not be synced.
    #[error("{0}")]
    Uv(String),
}

/// A pack's process as it is to be started.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PackCommand {
    pub program: PathBuf,
    pub args: Vec<OsString>,
    pub cwd: PathBuf,
    pub env: Vec<(String, String)>,
    pub env_remove: Vec<String>,
}

fn string_option(
    options: &BTreeMap<String, Value>,
    option: &str,
) -> Result<Option<String>, LaunchError> {
    match options.get(option) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err(LaunchError::BadOption {
            option: option.into(),
            expected: "a string",
        }),
    }
}

/// The variables the SDKs configure their runtime from (Pulumi's policy proxy sets them from
/// `ConfigureStack`; empty values are left out).
fn identity_env(identity: &StackIdentity, prefixes: &[&str]) -> Vec<(String, String)> {
    let dry_run = identity.dry_run.to_string();
    let mut env = Vec::new();
    for prefix in prefixes {
        for (name, value) in [
            ("ORGANIZATION", identity.organization.as_str()),
            ("PROJECT", identity.project.as_str()),
            ("STACK", identity.stack.as_str()),
            ("DRY_RUN", dry_run.as_str()),
        ] {
            if !value.is_empty() {
                env.push((format!("{prefix}{name}"), value.to_string()));
            }
        }
    }
    let config = serde_json::to_string(&identity.config).unwrap_or_default();
    env.push(("PULUMI_CONFIG".to_string(), config));
    env
}

/// The command for the pack at `dir` (absolute) with `runtime`; without one, `dir` is an
/// executable file started as a binary analyzer.
pub fn command(
    dir: &Path,
    runtime: Option<&PackRuntime>,
    identity: &StackIdentity,
    engine_address: &str,
) -> Result<PackCommand, LaunchError> {
    let Some(runtime) = runtime else {
        return Ok(PackCommand {
            program: dir.to_path_buf(),
            args: vec![engine_address.into()],
            cwd: dir.parent().unwrap_or(dir).to_path_buf(),
            env: Vec::new(),
            env_remove: Vec::new(),
        });
    };
    match runtime.name.as_str() {
        "python" => python(dir, &runtime.options, identity, engine_address),
        "nodejs" => node(dir, &runtime.options, identity, engine_address),
        "bun" => bun(dir, identity, engine_address),
        other => Err(LaunchError::UnsupportedRuntime(other.to_string())),
    }
}

fn python(
    dir: &Path,
    options: &BTreeMap<String, Value>,
    identity: &StackIdentity,
    engine_address: &str,
) -> Result<PackCommand, LaunchError> {
    let toolchain = string_option(options, "toolchain")?;
    let option = string_option(options, "virtualenv")?;
    let virtualenv = match (option, toolchain.as_deref()) {
        // The virtualenv poetry keeps for the pack (`install` in the pack makes it).
        (_, Some("poetry")) => Some(
            poetry_env_path(dir, &dir.join(PACK_FILE))
                .map_err(|e| LaunchError::Poetry(e.to_string()))?
                .ok_or_else(|| LaunchError::NoPoetryVirtualenv(dir.display().to_string()))?,
        ),
        // As Pulumi's uv toolchain starts any Python: the pack's `pyproject.toml` synced into
        // the virtualenv first.
        (option, Some("uv")) => Some(
            uv_synced(dir, option.as_deref(), &dir.join(PACK_FILE))
                .map_err(|e| LaunchError::Uv(e.to_string()))?,
        ),
        (Some(v), _) => Some(dir.join(v)),
        // pip without the option runs the ambient Python (Pulumi gives analyzers no default
        // virtualenv).
        (None, _) => None,
    };
    let mut env = identity_env(identity, &["PULUMI_"]);
    let mut env_remove = Vec::new();
    let program = match &virtualenv {
        Some(venv) => {
            let python = venv.join("bin").join("python");
            if !python.exists() {
                return Err(LaunchError::NoVirtualenv {
                    path: venv.display().to_string(),
                });
            }
            let path = std::env::var_os("PATH").unwrap_or_default();
            let mut paths = vec![venv.join("bin")];
            paths.extend(std::env::split_paths(&path));
            let joined = std::env::join_paths(paths).unwrap_or(path);
            env.push(("VIRTUAL_ENV".into(), venv.display().to_string()));
            env.push(("PATH".into(), joined.to_string_lossy().into_owned()));
            env_remove.push("PYTHONHOME".to_string());
            python
        }
        None => std::env::var_os("PULUMI_PYTHON_CMD")
            .map_or_else(|| PathBuf::from("python3"), PathBuf::from),
    };
    Ok(PackCommand {
        program,
        args: vec![
            "-u".into(),
            "-m".into(),
            "pulumi.policy".into(),
            engine_address.into(),
            dir.into(),
        ],
        cwd: dir.to_path_buf(),
        env,
        env_remove,
    })
}

fn node(
    dir: &Path,
    options: &BTreeMap<String, Value>,
    identity: &StackIdentity,
    engine_address: &str,
) -> Result<PackCommand, LaunchError> {
    let module = find_node_module(dir, RUN_POLICY_PACK_MODULE)
        .ok_or_else(|| LaunchError::NodeDependencies(dir.display().to_string()))?;
    let mut args: Vec<OsString> = match string_option(options, "nodeargs")? {
        Some(text) => shlex::split(&text)
            .ok_or(LaunchError::BadOption {
                option: "nodeargs".into(),
                expected: "arguments a shell can split",
            })?
            .into_iter()
            .map(OsString::from)
            .collect(),
        None => Vec::new(),
    };
    args.extend([module.into_os_string(), engine_address.into(), dir.into()]);
    Ok(PackCommand {
        program: PathBuf::from("node"),
        args,
        cwd: dir.to_path_buf(),
        env: identity_env(identity, &["PULUMI_NODEJS_", "PULUMI_"]),
        env_remove: Vec::new(),
    })
}

/// A `runtime: bun` pack: the SDK's runner under `bun run`, which compiles the pack's
/// TypeScript itself; `nodeargs` (and the TypeScript options) are ignored, as Pulumi's host in
/// bun mode ignores them.
fn bun(
    dir: &Path,
    identity: &StackIdentity,
    engine_address: &str,
) -> Result<PackCommand, LaunchError> {
    let module = find_node_module(dir, RUN_POLICY_PACK_MODULE)
        .ok_or_else(|| LaunchError::NodeDependencies(dir.display().to_string()))?;
    if let Some(refused) = sdk_too_old_for_bun(&module) {
        return Err(LaunchError::SdkTooOldForBun(refused));
    }
    Ok(PackCommand {
        program: PathBuf::from("bun"),
        args: vec![
            "run".into(),
            module.into_os_string(),
            engine_address.into(),
            dir.into(),
        ],
        cwd: dir.to_path_buf(),
        env: identity_env(identity, &["PULUMI_NODEJS_", "PULUMI_"]),
        env_remove: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn identity() -> StackIdentity {
        StackIdentity {
            organization: "organization".into(),
            project: "proj".into(),
            stack: "dev".into(),
            dry_run: true,
            config: [("proj:foo".to_string(), "bar".to_string())].into(),
            ..StackIdentity::default()
        }
    }

    #[test]
    fn a_python_pack_runs_pulumi_policy_in_its_virtualenv_with_the_stack_in_its_environment() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("venv/bin")).unwrap();
        std::fs::write(dir.path().join("venv/bin/python"), "").unwrap();
        let runtime = PackRuntime {
            name: "python".into(),
            options: [("virtualenv".to_string(), Value::from("venv"))].into(),
        };
        let cmd = command(dir.path(), Some(&runtime), &identity(), "127.0.0.1:1").unwrap();
        assert_eq!(cmd.program, dir.path().join("venv/bin/python"));
        let args: Vec<String> = cmd
            .args
            .iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        assert_eq!(
            args,
            [
                "-u",
                "-m",
                "pulumi.policy",
                "127.0.0.1:1",
                &dir.path().display().to_string()
            ]
        );
        assert_eq!(cmd.cwd, dir.path());
        let env: BTreeMap<_, _> = cmd.env.into_iter().collect();
        assert_eq!(env["PULUMI_STACK"], "dev");
        assert_eq!(env["PULUMI_PROJECT"], "proj");
        assert_eq!(env["PULUMI_DRY_RUN"], "true");
        assert_eq!(env["PULUMI_CONFIG"], r#"{"proj:foo":"bar"}"#);
        assert!(!env.contains_key("PULUMI_NODEJS_STACK"));
        assert!(cmd.env_remove.contains(&"PYTHONHOME".to_string()));
    }

    #[test]
    fn a_missing_virtualenv_or_node_modules_says_what_to_install() {
        let dir = tempfile::tempdir().unwrap();
        let runtime = PackRuntime {
            name: "python".into(),
            options: [("virtualenv".to_string(), Value::from("venv"))].into(),
        };
        let e = command(dir.path(), Some(&runtime), &identity(), "x").unwrap_err();
        assert!(e.to_string().contains("is not a virtualenv"), "{e}");
        let node = PackRuntime {
            name: "nodejs".into(),
            options: BTreeMap::new(),
        };
        let e = command(dir.path(), Some(&node), &identity(), "x").unwrap_err();
        assert!(e.to_string().contains("npm install"), "{e}");
        let go = PackRuntime {
            name: "go".into(),
            options: BTreeMap::new(),
        };
        let e = command(dir.path(), Some(&go), &identity(), "x").unwrap_err();
        assert_eq!(e, LaunchError::UnsupportedRuntime("go".into()));
    }

    #[test]
    fn a_bun_pack_runs_the_sdks_runner_under_bun_run_if_its_sdk_is_new_enough() {
        let dir = tempfile::tempdir().unwrap();
        let sdk = dir.path().join("node_modules/@pulumi/pulumi");
        std::fs::create_dir_all(sdk.join("cmd/run-policy-pack")).unwrap();
        std::fs::write(sdk.join("cmd/run-policy-pack/index.js"), "").unwrap();
        let bun = PackRuntime {
            name: "bun".into(),
            options: [("nodeargs".to_string(), Value::from("--inspect"))].into(),
        };
        std::fs::write(sdk.join("package.json"), r#"{"version": "3.226.0"}"#).unwrap();
        let cmd = command(dir.path(), Some(&bun), &identity(), "127.0.0.1:1").unwrap();
        assert_eq!(cmd.program, PathBuf::from("bun"));
        let runner = sdk.join("cmd/run-policy-pack/index.js");
        let expected: Vec<OsString> = vec![
            "run".into(),
            runner.into(),
            "127.0.0.1:1".into(),
            dir.path().into(),
        ];
        assert_eq!(cmd.args, expected);
        assert_eq!(cmd.cwd, dir.path());
        std::fs::write(sdk.join("package.json"), r#"{"version": "3.225.9"}"#).unwrap();
        let e = command(dir.path(), Some(&bun), &identity(), "x").unwrap_err();
        assert!(
            e.to_string().contains("requires @pulumi/pulumi >= 3.226.0"),
            "{e}"
        );
    }
}
