//! Repairing a snapshot that fails the integrity check, as Pulumi's `state repair` does: sort
//! the resources so that everything a resource needs comes before it, then drop references to
//! resources that no longer exist (a child whose parent is gone loses the parent from its URN).

use std::collections::HashMap;

use super::resource::ResourceState;
use super::snapshot::Snapshot;
use super::urn::Urn;

/// What pruning changed about one resource.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PruneResult {
    pub old_urn: Urn,
    /// Differs from `old_urn` when a missing parent was dropped from the URN.
    pub new_urn: Urn,
    /// The resource is an old copy pending deletion.
    pub delete: bool,
    /// The references dropped, as (kind, URN): parent, dependency, property dependency,
    /// deletedWith, replaceWith.
    pub removed: Vec<(&'static str, Urn)>,
}

/// Why a snapshot cannot be repaired automatically; it needs editing by hand.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RepairError {
    #[error("the snapshot has cyclic dependencies (through {urn})")]
    Cycle { urn: Urn },
}

impl Snapshot {
    /// Sorts the resources topologically and prunes dangling references (Pulumi's
    /// `Snapshot.Repair`); returns what pruning changed. The result may still fail the
    /// integrity check (a missing provider cannot be repaired), so check it before saving.
    pub fn repair(&mut self) -> Result<Vec<PruneResult>, RepairError> {
        self.toposort()?;
        Ok(self.prune())
    }

    /// The positions a resource depends on. A URN held by both a pending-delete copy and a
    /// live one names the copy of the same kind (old states only ever referred to old ones).
    fn dependency_positions(&self) -> Vec<Vec<usize>> {
        let mut olds: HashMap<&Urn, usize> = HashMap::new();
        let mut news: HashMap<&Urn, usize> = HashMap::new();
        for (i, r) in self.resources.iter().enumerate() {
            if r.delete {
                olds.insert(&r.urn, i);
            } else {
                news.insert(&r.urn, i);
            }
        }
        self.resources
            .iter()
            .map(|r| {
                let lookup = |u: &Urn| match (olds.get(u), news.get(u)) {
                    (Some(&o), Some(_)) if r.delete => Some(o),
                    (_, Some(&n)) => Some(n),
                    (Some(&o), None) => Some(o),
                    (None, None) => None,
                };
                r.dependency_urns().filter_map(|u| lookup(&u)).collect()
            })
            .collect()
    }

    /// Orders resources so each comes after everything it depends on, keeping the existing
    /// order where it is already right (a post-order depth-first walk).
    fn toposort(&mut self) -> Result<(), RepairError> {
        let deps = self.dependency_positions();
        let n = self.resources.len();
        // 0: not visited, 1: on the current path, 2: placed.
        let mut mark = vec![0u8; n];
        let mut order = Vec::with_capacity(n);
        for start in 0..n {
            if mark[start] != 0 {
                continue;
            }
            mark[start] = 1;
            let mut path: Vec<(usize, usize)> = vec![(start, 0)];
            while let Some(&(node, next)) = path.last() {
                if let Some(&d) = deps[node].get(next) {
                    path.last_mut().expect("non-empty path").1 += 1;
                    match mark[d] {
                        0 => {
                            mark[d] = 1;
                            path.push((d, 0));
                        }
                        1 => {
                            return Err(RepairError::Cycle {
                                urn: self.resources[d].urn.clone(),
                            });
                        }
                        _ => {}
                    }
                } else {
                    mark[node] = 2;
                    order.push(node);
                    path.pop();
                }
            }
        }
        let mut slots: Vec<Option<ResourceState>> = std::mem::take(&mut self.resources)
            .into_iter()
            .map(Some)
            .collect();
        self.resources = order
            .into_iter()
            .map(|i| slots[i].take().expect("each resource is placed once"))
            .collect();
        Ok(())
    }

    /// Drops references to resources absent from the (sorted) snapshot (Pulumi's `Prune`).
    /// The provider reference is kept: a resource cannot go without one, and the integrity
    /// check reports it.
    fn prune(&mut self) -> Vec<PruneResult> {
        let mut results = Vec::new();
        // Old URN to new URN of every resource seen so far.
        let mut seen: HashMap<Urn, Urn> = HashMap::with_capacity(self.resources.len());
        for r in &mut self.resources {
            let mut removed = Vec::new();
            let mut new_urn = r.urn.clone();
            if let Some(parent) = r.parent.take() {
                let kept = seen.get(&parent).cloned();
                new_urn = Urn::new(
                    r.urn.stack(),
                    r.urn.project(),
                    kept.as_ref(),
                    r.urn.type_(),
                    r.urn.name(),
                );
                if kept.is_none() {
                    removed.push(("parent", parent));
                }
                r.parent = kept;
            }
            let mut keep = |kind: &'static str, urns: Vec<Urn>| -> Vec<Urn> {
                urns.into_iter()
                    .filter_map(|u| match seen.get(&u) {
                        Some(n) => Some(n.clone()),
                        None => {
                            removed.push((kind, u));
                            None
                        }
                    })
                    .collect()
            };
            r.dependencies = keep("dependency", std::mem::take(&mut r.dependencies));
            r.property_dependencies = std::mem::take(&mut r.property_dependencies)
                .into_iter()
                .map(|(k, urns)| (k, keep("property dependency", urns)))
                .filter(|(_, urns)| !urns.is_empty())
                .collect();
            r.deleted_with = r
                .deleted_with
                .take()
                .and_then(|d| keep("deletedWith", vec![d]).pop());
            r.replace_with = keep("replaceWith", std::mem::take(&mut r.replace_with));
            if new_urn != r.urn || !removed.is_empty() {
                results.push(PruneResult {
                    old_urn: r.urn.clone(),
                    new_urn: new_urn.clone(),
                    delete: r.delete,
                    removed,
                });
            }
            seen.insert(std::mem::replace(&mut r.urn, new_urn.clone()), new_urn);
        }
        results
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::model::snapshot::IntegrityError;

    fn res(name: &str, parent: Option<&Urn>, deps: &[&Urn]) -> ResourceState {
        ResourceState {
            urn: Urn::new("s", "p", parent, "t:index:R", name),
            custom: true,
            id: Some(format!("id-{name}")),
            type_: "t:index:R".into(),
            parent: parent.cloned(),
            dependencies: deps.iter().map(|u| (*u).clone()).collect(),
            ..Default::default()
        }
    }

    fn names(s: &Snapshot) -> Vec<&str> {
        s.resources.iter().map(|r| r.urn.name()).collect()
    }

    #[test]
    fn out_of_order_resources_are_sorted_and_missing_references_dropped() {
        let a = res("a", None, &[]);
        let gone = res("gone", None, &[]);
        let b = res("b", None, &[&a.urn, &gone.urn]);
        let child = res("child", Some(&gone.urn), &[&b.urn]);
        let mut snap = Snapshot {
            resources: vec![child, b, a],
            ..Default::default()
        };
        assert!(matches!(
            snap.verify_integrity(),
            Err(IntegrityError::ComesAfter { .. } | IntegrityError::Missing { .. })
        ));
        let pruned = snap.repair().unwrap();
        assert_eq!(names(&snap), vec!["a", "b", "child"]);
        snap.verify_integrity().unwrap();
        let child = &snap.resources[2];
        assert_eq!(child.parent, None);
        assert_eq!(child.urn, Urn::new("s", "p", None, "t:index:R", "child"));
        assert_eq!(
            snap.resources[1].dependencies,
            vec![snap.resources[0].urn.clone()]
        );
        assert_eq!(pruned.len(), 2);
        assert_eq!(pruned[0].removed, vec![("dependency", gone.urn.clone())]);
        assert_eq!(pruned[1].removed, vec![("parent", gone.urn)]);
        assert_ne!(pruned[1].old_urn, pruned[1].new_urn);
    }

    #[test]
    fn replace_with_is_sorted_on_and_a_missing_target_dropped() {
        let a = res("a", None, &[]);
        let gone = res("gone", None, &[]);
        let mut b = res("b", None, &[]);
        b.replace_with = vec![a.urn.clone(), gone.urn.clone()];
        let mut snap = Snapshot {
            resources: vec![b, a.clone()],
            ..Default::default()
        };
        let pruned = snap.repair().unwrap();
        assert_eq!(names(&snap), vec!["a", "b"]);
        snap.verify_integrity().unwrap();
        assert_eq!(snap.resources[1].replace_with, vec![a.urn]);
        assert_eq!(pruned[0].removed, vec![("replaceWith", gone.urn)]);
    }

    #[test]
    fn cycles_cannot_be_repaired() {
        let a_urn = Urn::new("s", "p", None, "t:index:R", "a");
        let b = res("b", None, &[&a_urn]);
        let a = res("a", None, &[&b.urn]);
        let mut snap = Snapshot {
            resources: vec![a, b],
            ..Default::default()
        };
        assert!(matches!(snap.repair(), Err(RepairError::Cycle { .. })));
    }
}
