//! A diff detached from the step generator, so that it can run on a worker (parallel diff):
//! the provider's (or the engine's) Diff, then replaceOnChanges and `#initerror`.

use std::sync::Arc;

use super::diff::{apply_replace_on_changes, diff_inputs};
use crate::engine::model::goal::Goal;
use crate::engine::model::property_path::PropertyPath;
use crate::engine::model::resource::ResourceState;
use crate::engine::model::urn::Urn;
use crate::engine::program::source::RegisterError;
use crate::engine::provider::registry::ProviderRegistry;
use crate::engine::provider::{DiffChanges, DiffRequest, DiffResult, Provider};
use crate::engine::step::OldState;

/// A diff to run on a worker before generation can continue (parallel diff).
pub(crate) struct PendingDiff {
    pub ctx: DiffContext,
    pub run: DiffJob,
}

/// What the generator needs to continue once a diff is known.
pub(crate) struct DiffContext {
    pub goal: Goal,
    pub old: OldState,
    pub new: ResourceState,
}

/// Everything a diff needs, detached from the generator so it can run on a worker.
pub(crate) struct DiffJob {
    pub urn: Urn,
    pub target: DiffTarget,
    pub request: DiffRequest,
    pub replace_on_changes: Vec<PropertyPath>,
    /// A replacement the engine decided without asking the provider, blaming this key.
    pub forced: Option<&'static str>,
    /// The old state has init errors (a partial failure): `#initerror` in replaceOnChanges
    /// replaces it.
    pub init_errors: bool,
}

/// The replaceOnChanges path that replaces a resource whose old state has init errors.
const INIT_ERROR_KEY: &str = "#initerror";

/// Who answers the diff.
pub(crate) enum DiffTarget {
    Component,
    /// The provider is not configured (unknown config in a preview): assume an update.
    Unavailable,
    ProviderResource(Arc<ProviderRegistry>),
    Custom(Arc<dyn Provider>),
}

impl DiffJob {
    /// Runs the provider's Diff (or the engine's) and applies replaceOnChanges.
    pub(in crate::engine) async fn run(self) -> Result<DiffResult, RegisterError> {
        if let Some(key) = self.forced {
            let mut d = DiffResult {
                changes: DiffChanges::Some,
                replace_keys: vec![key.to_string()],
                ..DiffResult::default()
            };
            d.changed_keys = d.replace_keys.clone();
            return Ok(d);
        }
        let r = &self.request;
        let failed = |source| RegisterError::Diff {
            urn: r.urn.clone(),
            source,
        };
        let diff = match &self.target {
            DiffTarget::Component => diff_inputs(&r.old_inputs, &r.new_inputs),
            DiffTarget::Unavailable => {
                let mut d = diff_inputs(&r.old_inputs, &r.new_inputs);
                d.changes = DiffChanges::Some;
                d
            }
            DiffTarget::ProviderResource(reg) => {
                reg.diff(self.request.clone()).await.map_err(failed)?
            }
            DiffTarget::Custom(p) => p.diff(self.request.clone()).await.map_err(failed)?,
        };
        let diff = if diff.changes == DiffChanges::Unknown {
            let mut engine = diff_inputs(&r.old_inputs, &r.new_inputs);
            engine.replace_keys = diff.replace_keys;
            engine.delete_before_replace = diff.delete_before_replace;
            if !engine.replace_keys.is_empty() {
                engine.changes = DiffChanges::Some;
            }
            engine
        } else {
            diff
        };
        let mut diff = apply_replace_on_changes(diff, &self.replace_on_changes);
        if self.init_errors && self.replace_on_changes.iter().any(covers_init_errors) {
            diff.changes = DiffChanges::Some;
            diff.replace_keys.push(INIT_ERROR_KEY.to_string());
            if !diff.detailed_diff.is_empty() {
                diff.detailed_diff.insert(
                    INIT_ERROR_KEY.to_string(),
                    crate::engine::provider::PropertyDiff {
                        kind: crate::engine::provider::DiffKind::UpdateReplace,
                        input_diff: false,
                    },
                );
            }
        }
        Ok(diff)
    }
}

fn covers_init_errors(path: &PropertyPath) -> bool {
    PropertyPath::parse(INIT_ERROR_KEY).is_ok_and(|p| path.contains(&p))
}
