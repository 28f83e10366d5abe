//! Parameterized packages: a provider plugin (the base) made to serve another package by its
//! `Parameterize` call. What the engine needs to reload it is kept in the provider resource's
//! inputs under `__internal` (`name`, `version` and the base64 `parameterization` value), as
//! Pulumi's provider registry records it; the plugin never sees that key.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;

use crate::engine::model::property::{PropertyMap, PropertyValue};
use crate::engine::model::resource::provider_type_package;

/// The key of the engine's own bookkeeping in a provider resource's inputs.
pub const INTERNAL_KEY: &str = "__internal";

/// A parameterized package as the program named it: its name, version and the opaque value the
/// base provider turns into that package's schema.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Parameterization {
    pub name: String,
    pub version: String,
    pub value: Vec<u8>,
}

/// A package a program registered (`RegisterPackage`) as a parameterization of a base plugin;
/// its default provider loads the base and parameterizes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParameterizedPackage {
    pub base_name: String,
    /// The base plugin's version; `None` for whichever is installed.
    pub base_version: Option<String>,
    pub download_url: String,
    pub parameterization: Parameterization,
}

impl ParameterizedPackage {
    /// The default provider's inputs: the package's config, the package's version as
    /// `version`, and the base plugin and value under `__internal`.
    pub fn provider_inputs(&self, mut config: PropertyMap) -> PropertyMap {
        let mut internal = PropertyMap::new();
        internal.insert("name".into(), PropertyValue::string(&self.base_name));
        if let Some(v) = &self.base_version {
            internal.insert("version".into(), PropertyValue::string(v));
        }
        if !self.download_url.is_empty() {
            internal.insert(
                "pluginDownloadURL".into(),
                PropertyValue::string(&self.download_url),
            );
        }
        internal.insert(
            "parameterization".into(),
            PropertyValue::String(STANDARD.encode(&self.parameterization.value)),
        );
        config.insert(INTERNAL_KEY.into(), PropertyValue::Object(internal));
        config.insert(
            "version".into(),
            PropertyValue::string(&self.parameterization.version),
        );
        config
    }
}

/// Which plugin a provider resource runs: the plugin's name and version and, for a
/// parameterized package, what to parameterize it with. Instances are shared by equal requests.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct PluginRequest {
    pub name: String,
    pub version: Option<String>,
    pub parameterization: Option<Parameterization>,
}

/// A provider resource's `__internal` inputs that cannot be read; names the field.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{path}: {why}")]
pub struct InternalInputsError {
    path: String,
    why: String,
}

impl InternalInputsError {
    /// A problem with `__internal` itself (`field` empty) or one of its fields.
    fn new(field: &str, why: impl Into<String>) -> InternalInputsError {
        let path = if field.is_empty() {
            INTERNAL_KEY.to_string()
        } else {
            format!("{INTERNAL_KEY}.{field}")
        };
        InternalInputsError {
            path,
            why: why.into(),
        }
    }
}

impl PluginRequest {
    /// An unparameterized plugin of `name`.
    pub fn plain(name: &str, version: Option<&str>) -> PluginRequest {
        PluginRequest {
            name: name.to_string(),
            version: version.map(str::to_string),
            parameterization: None,
        }
    }

    /// The plugin a provider resource of type `ty` (`pulumi:providers:<package>`) with these
    /// inputs needs: `__internal.name` names the base plugin when present; with
    /// `__internal.parameterization` the plugin's version is `__internal.version` and the
    /// top-level `version` is the parameterized package's.
    pub fn of(ty: &str, inputs: &PropertyMap) -> Result<PluginRequest, InternalInputsError> {
        let package = provider_type_package(ty).unwrap_or(ty);
        let top_version = string_field(inputs, "version");
        let internal = match inputs.get(INTERNAL_KEY) {
            None | Some(PropertyValue::Null) => {
                return Ok(PluginRequest::plain(package, top_version));
            }
            Some(PropertyValue::Object(m)) => m,
            Some(_) => {
                return Err(InternalInputsError::new("", "must be an object"));
            }
        };
        let text = |field: &'static str| match internal.get(field) {
            None => Ok(None),
            Some(PropertyValue::String(s)) => Ok(Some(s.as_str())),
            Some(_) => Err(InternalInputsError::new(field, "must be a string")),
        };
        let name = match text("name")? {
            Some("") => {
                return Err(InternalInputsError::new("name", "must not be empty"));
            }
            Some(n) => n,
            None => package,
        };
        let Some(encoded) = text("parameterization")? else {
            return Ok(PluginRequest::plain(name, top_version));
        };
        let value = STANDARD.decode(encoded).map_err(|e| {
            InternalInputsError::new("parameterization", format!("not base64: {e}"))
        })?;
        let version = top_version.ok_or_else(|| {
            InternalInputsError::new(
                "parameterization",
                "a parameterized provider needs the package's `version` input",
            )
        })?;
        Ok(PluginRequest {
            name: name.to_string(),
            version: text("version")?.map(str::to_string),
            parameterization: Some(Parameterization {
                name: package.to_string(),
                version: version.to_string(),
                value,
            }),
        })
    }
}

fn string_field<'a>(inputs: &'a PropertyMap, key: &str) -> Option<&'a str> {
    inputs.get(key).and_then(|v| v.as_str())
}

/// The inputs a provider plugin is given (CheckConfig, DiffConfig, Configure) and records as
/// its outputs: the engine's `__internal` removed.
pub fn without_internal(inputs: &PropertyMap) -> PropertyMap {
    inputs
        .iter()
        .filter(|(k, _)| k.as_str() != INTERNAL_KEY)
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

/// The inputs CheckConfig answered, with the engine's `__internal` of `news` put back (the
/// plugin never saw it, and may not set its own).
pub fn restore_internal(news: &PropertyMap, mut checked: PropertyMap) -> PropertyMap {
    match news.get(INTERNAL_KEY) {
        Some(internal) => {
            checked.insert(INTERNAL_KEY.into(), internal.clone());
        }
        None => {
            checked.remove(INTERNAL_KEY);
        }
    }
    checked
}

#[cfg(test)]
mod tests {
    use super::*;

    fn package() -> ParameterizedPackage {
        ParameterizedPackage {
            base_name: "widgets".into(),
            base_version: Some("1.0.0".into()),
            download_url: String::new(),
            parameterization: Parameterization {
                name: "gadgets".into(),
                version: "2.3.0".into(),
                value: b"blue".to_vec(),
            },
        }
    }

    #[test]
    fn default_provider_inputs_round_trip_to_the_base_plugin_and_value() {
        let mut config = PropertyMap::new();
        config.insert("region".into(), PropertyValue::string("north"));
        let inputs = package().provider_inputs(config);
        assert_eq!(inputs["version"], PropertyValue::string("2.3.0"));
        let PropertyValue::Object(internal) = &inputs[INTERNAL_KEY] else {
            panic!("{inputs:?}")
        };
        assert_eq!(internal["name"], PropertyValue::string("widgets"));
        assert_eq!(internal["version"], PropertyValue::string("1.0.0"));
        assert_eq!(
            internal["parameterization"],
            PropertyValue::string("Ymx1ZQ==")
        );
        let req = PluginRequest::of("pulumi:providers:gadgets", &inputs).unwrap();
        assert_eq!(
            req,
            PluginRequest {
                name: "widgets".into(),
                version: Some("1.0.0".into()),
                parameterization: Some(package().parameterization),
            }
        );
    }

    #[test]
    fn plain_providers_load_by_type_and_version() {
        let mut inputs = PropertyMap::new();
        inputs.insert("version".into(), PropertyValue::string("4.1.0"));
        assert_eq!(
            PluginRequest::of("pulumi:providers:random", &inputs).unwrap(),
            PluginRequest::plain("random", Some("4.1.0"))
        );
    }

    #[test]
    fn unreadable_internal_inputs_name_the_field() {
        let mut inputs = package().provider_inputs(PropertyMap::new());
        if let Some(PropertyValue::Object(m)) = inputs.get_mut(INTERNAL_KEY) {
            m.insert("parameterization".into(), PropertyValue::string("%%"));
        }
        let e = PluginRequest::of("pulumi:providers:gadgets", &inputs).unwrap_err();
        assert!(
            e.to_string()
                .starts_with("__internal.parameterization: not base64"),
            "{e}"
        );
        inputs.insert(INTERNAL_KEY.into(), PropertyValue::Bool(true));
        let e = PluginRequest::of("pulumi:providers:gadgets", &inputs).unwrap_err();
        assert_eq!(e.to_string(), "__internal: must be an object");
    }

    #[test]
    fn internal_is_stripped_for_the_plugin_and_restored_after_check() {
        let news = package().provider_inputs(PropertyMap::new());
        let stripped = without_internal(&news);
        assert!(!stripped.contains_key(INTERNAL_KEY));
        assert_eq!(stripped["version"], PropertyValue::string("2.3.0"));
        let mut checked = stripped.clone();
        checked.insert("extra".into(), PropertyValue::Bool(true));
        let restored = restore_internal(&news, checked);
        assert_eq!(restored[INTERNAL_KEY], news[INTERNAL_KEY]);
        assert_eq!(restored["extra"], PropertyValue::Bool(true));
        let mut own = PropertyMap::new();
        own.insert(INTERNAL_KEY.into(), PropertyValue::Bool(true));
        assert!(
            !restore_internal(&stripped, own).contains_key(INTERNAL_KEY),
            "a plugin may not add the engine's key"
        );
    }
}
