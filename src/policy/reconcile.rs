//! The config a pack is configured with (Pulumi's `ReconcilePolicyPackConfig`): every policy
//! starts at its own level with its schema's defaults, then the pack's `initialConfig` and then
//! the config file apply, each layer's `all` level first and its named policies after; the
//! result is checked against each policy's schema.

use std::collections::BTreeMap;

use super::schema::validate;
use crate::rpc::policy::info::{PackPolicy, PolicyConfig};

/// Applies one layer of config over `result`.
fn apply(result: &mut BTreeMap<String, PolicyConfig>, layer: &BTreeMap<String, PolicyConfig>) {
    if let Some(level) = layer.get("all").and_then(|c| c.level) {
        for c in result.values_mut() {
            c.level = Some(level);
        }
    }
    for (policy, given) in layer {
        let entry = result.entry(policy.clone()).or_default();
        if let Some(level) = given.level {
            entry.level = Some(level);
        }
        if let Some(props) = given.properties.as_ref().filter(|p| !p.is_empty()) {
            entry
                .properties
                .get_or_insert_with(serde_json::Map::new)
                .extend(props.clone());
        }
    }
}

/// Every policy's config after defaults, `initial` and `file`; or the schema errors, each
/// `<policy>: <message>`.
pub fn reconcile(
    policies: &[PackPolicy],
    initial: &BTreeMap<String, PolicyConfig>,
    file: &BTreeMap<String, PolicyConfig>,
) -> Result<BTreeMap<String, PolicyConfig>, Vec<String>> {
    let mut result: BTreeMap<String, PolicyConfig> = policies
        .iter()
        .map(|p| {
            let defaults: serde_json::Map<String, serde_json::Value> = p
                .schema
                .iter()
                .flat_map(|s| &s.properties)
                .filter_map(|(k, v)| Some((k.clone(), v.get("default")?.clone())))
                .collect();
            let config = PolicyConfig {
                level: Some(p.level),
                properties: (!defaults.is_empty()).then_some(defaults),
            };
            (p.name.clone(), config)
        })
        .collect();
    apply(&mut result, initial);
    apply(&mut result, file);
    let empty = serde_json::Map::new();
    let errors: Vec<String> = policies
        .iter()
        .filter_map(|p| Some((p, p.schema.as_ref()?)))
        .flat_map(|(p, schema)| {
            let props = result
                .get(&p.name)
                .and_then(|c| c.properties.as_ref())
                .unwrap_or(&empty);
            validate(schema, props)
                .into_iter()
                .map(move |e| format!("{}: {e}", p.name))
        })
        .collect();
    if errors.is_empty() {
        Ok(result)
    } else {
        Err(errors)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::run::policy::EnforcementLevel;
    use crate::rpc::policy::info::ConfigSchema;
    use serde_json::json;

    fn policy(
        name: &str,
        level: EnforcementLevel,
        schema: Option<serde_json::Value>,
    ) -> PackPolicy {
        PackPolicy {
            name: name.into(),
            level,
            schema: schema.map(|s| ConfigSchema {
                properties: s.as_object().unwrap().clone(),
                required: vec![],
            }),
            ..PackPolicy::default()
        }
    }

    fn level(l: EnforcementLevel) -> PolicyConfig {
        PolicyConfig {
            level: Some(l),
            properties: None,
        }
    }

    #[test]
    fn defaults_then_initial_config_then_the_file_with_all_first() {
        use EnforcementLevel::*;
        let policies = [
            policy(
                "a",
                Advisory,
                Some(json!({"max": {"type": "integer", "default": 2}})),
            ),
            policy("b", Mandatory, None),
        ];
        let initial: BTreeMap<_, _> = [("b".to_string(), level(Advisory))].into();
        let file: BTreeMap<_, _> = [
            ("all".to_string(), level(Disabled)),
            ("a".to_string(), level(Mandatory)),
        ]
        .into();
        let c = reconcile(&policies, &initial, &file).unwrap();
        assert_eq!(c["a"].level, Some(Mandatory));
        assert_eq!(c["a"].properties.as_ref().unwrap()["max"], 2);
        assert_eq!(c["b"].level, Some(Disabled));
        assert_eq!(
            c["all"].level,
            Some(Disabled),
            "all is sent as a policy too"
        );
    }

    #[test]
    fn a_value_the_schema_refuses_names_the_policy() {
        let policies = [policy(
            "a",
            EnforcementLevel::Advisory,
            Some(json!({"max": {"type": "integer"}})),
        )];
        let file: BTreeMap<_, _> = [(
            "a".to_string(),
            PolicyConfig {
                level: None,
                properties: Some(json!({"max": "many"}).as_object().unwrap().clone()),
            },
        )]
        .into();
        let e = reconcile(&policies, &BTreeMap::new(), &file).unwrap_err();
        assert_eq!(
            e,
            ["a: max: Invalid type. Expected: integer, given: string"]
        );
    }
}
