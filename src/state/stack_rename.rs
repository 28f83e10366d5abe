//! The URNs of a renamed stack (Pulumi's `edit.RenameStack`): every URN in the state, and
//! every reference to one, rewritten for the new stack name. Each backend moves the state.

use crate::engine::model::urn::ROOT_STACK_TYPE;
use crate::engine::{ResourceState, Snapshot, Urn};

/// The URN under the new stack name; the root stack's own name `<project>-<stack>` changes
/// with it, as Pulumi's `edit.RenameStack` does.
fn renamed(urn: &Urn, stack: &str) -> Urn {
    let name = if urn.qualified_type() == ROOT_STACK_TYPE {
        format!("{}-{stack}", urn.project())
    } else {
        urn.name().to_string()
    };
    Urn::parse(&format!(
        "urn:pulumi:{stack}::{}::{}::{name}",
        urn.project(),
        urn.qualified_type()
    ))
    .unwrap_or_else(|_| urn.clone())
}

fn rename_state(r: &mut ResourceState, stack: &str) {
    r.urn = renamed(&r.urn, stack);
    r.for_each_reference(|u| *u = renamed(u, stack));
    r.aliases.iter_mut().for_each(|u| *u = renamed(u, stack));
    if let Some(reference) = &mut r.provider {
        reference.urn = renamed(&reference.urn, stack);
    }
}

/// Rewrites every URN of the snapshot (resources and pending operations) for `stack`.
pub fn rename_snapshot(snapshot: &mut Snapshot, stack: &str) {
    for r in &mut snapshot.resources {
        rename_state(r, stack);
    }
    for op in &mut snapshot.pending_operations {
        rename_state(&mut op.resource, stack);
    }
}
