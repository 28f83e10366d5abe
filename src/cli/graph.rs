//! `stack graph`: the dependency graph as Graphviz DOT (Pulumi's shape) or Mermaid.

use std::collections::HashMap;
use std::fmt::Write;

use stepdeck::engine::Snapshot;

/// `strict digraph` with one node per resource, dependency edges (labelled with the properties
/// that carry them) and parent edges, coloured as Pulumi does.
pub fn dot(snap: &Snapshot) -> String {
    let ids: HashMap<&str, usize> = snap
        .resources
        .iter()
        .enumerate()
        .map(|(i, r)| (r.urn.as_str(), i))
        .collect();
    let mut out = String::from("strict digraph {\n");
    for (i, r) in snap.resources.iter().enumerate() {
        let _ = writeln!(out, "    Resource{i} [label=\"{}\"];", r.urn);
    }
    for (i, r) in snap.resources.iter().enumerate() {
        for d in &r.dependencies {
            if let Some(j) = ids.get(d.as_str()) {
                let props: Vec<&str> = r
                    .property_dependencies
                    .iter()
                    .filter(|(_, urns)| urns.contains(d))
                    .map(|(k, _)| k.as_str())
                    .collect();
                let _ = writeln!(
                    out,
                    "    Resource{i} -> Resource{j} [color = \"#246C60\", label = \"{}\"];",
                    props.join(", ")
                );
            }
        }
        if let Some(j) = r.parent.as_ref().and_then(|p| ids.get(p.as_str())) {
            let _ = writeln!(out, "    Resource{i} -> Resource{j} [color = \"#AA6639\"];");
        }
    }
    out.push_str("}\n");
    out
}

/// A Mermaid flowchart: solid arrows for dependencies, dotted for parents.
pub fn mermaid(snap: &Snapshot) -> String {
    let ids: HashMap<&str, usize> = snap
        .resources
        .iter()
        .enumerate()
        .map(|(i, r)| (r.urn.as_str(), i))
        .collect();
    let mut out = String::from("graph TD\n");
    for (i, r) in snap.resources.iter().enumerate() {
        let _ = writeln!(out, "    r{i}[\"{} ({})\"]", r.urn.name(), r.type_);
    }
    for (i, r) in snap.resources.iter().enumerate() {
        for d in &r.dependencies {
            if let Some(j) = ids.get(d.as_str()) {
                let _ = writeln!(out, "    r{i} --> r{j}");
            }
        }
        if let Some(j) = r.parent.as_ref().and_then(|p| ids.get(p.as_str())) {
            let _ = writeln!(out, "    r{i} -.-> r{j}");
        }
    }
    out
}
