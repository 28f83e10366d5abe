//! The crate's layers, checked on its import graph: every `crate::…`, `super::…` and `self::…`
//! path in a source file (its tests left out, inline or in a file of their own) is resolved to
//! the file that defines the module it names. A module's own `mod.rs` declaring or re-exporting
//! its children is not an edge. The files form no cycle; the engine imports nothing above it;
//! `app` (the console's model) imports no `views`, and neither imports what talks to the
//! outside (`rpc`, `state`, `cli`) or the terminal (`console`); the engine's folders, and
//! rpc's, import each other one way only; the file and PostgreSQL state backends do not import
//! each other, nor the codecs they share either of them; and code outside the engine names the
//! items `engine::` re-exports there.

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

/// The modules a file declares under `#[cfg(test)]` (`mod tests;`): test code in files of
/// their own, left out as inline tests are.
fn test_modules(text: &str, module: &Module) -> Vec<Module> {
    text.split("#[cfg(test)]")
        .skip(1)
        .filter_map(|after| {
            let name = after.trim_start().strip_prefix("mod ")?.split(';').next()?;
            let name = name.trim();
            let plain = !name.is_empty() && name.chars().all(|c| c.is_alphanumeric() || c == '_');
            plain.then(|| module.iter().cloned().chain([name.to_string()]).collect())
        })
        .collect()
}

fn graph_of(src: &Path) -> BTreeMap<Module, BTreeSet<Module>> {
    let mut files = modules(src);
    let tests: Vec<Module> = files
        .iter()
        .flat_map(|(module, path)| test_modules(&std::fs::read_to_string(path).unwrap(), module))
        .collect();
    files.retain(|module, _| !tests.iter().any(|t| module.starts_with(t)));
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

#[test]
fn a_test_module_in_a_file_of_its_own_is_left_out_like_inline_tests() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path();
    std::fs::create_dir_all(src.join("a/b")).unwrap();
    std::fs::write(src.join("lib.rs"), "pub mod a;\npub mod c;\n").unwrap();
    std::fs::write(src.join("c.rs"), "pub struct C;\n").unwrap();
    std::fs::write(src.join("a/mod.rs"), "mod b;\n#[cfg(test)]\nmod tests;\n").unwrap();
    std::fs::write(src.join("a/b/mod.rs"), "pub struct B;\n").unwrap();
    std::fs::write(src.join("a/tests.rs"), "use crate::c::C;\n").unwrap();
    let graph = graph_of(src);
    assert!(edges_into(&graph, "a", &["c"]).is_empty(), "{graph:?}");
    std::fs::write(src.join("a/b/mod.rs"), "use crate::c::C;\n").unwrap();
    assert_eq!(edges_into(&graph_of(src), "a", &["c"]), ["a::b → c"]);
}

fn crate_graph() -> BTreeMap<Module, BTreeSet<Module>> {
    let graph = graph_of(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"));
    assert!(graph.len() > 100, "the walk found the crate's files");
    graph
}

/// Edges from a module under `from` to one under none of `allowed` (and not the crate root).
fn edges_leaving(
    graph: &BTreeMap<Module, BTreeSet<Module>>,
    from: &str,
    allowed: &[&str],
) -> Vec<String> {
    graph
        .iter()
        .filter(|(m, _)| m.first().is_some_and(|s| s == from))
        .flat_map(|(m, ts)| {
            ts.iter()
                .filter(|t| !allowed.contains(&t[0].as_str()))
                .map(move |t| format!("{} → {}", m.join("::"), t.join("::")))
        })
        .collect()
}

/// Edges from a module under `from` to one under any of `forbidden`.
fn edges_into(
    graph: &BTreeMap<Module, BTreeSet<Module>>,
    from: &str,
    forbidden: &[&str],
) -> Vec<String> {
    graph
        .iter()
        .filter(|(m, _)| m.first().is_some_and(|s| s == from))
        .flat_map(|(m, ts)| {
            ts.iter()
                .filter(|t| forbidden.contains(&t[0].as_str()))
                .map(move |t| format!("{} → {}", m.join("::"), t.join("::")))
        })
        .collect()
}

/// The graph of `top`'s children (its folders and root files), each standing for everything
/// under it, and its cycles.
fn folder_cycles(graph: &BTreeMap<Module, BTreeSet<Module>>, top: &str) -> Vec<String> {
    let child = |m: &Module| (m.len() > 1 && m[0] == top).then(|| vec![m[1].clone()]);
    let mut folders: BTreeMap<Module, BTreeSet<Module>> = BTreeMap::new();
    for (m, ts) in graph {
        let Some(from) = child(m) else { continue };
        let edges = folders.entry(from.clone()).or_default();
        edges.extend(ts.iter().filter_map(child).filter(|t| *t != from));
    }
    let targets: Vec<Module> = folders.values().flatten().cloned().collect();
    for t in targets {
        folders.entry(t).or_default();
    }
    assert!(folders.len() > 4, "{top} has folders: {:?}", folders.keys());
    cycles(&folders)
        .iter()
        .map(|c| {
            c.iter()
                .map(|m| m.join("::"))
                .collect::<Vec<_>>()
                .join(" ↔ ")
        })
        .collect()
}

#[test]
fn the_engine_imports_nothing_outside_it_but_the_leaf_memory() {
    let graph = crate_graph();
    let leaving = edges_leaving(&graph, "engine", &["engine", "memory"]);
    assert!(
        leaving.is_empty(),
        "the engine imports from above it: {leaving:#?}"
    );
    let memory = &graph[&vec!["memory".to_string()]];
    assert!(memory.is_empty(), "memory is a leaf: {memory:?}");
}

#[test]
fn app_imports_no_views_console_rpc_state_or_cli() {
    let into = edges_into(
        &crate_graph(),
        "app",
        &["views", "console", "rpc", "state", "cli"],
    );
    assert!(
        into.is_empty(),
        "the console's model imports a layer it must not: {into:#?}"
    );
}

#[test]
fn views_import_no_console_rpc_state_or_cli() {
    let into = edges_into(&crate_graph(), "views", &["console", "rpc", "state", "cli"]);
    assert!(
        into.is_empty(),
        "the widgets import a layer they must not: {into:#?}"
    );
}

#[test]
fn the_engines_folders_import_each_other_one_way_only() {
    let found = folder_cycles(&crate_graph(), "engine");
    assert!(
        found.is_empty(),
        "engine folders that import each other: {found:#?}"
    );
}

#[test]
fn rpcs_folders_import_each_other_one_way_only() {
    let found = folder_cycles(&crate_graph(), "rpc");
    assert!(
        found.is_empty(),
        "rpc folders that import each other: {found:#?}"
    );
}

#[test]
fn no_engine_module_is_visible_to_the_crate_but_not_outside_it() {
    let files = modules(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"));
    let crate_private: Vec<String> = files
        .iter()
        .filter(|(m, _)| m.first().is_some_and(|s| s == "engine"))
        .flat_map(|(m, path)| {
            let text = std::fs::read_to_string(path).unwrap();
            text.lines()
                .filter(|l| l.trim_start().starts_with("pub(crate) mod "))
                .map(|l| format!("{}: {}", m.join("::"), l.trim()))
                .collect::<Vec<_>>()
        })
        .collect();
    assert!(
        crate_private.is_empty(),
        "an engine module is either the surface (pub) or the engine's own: {crate_private:#?}"
    );
}

/// The leaves of a use tree (`a::{b, c::{d}}` → `a::b`, `a::c::d`).
fn leaves(tree: &str) -> Vec<String> {
    let tree: String = tree.chars().filter(|c| !c.is_whitespace()).collect();
    let Some(open) = tree.find('{') else {
        return vec![tree];
    };
    let (prefix, group) = (&tree[..open], &tree[open + 1..tree.len() - 1]);
    let mut items = Vec::new();
    let (mut depth, mut start) = (0, 0);
    for (i, c) in group.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                items.push(&group[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    items.push(&group[start..]);
    items
        .into_iter()
        .filter(|i| !i.is_empty())
        .flat_map(|i| leaves(i).into_iter().map(|l| format!("{prefix}{l}")))
        .collect()
}

/// Every path under `engine::` that code (not comments) in `text` names, with groups expanded.
fn engine_paths(text: &str) -> Vec<String> {
    let code: String = text
        .lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n");
    let mut out = Vec::new();
    for anchor in ["crate::engine::", "stepdeck::engine::"] {
        for (at, _) in code.match_indices(anchor) {
            let rest = &code[at + anchor.len()..];
            let end = rest
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == ':'))
                .unwrap_or(rest.len());
            let mut tree = rest[..end].to_string();
            if rest[end..].starts_with('{') {
                let mut depth = 0;
                for (i, c) in rest[end..].char_indices() {
                    depth += match c {
                        '{' => 1,
                        '}' => -1,
                        _ => 0,
                    };
                    if depth == 0 {
                        tree.push_str(&rest[end..end + i + 1]);
                        break;
                    }
                }
            }
            out.extend(leaves(&tree));
        }
    }
    out
}

#[test]
fn outside_the_engine_an_item_engine_reexports_is_named_there() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let surface_text = std::fs::read_to_string(root.join("src/engine/mod.rs")).unwrap();
    let surface: BTreeSet<String> = surface_text
        .split("pub use ")
        .skip(1)
        .flat_map(|u| leaves(&u[..u.find(';').unwrap()]))
        .filter_map(|l| l.rsplit("::").next().map(String::from))
        .collect();
    assert!(
        surface.contains("Urn") && surface.contains("EngineEvent"),
        "{surface:?}"
    );
    let mut files = Vec::new();
    for dir in ["src", "tests", "benches"] {
        let mut dirs = vec![root.join(dir)];
        while let Some(d) = dirs.pop() {
            for entry in std::fs::read_dir(&d).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    if !path.ends_with("src/engine") {
                        dirs.push(path);
                    }
                } else if path.extension().is_some_and(|e| e == "rs") {
                    files.push(path);
                }
            }
        }
    }
    let surface = &surface;
    let reached: Vec<String> = files
        .iter()
        .flat_map(|f| {
            let text = std::fs::read_to_string(f).unwrap();
            let file = f.strip_prefix(root).unwrap().display().to_string();
            engine_paths(&text).into_iter().filter_map(move |p| {
                let segments: Vec<&str> = p.split("::").collect();
                let item = segments
                    .iter()
                    .position(|s| s.starts_with(char::is_uppercase))?;
                (item > 0 && surface.contains(segments[item]))
                    .then(|| format!("{file}: engine::{p}"))
            })
        })
        .collect();
    assert!(
        reached.is_empty(),
        "re-exported at engine:: but named through a module: {reached:#?}"
    );
}

/// Edges from a module under the path `from` (e.g. `state::file`) to one under the path `to`.
fn edges_from_to(graph: &BTreeMap<Module, BTreeSet<Module>>, from: &str, to: &str) -> Vec<String> {
    let under = |m: &Module, path: &str| {
        let path: Vec<&str> = path.split("::").collect();
        m.len() >= path.len() && m.iter().zip(&path).all(|(a, b)| a == b)
    };
    graph
        .iter()
        .filter(|(m, _)| under(m, from))
        .flat_map(|(m, ts)| {
            ts.iter()
                .filter(|t| under(t, to))
                .map(move |t| format!("{} → {}", m.join("::"), t.join("::")))
        })
        .collect()
}

#[test]
fn the_file_and_postgres_backends_do_not_import_each_other() {
    let graph = crate_graph();
    let mut found = edges_from_to(&graph, "state::file", "state::postgres");
    found.extend(edges_from_to(&graph, "state::postgres", "state::file"));
    assert!(
        found.is_empty(),
        "the backends are siblings; what both need lives in state::codec or the state root: {found:#?}"
    );
}

#[test]
fn the_codecs_both_backends_use_import_neither_backend() {
    let graph = crate_graph();
    let mut found = edges_from_to(&graph, "state::codec", "state::file");
    found.extend(edges_from_to(&graph, "state::codec", "state::postgres"));
    assert!(
        found.is_empty(),
        "state::codec is below both backends: {found:#?}"
    );
}
