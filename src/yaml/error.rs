//! Why a program could not be loaded, and Pulumi YAML's message for a name that does not
//! exist; the located error itself lives with the located parser.

pub use crate::located_yaml::source_error::{Pos, SourceError};

/// Why a program could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum YamlError {
    #[error("{path}: {source}")]
    Io {
        path: std::path::PathBuf,
        source: std::io::Error,
    },
    #[error(transparent)]
    Source(#[from] SourceError),
    #[error(transparent)]
    Read(#[from] crate::file_limits::ReadLimitError),
}

/// Pulumi YAML's message for a name that does not exist where it was used (`NonExistentField`):
/// "`label` does not exist on `parent`; Existing `kind` are: …", the closest five first.
pub fn no_such_field(
    label: &str,
    parent: &str,
    field: &str,
    existing: &[&str],
    kind: &str,
) -> String {
    let mut existing = existing.to_vec();
    existing.sort_by_key(|e| (strsim::levenshtein(e, field), e.to_string()));
    let body = if existing.is_empty() {
        format!("{parent} has no {kind}")
    } else {
        const MAX: usize = 5;
        let mut list = existing
            .iter()
            .take(MAX)
            .copied()
            .collect::<Vec<_>>()
            .join(", ");
        if existing.len() > MAX {
            let extra = existing.len() - MAX;
            let others = if extra == 1 { "other" } else { "others" };
            list = format!("{list} and {extra} {others}");
        }
        format!("Existing {kind} are: {list}")
    };
    format!("{label} does not exist on {parent}; {body}")
}
