//! What a pack answers: violations (diagnostics) with the policies that did not apply, and
//! remediations, each either a rewrite of the whole input map or a warning instead of one.

use super::level::{EnforcementLevel, PolicySeverity};
use crate::engine::model::property::PropertyMap;
use crate::engine::model::urn::Urn;

/// One violation a pack reported.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct AnalyzeDiagnostic {
    pub policy_name: String,
    pub pack_name: String,
    pub pack_version: String,
    pub description: String,
    /// The SDKs send the description, a newline and the policy's own message.
    pub message: String,
    pub level: EnforcementLevel,
    /// The resource a stack policy names, if any.
    pub urn: Option<Urn>,
    pub severity: PolicySeverity,
}

/// A policy that did not apply to what was analyzed, and why.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct NotApplicable {
    pub policy_name: String,
    pub reason: String,
}

/// Analyze's and AnalyzeStack's answer.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct AnalyzeResponse {
    pub diagnostics: Vec<AnalyzeDiagnostic>,
    pub not_applicable: Vec<NotApplicable>,
}

/// One remediation, in the order the pack applied them.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Remediation {
    pub policy_name: String,
    pub pack_name: String,
    pub pack_version: String,
    pub description: String,
    /// The whole new input map.
    pub properties: PropertyMap,
    /// Set instead of a rewrite when the remediation could not run (an advisory warning).
    pub diagnostic: String,
}

/// Remediate's answer.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct RemediateResponse {
    pub remediations: Vec<Remediation>,
    pub not_applicable: Vec<NotApplicable>,
}
