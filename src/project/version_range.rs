//! `requiredPulumiVersion`: the range of CLI versions a project accepts, in the syntax Pulumi
//! takes it (blang/semver's `ParseRange`): comparisons joined by spaces must all hold, groups
//! joined by `||` are alternatives (`">=3.5.0 !3.7.7 || <3.0.0"`).

use std::cmp::Ordering;

use semver::Version;

/// Why the CLI's version does not meet a project's `requiredPulumiVersion`, in Pulumi's words.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum VersionRangeError {
    #[error("parsing CLI version range {range:?}: {why}")]
    BadRange { range: String, why: String },
    #[error("parsing CLI version {version:?}: {why}")]
    BadVersion { version: String, why: String },
    #[error("Pulumi CLI version {version} does not satisfy the version range {range:?}")]
    Unsatisfied { version: String, range: String },
}

/// Checks `version` (the CLI's, build metadata allowed and ignored) against `range`; an empty
/// range accepts every version, as Pulumi's does.
pub fn check_version_range(range: &str, version: &str) -> Result<(), VersionRangeError> {
    if range.trim().is_empty() {
        return Ok(());
    }
    let bad_range = |why: String| VersionRangeError::BadRange {
        range: range.to_string(),
        why,
    };
    let cli = Version::parse(version.trim_start_matches('v')).map_err(|e| {
        VersionRangeError::BadVersion {
            version: version.to_string(),
            why: e.to_string(),
        }
    })?;
    let mut satisfied = false;
    for group in range.split("||") {
        let parts = comparisons(group);
        if parts.is_empty() {
            return Err(bad_range("an empty alternative".into()));
        }
        let mut all = true;
        for part in parts {
            all &= holds(&part, &cli).map_err(bad_range)?;
        }
        satisfied |= all;
    }
    if satisfied {
        Ok(())
    } else {
        Err(VersionRangeError::Unsatisfied {
            version: cli.to_string(),
            range: range.to_string(),
        })
    }
}

const OPERATORS: [&str; 8] = [">=", "<=", "!=", "==", ">", "<", "=", "!"];

/// The comparisons of one alternative, an operator standing apart from its version (`> 1.0.0`)
/// joined to it, as blang's parser does.
fn comparisons(group: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut pending = String::new();
    for word in group.split_whitespace() {
        if OPERATORS.contains(&word) {
            pending.push_str(word);
        } else {
            out.push(format!("{pending}{word}"));
            pending.clear();
        }
    }
    if !pending.is_empty() {
        out.push(pending);
    }
    out
}

/// Whether `cli` meets one comparison (`>=1.2.3`, a bare version meaning `=`).
fn holds(comparison: &str, cli: &Version) -> Result<bool, String> {
    let op = OPERATORS
        .iter()
        .find(|op| comparison.starts_with(*op))
        .copied()
        .unwrap_or("");
    let text = &comparison[op.len()..];
    let wanted = Version::parse(text).map_err(|e| format!("invalid version {text:?}: {e}"))?;
    let ord = cli.cmp_precedence(&wanted);
    Ok(match op {
        ">=" => ord != Ordering::Less,
        "<=" => ord != Ordering::Greater,
        ">" => ord == Ordering::Greater,
        "<" => ord == Ordering::Less,
        "!=" | "!" => ord != Ordering::Equal,
        _ => ord == Ordering::Equal,
    })
}
