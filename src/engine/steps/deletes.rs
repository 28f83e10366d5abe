//! Deletes after the program exits: which old resources go, and in what order. Condemned
//! resources are peeled into antichains; each antichain's deletes run in parallel, and the
//! antichains run one after another, dependents first.

use std::collections::HashSet;
use std::sync::Arc;

use crate::engine::model::graph::DependencyGraph;
use crate::engine::model::resource::ResourceState;
use crate::engine::model::urn::Urn;
use crate::engine::step::{OldState, Step};

/// The delete steps for everything in the base the program did not register (Pulumi's
/// `GenerateDeletes`). `live` says whether a URN is still wanted; `is_targeted` whether the
/// operation may touch it. `already_deleted` positions get no delete; those among them pending
/// replacement (deleted by a delete-before-replace in this run, `pending_replaced`, or in an
/// earlier one) that the program no longer declares leave the state (`remove-pending-replace`),
/// so nothing keeps depending on what is deleted next.
pub(crate) fn generate_deletes(
    base: &[Arc<ResourceState>],
    marked_delete: &HashSet<usize>,
    already_deleted: &HashSet<usize>,
    pending_replaced: &HashSet<usize>,
    live: impl Fn(&Urn) -> bool,
    is_targeted: impl Fn(&Urn) -> bool,
) -> Vec<Step> {
    let mut steps = Vec::new();
    for (index, r) in base.iter().enumerate() {
        if !is_targeted(&r.urn) {
            continue;
        }
        if already_deleted.contains(&index) {
            let pending = r.pending_replacement || pending_replaced.contains(&index);
            if pending && !r.delete && !live(&r.urn) {
                let state = Arc::new(ResourceState {
                    pending_replacement: true,
                    ..ResourceState::clone(r)
                });
                steps.push(Step::remove_pending_replace(OldState { index, state }));
            }
            continue;
        }
        let old = OldState {
            index,
            state: r.clone(),
        };
        let step = if r.delete || marked_delete.contains(&index) {
            if r.external {
                Step::DiscardReplaced { old }
            } else {
                Step::DeleteReplaced { old }
            }
        } else if live(&r.urn) {
            continue;
        } else if r.pending_replacement {
            Step::remove_pending_replace(old)
        } else if r.external {
            Step::Discard { old }
        } else {
            Step::Delete { old }
        };
        steps.push(step);
    }
    steps
}

/// Orders delete steps into antichains (Pulumi's `ScheduleDeletes`): a resource's layer is one
/// more than the deepest condemned resource it depends on; layers run deepest first.
pub(crate) fn schedule_deletes(steps: Vec<Step>, graph: &DependencyGraph) -> Vec<Vec<Step>> {
    let mut layer_of: std::collections::HashMap<usize, usize> =
        std::collections::HashMap::with_capacity(steps.len());
    let mut indexed: Vec<(usize, Step)> = steps
        .into_iter()
        .map(|s| (s.old().map_or(0, |o| o.index), s))
        .collect();
    indexed.sort_by_key(|(i, _)| *i);
    let mut depth = 0;
    for (i, _) in &indexed {
        let layer = graph
            .dependencies_of(*i)
            .iter()
            .filter_map(|d| layer_of.get(d))
            .map(|l| l + 1)
            .max()
            .unwrap_or(0);
        depth = depth.max(layer + 1);
        layer_of.insert(*i, layer);
    }
    let mut layers: Vec<Vec<Step>> = (0..depth).map(|_| Vec::new()).collect();
    for (i, s) in indexed {
        layers[layer_of[&i]].push(s);
    }
    layers.reverse();
    layers
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(name: &str, deps: &[&Urn]) -> ResourceState {
        ResourceState {
            urn: Urn::new("s", "p", None, "t:i:R", name),
            type_: "t:i:R".into(),
            custom: true,
            dependencies: deps.iter().map(|u| (*u).clone()).collect(),
            ..Default::default()
        }
    }

    #[test]
    fn antichains_delete_dependents_first() {
        let a = r("a", &[]);
        let b = r("b", &[&a.urn]);
        let c = r("c", &[&a.urn]);
        let d = r("d", &[&b.urn, &c.urn]);
        let e = r("e", &[]);
        let base: Vec<Arc<ResourceState>> = [a, b, c, d, e].into_iter().map(Arc::new).collect();
        let graph = DependencyGraph::new(&base);
        let none = HashSet::new();
        let steps = generate_deletes(&base, &none, &none, &none, |_| false, |_| true);
        let layers = schedule_deletes(steps, &graph);
        let names: Vec<Vec<&str>> = layers
            .iter()
            .map(|l| l.iter().map(|s| s.urn().name()).collect())
            .collect();
        assert_eq!(names, vec![vec!["d"], vec!["b", "c"], vec!["a", "e"]]);
    }
}
