//! A policy's enforcement level and severity, spelled as Pulumi's events and config files
//! spell them.

/// What a violation of a policy does to a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub enum EnforcementLevel {
    /// Reported; the run goes on.
    #[default]
    Advisory,
    /// The resource's step does not run; a preview fails at its end.
    Mandatory,
    /// The pack rewrites the resource's inputs; a violation still reported counts as mandatory.
    Remediate,
    /// The policy is not run.
    Disabled,
}

impl EnforcementLevel {
    pub const ALL: [EnforcementLevel; 4] = [
        EnforcementLevel::Advisory,
        EnforcementLevel::Mandatory,
        EnforcementLevel::Remediate,
        EnforcementLevel::Disabled,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            EnforcementLevel::Advisory => "advisory",
            EnforcementLevel::Mandatory => "mandatory",
            EnforcementLevel::Remediate => "remediate",
            EnforcementLevel::Disabled => "disabled",
        }
    }

    /// The level a config file names, if it is one of the four.
    pub fn parse(s: &str) -> Option<EnforcementLevel> {
        EnforcementLevel::ALL.into_iter().find(|l| l.as_str() == s)
    }
}

/// How severe a policy says its violations are.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub enum PolicySeverity {
    #[default]
    Unspecified,
    Low,
    Medium,
    High,
    Critical,
}

impl PolicySeverity {
    /// Pulumi's word for it; empty when unspecified (events then leave it out).
    pub fn as_str(self) -> &'static str {
        match self {
            PolicySeverity::Unspecified => "",
            PolicySeverity::Low => "low",
            PolicySeverity::Medium => "medium",
            PolicySeverity::High => "high",
            PolicySeverity::Critical => "critical",
        }
    }
}
