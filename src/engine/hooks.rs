//! Resource hooks and error hooks (Pulumi 3.182+/3.217+): program code the engine runs around
//! a step's provider call. A program registers named hooks (the callbacks live in the
//! program's process); a resource binds hook names per lifecycle point, and the binding is
//! recorded in the state so a later run knows the delete hooks of what it deletes. Step
//! application reaches hooks only through [`Hooks`], the seam between the executor and the
//! callbacks.

use std::collections::HashMap;
use std::sync::Arc;

use parking_lot::Mutex;
use std::time::Instant;

use async_trait::async_trait;

pub use super::model::hook_binding::{HookBindings, HookKind};
use super::model::property::PropertyMap;
use super::model::resource::ResourceState;
use super::model::urn::Urn;
use super::run::events::{EventSink, Severity};

/// Why registering or running a hook failed; a hook's own failure keeps the program's message.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum HookError {
    #[error("a hook needs a name")]
    Unnamed,
    #[error("a hook named {0:?} is already registered")]
    NameTaken(String),
    /// A resource binds a resource hook the program never registered.
    #[error("hook {0:?} was not registered")]
    NotRegistered(String),
    /// A resource binds an error hook the program never registered.
    #[error("error hook {0:?} was not registered")]
    ErrorHookNotRegistered(String),
    /// A resource hook failed (and does not ignore errors).
    #[error("{} hook {name:?} failed ({} hook, {took:.2}s): {source}", kind.when(), kind.label())]
    Failed {
        kind: HookKind,
        name: String,
        /// How long it ran, in seconds.
        took: f64,
        source: HookCallError,
    },
    /// An error hook failed instead of answering.
    #[error("error hook {name:?} failed: {source}")]
    ErrorHookFailed { name: String, source: HookCallError },
}

/// Why a hook's code did not succeed; the message is the program's or the transport's.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum HookCallError {
    /// The hook ran and answered with an error.
    #[error("{0}")]
    Answered(String),
    /// The hook could not be run: its callback raised, or could not be reached or understood.
    #[error("{0}")]
    NotRun(String),
}

/// Pulumi refuses a destroy that does not run the program when something to delete has
/// delete hooks (their code lives in the program); the message names the hooks.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error(
    "resources have delete hooks registered, but the program is not running (hooks: {}); run destroy with `--run-program` to use delete hooks",
    hooks.join(", ")
)]
pub struct DeleteHooksNeedProgram {
    pub hooks: Vec<String>,
}

/// What a resource hook is told: the resource and its inputs and outputs before and after.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct HookCall {
    pub urn: Option<Urn>,
    pub id: String,
    pub new_inputs: Option<PropertyMap>,
    pub old_inputs: Option<PropertyMap>,
    pub new_outputs: Option<PropertyMap>,
    pub old_outputs: Option<PropertyMap>,
}

impl HookCall {
    /// A call about `state`, with no inputs or outputs yet.
    pub fn of(state: &ResourceState) -> HookCall {
        HookCall {
            urn: Some(state.urn.clone()),
            id: state.id.clone().unwrap_or_default(),
            ..HookCall::default()
        }
    }
}

/// What an error hook is told: the failed operation and every error so far, newest first.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ErrorHookCall {
    pub urn: Option<Urn>,
    pub id: String,
    pub new_inputs: Option<PropertyMap>,
    pub old_inputs: Option<PropertyMap>,
    pub old_outputs: Option<PropertyMap>,
    pub failed_operation: String,
    pub errors: Vec<String>,
}

impl ErrorHookCall {
    /// A call about `state`'s failed `operation` (`create`, `update`, `delete`).
    pub fn of(state: &ResourceState, operation: &str) -> ErrorHookCall {
        ErrorHookCall {
            urn: Some(state.urn.clone()),
            id: state.id.clone().unwrap_or_default(),
            failed_operation: operation.to_string(),
            ..ErrorHookCall::default()
        }
    }
}

/// A resource hook's code, wherever it runs (the program's callback server).
#[async_trait]
pub trait ResourceHookFn: Send + Sync {
    /// Runs the hook.
    async fn call(&self, kind: HookKind, call: &HookCall) -> Result<(), HookCallError>;
}

/// An error hook's code: answers whether the failed operation should be tried again.
#[async_trait]
pub trait ErrorHookFn: Send + Sync {
    async fn call(&self, call: &ErrorHookCall) -> Result<bool, HookCallError>;
}

/// A registered resource hook and its options.
#[derive(Clone)]
pub struct ResourceHook {
    pub callback: Arc<dyn ResourceHookFn>,
    /// Also run in previews.
    pub on_dry_run: bool,
    /// A failure is a warning instead of an error.
    pub ignore_errors: bool,
}

/// How many times an operation is tried while error hooks ask for retries (Pulumi's
/// `maxErrorHookRetries`).
pub const MAX_ERROR_HOOK_ATTEMPTS: usize = 100;

/// The hooks a program registered in this deployment, by name; shared by the resource monitor
/// (which registers them) and step application (which runs them).
#[derive(Default)]
pub struct Hooks {
    resource: Mutex<HashMap<String, ResourceHook>>,
    error: Mutex<HashMap<String, Arc<dyn ErrorHookFn>>>,
    events: Option<EventSink>,
}

impl Hooks {
    /// Hooks that report what they run to `events`.
    pub fn new(events: EventSink) -> Hooks {
        Hooks {
            events: Some(events),
            ..Hooks::default()
        }
    }

    /// A hook's name must be given and unused by any resource or error hook.
    fn check_name(&self, name: &str) -> Result<(), HookError> {
        if name.is_empty() {
            return Err(HookError::Unnamed);
        }
        let taken = self.resource.lock().contains_key(name) || self.error.lock().contains_key(name);
        if taken {
            return Err(HookError::NameTaken(name.to_string()));
        }
        Ok(())
    }

    /// Registers a resource hook; names are unique across resource and error hooks.
    pub fn register_resource_hook(&self, name: &str, hook: ResourceHook) -> Result<(), HookError> {
        self.check_name(name)?;
        self.resource.lock().insert(name.to_string(), hook);
        Ok(())
    }

    /// Registers an error hook; names are unique across resource and error hooks.
    pub fn register_error_hook(
        &self,
        name: &str,
        hook: Arc<dyn ErrorHookFn>,
    ) -> Result<(), HookError> {
        self.check_name(name)?;
        self.error.lock().insert(name.to_string(), hook);
        Ok(())
    }

    /// Reports a hook's outcome on the resource's row and in the log.
    pub fn report(&self, urn: Option<&Urn>, severity: Severity, message: String) {
        if let Some(events) = &self.events {
            events.diag(urn.cloned(), severity, message);
        }
    }

    /// Runs the hooks `state` binds to `kind`, in order. A failing hook stops there with
    /// Pulumi's message (`before hook "x" failed: ...`), unless it ignores errors, which makes
    /// it a warning. Each hook that ran is reported with its duration.
    pub async fn run(
        &self,
        kind: HookKind,
        state: &ResourceState,
        call: &HookCall,
        preview: bool,
    ) -> Result<(), HookError> {
        let Some(names) = state.resource_hooks.get(&kind) else {
            return Ok(());
        };
        for name in names {
            let hook = self.resource.lock().get(name).cloned();
            let Some(hook) = hook else {
                return Err(HookError::NotRegistered(name.clone()));
            };
            if preview && !hook.on_dry_run {
                continue;
            }
            let started = Instant::now();
            let result = hook.callback.call(kind, call).await;
            let took = started.elapsed().as_secs_f64();
            match result {
                Ok(()) => self.report(
                    Some(&state.urn),
                    Severity::Info,
                    format!("{} hook {name:?} ran ({took:.2}s)", kind.label()),
                ),
                Err(e) if hook.ignore_errors => self.report(
                    Some(&state.urn),
                    Severity::Warning,
                    format!("{} hook {name:?} failed ({took:.2}s): {e}", kind.label()),
                ),
                Err(source) => {
                    return Err(HookError::Failed {
                        kind,
                        name: name.clone(),
                        took,
                        source,
                    });
                }
            }
        }
        Ok(())
    }

    /// Asks the error hooks `state` binds whether to retry its failed operation: any `true`
    /// retries. A hook that fails is an error of its own.
    pub async fn should_retry(
        &self,
        state: &ResourceState,
        call: &ErrorHookCall,
    ) -> Result<bool, HookError> {
        let Some(names) = state.resource_hooks.get(&HookKind::OnError) else {
            return Ok(false);
        };
        let mut retry = false;
        for name in names {
            let hook = self.error.lock().get(name).cloned();
            let Some(hook) = hook else {
                return Err(HookError::ErrorHookNotRegistered(name.clone()));
            };
            retry |= hook
                .call(call)
                .await
                .map_err(|source| HookError::ErrorHookFailed {
                    name: name.clone(),
                    source,
                })?;
        }
        Ok(retry)
    }
}

/// The refusal of a destroy without the program, when what it deletes has delete hooks.
pub fn delete_hooks_need_program<R: std::borrow::Borrow<ResourceState>>(
    resources: &[R],
) -> Option<DeleteHooksNeedProgram> {
    let mut names: Vec<&str> = resources
        .iter()
        .map(R::borrow)
        .flat_map(|r| {
            [HookKind::BeforeDelete, HookKind::AfterDelete]
                .into_iter()
                .filter_map(|k| r.resource_hooks.get(&k))
                .flatten()
        })
        .map(String::as_str)
        .collect();
    if names.is_empty() {
        return None;
    }
    names.sort_unstable();
    names.dedup();
    Some(DeleteHooksNeedProgram {
        hooks: names.into_iter().map(str::to_string).collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::run::events::EngineEvent;

    /// A hook that records its calls and fails when told to.
    struct Recording {
        calls: Mutex<Vec<HookKind>>,
        fail: Option<&'static str>,
    }

    #[async_trait]
    impl ResourceHookFn for Recording {
        async fn call(&self, kind: HookKind, _call: &HookCall) -> Result<(), HookCallError> {
            self.calls.lock().push(kind);
            self.fail
                .map_or(Ok(()), |e| Err(HookCallError::Answered(e.to_string())))
        }
    }

    struct Answer(bool);

    #[async_trait]
    impl ErrorHookFn for Answer {
        async fn call(&self, _call: &ErrorHookCall) -> Result<bool, HookCallError> {
            Ok(self.0)
        }
    }

    fn hook(
        fail: Option<&'static str>,
        on_dry_run: bool,
        ignore_errors: bool,
    ) -> (Arc<Recording>, ResourceHook) {
        let rec = Arc::new(Recording {
            calls: Mutex::default(),
            fail,
        });
        let hook = ResourceHook {
            callback: rec.clone(),
            on_dry_run,
            ignore_errors,
        };
        (rec, hook)
    }

    fn bound(kind: HookKind, names: &[&str]) -> ResourceState {
        ResourceState {
            urn: Urn::new("dev", "p", None, "t:m:R", "r"),
            resource_hooks: [(kind, names.iter().map(|n| n.to_string()).collect())].into(),
            ..ResourceState::default()
        }
    }

    #[tokio::test]
    async fn previews_run_only_on_dry_run_hooks() {
        let hooks = Hooks::default();
        let (quiet, h) = hook(None, false, false);
        hooks.register_resource_hook("quiet", h).unwrap();
        let (eager, h) = hook(None, true, false);
        hooks.register_resource_hook("eager", h).unwrap();
        let state = bound(HookKind::BeforeCreate, &["quiet", "eager"]);
        let call = HookCall::of(&state);
        hooks
            .run(HookKind::BeforeCreate, &state, &call, true)
            .await
            .unwrap();
        assert!(quiet.calls.lock().is_empty());
        assert_eq!(*eager.calls.lock(), [HookKind::BeforeCreate]);
        hooks
            .run(HookKind::BeforeCreate, &state, &call, false)
            .await
            .unwrap();
        assert_eq!(*quiet.calls.lock(), [HookKind::BeforeCreate]);
    }

    #[tokio::test]
    async fn a_failing_hook_stops_the_rest_unless_it_ignores_errors() {
        let (events, mut rx) = EventSink::channel();
        let hooks = Hooks::new(events);
        let (_, h) = hook(Some("boom"), false, true);
        hooks.register_resource_hook("tolerated", h).unwrap();
        let (_, h) = hook(Some("bang"), false, false);
        hooks.register_resource_hook("strict", h).unwrap();
        let (last, h) = hook(None, false, false);
        hooks.register_resource_hook("last", h).unwrap();
        let state = bound(HookKind::AfterDelete, &["tolerated", "strict", "last"]);
        let err = hooks
            .run(HookKind::AfterDelete, &state, &HookCall::of(&state), false)
            .await
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("after hook \"strict\" failed"), "{err}");
        assert!(err.ends_with(": bang"), "{err}");
        assert!(last.calls.lock().is_empty());
        let Ok(EngineEvent::Diagnostic {
            severity, message, ..
        }) = rx.try_recv()
        else {
            panic!("the tolerated failure is reported");
        };
        assert_eq!(severity, Severity::Warning);
        assert!(
            message.contains("after_delete hook \"tolerated\" failed"),
            "{message}"
        );
    }

    #[tokio::test]
    async fn names_are_unique_and_must_be_registered() {
        let hooks = Hooks::default();
        let (_, h) = hook(None, false, false);
        hooks.register_resource_hook("h", h).unwrap();
        assert!(
            hooks
                .register_error_hook("h", Arc::new(Answer(true)))
                .is_err()
        );
        let state = bound(HookKind::BeforeUpdate, &["missing"]);
        let err = hooks
            .run(HookKind::BeforeUpdate, &state, &HookCall::of(&state), false)
            .await
            .unwrap_err();
        assert_eq!(err, HookError::NotRegistered("missing".into()));
        assert_eq!(err.to_string(), "hook \"missing\" was not registered");
    }

    #[tokio::test]
    async fn any_error_hook_asking_for_a_retry_retries() {
        let hooks = Hooks::default();
        hooks
            .register_error_hook("no", Arc::new(Answer(false)))
            .unwrap();
        hooks
            .register_error_hook("yes", Arc::new(Answer(true)))
            .unwrap();
        let call = ErrorHookCall::default();
        let both = bound(HookKind::OnError, &["no", "yes"]);
        assert!(hooks.should_retry(&both, &call).await.unwrap());
        let only_no = bound(HookKind::OnError, &["no"]);
        assert!(!hooks.should_retry(&only_no, &call).await.unwrap());
    }

    #[test]
    fn a_destroy_without_the_program_names_the_delete_hooks() {
        let plain = bound(HookKind::BeforeCreate, &["c"]);
        assert_eq!(
            delete_hooks_need_program(std::slice::from_ref(&plain)),
            None
        );
        let deleting = bound(HookKind::AfterDelete, &["cleanup"]);
        let message = delete_hooks_need_program(&[plain, deleting])
            .unwrap()
            .to_string();
        assert!(message.contains("(hooks: cleanup)"), "{message}");
    }
}
