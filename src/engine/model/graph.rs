//! The dependency graph over a snapshot's resources. Built once per deployment in linear time;
//! every query costs time proportional to its answer, not to the stack.

use std::borrow::Borrow;
use std::collections::{HashMap, HashSet};
use std::hash::BuildHasher;

use super::resource::ResourceState;
use super::urn::Urn;

/// An edge from a dependent: `only_parent` when the dependent is merely a child.
#[derive(Clone, Copy, Debug)]
struct Edge {
    to: usize,
    only_parent: bool,
}

/// Edges run from a resource to what it depends on (parent, provider, dependencies, property
/// dependencies, deletedWith), resolved to the latest earlier state with that URN.
pub struct DependencyGraph {
    deps: Vec<Vec<usize>>,
    dependents: Vec<Vec<Edge>>,
}

impl DependencyGraph {
    /// Over owned states (a loaded snapshot) or shared ones (a deployment's base).
    pub fn new<R: Borrow<ResourceState>>(resources: &[R]) -> DependencyGraph {
        let mut latest: HashMap<&Urn, usize, foldhash::fast::RandomState> =
            HashMap::with_capacity_and_hasher(resources.len(), Default::default());
        let mut deps = Vec::with_capacity(resources.len());
        let mut dependents: Vec<Vec<Edge>> = vec![Vec::new(); resources.len()];
        for (i, r) in resources.iter().enumerate() {
            let r: &ResourceState = r.borrow();
            let parent = r.parent.as_ref().and_then(|p| latest.get(p).copied());
            let mut others: Vec<usize> = r
                .dependency_urns()
                .skip(usize::from(r.parent.is_some()))
                .filter_map(|u| latest.get(&u).copied())
                .collect();
            others.sort_unstable();
            others.dedup();
            for &d in &others {
                dependents[d].push(Edge {
                    to: i,
                    only_parent: false,
                });
            }
            let mut all = others;
            if let Some(p) = parent
                && let Err(pos) = all.binary_search(&p)
            {
                all.insert(pos, p);
                dependents[p].push(Edge {
                    to: i,
                    only_parent: true,
                });
            }
            deps.push(all);
            latest.insert(&r.urn, i);
        }
        DependencyGraph { deps, dependents }
    }

    /// Direct dependencies of resource `i` (parent included).
    pub fn dependencies_of(&self, i: usize) -> &[usize] {
        &self.deps[i]
    }

    /// Direct dependents of resource `i` (children included).
    pub fn dependents_of(&self, i: usize) -> impl Iterator<Item = usize> + '_ {
        self.dependents[i].iter().map(|e| e.to)
    }

    /// Every resource that transitively depends on `root`, in snapshot (topological) order,
    /// not walking through resources whose URN is in `ignore`. Children count as dependents
    /// only when `include_children` is set.
    pub fn depending_on<R: Borrow<ResourceState>, S: BuildHasher>(
        &self,
        root: usize,
        resources: &[R],
        ignore: &HashSet<Urn, S>,
        include_children: bool,
    ) -> Vec<usize> {
        let mut seen: HashSet<usize> = HashSet::new();
        let mut stack = vec![root];
        while let Some(i) = stack.pop() {
            for e in &self.dependents[i] {
                if (e.only_parent && !include_children)
                    || ignore.contains(&resources[e.to].borrow().urn)
                    || !seen.insert(e.to)
                {
                    continue;
                }
                stack.push(e.to);
            }
        }
        let mut out: Vec<usize> = seen.into_iter().collect();
        out.sort_unstable();
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(name: &str, parent: Option<&Urn>, deps: &[&Urn]) -> ResourceState {
        ResourceState {
            urn: Urn::new("s", "p", None, "t:i:R", name),
            type_: "t:i:R".into(),
            custom: true,
            parent: parent.cloned(),
            dependencies: deps.iter().map(|u| (*u).clone()).collect(),
            ..Default::default()
        }
    }

    #[test]
    fn dependents_are_transitive_and_children_optional() {
        let a = r("a", None, &[]);
        let b = r("b", None, &[&a.urn]);
        let c = r("c", Some(&a.urn), &[]);
        let d = r("d", None, &[&b.urn]);
        let e = r("e", None, &[&c.urn]);
        let all = vec![a, b, c, d, e];
        let g = DependencyGraph::new(&all);
        let none = HashSet::new();
        assert_eq!(g.depending_on(0, &all, &none, false), vec![1, 3]);
        assert_eq!(g.depending_on(0, &all, &none, true), vec![1, 2, 3, 4]);
        let ignore: HashSet<Urn> = [all[1].urn.clone()].into();
        assert_eq!(g.depending_on(0, &all, &ignore, false), Vec::<usize>::new());
        assert_eq!(g.dependencies_of(4), &[2]);
    }
}
