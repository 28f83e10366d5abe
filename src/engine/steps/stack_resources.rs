//! The resources a run leaves in the stack, as its stack policies see them (kept only when
//! policy packs are loaded): each registration's new state as its step planned it, with the ID
//! and outputs the step answered (in a preview, the planned ones), in registration order.

use indexmap::IndexMap;

use crate::engine::model::property::PropertyMap;
use crate::engine::model::resource::ResourceState;
use crate::engine::model::urn::Urn;
use crate::engine::run::policy::{
    AnalyzerProvider, AnalyzerResource, AnalyzerStackResource, ResourceOptions,
};
use crate::engine::step::Step;

/// The run's new states by URN.
#[derive(Default)]
pub(crate) struct StackResources {
    states: IndexMap<Urn, ResourceState>,
}

impl StackResources {
    /// Records the new states a chain's steps plan (a delete plans none).
    pub(in crate::engine) fn planned(&mut self, steps: &[Step]) {
        for state in steps.iter().filter_map(Step::new_state) {
            self.states.insert(state.urn.clone(), state.clone());
        }
    }

    /// What a step answered for a resource: its ID and outputs.
    pub(in crate::engine) fn answered(
        &mut self,
        urn: &Urn,
        id: Option<&str>,
        outputs: &PropertyMap,
    ) {
        if let Some(s) = self.states.get_mut(urn) {
            s.id = id.map(str::to_string);
            s.outputs = outputs.clone();
        }
    }

    /// Outputs a component (or the root stack) registered.
    pub(in crate::engine) fn outputs(&mut self, urn: &Urn, outputs: &PropertyMap) {
        if let Some(s) = self.states.get_mut(urn) {
            s.outputs = outputs.clone();
        }
    }

    /// A declined step: the resource keeps its old state, or (a create) is not in the stack.
    pub(in crate::engine) fn declined(&mut self, urn: &Urn, old: Option<&ResourceState>) {
        match old {
            Some(o) => {
                self.states.insert(urn.clone(), o.clone());
            }
            None => {
                self.states.shift_remove(urn);
            }
        }
    }

    /// Every state as AnalyzeStack takes it: outputs as the properties, with the provider
    /// `provider_of` finds for it.
    pub(in crate::engine) fn for_analysis(
        &self,
        provider_of: impl Fn(&ResourceState) -> Option<AnalyzerProvider>,
    ) -> Vec<AnalyzerStackResource> {
        self.states
            .values()
            .map(|s| AnalyzerStackResource {
                resource: AnalyzerResource {
                    urn: s.urn.clone(),
                    type_: s.type_.clone(),
                    name: s.urn.name().to_string(),
                    properties: s.outputs.clone(),
                    options: ResourceOptions {
                        protect: s.protect,
                        ignore_changes: s.ignore_changes.clone(),
                        delete_before_replace: None,
                        additional_secret_outputs: s.additional_secret_outputs.clone(),
                        aliases: s.aliases.clone(),
                        custom_timeouts: s.custom_timeouts.clone().unwrap_or_default(),
                        parent: s.parent.clone(),
                    },
                    provider: provider_of(s),
                },
                parent: s.parent.clone(),
                dependencies: s.dependencies.clone(),
                property_dependencies: s
                    .property_dependencies
                    .iter()
                    .filter(|(_, urns)| !urns.is_empty())
                    .map(|(k, urns)| (k.clone(), urns.clone()))
                    .collect(),
            })
            .collect()
    }
}
