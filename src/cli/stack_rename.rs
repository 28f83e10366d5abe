//! `stepdeck stack rename NEW`: as Pulumi's, the state (every URN rewritten), the settings
//! file `Pulumi.<stack>.yaml`, the history and the tags move to the new name; the selection
//! follows. The settings are copied before the state moves and the old file removed after,
//! so a crash never leaves the state without the salt its secrets need.

use anyhow::{Context, Result};
use stepdeck::project::settings_file_name;

use super::errors::usage;
use super::stdout::outln;
use super::workspace::{Workspace, warn_if_broke_stale};

pub(super) fn run(ws: &Workspace, stack: Option<&str>, new_name: &str) -> Result<()> {
    let stack = ws.stack(stack, false)?;
    let new = ws.reference(new_name)?;
    if new == stack.reference {
        return Err(usage(format!("the stack is already named '{new_name}'")));
    }
    if ws.backend.check_exists(&new)? {
        return Err(usage(format!(
            "a stack named '{new_name}' already exists in project '{}'",
            ws.project.name
        )));
    }
    let old_settings = ws.dir().join(settings_file_name(&stack.name));
    let new_settings = ws.dir().join(settings_file_name(new_name));
    if new_settings.exists() {
        return Err(usage(format!(
            "{} already exists; move it away before renaming the stack to '{new_name}'",
            new_settings.display()
        )));
    }
    let lock = ws.backend.lock(&stack.reference, "rename")?;
    warn_if_broke_stale(&lock);
    let copied = old_settings.exists();
    if copied {
        std::fs::copy(&old_settings, &new_settings)
            .with_context(|| format!("copying {}", old_settings.display()))?;
    }
    if let Err(e) = ws.backend.rename_stack(lock, &new, stack.crypter.as_ref()) {
        // The state did not move: the copy of the settings is not the new stack's.
        if copied && !ws.backend.stack_exists(&new) {
            let _ = std::fs::remove_file(&new_settings);
        }
        return Err(e.into());
    }
    if copied {
        std::fs::remove_file(&old_settings)
            .with_context(|| format!("removing {}", old_settings.display()))?;
    }
    outln!("Renamed {} to {new_name}", stack.name)?;
    Ok(())
}
