//! The parts of a package schema the TypeScript SDK is written from, read once with the
//! errors naming the schema field that is wrong.

use serde_json::{Map, Value};

use super::names::{ModuleFormat, Token};
use crate::sdkgen::SdkGenError;

/// A package schema as the generator reads it.
pub(super) struct Package<'a> {
    pub(super) schema: &'a Value,
    pub(super) name: String,
    /// The npm package (`@pulumi/<name>`, `@<namespace>/<name>`, or the schema's
    /// `language.nodejs.packageName`).
    pub(super) npm_name: String,
    pub(super) version: Option<String>,
    pub(super) format: ModuleFormat,
    empty: Map<String, Value>,
}

impl<'a> Package<'a> {
    /// Reads the package's name, namespace and module format.
    pub(super) fn read(schema: &'a Value) -> Result<Package<'a>, SdkGenError> {
        let name = crate::sdkgen::package_name(schema)?;
        let nodejs = schema.pointer("/language/nodejs");
        let npm_name = match nodejs
            .and_then(|n| n.get("packageName"))
            .and_then(Value::as_str)
        {
            Some(n) if !n.is_empty() => n.to_string(),
            _ => match schema.get("namespace").and_then(Value::as_str) {
                Some(ns) if !ns.is_empty() => format!("@{ns}/{name}"),
                _ => format!("@pulumi/{name}"),
            },
        };
        let version = schema
            .get("version")
            .and_then(Value::as_str)
            .map(|v| v.trim_start_matches('v').to_string());
        let format =
            ModuleFormat::new(schema.pointer("/meta/moduleFormat").and_then(Value::as_str));
        Ok(Package {
            schema,
            name,
            npm_name,
            version,
            format,
            empty: Map::new(),
        })
    }

    /// The schema's `resources`, `types` or `functions`: each token as written, split, and
    /// its spec.
    pub(super) fn members(
        &self,
        section: &str,
    ) -> Result<Vec<(&'a str, Token, &'a Value)>, SdkGenError> {
        let Some(map) = self.schema.get(section) else {
            return Ok(Vec::new());
        };
        let map = map
            .as_object()
            .ok_or_else(|| bad(section, "must be an object keyed by token"))?;
        map.iter()
            .map(|(tok, spec)| {
                let token = self.format.token(tok).ok_or_else(|| {
                    bad(&format!("{section}.{tok}"), "a token is pkg:module:Name")
                })?;
                Ok((tok.as_str(), token, spec))
            })
            .collect()
    }

    /// The type a `#/types/<token>` reference names.
    pub(super) fn type_spec(&self, token: &str) -> Option<&'a Value> {
        self.schema.get("types")?.get(token)
    }

    /// `properties` of an object spec (a resource's `inputProperties` and the like).
    pub(super) fn properties<'s>(&'s self, spec: &'s Value, key: &str) -> &'s Map<String, Value> {
        spec.get(key)
            .and_then(Value::as_object)
            .unwrap_or(&self.empty)
    }

    /// `parameterization` of a parameterized package: the base provider, its version and the
    /// base64 parameter the engine's `RegisterPackage` takes.
    pub(super) fn parameterization(&self) -> Option<Parameterization> {
        let p = self.schema.get("parameterization")?;
        let field = |ptr: &str| {
            p.pointer(ptr)
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string()
        };
        Some(Parameterization {
            base_name: field("/baseProvider/name"),
            base_version: field("/baseProvider/version"),
            parameter: field("/parameter"),
        })
    }

    /// The `pluginDownloadURL` resources are registered with, if any.
    pub(super) fn download_url(&self) -> &str {
        self.schema
            .get("pluginDownloadURL")
            .and_then(Value::as_str)
            .unwrap_or("")
    }
}

/// What a parameterized package registers with the engine.
pub(super) struct Parameterization {
    pub(super) base_name: String,
    pub(super) base_version: String,
    pub(super) parameter: String,
}

/// The names a required-property list holds.
pub(super) fn required(spec: &Value, key: &str) -> Vec<String> {
    spec.get(key)
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(String::from)
                .collect()
        })
        .unwrap_or_default()
}

/// A schema field that the generator cannot use.
pub(super) fn bad(field: &str, message: &str) -> SdkGenError {
    SdkGenError::Schema {
        field: field.to_string(),
        message: message.to_string(),
    }
}
