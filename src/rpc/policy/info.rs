//! What a pack says about itself (`GetAnalyzerInfo`) as the loader needs it: its policies with
//! their config schemas, its initial config, whether it takes config at all; and the config
//! one policy is given (`Configure`, `initialConfig`, a `--policy-pack-config` entry).

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use crate::engine::run::policy::{
    AnalyzerInfo, EnforcementLevel, PolicyInfo, PolicySeverity, PolicyType,
};

/// The config of one policy: a level, properties, either or both.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PolicyConfig {
    pub level: Option<EnforcementLevel>,
    /// `None` when nothing set any (Pulumi's nil map, sent as no properties).
    pub properties: Option<Map<String, Value>>,
}

/// A policy's config schema: JSON schemas by property, and the required properties.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ConfigSchema {
    pub properties: Map<String, Value>,
    pub required: Vec<String>,
}

/// One policy of a pack.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PackPolicy {
    pub name: String,
    pub level: EnforcementLevel,
    pub policy_type: PolicyType,
    pub severity: PolicySeverity,
    /// Only for a pack that supports config (the engine adds `enforcementLevel` to it).
    pub schema: Option<ConfigSchema>,
}

/// A pack as `GetAnalyzerInfo` describes it, its version and description as
/// `PulumiPolicy.yaml` overrides them.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PackInfo {
    pub name: String,
    pub version: String,
    pub description: String,
    pub supports_config: bool,
    /// Sorted by name.
    pub policies: Vec<PackPolicy>,
    pub initial_config: BTreeMap<String, PolicyConfig>,
}

impl PackInfo {
    /// The engine's view, with each policy's level as `config` sets it.
    pub fn for_engine(&self, config: &BTreeMap<String, PolicyConfig>) -> AnalyzerInfo {
        AnalyzerInfo {
            name: self.name.clone(),
            version: self.version.clone(),
            policies: self
                .policies
                .iter()
                .map(|p| PolicyInfo {
                    name: p.name.clone(),
                    level: config.get(&p.name).and_then(|c| c.level).unwrap_or(p.level),
                    policy_type: p.policy_type,
                    severity: p.severity,
                })
                .collect(),
        }
    }
}
