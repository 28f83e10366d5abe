//! After-hooks of component resources. A component's create or update step has no provider
//! call, and its outputs arrive later, when the program registers them; so, as Pulumi's
//! `ExecuteRegisterResourceOutputs` does, its after-create or after-update hooks run then, with
//! those outputs. A failing hook does not undo the step: it is reported on the component and
//! fails the run at its end.

use std::collections::HashMap;
use std::future::Future;
use std::sync::Arc;

use crate::engine::hooks::{HookCall, Hooks};
use crate::engine::model::hook_binding::HookKind;
use crate::engine::model::property::PropertyMap;
use crate::engine::model::resource::ResourceState;
use crate::engine::model::urn::Urn;
use crate::engine::step::{Step, StepOp};
use crate::engine::step_error::StepError;

/// A component step whose after-hooks wait for the component's outputs.
struct Waiting {
    kind: HookKind,
    state: ResourceState,
    call: HookCall,
}

/// The component steps of this run with after-hooks still to run, by URN.
#[derive(Default)]
pub(crate) struct ComponentHooks {
    waiting: HashMap<Urn, Waiting>,
}

impl ComponentHooks {
    /// Notes a planned step: a component's create or update with after-hooks bound waits for
    /// the component's outputs.
    pub(crate) fn note(&mut self, step: &Step) {
        let kind = match step.op() {
            StepOp::Create => HookKind::AfterCreate,
            StepOp::Update => HookKind::AfterUpdate,
            _ => return,
        };
        let Some(new) = step.new_state() else { return };
        if new.custom || !new.resource_hooks.contains_key(&kind) {
            return;
        }
        let old = step.old_state();
        let call = HookCall {
            new_inputs: Some(new.inputs.clone()),
            old_inputs: old.map(|o| o.inputs.clone()),
            old_outputs: old.map(|o| o.outputs.clone()),
            ..HookCall::of(new)
        };
        self.waiting.insert(
            new.urn.clone(),
            Waiting {
                kind,
                state: new.clone(),
                call,
            },
        );
    }

    /// Forgets the hooks of a component whose step failed: there is nothing to run after.
    pub(crate) fn forget(&mut self, urn: &Urn) {
        self.waiting.remove(urn);
    }

    /// The run of the after-hooks waiting for `urn`'s outputs, now that they arrived; `None`
    /// when none wait.
    pub(crate) fn outputs_arrived(
        &mut self,
        urn: &Urn,
        outputs: &PropertyMap,
        hooks: Arc<Hooks>,
        preview: bool,
    ) -> Option<impl Future<Output = Result<(), StepError>> + Send + 'static> {
        let Waiting {
            kind,
            mut state,
            mut call,
        } = self.waiting.remove(urn)?;
        state.outputs = outputs.clone();
        call.new_outputs = Some(outputs.clone());
        Some(async move {
            hooks
                .run(kind, &state, &call, preview)
                .await
                .map_err(|source| StepError::AfterHook {
                    urn: state.urn.clone(),
                    source,
                    state: None,
                })
        })
    }
}
