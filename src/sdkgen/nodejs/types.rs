//! Schema types as TypeScript types: `pulumi.Input<…>` on the input side, plain values on the
//! output side, object types from `types/input.ts` and `types/output.ts`, enums, assets and
//! archives, and resources of this package or of another one (whose SDK is imported).

use std::cell::RefCell;
use std::collections::BTreeMap;

use serde_json::Value;

use super::names::{ModuleFormat, camel, doc, member, module_dir, module_path, pascal, to_root};
use super::package::Package;

/// Which side of a resource a type is written for.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Side {
    Input,
    Output,
}

/// Types written from one file of the SDK: relative paths start from its module, and the
/// other packages' SDKs it names are imported at its top.
pub(super) struct TypeWriter<'p, 'a> {
    pub(super) pkg: &'p Package<'a>,
    root: String,
    /// Alias → npm package of the other packages named.
    foreign: RefCell<BTreeMap<String, String>>,
}

impl<'p, 'a> TypeWriter<'p, 'a> {
    /// A writer for a file in `module`'s directory (`depth` more directories below it).
    pub(super) fn new(pkg: &'p Package<'a>, module: &str, depth: usize) -> Self {
        let mut root = to_root(module);
        if depth > 0 {
            root = format!(
                "{}{}",
                if root == "./" { "" } else { &root },
                "../".repeat(depth)
            );
        }
        TypeWriter {
            pkg,
            root,
            foreign: RefCell::new(BTreeMap::new()),
        }
    }

    /// The imports this file needs: the Pulumi SDK, the package's own types and utilities,
    /// and the other packages its types named.
    pub(super) fn imports(&self) -> String {
        let r = &self.root;
        let mut out = String::from("import * as pulumi from \"@pulumi/pulumi\";\n");
        for (alias, npm) in self.foreign.borrow().iter() {
            out.push_str(&format!("import * as {alias} from \"{npm}\";\n"));
        }
        out.push_str(&format!(
            "import * as inputs from \"{r}types/input\";\nimport * as outputs from \"{r}types/output\";\nimport * as enums from \"{r}types/enums\";\nimport * as utilities from \"{r}utilities\";\n"
        ));
        out
    }

    /// An interface's members over `props`: each documented, `?` unless required, `readonly`
    /// when asked (results and output types), typed for `side`.
    pub(super) fn members(
        &self,
        props: &serde_json::Map<String, Value>,
        required: &[String],
        side: Side,
        readonly: bool,
    ) -> String {
        let mut out = String::new();
        for (k, prop) in props {
            out.push_str(&doc(
                prop.get("description").and_then(Value::as_str),
                "    ",
            ));
            let optional = if required.contains(k) { "" } else { "?" };
            let readonly = if readonly { "readonly " } else { "" };
            out.push_str(&format!(
                "    {readonly}{}{optional}: {};\n",
                member(k),
                self.property(prop, side)
            ));
        }
        out
    }

    /// The type of a property: wrapped in `pulumi.Input` on the input side unless plain, and
    /// `| undefined`-free (optionality is the caller's `?`).
    pub(super) fn property(&self, spec: &Value, side: Side) -> String {
        match side {
            Side::Input if !is_plain(spec) => format!("pulumi.Input<{}>", self.inner(spec, side)),
            _ => self.inner(spec, side),
        }
    }

    fn inner(&self, spec: &Value, side: Side) -> String {
        if let Some(r) = spec.get("$ref").and_then(Value::as_str) {
            return self.reference(r, side);
        }
        if let Some(options) = spec.get("oneOf").and_then(Value::as_array) {
            let types: Vec<String> = options.iter().map(|o| self.property(o, side)).collect();
            return types.join(" | ");
        }
        match spec.get("type").and_then(Value::as_str).unwrap_or("") {
            "string" => "string".into(),
            "integer" | "number" => "number".into(),
            "boolean" => "boolean".into(),
            "array" => {
                let item = spec
                    .get("items")
                    .map_or("any".into(), |i| self.property(i, side));
                format!("{}[]", parenthesised(item))
            }
            "object" => {
                let value = spec
                    .get("additionalProperties")
                    .map_or("any".into(), |v| self.property(v, side));
                format!("{{[key: string]: {value}}}")
            }
            _ => "any".into(),
        }
    }

    /// A `$ref`: Pulumi's built-in types, or a type or resource of this or another package.
    fn reference(&self, reference: &str, side: Side) -> String {
        match reference.strip_prefix("pulumi.json#/") {
            Some("Archive") => return "pulumi.asset.Archive".into(),
            Some("Asset") => return "pulumi.asset.Asset | pulumi.asset.Archive".into(),
            Some(_) => return "any".into(),
            None => {}
        }
        let (url, fragment) = reference.split_once('#').unwrap_or(("", reference));
        let foreign = foreign_package(url).filter(|p| *p != self.pkg.name);
        let Some((kind, token)) = fragment.trim_start_matches('/').split_once('/') else {
            return "any".into();
        };
        let token = percent_decoded(token);
        if kind == "provider" {
            return match foreign {
                Some(p) => format!("{}.Provider", self.import(p)),
                None => format!("import(\"{}provider\").Provider", self.root),
            };
        }
        match foreign {
            Some(p) => {
                let Some(t) = ModuleFormat::foreign().token(&token) else {
                    return "any".into();
                };
                let alias = self.import(p);
                let path = dotted(&module_path(&t.module));
                let name = pascal(&t.member);
                match (kind, side) {
                    ("resources", _) => format!("{alias}.{path}{name}"),
                    (_, Side::Input) => format!("{alias}.types.input.{path}{name}Args"),
                    (_, Side::Output) => format!("{alias}.types.output.{path}{name}"),
                }
            }
            None => {
                let Some(t) = self.pkg.format.token(&token) else {
                    return "any".into();
                };
                let path = dotted(&module_path(&t.module));
                let name = pascal(&t.member);
                if kind == "resources" {
                    let dir = module_dir(&t.module);
                    let dir = if dir.is_empty() {
                        dir
                    } else {
                        format!("{dir}/")
                    };
                    return format!("import(\"{}{dir}{}\").{name}", self.root, camel(&t.member));
                }
                let is_enum = self
                    .pkg
                    .type_spec(&token)
                    .is_some_and(|s| s.get("enum").is_some());
                match (is_enum, side) {
                    (true, _) => format!("enums.{path}{name}"),
                    (false, Side::Input) => format!("inputs.{path}{name}Args"),
                    (false, Side::Output) => format!("outputs.{path}{name}"),
                }
            }
        }
    }

    /// The alias another package's SDK is imported under (`pulumiRandom`), recorded for
    /// [`TypeWriter::imports`].
    fn import(&self, package: &str) -> String {
        let alias = format!("pulumi{}", pascal(package));
        self.foreign
            .borrow_mut()
            .insert(alias.clone(), format!("@pulumi/{package}"));
        alias
    }
}

/// Whether a property takes plain values only (`plain: true`).
pub(super) fn is_plain(spec: &Value) -> bool {
    spec.get("plain").and_then(Value::as_bool) == Some(true)
}

/// The package a reference's schema URL names: `/random/v4.16.7/schema.json` is `random`.
pub(super) fn foreign_package(url: &str) -> Option<&str> {
    if url.is_empty() {
        return None;
    }
    let segments: Vec<&str> = url.split('/').filter(|s| !s.is_empty()).collect();
    let schema = segments.iter().rposition(|s| s.ends_with(".json"))?;
    let before = &segments[..schema];
    match before {
        [.., name, version] if version.starts_with('v') => Some(name),
        [.., name] => Some(name),
        [] => None,
    }
}

fn percent_decoded(token: &str) -> String {
    let bytes = token.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = (bytes[i] == b'%')
            .then(|| token.get(i + 1..i + 3))
            .flatten()
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match hex {
            Some(b) => {
                out.push(b);
                i += 3;
            }
            None => {
                out.push(bytes[i]);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn dotted(path: &str) -> String {
    if path.is_empty() {
        String::new()
    } else {
        format!("{path}.")
    }
}

fn parenthesised(t: String) -> String {
    if t.contains('|') { format!("({t})") } else { t }
}
