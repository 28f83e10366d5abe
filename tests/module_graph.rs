//! The crate's files form no import cycle: every `crate::…`, `super::…` and `self::…` path in a
//! source file (its tests left out) is resolved to the file that defines the module it names,
//! and the graph of those edges must have no strongly connected component of more than one
//! file. A module's own `mod.rs` declaring or re-exporting its children is not an edge.

#![allow(clippy::unwrap_used, clippy::panic)]

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

type Module = Vec<String>;

/// Every source file under `src`, by the module path it defines.
fn modules(src: &Path) -> BTreeMap<Module, PathBuf> {
    let mut out = BTreeMap::new();
    let mut dirs = vec![src.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
                continue;
            }
            if path.extension().is_none_or(|e| e != "rs") {
                continue;
            }
            let rel = path.strip_prefix(src).unwrap().with_extension("");
            let mut parts: Module = rel.iter().map(|p| p.to_string_lossy().into()).collect();
            if parts.last().is_some_and(|p| p == "mod") {
                parts.pop();
            }
            if parts == ["lib"] || parts == ["main"] {
                parts.clear();
            }
            out.insert(parts, path);
        }
    }
    out
}

/// The longest prefix of `path` that is a module file.
fn resolve(files: &BTreeMap<Module, PathBuf>, path: &[String]) -> Option<Module> {
    (1..=path.len())
        .rev()
        .map(|n| path[..n].to_vec())
        .find(|m| files.contains_key(m))
}

/// The paths a file's code names: `crate::a::b`, `super::x`, and each item of a `{…}` group.
fn named_paths(text: &str, module: &Module) -> Vec<Module> {
    let code = text.split("#[cfg(test)]").next().unwrap_or(text);
    let mut out = Vec::new();
    let bytes = code.as_bytes();
    for anchor in ["crate::", "super::", "self::"] {
        let mut from = 0;
        while let Some(at) = code[from..].find(anchor).map(|i| i + from) {
            from = at + anchor.len();
            if at > 0 && (bytes[at - 1].is_ascii_alphanumeric() || bytes[at - 1] == b'_') {
                continue;
            }
            let mut base: Module = match anchor {
                "crate::" => Vec::new(),
                "super::" => module[..module.len().saturating_sub(1)].to_vec(),
                _ => module.clone(),
            };
            let rest = &code[from..];
            let end = rest
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == ':'))
                .unwrap_or(rest.len());
            let mut segments: Vec<&str> =
                rest[..end].split("::").filter(|s| !s.is_empty()).collect();
            while segments.first() == Some(&"super") {
                base.pop();
                segments.remove(0);
            }
            let prefix: Module = base
                .iter()
                .cloned()
                .chain(segments.iter().map(|s| s.to_string()))
                .collect();
            out.push(prefix.clone());
            if rest[end..].starts_with('{') {
                let group = &rest[end + 1..rest[end..].find('}').map_or(rest.len(), |i| end + i)];
                for item in group.split(',') {
                    let item = item.trim().split(" as ").next().unwrap_or("");
                    let mut path = prefix.clone();
                    path.extend(item.split("::").filter(|s| !s.is_empty()).map(String::from));
                    out.push(path);
                }
            }
        }
    }
    out
}

/// Tarjan's strongly connected components of more than one node.
fn cycles(graph: &BTreeMap<Module, BTreeSet<Module>>) -> Vec<Vec<Module>> {
    struct Walk<'a> {
        graph: &'a BTreeMap<Module, BTreeSet<Module>>,
        index: BTreeMap<Module, usize>,
        low: BTreeMap<Module, usize>,
        stack: Vec<Module>,
        found: Vec<Vec<Module>>,
    }
    impl Walk<'_> {
        fn visit(&mut self, v: &Module) {
            let i = self.index.len();
            self.index.insert(v.clone(), i);
            self.low.insert(v.clone(), i);
            self.stack.push(v.clone());
            for w in &self.graph[v] {
                if !self.index.contains_key(w) {
                    self.visit(w);
                    let lw = self.low[w];
                    let lv = self.low.get_mut(v).unwrap();
                    *lv = (*lv).min(lw);
                } else if self.stack.contains(w) {
                    let iw = self.index[w];
                    let lv = self.low.get_mut(v).unwrap();
                    *lv = (*lv).min(iw);
                }
            }
            if self.low[v] == self.index[v] {
                let mut component = Vec::new();
                while let Some(w) = self.stack.pop() {
                    let done = &w == v;
                    component.push(w);
                    if done {
                        break;
                    }
                }
                if component.len() > 1 {
                    self.found.push(component);
                }
            }
        }
    }
    let mut walk = Walk {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        found: Vec::new(),
    };
    for v in graph.keys() {
        if !walk.index.contains_key(v) {
            walk.visit(v);
        }
    }
    walk.found
}

fn graph_of(src: &Path) -> BTreeMap<Module, BTreeSet<Module>> {
    let files = modules(src);
    files
        .iter()
        .map(|(module, path)| {
            let text = std::fs::read_to_string(path).unwrap();
            let edges = named_paths(&text, module)
                .iter()
                .filter_map(|p| resolve(&files, p))
                .filter(|t| t != module && !t.is_empty() && !t.starts_with(module))
                .collect();
            (module.clone(), edges)
        })
        .collect()
}

#[test]
fn no_two_source_files_import_each_other_directly_or_through_others() {
    let graph = graph_of(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"));
    assert!(graph.len() > 100, "the walk found the crate's files");
    let found: Vec<String> = cycles(&graph)
        .iter()
        .map(|c| {
            c.iter()
                .map(|m| m.join("::"))
                .collect::<Vec<_>>()
                .join(" ↔ ")
        })
        .collect();
    assert!(found.is_empty(), "import cycles between files: {found:#?}");
}

#[test]
fn the_check_sees_a_cycle_through_a_use_group() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path();
    std::fs::create_dir(src.join("a")).unwrap();
    std::fs::write(src.join("lib.rs"), "pub mod a;\n").unwrap();
    std::fs::write(src.join("a/mod.rs"), "mod x;\nmod y;\n").unwrap();
    std::fs::write(src.join("a/x.rs"), "use super::y::Y;\npub struct X;\n").unwrap();
    std::fs::write(src.join("a/y.rs"), "use crate::a::{x::X};\npub struct Y;\n").unwrap();
    let found = cycles(&graph_of(src));
    assert_eq!(found.len(), 1, "{found:?}");
    std::fs::write(src.join("a/y.rs"), "pub struct Y;\n").unwrap();
    assert!(cycles(&graph_of(src)).is_empty());
}
