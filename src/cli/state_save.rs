//! What every direct state edit shares (`state` and `state_move`): asking before the edit
//! and saving the edited state as a new checkpoint.

use std::io::{BufRead, IsTerminal, Write};

use anyhow::Result;
use stepdeck::engine::Snapshot;
use stepdeck::engine::model::snapshot::Manifest;
use stepdeck::state::{Crypter, StackLock};

use super::errors::usage;
use super::workspace::{Workspace, report_notices};

/// Asks before editing state, as Pulumi does; without a terminal `--yes` is required.
pub(super) fn confirm(yes: bool) -> Result<bool> {
    if yes {
        return Ok(true);
    }
    if !std::io::stdin().is_terminal() {
        return Err(usage(
            "--yes must be passed in to proceed when running in non-interactive mode",
        ));
    }
    print!("This command will edit your stack's state directly. Confirm? [yes/no] ");
    std::io::stdout().flush()?;
    let mut line = String::new();
    std::io::stdin().lock().read_line(&mut line)?;
    Ok(matches!(line.trim(), "yes" | "y"))
}

/// Saves an edited state under the held lock, stamped now.
pub(super) fn save(
    ws: &Workspace,
    lock: &StackLock,
    mut snap: Snapshot,
    c: Option<&Crypter>,
) -> Result<()> {
    snap.manifest = Manifest::now();
    ws.backend.save(lock, &snap, c)?;
    report_notices(lock);
    Ok(())
}
