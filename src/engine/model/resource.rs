//! Resource state: what the engine records about one resource, with the fields of Pulumi's
//! ResourceV3 so that state exports read as Pulumi's.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::property::{PropertyMap, PropertyValue};
use super::provider_ref::ProviderRef;
pub use super::provider_ref::{is_provider_type, provider_type, provider_type_package};
use super::sorted_map::SortedMap;
use super::urn::Urn;

/// Per-operation timeouts in seconds, passed to providers.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CustomTimeouts {
    #[serde(default, skip_serializing_if = "is_zero")]
    pub create: f64,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub update: f64,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub delete: f64,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub read: f64,
}

fn is_zero(f: &f64) -> bool {
    *f == 0.0
}

fn is_false(b: &bool) -> bool {
    !*b
}

fn is_null(v: &PropertyValue) -> bool {
    *v == PropertyValue::Null
}

/// The resources each input property's value came from, by property: one or two entries for
/// most resources, so a sorted vector rather than a tree of eleven-slot nodes.
pub type PropertyDependencies = SortedMap<Vec<Urn>>;

/// One resource as recorded in a snapshot.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceState {
    pub urn: Urn,
    #[serde(default)]
    pub custom: bool,
    #[serde(default, skip_serializing_if = "is_false")]
    pub delete: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    #[serde(rename = "type")]
    pub type_: String,
    #[serde(default, skip_serializing_if = "PropertyMap::is_empty")]
    pub inputs: PropertyMap,
    #[serde(default, skip_serializing_if = "PropertyMap::is_empty")]
    pub outputs: PropertyMap,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent: Option<Urn>,
    #[serde(default, skip_serializing_if = "is_false")]
    pub protect: bool,
    #[serde(default, skip_serializing_if = "is_false")]
    pub taint: bool,
    #[serde(default, skip_serializing_if = "is_false")]
    pub external: bool,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub dependencies: Vec<Urn>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub init_errors: Vec<String>,
    /// The provider resource that manages this one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider: Option<ProviderRef>,
    #[serde(default, skip_serializing_if = "SortedMap::is_empty")]
    pub property_dependencies: PropertyDependencies,
    #[serde(default, skip_serializing_if = "is_false")]
    pub pending_replacement: bool,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub additional_secret_outputs: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub aliases: Vec<Urn>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub custom_timeouts: Option<CustomTimeouts>,
    #[serde(default, rename = "importID", skip_serializing_if = "Option::is_none")]
    pub import_id: Option<String>,
    #[serde(default, skip_serializing_if = "is_false")]
    pub retain_on_delete: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deleted_with: Option<Urn>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub replace_with: Vec<Urn>,
    #[serde(default, skip_serializing_if = "is_null")]
    pub replacement_trigger: PropertyValue,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub created: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub modified: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_position: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ignore_changes: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub replace_on_changes: Vec<String>,
    /// The `hideDiffs` option, kept so a delete or refresh hides the same diffs.
    #[serde(default, rename = "hideDiff", skip_serializing_if = "Vec::is_empty")]
    pub hide_diffs: Vec<String>,
    /// Hook names bound per lifecycle point; kept so a later run can call the delete hooks.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub resource_hooks: super::hook_binding::HookBindings,
}

impl ResourceState {
    /// Every resource this one needs to exist before it: parent, provider, dependencies,
    /// property dependencies, deletedWith and replaceWith (the edges of the dependency graph).
    pub fn dependency_urns(&self) -> impl Iterator<Item = Urn> + '_ {
        self.parent
            .iter()
            .cloned()
            .chain(self.provider.iter().map(|p| p.urn.clone()))
            .chain(self.dependencies.iter().cloned())
            .chain(self.property_dependencies.values().flatten().cloned())
            .chain(self.deleted_with.iter().cloned())
            .chain(self.replace_with.iter().cloned())
    }

    /// The edges of [`Self::dependency_urns`] once each, in order: what events carry.
    pub fn distinct_dependency_urns(&self) -> Arc<[Urn]> {
        // Room for every edge: parent, provider, deletedWith and the lists.
        let lists = self.dependencies.len()
            + self
                .property_dependencies
                .values()
                .map(Vec::len)
                .sum::<usize>()
            + self.replace_with.len();
        let mut all = Vec::with_capacity(3 + lists);
        // `for_each` runs through each part of the chain in turn, where a loop would ask the
        // chain for every item.
        self.dependency_urns().for_each(|u| all.push(u));
        super::urn::distinct(all)
    }

    /// Applies `f` to every URN this resource refers to but its provider (parent,
    /// dependencies, property dependencies, deletedWith, replaceWith): renames and moves rewrite
    /// them here.
    pub fn for_each_reference(&mut self, mut f: impl FnMut(&mut Urn)) {
        self.parent.iter_mut().for_each(&mut f);
        self.dependencies.iter_mut().for_each(&mut f);
        self.property_dependencies
            .values_mut()
            .flatten()
            .for_each(&mut f);
        self.deleted_with.iter_mut().for_each(&mut f);
        self.replace_with.iter_mut().for_each(&mut f);
    }

    pub fn is_provider(&self) -> bool {
        is_provider_type(&self.type_)
    }
}

/// Default providers (`default`, `default_X_Y_Z`) are the engine's own bookkeeping: Pulumi
/// leaves them out of the summary and the display.
pub fn is_default_provider(urn: &Urn) -> bool {
    is_provider_type(urn.type_()) && is_default_provider_name(urn.name())
}

/// The names the engine gives default providers.
pub fn is_default_provider_name(name: &str) -> bool {
    name == "default" || name.starts_with("default_")
}

/// What was in flight when a deployment stopped, recorded so that the next run can warn.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum OperationType {
    Creating,
    Updating,
    Deleting,
    Reading,
    Importing,
}

impl OperationType {
    pub fn as_str(self) -> &'static str {
        match self {
            OperationType::Creating => "creating",
            OperationType::Updating => "updating",
            OperationType::Deleting => "deleting",
            OperationType::Reading => "reading",
            OperationType::Importing => "importing",
        }
    }
}

/// An operation that began and has not been recorded as finished.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PendingOperation {
    pub resource: ResourceState,
    #[serde(rename = "type")]
    pub kind: OperationType,
}
