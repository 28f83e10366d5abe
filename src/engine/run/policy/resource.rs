//! A resource as a pack sees it: for Analyze and Remediate its checked inputs, options and
//! provider; for AnalyzeStack its outputs, with its parent and dependencies too.

use std::collections::BTreeMap;

use crate::engine::model::property::PropertyMap;
use crate::engine::model::resource::CustomTimeouts;
use crate::engine::model::urn::Urn;

/// The resource options a policy may inspect.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct ResourceOptions {
    pub protect: bool,
    pub ignore_changes: Vec<String>,
    /// `None` when the program did not set it (packs see it as undefined then).
    pub delete_before_replace: Option<bool>,
    pub additional_secret_outputs: Vec<String>,
    pub aliases: Vec<Urn>,
    /// Always sent, zeros when unset, as Pulumi sends them.
    pub custom_timeouts: CustomTimeouts,
    pub parent: Option<Urn>,
}

/// The provider resource of a custom resource, with its inputs.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct AnalyzerProvider {
    pub urn: Urn,
    pub type_: String,
    pub name: String,
    pub properties: PropertyMap,
}

/// One resource for Analyze or Remediate.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct AnalyzerResource {
    pub urn: Urn,
    pub type_: String,
    pub name: String,
    /// Inputs (after Check and earlier remediations), unknowns and secrets kept.
    pub properties: PropertyMap,
    pub options: ResourceOptions,
    /// Absent for components, the root stack and provider resources themselves.
    pub provider: Option<AnalyzerProvider>,
}

/// One resource for AnalyzeStack: its outputs as `properties`, and its place in the stack.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct AnalyzerStackResource {
    pub resource: AnalyzerResource,
    pub parent: Option<Urn>,
    pub dependencies: Vec<Urn>,
    /// Only properties that depend on something.
    pub property_dependencies: BTreeMap<String, Vec<Urn>>,
}
