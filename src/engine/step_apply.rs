//! Applying one step: the provider call, the journal entries around it, and the state that
//! results. Previews call providers in preview mode and journal nothing.

use std::collections::HashSet;
use std::sync::{Arc, RwLock};

use super::events::Severity;
use super::exec_state::ExecState;
use super::hooks::{ErrorHookCall, HookCall, HookKind, Hooks, MAX_ERROR_HOOK_ATTEMPTS};
use super::journal::{SnapshotManager, SuccessEntry};
use super::property::{PropertyMap, PropertyValue};
use super::provider::{CreateRequest, DeleteRequest, ProviderError, ReadRequest, UpdateRequest};
use super::provider_registry::ProviderRegistry;
use super::resource::{OperationType, ResourceState};
use super::step::{Step, StepOp};

/// What every step application shares.
pub(crate) struct ApplyCtx {
    pub registry: Arc<ProviderRegistry>,
    pub manager: Arc<SnapshotManager>,
    pub exec: Arc<ExecState>,
    pub preview: bool,
    /// Protected resources may be deleted (`--ignore-protect`).
    pub ignore_protect: bool,
    /// URNs the delete phase removes (a deletedWith target among them skips the delete call).
    pub condemned: RwLock<HashSet<super::urn::Urn>>,
    /// The program's resource and error hooks, run around provider calls.
    pub hooks: Arc<Hooks>,
}

pub(crate) fn now() -> Option<String> {
    Some(chrono::Utc::now().to_rfc3339())
}

/// Outputs are secret where the program asked, or where the input of the same name was.
pub(crate) fn secretize(outputs: &mut PropertyMap, inputs: &PropertyMap, additional: &[String]) {
    for (k, v) in outputs.iter_mut() {
        let wanted = additional.iter().any(|a| a == k)
            || inputs.get(k).is_some_and(PropertyValue::is_secret);
        if wanted && !v.is_secret() {
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
    doing: &str,
) -> Result<(), String> {
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
    Err(format!(
        "{doing} {} partially failed: {}",
        new.urn,
        new.init_errors.join("; ")
    ))
}

impl ApplyCtx {
    fn journal<T>(
        &self,
        f: impl FnOnce(&SnapshotManager) -> Result<T, super::journal::JournalError>,
    ) -> Result<Option<T>, String> {
        if self.preview {
            return Ok(None);
        }
        f(&self.manager).map(Some).map_err(|e| e.to_string())
    }

    /// Records an operation about to run. One that may change the cloud (a create, update or
    /// delete of a custom resource through its provider) is durable first: the provider is
    /// called only once the `Begin` entry is on stable storage (see
    /// [`SnapshotManager::durable`]). Reads and imports change nothing, nor do components and
    /// provider resources, so their `Begin` needs no sync.
    async fn begin(
        &self,
        kind: OperationType,
        state: &ResourceState,
    ) -> Result<Option<u64>, String> {
        let op = self.journal(|m| m.begin(kind, state))?;
        let mutates = !matches!(kind, OperationType::Reading | OperationType::Importing)
            && state.custom
            && !state.is_provider();
        if op.is_some() && mutates {
            let synced = self.manager.durable().await.map_err(|e| e.to_string());
            self.recorded(op, synced)?;
        }
        Ok(op)
    }

    fn end(&self, op: Option<u64>, entry: SuccessEntry) -> Result<(), String> {
        self.journal(|m| m.success(SuccessEntry { op, ..entry }))
            .map(|_| ())
    }

    /// Passes a provider call's result through, journaling the operation's failure first.
    fn recorded<T>(&self, op: Option<u64>, result: Result<T, String>) -> Result<T, String> {
        if result.is_err()
            && let Some(op) = op
        {
            let _ = self.journal(|m| m.failure(op));
        }
        result
    }

    /// Applies a step; returns the resource's resulting state when it has one.
    pub async fn apply(&self, step: &Step) -> Result<Option<ResourceState>, String> {
        let old_index = step.old.as_ref().map(|o| o.index);
        match step.op {
            StepOp::Same => self.same(step).await,
            StepOp::Create | StepOp::CreateReplacement => {
                let mut new = step.new.clone().expect("create has a new state");
                let before = HookCall {
                    new_inputs: Some(new.inputs.clone()),
                    ..HookCall::of(&new)
                };
                self.hooks
                    .run(HookKind::BeforeCreate, &new, &before, self.preview)
                    .await?;
                let op = self.begin(OperationType::Creating, &new).await?;
                let mut failures = Vec::new();
                let created = loop {
                    let created = self.create(&mut new).await;
                    match created {
                        Err(e) if new.init_errors.is_empty() => {
                            let call = ErrorHookCall {
                                new_inputs: Some(new.inputs.clone()),
                                ..ErrorHookCall::of(&new, "create")
                            };
                            match self.retry(&new, call, e, &mut failures).await {
                                Ok(()) => continue,
                                Err(e) => break Err(e),
                            }
                        }
                        created => break created,
                    }
                };
                // A partial failure (init errors) still created the resource: it is recorded
                // below and the step fails after that.
                if new.init_errors.is_empty() {
                    self.recorded(op, created.clone())?;
                }
                let mut entry = SuccessEntry {
                    new: Some(new.clone()),
                    ..SuccessEntry::default()
                };
                if step.op == StepOp::CreateReplacement {
                    let old = step.old.as_ref().expect("replacement has an old state");
                    if step.delete_before_replace || old.state.pending_replacement {
                        entry.remove_old = old_index;
                    } else {
                        entry.mark_delete_old = old_index;
                        self.exec.mark_delete(old.index);
                    }
                }
                self.end(op, entry)?;
                created?;
                if new.custom {
                    let after = HookCall {
                        new_inputs: Some(new.inputs.clone()),
                        new_outputs: Some(new.outputs.clone()),
                        ..HookCall::of(&new)
                    };
                    self.after(HookKind::AfterCreate, &new, &after).await;
                }
                Ok(Some(new))
            }
            StepOp::Update => {
                let old = step.old.as_ref().expect("update has an old state");
                let mut new = step.new.clone().expect("update has a new state");
                new.id = old.state.id.clone();
                new.created = old.state.created.clone();
                let mut call = HookCall {
                    new_inputs: Some(new.inputs.clone()),
                    old_inputs: Some(old.state.inputs.clone()),
                    old_outputs: Some(old.state.outputs.clone()),
                    ..HookCall::of(&new)
                };
                self.hooks
                    .run(HookKind::BeforeUpdate, &new, &call, self.preview)
                    .await?;
                let op = self.begin(OperationType::Updating, &new).await?;
                let mut failures = Vec::new();
                let updated = loop {
                    let updated = self.update(&old.state, &mut new).await;
                    match updated {
                        Err(e) if new.init_errors.is_empty() => {
                            let call = ErrorHookCall {
                                new_inputs: Some(new.inputs.clone()),
                                old_inputs: Some(old.state.inputs.clone()),
                                old_outputs: Some(old.state.outputs.clone()),
                                ..ErrorHookCall::of(&new, "update")
                            };
                            match self.retry(&new, call, e, &mut failures).await {
                                Ok(()) => continue,
                                Err(e) => break Err(e),
                            }
                        }
                        updated => break updated,
                    }
                };
                if new.init_errors.is_empty() {
                    self.recorded(op, updated.clone())?;
                }
                let entry = if step.old_is_new {
                    SuccessEntry {
                        new: Some(new.clone()),
                        supersede_new: Some(new.urn.clone()),
                        ..SuccessEntry::default()
                    }
                } else {
                    SuccessEntry {
                        new: Some(new.clone()),
                        remove_old: old_index,
                        ..SuccessEntry::default()
                    }
                };
                self.end(op, entry)?;
                updated?;
                if old.state.custom {
                    call.new_outputs = Some(new.outputs.clone());
                    self.after(HookKind::AfterUpdate, &new, &call).await;
                }
                Ok(Some(new))
            }
            StepOp::Delete | StepOp::DeleteReplaced => {
                let old = &step.old.as_ref().expect("delete has an old state").state;
                if step.op == StepOp::Delete && old.protect && !self.ignore_protect {
                    return Err(format!(
                        "resource \"{}\" cannot be deleted because it is protected. To unprotect the resource, remove the `protect` flag from the resource in your program and run `stepdeck up`, or use the command: `stepdeck state unprotect '{}'`",
                        old.urn, old.urn
                    ));
                }
                let call = HookCall {
                    old_inputs: Some(old.inputs.clone()),
                    old_outputs: Some(old.outputs.clone()),
                    ..HookCall::of(old)
                };
                self.hooks
                    .run(HookKind::BeforeDelete, old, &call, self.preview)
                    .await?;
                let op = self.begin(OperationType::Deleting, old).await?;
                let mut failures = Vec::new();
                let deleted = loop {
                    match self.delete(old).await {
                        Err(e) => {
                            let call = ErrorHookCall {
                                old_inputs: Some(old.inputs.clone()),
                                old_outputs: Some(old.outputs.clone()),
                                ..ErrorHookCall::of(old, "delete")
                            };
                            match self.retry(old, call, e, &mut failures).await {
                                Ok(()) => continue,
                                Err(e) => break Err(e),
                            }
                        }
                        Ok(()) => break Ok(()),
                    }
                };
                self.recorded(op, deleted)?;
                let entry = if step.pending_replace {
                    SuccessEntry {
                        pending_replacement_old: old_index,
                        ..SuccessEntry::default()
                    }
                } else {
                    SuccessEntry {
                        remove_old: old_index,
                        ..SuccessEntry::default()
                    }
                };
                self.end(op, entry)?;
                if let Some(i) = old_index.filter(|_| step.pending_replace) {
                    self.exec.mark_pending_replacement(i);
                }
                self.after(HookKind::AfterDelete, old, &call).await;
                Ok(None)
            }
            StepOp::Replace => Ok(None),
            StepOp::RemovePendingReplace | StepOp::Discard | StepOp::DiscardReplaced => {
                self.end(
                    None,
                    SuccessEntry {
                        remove_old: old_index,
                        ..SuccessEntry::default()
                    },
                )?;
                Ok(None)
            }
            StepOp::Refresh => self.refresh(step).await,
            StepOp::Read | StepOp::ReadReplacement => self.read(step).await,
            StepOp::Import | StepOp::ImportReplacement => self.import(step).await,
        }
    }

    /// Runs after-hooks: the provider's operation is recorded already, so a failure is
    /// reported and fails the deployment without undoing the step.
    async fn after(&self, kind: HookKind, state: &ResourceState, call: &HookCall) {
        if let Err(e) = self.hooks.run(kind, state, call, self.preview).await {
            self.hooks
                .report(Some(&state.urn), Severity::Error, e.clone());
            self.exec.record_error(&e);
        }
    }

    /// After a failed provider operation, asks the resource's error hooks whether to try
    /// again; `Ok` means retry (announced as a warning), `Err` the error the step ends with.
    /// Attempts are bounded by [`MAX_ERROR_HOOK_ATTEMPTS`].
    async fn retry(
        &self,
        state: &ResourceState,
        mut call: ErrorHookCall,
        error: String,
        failures: &mut Vec<String>,
    ) -> Result<(), String> {
        if !state.resource_hooks.contains_key(&HookKind::OnError) {
            return Err(error);
        }
        failures.insert(0, error.clone());
        if failures.len() >= MAX_ERROR_HOOK_ATTEMPTS {
            let message =
                format!("maximum number of error hook retries ({MAX_ERROR_HOOK_ATTEMPTS}) reached");
            self.hooks
                .report(Some(&state.urn), Severity::Warning, message.clone());
            return Err(format!("{error} ({message})"));
        }
        call.errors = failures.clone();
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
                Ok(())
            }
            Ok(false) => Err(error),
            Err(e) => Err(format!("error hooks execution failed: {e}")),
        }
    }

    async fn same(&self, step: &Step) -> Result<Option<ResourceState>, String> {
        let new = step.new.clone().expect("same has a new state");
        if step.skipped_create {
            return Ok(Some(new));
        }
        let old = step.old.as_ref().expect("same has an old state");
        if new.is_provider() {
            let id = old.state.id.clone().unwrap_or_default();
            self.registry
                .configure(&new.urn, &id, &new.inputs, self.preview)
                .await
                .map_err(|e| format!("configuring provider {}: {e}", new.urn))?;
        }
        let entry = if new == old.state {
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
        Ok(Some(new))
    }

    async fn create(&self, new: &mut ResourceState) -> Result<(), String> {
        new.created = now();
        new.modified = new.created.clone();
        if !new.custom {
            return Ok(());
        }
        if new.is_provider() {
            let id = uuid::Uuid::new_v4().to_string();
            self.registry
                .configure(&new.urn, &id, &new.inputs, self.preview)
                .await
                .map_err(|e| format!("configuring provider {}: {e}", new.urn))?;
            new.id = Some(id);
            new.outputs = new.inputs.clone();
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
            super::property::reveal_map(&new.inputs)
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
                partially_initialised(new, outputs, reasons, "creating")
            }
            Err(e) => Err(format!("creating {} failed: {e}", new.urn)),
        }
    }

    async fn update(&self, old: &ResourceState, new: &mut ResourceState) -> Result<(), String> {
        new.modified = now();
        if !new.custom {
            new.outputs = old.outputs.clone();
            return Ok(());
        }
        if new.is_provider() {
            let id = old.id.clone().unwrap_or_default();
            self.registry
                .configure(&new.urn, &id, &new.inputs, self.preview)
                .await
                .map_err(|e| format!("configuring provider {}: {e}", new.urn))?;
            new.outputs = new.inputs.clone();
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
                super::property::reveal_map(m)
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
                partially_initialised(new, outputs, reasons, "updating")
            }
            Err(e) => Err(format!("updating {} failed: {e}", new.urn)),
        }
    }

    async fn delete(&self, old: &ResourceState) -> Result<(), String> {
        if self.preview || !old.custom || old.is_provider() || old.retain_on_delete || old.external
        {
            return Ok(());
        }
        let with_target = old
            .deleted_with
            .as_ref()
            .is_some_and(|d| self.condemned.read().expect("condemned lock").contains(d));
        if with_target {
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
            Err(e) => Err(format!("deleting {} failed: {e}", old.urn)),
        }
    }

    /// Reads a resource the program does not manage; the old managed copy of a read
    /// replacement is left for deletion.
    async fn read(&self, step: &Step) -> Result<Option<ResourceState>, String> {
        let new = step.new.clone().expect("read has a new state");
        let op = self.begin(OperationType::Reading, &new).await?;
        let found = self
            .read_by_id(&new, new.id.clone().unwrap_or_default())
            .await;
        let read = self.recorded(op, found)?;
        self.found(op, new, read.outputs, step)
    }

    /// Adopts an existing resource by ID as a managed resource with the program's inputs.
    async fn import(&self, step: &Step) -> Result<Option<ResourceState>, String> {
        let mut new = step.new.clone().expect("import has a new state");
        let id = step.keys.first().cloned().unwrap_or_default();
        new.id = Some(id.clone());
        new.import_id = Some(id.clone());
        let op = self.begin(OperationType::Importing, &new).await?;
        let read = self.recorded(op, self.read_by_id(&new, id).await)?;
        new.inputs = if read.inputs.is_empty() {
            read.outputs.clone()
        } else {
            read.inputs
        };
        new.created = now();
        new.modified = new.created.clone();
        self.found(op, new, read.outputs, step)
    }

    /// Records a resource a read or an import found: outputs secret where due; a plain read
    /// supersedes the old state, a replacement leaves the old copy for deletion.
    fn found(
        &self,
        op: Option<u64>,
        mut new: ResourceState,
        outputs: PropertyMap,
        step: &Step,
    ) -> Result<Option<ResourceState>, String> {
        new.outputs = outputs;
        secretize(
            &mut new.outputs,
            &new.inputs,
            &new.additional_secret_outputs,
        );
        let mut entry = SuccessEntry {
            new: Some(new.clone()),
            ..SuccessEntry::default()
        };
        if let Some(old) = &step.old {
            match step.op {
                StepOp::ReadReplacement | StepOp::ImportReplacement => {
                    entry.mark_delete_old = Some(old.index);
                    self.exec.mark_delete(old.index);
                }
                StepOp::Read => entry.remove_old = Some(old.index),
                _ => {}
            }
        }
        self.end(op, entry)?;
        Ok(Some(new))
    }

    async fn read_by_id(
        &self,
        state: &ResourceState,
        id: String,
    ) -> Result<super::provider::ReadResult, String> {
        let loaded = self.provider(state).await?;
        let read = loaded
            .provider
            .read(ReadRequest {
                urn: state.urn.clone(),
                id: id.clone(),
                inputs: state.inputs.clone(),
                state: PropertyMap::new(),
            })
            .await
            .map_err(|e| format!("reading {} failed: {e}", state.urn))?;
        if read.id.is_empty() {
            return Err(format!(
                "reading {}: resource '{id}' does not exist",
                state.urn
            ));
        }
        Ok(read)
    }

    /// Reads the resource back from its provider and records what it found, in place.
    async fn refresh(&self, step: &Step) -> Result<Option<ResourceState>, String> {
        let old = step.old.as_ref().expect("refresh has an old state");
        let mut state = old.state.clone();
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
            .map_err(|e| format!("refreshing {} failed: {e}", state.urn))?;
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
        self.exec.record_refresh(old.index, found.clone());
        Ok(found)
    }

    pub(crate) async fn provider(
        &self,
        state: &ResourceState,
    ) -> Result<super::provider_registry::LoadedProvider, String> {
        let reference = state
            .provider
            .as_deref()
            .ok_or_else(|| format!("{} has no provider", state.urn))?;
        self.registry
            .ensure(reference)
            .await
            .map_err(|e| format!("loading the provider of {}: {e}", state.urn))
    }
}
