//! Replacement planning: the delete-before-replace chain and its cascade of dependents
//! (Pulumi's `calculateDependentReplacements`), and the recreation of a resource an earlier
//! cascade deleted.

use super::{PlannedChain, StepGenerator, parse_paths};
use crate::engine::model::goal::Goal;
use crate::engine::model::property::PropertyValue;
use crate::engine::model::resource::ResourceState;
use crate::engine::model::urn::{Urn, UrnSet};
use crate::engine::program::source::RegisterError;
use crate::engine::provider::{DiffRequest, ProviderError};
use crate::engine::run::events::{CascadeId, CascadeMember, CascadeReason};
use crate::engine::step::{Changes, OldState, ReplaceOrder, Step};
use crate::engine::steps::diff_job::{DiffJob, DiffTarget};

/// A DBR cascade: the root being replaced and every dependent replaced with it.
#[derive(Clone, Debug)]
pub(crate) struct Cascade {
    pub id: CascadeId,
    pub root: Urn,
    pub members: Vec<CascadeMember>,
}

impl StepGenerator {
    /// Plans a delete-before-replace (Pulumi's `continueStepsFromDiff` with
    /// `deleteBeforeReplace`): the dependents the replacement takes along are deleted first,
    /// then the root, and the chain waits for the operator's approval of the cascade.
    pub(super) async fn delete_before_replace(
        &mut self,
        goal: &Goal,
        old: OldState,
        mut new: ResourceState,
        root_keys: Vec<String>,
        changes: Changes,
    ) -> Result<PlannedChain, RegisterError> {
        let urn = new.urn.clone();
        // Delete-before-replace: the replacement is checked again without old inputs.
        let fresh = ResourceState {
            inputs: goal.properties.clone(),
            ..new.clone()
        };
        let seed = self.seed_for(&urn);
        let naming = self.autonaming_of(&urn, goal, &seed).map(|(n, _)| n);
        new.inputs = self.check(&urn, goal, None, &fresh, seed, naming).await?;
        let dependents = self.dependent_replacements(old.index).await?;
        let mut steps = Vec::new();
        let mut members = vec![CascadeMember {
            urn: urn.clone(),
            type_: new.type_.clone(),
            reason: CascadeReason::Root { keys: root_keys },
        }];
        for (i, reason, keys) in dependents.iter().rev() {
            let dep = self.old(*i);
            members.push(CascadeMember {
                urn: dep.state.urn.clone(),
                type_: dep.state.type_.clone(),
                reason: reason.clone(),
            });
            self.dependent_replace_keys
                .insert(dep.state.urn.clone(), keys.clone());
            if self.deletions.by_chain(&dep.state.urn, *i) && !dep.state.pending_replacement {
                steps.push(Step::DeleteBeforeReplace {
                    old: dep,
                    changes: Changes::replacing(keys.clone()),
                });
            }
        }
        members[1..].reverse();
        if self.deletions.by_chain(&urn, old.index) && !old.state.pending_replacement {
            steps.push(Step::DeleteBeforeReplace {
                old: old.clone(),
                changes: changes.clone(),
            });
        }
        steps.extend(Step::replacement(
            old,
            new,
            changes,
            ReplaceOrder::DeleteBeforeCreate,
        ));
        let cascade = Cascade {
            id: self.next_gate(),
            root: urn,
            members,
        };
        Ok(PlannedChain {
            steps,
            cascade: Some(cascade),
        })
    }

    /// A resource an earlier DBR chain deleted, registered again: `[replace, create-replacement]`.
    pub(super) fn recreate(&self, old: OldState, new: ResourceState) -> PlannedChain {
        let keys = self
            .dependent_replace_keys
            .get(&new.urn)
            .cloned()
            .unwrap_or_default();
        let steps = Step::replacement(
            old,
            new,
            Changes::replacing(keys),
            ReplaceOrder::DeleteBeforeCreate,
        );
        PlannedChain {
            steps: steps.into(),
            cascade: None,
        }
    }

    /// The dependents a delete-before-replace of base resource `root` must replace too
    /// (Pulumi's `calculateDependentReplacements`), in dependency order.
    async fn dependent_replacements(
        &self,
        root: usize,
    ) -> Result<Vec<(usize, CascadeReason, Vec<String>)>, RegisterError> {
        let mut set = UrnSet::from_iter([self.base[root].urn.clone()]);
        let mut out = Vec::new();
        for i in self
            .graph
            .depending_on(root, &self.base, &self.operated, false)
        {
            let r = &self.base[i];
            if !r.custom || r.external || r.delete || self.vanished.contains(&i) {
                continue;
            }
            let reason = if let Some(p) = r.provider.as_ref().filter(|p| set.contains(&p.urn)) {
                Some((
                    CascadeReason::Provider {
                        provider: p.urn.clone(),
                    },
                    vec!["provider".to_string()],
                ))
            } else if let Some(t) = r.deleted_with.as_ref().filter(|t| set.contains(*t)) {
                Some((
                    CascadeReason::DeletedWith { target: t.clone() },
                    vec!["deletedWith".to_string()],
                ))
            } else {
                self.replaced_through_inputs(r, &set).await?
            };
            if let Some((reason, keys)) = reason {
                set.insert(r.urn.clone());
                out.push((i, reason, keys));
            }
        }
        Ok(out)
    }

    /// Substitutes unknowns for the inputs that depend on the replace set and asks the
    /// dependent's provider whether that forces a replacement.
    async fn replaced_through_inputs(
        &self,
        r: &ResourceState,
        set: &UrnSet,
    ) -> Result<Option<(CascadeReason, Vec<String>)>, RegisterError> {
        let mut inputs = Vec::new();
        let mut on = None;
        for (k, deps) in &r.property_dependencies {
            if let Some(d) = deps.iter().find(|d| set.contains(*d)) {
                inputs.push(k.clone());
                on.get_or_insert_with(|| d.clone());
            }
        }
        let Some(on) = on else {
            return Ok(None);
        };
        let mut news = r.inputs.clone();
        for k in &inputs {
            news.insert(k.clone(), PropertyValue::Unknown);
        }
        let target = if r.is_provider() {
            DiffTarget::ProviderResource(self.registry.clone())
        } else {
            let loaded = match &r.provider {
                Some(reference) => self.registry.ensure(reference).await,
                None => Err(ProviderError::UnknownReference(String::new())),
            }
            .map_err(|source| RegisterError::LoadProvider {
                urn: r.urn.clone(),
                source,
            })?;
            DiffTarget::Custom(loaded.provider)
        };
        let job = DiffJob {
            urn: r.urn.clone(),
            target,
            request: DiffRequest {
                urn: r.urn.clone(),
                id: r.id.clone().unwrap_or_default(),
                old_inputs: r.inputs.clone(),
                old_outputs: r.outputs.clone(),
                new_inputs: news,
                ignore_changes: r.ignore_changes.clone(),
            },
            replace_on_changes: parse_paths(&r.urn, "replaceOnChanges", &r.replace_on_changes)?,
            forced: None,
            init_errors: !r.init_errors.is_empty(),
        };
        let diff = job.run().await?;
        if r.protect && diff.replaces() && !self.opts.ignore_protect {
            return Err(RegisterError::ProtectedCascade {
                urn: r.urn.clone(),
                on: on.clone(),
            });
        }
        Ok(diff.replaces().then(|| {
            (
                CascadeReason::Input {
                    inputs,
                    on,
                    keys: diff.replace_keys.clone(),
                },
                diff.replace_keys,
            )
        }))
    }
}
