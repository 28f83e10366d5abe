//! `PulumiPolicy.yaml`, a policy pack's project file (Pulumi's `PolicyPackProject`): how the
//! pack runs (`runtime`, required) and the `version` and `description` that override what the
//! pack itself reports. `main` is read by nothing: Pulumi starts every pack from its directory.

use std::path::Path;

use crate::located_yaml::{SourceError, parse_document};
use crate::project::project_file::string_field;
use crate::project::runtime::parse_runtime;
use crate::rpc::policy::launch::PackRuntime;

pub use crate::rpc::policy::launch::PACK_FILE;

/// A loaded `PulumiPolicy.yaml`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PackProject {
    pub runtime: PackRuntime,
    pub version: Option<String>,
    pub description: Option<String>,
}

/// Why `PulumiPolicy.yaml` did not load.
#[derive(Debug, thiserror::Error)]
pub enum PackFileError {
    #[error("{0}")]
    Io(std::io::Error),
    #[error(transparent)]
    Source(#[from] SourceError),
}

impl PackProject {
    /// Reads `<dir>/PulumiPolicy.yaml`.
    pub fn load(dir: &Path) -> Result<PackProject, PackFileError> {
        let path = dir.join(PACK_FILE);
        let text = std::fs::read_to_string(&path).map_err(PackFileError::Io)?;
        Ok(PackProject::parse(&path.display().to_string(), &text)?)
    }

    /// Parses the file's text; `file` names it in errors.
    pub fn parse(file: &str, text: &str) -> Result<PackProject, SourceError> {
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let doc = parse_document(file, text)?;
        if doc.as_map().is_none() {
            return Err(doc.error(file, format!("{PACK_FILE} must be a mapping")));
        }
        let runtime = doc
            .get("runtime")
            .ok_or_else(|| doc.error(file, "project is missing a 'runtime' attribute"))?;
        let runtime = parse_runtime(file, runtime)?;
        let version = match doc.get("version") {
            None => None,
            Some(v) => v.scalar_text().map(Some).ok_or_else(|| {
                v.error(
                    file,
                    format!("`version` must be a string, found {}", v.kind_name()),
                )
            })?,
        };
        Ok(PackProject {
            runtime: PackRuntime {
                name: runtime.name,
                options: runtime.options,
            },
            version,
            description: string_field(file, &doc, "description")?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_runtime_options_version_and_description() {
        let p = PackProject::parse(
            "PulumiPolicy.yaml",
            "runtime:\n  name: python\n  options:\n    virtualenv: venv\nversion: 1.2.3\ndescription: checks\n",
        )
        .unwrap();
        assert_eq!(p.runtime.name, "python");
        assert_eq!(p.runtime.options["virtualenv"], "venv");
        assert_eq!(p.version.as_deref(), Some("1.2.3"));
        assert_eq!(p.description.as_deref(), Some("checks"));
        let node = PackProject::parse("PulumiPolicy.yaml", "runtime: nodejs\n").unwrap();
        assert_eq!(node.runtime.name, "nodejs");
        assert_eq!(node.version, None);
    }

    #[test]
    fn a_missing_runtime_is_pulumis_error_with_the_position() {
        let e = PackProject::parse("PulumiPolicy.yaml", "version: 1.0.0\n").unwrap_err();
        assert!(
            e.to_string()
                .contains("project is missing a 'runtime' attribute"),
            "{e}"
        );
        assert!(e.to_string().starts_with("PulumiPolicy.yaml:1"), "{e}");
    }
}
