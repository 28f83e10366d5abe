//! Stack references on the file backend: another stack's state read for the builtin `pulumi`
//! provider, named as Pulumi's self-managed backends name stacks.

use crate::engine::{Snapshot, StackOutputsSource, StackReadError};

use std::sync::Arc;

use super::backend::Backend;
use super::passphrase::{Crypter, passphrase_from_env};
use super::stack_ref::StackRef;

/// The organization every stack of a self-managed backend belongs to, as in Pulumi.
const ORGANIZATION: &str = "organization";

/// Reads the stacks of one backend; `project` completes names that leave the project out.
pub struct BackendStacks {
    backend: Arc<dyn Backend>,
    project: String,
}

impl BackendStacks {
    /// `project` is the project of the deployment that holds the references.
    pub fn new(backend: Arc<dyn Backend>, project: &str) -> BackendStacks {
        BackendStacks {
            backend,
            project: project.to_string(),
        }
    }

    /// Parses `<stack>`, `organization/<stack>` or `organization/<project>/<stack>`, the forms
    /// Pulumi's self-managed backends accept.
    fn parse(&self, name: &str) -> Result<StackRef, StackReadError> {
        let bad = |m: String| StackReadError(m);
        if name.is_empty() {
            return Err(bad("stack name must not be empty".to_string()));
        }
        let parts: Vec<&str> = name.split('/').collect();
        let (org, project, stack) = match parts.as_slice() {
            [stack] => (ORGANIZATION, self.project.as_str(), *stack),
            [org, stack] => (*org, self.project.as_str(), *stack),
            [org, project, stack] => (*org, *project, *stack),
            _ => {
                return Err(bad(format!(
                    "invalid stack reference {name:?}: use <stack>, organization/<stack> or organization/<project>/<stack>"
                )));
            }
        };
        if org != ORGANIZATION {
            return Err(bad(format!(
                "invalid stack reference {name:?}: organization name must be '{ORGANIZATION}'"
            )));
        }
        StackRef::new(project, stack)
            .map_err(|e| bad(format!("invalid stack reference {name:?}: {e}")))
    }

    /// The crypter of the stack's own secrets provider, from the salt its checkpoint records
    /// and the passphrase of the environment.
    fn crypter(&self, stack: &StackRef) -> Result<Option<Crypter>, StackReadError> {
        let salt = self
            .backend
            .recorded_salt(stack)
            .map_err(|e| StackReadError(e.to_string()))?;
        let (Some(salt), Some(passphrase)) = (
            salt,
            passphrase_from_env().map_err(|e| StackReadError(e.to_string()))?,
        ) else {
            return Ok(None);
        };
        Crypter::from_salt(&passphrase, &salt)
            .map(Some)
            .map_err(|e| StackReadError(format!("reading the secrets of stack {stack}: {e}")))
    }
}

impl StackOutputsSource for BackendStacks {
    fn snapshot(&self, name: &str) -> Result<Snapshot, StackReadError> {
        let stack = self.parse(name)?;
        if !self.backend.stack_exists(&stack) {
            return Err(StackReadError(format!("unknown stack {name:?}")));
        }
        let crypter = self.crypter(&stack)?;
        self.backend
            .load(&stack, crypter.as_ref())
            .map(|state| state.snapshot)
            .map_err(|e| StackReadError(format!("reading stack {name:?}: {e}")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::BackendUrl;

    fn stacks(dir: &std::path::Path) -> BackendStacks {
        let url = BackendUrl::parse(&format!("file://{}", dir.display())).unwrap();
        BackendStacks::new(crate::state::open_backend(&url).unwrap(), "web")
    }

    #[test]
    fn names_take_the_forms_of_self_managed_backends() {
        let dir = tempfile::tempdir().unwrap();
        let s = stacks(dir.path());
        assert_eq!(
            s.parse("dev").unwrap(),
            StackRef::new("web", "dev").unwrap()
        );
        assert_eq!(
            s.parse("organization/dev").unwrap(),
            StackRef::new("web", "dev").unwrap()
        );
        assert_eq!(
            s.parse("organization/net/prod").unwrap(),
            StackRef::new("net", "prod").unwrap()
        );
        let e = s.parse("acme/net/prod").unwrap_err().to_string();
        assert!(
            e.contains("organization name must be 'organization'"),
            "{e}"
        );
        assert!(s.parse("a/b/c/d").is_err());
        assert!(
            s.parse("")
                .unwrap_err()
                .to_string()
                .contains("must not be empty")
        );
    }

    #[test]
    fn a_missing_stack_is_unknown() {
        let dir = tempfile::tempdir().unwrap();
        let e = stacks(dir.path())
            .snapshot("organization/net/prod")
            .unwrap_err();
        assert_eq!(e.to_string(), "unknown stack \"organization/net/prod\"");
    }
}
