//! `version` and `about`. The version is that of the Pulumi CLI whose command line stepdeck
//! implements, with stepdeck's own as semver build metadata (`v3.260.0+stepdeck.0.2.0`): the
//! form every Automation API SDK parses, and checks its version gates against. `about` is
//! Pulumi's `about` (`--json`: its `summaryAbout` shape) and says it is stepdeck; for a
//! Node.js, bun or Python project it reports what that language host would: the language
//! plugin, the runtime's executable and package manager, the program's dependencies.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};
use serde_json::{Value, json};
use stepdeck::engine::PropertyValue;
use stepdeck::rpc::program::language_host::{find_node_module, python_interpreter};
use stepdeck::rpc::program::uv::uv_synced;
use stepdeck::state::lock_info::hostname;

use super::install::poetry_virtualenv;
use super::stdout::{out, outln};
use super::workspace::Workspace;

/// The Pulumi CLI release whose command line and outputs stepdeck implements.
macro_rules! pulumi_version {
    () => {
        "3.260.0"
    };
}

/// The version `version` prints without its `v`: Pulumi's, then `+stepdeck.` and stepdeck's.
pub(super) const VERSION: &str =
    concat!(pulumi_version!(), "+stepdeck.", env!("CARGO_PKG_VERSION"));

/// `version` (and `--version`).
pub(super) fn version() -> Result<()> {
    outln!("v{VERSION}")?;
    Ok(())
}

/// `about [--stack NAME] [--json]`. What cannot be found out is reported in `errors`, as
/// Pulumi does, and the rest is still shown.
pub(super) fn about(
    dir: Option<&Path>,
    backend: Option<&str>,
    stack: Option<&str>,
    json: bool,
) -> Result<()> {
    let mut doc = json!({
        "plugins": null,
        "host": host(),
        "backend": null,
        "currentStack": null,
        "cliAbout": {
            "version": VERSION,
            "goVersion": "none (stepdeck is written in Rust)",
            "goCompiler": "none",
            "implementation": format!("stepdeck {}", env!("CARGO_PKG_VERSION")),
        },
        "runtime": null,
        "dependencies": null,
        "errors": [],
    });
    let mut problems = Vec::new();
    match dir.map(|d| Workspace::open(d, backend)) {
        None => problems.push("Failed to read project: no Pulumi.yaml project file found".into()),
        Some(Err(e)) => problems.push(format!("Failed to read project: {e:#}")),
        Some(Ok(ws)) => describe_workspace(&ws, stack, &mut doc, &mut problems),
    }
    doc["errors"] = json!(problems);
    if json {
        outln!("{}", serde_json::to_string_pretty(&doc)?)?;
    } else {
        out!("{}", render(&doc))?;
        for p in &problems {
            eprintln!("warning: {p}");
        }
    }
    Ok(())
}

/// The host as Pulumi names it: the distribution and its version (`/etc/os-release`), the
/// architecture.
fn host() -> Value {
    let release = std::fs::read_to_string("/etc/os-release").unwrap_or_default();
    let field = |key: &str| {
        release
            .lines()
            .find_map(|l| l.strip_prefix(key)?.strip_prefix('='))
            .map(|v| v.trim_matches('"').to_string())
    };
    json!({
        "os": field("ID").unwrap_or_else(|| std::env::consts::OS.to_string()),
        "version": field("VERSION_ID").unwrap_or_default(),
        "arch": std::env::consts::ARCH,
    })
}

fn describe_workspace(
    ws: &Workspace,
    stack: Option<&str>,
    doc: &mut Value,
    problems: &mut Vec<String>,
) {
    let runtime = &ws.project.runtime.name;
    let language = language_about(ws);
    let mut about_runtime = json!({"language": runtime});
    if let Some(lang) = &language {
        about_runtime["executable"] = lang.executable.display().to_string().into();
        for (key, value) in &lang.metadata {
            about_runtime[*key] = value.clone().into();
        }
    }
    if let Some(v) = runtime_version(runtime, language.as_ref()) {
        about_runtime["version"] = v.into();
    }
    doc["runtime"] = about_runtime;
    if language.is_some() {
        doc["plugins"] =
            json!([{"name": runtime, "version": pulumi_version!(), "kind": "language"}]);
        match program_dependencies(ws, language.as_ref()) {
            Ok(deps) => doc["dependencies"] = Value::Array(deps),
            Err(e) => problems.push(format!(
                "Failed to get information about the Pulumi program's dependencies: {e}"
            )),
        }
    }
    doc["backend"] = json!({
        "name": hostname(),
        "url": ws.backend.url().to_string(),
        "user": std::env::var("USER").unwrap_or_else(|_| "Unknown".into()),
        "organizations": [],
    });
    let name = match ws.stack_name(stack) {
        Ok(name) => name,
        Err(e) => {
            problems.push(format!(
                "Failed to get information about the current stack: {e:#}"
            ));
            return;
        }
    };
    let opened = ws
        .stack(Some(&name.qualified()), false)
        .and_then(|s| Ok(ws.backend.load(&s.reference, s.crypter.as_ref())?.snapshot));
    match opened {
        Ok(snap) => {
            let state = |type_: &str, urn: &str| json!({"type": type_, "urn": urn});
            doc["currentStack"] = json!({
                "name": ws.shown(&name),
                "fullyQualifiedName": name.qualified(),
                "resources": snap.resources.iter().map(|r| state(&r.type_, r.urn.as_str())).collect::<Vec<_>>(),
                "pendingOps": snap.pending_operations.iter().map(|p| state(p.kind.as_str(), p.resource.urn.as_str())).collect::<Vec<_>>(),
            });
            let mut all = doc["plugins"].as_array().cloned().unwrap_or_default();
            all.extend(plugins(&snap));
            doc["plugins"] = Value::Array(all);
        }
        Err(e) => problems.push(format!(
            "Failed to get information about the current stack: {e:#}"
        )),
    }
}

/// The providers the stack's state uses, once each.
fn plugins(snap: &stepdeck::engine::Snapshot) -> Vec<Value> {
    let mut plugins: Vec<Value> = snap
        .resources
        .iter()
        .filter(|r| r.is_provider() && !r.delete)
        .map(|r| {
            let package = r.type_.rsplit(':').next().unwrap_or_default().to_string();
            let version = match r.inputs.get("version") {
                Some(PropertyValue::String(v)) => Value::String(v.clone()),
                _ => Value::Null,
            };
            json!({"name": package, "version": version, "kind": "resource"})
        })
        .collect();
    plugins.sort_by_key(|p| p.to_string());
    plugins.dedup();
    plugins
}

/// What a Node.js or Python language host tells `about` of the program's runtime: the
/// executable it runs, and its package manager or toolchain.
struct LanguageAbout {
    executable: PathBuf,
    metadata: Vec<(&'static str, String)>,
}

/// The runtime of a Node.js or Python project, as its language host finds it (Python: the
/// project's virtualenv first); `None` for YAML, which runs in stepdeck.
fn language_about(ws: &Workspace) -> Option<LanguageAbout> {
    let project = &ws.project;
    match project.runtime.name.as_str() {
        // Pulumi's host in bun mode: bun runs the program and is its package manager.
        name @ ("nodejs" | "bun") => {
            let (runtime, pm) = if name == "bun" {
                ("bun", "bun")
            } else {
                ("node", "npm")
            };
            let mut metadata = vec![("packagemanager", pm.to_string())];
            if let Some(v) = command_version(Path::new(pm)) {
                metadata.push(("packagemanagerVersion", v));
            }
            Some(LanguageAbout {
                executable: on_path(runtime),
                metadata,
            })
        }
        "python" => {
            let option = |key: &str| project.runtime.options.get(key).and_then(Value::as_str);
            let virtualenv = option("virtualenv");
            let (toolchain, executable, tool_version) = match option("toolchain") {
                Some("uv") => {
                    let venv =
                        uv_synced(&project.dir, virtualenv, &project.dir.join("Pulumi.yaml")).ok();
                    let python = venv.map_or_else(
                        || python_interpreter(&project.dir, virtualenv.map(Path::new)),
                        |v| v.join("bin").join("python"),
                    );
                    (
                        "Uv",
                        python,
                        command_version(Path::new("uv")).and_then(last_word),
                    )
                }
                Some("poetry") => {
                    let python = poetry_virtualenv(&project.program_dir()).map_or_else(
                        |_| python_interpreter(&project.dir, None),
                        |v| v.join("bin").join("python"),
                    );
                    let version = command_version(Path::new("poetry"))
                        .and_then(|v| last_word(v.trim_end_matches(')').to_string()));
                    ("Poetry", python, version)
                }
                _ => {
                    let python = python_interpreter(&project.dir, virtualenv.map(Path::new));
                    let version = Command::new(&python)
                        .args(["-m", "pip", "--version"])
                        .output()
                        .ok()
                        .filter(|o| o.status.success())
                        .and_then(|o| {
                            let text = String::from_utf8_lossy(&o.stdout).into_owned();
                            text.split_whitespace().nth(1).map(str::to_string)
                        });
                    ("Pip", python, version)
                }
            };
            let typechecker = match option("typechecker") {
                Some("mypy") => "Mypy",
                Some("pyright") => "Pyright",
                _ => "None",
            };
            let mut metadata = vec![("toolchain", toolchain.to_string())];
            if let Some(v) = tool_version {
                metadata.push(("toolchainVersion", v));
            }
            metadata.push(("typechecker", typechecker.to_string()));
            Some(LanguageAbout {
                executable,
                metadata,
            })
        }
        _ => None,
    }
}

/// The last word of a tool's `--version` line (`uv 0.4.26`, `Poetry (version 1.8.3`).
fn last_word(line: String) -> Option<String> {
    line.split_whitespace().last().map(str::to_string)
}

/// `name` as found on PATH, else the bare name.
fn on_path(name: &str) -> PathBuf {
    std::env::var_os("PATH")
        .iter()
        .flat_map(std::env::split_paths)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
        .unwrap_or_else(|| PathBuf::from(name))
}

/// The program's direct dependencies as its language host lists them: for Node.js those of
/// package.json with the versions installed in `node_modules`, for Python pip's packages
/// that no other requires (`pip list --not-required`), names normalised as Pulumi does.
fn program_dependencies(ws: &Workspace, language: Option<&LanguageAbout>) -> Result<Vec<Value>> {
    let dir = ws.project.program_dir();
    let dep = |name: &str, version: &str| json!({"name": name, "version": version});
    match (ws.project.runtime.name.as_str(), language) {
        ("nodejs" | "bun", _) => {
            let path = dir.join("package.json");
            let text = std::fs::read_to_string(&path)
                .with_context(|| format!("reading {}", path.display()))?;
            let manifest: Value = serde_json::from_str(&text)
                .with_context(|| format!("{} is not JSON", path.display()))?;
            let mut deps = Vec::new();
            for section in ["dependencies", "devDependencies"] {
                for name in manifest[section]
                    .as_object()
                    .into_iter()
                    .flat_map(|m| m.keys())
                {
                    let installed = find_node_module(&dir, &format!("{name}/package.json"))
                        .and_then(|p| std::fs::read_to_string(p).ok())
                        .and_then(|t| serde_json::from_str::<Value>(&t).ok());
                    let version = installed.as_ref().and_then(|m| m["version"].as_str());
                    deps.push(dep(name, version.unwrap_or_default()));
                }
            }
            Ok(deps)
        }
        (_, Some(python)) => {
            let out = Command::new(&python.executable)
                .args(["-m", "pip", "list", "--not-required", "--format", "json"])
                .output()
                .with_context(|| format!("running {}", python.executable.display()))?;
            if !out.status.success() {
                bail!(
                    "`{} -m pip list` failed: {}",
                    python.executable.display(),
                    String::from_utf8_lossy(&out.stderr).trim()
                );
            }
            let listed: Vec<Value> =
                serde_json::from_slice(&out.stdout).context("pip list did not print JSON")?;
            Ok(listed
                .iter()
                .map(|p| {
                    let name = p["name"].as_str().unwrap_or_default();
                    let name = name.to_lowercase().replace(['_', '.'], "-");
                    dep(&name, p["version"].as_str().unwrap_or_default())
                })
                .collect())
        }
        _ => Ok(Vec::new()),
    }
}

/// A command's `--version`, trimmed.
fn command_version(program: &Path) -> Option<String> {
    let out = Command::new(program)
        .arg("--version")
        .output()
        .ok()
        .filter(|o| o.status.success())?;
    Some(String::from_utf8_lossy(&out.stdout).trim().to_string()).filter(|v| !v.is_empty())
}

/// The language runtime's own `--version` (the project's python, node or bun); YAML runs in
/// stepdeck.
fn runtime_version(runtime: &str, language: Option<&LanguageAbout>) -> Option<String> {
    let program = match (runtime, language) {
        ("python", Some(l)) => l.executable.clone(),
        ("nodejs", _) => PathBuf::from("node"),
        ("bun", _) => PathBuf::from("bun"),
        _ => return Some(env!("CARGO_PKG_VERSION").to_string()),
    };
    let out = Command::new(program)
        .arg("--version")
        .output()
        .ok()
        .filter(|o| o.status.success())?;
    let text = if out.stdout.is_empty() {
        out.stderr
    } else {
        out.stdout
    };
    Some(
        String::from_utf8_lossy(&text)
            .trim()
            .trim_start_matches("Python ")
            .trim_start_matches('v')
            .to_string(),
    )
}

/// The plain `about` text, laid out as Pulumi's.
fn render(doc: &Value) -> String {
    let text = |v: &Value| match v {
        Value::String(s) => s.clone(),
        Value::Null => "unknown".to_string(),
        other => other.to_string(),
    };
    let cli = &doc["cliAbout"];
    let mut out = format!(
        "CLI\nVersion      {}\nImplemented  {}\n\n",
        text(&cli["version"]),
        text(&cli["implementation"])
    );
    if let Value::Array(plugins) = &doc["plugins"] {
        out += "Plugins\nKIND      NAME         VERSION\n";
        for p in plugins {
            out += &format!(
                "{:<9} {:<12} {}\n",
                text(&p["kind"]),
                text(&p["name"]),
                text(&p["version"])
            );
        }
        out += "\n";
    }
    let host = &doc["host"];
    out += &format!(
        "Host\nOS           {}\nVersion      {}\nArch         {}\n\n",
        text(&host["os"]),
        text(&host["version"]),
        text(&host["arch"])
    );
    if let Value::Object(runtime) = &doc["runtime"] {
        let mut params = Vec::new();
        for key in ["executable", "version"] {
            if let Some(v) = runtime.get(key) {
                params.push(format!("{key}='{}'", text(v)));
            }
        }
        for (key, v) in runtime {
            if !["language", "executable", "version"].contains(&key.as_str()) {
                params.push(format!("{key}='{}'", text(v)));
            }
        }
        out += &format!(
            "This project is written in {}: {}\n\n",
            text(&runtime["language"]),
            params.join(" ")
        );
    }
    let stack = &doc["currentStack"];
    if !stack.is_null() {
        out += &format!(
            "Current Stack: {}\n\nTYPE  URN\n",
            text(&stack["fullyQualifiedName"])
        );
        for r in stack["resources"].as_array().into_iter().flatten() {
            out += &format!("{}  {}\n", text(&r["type"]), text(&r["urn"]));
        }
        out += "\n";
    }
    let backend = &doc["backend"];
    if !backend.is_null() {
        out += &format!(
            "Backend\nName           {}\nURL            {}\nUser           {}\nOrganizations\n\n",
            text(&backend["name"]),
            text(&backend["url"]),
            text(&backend["user"])
        );
    }
    if let Value::Array(deps) = &doc["dependencies"] {
        if deps.is_empty() {
            out += "No dependencies found\n\n";
        } else {
            out += "Dependencies:\nNAME                VERSION\n";
            for d in deps {
                out += &format!("{:<19} {}\n", text(&d["name"]), text(&d["version"]));
            }
            out += "\n";
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_version_is_pulumis_with_stepdecks_as_build_metadata() {
        let v = semver::Version::parse(VERSION).unwrap();
        assert_eq!(v.major, 3);
        assert!(v.minor > 205, "the SDKs' newest gates need > 3.205");
        assert_eq!(
            v.build.as_str(),
            concat!("stepdeck.", env!("CARGO_PKG_VERSION"))
        );
        assert!(v.pre.is_empty(), "a pre-release would sort below the gates");
    }
}
