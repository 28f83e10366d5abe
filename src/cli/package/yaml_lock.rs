//! What a YAML project gets for a package in place of an SDK, as pulumi-yaml's
//! `GeneratePackage` writes it: a package declaration file `<name>[-<version>].yaml` naming the
//! plugin, its version and (for a parameterized package) the parameterization, which the YAML
//! runtime finds under the project to know which plugin serves the package.

use std::path::Path;

use anyhow::{Context, Result, anyhow};
use serde_json::Value;

/// Writes the declaration of the package `schema` describes into `dir` (created, its old
/// content replaced).
pub(super) fn write_package_decl(schema: &Value, dir: &Path) -> Result<()> {
    let text = |v: &Value, key: &str| v.get(key).and_then(Value::as_str).map(str::to_string);
    let name = text(schema, "name").ok_or_else(|| anyhow!("the package's schema has no `name`"))?;
    let version = text(schema, "version");
    let mut out = String::from("packageDeclarationVersion: 1\n");
    let mut line = |indent: &str, key: &str, value: &str| {
        out.push_str(&format!("{indent}{key}: {}\n", scalar(value)));
    };
    let parameterization = schema.get("parameterization");
    match parameterization.and_then(|p| p.get("baseProvider")) {
        Some(base) => {
            line("", "name", &text(base, "name").unwrap_or_default());
            if let Some(v) = text(base, "version") {
                line("", "version", &v);
            }
        }
        None => {
            line("", "name", &name);
            if let Some(v) = &version {
                line("", "version", v);
            }
        }
    }
    if let Some(url) = text(schema, "pluginDownloadURL") {
        line("", "downloadUrl", &url);
    }
    if let Some(p) = parameterization {
        let version = version
            .clone()
            .ok_or_else(|| anyhow!("parameterized package must have a version"))?;
        out.push_str("parameterization:\n");
        let mut line = |key: &str, value: &str| {
            out.push_str(&format!("    {key}: {}\n", scalar(value)));
        };
        line("name", &name);
        line("version", &version);
        line("value", &text(p, "parameter").unwrap_or_default());
    }
    if dir.exists() {
        std::fs::remove_dir_all(dir).with_context(|| format!("removing {}", dir.display()))?;
    }
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let file = match &version {
        Some(v) => dir.join(format!("{name}-{v}.yaml")),
        None => dir.join(format!("{name}.yaml")),
    };
    std::fs::write(&file, out).with_context(|| format!("writing {}", file.display()))
}

/// A value as go-yaml writes it: plain, or double-quoted where plain would not read back as
/// the same string.
fn scalar(value: &str) -> String {
    let plain = !value.is_empty()
        && !value.starts_with(|c: char| " -?:,[]{}#&*!|>'\"%@`".contains(c))
        && !value.ends_with(' ')
        && !value.contains(": ")
        && !value.contains(" #")
        && value.parse::<f64>().is_err()
        && !matches!(
            value,
            "true" | "false" | "null" | "~" | "yes" | "no" | "on" | "off"
        );
    if plain {
        value.to_string()
    } else {
        serde_json::to_string(value).unwrap_or_default()
    }
}
