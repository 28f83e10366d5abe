//! `stack graph`: the dependency graph as Graphviz DOT (Pulumi's shape) or Mermaid.

use std::collections::HashMap;
use std::fmt::Write;

use stepdeck::engine::Snapshot;

/// An edge between two resources of a snapshot, by position.
enum Edge {
    /// `from` depends on `to`, through these input properties.
    Dependency {
        from: usize,
        to: usize,
        properties: Vec<String>,
    },
    /// `from` is a child of `to`.
    Parent { from: usize, to: usize },
}

fn edges(snap: &Snapshot) -> Vec<Edge> {
    let ids: HashMap<&str, usize> = snap
        .resources
        .iter()
        .enumerate()
        .map(|(i, r)| (r.urn.as_str(), i))
        .collect();
    let mut out = Vec::new();
    for (from, r) in snap.resources.iter().enumerate() {
        for d in &r.dependencies {
            if let Some(&to) = ids.get(d.as_str()) {
                let properties = r
                    .property_dependencies
                    .iter()
                    .filter(|(_, urns)| urns.contains(d))
                    .map(|(k, _)| k.clone())
                    .collect();
                out.push(Edge::Dependency {
                    from,
                    to,
                    properties,
                });
            }
        }
        if let Some(&to) = r.parent.as_ref().and_then(|p| ids.get(p.as_str())) {
            out.push(Edge::Parent { from, to });
        }
    }
    out
}

/// `strict digraph` with one node per resource, dependency edges (labelled with the properties
/// that carry them) and parent edges, coloured as Pulumi does.
pub(super) fn dot(snap: &Snapshot) -> String {
    let mut out = String::from("strict digraph {\n");
    for (i, r) in snap.resources.iter().enumerate() {
        let _ = writeln!(out, "    Resource{i} [label=\"{}\"];", r.urn);
    }
    for e in edges(snap) {
        let _ = match e {
            Edge::Dependency {
                from,
                to,
                properties,
            } => writeln!(
                out,
                "    Resource{from} -> Resource{to} [color = \"#246C60\", label = \"{}\"];",
                properties.join(", ")
            ),
            Edge::Parent { from, to } => writeln!(
                out,
                "    Resource{from} -> Resource{to} [color = \"#AA6639\"];"
            ),
        };
    }
    out.push_str("}\n");
    out
}

/// A Mermaid flowchart: solid arrows for dependencies, dotted for parents.
pub(super) fn mermaid(snap: &Snapshot) -> String {
    let mut out = String::from("graph TD\n");
    for (i, r) in snap.resources.iter().enumerate() {
        let _ = writeln!(out, "    r{i}[\"{} ({})\"]", r.urn.name(), r.type_);
    }
    for e in edges(snap) {
        let _ = match e {
            Edge::Dependency { from, to, .. } => writeln!(out, "    r{from} --> r{to}"),
            Edge::Parent { from, to } => writeln!(out, "    r{from} -.-> r{to}"),
        };
    }
    out
}
