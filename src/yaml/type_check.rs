//! The type check Pulumi YAML runs over the whole template before it registers anything: every
//! resource type must be one its package's provider declares, so a misspelt type fails the run
//! with nothing created and the state unchanged.

use crate::engine::ResourceMonitor;
use crate::engine::model::goal::package_of;

use super::ast::{ProgramAst, resolve_type};
use super::component::Components;
use super::error::SourceError;

/// Every resource whose type its provider does not declare (Pulumi YAML's "error resolving type
/// of resource"), located at the resource; a provider that lists no types is trusted.
pub(super) fn check_resource_types(
    ast: &ProgramAst,
    components: &Components,
    monitor: &ResourceMonitor,
) -> Vec<SourceError> {
    let mut errors = Vec::new();
    for r in &ast.resources {
        let ty = r.type_.as_str();
        if ty.starts_with("pulumi:") || is_component_type(ty) || components.get(ty).is_some() {
            continue;
        }
        let package = package_of(ty);
        let problem = match monitor.resource_types(package, r.options.version.as_deref()) {
            Err(e) => e.to_string(),
            Ok(declared) if declared.is_empty() => continue,
            Ok(declared) => {
                let resolved = resolve_type(ty, &declared);
                if declared.contains(&resolved) {
                    continue;
                }
                format!("unable to find resource type {ty:?} in resource provider {package:?}")
            }
        };
        errors.push(SourceError::new(
            &ast.file,
            r.pos,
            format!("error resolving type of resource {}: {problem}", r.key),
        ));
    }
    errors
}

/// Whether a type registers as a component (no provider): stepdeck's convention is the module
/// `component` (`demo:component:Tier`), since Pulumi YAML itself can only use packaged
/// components.
pub fn is_component_type(ty: &str) -> bool {
    ty.split(':').nth(1) == Some("component")
}
