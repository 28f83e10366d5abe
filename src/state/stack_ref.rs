//! Stack identity: a project name and a stack name, validated once so that they are safe to
//! use as path components everywhere else.

use std::fmt;

/// A project or stack name that cannot be used; the names become directory names.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid {kind} name {name:?}: {reason}")]
pub struct BadName {
    pub kind: &'static str,
    pub name: String,
    pub reason: String,
}

/// A stack within a project; both names match Pulumi's `[A-Za-z0-9_.-]{1,100}`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct StackRef {
    project: String,
    stack: String,
}

impl StackRef {
    pub fn new(project: &str, stack: &str) -> Result<StackRef, BadName> {
        validate_name("project", project)?;
        validate_name("stack", stack)?;
        Ok(StackRef {
            project: project.to_string(),
            stack: stack.to_string(),
        })
    }

    /// The project name, as in `Pulumi.yaml`.
    pub fn project(&self) -> &str {
        &self.project
    }

    /// The stack name alone (the URN's stack part).
    pub fn stack(&self) -> &str {
        &self.stack
    }

    /// The name the DIY backend writes into checkpoints: `organization/<project>/<stack>`.
    pub fn qualified(&self) -> String {
        format!("organization/{}/{}", self.project, self.stack)
    }
}

impl fmt::Display for StackRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.project, self.stack)
    }
}

/// Checks a project or stack name; the names become directory names.
pub fn validate_name(kind: &'static str, name: &str) -> Result<(), BadName> {
    let bad = |reason: &str| BadName {
        kind,
        name: name.to_string(),
        reason: reason.to_string(),
    };
    if name.is_empty() {
        return Err(bad("it is empty"));
    }
    if name.len() > 100 {
        return Err(bad("it is longer than 100 characters"));
    }
    if name == "." || name == ".." {
        return Err(bad("it is a path component"));
    }
    if let Some(c) = name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.')))
    {
        return Err(bad(&format!(
            "{c:?} is not allowed (use letters, digits, '-', '_' and '.')"
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_path_safe() {
        assert!(StackRef::new("web-app", "dev.eu_1").is_ok());
        for bad in ["", "..", "a/b", "a b", "ü"] {
            let e = StackRef::new("p", bad).unwrap_err().to_string();
            assert!(e.contains("invalid stack name"), "{e}");
        }
        assert!(StackRef::new(&"x".repeat(101), "dev").is_err());
        assert_eq!(
            StackRef::new("p", "dev").unwrap().qualified(),
            "organization/p/dev"
        );
    }
}
