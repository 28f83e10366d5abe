//! What the console knows of a run's policy packs, reduced from their events: the packs (as
//! they load, then by name and version as they answer), each with its counts, and every
//! violation and remediation by the resource it names, so a row can carry a marker and its
//! details the violations. Each event costs O(1).

use crate::engine::Urn;
use crate::engine::model::urn::UrnMap;
use crate::engine::run::events::{PolicyRemediation, PolicySummary, PolicyViolation};
use crate::engine::run::policy::EnforcementLevel;

/// One pack as the console lists it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PackEntry {
    pub name: String,
    pub version: String,
    pub advisory: usize,
    pub mandatory: usize,
    pub remediations: usize,
    /// Calls it answered (summaries), so a pack with nothing to report still shows it ran.
    pub calls: usize,
}

/// The run's packs, violations and remediations.
#[derive(Clone, Debug, Default)]
pub struct PolicyModel {
    /// Paths of the packs loading, in the order they started.
    loading: Vec<String>,
    packs: Vec<PackEntry>,
    violations: Vec<PolicyViolation>,
    remediations: Vec<PolicyRemediation>,
    /// Positions in `violations` by resource.
    by_resource: UrnMap<Vec<usize>>,
    /// Positions in `remediations` by resource.
    remediated: UrnMap<Vec<usize>>,
}

impl PolicyModel {
    /// A pack started loading from `path`.
    pub fn loading(&mut self, path: &str) {
        self.loading.push(path.to_string());
    }

    pub fn violation(&mut self, v: &PolicyViolation) {
        let pack = self.pack(&v.pack_name, &v.pack_version);
        match v.level {
            EnforcementLevel::Mandatory => pack.mandatory += 1,
            _ => pack.advisory += 1,
        }
        self.by_resource
            .entry(v.urn.clone())
            .or_default()
            .push(self.violations.len());
        self.violations.push(v.clone());
    }

    pub fn remediation(&mut self, r: &PolicyRemediation) {
        self.pack(&r.pack_name, &r.pack_version).remediations += 1;
        self.remediated
            .entry(r.urn.clone())
            .or_default()
            .push(self.remediations.len());
        self.remediations.push(r.clone());
    }

    pub fn summary(&mut self, s: &PolicySummary) {
        self.pack(&s.pack_name, &s.pack_version).calls += 1;
    }

    fn pack(&mut self, name: &str, version: &str) -> &mut PackEntry {
        let at = match self
            .packs
            .iter()
            .position(|p| p.name == name && p.version == version)
        {
            Some(i) => i,
            None => {
                self.packs.push(PackEntry {
                    name: name.to_string(),
                    version: version.to_string(),
                    ..PackEntry::default()
                });
                self.packs.len() - 1
            }
        };
        &mut self.packs[at]
    }

    /// The paths of the packs the run loaded.
    pub fn paths(&self) -> &[String] {
        &self.loading
    }

    /// Every pack that answered, in the order each first did.
    pub fn packs(&self) -> &[PackEntry] {
        &self.packs
    }

    /// The violations on a resource, in the order they arrived.
    pub fn violations_of<'a>(&'a self, urn: &Urn) -> impl Iterator<Item = &'a PolicyViolation> {
        self.by_resource
            .get(urn)
            .into_iter()
            .flatten()
            .map(|&i| &self.violations[i])
    }

    /// The remediations that rewrote a resource's inputs, in the order they ran.
    pub fn remediations_of<'a>(&'a self, urn: &Urn) -> impl Iterator<Item = &'a PolicyRemediation> {
        self.remediated
            .get(urn)
            .into_iter()
            .flatten()
            .map(|&i| &self.remediations[i])
    }

    /// A resource's marker: its worst violation's level (mandatory over advisory).
    pub fn marker(&self, urn: &Urn) -> Option<EnforcementLevel> {
        self.violations_of(urn).map(|v| v.level).max()
    }

    /// Whether any mandatory violation was reported: an apply of this plan would fail.
    pub fn has_mandatory(&self) -> bool {
        self.packs.iter().any(|p| p.mandatory > 0)
    }

    /// The first mandatory violation reported: the reason an apply of this plan is refused.
    pub fn first_mandatory(&self) -> Option<&PolicyViolation> {
        self.violations
            .iter()
            .find(|v| v.level != EnforcementLevel::Advisory)
    }

    /// Every violation, in the order they arrived.
    pub fn violations(&self) -> &[PolicyViolation] {
        &self.violations
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::run::events::PolicyCall;
    use crate::engine::run::policy::PolicySeverity;

    fn urn(name: &str) -> Urn {
        Urn::new("dev", "p", None, "sim:index:Thing", name)
    }

    fn violation(name: &str, level: EnforcementLevel) -> PolicyViolation {
        PolicyViolation {
            urn: urn(name),
            policy_name: "tagged".into(),
            pack_name: "pack".into(),
            pack_version: "1.0.0".into(),
            message: "Needs tags\nno tags".into(),
            level,
            severity: PolicySeverity::High,
        }
    }

    #[test]
    fn violations_are_kept_per_resource_and_counted_per_pack() {
        let mut m = PolicyModel::default();
        m.loading("./policy");
        m.violation(&violation("a", EnforcementLevel::Advisory));
        m.violation(&violation("a", EnforcementLevel::Mandatory));
        m.violation(&violation("b", EnforcementLevel::Advisory));
        m.summary(&PolicySummary {
            call: PolicyCall::Analyze,
            urn: Some(urn("a")),
            pack_name: "pack".into(),
            pack_version: "1.0.0".into(),
            passed: vec![],
            failed: vec!["tagged".into()],
        });
        assert_eq!(m.paths(), ["./policy"]);
        assert_eq!(m.violations_of(&urn("a")).count(), 2);
        assert_eq!(m.marker(&urn("a")), Some(EnforcementLevel::Mandatory));
        assert_eq!(m.marker(&urn("b")), Some(EnforcementLevel::Advisory));
        assert_eq!(m.marker(&urn("c")), None);
        assert!(m.has_mandatory());
        let pack = &m.packs()[0];
        assert_eq!((pack.advisory, pack.mandatory, pack.calls), (2, 1, 1));
    }
}
