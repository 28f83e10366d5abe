//! The type check Pulumi YAML runs over the whole template before it registers anything: every
//! resource type must be one its package's provider declares, and every property value as
//! written must be assignable to the input its schema declares, so a misspelt type or a
//! misplaced value fails the run with nothing created and the state unchanged.

use crate::engine::ResourceMonitor;
use crate::engine::model::goal::package_of;
use crate::engine::provider::input_types::{InputType, ObjectType};

use super::assignable::{NotAssignable, check_properties, expr_type};
use super::ast::{ProgramAst, Properties, ResourceDecl, resolve_type};
use super::component::Components;
use super::error::{Pos, SourceError};

/// Every resource whose type its provider does not declare (Pulumi YAML's "error resolving type
/// of resource"), located at the resource, and every resource whose properties its provider's
/// input types (a built-in's, or a plugin's schema) refuse; a provider that lists no types is
/// trusted with its types.
pub(super) async fn check_resource_types(
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
        let version = r.options.version.as_deref();
        let problem = match monitor.resource_types(package, version) {
            Err(e) => e.to_string(),
            Ok(declared) => {
                let resolved = resolve_type(ty, &declared);
                if declared.is_empty() || declared.contains(&resolved) {
                    if let Ok(Some(inputs)) = monitor.input_types(package, version, &resolved).await
                    {
                        errors.extend(check_values(&ast.file, r, &inputs));
                    }
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

/// Why a resource's properties as written cannot be its inputs (pulumi-yaml's "Cannot assign"),
/// located at the first offending value; a `get` resource is read, not given inputs.
fn check_values(file: &str, r: &ResourceDecl, inputs: &ObjectType) -> Option<SourceError> {
    if r.get.is_some() {
        return None;
    }
    let why = match &r.properties {
        Properties::Map(entries) => {
            let written: Vec<_> = entries
                .iter()
                .map(|(name, e)| (name.clone(), expr_type(e), Some(e.pos)))
                .collect();
            check_properties(&written, inputs)?
        }
        Properties::Expr(e) => check_value(&expr_type(e), e.pos, inputs)?,
    };
    let summary = why.summary().unwrap_or_default();
    let pos = why.first_pos().unwrap_or(r.pos);
    Some(SourceError::new(
        file,
        pos,
        format!("{summary}; {}", why.render()),
    ))
}

/// Whether a whole-object `properties:` expression can be the inputs: only an object written
/// inline can be told apart from the rest, whose type is only known when it runs.
fn check_value(written: &InputType, pos: Pos, inputs: &ObjectType) -> Option<NotAssignable> {
    let InputType::Object(o) = written else {
        return None;
    };
    let written: Vec<_> = o
        .properties
        .iter()
        .map(|p| (p.name.clone(), p.type_.clone(), Some(pos)))
        .collect();
    check_properties(&written, inputs)
}

/// Whether a type registers as a component (no provider): stepdeck's convention is the module
/// `component` (`demo:component:Tier`), since Pulumi YAML itself can only use packaged
/// components.
pub fn is_component_type(ty: &str) -> bool {
    ty.split(':').nth(1) == Some("component")
}
