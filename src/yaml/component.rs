//! Components defined in YAML (Pulumi YAML's component packages): a program's `packages:` names
//! a local directory whose `PulumiPlugin.yaml` (and other YAML files there) declare
//! `components:`, each with `inputs`, `variables`, `resources` and `outputs`. A resource of type
//! `<package>:index:<component>` registers the component and evaluates its body as children.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::file_limits::{self, YAML_FILE};

use super::analyze::{Analysis, analyze};
use super::ast::{ProgramAst, build_component};
use super::error::{SourceError, YamlError};
use super::node::{Node, parse_document};

/// One component: its checked body.
#[derive(Clone, Debug)]
pub struct ComponentDef {
    pub ast: Arc<ProgramAst>,
    pub analysis: Arc<Analysis>,
}

/// The YAML components a program can use, by resource type (`<package>:index:<component>`).
#[derive(Clone, Debug, Default)]
pub struct Components(HashMap<String, Arc<ComponentDef>>);

impl Components {
    /// The component a resource type names, if any.
    pub fn get(&self, type_: &str) -> Option<&Arc<ComponentDef>> {
        self.0.get(type_)
    }

    /// Loads the component packages among a program's `packages:` (the document `doc`, written
    /// in `file`): entries naming a directory, relative to `dir`, with a `PulumiPlugin.yaml` of
    /// the `yaml` runtime.
    pub fn load(dir: &Path, file: &str, doc: &Node) -> Result<Components, YamlError> {
        let mut out = Components::default();
        let Some(packages) = doc.get("packages").and_then(Node::as_map) else {
            return Ok(out);
        };
        for (name, source) in packages {
            let Some(path) = source.as_str() else {
                continue;
            };
            let pkg_dir = dir.join(path);
            let manifest = pkg_dir.join("PulumiPlugin.yaml");
            if !manifest.is_file() || !is_yaml_package(&manifest)? {
                continue;
            }
            for path in yaml_files(&pkg_dir)? {
                let text = file_limits::read_to_string(&path, YAML_FILE)?;
                let shown = Path::new(file)
                    .parent()
                    .unwrap_or(Path::new(""))
                    .join(path.strip_prefix(dir).unwrap_or(&path))
                    .to_string_lossy()
                    .into_owned();
                out.add(&name.name, &shown, &text)?;
            }
        }
        Ok(out)
    }

    /// Adds the `components:` of one package file.
    pub fn add(&mut self, package: &str, file: &str, text: &str) -> Result<(), SourceError> {
        let doc = parse_document(file, text)?;
        let Some(components) = doc.get("components").and_then(Node::as_map) else {
            return Ok(());
        };
        for (key, body) in components {
            let ast = build_component(file, &key.name, body, package)?;
            let analysis = analyze(&ast)?;
            self.0.insert(
                format!("{package}:index:{}", key.name),
                Arc::new(ComponentDef {
                    ast: Arc::new(ast),
                    analysis: Arc::new(analysis),
                }),
            );
        }
        Ok(())
    }
}

/// The `.yaml`/`.yml` files of a YAML component package's directory, in name order (the
/// order its components are read in, at run time and for its schema).
pub(super) fn yaml_files(dir: &Path) -> Result<Vec<PathBuf>, YamlError> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .map_err(|source| YamlError::Io {
            path: dir.to_path_buf(),
            source,
        })?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| matches!(p.extension().and_then(|e| e.to_str()), Some("yaml" | "yml")))
        .collect();
    files.sort();
    Ok(files)
}

/// Whether a package's `PulumiPlugin.yaml` declares the `yaml` runtime (or none); a Python or
/// Node.js component provider's directory is a plugin started as a process instead.
fn is_yaml_package(manifest: &Path) -> Result<bool, YamlError> {
    let text = file_limits::read_to_string(manifest, YAML_FILE)?;
    let doc = parse_document(&manifest.display().to_string(), &text)?;
    let runtime = doc.get("runtime");
    let name = runtime
        .and_then(|r| r.as_str().or_else(|| r.get("name").and_then(Node::as_str)))
        .unwrap_or("yaml");
    Ok(name == "yaml")
}
