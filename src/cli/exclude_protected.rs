//! `destroy --exclude-protected`: the resources a destroy leaves alone, as Pulumi computes
//! them: every protected resource and everything it depends on, transitively (its parent,
//! provider, dependencies, property dependencies and `deletedWith`), so that what remains
//! still stands.

use std::collections::{HashMap, HashSet};

use stepdeck::engine::{ResourceState, Urn};

/// What `--exclude-protected` keeps.
pub(super) struct Protected {
    /// The URNs to exclude from the destroy.
    pub urns: Vec<String>,
    /// Whether that is every resource of the stack (then there is nothing to destroy).
    pub everything: bool,
}

/// The protected resources of a snapshot's `resources` and what they depend on.
pub(super) fn protected(resources: &[ResourceState]) -> Protected {
    let by_urn: HashMap<&Urn, &ResourceState> = resources.iter().map(|r| (&r.urn, r)).collect();
    let mut kept: HashSet<Urn> = HashSet::new();
    let mut work: Vec<&ResourceState> = resources.iter().filter(|r| r.protect).collect();
    while let Some(r) = work.pop() {
        if !kept.insert(r.urn.clone()) {
            continue;
        }
        let needs = r
            .parent
            .iter()
            .chain(r.provider.iter().map(|p| &p.urn))
            .chain(&r.dependencies)
            .chain(r.property_dependencies.values().flatten())
            .chain(r.deleted_with.iter());
        for urn in needs {
            if let Some(dep) = by_urn.get(urn)
                && !kept.contains(urn)
            {
                work.push(dep);
            }
        }
    }
    let mut urns: Vec<String> = kept.iter().map(|u| u.as_str().to_string()).collect();
    urns.sort();
    Protected {
        everything: !resources.is_empty() && urns.len() == resources.len(),
        urns,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state(urn: &Urn, parent: Option<&Urn>, deps: &[&Urn], protect: bool) -> ResourceState {
        ResourceState {
            urn: urn.clone(),
            type_: urn.type_().to_string(),
            custom: true,
            parent: parent.cloned(),
            dependencies: deps.iter().map(|u| (*u).clone()).collect(),
            protect,
            ..ResourceState::default()
        }
    }

    #[test]
    fn keeps_protected_resources_and_what_they_stand_on() {
        let u = |name: &str| Urn::new("dev", "p", None, "sim:index:Resource", name);
        let stack = Urn::new("dev", "p", None, "pulumi:pulumi:Stack", "p-dev");
        let (net, db, app, other) = (u("net"), u("db"), u("app"), u("other"));
        let resources = vec![
            state(&stack, None, &[], false),
            state(&net, Some(&stack), &[], false),
            state(&db, Some(&stack), &[&net], true),
            state(&app, Some(&stack), &[&db], false),
            state(&other, Some(&stack), &[], false),
        ];
        let p = protected(&resources);
        let mut expected = vec![stack.as_str(), net.as_str(), db.as_str()];
        expected.sort();
        assert_eq!(p.urns, expected);
        assert!(!p.everything);
        assert!(protected(&resources[..3]).everything);
        assert!(!protected(&[]).everything);
    }
}
