//! Stack names as Pulumi's DIY backends read and print them: `<stack>`, `organization/<stack>`
//! and `organization/<project>/<stack>` (the organization is always `organization`), printed
//! bare for a stack of the current project and in full otherwise (or always, with `-Q`).

use std::sync::atomic::{AtomicBool, Ordering};

/// The organization of every stack on a DIY backend.
pub(super) const ORGANIZATION: &str = "organization";

/// `-Q/--fully-qualify-stack-names`, set once from the command line.
static FULLY_QUALIFY: AtomicBool = AtomicBool::new(false);

/// Makes every printed stack name fully qualified (`-Q`).
pub(super) fn fully_qualify(on: bool) {
    FULLY_QUALIFY.store(on, Ordering::Relaxed);
}

/// A stack named on the command line: its project (the current one unless the name says
/// otherwise) and its bare name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct StackName {
    project: String,
    stack: String,
}

impl StackName {
    /// Parses a name as Pulumi's project-scoped DIY store does; errors are Pulumi's words.
    pub(super) fn parse(text: &str, current_project: Option<&str>) -> Result<StackName, String> {
        if text.is_empty() {
            return Err("stack name must not be empty".into());
        }
        let parts: Vec<&str> = text.split('/').collect();
        let (org, project, stack) = match parts.as_slice() {
            [stack] => ("", "", *stack),
            [org, stack] => (*org, "", *stack),
            [org, project, stack] => (*org, *project, *stack),
            // Pulumi's parser leaves every field empty for more than three parts.
            _ => ("", "", ""),
        };
        if !org.is_empty() && org != ORGANIZATION {
            return Err(format!("organization name must be '{ORGANIZATION}'"));
        }
        let project = if project.is_empty() {
            current_project.ok_or(
                "no Pulumi.yaml project file found; either run this command from a directory \
                 containing a Pulumi project, or pass the fully qualified stack name \
                 (organization/project/stack)",
            )?
        } else {
            project
        };
        validate_project(project)?;
        validate_stack(stack)?;
        Ok(StackName {
            project: project.to_string(),
            stack: stack.to_string(),
        })
    }

    /// A stack of `project` named `stack` (already valid names).
    pub(super) fn new(project: &str, stack: &str) -> StackName {
        StackName {
            project: project.to_string(),
            stack: stack.to_string(),
        }
    }

    pub(super) fn project(&self) -> &str {
        &self.project
    }

    /// The bare stack name (the URN's stack part, the `Pulumi.<stack>.yaml` name).
    pub(super) fn stack(&self) -> &str {
        &self.stack
    }

    /// `organization/<project>/<stack>`.
    pub(super) fn qualified(&self) -> String {
        format!("{ORGANIZATION}/{}/{}", self.project, self.stack)
    }

    /// The name as Pulumi prints a reference: bare for a stack of `current_project`, else (or
    /// with `-Q`) fully qualified.
    pub(super) fn shown(&self, current_project: &str) -> String {
        if self.project == current_project && !FULLY_QUALIFY.load(Ordering::Relaxed) {
            self.stack.clone()
        } else {
            self.qualified()
        }
    }
}

fn is_name_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_' | b'.')
}

/// Pulumi's `ValidateProjectName`.
fn validate_project(project: &str) -> Result<(), String> {
    if project.is_empty() {
        Err("project names may not be empty".into())
    } else if project.len() > 100 {
        Err("project names are limited to 100 characters".into())
    } else if !project.bytes().all(is_name_char) {
        Err(
            "project names may only contain alphanumerics, hyphens, underscores, and periods"
                .into(),
        )
    } else {
        Ok(())
    }
}

/// Pulumi's `ParseStackName`.
fn validate_stack(stack: &str) -> Result<(), String> {
    if stack.is_empty() {
        return Err("a stack name may not be empty".into());
    }
    if stack.len() > 100 {
        return Err("a stack name cannot exceed 100 characters".into());
    }
    match stack.bytes().position(|b| !is_name_char(b)) {
        Some(at) => Err(format!(
            "a stack name may only contain alphanumeric, hyphens, underscores, or periods: \
             invalid character '{}' at position {at}",
            char::from(stack.as_bytes()[at])
        )),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_three_forms_with_the_current_project_filled_in() {
        let p = Some("web");
        assert_eq!(
            StackName::parse("dev", p).unwrap(),
            StackName::new("web", "dev")
        );
        assert_eq!(
            StackName::parse("organization/dev", p).unwrap(),
            StackName::new("web", "dev")
        );
        assert_eq!(
            StackName::parse("organization/net/prod", p).unwrap(),
            StackName::new("net", "prod")
        );
        assert_eq!(
            StackName::parse("organization/net/prod", None).unwrap(),
            StackName::new("net", "prod")
        );
    }

    #[test]
    fn refuses_what_pulumi_refuses_in_its_words() {
        let p = Some("web");
        let err = |t: &str| StackName::parse(t, p).unwrap_err();
        assert_eq!(err("acme/dev"), "organization name must be 'organization'");
        assert_eq!(err("web/dev"), "organization name must be 'organization'");
        assert_eq!(err(""), "stack name must not be empty");
        assert_eq!(err("a/b/c/d"), "a stack name may not be empty");
        assert_eq!(
            err("organization/net/prod/x"),
            "a stack name may not be empty"
        );
        assert_eq!(
            err("dev:1"),
            "a stack name may only contain alphanumeric, hyphens, underscores, or periods: \
             invalid character ':' at position 3"
        );
        assert_eq!(
            err("organization/n t/dev"),
            "project names may only contain alphanumerics, hyphens, underscores, and periods"
        );
        assert!(
            StackName::parse("dev", None)
                .unwrap_err()
                .starts_with("no Pulumi.yaml project file found")
        );
    }

    #[test]
    fn prints_bare_names_for_the_current_project_only() {
        let name = StackName::new("web", "dev");
        assert_eq!(name.shown("web"), "dev");
        assert_eq!(name.shown("net"), "organization/web/dev");
        assert_eq!(name.qualified(), "organization/web/dev");
    }
}
