//! The generator's side of policy packs: a registration's checked inputs go to the packs
//! (Pulumi's two passes in `continueStepsFromImport`), which may rewrite them; a mandatory
//! violation refuses the registration in an update and fails a preview at its end, an advisory
//! one marks the resource for the `violations` approval kind.

use super::StepGenerator;
use crate::engine::model::goal::Goal;
use crate::engine::model::resource::ResourceState;
use crate::engine::program::source::RegisterError;
use crate::engine::run::policy::{AnalyzerProvider, AnalyzerResource, ResourceOptions};
use crate::engine::steps::run_state::RunState;

impl StepGenerator {
    /// The provider resource a state's provider reference names, with the inputs it was
    /// registered with in this run (or recorded with before).
    pub(in crate::engine) fn provider_resource(
        &self,
        state: &ResourceState,
    ) -> Option<AnalyzerProvider> {
        let reference = state.provider.as_ref()?;
        let provider = self.providers.get(&reference.urn).or_else(|| {
            self.olds
                .get(&reference.urn)
                .map(|&i| &*self.base[i])
                .filter(|o| o.id.as_deref() == Some(&*reference.id))
        })?;
        Some(AnalyzerProvider {
            urn: provider.urn.clone(),
            type_: provider.type_.clone(),
            name: provider.urn.name().to_string(),
            properties: provider.inputs.clone(),
        })
    }

    /// Has the packs remediate and analyze a registration. With `apply`, a remediation's
    /// inputs replace `new`'s (a resource kept as it was is analyzed, not rewritten).
    pub(super) async fn consult_policies(
        &self,
        goal: &Goal,
        new: &mut ResourceState,
        apply: bool,
        run: &mut RunState,
    ) -> Result<(), RegisterError> {
        let urn = new.urn.clone();
        let r = AnalyzerResource {
            urn: urn.clone(),
            type_: new.type_.clone(),
            name: urn.name().to_string(),
            properties: new.inputs.clone(),
            options: ResourceOptions {
                protect: new.protect,
                ignore_changes: goal.ignore_changes.clone(),
                delete_before_replace: goal.delete_before_replace,
                additional_secret_outputs: new.additional_secret_outputs.clone(),
                aliases: self.generate_aliases(goal),
                custom_timeouts: new.custom_timeouts.clone().unwrap_or_default(),
                parent: new.parent.clone(),
            },
            provider: self.provider_resource(new),
        };
        let verdict = self
            .policies
            .resource(r)
            .await
            .map_err(|source| RegisterError::Policy {
                urn: urn.clone(),
                source,
            })?;
        if let Some(inputs) = verdict.inputs.filter(|_| apply) {
            new.inputs = inputs;
        }
        if verdict.advisory {
            run.flag_violation(&urn);
        }
        if verdict.mandatory {
            if !self.opts.is_preview() {
                return Err(RegisterError::PolicyViolated(urn));
            }
            run.fail_policy_at_end("preview");
        }
        Ok(())
    }
}
