//! The package a schema describes, read once: its names in Python, and the lookups the
//! generators share.

use serde_json::{Map, Value};

use super::names::module_of;
use crate::sdkgen::SdkGenError;

/// A schema with the names its SDK goes by.
pub(super) struct Package<'a> {
    pub(super) schema: &'a Value,
    /// The schema's `name`: the first part of every token.
    pub(super) name: String,
    /// The distribution pip knows: `pulumi-<name>`, `<namespace>-<name>`, or
    /// `language.python.packageName`.
    pub(super) distribution: String,
    /// The module a program imports: `pulumi_<name>`, `<namespace>_<name>`.
    pub(super) module: String,
}

impl<'a> Package<'a> {
    /// Reads the names; a schema without a `name` is refused.
    pub(super) fn read(schema: &'a Value) -> Result<Package<'a>, SdkGenError> {
        let name = crate::sdkgen::package_name(schema)?;
        let namespace = schema.get("namespace").and_then(Value::as_str);
        let override_name = schema
            .pointer("/language/python/packageName")
            .and_then(Value::as_str);
        let module = match override_name {
            Some(n) => n.replace('-', "_"),
            None => module_of(namespace, &name),
        };
        let distribution = match override_name {
            Some(n) => n.to_string(),
            None => module.replace('_', "-"),
        };
        Ok(Package {
            schema,
            name,
            distribution,
            module,
        })
    }

    /// The schema's version, when it has one.
    pub(super) fn version(&self) -> Option<&str> {
        self.schema.get("version").and_then(Value::as_str)
    }

    /// An object or enum type by token.
    pub(super) fn type_def(&self, token: &str) -> Option<&'a Value> {
        self.schema.get("types")?.get(token)
    }

    /// A resource by token.
    pub(super) fn resource_def(&self, token: &str) -> Option<&'a Value> {
        self.schema.get("resources")?.get(token)
    }

    /// A section of the schema (`types`, `resources`, `functions`) in token order.
    pub(super) fn section(&self, key: &str) -> Vec<(&'a str, &'a Value)> {
        let mut items: Vec<(&str, &Value)> = self
            .schema
            .get(key)
            .and_then(Value::as_object)
            .map(|m: &Map<String, Value>| m.iter().map(|(k, v)| (k.as_str(), v)).collect())
            .unwrap_or_default();
        items.sort_by_key(|(k, _)| *k);
        items
    }
}

/// A property map (`properties`, `inputProperties`) in order, with whether each is required.
pub(super) fn properties<'v>(
    def: &'v Value,
    key: &str,
    required_key: &str,
) -> Vec<(&'v str, &'v Value, bool)> {
    let required: Vec<&str> = def
        .get(required_key)
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut props: Vec<(&str, &Value, bool)> = def
        .get(key)
        .and_then(Value::as_object)
        .map(|m| {
            m.iter()
                .map(|(k, v)| (k.as_str(), v, required.contains(&k.as_str())))
                .collect()
        })
        .unwrap_or_default();
    props.sort_by_key(|(k, _, _)| *k);
    props
}
