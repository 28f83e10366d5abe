//! Expression evaluation: what one variable, property or output computes from config, the
//! `pulumi` variables, resolved variables and registered resources, with the resources it came
//! from. Unknowns propagate in previews, secrets through every function, and property access
//! follows Pulumi YAML's rules and errors.

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;
use std::sync::Arc;

use futures::future::BoxFuture;

use crate::engine::model::goal::package_of;
use crate::engine::model::property::UNKNOWN_SENTINEL;
use crate::engine::{PropertyMap, PropertyValue, ProviderRef, ResourceMonitor, Urn};

use super::asset;
use super::ast::{Expr, ExprKind, Invoke};
use super::builtin::Builtin;
use super::error::{Pos, SourceError, no_such_field};
use super::functions::{self, Index, index_value, lift, secret_of, type_string};
use super::interpolate::{Access, Accessor, Part};
use super::node::number_text;
use super::stack_reference::{StackReferences, output_of};

/// A registered (or read) resource as dependents see it.
#[derive(Clone, Debug)]
pub(super) struct ResourceValue {
    pub urn: Urn,
    pub id: Option<String>,
    pub outputs: PropertyMap,
    /// Failed, skipped or not yet existing: every output is unknown.
    pub unknown: bool,
    pub custom: bool,
    /// Explicit providers by package that the resource's children (and invokes naming it as
    /// `parent`) inherit.
    pub providers: BTreeMap<String, ProviderRef>,
}

impl ResourceValue {
    /// The id as a value: unknown until the provider assigned one.
    fn id_value(&self) -> PropertyValue {
        match &self.id {
            Some(id) if !self.unknown && id != UNKNOWN_SENTINEL && !id.is_empty() => {
                PropertyValue::String(id.clone())
            }
            _ => PropertyValue::Unknown,
        }
    }

    /// `${res}` alone: a custom resource's id, a component's URN.
    fn whole(&self) -> PropertyValue {
        if self.custom {
            self.id_value()
        } else {
            PropertyValue::String(self.urn.to_string())
        }
    }

    /// `<URN>::<ID>`, the reference a provider resource is passed by.
    pub(super) fn provider_reference(&self) -> ProviderRef {
        let id = self
            .id
            .as_deref()
            .filter(|id| !id.is_empty() && !self.unknown)
            .unwrap_or(UNKNOWN_SENTINEL);
        ProviderRef::new(self.urn.clone(), id)
    }
}

/// The resolved value of a variable or resource.
#[derive(Clone, Debug)]
pub(super) enum Slot {
    Value {
        value: PropertyValue,
        /// Resources the value was computed from.
        deps: Vec<Urn>,
    },
    Resource(Arc<ResourceValue>),
    /// Evaluation or registration failed; dependents do not run.
    Failed,
    /// The resource's `if:` is false: it is not part of this run.
    Disabled,
}

pub(super) type Slots = HashMap<String, Slot>;

/// What an evaluated expression carries: the value and the resources it came from.
pub(super) struct Evaluated {
    pub value: PropertyValue,
    pub deps: Vec<Urn>,
}

/// The `pulumi.*` variables of a run.
#[derive(Clone, Debug, Default)]
pub struct PulumiVars {
    pub stack: String,
    pub project: String,
    /// `organization` on self-managed backends, as Pulumi's DIY backend answers.
    pub organization: String,
    /// The program's directory, where relative file paths resolve.
    pub cwd: PathBuf,
    /// The directory holding `Pulumi.yaml`.
    pub root_directory: PathBuf,
}

/// Everything expression evaluation reads.
pub(super) struct Scope<'a> {
    pub file: &'a str,
    /// Config values by every name a program may use for them.
    pub config: &'a HashMap<String, PropertyValue>,
    pub slots: &'a Slots,
    pub pulumi: &'a PulumiVars,
    pub dry_run: bool,
    /// Absent where provider calls are not allowed (`if:` conditions).
    pub monitor: Option<&'a ResourceMonitor>,
    /// The stacks `fn::stackReference` read in this run.
    pub stack_refs: &'a StackReferences,
}

fn located(file: &str, pos: Pos, message: impl Into<String>) -> SourceError {
    SourceError::new(file, pos, message)
}

impl Scope<'_> {
    /// The value of an expression and the resources it was computed from (sorted, unique).
    pub(super) async fn eval(&self, e: &Expr) -> Result<Evaluated, SourceError> {
        let mut deps = Vec::new();
        let value = self.eval_into(e, &mut deps).await?;
        deps.sort();
        deps.dedup();
        Ok(Evaluated { value, deps })
    }

    fn eval_into<'b>(
        &'b self,
        e: &'b Expr,
        deps: &'b mut Vec<Urn>,
    ) -> BoxFuture<'b, Result<PropertyValue, SourceError>> {
        Box::pin(async move {
            Ok(match &e.kind {
                ExprKind::Null => PropertyValue::Null,
                ExprKind::Bool(b) => PropertyValue::Bool(*b),
                ExprKind::Number(n) => PropertyValue::Number(*n),
                ExprKind::String(s) => PropertyValue::String(s.clone()),
                ExprKind::Symbol(a) => self.access(e.pos, a, deps)?,
                ExprKind::Interpolate(parts) => {
                    let mut values = Vec::new();
                    for p in parts {
                        values.push(match p {
                            Part::Text(t) => PropertyValue::String(t.clone()),
                            Part::Expr(a) => self.access(e.pos, a, deps)?,
                        });
                    }
                    concat(&values)
                }
                ExprKind::List(items) => {
                    let mut out = Vec::with_capacity(items.len());
                    for i in items {
                        out.push(self.eval_into(i, deps).await?);
                    }
                    PropertyValue::Array(out)
                }
                ExprKind::Object(m) => {
                    let mut out = PropertyMap::new();
                    for (k, v) in m {
                        out.insert(k.clone(), self.eval_into(v, deps).await?);
                    }
                    PropertyValue::Object(out)
                }
                ExprKind::Call(b, args) => self.call(*b, args, deps).await?,
                ExprKind::AssetArchive(members) => {
                    let mut values = Vec::with_capacity(members.len());
                    for (name, v) in members {
                        values.push((name.clone(), self.eval_into(v, deps).await?));
                    }
                    let all: Vec<PropertyValue> = values.iter().map(|(_, v)| v.clone()).collect();
                    lift(&all, |_| {
                        Ok(asset::asset_archive(
                            values.into_iter().map(|(k, v)| (k, v.reveal())).collect(),
                        ))
                    })
                    .map_err(|f| located(self.file, e.pos, f.message))?
                }
                ExprKind::Invoke(inv) => self.invoke(e.pos, inv, deps).await?,
                ExprKind::StackReference { stack, property } => {
                    self.stack_reference(e.pos, stack, property, deps).await?
                }
            })
        })
    }

    async fn call(
        &self,
        b: Builtin,
        args: &[Expr],
        deps: &mut Vec<Urn>,
    ) -> Result<PropertyValue, SourceError> {
        if matches!(b, Builtin::PulumiResourceName | Builtin::PulumiResourceType) {
            let arg = &args[0];
            let value = self.eval_into(arg, deps).await?;
            return match self.whole_resource(arg) {
                Some(r) => Ok(PropertyValue::String(if b == Builtin::PulumiResourceName {
                    r.urn.name().to_string()
                } else {
                    r.urn.type_().to_string()
                })),
                None if value.contains_unknowns() && self.is_failed_resource(arg) => {
                    Ok(PropertyValue::Unknown)
                }
                None => Err(located(
                    self.file,
                    arg.pos,
                    format!(
                        "{} requires a resource, got {}",
                        b.name(),
                        type_string(&value)
                    ),
                )),
            };
        }
        let mut values = Vec::with_capacity(args.len());
        for a in args {
            values.push(self.eval_into(a, deps).await?);
        }
        functions::apply(b, &values, &self.pulumi.cwd)
            .map_err(|f| located(self.file, args[f.arg.min(args.len() - 1)].pos, f.message))
    }

    /// The resource an expression names when it is exactly `${name}`.
    fn whole_resource(&self, e: &Expr) -> Option<Arc<ResourceValue>> {
        match &e.kind {
            ExprKind::Symbol(a) if a.path.is_empty() => match self.slots.get(&a.root) {
                Some(Slot::Resource(r)) => Some(r.clone()),
                _ => None,
            },
            _ => None,
        }
    }

    fn is_failed_resource(&self, e: &Expr) -> bool {
        matches!(&e.kind, ExprKind::Symbol(a)
            if matches!(self.slots.get(&a.root), Some(Slot::Failed | Slot::Disabled)))
    }

    /// `fn::stackReference`: the stack's output `property`, through the run's one reference to
    /// the stack.
    async fn stack_reference(
        &self,
        pos: Pos,
        stack: &str,
        property: &Expr,
        deps: &mut Vec<Urn>,
    ) -> Result<PropertyValue, SourceError> {
        let Some(monitor) = self.monitor else {
            return Err(located(
                self.file,
                pos,
                "fn::stackReference cannot be used here",
            ));
        };
        let at = format!("{}:{pos}", self.file);
        let reg = self
            .stack_refs
            .read(monitor, stack, at)
            .await
            .map_err(|e| located(self.file, pos, format!("fn::stackReference: {e}")))?;
        deps.push(reg.urn.clone());
        let name = self.eval_into(property, deps).await?;
        lift(&[name], |args| match &args[0] {
            PropertyValue::String(p) => Ok(output_of(&reg, p)),
            other => Err(functions::FnError {
                arg: 0,
                message: format!(
                    "expected property name argument to fn::stackReference to be a string, got {}",
                    type_string(other)
                ),
            }),
        })
        .map_err(|f| located(self.file, property.pos, f.message))
    }

    async fn invoke(
        &self,
        pos: Pos,
        inv: &Invoke,
        deps: &mut Vec<Urn>,
    ) -> Result<PropertyValue, SourceError> {
        let mut args = PropertyMap::new();
        for (k, v) in &inv.arguments {
            args.insert(k.clone(), self.eval_into(v, deps).await?);
        }
        let mut unknown = false;
        for d in &inv.depends_on {
            match self.whole_resource(d) {
                Some(r) => {
                    deps.push(r.urn.clone());
                    unknown |= r.unknown;
                }
                None if self.is_failed_resource(d) => unknown = true,
                None => {
                    return Err(located(
                        self.file,
                        d.pos,
                        "resource option dependsOn value must be a list of resources",
                    ));
                }
            }
        }
        let resource_option = |e: &Option<Expr>, what: &str| match e {
            None => Ok(None),
            Some(e) => match self.whole_resource(e) {
                Some(r) => Ok(Some(r)),
                None if self.is_failed_resource(e) => Ok(None),
                None => Err(located(
                    self.file,
                    e.pos,
                    format!("resource option {what} must be a resource"),
                )),
            },
        };
        let provider = resource_option(&inv.provider, "provider")?;
        let parent = resource_option(&inv.parent, "parent")?;
        let pkg = package_of(&inv.token);
        let provider_ref = match (&provider, &parent) {
            (Some(p), _) => {
                if !crate::engine::model::resource::is_provider_type(p.urn.type_()) {
                    return Err(located(
                        self.file,
                        inv.provider.as_ref().map_or(pos, |e| e.pos),
                        format!(
                            "resource passed as Provider was not a provider resource '{}'",
                            p.urn
                        ),
                    ));
                }
                unknown |= p.unknown;
                Some(p.provider_reference())
            }
            (None, Some(parent)) => parent.providers.get(pkg).cloned(),
            (None, None) => None,
        };
        if unknown
            || args.values().any(PropertyValue::contains_unknowns)
            || provider_ref
                .as_ref()
                .is_some_and(|r| r.id.ends_with(UNKNOWN_SENTINEL))
        {
            return Ok(PropertyValue::Unknown);
        }
        let Some(monitor) = self.monitor else {
            return Err(located(self.file, pos, "fn::invoke cannot be used here"));
        };
        let secret = args.values().any(PropertyValue::contains_secrets);
        let plain: PropertyMap = args.iter().map(|(k, v)| (k.clone(), v.reveal())).collect();
        let result = monitor
            .invoke_with_version(&inv.token, &plain, provider_ref, inv.version.clone())
            .await
            .map_err(|e| located(self.file, pos, e.to_string()))?;
        let value = match &inv.ret {
            None => PropertyValue::Object(result),
            Some(field) => result.get(field).cloned().ok_or_else(|| {
                located(
                    self.file,
                    pos,
                    format!(
                        "fn::invoke of {} did not contain a property '{field}' in the returned value",
                        inv.token
                    ),
                )
            })?,
        };
        Ok(if secret { secret_of(value) } else { value })
    }

    fn access(
        &self,
        pos: Pos,
        a: &Access,
        deps: &mut Vec<Urn>,
    ) -> Result<PropertyValue, SourceError> {
        let pos = Pos {
            line: pos.line,
            col: pos.col + a.offset as u32,
        };
        if a.root == "pulumi" {
            let (name, rest) = match a.path.split_first() {
                Some((Accessor::Property(p), rest)) => (p.as_str(), rest),
                _ => ("", &a.path[..]),
            };
            let p = self.pulumi;
            let value: PropertyValue = match name {
                "stack" => p.stack.clone().into(),
                "project" => p.project.clone().into(),
                "organization" => p.organization.clone().into(),
                "cwd" => p.cwd.to_string_lossy().into_owned().into(),
                "rootDirectory" => p.root_directory.to_string_lossy().into_owned().into(),
                other => {
                    return Err(located(
                        self.file,
                        pos,
                        format!("unknown property {other:?} of the pulumi variable"),
                    ));
                }
            };
            return self.walk(pos, value, rest);
        }
        match self.slots.get(&a.root) {
            Some(Slot::Value { value, deps: d }) => {
                deps.extend(d.iter().cloned());
                self.walk(pos, value.clone(), &a.path)
            }
            Some(Slot::Resource(r)) => {
                deps.push(r.urn.clone());
                self.resource_access(pos, a, r)
            }
            Some(Slot::Failed | Slot::Disabled) => Ok(PropertyValue::Unknown),
            None => match self.config_value(&a.root) {
                Some(v) => self.walk(pos, v.clone(), &a.path),
                None => Err(located(
                    self.file,
                    pos,
                    format!("resource, variable, or config value {:?} not found", a.root),
                )),
            },
        }
    }

    /// A config value by the name a program uses: as declared, or `<project>:key` for `key`.
    fn config_value(&self, name: &str) -> Option<&PropertyValue> {
        self.config.get(name).or_else(|| {
            name.strip_prefix(&format!("{}:", self.pulumi.project))
                .and_then(|bare| self.config.get(bare))
        })
    }

    fn resource_access(
        &self,
        pos: Pos,
        a: &Access,
        r: &ResourceValue,
    ) -> Result<PropertyValue, SourceError> {
        let Some((first, rest)) = a.path.split_first() else {
            return Ok(r.whole());
        };
        let name = match first {
            Accessor::Property(p) | Accessor::Key(p) => p.as_str(),
            Accessor::Index(_) => {
                return Err(located(
                    self.file,
                    pos,
                    "cannot access an object property using an integer index",
                ));
            }
        };
        match name {
            "urn" => return self.walk(pos, PropertyValue::String(r.urn.to_string()), rest),
            "id" if r.custom => return self.walk(pos, r.id_value(), rest),
            _ => {}
        }
        if r.unknown {
            return Ok(PropertyValue::Unknown);
        }
        match r.outputs.get(name) {
            Some(v) => self.walk(pos, v.clone(), rest),
            None if self.dry_run => Ok(PropertyValue::Unknown),
            None => Err(located(self.file, pos, missing_property(name, &a.root, r))),
        }
    }

    /// Follows a path into a value; unknowns stay unknown and secrets stay secret.
    fn walk(
        &self,
        pos: Pos,
        mut v: PropertyValue,
        path: &[Accessor],
    ) -> Result<PropertyValue, SourceError> {
        let mut secret = false;
        for step in path {
            while let PropertyValue::Secret(inner) = v {
                secret = true;
                v = *inner;
            }
            let index = match step {
                Accessor::Property(k) | Accessor::Key(k) => Index::Key(k),
                Accessor::Index(i) => Index::Position(*i),
            };
            v = match (&v, &index) {
                (PropertyValue::Unknown, _) => PropertyValue::Unknown,
                (PropertyValue::Object(m), Index::Key(k))
                    if !m.contains_key(*k) && v.contains_unknowns() =>
                {
                    PropertyValue::Unknown
                }
                (PropertyValue::Array(items), Index::Position(i))
                    if *i >= items.len() && self.dry_run && v.contains_unknowns() =>
                {
                    PropertyValue::Unknown
                }
                _ => index_value(&v, &index).map_err(|m| located(self.file, pos, m))?,
            };
        }
        Ok(if secret { secret_of(v) } else { v })
    }
}

/// Pulumi YAML's message for a property a resource does not have, listing the closest names.
fn missing_property(name: &str, resource: &str, r: &ResourceValue) -> String {
    let mut existing: Vec<&str> = r.outputs.keys().map(String::as_str).collect();
    existing.push("urn");
    if r.custom {
        existing.push("id");
    }
    no_such_field(name, resource, name, &existing, "properties")
}

/// The text a value contributes to an interpolated string.
pub(super) fn text_of(v: &PropertyValue) -> String {
    match v {
        PropertyValue::String(s) => s.clone(),
        PropertyValue::Number(n) => number_text(*n),
        PropertyValue::Bool(b) => b.to_string(),
        PropertyValue::Null => String::new(),
        PropertyValue::Secret(inner) => text_of(inner),
        other => other.reveal().to_json().to_string(),
    }
}

fn concat(values: &[PropertyValue]) -> PropertyValue {
    lift(values, |vs| {
        Ok(PropertyValue::String(vs.iter().map(text_of).collect()))
    })
    .unwrap_or(PropertyValue::Unknown)
}
