//! The operator's selection in a preview (`space` marks a resource, `x` excludes one and its
//! subtree), turned into the apply's targets and exclusions: a selected resource is targeted
//! with everything it needs (its dependencies and ancestors, so no targeted create waits on a
//! skipped one), an excluded one is left alone with its children and dependents (Pulumi's
//! `--exclude-dependents`). In a destroy, a selected resource is destroyed with what must go
//! with it (its children and dependents, as `--target` with `--target-dependents`), never with
//! its parent or what it depends on. What the preview would have changed outside that is
//! skipped.

use std::collections::{BTreeSet, HashSet};

use crate::engine::{Operation, StepOp, Urn};

use super::model::Model;

/// How a row is marked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mark {
    Selected,
    Excluded,
    /// Not marked, but the apply of the selection touches it too (see [`Selection::implied`]).
    Implied,
}

/// The marks made in a preview.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Selection {
    selected: BTreeSet<Urn>,
    excluded: BTreeSet<Urn>,
    /// [`Selection::implied`] as of the last mark, so rows show it without a walk per frame.
    implied: BTreeSet<Urn>,
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
        } else if self.implied.contains(urn) {
            Some(Mark::Implied)
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
            .map(|r| (r.name().to_string(), r.type_().to_string()))
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

    /// Recomputes what the selection implies after a mark changed; returns it, in name order.
    pub fn note_implied(&mut self, model: &Model) -> Vec<Urn> {
        let implied = self.implied(model);
        self.implied = implied.iter().cloned().collect();
        implied
    }

    /// How many resources the selection implies (as of the last mark).
    pub fn implied_count(&self) -> usize {
        self.implied.len()
    }

    /// Resources the apply touches beyond the selected ones because they need them (or, in a
    /// destroy, must go with them), in name order: what the preview shows before `y`.
    pub fn implied(&self, model: &Model) -> Vec<Urn> {
        if self.selected.is_empty() {
            return Vec::new();
        }
        let mut out: Vec<Urn> = self
            .needed(model)
            .into_iter()
            .filter(|u| !self.selected.contains(u))
            .filter(|u| {
                model
                    .index_of(u)
                    .is_some_and(|i| model.resource(i).op.is_some_and(|op| op != StepOp::Same))
            })
            .collect();
        out.sort_by(|a, b| a.name().cmp(b.name()));
        out
    }

    /// The selected resources with what the apply needs with them: in a destroy, their
    /// children and dependents; otherwise their dependencies and ancestors, transitively.
    fn needed(&self, model: &Model) -> HashSet<Urn> {
        if model.run.operation == Some(Operation::Destroy) {
            return with_dependents(model, self.selected.iter().cloned().collect());
        }
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
        with_dependents(model, self.excluded.iter().cloned().collect())
    }
}

/// `seed` with its descendants and dependents, transitively.
fn with_dependents(model: &Model, seed: HashSet<Urn>) -> HashSet<Urn> {
    let mut out = seed;
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

fn toggle(set: &mut BTreeSet<Urn>, urn: &Urn) -> bool {
    if set.remove(urn) {
        false
    } else {
        set.insert(urn.clone());
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::sample::{sample_urn, step_info};
    use crate::engine::EngineEvent;
    use crate::engine::model::urn::ROOT_STACK_TYPE;

    /// A preview creating `net`, `app` (on `net`), `web` (a child of `app`) and `other`.
    fn preview() -> (Model, [Urn; 4]) {
        let stack = sample_urn(ROOT_STACK_TYPE, "");
        let net = sample_urn("sim:index:Network", "net");
        let app = sample_urn("sim:index:Server", "app");
        let web = Urn::new("dev", "myproj", Some(&app), "sim:index:Resource", "web");
        let other = sample_urn("sim:index:Resource", "other");
        let mut m = Model::new();
        for (i, (urn, parent, deps)) in [
            (&stack, None, vec![]),
            (&net, Some(&stack), vec![]),
            (&app, Some(&stack), vec![net.clone()]),
            (&web, Some(&app), vec![]),
            (&other, Some(&stack), vec![]),
        ]
        .into_iter()
        .enumerate()
        {
            m.apply(&EngineEvent::RegistrationReceived {
                urn: urn.clone(),
                type_: urn.type_().to_string(),
                parent: parent.cloned(),
                custom: true,
                dependencies: deps.clone().into(),
            });
            let mut info = step_info(StepOp::Create, urn, parent, i as u64 + 1);
            info.dependencies = deps.into();
            m.apply(&EngineEvent::StepPlanned(Box::new(info)));
        }
        (m, [net, app, web, other])
    }

    fn names(urns: &[String]) -> Vec<&str> {
        urns.iter()
            .map(|u| u.rsplit("::").next().unwrap())
            .collect()
    }

    #[test]
    fn a_selected_resource_takes_what_it_needs_and_the_rest_is_skipped() {
        let (m, [_, _, web, _]) = preview();
        let mut s = Selection::default();
        assert_eq!(s.resolve(&m), None, "no marks: everything applies");
        assert!(s.toggle_selected(&web));
        let r = s.resolve(&m).unwrap();
        let mut targets = names(&r.targets);
        targets.sort();
        assert_eq!(targets, ["app", "myproj-dev", "net", "web"]);
        assert_eq!(
            r.skipped,
            [("other".to_string(), "sim:index:Resource".to_string())]
        );
        assert!(!s.toggle_selected(&web), "space again takes the mark back");
        assert!(s.is_empty());
    }

    #[test]
    fn an_excluded_resource_leaves_out_its_subtree_and_dependents() {
        let (m, [net, ..]) = preview();
        let mut s = Selection::default();
        s.toggle_excluded(&net);
        assert_eq!(s.mark(&net), Some(Mark::Excluded));
        let r = s.resolve(&m).unwrap();
        assert!(r.targets.is_empty());
        assert_eq!(names(&r.excludes), ["net"]);
        let skipped: Vec<&str> = r.skipped.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(skipped, ["net", "app", "web"]);
    }
}
