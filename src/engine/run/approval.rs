//! Approval policies: which kinds of step (deletes, replacements, updates, creates, and steps
//! on resources with advisory policy violations), for which URNs, wait at a gate for a
//! decision, run at once, or are declined. Rules come from flags, a
//! policy file and the stack's settings; the most specific one wins.

use thiserror::Error;

pub use super::approval_kind::ApprovalKind;
use super::approval_kind::{ApprovalPolicy, UnknownPolicy};
use crate::engine::model::targets::UrnGlob;
use crate::engine::model::urn::Urn;

impl std::str::FromStr for ApprovalKind {
    type Err = RuleError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        ApprovalKind::ALL
            .into_iter()
            .find(|k| k.as_str() == s)
            .ok_or_else(|| RuleError::UnknownKind(s.to_string()))
    }
}

/// Where a rule was set; a later source overrides an earlier one at the same specificity.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum RuleSource {
    StackConfig,
    File,
    Flag,
}

/// A rule that could not be read.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum RuleError {
    #[error(
        "unknown step kind {0:?}: expected deletes, replacements, updates, creates or violations"
    )]
    UnknownKind(String),
    #[error("{0:?} is not KIND=POLICY or KIND[URN-GLOB]=POLICY")]
    Malformed(String),
    #[error(transparent)]
    Policy(#[from] UnknownPolicy),
}

/// One `kind[glob]=policy` rule.
#[derive(Clone, Debug)]
pub struct ApprovalRule {
    pub kind: ApprovalKind,
    /// The URN glob as written; `None` applies to every URN.
    pub scope: Option<String>,
    glob: Option<UrnGlob>,
    pub policy: ApprovalPolicy,
    pub source: RuleSource,
}

impl ApprovalRule {
    /// Reads the left side of a rule (`deletes`, `deletes,updates`, `deletes[urn:…::prod-*]`)
    /// with its policy into one rule per kind.
    pub fn parse_key(
        key: &str,
        policy: &str,
        source: RuleSource,
    ) -> Result<Vec<ApprovalRule>, RuleError> {
        let policy: ApprovalPolicy = policy.trim().parse().map_err(RuleError::Policy)?;
        let key = key.trim();
        let (kinds, scope) = match key.split_once('[') {
            Some((kinds, rest)) => {
                let glob = rest
                    .strip_suffix(']')
                    .filter(|g| !g.is_empty())
                    .ok_or_else(|| RuleError::Malformed(key.to_string()))?;
                (kinds, Some(glob.to_string()))
            }
            None => (key, None),
        };
        kinds
            .split(',')
            .map(|k| {
                Ok(ApprovalRule {
                    kind: k.trim().parse()?,
                    glob: scope.as_deref().map(UrnGlob::new),
                    scope: scope.clone(),
                    policy,
                    source,
                })
            })
            .collect()
    }

    /// Reads a whole `KIND[GLOB]=POLICY` flag.
    pub fn parse_flag(spec: &str) -> Result<Vec<ApprovalRule>, RuleError> {
        let (key, policy) = spec
            .rsplit_once('=')
            .ok_or_else(|| RuleError::Malformed(spec.to_string()))?;
        ApprovalRule::parse_key(key, policy, RuleSource::Flag)
    }

    fn applies(&self, kind: ApprovalKind, urn: &Urn) -> bool {
        self.kind == kind && self.glob.as_ref().is_none_or(|g| g.matches(urn.as_str()))
    }
}

/// Every rule of a deployment and the defaults under them.
#[derive(Clone, Debug, Default)]
pub struct Approvals {
    rules: Vec<ApprovalRule>,
    /// What a delete-before-replace cascade gets when no rule names it (ask in the console,
    /// auto elsewhere, as before rules existed).
    pub dbr_default: ApprovalPolicy,
}

impl Approvals {
    pub fn new(rules: Vec<ApprovalRule>, dbr_default: ApprovalPolicy) -> Approvals {
        Approvals { rules, dbr_default }
    }

    /// The policy for a step of `kind` on `urn`: a scoped rule beats an unscoped one, then a
    /// flag beats the policy file, which beats the stack's settings; among equals the last
    /// written wins. `dbr` says the step is a delete-before-replace.
    pub fn policy(&self, kind: ApprovalKind, urn: &Urn, dbr: bool) -> ApprovalPolicy {
        self.rules
            .iter()
            .enumerate()
            .filter(|(_, r)| r.applies(kind, urn))
            .max_by_key(|(i, r)| (r.scope.is_some(), r.source, *i))
            .map(|(_, r)| r.policy)
            .unwrap_or(if dbr && kind == ApprovalKind::Replacements {
                self.dbr_default
            } else {
                ApprovalPolicy::Auto
            })
    }

    /// Whether any rule can hold a step (so a run without a way to decide must be told).
    pub fn may_ask(&self) -> bool {
        self.dbr_default == ApprovalPolicy::Ask
            || self.rules.iter().any(|r| r.policy == ApprovalPolicy::Ask)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn urn(name: &str) -> Urn {
        Urn::new("dev", "p", None, "t:m:R", name)
    }

    #[test]
    fn most_specific_rule_wins_then_the_highest_source() {
        let mut rules = ApprovalRule::parse_key("deletes", "decline", RuleSource::Flag).unwrap();
        rules.extend(ApprovalRule::parse_flag("deletes[**::prod-*]=ask").unwrap());
        rules.extend(
            ApprovalRule::parse_key("deletes[**::prod-db]", "auto", RuleSource::StackConfig)
                .unwrap(),
        );
        rules.extend(ApprovalRule::parse_key("creates", "ask", RuleSource::StackConfig).unwrap());
        rules.extend(ApprovalRule::parse_key("creates", "auto", RuleSource::File).unwrap());
        let a = Approvals::new(rules, ApprovalPolicy::Auto);
        let d = ApprovalKind::Deletes;
        assert_eq!(a.policy(d, &urn("dev-db"), false), ApprovalPolicy::Decline);
        assert_eq!(a.policy(d, &urn("prod-web"), false), ApprovalPolicy::Ask);
        // Both scoped: the flag beats the stack's settings.
        assert_eq!(a.policy(d, &urn("prod-db"), false), ApprovalPolicy::Ask);
        assert_eq!(
            a.policy(ApprovalKind::Creates, &urn("x"), false),
            ApprovalPolicy::Auto,
            "the policy file beats the stack's settings"
        );
        assert_eq!(
            a.policy(ApprovalKind::Updates, &urn("x"), true),
            ApprovalPolicy::Auto
        );
    }

    #[test]
    fn dbr_default_applies_only_to_unnamed_replacements() {
        let a = Approvals::new(Vec::new(), ApprovalPolicy::Ask);
        let r = ApprovalKind::Replacements;
        assert_eq!(a.policy(r, &urn("x"), true), ApprovalPolicy::Ask);
        assert_eq!(a.policy(r, &urn("x"), false), ApprovalPolicy::Auto);
        let a = Approvals::new(
            ApprovalRule::parse_flag("replacements=auto").unwrap(),
            ApprovalPolicy::Ask,
        );
        assert_eq!(a.policy(r, &urn("x"), true), ApprovalPolicy::Auto);
    }

    #[test]
    fn bad_rules_say_what_is_wrong() {
        assert_eq!(
            ApprovalRule::parse_flag("removals=ask").unwrap_err(),
            RuleError::UnknownKind("removals".into())
        );
        assert!(matches!(
            ApprovalRule::parse_flag("deletes=maybe").unwrap_err(),
            RuleError::Policy(UnknownPolicy(m)) if m == "maybe"
        ));
        assert_eq!(
            ApprovalRule::parse_flag("deletes=maybe")
                .unwrap_err()
                .to_string(),
            "unknown approval policy \"maybe\": expected ask, auto or decline"
        );
        assert!(matches!(
            ApprovalRule::parse_flag("deletes[x").unwrap_err(),
            RuleError::Malformed(_)
        ));
        let two = ApprovalRule::parse_flag("deletes,updates=ask").unwrap();
        assert_eq!(two.len(), 2);
    }
}
