//! Resource and error hooks in step application, with the scripted fake provider: what a
//! failing hook does to its step, to the rest of the run and to the state (Pulumi's
//! `resource_hooks_test.go` and `error_hooks_test.go` in `pkg/engine/lifecycletest`).

#![allow(clippy::unwrap_used, clippy::panic)]

use crate::support;
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use stepdeck::engine::hooks::{
    ErrorHookCall, ErrorHookFn, HookCall, HookCallError, HookKind, MAX_ERROR_HOOK_ATTEMPTS,
    ResourceHook, ResourceHookFn,
};
use stepdeck::engine::{
    JournalEntry, Program, ProgramError, ProgramFn, ResourceMonitor, Snapshot, StepOp,
};
use support::*;

/// A resource hook that records the resources it ran for and fails when told to.
struct Recorder {
    ran: Mutex<Vec<String>>,
    fail: bool,
}

#[async_trait]
impl ResourceHookFn for Recorder {
    async fn call(&self, _kind: HookKind, call: &HookCall) -> Result<(), HookCallError> {
        let name = call.urn.as_ref().map(|u| u.name().to_string());
        self.ran.lock().unwrap().push(name.unwrap_or_default());
        if self.fail {
            return Err(HookCallError::Answered("the hook refused".into()));
        }
        Ok(())
    }
}

/// An error hook that always asks for another attempt and counts how often it was asked.
struct AlwaysRetry(Mutex<usize>);

#[async_trait]
impl ErrorHookFn for AlwaysRetry {
    async fn call(&self, _call: &ErrorHookCall) -> Result<bool, HookCallError> {
        *self.0.lock().unwrap() += 1;
        Ok(true)
    }
}

fn recorder(fail: bool) -> Arc<Recorder> {
    Arc::new(Recorder {
        ran: Mutex::default(),
        fail,
    })
}

/// A program registering the hook `h` (at `kind`), then `a` bound to it, then `b` depending on
/// `a`'s output.
fn hooked(kind: HookKind, hook: Arc<Recorder>) -> Box<dyn Program> {
    Box::new(ProgramFn(move |monitor: ResourceMonitor| async move {
        monitor
            .hooks()
            .register_resource_hook(
                "h",
                ResourceHook {
                    callback: hook.clone(),
                    on_dry_run: false,
                    ignore_errors: false,
                },
            )
            .map_err(|e| ProgramError(e.to_string()))?;
        let mut a = custom("a", &[("k", "1")]);
        a.hooks = [(kind, vec!["h".to_string()])].into();
        let a = monitor
            .register(a)
            .await
            .map_err(|e| ProgramError(e.to_string()))?;
        let mut b = custom("b", &[]);
        b.properties.insert("x".into(), a.outputs["k"].clone());
        b.dependencies.push(a.urn);
        monitor
            .register(b)
            .await
            .map_err(|e| ProgramError(e.to_string()))?;
        Ok(())
    }))
}

/// The message a run failed with.
fn failure(run: &Run) -> &str {
    match &run.result.outcome {
        stepdeck::engine::Outcome::Failed(failure) => failure.message(),
        other => panic!("the run fails: {other:?}"),
    }
}

#[tokio::test]
async fn a_failing_after_hook_keeps_the_step_and_its_dependents_but_fails_the_run() {
    let p = Arc::new(FakeProvider::default());
    let hook = recorder(true);
    let run = run(
        &p,
        &Snapshot::default(),
        options(),
        Some(hooked(HookKind::AfterCreate, hook.clone())),
    )
    .await;
    assert_eq!(*hook.ran.lock().unwrap(), ["a"]);
    // `a`'s registration got its outputs: `b` was created from them.
    assert_eq!(p.names("create"), ["a", "b"]);
    assert_eq!(run.steps_of(StepOp::Create), ["a", "b"]);
    assert_eq!(run.names(), ["a", "b"]);
    assert_eq!(run.result.counts.get(&StepOp::Create), Some(&2));
    let message = failure(&run);
    assert!(
        message.starts_with("after hook \"h\" failed (after_create hook")
            && message.ends_with(": the hook refused"),
        "{message}"
    );
    assert!(
        errors(&run).iter().any(|e| e == message),
        "{:?}",
        errors(&run)
    );
}

#[tokio::test]
async fn a_failing_before_hook_stops_its_step_before_anything_is_journaled() {
    let p = Arc::new(FakeProvider::default());
    let run = run(
        &p,
        &Snapshot::default(),
        options(),
        Some(hooked(HookKind::BeforeCreate, recorder(true))),
    )
    .await;
    assert!(p.names("create").is_empty());
    assert!(run.names().is_empty());
    let begun = run
        .entries
        .iter()
        .any(|e| matches!(e, JournalEntry::Begin { state, .. } if state.urn.name() == "a"));
    assert!(!begun, "no Begin entry for a: {:?}", run.entries);
    let message = failure(&run);
    assert!(
        message.contains("before hook \"h\" failed (before_create hook"),
        "{message}"
    );
}

#[tokio::test]
async fn error_hooks_asking_for_ever_stop_at_the_attempt_bound() {
    let p = Arc::new(FakeProvider {
        fail_create: ["a".to_string()].into(),
        ..FakeProvider::default()
    });
    let asked = Arc::new(AlwaysRetry(Mutex::new(0)));
    let hook = asked.clone();
    let program = Box::new(ProgramFn(move |monitor: ResourceMonitor| async move {
        monitor
            .hooks()
            .register_error_hook("again", hook.clone())
            .map_err(|e| ProgramError(e.to_string()))?;
        let mut a = custom("a", &[]);
        a.hooks = [(HookKind::OnError, vec!["again".to_string()])].into();
        monitor
            .register(a)
            .await
            .map_err(|e| ProgramError(e.to_string()))?;
        Ok(())
    }));
    let run = run(&p, &Snapshot::default(), options(), Some(program)).await;
    assert_eq!(p.names("create").len(), MAX_ERROR_HOOK_ATTEMPTS);
    assert_eq!(*asked.0.lock().unwrap(), MAX_ERROR_HOOK_ATTEMPTS - 1);
    assert!(run.names().is_empty());
    let message = failure(&run);
    assert!(
        message.contains("create of a failed on purpose")
            && message.ends_with(&format!(
                "(maximum number of error hook retries ({MAX_ERROR_HOOK_ATTEMPTS}) reached)"
            )),
        "{message}"
    );
}
