//! Where each member's file goes and the `index.ts` of every module directory: re-exports of
//! the module's resources and functions, its child modules, and the registrations that let
//! the SDK rebuild this package's resources from references (`registerResourceModule`,
//! `registerResourcePackage` for the provider).

use std::collections::{BTreeMap, BTreeSet};

use super::names::{camel, module_dir, pascal, quoted};
use super::package::Package;

/// A resource the module's index registers for rehydration.
struct Registered {
    /// The token's middle part, as the SDK looks modules up (`index/randomPet`).
    raw_module: String,
    token: String,
    class: String,
}

/// The module directories of the SDK and what each exports.
#[derive(Default)]
pub(super) struct Layout {
    /// Module directory → file stems it re-exports.
    files: BTreeMap<String, BTreeSet<String>>,
    registered: BTreeMap<String, Vec<Registered>>,
    root_enums: BTreeSet<String>,
}

impl Layout {
    /// Records a member's file; answers its path relative to the SDK root.
    pub(super) fn add_file(&mut self, module: &str, member: &str) -> String {
        let dir = module_dir(module);
        let stem = camel(member);
        for ancestor in ancestors(&dir) {
            self.files.entry(ancestor).or_default();
        }
        self.files
            .entry(dir.clone())
            .or_default()
            .insert(stem.clone());
        if dir.is_empty() {
            format!("{stem}.ts")
        } else {
            format!("{dir}/{stem}.ts")
        }
    }

    /// Records a resource its module's index registers.
    pub(super) fn register(&mut self, module: &str, token: &str) {
        let raw_module = token.split(':').nth(1).unwrap_or("index").to_string();
        let member = token.rsplit(':').next().unwrap_or(token);
        self.registered
            .entry(module_dir(module))
            .or_default()
            .push(Registered {
                raw_module,
                token: token.to_string(),
                class: pascal(member),
            });
    }

    /// Records an enum of the root module, exported from the package's index.
    pub(super) fn root_enum(&mut self, name: String) {
        self.root_enums.insert(name);
    }

    /// Every module's `index.ts`, by path.
    pub(super) fn index_files(&self, pkg: &Package, has_provider: bool) -> Vec<(String, String)> {
        let mut dirs: BTreeSet<String> = self.files.keys().cloned().collect();
        dirs.insert(String::new());
        dirs.iter()
            .map(|dir| {
                let path = if dir.is_empty() {
                    "index.ts".to_string()
                } else {
                    format!("{dir}/index.ts")
                };
                (
                    path,
                    self.index(pkg, dir, &dirs, has_provider && dir.is_empty()),
                )
            })
            .collect()
    }

    fn index(&self, pkg: &Package, dir: &str, dirs: &BTreeSet<String>, provider: bool) -> String {
        let root = if dir.is_empty() {
            "./".to_string()
        } else {
            "../".repeat(dir.split('/').count())
        };
        let mut out = format!(
            "{}import * as pulumi from \"@pulumi/pulumi\";\nimport * as utilities from \"{root}utilities\";\n\n",
            super::HEADER
        );
        let stems = self.files.get(dir).cloned().unwrap_or_default();
        for stem in &stems {
            out.push_str(&format!("export * from \"./{stem}\";\n"));
        }
        if dir.is_empty() {
            if provider {
                out.push_str("export * from \"./provider\";\n");
            }
            if !self.root_enums.is_empty() {
                let names: Vec<&str> = self.root_enums.iter().map(String::as_str).collect();
                out.push_str(&format!(
                    "export {{ {} }} from \"./types/enums\";\n",
                    names.join(", ")
                ));
            }
        }
        let children: Vec<&str> = dirs
            .iter()
            .filter(|d| !d.is_empty() && parent(d) == dir)
            .map(|d| d.rsplit('/').next().unwrap_or(d))
            .collect();
        let mut exported: Vec<&str> = children.clone();
        for child in &children {
            out.push_str(&format!("import * as {child} from \"./{child}\";\n"));
        }
        if dir.is_empty() {
            out.push_str("import * as types from \"./types\";\n");
            exported.push("types");
        }
        if !exported.is_empty() {
            out.push_str(&format!("\nexport {{ {} }};\n", exported.join(", ")));
        }

        let registered = self.registered.get(dir).map(Vec::as_slice).unwrap_or(&[]);
        if !registered.is_empty() {
            out.push('\n');
            for r in registered {
                let stem = camel(r.token.rsplit(':').next().unwrap_or(&r.class));
                out.push_str(&format!("import {{ {} }} from \"./{stem}\";\n", r.class));
            }
            out.push_str("\nconst _module = {\n    version: utilities.getVersion(),\n    construct: (name: string, type: string, urn: string): pulumi.Resource => {\n        switch (type) {\n");
            for r in registered {
                out.push_str(&format!(
                    "            case {}:\n                return new {}(name, <any>undefined, {{ urn }});\n",
                    quoted(&r.token),
                    r.class
                ));
            }
            out.push_str("            default:\n                throw new Error(`unknown resource type ${type}`);\n        }\n    },\n};\n");
            let raw: BTreeSet<&str> = registered.iter().map(|r| r.raw_module.as_str()).collect();
            for m in raw {
                out.push_str(&format!(
                    "pulumi.runtime.registerResourceModule({}, {}, _module);\n",
                    quoted(&pkg.name),
                    quoted(m)
                ));
            }
        }
        if provider {
            out.push_str(&format!(
                "\nimport {{ Provider }} from \"./provider\";\n\npulumi.runtime.registerResourcePackage({name}, {{\n    version: utilities.getVersion(),\n    constructProvider: (name: string, type: string, urn: string): pulumi.ProviderResource => {{\n        if (type !== {ptype}) {{\n            throw new Error(`unknown provider type ${{type}}`);\n        }}\n        return new Provider(name, <any>undefined, {{ urn }});\n    }},\n}});\n",
                name = quoted(&pkg.name),
                ptype = quoted(&format!("pulumi:providers:{}", pkg.name)),
            ));
        }
        out
    }
}

/// `a/b/c`, `a/b`, `a` (and the root `""`), for a module directory.
fn ancestors(dir: &str) -> Vec<String> {
    let mut out = vec![String::new()];
    let parts: Vec<&str> = dir.split('/').filter(|p| !p.is_empty()).collect();
    for i in 1..parts.len() {
        out.push(parts[..i].join("/"));
    }
    out
}

fn parent(dir: &str) -> &str {
    dir.rsplit_once('/').map_or("", |(p, _)| p)
}
