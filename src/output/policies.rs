//! The `Policies:` section of the plain display, in the layout of Pulumi's progress display:
//! one line per pack (`✅`, `⚠️` advisory only, `❌` a mandatory violation) with the local paths
//! it was loaded from, then under it the remediations (one line per policy with its count) and
//! the violations, sorted by level, severity, policy and resource, each followed by its message.

use std::collections::BTreeMap;

use crate::engine::Urn;
use crate::engine::run::events::{PolicyRemediation, PolicyViolation};
use crate::engine::run::policy::{EnforcementLevel, PolicySeverity};

/// Where the remediate level sorts among violations (Pulumi's `enforcementRank`).
fn level_rank(l: EnforcementLevel) -> u8 {
    match l {
        EnforcementLevel::Remediate => 0,
        EnforcementLevel::Mandatory => 1,
        EnforcementLevel::Advisory => 2,
        EnforcementLevel::Disabled => 3,
    }
}

/// Critical first, unspecified last (Pulumi's `severityRank`).
fn severity_rank(s: PolicySeverity) -> u8 {
    match s {
        PolicySeverity::Critical => 0,
        PolicySeverity::High => 1,
        PolicySeverity::Medium => 2,
        PolicySeverity::Low => 3,
        PolicySeverity::Unspecified => 4,
    }
}

/// A type as Pulumi displays it: `aws:s3/bucket:Bucket` as `aws:s3:Bucket` (the module's last
/// segment left out when it only repeats the type's name).
pub fn display_type(ty: &str) -> String {
    let parts: Vec<&str> = ty.split(':').collect();
    let [pkg, module, name] = parts[..] else {
        return ty.to_string();
    };
    let Some((path, file)) = module.rsplit_once('/') else {
        return ty.to_string();
    };
    let mut chars = name.chars();
    let Some(first) = chars.next() else {
        return ty.to_string();
    };
    let camel: String = first.to_lowercase().chain(chars).collect();
    if file != camel {
        return ty.to_string();
    }
    format!("{pkg}:{path}:{name}")
}

/// What the packs reported, gathered for the section.
#[derive(Default)]
pub struct PolicySection {
    violations: Vec<PolicyViolation>,
    remediations: Vec<PolicyRemediation>,
    /// `--show-policy-remediations`: one line per remediation rather than a count per policy.
    detailed: bool,
}

/// One pack's line and what goes under it.
#[derive(Default)]
struct Pack {
    paths: Vec<String>,
    violations: Vec<PolicyViolation>,
    /// In arrival order, the order they rewrote the inputs in.
    remediations: Vec<PolicyRemediation>,
}

/// The properties a remediation changed as Pulumi's short diff writes them: added, deleted
/// and updated keys, each group after its sign (`+a,b-c~d`); empty when nothing changed.
fn short_diff(r: &PolicyRemediation) -> String {
    let (before, after) = (&r.before, &r.after);
    let keys = |pick: &dyn Fn(&String) -> bool, from: &crate::engine::PropertyMap| {
        from.keys().filter(|k| pick(k)).cloned().collect::<Vec<_>>()
    };
    let groups = [
        ('+', keys(&|k| !before.contains_key(k), after)),
        ('-', keys(&|k| !after.contains_key(k), before)),
        (
            '~',
            keys(
                &|k| after.get(k).is_some_and(|v| Some(v) != before.get(k)),
                before,
            ),
        ),
    ];
    groups
        .iter()
        .filter(|(_, keys)| !keys.is_empty())
        .map(|(sign, keys)| format!("{sign}{}", keys.join(",")))
        .collect()
}

fn resource_clause(urn: &Urn) -> String {
    format!("  ({}: {})", display_type(urn.type_()), urn.name())
}

impl PolicySection {
    /// A section that lists each remediation (`--show-policy-remediations`) or counts them.
    pub fn detailed(detailed: bool) -> PolicySection {
        PolicySection {
            detailed,
            ..PolicySection::default()
        }
    }

    pub fn violation(&mut self, v: &PolicyViolation) {
        self.violations.push(v.clone());
    }

    pub fn remediation(&mut self, r: &PolicyRemediation) {
        self.remediations.push(r.clone());
    }

    /// The section for the packs the summary lists (event name to version), and whether a
    /// pack showed a mandatory violation (the display then ends without its summary). Empty
    /// when no pack ran.
    pub fn render(&mut self, packs: &BTreeMap<String, String>) -> (String, bool) {
        if packs.is_empty() {
            return (String::new(), false);
        }
        let mut by_key: BTreeMap<String, Pack> = BTreeMap::new();
        for (name, version) in packs {
            let mut parts = name.splitn(3, '|');
            let (base, local, path) = (parts.next(), parts.next(), parts.next());
            match (base, local, path) {
                (Some(base), Some("local"), Some(path)) => by_key
                    .entry(format!("{base}@v{version}"))
                    .or_default()
                    .paths
                    .push(path.to_string()),
                _ => {
                    by_key.entry(format!("{name}@v{version}")).or_default();
                }
            }
        }
        for v in std::mem::take(&mut self.violations) {
            let key = format!("{}@v{}", v.pack_name, v.pack_version);
            by_key.entry(key).or_default().violations.push(v);
        }
        for r in std::mem::take(&mut self.remediations) {
            let key = format!("{}@v{}", r.pack_name, r.pack_version);
            by_key.entry(key).or_default().remediations.push(r);
        }
        let mut out = String::from("Policies:\n");
        let mut mandatory = false;
        for (key, mut pack) in by_key {
            let mark = if pack
                .violations
                .iter()
                .any(|v| v.level == EnforcementLevel::Mandatory)
            {
                mandatory = true;
                "❌"
            } else if pack.violations.is_empty() {
                "✅"
            } else {
                "⚠️"
            };
            pack.paths.sort();
            let local = if pack.paths.is_empty() {
                String::new()
            } else {
                format!(" (local: {})", pack.paths.join("; "))
            };
            out.push_str(&format!("    {mark} {key}{local}\n"));
            if self.detailed {
                for r in &pack.remediations {
                    let diff = short_diff(r);
                    if !diff.is_empty() {
                        out.push_str(&format!(
                            "        - [remediate]  {}{} [{diff}]\n",
                            r.policy_name,
                            resource_clause(&r.urn)
                        ));
                    }
                }
            } else {
                let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
                for r in &pack.remediations {
                    *counts.entry(r.policy_name.as_str()).or_default() += 1;
                }
                for (policy, n) in counts {
                    let noun = if n == 1 { "resource" } else { "resources" };
                    out.push_str(&format!("        - [remediate]  {policy}  ({n} {noun})\n"));
                }
            }
            pack.violations.sort_by(|a, b| {
                (
                    level_rank(a.level),
                    severity_rank(a.severity),
                    &a.policy_name,
                    &a.urn,
                )
                    .cmp(&(
                        level_rank(b.level),
                        severity_rank(b.severity),
                        &b.policy_name,
                        &b.urn,
                    ))
            });
            for v in &pack.violations {
                let severity = match v.severity {
                    PolicySeverity::Unspecified => String::new(),
                    s => format!(" [severity: {}]", s.as_str()),
                };
                out.push_str(&format!(
                    "        - [{}]{severity}  {}{}\n",
                    v.level.as_str(),
                    v.policy_name,
                    resource_clause(&v.urn)
                ));
                for line in v.message.trim_end_matches('\n').split('\n') {
                    out.push_str(&format!("          {line}\n"));
                }
            }
        }
        out.push('\n');
        (out, mandatory)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn types_display_as_pulumi_displays_them() {
        assert_eq!(display_type("aws:s3/bucket:Bucket"), "aws:s3:Bucket");
        assert_eq!(
            display_type("random:index/randomString:RandomString"),
            "random:index:RandomString"
        );
        assert_eq!(display_type("sim:index:Resource"), "sim:index:Resource");
        assert_eq!(display_type("pulumi:pulumi:Stack"), "pulumi:pulumi:Stack");
        assert_eq!(display_type("a:b/c:D"), "a:b/c:D");
    }

    #[test]
    fn a_remediation_s_short_diff_lists_added_deleted_and_updated_keys_as_pulumi_s() {
        use crate::engine::{PropertyMap, PropertyValue};
        let props = |pairs: &[(&str, &str)]| -> PropertyMap {
            pairs
                .iter()
                .map(|(k, v)| (k.to_string(), PropertyValue::String(v.to_string())))
                .collect()
        };
        let remediation = |before, after| PolicyRemediation {
            urn: Urn::new("dev", "p", None, "pkgA:m:typA", "resA"),
            policy_name: "fix".into(),
            pack_name: "pack".into(),
            pack_version: "1.0.0".into(),
            before,
            after,
        };
        let r = remediation(
            props(&[("a", "1"), ("b", "1"), ("gone", "x")]),
            props(&[("a", "2"), ("b", "1"), ("c", "3"), ("d", "4")]),
        );
        assert_eq!(short_diff(&r), "+c,d-gone~a");
        assert_eq!(
            short_diff(&remediation(props(&[("a", "1")]), props(&[("a", "1")]))),
            ""
        );
    }

    fn violation(
        policy: &str,
        level: EnforcementLevel,
        severity: PolicySeverity,
    ) -> PolicyViolation {
        PolicyViolation {
            urn: Urn::new("dev", "p", None, "pkgA:m:typA", "resA"),
            policy_name: policy.into(),
            pack_name: "analyzerA".into(),
            pack_version: "1.0.0".into(),
            message: "a policy failed\n".into(),
            level,
            severity,
        }
    }

    /// Pulumi's golden `TestSimpleAnalyzeResourceMultipleViolations/progress.stdout.txt`,
    /// without its colours.
    #[test]
    fn violations_sort_by_level_then_severity_as_pulumis_golden_output() {
        use EnforcementLevel::{Advisory, Mandatory};
        use PolicySeverity::*;
        let mut s = PolicySection::default();
        for (p, l, sev) in [
            ("always-fails-advisory-low", Advisory, Low),
            ("always-fails-unspecified", Mandatory, Unspecified),
            ("always-fails-critical", Mandatory, Critical),
            ("always-fails-advisory-critical", Advisory, Critical),
            ("always-fails-high", Mandatory, High),
        ] {
            s.violation(&violation(p, l, sev));
        }
        let packs = [("analyzerA".to_string(), "1.0.0".to_string())].into();
        let (text, mandatory) = s.render(&packs);
        assert!(mandatory);
        assert_eq!(
            text,
            "Policies:\n    ❌ analyzerA@v1.0.0\n\
             \x20       - [mandatory] [severity: critical]  always-fails-critical  (pkgA:m:typA: resA)\n\
             \x20         a policy failed\n\
             \x20       - [mandatory] [severity: high]  always-fails-high  (pkgA:m:typA: resA)\n\
             \x20         a policy failed\n\
             \x20       - [mandatory]  always-fails-unspecified  (pkgA:m:typA: resA)\n\
             \x20         a policy failed\n\
             \x20       - [advisory] [severity: critical]  always-fails-advisory-critical  (pkgA:m:typA: resA)\n\
             \x20         a policy failed\n\
             \x20       - [advisory] [severity: low]  always-fails-advisory-low  (pkgA:m:typA: resA)\n\
             \x20         a policy failed\n\n"
        );
    }

    #[test]
    fn a_clean_pack_and_a_remediating_one_show_their_local_paths() {
        let mut s = PolicySection::default();
        for _ in 0..2 {
            s.remediation(&PolicyRemediation {
                urn: Urn::new("dev", "p", None, "pkgA:m:typA", "resA"),
                policy_name: "fix".into(),
                pack_name: "b".into(),
                pack_version: "2.0.0".into(),
                before: Default::default(),
                after: Default::default(),
            });
        }
        let packs = [
            ("a|local|policy".to_string(), "1.0.0".to_string()),
            ("b|local|../other".to_string(), "2.0.0".to_string()),
        ]
        .into();
        let (text, mandatory) = s.render(&packs);
        assert!(!mandatory);
        assert_eq!(
            text,
            "Policies:\n    ✅ a@v1.0.0 (local: policy)\n    ✅ b@v2.0.0 (local: ../other)\n        - [remediate]  fix  (2 resources)\n\n"
        );
    }
}
