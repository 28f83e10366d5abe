//! Pending creates an interrupted run left: the provider may have made the resource, but its
//! ID never reached the journal. `refresh` asks the provider to find it by URN and records
//! what it finds (Pulumi's `--import-pending-creates`, without the operator typing the ID);
//! `--clear-pending-creates` drops them. Either way they stop piling up across kills.

use std::collections::HashSet;
use std::sync::Arc;

use super::apply::{ApplyCtx, secretize};
use crate::engine::journal::JournalError;
use crate::engine::model::resource::{OperationType, PendingOperation, ResourceState};
use crate::engine::model::urn::Urn;
use crate::engine::provider::ProviderError;
use crate::engine::run::events::{EngineEvent, EventSink, PendingCreate, Severity};

/// The pending creates among a base's pending operations, by position.
fn pending_creates(pending: &[PendingOperation]) -> impl Iterator<Item = (usize, &ResourceState)> {
    pending
        .iter()
        .enumerate()
        .filter(|(_, p)| p.kind == OperationType::Creating)
        .map(|(i, p)| (i, &p.resource))
}

/// The pending creates a display is told about before the run.
pub(crate) fn announce(pending: &[PendingOperation], events: &EventSink) {
    let creates: Vec<PendingCreate> = pending_creates(pending)
        .map(|(_, r)| PendingCreate {
            urn: r.urn.clone(),
            type_: r.type_.clone(),
        })
        .collect();
    if !creates.is_empty() {
        events.send(EngineEvent::PendingCreates { creates });
    }
}

/// Drops every pending create (`--clear-pending-creates`), saying so for each and then how
/// many in all.
pub(crate) fn clear(
    ctx: &ApplyCtx,
    pending: &[PendingOperation],
    events: &EventSink,
) -> Result<(), JournalError> {
    let mut count = 0;
    for (i, r) in pending_creates(pending) {
        count += 1;
        ctx.manager.resolve(i, None)?;
        events.diag(
            Some(r.urn.clone()),
            Severity::Info,
            "cleared the pending create of this resource (--clear-pending-creates)",
        );
    }
    if count > 0 {
        events.send(EngineEvent::PendingCreatesCleared { count });
    }
    Ok(())
}

/// Resolves what pending creates it can: a create that made nothing is cleared; one whose
/// resource the provider finds is recorded with it (as a copy to delete when the stack already
/// holds that URN, so the next update removes the duplicate). A provider that cannot look
/// resources up leaves its pending creates, with a warning naming the way out.
/// `base` is the stack's state after this refresh (`gone`: positions the refresh found gone).
pub(crate) async fn resolve(
    ctx: &ApplyCtx,
    base: &[Arc<ResourceState>],
    gone: &HashSet<usize>,
    pending: &[PendingOperation],
    events: &EventSink,
) -> Result<(), JournalError> {
    let present = || {
        base.iter()
            .enumerate()
            .filter(|(i, _)| !gone.contains(i))
            .map(|(_, r)| r)
    };
    let mut known_ids: HashSet<String> = present().filter_map(|r| r.id.clone()).collect();
    let mut live: HashSet<Urn> = present()
        .filter(|r| !r.delete)
        .map(|r| r.urn.clone())
        .collect();
    for (i, r) in pending_creates(pending) {
        if !r.custom || r.is_provider() {
            // Components and providers make nothing outside the state.
            ctx.manager.resolve(i, None)?;
            continue;
        }
        let stays = |why: &dyn std::fmt::Display| {
            events.diag(
                Some(r.urn.clone()),
                Severity::Warning,
                format!("the pending create of this resource stays: looking it up failed: {why}"),
            );
        };
        let found = match ctx.provider(r).await {
            Ok(loaded) => loaded.provider.lookup(&r.urn).await,
            Err(e) => {
                stays(&e);
                continue;
            }
        };
        let candidates = match found {
            Ok(c) => c,
            Err(ProviderError::Unsupported(_)) => {
                events.diag(
                    Some(r.urn.clone()),
                    Severity::Warning,
                    "an interrupted create of this resource is still pending: its provider cannot \
                     look resources up by URN. Check whether it exists, then run with \
                     --clear-pending-creates",
                );
                continue;
            }
            Err(e) => {
                stays(&e);
                continue;
            }
        };
        let Some(made) = candidates.into_iter().find(|c| !known_ids.contains(&c.id)) else {
            ctx.manager.resolve(i, None)?;
            events.diag(
                Some(r.urn.clone()),
                Severity::Info,
                "the interrupted create of this resource made nothing: its pending create is cleared",
            );
            continue;
        };
        let mut state = r.clone();
        state.id = Some(made.id.clone());
        state.outputs = made.outputs;
        secretize(
            &mut state.outputs,
            &state.inputs,
            &state.additional_secret_outputs,
        );
        state.created = ctx.now();
        state.modified = state.created.clone();
        let message = if live.insert(state.urn.clone()) {
            format!("recorded {} that an interrupted create made", made.id)
        } else {
            state.delete = true;
            format!(
                "found {} that an interrupted create made; the stack already has this resource, \
                 so the copy is recorded for deletion by the next update",
                made.id
            )
        };
        known_ids.insert(made.id);
        ctx.manager.resolve(i, Some(state))?;
        events.diag(Some(r.urn.clone()), Severity::Info, message);
    }
    Ok(())
}
