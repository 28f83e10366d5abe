//! `stepdeck version` and `stepdeck about`: what a bug report needs (Pulumi's `about`):
//! the version, the OS, the backend, the current stack, the language runtime and the plugins
//! the stack's state uses.

use std::path::Path;
use std::process::Command;

use anyhow::Result;
use serde_json::{Value, json};
use stepdeck::engine::PropertyValue;

use super::stdout::{out, outln};
use super::workspace::Workspace;

/// stepdeck's version, as `version` prints it.
pub(super) const VERSION: &str = env!("CARGO_PKG_VERSION");

/// `stepdeck version`.
pub(super) fn version() -> Result<()> {
    outln!("v{VERSION}")?;
    Ok(())
}

/// `stepdeck about [--stack NAME] [--json]`. Outside a project only the version and the OS are
/// known; the rest is reported as missing, as Pulumi does.
pub(super) fn about(
    dir: Option<&Path>,
    backend: Option<&str>,
    stack: Option<&str>,
    json: bool,
) -> Result<()> {
    let mut doc = json!({
        "cliVersion": VERSION,
        "os": {"name": std::env::consts::OS, "arch": std::env::consts::ARCH},
    });
    let mut problems = Vec::new();
    match dir.map(|d| Workspace::open(d, backend)) {
        None => problems.push("no Pulumi.yaml project file found".to_string()),
        Some(Err(e)) => problems.push(format!("{e:#}")),
        Some(Ok(ws)) => describe_workspace(&ws, stack, &mut doc, &mut problems),
    }
    if !problems.is_empty() {
        doc["errors"] = json!(problems);
    }
    if json {
        outln!("{}", serde_json::to_string_pretty(&doc)?)?;
    } else {
        out!("{}", render(&doc))?;
    }
    Ok(())
}

fn describe_workspace(
    ws: &Workspace,
    stack: Option<&str>,
    doc: &mut Value,
    problems: &mut Vec<String>,
) {
    let runtime = &ws.project.runtime.name;
    doc["project"] = json!({"name": ws.project.name, "runtime": runtime});
    doc["runtime"] = json!({"name": runtime, "version": runtime_version(runtime)});
    doc["backend"] = json!({"url": ws.backend.url().to_string(), "name": ws.backend.kind()});
    let current = match ws.stack_name(stack) {
        Ok(name) => name,
        Err(e) => {
            problems.push(format!("{e:#}"));
            return;
        }
    };
    let opened = ws.stack(Some(&current), false).and_then(|s| {
        let snap = ws.backend.load(&s.reference, s.crypter.as_ref())?.snapshot;
        Ok(snap)
    });
    match opened {
        Ok(snap) => {
            let plugins: Vec<Value> = snap
                .resources
                .iter()
                .filter(|r| r.is_provider() && !r.delete)
                .map(|r| {
                    let package = r.type_.rsplit(':').next().unwrap_or_default().to_string();
                    let version = match r.inputs.get("version") {
                        Some(PropertyValue::String(v)) => Value::String(v.clone()),
                        _ => Value::Null,
                    };
                    json!({"name": package, "version": version})
                })
                .collect();
            doc["currentStack"] = json!({"name": current, "resources": snap.resources.len()});
            doc["plugins"] = Value::Array(dedup(plugins));
        }
        Err(e) => {
            doc["currentStack"] = json!({"name": current});
            problems.push(format!("{e:#}"));
        }
    }
}

fn dedup(mut plugins: Vec<Value>) -> Vec<Value> {
    plugins.sort_by_key(|p| p.to_string());
    plugins.dedup();
    plugins
}

/// The language runtime's own `--version` (python3 or node), if it runs.
fn runtime_version(runtime: &str) -> Value {
    let program = match runtime {
        "python" => "python3",
        "nodejs" => "node",
        _ => return Value::String(VERSION.to_string()),
    };
    Command::new(program)
        .arg("--version")
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| {
            let text = if o.stdout.is_empty() {
                o.stderr
            } else {
                o.stdout
            };
            let text = String::from_utf8_lossy(&text);
            Value::String(
                text.trim()
                    .trim_start_matches("Python ")
                    .trim_start_matches('v')
                    .to_string(),
            )
        })
        .unwrap_or(Value::Null)
}

/// The plain `about` text: one section per part, as Pulumi lays it out.
fn render(doc: &Value) -> String {
    let text = |v: &Value| match v {
        Value::String(s) => s.clone(),
        Value::Null => "unknown".to_string(),
        other => other.to_string(),
    };
    let mut out = format!("CLI\nVersion      {}\n\n", text(&doc["cliVersion"]));
    out += &format!(
        "Host\nOS           {}\nArch         {}\n\n",
        text(&doc["os"]["name"]),
        text(&doc["os"]["arch"])
    );
    if doc.get("project").is_some() {
        out += &format!(
            "Project\nName         {}\nRuntime      {} {}\n\n",
            text(&doc["project"]["name"]),
            text(&doc["runtime"]["name"]),
            text(&doc["runtime"]["version"])
        );
        out += &format!("Backend\nURL          {}\n\n", text(&doc["backend"]["url"]));
    }
    if let Some(stack) = doc.get("currentStack") {
        out += &format!("Current Stack: {}\n", text(&stack["name"]));
        if let Some(n) = stack.get("resources") {
            out += &format!("Resources: {n}\n");
        }
        out += "\n";
    }
    if let Some(Value::Array(plugins)) = doc.get("plugins") {
        out += "Plugins\nKIND      NAME         VERSION\n";
        for p in plugins {
            out += &format!(
                "resource  {:<12} {}\n",
                text(&p["name"]),
                text(&p["version"])
            );
        }
        out += "\n";
    }
    if let Some(Value::Array(errors)) = doc.get("errors") {
        for e in errors {
            out += &format!("warning: {}\n", text(e));
        }
    }
    out
}
