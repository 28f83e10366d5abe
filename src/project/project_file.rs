//! `Pulumi.yaml`: what a project is called, how its program runs, which configuration it
//! declares and where its stacks' state lives (`backend.url`).

use std::path::{Path, PathBuf};

use crate::file_limits::{self, YAML_FILE};

use super::config::{ConfigDecl, ConfigKey};
use super::error::ProjectError;
use super::local_plugins::{LocalPlugin, parse_local_plugins};
use super::runtime::{Runtime, parse_runtime};
use crate::located_yaml::parse_document;
use crate::located_yaml::{Node, NodeKind, SourceError};

/// The project file's name.
pub const PROJECT_FILE: &str = "Pulumi.yaml";

/// A loaded project.
#[derive(Clone, Debug, PartialEq)]
pub struct Project {
    /// The directory holding `Pulumi.yaml`.
    pub dir: PathBuf,
    pub name: String,
    pub runtime: Runtime,
    pub description: Option<String>,
    /// Where the program lives, relative to `dir` (`main:`), when not `dir` itself.
    pub main: Option<String>,
    /// Declared configuration keys, in file order.
    pub config: Vec<ConfigDecl>,
    /// The backend its stacks live in (`backend: {url: …}`), as Pulumi reads it: below the
    /// `--backend` flag and the environment, above the default.
    pub backend_url: Option<String>,
    /// Provider plugins named by path (`plugins.providers`, local `packages:`), looked up before
    /// installed ones.
    pub local_plugins: Vec<LocalPlugin>,
    /// `requiredPulumiVersion`: the CLI versions the project accepts (a semver range).
    pub required_pulumi_version: Option<String>,
}

impl Project {
    /// Reads `<dir>/Pulumi.yaml`.
    pub fn load(dir: &Path) -> Result<Project, ProjectError> {
        let path = dir.join(PROJECT_FILE);
        if !path.is_file() {
            return Err(ProjectError::NotAProject(dir.to_path_buf()));
        }
        let text = file_limits::read_to_string(&path, YAML_FILE)?;
        Ok(Project::parse(dir, &text)?)
    }

    /// Parses project file text (the program sections, if any, are ignored here).
    pub fn parse(dir: &Path, text: &str) -> Result<Project, SourceError> {
        let file = PROJECT_FILE;
        let doc = parse_document(file, text)?;
        if doc.as_map().is_none() {
            return Err(doc.error(file, "Pulumi.yaml must be a mapping"));
        }
        let name_node = doc
            .get("name")
            .ok_or_else(|| doc.error(file, "project is missing `name`"))?;
        let name = name_node
            .scalar_text()
            .ok_or_else(|| name_node.error(file, "`name` must be a string"))?;
        if name.is_empty()
            || !name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        {
            return Err(name_node.error(
                file,
                format!(
                    "invalid project name {name:?}: use letters, digits, '-', '_' and '.' only"
                ),
            ));
        }
        let rt = doc
            .get("runtime")
            .ok_or_else(|| doc.error(file, "project is missing `runtime`"))?;
        let runtime = parse_runtime(file, rt)?;
        let description = string_field(file, &doc, "description")?;
        let main = string_field(file, &doc, "main")?;
        let mut config = Vec::new();
        if let Some(section) = doc.get("config") {
            let entries = section
                .as_map()
                .ok_or_else(|| section.error(file, "`config` must be a mapping"))?;
            for (k, v) in entries {
                let key = ConfigKey::parse(&k.name, &name)
                    .map_err(|e| SourceError::new(file, k.pos, e.to_string()))?;
                config.push(ConfigDecl::from_node(file, key, v)?);
            }
        }
        let backend_url = match doc.get("backend") {
            None => None,
            Some(b) if b.as_map().is_none() => {
                return Err(b.error(file, "`backend` must be a mapping with a `url`"));
            }
            Some(b) => match b.get("url") {
                None => None,
                Some(u) => Some(
                    u.as_str()
                        .ok_or_else(|| u.error(file, "`backend.url` must be a string"))?
                        .to_string(),
                ),
            },
        };
        let local_plugins = parse_local_plugins(file, &doc, dir)?;
        let required_pulumi_version = string_field(file, &doc, "requiredPulumiVersion")?;
        Ok(Project {
            dir: dir.to_path_buf(),
            name,
            runtime,
            description,
            main,
            config,
            backend_url,
            local_plugins,
            required_pulumi_version,
        })
    }

    /// The directory the program is in (`main:` resolved against the project directory).
    pub fn program_dir(&self) -> PathBuf {
        match &self.main {
            Some(m) => self.dir.join(m),
            None => self.dir.clone(),
        }
    }
}

/// An optional string field of a mapping (null counts as absent).
pub fn string_field(file: &str, doc: &Node, field: &str) -> Result<Option<String>, SourceError> {
    match doc.get(field) {
        None => Ok(None),
        Some(Node {
            kind: NodeKind::Null,
            ..
        }) => Ok(None),
        Some(n) => n
            .as_str()
            .map(|s| Some(s.to_string()))
            .ok_or_else(|| n.error(file, format!("`{field}` must be a string"))),
    }
}
