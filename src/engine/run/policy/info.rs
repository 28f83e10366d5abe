//! What a pack says about itself once loaded: its name, version and policies, with each
//! policy's kind, level and severity (the levels as this run's config set them).

use super::level::{EnforcementLevel, PolicySeverity};

/// Whether a policy checks one resource at a time or the whole stack.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum PolicyType {
    /// An older SDK that does not say; summaries count it as either.
    #[default]
    Unknown,
    Resource,
    Stack,
}

/// One policy of a pack.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct PolicyInfo {
    pub name: String,
    pub level: EnforcementLevel,
    pub policy_type: PolicyType,
    pub severity: PolicySeverity,
}

/// A loaded pack: name and version as events show them, policies sorted by name.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct AnalyzerInfo {
    pub name: String,
    pub version: String,
    pub policies: Vec<PolicyInfo>,
}

impl AnalyzerInfo {
    /// The severity a policy declared, for a diagnostic that names none.
    pub fn severity_of(&self, policy: &str) -> PolicySeverity {
        self.policies
            .iter()
            .find(|p| p.name == policy)
            .map_or(PolicySeverity::Unspecified, |p| p.severity)
    }
}
