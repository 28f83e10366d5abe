//! The Python type of a schema property: what an input accepts (`pulumi.Input[...]`, an args
//! class or its TypedDict) and what an output holds (an output class, a resource, a plain
//! value), with the other packages whose resources it names.

use std::collections::BTreeSet;

use serde_json::Value;

use super::names::{class_name, module_of, token_module};
use super::package::Package;

/// Which side of a resource the type is for.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Side {
    /// Accepted by a constructor or an args class: object types as `XArgs` or `XArgsDict`.
    Input,
    /// A field of an `XArgsDict` TypedDict: object types as their TypedDicts only.
    Dict,
    /// Held by a resource or an output class: object types as `outputs.X`.
    Output,
}

/// What a `$ref` points at.
enum Target {
    Object(String),
    Enum(String),
    OwnResource {
        module: Option<String>,
        class: String,
    },
    ForeignResource {
        module: String,
        class: String,
    },
    Asset,
    Archive,
    Any,
}

/// The Python modules of other packages a generated file must import for its type hints.
pub(super) type Imports = BTreeSet<String>;

/// The element type of `prop` (without `Optional`): inputs wrap nested values in
/// `pulumi.Input`, outputs do not.
pub(super) fn element(pkg: &Package, prop: &Value, side: Side, imports: &mut Imports) -> String {
    let wrap = |t: String| match side {
        Side::Output => t,
        Side::Input | Side::Dict => format!("pulumi.Input[{t}]"),
    };
    if let Some(r) = prop.get("$ref").and_then(Value::as_str) {
        return match resolve(pkg, r) {
            Target::Object(class) => match side {
                Side::Input => format!("Union['{class}Args', '{class}ArgsDict']"),
                Side::Dict => format!("'{class}ArgsDict'"),
                Side::Output => format!("'outputs.{class}'"),
            },
            Target::Enum(class) => format!("'{class}'"),
            // Named through the package's root, imported as a whole: the hint is read after
            // every module has loaded, so modules need not import each other.
            Target::OwnResource { module, class } => {
                imports.insert(pkg.module.clone());
                match module {
                    Some(m) => format!("'{}.{m}.{class}'", pkg.module),
                    None => format!("'{}.{class}'", pkg.module),
                }
            }
            Target::ForeignResource { module, class } => {
                let hint = format!("'{module}.{class}'");
                imports.insert(module);
                hint
            }
            Target::Asset => "Union[pulumi.Asset, pulumi.Archive]".into(),
            Target::Archive => "pulumi.Archive".into(),
            Target::Any => "Any".into(),
        };
    }
    match prop.get("type").and_then(Value::as_str) {
        Some("string") => "str".into(),
        Some("integer") => "int".into(),
        Some("number") => "float".into(),
        Some("boolean") => "bool".into(),
        Some("array") => {
            let item = prop.get("items").cloned().unwrap_or(Value::Null);
            format!("Sequence[{}]", wrap(element(pkg, &item, side, imports)))
        }
        Some("object") => match prop.get("additionalProperties") {
            Some(ap) => format!("Mapping[str, {}]", wrap(element(pkg, ap, side, imports))),
            None => "Mapping[str, Any]".into(),
        },
        _ => "Any".into(),
    }
}

/// An input parameter's annotation: `Optional[pulumi.Input[T]]` or `pulumi.Input[T]`.
pub(super) fn input(t: &str, required: bool) -> String {
    if required {
        format!("pulumi.Input[{t}]")
    } else {
        format!("Optional[pulumi.Input[{t}]]")
    }
}

/// A plain value's annotation: `Optional[T]` or `T`.
pub(super) fn plain(t: &str, required: bool) -> String {
    if required {
        t.to_string()
    } else {
        format!("Optional[{t}]")
    }
}

/// Where a `$ref` points: `#/types/…`, `#/resources/…`, `pulumi.json#/…`, or another package's
/// schema (`/random/v4.16.0/schema.json#/resources/random:index%2FrandomPet:RandomPet`).
fn resolve(pkg: &Package, reference: &str) -> Target {
    match reference {
        "pulumi.json#/Asset" => return Target::Asset,
        "pulumi.json#/Archive" => return Target::Archive,
        r if r.starts_with("pulumi.json#/") => return Target::Any,
        _ => {}
    }
    let Some((doc, path)) = reference.split_once("#/") else {
        return Target::Any;
    };
    let Some((kind, token)) = path.split_once('/') else {
        return Target::Any;
    };
    let token = percent_encoding::percent_decode_str(token)
        .decode_utf8_lossy()
        .into_owned();
    let class = class_name(&token);
    if !doc.is_empty() {
        let other = doc.trim_start_matches('/').split('/').next().unwrap_or("");
        return match kind {
            "resources" if !other.is_empty() => Target::ForeignResource {
                module: module_of(None, other),
                class,
            },
            _ => Target::Any,
        };
    }
    match kind {
        "resources" => Target::OwnResource {
            module: token_module(&token),
            class,
        },
        "types" => match pkg.type_def(&token) {
            Some(def) if def.get("enum").is_some() => Target::Enum(class),
            Some(_) => Target::Object(class),
            None if pkg.resource_def(&token).is_some() => Target::OwnResource {
                module: token_module(&token),
                class,
            },
            None => Target::Any,
        },
        _ => Target::Any,
    }
}
