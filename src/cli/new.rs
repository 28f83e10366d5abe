//! `new`: a project from a local template directory, as Pulumi's `new` makes one: the
//! template's files copied into an empty directory with `${PROJECT}` and `${DESCRIPTION}`
//! substituted, its `template:` section dropped, and (unless `--generate-only`) a stack
//! created with the template's config defaults and `--config`, and the dependencies installed
//! as `install` installs them. Templates by name or URL come
//! from Pulumi's template repositories, which stepdeck (offline) does not reach.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, anyhow};
use serde_json::Value;
use stepdeck::project::{NewConfigValue, Project};

use super::args::NewArgs;
use super::errors::usage;
use super::stdout::outln;
use super::workspace::Workspace;

/// Entries a directory may hold and still count as empty (Pulumi's).
const INVISIBLE: [&str; 3] = [".git", ".hg", ".bzr"];

pub(super) async fn run(cwd: Option<&Path>, backend: Option<&str>, args: NewArgs) -> Result<()> {
    let base = match cwd {
        Some(d) => std::path::absolute(d).context("resolving --cwd")?,
        None => std::env::current_dir().context("reading the working directory")?,
    };
    let template = template_dir(&base, args.template.as_deref())?;
    let dest = match &args.dir {
        Some(d) => {
            let d = base.join(d);
            std::fs::create_dir_all(&d).with_context(|| format!("creating {}", d.display()))?;
            d
        }
        None => base.clone(),
    };
    if !args.force {
        check_empty(&dest)?;
    }
    let manifest = read_template(&template)?;
    let name = match &args.name {
        Some(n) => n.clone(),
        None => dest
            .file_name()
            .map(|n| sanitized_name(&n.to_string_lossy()))
            .unwrap_or_else(|| "project".into()),
    };
    if name.is_empty()
        || !name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
    {
        return Err(usage(format!(
            "'{name}' is not a valid project name: use letters, digits, '-', '_' and '.' only"
        )));
    }
    let description = args.description.clone().unwrap_or_else(|| {
        manifest["template"]["description"]
            .as_str()
            .unwrap_or_default()
            .to_string()
    });
    copy_template(&template, &dest, args.force, &name, &description)?;
    drop_template_section(&dest.join("Pulumi.yaml"))?;
    if !args.runtime_options.is_empty() {
        set_runtime_options(&dest.join("Pulumi.yaml"), &args.runtime_options)?;
        prepare_for_toolchain(&dest)?;
    }
    outln!("Created project '{name}'\n")?;
    if args.generate_only {
        return Ok(());
    }
    let ws = Workspace::open(&dest, backend)?;
    let stack_name = ws.stack_name(Some(args.stack.as_deref().unwrap_or("dev")))?;
    super::stack::create(&ws, &stack_name, args.secrets_provider.as_deref())?;
    ws.backend.select_stack(&ws.reference(&stack_name)?)?;
    outln!("Created stack '{}'\n", ws.shown(&stack_name))?;
    let mut stack = ws.stack(Some(&stack_name.qualified()), false)?;
    let defaults = template_config(&manifest);
    let mut values: Vec<(String, NewConfigValue<'_>)> = defaults
        .iter()
        .map(|(k, v, secret)| {
            let value = if *secret {
                NewConfigValue::Secret(v)
            } else {
                NewConfigValue::Text {
                    text: v,
                    type_: None,
                }
            };
            (k.clone(), value)
        })
        .collect();
    for pair in &args.config {
        let (key, value) = pair
            .split_once('=')
            .ok_or_else(|| usage(format!("--config {pair:?}: expected KEY=VALUE")))?;
        values.push((
            key.to_string(),
            NewConfigValue::Text {
                text: value,
                type_: None,
            },
        ));
    }
    if !values.is_empty() {
        super::config::set_values(&ws, &mut stack, &values, args.config_path)?;
    }
    super::install::run(&dest, false).await?;
    outln!(
        "Your new project is ready to go!\n\nTo perform an initial deployment, run `{} up`",
        super::program_name()
    )?;
    Ok(())
}

/// The template's directory: a local directory holding `Pulumi.yaml`. Names and URLs would
/// need Pulumi's template repositories.
fn template_dir(base: &Path, template: Option<&str>) -> Result<PathBuf> {
    let Some(t) = template else {
        return Err(usage(
            "a template is required: `new DIR`, a local directory holding a template's Pulumi.yaml (stepdeck does not list Pulumi's templates, which are downloaded)",
        ));
    };
    let remote = t.contains("://") || t.starts_with("git@");
    let dir = base.join(t);
    if remote || !dir.is_dir() {
        return Err(usage(format!(
            "template '{t}' not found: stepdeck works offline and makes projects from local template directories only (a directory holding Pulumi.yaml); clone or download the template and pass its directory"
        )));
    }
    if !dir.join("Pulumi.yaml").is_file() {
        return Err(usage(format!(
            "template '{t}' has no Pulumi.yaml: {} is not a project template",
            dir.display()
        )));
    }
    Ok(dir)
}

fn check_empty(dir: &Path) -> Result<()> {
    let non_empty = std::fs::read_dir(dir)
        .with_context(|| format!("reading {}", dir.display()))?
        .flatten()
        .any(|e| !INVISIBLE.contains(&e.file_name().to_string_lossy().as_ref()));
    if non_empty {
        return Err(usage(format!(
            "{} is not empty; use --force to continue and overwrite existing files, or use --dir to specify an empty directory.",
            dir.display()
        )));
    }
    Ok(())
}

/// A project name made from a directory's name: what a name may not hold becomes `-`.
fn sanitized_name(dir: &str) -> String {
    dir.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') {
                c
            } else {
                '-'
            }
        })
        .collect()
}

/// The template's `Pulumi.yaml` as a value (its `template:` section read for the
/// description and config defaults).
fn read_template(dir: &Path) -> Result<Value> {
    let path = dir.join("Pulumi.yaml");
    let text =
        std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
    let text = text
        .replace("${PROJECT}", "project")
        .replace("${DESCRIPTION}", "");
    serde_saphyr::from_str::<Value>(&text).map_err(|e| usage(format!("{}: {e}", path.display())))
}

/// The template's config defaults: `(key, value, secret)`.
fn template_config(manifest: &Value) -> Vec<(String, String, bool)> {
    let Some(config) = manifest["template"]["config"].as_object() else {
        return Vec::new();
    };
    config
        .iter()
        .filter_map(|(key, spec)| {
            let value = match &spec["default"] {
                Value::Null => return None,
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            Some((key.clone(), value, spec["secret"] == true))
        })
        .collect()
}

/// Copies the template's files (not its `.git`), substituting the project's name and
/// description in text files; in YAML files as YAML scalars.
fn copy_template(from: &Path, to: &Path, force: bool, name: &str, description: &str) -> Result<()> {
    let yaml_scalar = |s: &str| {
        serde_saphyr::to_string(&s.to_string())
            .map(|t| t.trim_end().to_string())
            .unwrap_or_else(|_| s.to_string())
    };
    let (yaml_name, yaml_description) = (yaml_scalar(name), yaml_scalar(description));
    let walker = walkdir::WalkDir::new(from)
        .min_depth(1)
        .into_iter()
        .filter_entry(|e| e.file_name() != ".git");
    for entry in walker {
        let entry = entry.map_err(|e| anyhow!("reading the template: {e}"))?;
        let rel = entry.path().strip_prefix(from).unwrap_or(entry.path());
        let dest = to.join(rel);
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&dest)
                .with_context(|| format!("creating {}", dest.display()))?;
            continue;
        }
        if !force && dest.exists() {
            return Err(usage(format!(
                "{} exists already; use --force to overwrite it",
                dest.display()
            )));
        }
        let bytes = std::fs::read(entry.path())
            .with_context(|| format!("reading {}", entry.path().display()))?;
        let binary = bytes.iter().take(8000).any(|b| *b == 0);
        let out = match String::from_utf8(bytes) {
            Ok(text) if !binary => {
                let yaml = rel.extension().is_some_and(|e| e == "yaml");
                let (n, d) = if yaml {
                    (yaml_name.as_str(), yaml_description.as_str())
                } else {
                    (name, description)
                };
                text.replace("${PROJECT}", n)
                    .replace("${DESCRIPTION}", d)
                    .into_bytes()
            }
            Ok(text) => text.into_bytes(),
            Err(e) => e.into_bytes(),
        };
        std::fs::write(&dest, out).with_context(|| format!("writing {}", dest.display()))?;
        let mode = std::fs::metadata(entry.path())?.permissions();
        std::fs::set_permissions(&dest, mode)?;
    }
    Ok(())
}

/// Removes the top-level `template:` section of the new project's `Pulumi.yaml`, as Pulumi
/// drops it when it saves the project.
/// Writes `--runtime-options` into the project file's `runtime.options`, its runtime's name
/// kept (a `runtime: python` becomes the mapping form).
fn set_runtime_options(path: &Path, options: &[String]) -> Result<()> {
    let mut lines = Vec::new();
    for option in options {
        let (key, value) = option.split_once('=').ok_or_else(|| {
            usage(format!(
                "--runtime-options: {option:?} is not KEY=VALUE (e.g. toolchain=uv)"
            ))
        })?;
        lines.push(format!(
            "    {}: {}\n",
            key.trim(),
            serde_json::json!(value.trim())
        ));
    }
    let options: String = lines.concat();
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let mut out = String::new();
    let mut in_runtime = false;
    let mut written = false;
    for line in text.split_inclusive('\n') {
        let top_level = !line.starts_with([' ', '\t', '#']) && !line.trim().is_empty();
        if top_level && in_runtime && !written {
            out.push_str("  options:\n");
            out.push_str(&options);
            written = true;
        }
        if top_level {
            in_runtime = line.starts_with("runtime:");
        }
        match line.strip_prefix("runtime:").map(str::trim) {
            Some(name) if top_level && !name.is_empty() => {
                out.push_str(&format!("runtime:\n  name: {name}\n  options:\n{options}"));
                written = true;
            }
            _ if in_runtime && !written && line.trim_end() == "  options:" => {
                out.push_str(line);
                out.push_str(&options);
                written = true;
            }
            _ => out.push_str(line),
        }
    }
    if in_runtime && !written {
        if !out.ends_with('\n') {
            out.push('\n');
        }
        out.push_str("  options:\n");
        out.push_str(&options);
    }
    std::fs::write(path, out).with_context(|| format!("writing {}", path.display()))
}

/// A Python project on uv or poetry gets its `pyproject.toml` from the template's
/// `requirements.txt` at once, as Pulumi's Python host prepares a new project for its toolchain.
fn prepare_for_toolchain(dest: &Path) -> Result<()> {
    let project = Project::load(dest).map_err(|e| usage(e.to_string()))?;
    if project.runtime.name != "python" {
        return Ok(());
    }
    match project
        .runtime
        .options
        .get("toolchain")
        .and_then(|t| t.as_str())
    {
        Some("uv") => super::install::uv_convert_requirements(dest, &[]),
        Some("poetry") => super::install::poetry_convert_requirements(&project.program_dir()),
        _ => Ok(()),
    }
}

fn drop_template_section(path: &Path) -> Result<()> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let mut out = String::new();
    let mut skipping = false;
    for line in text.split_inclusive('\n') {
        let top_level = !line.starts_with([' ', '\t', '#']) && !line.trim().is_empty();
        if top_level {
            skipping = line.starts_with("template:");
        }
        if !skipping {
            out.push_str(line);
        }
    }
    if out != text {
        std::fs::write(path, out).with_context(|| format!("writing {}", path.display()))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runtime_options_join_the_runtime_in_either_form() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("Pulumi.yaml");
        let opts = ["toolchain=uv".to_string()];
        std::fs::write(&p, "name: a\nruntime: python\ndescription: d\n").unwrap();
        set_runtime_options(&p, &opts).unwrap();
        assert_eq!(
            std::fs::read_to_string(&p).unwrap(),
            "name: a\nruntime:\n  name: python\n  options:\n    toolchain: \"uv\"\ndescription: d\n"
        );
        std::fs::write(
            &p,
            "name: a\nruntime:\n  name: python\n  options:\n    virtualenv: venv\n",
        )
        .unwrap();
        set_runtime_options(&p, &opts).unwrap();
        assert_eq!(
            std::fs::read_to_string(&p).unwrap(),
            "name: a\nruntime:\n  name: python\n  options:\n    toolchain: \"uv\"\n    virtualenv: venv\n"
        );
        let bad = set_runtime_options(&p, &["toolchain".to_string()]).unwrap_err();
        assert!(bad.to_string().contains("is not KEY=VALUE"), "{bad}");
    }

    #[test]
    fn the_template_section_is_dropped_and_the_rest_kept() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("Pulumi.yaml");
        std::fs::write(
            &p,
            "name: a\ntemplate:\n  description: d\n  config:\n    x:\n      default: 1\nruntime: yaml\n",
        )
        .unwrap();
        drop_template_section(&p).unwrap();
        assert_eq!(
            std::fs::read_to_string(&p).unwrap(),
            "name: a\nruntime: yaml\n"
        );
    }
}
