//! Goals: what a program asks for when it registers a resource.

use super::property::{PropertyMap, PropertyValue};
use super::provider_ref::ProviderRef;
use super::resource::{CustomTimeouts, PropertyDependencies};
use super::urn::Urn;

/// An alias: another identity this resource had before (a full URN, or parts that default to
/// the resource's own).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Alias {
    Urn(Urn),
    Spec {
        name: Option<String>,
        type_: Option<String>,
        parent: Option<Urn>,
        no_parent: bool,
        project: Option<String>,
        stack: Option<String>,
    },
}

/// A registration of a resource by a program, with every resource option.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Goal {
    pub type_: String,
    pub name: String,
    /// Custom resources are managed by a provider; components are not.
    pub custom: bool,
    pub parent: Option<Urn>,
    /// The explicit provider; a default provider is used when absent.
    pub provider: Option<ProviderRef>,
    pub properties: PropertyMap,
    pub dependencies: Vec<Urn>,
    pub property_dependencies: PropertyDependencies,
    pub protect: Option<bool>,
    /// Overrides the provider's own delete-before-replace answer, in both directions.
    pub delete_before_replace: Option<bool>,
    pub ignore_changes: Vec<String>,
    pub replace_on_changes: Vec<String>,
    /// Property paths whose diffs displays compact to one `(hidden)` line (Pulumi's `hideDiffs`).
    pub hide_diffs: Vec<String>,
    pub retain_on_delete: Option<bool>,
    pub deleted_with: Option<Urn>,
    /// Resources whose replacement in this deployment replaces this one too.
    pub replace_with: Vec<Urn>,
    /// A value whose change from the recorded one forces a replacement (`Null`: none).
    pub replacement_trigger: PropertyValue,
    pub aliases: Vec<Alias>,
    pub import_id: Option<String>,
    /// Pulumi's `pulumi import`: the imported resource keeps the inputs its provider's read
    /// returned (only those named, when any are: `--properties`), as there is no program
    /// whose inputs it could be compared with. `None`: a program's import, diffed against
    /// the program's inputs.
    pub adopt_read: Option<Vec<String>>,
    pub custom_timeouts: Option<CustomTimeouts>,
    pub additional_secret_outputs: Vec<String>,
    pub version: Option<String>,
    /// Where the provider's plugin comes from (`pluginDownloadURL`): recorded in a provider's
    /// inputs, and a default provider of its own for a custom resource.
    pub plugin_download_url: Option<String>,
    pub source_position: Option<String>,
    /// Resource hooks bound by name to lifecycle points.
    pub hooks: super::hook_binding::HookBindings,
}

impl Goal {
    /// A custom resource with the given inputs and no options.
    pub fn custom(type_: &str, name: &str, properties: PropertyMap) -> Goal {
        Goal {
            type_: type_.to_string(),
            name: name.to_string(),
            custom: true,
            properties,
            ..Goal::default()
        }
    }

    /// A component resource (no provider) with no inputs.
    pub fn component(type_: &str, name: &str) -> Goal {
        Goal {
            type_: type_.to_string(),
            name: name.to_string(),
            ..Goal::default()
        }
    }

    /// The package a custom resource's default provider comes from (`sim` for `sim:index:Bucket`).
    pub fn package(&self) -> &str {
        package_of(&self.type_)
    }
}

/// The package part of a type token.
pub(crate) fn package_of(ty: &str) -> &str {
    ty.split(':').next().unwrap_or(ty)
}

/// A program's request to read an existing resource it does not manage.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ReadGoal {
    pub type_: String,
    pub name: String,
    pub id: String,
    pub parent: Option<Urn>,
    pub provider: Option<ProviderRef>,
    pub properties: PropertyMap,
    pub dependencies: Vec<Urn>,
    pub additional_secret_outputs: Vec<String>,
    pub version: Option<String>,
}
