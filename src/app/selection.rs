//! The operator's selection in a preview (`space` marks a resource, `x` excludes one and its
//! subtree), turned into the apply's targets and exclusions: a selected resource is targeted
//! with everything it needs (its dependencies and ancestors, so no targeted create waits on a
//! skipped one), an excluded one is left alone with its children and dependents (Pulumi's
//! `--exclude-dependents`). What the preview would have changed outside that is skipped.

use std::collections::{BTreeSet, HashSet};

use crate::engine::step::StepOp;
use crate::engine::urn::Urn;

use super::model::Model;

/// How a row is marked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mark {
    Selected,
    Excluded,
}

/// The marks made in a preview.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Selection {
    selected: BTreeSet<Urn>,
    excluded: BTreeSet<Urn>,
}

/// A selection as the apply runs it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Resolved {
    /// `--target`s: the selected resources and what they need (empty: everything).
    pub targets: Vec<String>,
    /// `--exclude`s, applied with `--exclude-dependents`.
    pub excludes: Vec<String>,
    /// Resources the preview changed that the apply leaves alone, as (name, type).
    pub skipped: Vec<(String, String)>,
}

impl Selection {
    /// `space`: selects the resource, or takes its mark back.
    pub fn toggle_selected(&mut self, urn: &Urn) -> bool {
        self.excluded.remove(urn);
        toggle(&mut self.selected, urn)
    }

    /// `x`: excludes the resource (and its subtree), or takes its mark back.
    pub fn toggle_excluded(&mut self, urn: &Urn) -> bool {
        self.selected.remove(urn);
        toggle(&mut self.excluded, urn)
    }

    pub fn mark(&self, urn: &Urn) -> Option<Mark> {
        if self.selected.contains(urn) {
            Some(Mark::Selected)
        } else if self.excluded.contains(urn) {
            Some(Mark::Excluded)
        } else {
            None
        }
    }

    /// How many resources are selected and excluded.
    pub fn counts(&self) -> (usize, usize) {
        (self.selected.len(), self.excluded.len())
    }

    pub fn is_empty(&self) -> bool {
        self.selected.is_empty() && self.excluded.is_empty()
    }

    /// The apply's targets and exclusions for the preview in `model`; none without marks.
    pub fn resolve(&self, model: &Model) -> Option<Resolved> {
        if self.is_empty() {
            return None;
        }
        let targeted = self.needed(model);
        let excluded = self.left_alone(model);
        let skipped = model
            .resources()
            .iter()
            .filter(|r| r.op.is_some_and(|op| op != StepOp::Same))
            .filter(|r| {
                excluded.contains(&r.urn)
                    || (!self.selected.is_empty() && !targeted.contains(&r.urn))
            })
            .map(|r| (r.name().to_string(), r.type_.clone()))
            .collect();
        let mut targets: Vec<String> = if self.selected.is_empty() {
            Vec::new()
        } else {
            targeted.iter().map(|u| u.as_str().to_string()).collect()
        };
        targets.sort();
        Some(Resolved {
            targets,
            excludes: self
                .excluded
                .iter()
                .map(|u| u.as_str().to_string())
                .collect(),
            skipped,
        })
    }

    /// The selected resources with their dependencies and ancestors, transitively.
    fn needed(&self, model: &Model) -> HashSet<Urn> {
        let mut seen: HashSet<Urn> = HashSet::new();
        let mut todo: Vec<Urn> = self.selected.iter().cloned().collect();
        while let Some(urn) = todo.pop() {
            if !seen.insert(urn.clone()) {
                continue;
            }
            let Some(i) = model.index_of(&urn) else {
                continue;
            };
            let r = model.resource(i);
            todo.extend(r.dependencies.iter().cloned());
            if let Some(p) = r.parent {
                todo.push(model.resource(p).urn.clone());
            }
        }
        seen
    }

    /// The excluded resources with their descendants and dependents, transitively.
    fn left_alone(&self, model: &Model) -> HashSet<Urn> {
        let mut out: HashSet<Urn> = self.excluded.iter().cloned().collect();
        loop {
            let more: Vec<Urn> = model
                .resources()
                .iter()
                .filter(|r| !out.contains(&r.urn))
                .filter(|r| {
                    r.dependencies.iter().any(|d| out.contains(d))
                        || r.parent
                            .is_some_and(|p| out.contains(&model.resource(p).urn))
                })
                .map(|r| r.urn.clone())
                .collect();
            if more.is_empty() {
                return out;
            }
            out.extend(more);
        }
    }
}

fn toggle(set: &mut BTreeSet<Urn>, urn: &Urn) -> bool {
    if set.remove(urn) {
        false
    } else {
        set.insert(urn.clone());
        true
    }
}
