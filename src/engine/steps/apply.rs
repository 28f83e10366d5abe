//! Applying one step: the provider call, the journal entries around it, and the state that
//! results. Previews call providers in preview mode and journal nothing.

use std::ops::ControlFlow;
use std::sync::Arc;

use crate::engine::hooks::{ErrorHookCall, HookCall, HookKind, Hooks, MAX_ERROR_HOOK_ATTEMPTS};
use crate::engine::journal::{SnapshotManager, SuccessEntry};
use crate::engine::model::clock::Clock;
use crate::engine::model::property::{PropertyMap, PropertyValue};
use crate::engine::model::resource::{OperationType, ResourceState};
use crate::engine::provider::parameterization::without_internal;
use crate::engine::provider::registry::ProviderRegistry;
use crate::engine::provider::{
    CreateRequest, DeleteRequest, ProviderError, ReadRequest, UpdateRequest,
};
use crate::engine::run::events::Severity;
use crate::engine::step::{OldState, ReplaceOrder, Step, Superseded};
use crate::engine::step_error::{ProviderCall, StepError};

/// What a step did to the run's bookkeeping besides its state; the deployment loop records it.
pub(crate) enum Effect {
    /// A base copy left behind by a replacement, for the delete phase.
    LeftForDelete(usize),
    /// A base copy a delete-before-replace deleted ahead of its replacement.
    PendingReplacement(usize),
    /// What a refresh found at a base position (`None`: gone).
    Refreshed(usize, Option<Box<ResourceState>>),
}

/// A step's result, with its effect on the run.
pub(crate) struct Applied {
    pub result: Result<Option<ResourceState>, StepError>,
    pub effect: Option<Effect>,
}

/// What becomes of the base copy a new state replaces.
#[derive(Clone, Copy)]
enum OldCopy {
    /// It leaves the state now.
    Removed(usize),
    /// It stays, marked for deletion, until the delete phase deletes it.
    LeftForDelete(usize),
}

/// What a delete leaves in the state of the copy it deleted.
#[derive(Clone, Copy)]
enum DeleteEnd {
    /// The copy leaves the state.
    Removed,
    /// The copy leaves the state, and so does the one this run wrote again for its URN.
    RemovedWithRewritten,
    /// A delete-before-replace keeps it pending replacement until the replacement exists.
    PendingReplacement,
}

/// How a delete step ends, and whether its provider call is skipped because the run deletes
/// its `deletedWith` target too.
#[derive(Clone, Copy)]
struct Deletion {
    end: DeleteEnd,
    target_deleted: bool,
}

/// What every step application shares.
pub(crate) struct ApplyCtx {
    pub registry: Arc<ProviderRegistry>,
    pub manager: Arc<SnapshotManager>,
    /// The time recorded on created, updated and imported resources.
    pub clock: Clock,
    pub preview: bool,
    /// Protected resources may be deleted (`--ignore-protect`).
    pub ignore_protect: bool,
    /// The program's resource and error hooks, run around provider calls.
    pub hooks: Arc<Hooks>,
}

/// Outputs are secret where the program asked, or where the input of the same name was.
/// Outputs with nothing to wrap stay as they are: the provider's map is often shared (the sim
/// world keeps it), and writing through it would copy every resource's outputs.
pub(crate) fn secretize(outputs: &mut PropertyMap, inputs: &PropertyMap, additional: &[String]) {
    let wanted = |k: &String, v: &PropertyValue| {
        !v.is_secret()
            && (additional.iter().any(|a| a == k)
                || inputs.get(k).is_some_and(PropertyValue::is_secret))
    };
    if !outputs.iter().any(|(k, v)| wanted(k, v)) {
        return;
    }
    for (k, v) in outputs.iter_mut() {
        if wanted(k, v) {
            *v = PropertyValue::Secret(Box::new(std::mem::take(v)));
        }
    }
}

/// Records a partial failure (the resource exists but did not initialise): its outputs and
/// init errors, never empty so that the next update retries it; the step fails.
fn partially_initialised(
    new: &mut ResourceState,
    outputs: PropertyMap,
    reasons: Vec<String>,
    call: ProviderCall,
) -> Result<(), StepError> {
    new.outputs = outputs;
    secretize(
        &mut new.outputs,
        &new.inputs,
        &new.additional_secret_outputs,
    );
    new.init_errors = if reasons.is_empty() {
        vec!["resource init failed".to_string()]
    } else {
        reasons
    };
    Err(StepError::PartialFailure {
        call,
        urn: new.urn.clone(),
        init_errors: new.init_errors.clone(),
    })
}

/// What becomes of the old copy when its replacement is created: a delete-before-replace
/// already deleted it, so the new one takes its place; otherwise it waits for the delete phase.
fn replaced_copy(old: &OldState, order: ReplaceOrder) -> OldCopy {
    if order == ReplaceOrder::DeleteBeforeCreate || old.state.pending_replacement {
        OldCopy::Removed(old.index)
    } else {
        OldCopy::LeftForDelete(old.index)
    }
}

impl ApplyCtx {
    pub(crate) fn now(&self) -> Option<String> {
        Some(self.clock.timestamp())
    }

    fn journal<T>(
        &self,
        f: impl FnOnce(&SnapshotManager) -> Result<T, crate::engine::journal::JournalError>,
    ) -> Result<Option<T>, StepError> {
        if self.preview {
            return Ok(None);
        }
        Ok(f(&self.manager).map(Some)?)
    }

    /// Records an operation about to run. One that may change the cloud (a create, update or
    /// delete of a custom resource through its provider) is durable first: the provider is
    /// called only once the `Begin` entry is on stable storage and the stack's lock was found
    /// still this run's after it was written (see [`SnapshotManager::durable`]). Reads and imports change nothing, nor do components and
    /// provider resources, so their `Begin` needs no sync.
    async fn begin(
        &self,
        kind: OperationType,
        state: &ResourceState,
    ) -> Result<Option<u64>, StepError> {
        let op = self.journal(|m| m.begin(kind, state))?;
        let mutates = !matches!(kind, OperationType::Reading | OperationType::Importing)
            && state.custom
            && !state.is_provider();
        if op.is_some() && mutates {
            let synced = self.manager.durable().await.map_err(StepError::from);
            self.recorded(op, synced)?;
        }
        Ok(op)
    }

    fn end(&self, op: Option<u64>, entry: SuccessEntry) -> Result<(), StepError> {
        self.journal(|m| m.success(SuccessEntry { op, ..entry }))
            .map(|_| ())
    }

    /// A partial failure (init errors) still made or changed the resource: it is recorded as a
    /// success and the step fails after that (the inner error). Any other failure is journaled
    /// and returned (the outer error).
    fn partial_ok(
        &self,
        op: Option<u64>,
        result: Result<(), StepError>,
    ) -> Result<Result<(), StepError>, StepError> {
        match result {
            Err(e @ StepError::PartialFailure { .. }) => Ok(Err(e)),
            other => self.recorded(op, other).map(Ok),
        }
    }

    /// Passes a provider call's result through, journaling the operation's failure first.
    fn recorded<T>(&self, op: Option<u64>, result: Result<T, StepError>) -> Result<T, StepError> {
        if result.is_err()
            && let Some(op) = op
        {
            let _ = self.journal(|m| m.failure(op));
        }
        result
    }

    /// Applies a step: the resource's resulting state when it has one, and what the run
    /// must remember of it.
    /// A delete whose `deletedWith` target the run deletes too (`target_deleted`) skips the
    /// provider call.
    pub(in crate::engine) async fn apply(&self, step: &Step, target_deleted: bool) -> Applied {
        let result = self.run(step, target_deleted).await;
        let recorded = match &result {
            Ok(_) => true,
            // A partial failure or an after-hook's failure recorded the new state.
            Err(e) => e.recorded(),
        };
        let effect = match step {
            Step::CreateReplacement { old, order, .. } => match replaced_copy(old, *order) {
                OldCopy::LeftForDelete(i) if recorded => Some(Effect::LeftForDelete(i)),
                _ => None,
            },
            Step::ReadReplacement { old, .. } | Step::ImportReplacement { old, .. }
                if result.is_ok() =>
            {
                Some(Effect::LeftForDelete(old.index))
            }
            Step::DeleteBeforeReplace { old, .. } if recorded => {
                Some(Effect::PendingReplacement(old.index))
            }
            Step::Refresh { old } => match &result {
                Ok(found) => Some(Effect::Refreshed(old.index, found.clone().map(Box::new))),
                Err(_) => None,
            },
            _ => None,
        };
        Applied { result, effect }
    }

    async fn run(
        &self,
        step: &Step,
        target_deleted: bool,
    ) -> Result<Option<ResourceState>, StepError> {
        let deleted = |end| Deletion {
            end,
            target_deleted,
        };
        match step {
            Step::Same { old, new } => self.same(old, new).await,
            Step::SkippedCreate { new } => Ok(Some(new.clone())),
            Step::Create { new } => self.create_step(new, None).await,
            Step::CreateReplacement {
                old, new, order, ..
            } => {
                self.create_step(new, Some(replaced_copy(old, *order)))
                    .await
            }
            Step::Update { old, new, .. } => self.update_step(old, new).await,
            Step::Delete { old } => {
                if old.state.protect && !self.ignore_protect {
                    return Err(StepError::Protected {
                        urn: old.state.urn.clone(),
                    });
                }
                self.delete_step(old, deleted(DeleteEnd::Removed)).await
            }
            Step::DeleteRewritten { old } => {
                self.delete_step(old, deleted(DeleteEnd::RemovedWithRewritten))
                    .await
            }
            Step::DeleteReplaced { old } => {
                self.delete_step(old, deleted(DeleteEnd::Removed)).await
            }
            Step::DeleteBeforeReplace { old, .. } => {
                self.delete_step(old, deleted(DeleteEnd::PendingReplacement))
                    .await
            }
            Step::Replace { .. } => Ok(None),
            Step::RemovePendingReplace { old }
            | Step::Discard { old }
            | Step::DiscardReplaced { old } => {
                self.end(
                    None,
                    SuccessEntry {
                        remove_old: Some(old.index),
                        ..SuccessEntry::default()
                    },
                )?;
                Ok(None)
            }
            Step::Refresh { old } => self.refresh(old).await,
            Step::Read { new } => self.read(new, None).await,
            Step::Reread { old, new } => self.read(new, Some(OldCopy::Removed(old.index))).await,
            Step::ReadReplacement { old, new } => {
                self.read(new, Some(OldCopy::LeftForDelete(old.index)))
                    .await
            }
            Step::Import { new, id, only } => self.import(new, id, None, only.as_deref()).await,
            Step::ImportReplacement { old, new, id } => {
                self.import(new, id, Some(OldCopy::LeftForDelete(old.index)), None)
                    .await
            }
        }
    }

    /// A create (or the create half of a replacement, which says what becomes of the old copy).
    async fn create_step(
        &self,
        new: &ResourceState,
        old: Option<OldCopy>,
    ) -> Result<Option<ResourceState>, StepError> {
        let mut new = new.clone();
        let before = HookCall {
            new_inputs: Some(new.inputs.clone()),
            ..HookCall::of(&new)
        };
        self.before(HookKind::BeforeCreate, &new, &before).await?;
        let op = self.begin(OperationType::Creating, &new).await?;
        let mut failures = Vec::new();
        let created = loop {
            let attempt = self.create(&mut new).await;
            let call = || ErrorHookCall {
                new_inputs: Some(new.inputs.clone()),
                ..ErrorHookCall::of(&new, "create")
            };
            if let ControlFlow::Break(done) = self.settle(&new, attempt, call, &mut failures).await
            {
                break done;
            }
        };
        let finished = self.partial_ok(op, created)?;
        let entry = Self::superseding(new.clone(), old);
        self.end(op, entry)?;
        finished?;
        if new.custom {
            let after = HookCall {
                new_inputs: Some(new.inputs.clone()),
                new_outputs: Some(new.outputs.clone()),
                ..HookCall::of(&new)
            };
            self.after(HookKind::AfterCreate, &new, &after, Some(&new))
                .await?;
        }
        Ok(Some(new))
    }

    async fn update_step(
        &self,
        old: &Superseded,
        new: &ResourceState,
    ) -> Result<Option<ResourceState>, StepError> {
        let mut new = new.clone();
        let old_state = old.state();
        new.id = old_state.id.clone();
        new.created = old_state.created.clone();
        let mut call = HookCall {
            new_inputs: Some(new.inputs.clone()),
            old_inputs: Some(old_state.inputs.clone()),
            old_outputs: Some(old_state.outputs.clone()),
            ..HookCall::of(&new)
        };
        self.before(HookKind::BeforeUpdate, &new, &call).await?;
        let op = self.begin(OperationType::Updating, &new).await?;
        let mut failures = Vec::new();
        let updated = loop {
            let attempt = self.update(old_state, &mut new).await;
            let call = || ErrorHookCall {
                new_inputs: Some(new.inputs.clone()),
                old_inputs: Some(old_state.inputs.clone()),
                old_outputs: Some(old_state.outputs.clone()),
                ..ErrorHookCall::of(&new, "update")
            };
            if let ControlFlow::Break(done) = self.settle(&new, attempt, call, &mut failures).await
            {
                break done;
            }
        };
        let finished = self.partial_ok(op, updated)?;
        let entry = match old {
            Superseded::Imported(_) => SuccessEntry {
                new: Some(new.clone()),
                supersede_new: Some(new.urn.clone()),
                ..SuccessEntry::default()
            },
            Superseded::Base(o) => SuccessEntry {
                new: Some(new.clone()),
                remove_old: Some(o.index),
                ..SuccessEntry::default()
            },
        };
        self.end(op, entry)?;
        finished?;
        if old_state.custom {
            call.new_outputs = Some(new.outputs.clone());
            self.after(HookKind::AfterUpdate, &new, &call, Some(&new))
                .await?;
        }
        Ok(Some(new))
    }

    /// Deletes an old copy and records what its delete leaves in the state.
    async fn delete_step(
        &self,
        old: &OldState,
        Deletion {
            end,
            target_deleted,
        }: Deletion,
    ) -> Result<Option<ResourceState>, StepError> {
        let state = &old.state;
        let call = HookCall {
            old_inputs: Some(state.inputs.clone()),
            old_outputs: Some(state.outputs.clone()),
            ..HookCall::of(state)
        };
        self.before(HookKind::BeforeDelete, state, &call).await?;
        let op = self.begin(OperationType::Deleting, state).await?;
        let mut failures = Vec::new();
        let deleted = loop {
            let attempt = self.delete(state, target_deleted).await;
            let call = || ErrorHookCall {
                old_inputs: Some(state.inputs.clone()),
                old_outputs: Some(state.outputs.clone()),
                ..ErrorHookCall::of(state, "delete")
            };
            if let ControlFlow::Break(done) = self.settle(state, attempt, call, &mut failures).await
            {
                break done;
            }
        };
        self.recorded(op, deleted)?;
        let entry = match end {
            DeleteEnd::PendingReplacement => SuccessEntry {
                pending_replacement_old: Some(old.index),
                ..SuccessEntry::default()
            },
            DeleteEnd::Removed => SuccessEntry {
                remove_old: Some(old.index),
                ..SuccessEntry::default()
            },
            DeleteEnd::RemovedWithRewritten => SuccessEntry {
                remove_old: Some(old.index),
                supersede_new: Some(old.state.urn.clone()),
                ..SuccessEntry::default()
            },
        };
        self.end(op, entry)?;
        self.after(HookKind::AfterDelete, state, &call, None)
            .await?;
        Ok(None)
    }

    /// Runs the before-hooks of `kind`; a failure fails the step before anything is journaled.
    async fn before(
        &self,
        kind: HookKind,
        state: &ResourceState,
        call: &HookCall,
    ) -> Result<(), StepError> {
        self.hooks
            .run(kind, state, call, self.preview)
            .await
            .map_err(|source| StepError::BeforeHook {
                urn: state.urn.clone(),
                source,
            })
    }

    /// Runs the after-hooks of `kind` once the step is recorded: a failure does not undo the
    /// step, it comes back as [`StepError::AfterHook`] with the step's resulting state, `done`.
    async fn after(
        &self,
        kind: HookKind,
        state: &ResourceState,
        call: &HookCall,
        done: Option<&ResourceState>,
    ) -> Result<(), StepError> {
        self.hooks
            .run(kind, state, call, self.preview)
            .await
            .map_err(|source| StepError::AfterHook {
                urn: state.urn.clone(),
                source,
                state: done.map(|s| Box::new(s.clone())),
            })
    }

    /// The one retry rule of create, update and delete: a failed attempt is tried again when
    /// the resource's error hooks ask for it (announced as a warning), up to
    /// [`MAX_ERROR_HOOK_ATTEMPTS`]; `Break` carries what the step ends with. A partial failure
    /// made the resource: it is recorded, never retried. `call` describes the failed attempt
    /// to the hooks; `failures` holds every failure so far, newest first.
    async fn settle<T>(
        &self,
        state: &ResourceState,
        attempt: Result<T, StepError>,
        call: impl FnOnce() -> ErrorHookCall,
        failures: &mut Vec<String>,
    ) -> ControlFlow<Result<T, StepError>> {
        let error = match attempt {
            Err(e) if !matches!(e, StepError::PartialFailure { .. }) => e,
            done => return ControlFlow::Break(done),
        };
        if !state.resource_hooks.contains_key(&HookKind::OnError) {
            return ControlFlow::Break(Err(error));
        }
        failures.insert(0, error.to_string());
        if failures.len() >= MAX_ERROR_HOOK_ATTEMPTS {
            self.hooks.report(
                Some(&state.urn),
                Severity::Warning,
                format!("maximum number of error hook retries ({MAX_ERROR_HOOK_ATTEMPTS}) reached"),
            );
            return ControlFlow::Break(Err(StepError::RetriesExhausted {
                source: Box::new(error),
            }));
        }
        let call = ErrorHookCall {
            errors: failures.clone(),
            ..call()
        };
        match self.hooks.should_retry(state, &call).await {
            Ok(true) => {
                self.hooks.report(
                    Some(&state.urn),
                    Severity::Warning,
                    format!(
                        "retrying {} due to on-error hook request ({}/{MAX_ERROR_HOOK_ATTEMPTS})",
                        call.failed_operation,
                        failures.len()
                    ),
                );
                ControlFlow::Continue(())
            }
            Ok(false) => ControlFlow::Break(Err(error)),
            Err(source) => ControlFlow::Break(Err(StepError::ErrorHook {
                urn: state.urn.clone(),
                source,
            })),
        }
    }

    /// The journal entry of a new state, and what it does to the old copy it replaces.
    fn superseding(new: ResourceState, old: Option<OldCopy>) -> SuccessEntry {
        let mut entry = SuccessEntry {
            new: Some(new),
            ..SuccessEntry::default()
        };
        match old {
            Some(OldCopy::Removed(i)) => entry.remove_old = Some(i),
            Some(OldCopy::LeftForDelete(i)) => entry.mark_delete_old = Some(i),
            None => {}
        }
        entry
    }

    async fn same(
        &self,
        old: &OldState,
        new: &ResourceState,
    ) -> Result<Option<ResourceState>, StepError> {
        if new.is_provider() {
            let id = old.state.id.clone().unwrap_or_default();
            self.registry
                .configure(&new.urn, &id, &new.inputs, self.preview)
                .await
                .map_err(|source| StepError::Configure {
                    urn: new.urn.clone(),
                    source,
                })?;
        }
        let entry = if *new == *old.state {
            SuccessEntry {
                keep_old: Some(old.index),
                ..SuccessEntry::default()
            }
        } else {
            SuccessEntry {
                new: Some(new.clone()),
                remove_old: Some(old.index),
                ..SuccessEntry::default()
            }
        };
        self.end(None, entry)?;
        Ok(Some(new.clone()))
    }

    async fn create(&self, new: &mut ResourceState) -> Result<(), StepError> {
        new.created = self.now();
        new.modified = new.created.clone();
        if !new.custom {
            return Ok(());
        }
        if new.is_provider() {
            let id = uuid::Uuid::new_v4().to_string();
            self.registry
                .configure(&new.urn, &id, &new.inputs, self.preview)
                .await
                .map_err(|source| StepError::Configure {
                    urn: new.urn.clone(),
                    source,
                })?;
            new.id = Some(id);
            new.outputs = without_internal(&new.inputs);
            return Ok(());
        }
        let loaded = self.provider(new).await?;
        if !loaded.configured {
            // A preview under a provider with unknown config: every output is unknown.
            return Ok(());
        }
        let inputs = if loaded.configure.accept_secrets {
            new.inputs.clone()
        } else {
            crate::engine::model::property::reveal_map(&new.inputs)
        };
        let timeout = new.custom_timeouts.as_ref().map_or(0.0, |t| t.create);
        let result = loaded
            .provider
            .create(CreateRequest {
                urn: new.urn.clone(),
                inputs,
                timeout,
                preview: self.preview,
            })
            .await;
        match result {
            Ok(r) => {
                new.id = (!r.id.is_empty()).then_some(r.id);
                new.outputs = r.outputs;
                secretize(
                    &mut new.outputs,
                    &new.inputs,
                    &new.additional_secret_outputs,
                );
                Ok(())
            }
            Err(ProviderError::PartialFailure {
                id,
                outputs,
                reasons,
            }) => {
                new.id = (!id.is_empty()).then_some(id);
                partially_initialised(new, outputs, reasons, ProviderCall::Create)
            }
            Err(source) => Err(StepError::Provider {
                call: ProviderCall::Create,
                urn: new.urn.clone(),
                source,
            }),
        }
    }

    async fn update(&self, old: &ResourceState, new: &mut ResourceState) -> Result<(), StepError> {
        new.modified = self.now();
        if !new.custom {
            new.outputs = old.outputs.clone();
            return Ok(());
        }
        if new.is_provider() {
            let id = old.id.clone().unwrap_or_default();
            self.registry
                .configure(&new.urn, &id, &new.inputs, self.preview)
                .await
                .map_err(|source| StepError::Configure {
                    urn: new.urn.clone(),
                    source,
                })?;
            new.outputs = without_internal(&new.inputs);
            return Ok(());
        }
        let loaded = self.provider(new).await?;
        if !loaded.configured {
            new.outputs = PropertyMap::new();
            return Ok(());
        }
        let reveal = |m: &PropertyMap| {
            if loaded.configure.accept_secrets {
                m.clone()
            } else {
                crate::engine::model::property::reveal_map(m)
            }
        };
        let result = loaded
            .provider
            .update(UpdateRequest {
                urn: new.urn.clone(),
                id: old.id.clone().unwrap_or_default(),
                old_inputs: reveal(&old.inputs),
                old_outputs: reveal(&old.outputs),
                new_inputs: reveal(&new.inputs),
                timeout: new.custom_timeouts.as_ref().map_or(0.0, |t| t.update),
                ignore_changes: new.ignore_changes.clone(),
                preview: self.preview,
            })
            .await;
        match result {
            Ok(outputs) => {
                new.outputs = outputs;
                secretize(
                    &mut new.outputs,
                    &new.inputs,
                    &new.additional_secret_outputs,
                );
                Ok(())
            }
            Err(ProviderError::PartialFailure {
                outputs, reasons, ..
            }) => {
                // The resource took the new outputs but not the inputs that led there
                // (Pulumi keeps old inputs and new outputs after a partial update).
                new.inputs = old.inputs.clone();
                partially_initialised(new, outputs, reasons, ProviderCall::Update)
            }
            Err(source) => Err(StepError::Provider {
                call: ProviderCall::Update,
                urn: new.urn.clone(),
                source,
            }),
        }
    }

    async fn delete(&self, old: &ResourceState, target_deleted: bool) -> Result<(), StepError> {
        if self.preview
            || !old.custom
            || old.is_provider()
            || old.retain_on_delete
            || old.external
            || target_deleted
        {
            return Ok(());
        }
        let loaded = self.provider(old).await?;
        let result = loaded
            .provider
            .delete(DeleteRequest {
                urn: old.urn.clone(),
                id: old.id.clone().unwrap_or_default(),
                inputs: old.inputs.clone(),
                outputs: old.outputs.clone(),
                timeout: old.custom_timeouts.as_ref().map_or(0.0, |t| t.delete),
            })
            .await;
        match result {
            // What a delete wants already holds (a run killed before it recorded its delete).
            Ok(()) | Err(ProviderError::NotFound(_)) => Ok(()),
            Err(source) => Err(StepError::Provider {
                call: ProviderCall::Delete,
                urn: old.urn.clone(),
                source,
            }),
        }
    }

    /// Reads a resource the program does not manage; the old managed copy of a read
    /// replacement is left for deletion.
    async fn read(
        &self,
        new: &ResourceState,
        old: Option<OldCopy>,
    ) -> Result<Option<ResourceState>, StepError> {
        let new = new.clone();
        let op = self.begin(OperationType::Reading, &new).await?;
        // Pulumi sends a read's inputs as its state too (`ReadStep.Apply`): dynamic providers
        // find their serialized code there.
        let found = self
            .read_by_id(&new, new.id.clone().unwrap_or_default(), new.inputs.clone())
            .await;
        let read = self.recorded(op, found)?;
        self.found(op, new, read.outputs, old)
    }

    /// Adopts an existing resource by ID as a managed resource with the inputs the read
    /// returned (only those named in `only`, when given).
    async fn import(
        &self,
        new: &ResourceState,
        id: &str,
        old: Option<OldCopy>,
        only: Option<&[String]>,
    ) -> Result<Option<ResourceState>, StepError> {
        let mut new = new.clone();
        new.id = Some(id.to_string());
        new.import_id = Some(id.to_string());
        let op = self.begin(OperationType::Importing, &new).await?;
        let read = self.recorded(
            op,
            self.read_by_id(&new, id.to_string(), PropertyMap::new())
                .await,
        )?;
        new.inputs = if read.inputs.is_empty() {
            read.outputs.clone()
        } else {
            read.inputs
        };
        if let Some(keys) = only {
            new.inputs.retain(|k, _| keys.contains(k));
        }
        new.created = self.now();
        new.modified = new.created.clone();
        self.found(op, new, read.outputs, old)
    }

    /// Records a resource a read or an import found: outputs secret where due; a plain read
    /// supersedes the old state, a replacement leaves the old copy for deletion.
    fn found(
        &self,
        op: Option<u64>,
        mut new: ResourceState,
        outputs: PropertyMap,
        old: Option<OldCopy>,
    ) -> Result<Option<ResourceState>, StepError> {
        new.outputs = outputs;
        secretize(
            &mut new.outputs,
            &new.inputs,
            &new.additional_secret_outputs,
        );
        let entry = Self::superseding(new.clone(), old);
        self.end(op, entry)?;
        Ok(Some(new))
    }

    async fn read_by_id(
        &self,
        state: &ResourceState,
        id: String,
        known: PropertyMap,
    ) -> Result<crate::engine::provider::ReadResult, StepError> {
        let loaded = self.provider(state).await?;
        let read = loaded
            .provider
            .read(ReadRequest {
                urn: state.urn.clone(),
                id: id.clone(),
                inputs: state.inputs.clone(),
                state: known,
            })
            .await
            .map_err(|source| StepError::Provider {
                call: ProviderCall::Read,
                urn: state.urn.clone(),
                source,
            })?;
        if read.id.is_empty() {
            return Err(StepError::NotFound {
                urn: state.urn.clone(),
                id,
            });
        }
        Ok(read)
    }

    /// Reads the resource back from its provider and records what it found, in place.
    async fn refresh(&self, old: &OldState) -> Result<Option<ResourceState>, StepError> {
        let mut state = ResourceState::clone(&old.state);
        // Nothing to read: a component (or the stack) and a provider stay as recorded.
        if !state.custom || state.is_provider() {
            return Ok(Some(state));
        }
        let loaded = self.provider(&state).await?;
        let read = loaded
            .provider
            .read(ReadRequest {
                urn: state.urn.clone(),
                id: state.id.clone().unwrap_or_default(),
                inputs: state.inputs.clone(),
                state: state.outputs.clone(),
            })
            .await
            .map_err(|source| StepError::Provider {
                call: ProviderCall::Refresh,
                urn: state.urn.clone(),
                source,
            })?;
        let found = if read.id.is_empty() {
            None
        } else {
            state.id = Some(read.id);
            state.outputs = read.outputs;
            if !read.inputs.is_empty() {
                state.inputs = read.inputs;
            }
            secretize(
                &mut state.outputs,
                &state.inputs,
                &state.additional_secret_outputs,
            );
            Some(state)
        };
        self.journal(|m| m.refresh(old.index, found.clone()))?;
        Ok(found)
    }

    pub(crate) async fn provider(
        &self,
        state: &ResourceState,
    ) -> Result<crate::engine::provider::registry::LoadedProvider, StepError> {
        let reference = state
            .provider
            .as_ref()
            .ok_or_else(|| StepError::NoProvider {
                urn: state.urn.clone(),
            })?;
        self.registry
            .ensure(reference)
            .await
            .map_err(|source| StepError::LoadProvider {
                urn: state.urn.clone(),
                source,
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(entries: &[(&str, PropertyValue)]) -> PropertyMap {
        entries
            .iter()
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect()
    }

    #[test]
    fn outputs_with_nothing_to_wrap_stay_shared_with_the_provider() {
        let from_provider = map(&[("id", PropertyValue::String("x".into()))]);
        let mut outputs = from_provider.clone();
        let inputs = map(&[("id", PropertyValue::String("x".into()))]);
        secretize(&mut outputs, &inputs, &[]);
        assert!(std::ptr::eq(&*outputs, &*from_provider), "no copy");
    }

    #[test]
    fn a_secret_input_or_an_additional_name_wraps_only_that_output() {
        let plain = || PropertyValue::String("v".into());
        let from_provider = map(&[("a", plain()), ("b", plain()), ("c", plain())]);
        let mut outputs = from_provider.clone();
        let inputs = map(&[("a", PropertyValue::Secret(Box::new(plain())))]);
        secretize(&mut outputs, &inputs, &["b".to_string()]);
        assert!(outputs["a"].is_secret());
        assert!(outputs["b"].is_secret());
        assert!(!outputs["c"].is_secret());
        assert!(
            !from_provider["a"].is_secret(),
            "the provider's copy is kept"
        );
    }
}
