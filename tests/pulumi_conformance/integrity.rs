//! Pulumi's snapshot integrity rules (`Snapshot.VerifyIntegrity`), checked on an exported
//! state independently of stepdeck's own check: ProgramTest runs it after every deployment.

use std::collections::HashSet;

use serde_json::Value;

/// Checks that every parent, provider, dependency and deletedWith target appears earlier in
/// the state, and that only resources marked for deletion share a URN with another.
pub(crate) fn verify_integrity(state: &Value) -> Result<(), String> {
    let resources = state["deployment"]["resources"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let mut seen: HashSet<String> = HashSet::new();
    let mut live: HashSet<String> = HashSet::new();
    let mut providers: HashSet<String> = HashSet::new();
    for r in &resources {
        let urn = r["urn"]
            .as_str()
            .ok_or("a resource without a URN")?
            .to_string();
        if r["type"].as_str().unwrap_or("").is_empty() {
            return Err(format!("{urn} has no type"));
        }
        if let Some(p) = r["provider"].as_str().filter(|p| !p.is_empty())
            && !providers.contains(p)
        {
            return Err(format!("{urn} refers to provider {p}, unknown before it"));
        }
        let earlier = |field: &str, target: &str| -> Result<(), String> {
            if seen.contains(target) {
                Ok(())
            } else {
                Err(format!("{urn}'s {field} {target} does not come before it"))
            }
        };
        if let Some(parent) = r["parent"].as_str().filter(|p| !p.is_empty()) {
            earlier("parent", parent)?;
        }
        for d in r["dependencies"].as_array().into_iter().flatten() {
            earlier("dependency", d.as_str().unwrap_or(""))?;
        }
        for deps in r["propertyDependencies"]
            .as_object()
            .into_iter()
            .flat_map(|m| m.values())
        {
            for d in deps.as_array().into_iter().flatten() {
                earlier("property dependency", d.as_str().unwrap_or(""))?;
            }
        }
        if let Some(target) = r["deletedWith"].as_str().filter(|p| !p.is_empty()) {
            earlier("deletedWith", target)?;
        }
        if r["delete"] != true && !live.insert(urn.clone()) {
            return Err(format!(
                "{urn} appears twice without being marked for deletion"
            ));
        }
        if r["type"]
            .as_str()
            .unwrap_or("")
            .starts_with("pulumi:providers:")
        {
            let id = r["id"].as_str().unwrap_or("");
            providers.insert(format!("{urn}::{id}"));
        }
        seen.insert(urn);
    }
    Ok(())
}
