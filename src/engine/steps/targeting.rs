//! What an operation may touch (`--target`, `--replace`, `--exclude`, and their dependents),
//! decided as registrations arrive (Pulumi's `isTargetedForUpdate`).

use std::collections::HashSet;

use crate::engine::model::resource::{ResourceState, is_provider_type};
use crate::engine::model::targets::UrnGlobs;
use crate::engine::model::urn::{ROOT_STACK_TYPE, Urn};
use crate::engine::run::deployment::Options;

/// The targets, replace targets and exclusions of one deployment.
pub(crate) struct Targeting {
    targets: UrnGlobs,
    replace_targets: UrnGlobs,
    excludes: UrnGlobs,
    target_dependents: bool,
    exclude_dependents: bool,
    /// Targets explicit or reached through `target_dependents`, as registrations arrive.
    targets_actual: HashSet<Urn>,
    /// Exclusions explicit or reached through `exclude_dependents`, as registrations arrive.
    excludes_actual: HashSet<Urn>,
}

impl Targeting {
    pub(in crate::engine) fn new(opts: &Options) -> Targeting {
        Targeting {
            targets: UrnGlobs::new(&opts.targets),
            replace_targets: UrnGlobs::new(&opts.replace),
            excludes: UrnGlobs::new(&opts.excludes),
            target_dependents: opts.target_dependents,
            exclude_dependents: opts.exclude_dependents,
            targets_actual: HashSet::new(),
            excludes_actual: HashSet::new(),
        }
    }

    /// Providers and the root stack are always targeted and never excluded.
    pub(in crate::engine) fn is_targeted(&self, urn: &Urn) -> bool {
        if is_provider_type(urn.type_()) || urn.type_() == ROOT_STACK_TYPE {
            return true;
        }
        if self.excludes.matches(urn) {
            return false;
        }
        self.targets.is_empty() || self.targets.matches(urn)
    }

    /// Whether the delete phase may delete `urn`: with targets, only what they name (Pulumi's
    /// `determineAllowedResourcesToDeleteFromTargets`); providers and the root stack are not
    /// implicitly included there, or a targeted destroy would take everything they serve.
    pub(in crate::engine) fn may_delete(&self, urn: &Urn) -> bool {
        if self.targets.is_empty() {
            self.is_targeted(urn)
        } else {
            self.targets.matches(urn)
        }
    }

    /// Whether the operation is constrained to targets (`--target` or `--replace`).
    pub(in crate::engine) fn has_targets(&self) -> bool {
        !self.targets.is_empty()
    }

    /// Whether a registration is targeted: explicitly, or (with `target_dependents`) because
    /// its provider or a dependency is (Pulumi's `isTargetedForUpdate`); and not excluded,
    /// explicitly or (with `exclude_dependents`) through its provider or a dependency.
    pub(in crate::engine) fn targeted_for_update(&mut self, state: &ResourceState) -> bool {
        let urn = &state.urn;
        let ty = urn.type_();
        if is_provider_type(ty) || ty == ROOT_STACK_TYPE {
            if self.targets.matches(urn) {
                self.targets_actual.insert(urn.clone());
            }
            return true;
        }
        let excluded = self.excludes.matches(urn)
            || (self.exclude_dependents
                && state
                    .dependency_urns()
                    .any(|d| self.excludes_actual.contains(&d)));
        if excluded {
            self.excludes_actual.insert(urn.clone());
            return false;
        }
        if self.targets.is_empty() {
            return true;
        }
        let targeted = self.targets.matches(urn)
            || (self.target_dependents
                && state
                    .dependency_urns()
                    .any(|d| self.targets_actual.contains(&d)));
        if targeted {
            self.targets_actual.insert(urn.clone());
        }
        targeted
    }

    /// URNs excluded so far, explicitly or as dependents of excluded ones.
    pub(in crate::engine) fn excluded(&self) -> &HashSet<Urn> {
        &self.excludes_actual
    }

    /// Whether the operation is constrained at all (`--target` or `--replace`).
    pub(in crate::engine) fn constrains(&self) -> bool {
        !self.targets.is_empty() || !self.replace_targets.is_empty()
    }

    /// Whether `--replace` names `urn`.
    pub(in crate::engine) fn replaces(&self, urn: &Urn) -> bool {
        self.replace_targets.matches(urn)
    }
}
