//! Evaluation: runs a checked program against the engine's resource monitor. The root stack
//! registers first; then every variable and resource is a task that waits for exactly what it
//! references and registers as soon as that resolved, so independent resources register
//! concurrently, as they would from an SDK program.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Arc;

use async_trait::async_trait;
use tokio::sync::watch;
use tokio::task::JoinSet;

use crate::engine::goal::{Alias, Goal, ReadGoal};
use crate::engine::property::{PropertyMap, PropertyValue, UNKNOWN_SENTINEL};
use crate::engine::source::{Program, ProgramError, RegisterStatus, Registered, ResourceMonitor};
use crate::engine::urn::{ROOT_STACK_TYPE, Urn};
use crate::project::{ConfigType, config::value_text};

use super::analyze::{Analysis, Symbol};
use super::ast::{AliasDecl, Expr, ExprKind, ProgramAst, ResourceDecl};
use super::error::{Pos, SourceError};
use super::interpolate::{Access, Accessor, Part};
use super::node::number_text;

/// Whether a type registers as a component (no provider): stepdeck's convention is the module
/// `component` (`demo:component:Tier`), since Pulumi YAML itself can only use packaged
/// components.
pub fn is_component_type(ty: &str) -> bool {
    ty.split(':').nth(1) == Some("component")
}

/// A registered (or read) resource as dependents see it.
#[derive(Clone, Debug)]
struct ResourceValue {
    urn: Urn,
    id: Option<String>,
    outputs: PropertyMap,
    /// Failed, skipped or not yet existing: every output is unknown.
    unknown: bool,
    custom: bool,
}

/// The resolved value of a variable or resource.
#[derive(Clone, Debug)]
enum Slot {
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

type Slots = HashMap<String, Slot>;

/// What an evaluated expression carries: the value and the resources it came from.
struct Evaluated {
    value: PropertyValue,
    deps: Vec<Urn>,
}

/// Everything expression evaluation reads.
struct Scope<'a> {
    file: &'a str,
    config: &'a HashMap<String, PropertyValue>,
    slots: &'a Slots,
    stack: &'a str,
    project: &'a str,
    dry_run: bool,
}

impl Scope<'_> {
    fn eval(&self, e: &Expr) -> Result<Evaluated, SourceError> {
        let mut deps = Vec::new();
        let value = self.eval_into(e, &mut deps)?;
        deps.sort();
        deps.dedup();
        Ok(Evaluated { value, deps })
    }

    fn eval_into(&self, e: &Expr, deps: &mut Vec<Urn>) -> Result<PropertyValue, SourceError> {
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
            ExprKind::List(items) => PropertyValue::Array(
                items
                    .iter()
                    .map(|i| self.eval_into(i, deps))
                    .collect::<Result<_, _>>()?,
            ),
            ExprKind::Object(m) => PropertyValue::Object(
                m.iter()
                    .map(|(k, v)| Ok((k.clone(), self.eval_into(v, deps)?)))
                    .collect::<Result<_, SourceError>>()?,
            ),
            ExprKind::Secret(inner) => match self.eval_into(inner, deps)? {
                s @ PropertyValue::Secret(_) => s,
                v => PropertyValue::Secret(Box::new(v)),
            },
            ExprKind::ToJson(inner) => {
                let v = self.eval_into(inner, deps)?;
                lift(&[&v], |vs| {
                    PropertyValue::String(vs[0].reveal().to_json().to_string())
                })
            }
            ExprKind::Join(delim, items) => {
                let d = self.eval_into(delim, deps)?;
                let items = self.eval_into(items, deps)?;
                let Some(list) = items.as_array().map(<[_]>::to_vec) else {
                    return self.type_error(&items, e.pos, "fn::join needs a list of items");
                };
                let mut all = vec![&d];
                all.extend(list.iter());
                lift(&all, |vs| {
                    let d = text_of(vs[0]);
                    PropertyValue::String(
                        vs[1..]
                            .iter()
                            .map(|v| text_of(v))
                            .collect::<Vec<_>>()
                            .join(&d),
                    )
                })
            }
            ExprKind::Select(index, items) => {
                let i = self.eval_into(index, deps)?;
                let items = self.eval_into(items, deps)?;
                if i.contains_unknowns() || items.contains_unknowns() {
                    return Ok(PropertyValue::Unknown);
                }
                let (Some(n), Some(list)) = (i.as_f64(), items.as_array()) else {
                    return Err(SourceError::new(
                        self.file,
                        e.pos,
                        "fn::select needs a number and a list",
                    ));
                };
                let picked = list.get(n as usize).cloned().ok_or_else(|| {
                    SourceError::new(
                        self.file,
                        e.pos,
                        format!(
                            "fn::select: index {n} is out of range (list has {})",
                            list.len()
                        ),
                    )
                })?;
                if i.is_secret() || items.is_secret() {
                    PropertyValue::Secret(Box::new(picked))
                } else {
                    picked
                }
            }
        })
    }

    fn type_error(
        &self,
        v: &PropertyValue,
        pos: Pos,
        msg: &str,
    ) -> Result<PropertyValue, SourceError> {
        if v.contains_unknowns() {
            Ok(PropertyValue::Unknown)
        } else {
            Err(SourceError::new(self.file, pos, msg))
        }
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
            return Ok(match a.path.first() {
                Some(Accessor::Property(p)) if p == "stack" => self.stack.into(),
                Some(Accessor::Property(p)) if p == "project" => self.project.into(),
                _ => "organization".into(),
            });
        }
        if let Some(v) = self.config.get(&a.root) {
            return self.walk(pos, a, v.clone(), &a.path);
        }
        match self.slots.get(&a.root) {
            Some(Slot::Value { value, deps: d }) => {
                deps.extend(d.iter().cloned());
                self.walk(pos, a, value.clone(), &a.path)
            }
            Some(Slot::Resource(r)) => {
                deps.push(r.urn.clone());
                let whole = || match (&r.id, r.custom) {
                    (_, true) if r.unknown => PropertyValue::Unknown,
                    (Some(id), true) if id != UNKNOWN_SENTINEL && !id.is_empty() => {
                        PropertyValue::String(id.clone())
                    }
                    (_, true) => PropertyValue::Unknown,
                    (_, false) => PropertyValue::String(r.urn.to_string()),
                };
                match a.path.split_first() {
                    None => Ok(whole()),
                    Some((Accessor::Property(p), rest)) if p == "urn" => {
                        self.walk(pos, a, PropertyValue::String(r.urn.to_string()), rest)
                    }
                    Some((Accessor::Property(p), rest)) if p == "id" => {
                        self.walk(pos, a, whole(), rest)
                    }
                    _ if r.unknown => Ok(PropertyValue::Unknown),
                    _ => self.walk(pos, a, PropertyValue::Object(r.outputs.clone()), &a.path),
                }
            }
            Some(Slot::Failed | Slot::Disabled) | None => Ok(PropertyValue::Unknown),
        }
    }

    /// Follows a path into a value; unknowns stay unknown and secrets stay secret.
    fn walk(
        &self,
        pos: Pos,
        a: &Access,
        mut v: PropertyValue,
        path: &[Accessor],
    ) -> Result<PropertyValue, SourceError> {
        let mut secret = false;
        for step in path {
            while let PropertyValue::Secret(inner) = v {
                secret = true;
                v = *inner;
            }
            v = match (&v, step) {
                (PropertyValue::Unknown, _) => PropertyValue::Unknown,
                (PropertyValue::Object(m), Accessor::Property(k) | Accessor::Key(k)) => {
                    match m.get(k) {
                        Some(x) => x.clone(),
                        None if self.dry_run => PropertyValue::Unknown,
                        None => PropertyValue::Null,
                    }
                }
                (PropertyValue::Array(items), Accessor::Index(i)) => match items.get(*i) {
                    Some(x) => x.clone(),
                    None if self.dry_run => PropertyValue::Unknown,
                    None => {
                        return Err(SourceError::new(
                            self.file,
                            pos,
                            format!(
                                "`${{{a}}}`: index {i} is out of range (the list has {} items)",
                                items.len()
                            ),
                        ));
                    }
                },
                (other, _) => {
                    return Err(SourceError::new(
                        self.file,
                        pos,
                        format!("`${{{a}}}`: cannot index into {}", describe(other)),
                    ));
                }
            };
        }
        Ok(if secret && !v.is_secret() {
            PropertyValue::Secret(Box::new(v))
        } else {
            v
        })
    }
}

fn describe(v: &PropertyValue) -> &'static str {
    match v {
        PropertyValue::Null => "null",
        PropertyValue::Bool(_) => "a boolean",
        PropertyValue::Number(_) => "a number",
        PropertyValue::String(_) => "a string",
        PropertyValue::Array(_) => "a list",
        PropertyValue::Object(_) => "an object",
        _ => "a value",
    }
}

/// The text a value contributes to an interpolated string.
fn text_of(v: &PropertyValue) -> String {
    match v {
        PropertyValue::String(s) => s.clone(),
        PropertyValue::Number(n) => number_text(*n),
        PropertyValue::Bool(b) => b.to_string(),
        PropertyValue::Null => String::new(),
        PropertyValue::Secret(inner) => text_of(inner),
        other => other.reveal().to_json().to_string(),
    }
}

/// Applies `f` to plain values: any unknown makes the result unknown, any secret makes it
/// secret.
fn lift(
    values: &[&PropertyValue],
    f: impl FnOnce(&[&PropertyValue]) -> PropertyValue,
) -> PropertyValue {
    if values.iter().any(|v| v.contains_unknowns()) {
        return PropertyValue::Unknown;
    }
    let out = f(values);
    if values.iter().any(|v| v.contains_secrets()) {
        PropertyValue::Secret(Box::new(out))
    } else {
        out
    }
}

fn concat(values: &[PropertyValue]) -> PropertyValue {
    let refs: Vec<&PropertyValue> = values.iter().collect();
    lift(&refs, |vs| {
        PropertyValue::String(vs.iter().map(|v| text_of(v)).collect())
    })
}

/// A checked program ready to run.
#[derive(Clone, Debug)]
pub struct YamlProgram {
    pub ast: Arc<ProgramAst>,
    pub analysis: Arc<Analysis>,
}

impl YamlProgram {
    /// Typed config values by the names the program uses, from the stack's resolved config.
    fn config_values(
        &self,
        project: &str,
        config: &BTreeMap<String, String>,
        secret_keys: &[String],
    ) -> Result<HashMap<String, PropertyValue>, SourceError> {
        let file = self.ast.file.as_str();
        let mut out = HashMap::new();
        for c in &self.ast.config {
            let key = c.decl.key.to_string();
            let ty = c.decl.type_.clone().or_else(|| match &c.decl.default {
                Some(serde_json::Value::Number(_)) => Some(ConfigType::Number),
                Some(serde_json::Value::Bool(_)) => Some(ConfigType::Boolean),
                Some(serde_json::Value::Array(_)) => {
                    Some(ConfigType::List(Box::new(ConfigType::String)))
                }
                Some(serde_json::Value::Object(_)) => Some(ConfigType::Object),
                _ => None,
            });
            let ty = ty.unwrap_or(ConfigType::String);
            let text = config
                .get(&key)
                .cloned()
                .or_else(|| c.decl.default.as_ref().map(value_text));
            let Some(text) = text else {
                let short = if c.decl.key.namespace == project {
                    c.decl.key.name.clone()
                } else {
                    key.clone()
                };
                return Err(SourceError::new(
                    file,
                    c.pos,
                    format!(
                        "missing required configuration value {key} (set it with `config set {short} <value>`)"
                    ),
                ));
            };
            let json = ty
                .coerce(&text)
                .map_err(|why| SourceError::new(file, c.pos, format!("config {key}: {why}")))?;
            let value = PropertyValue::from_json(&json).unwrap_or(PropertyValue::String(text));
            let secret = c.decl.secret || secret_keys.iter().any(|k| k == &key);
            out.insert(
                c.name.clone(),
                if secret {
                    PropertyValue::Secret(Box::new(value))
                } else {
                    value
                },
            );
        }
        Ok(out)
    }
}

impl YamlProgram {
    /// The resources whose `if:` evaluates to false under this configuration.
    fn disabled(
        &self,
        config: &HashMap<String, PropertyValue>,
        stack: &str,
        project: &str,
    ) -> Result<HashSet<String>, SourceError> {
        let slots = Slots::new();
        let scope = Scope {
            file: &self.ast.file,
            config,
            slots: &slots,
            stack,
            project,
            dry_run: false,
        };
        let mut out = HashSet::new();
        for r in &self.ast.resources {
            let Some(cond) = &r.condition else { continue };
            match scope.eval(cond)?.value.reveal() {
                PropertyValue::Bool(true) => {}
                PropertyValue::Bool(false) => {
                    out.insert(r.key.clone());
                }
                other => {
                    return Err(SourceError::new(
                        &self.ast.file,
                        cond.pos,
                        format!(
                            "resource {:?}: `if` must be true or false, found {}",
                            r.key,
                            describe(&other)
                        ),
                    ));
                }
            }
        }
        Ok(out)
    }
}

#[async_trait]
impl Program for YamlProgram {
    async fn run(self: Box<Self>, monitor: ResourceMonitor) -> Result<(), ProgramError> {
        let info = monitor.info().clone();
        let config = self
            .config_values(&info.project, &info.config, &info.secret_keys)
            .map_err(|e| ProgramError(e.to_string()))?;
        let root = monitor
            .register(Goal::component(
                ROOT_STACK_TYPE,
                &format!("{}-{}", info.project, info.stack),
            ))
            .await
            .map_err(|e| ProgramError(format!("registering the stack failed: {e}")))?;

        let disabled = self
            .disabled(&config, &info.stack, &info.project)
            .map_err(|e| ProgramError(e.to_string()))?;
        let shared = Arc::new(Shared {
            ast: self.ast.clone(),
            analysis: self.analysis.clone(),
            disabled,
            config,
            stack: info.stack.clone(),
            project: info.project.clone(),
            dry_run: info.dry_run,
        });
        let mut senders = HashMap::new();
        let mut receivers = HashMap::new();
        for name in &self.analysis.order {
            let (tx, rx) = watch::channel(None::<Slot>);
            senders.insert(name.clone(), tx);
            receivers.insert(name.clone(), rx);
        }
        let receivers = Arc::new(receivers);
        let mut tasks = JoinSet::new();
        for name in &self.analysis.order {
            let Some(tx) = senders.remove(name) else {
                continue;
            };
            let shared = shared.clone();
            let receivers = receivers.clone();
            let monitor = monitor.clone();
            let name = name.clone();
            tasks.spawn(async move {
                let slots = wait_for_deps(&shared.analysis, &name, &receivers).await;
                let disabled_dep = slots
                    .iter()
                    .find(|(_, s)| matches!(s, Slot::Disabled))
                    .map(|(d, _)| d.clone());
                let result = if shared.disabled.contains(&name) {
                    Ok(Slot::Disabled)
                } else if slots.values().any(|s| matches!(s, Slot::Failed)) {
                    Ok(Slot::Failed)
                } else if let Some(dep) = disabled_dep {
                    Err(shared.disabled_error(&name, &dep))
                } else {
                    shared.resolve(&name, &slots, &monitor).await
                };
                match result {
                    Ok(slot) => {
                        tx.send_replace(Some(slot));
                        None
                    }
                    Err(e) => {
                        tx.send_replace(Some(Slot::Failed));
                        Some(e)
                    }
                }
            });
        }
        let mut errors = Vec::new();
        while let Some(done) = tasks.join_next().await {
            match done {
                Ok(Some(e)) => errors.push(e),
                Ok(None) => {}
                Err(join) => errors.push(format!("a program task failed: {join}")),
            }
        }
        if !errors.is_empty() {
            errors.sort();
            return Err(ProgramError(errors.join("\n")));
        }
        let slots: Slots = receivers
            .iter()
            .filter_map(|(k, rx)| Some((k.clone(), rx.borrow().clone()?)))
            .collect();
        let scope = shared.scope(&slots);
        let mut outputs = PropertyMap::new();
        for o in &self.ast.outputs {
            let v = scope
                .eval(&o.value)
                .map_err(|e| ProgramError(e.to_string()))?;
            outputs.insert(o.name.clone(), v.value);
        }
        monitor
            .register_outputs(&root.urn, outputs)
            .await
            .map_err(|e| ProgramError(format!("registering stack outputs failed: {e}")))
    }
}

/// Waits until every variable and resource `name` references has a value.
async fn wait_for_deps(
    analysis: &Analysis,
    name: &str,
    receivers: &HashMap<String, watch::Receiver<Option<Slot>>>,
) -> Slots {
    let mut slots = Slots::new();
    for dep in analysis.deps.get(name).into_iter().flatten() {
        let Some(rx) = receivers.get(dep) else {
            continue;
        };
        let mut rx = rx.clone();
        let slot = match rx.wait_for(Option::is_some).await {
            Ok(v) => v.clone().unwrap_or(Slot::Failed),
            Err(_) => Slot::Failed,
        };
        slots.insert(dep.clone(), slot);
    }
    slots
}

/// What every task of one run shares.
struct Shared {
    ast: Arc<ProgramAst>,
    analysis: Arc<Analysis>,
    /// Resources whose `if:` is false.
    disabled: HashSet<String>,
    config: HashMap<String, PropertyValue>,
    stack: String,
    project: String,
    dry_run: bool,
}

impl Shared {
    fn disabled_error(&self, name: &str, dep: &str) -> String {
        let pos = match self.analysis.symbols.get(name) {
            Some(Symbol::Resource(i)) => self.ast.resources[*i].pos,
            Some(Symbol::Variable(i)) => self.ast.variables[*i].pos,
            _ => Pos::default(),
        };
        SourceError::new(
            &self.ast.file,
            pos,
            format!(
                "{name:?} references resource {dep:?}, which this configuration disables with `if:`"
            ),
        )
        .to_string()
    }

    fn scope<'a>(&'a self, slots: &'a Slots) -> Scope<'a> {
        Scope {
            file: &self.ast.file,
            config: &self.config,
            slots,
            stack: &self.stack,
            project: &self.project,
            dry_run: self.dry_run,
        }
    }

    async fn resolve(
        &self,
        name: &str,
        slots: &Slots,
        monitor: &ResourceMonitor,
    ) -> Result<Slot, String> {
        let scope = self.scope(slots);
        match self.analysis.symbols.get(name) {
            Some(Symbol::Variable(i)) => {
                let v = scope
                    .eval(&self.ast.variables[*i].value)
                    .map_err(|e| e.to_string())?;
                Ok(Slot::Value {
                    value: v.value,
                    deps: v.deps,
                })
            }
            Some(Symbol::Resource(i)) => {
                let r = &self.ast.resources[*i];
                let reg = self
                    .register(&scope, r, slots, monitor)
                    .await
                    .map_err(|e| e.to_string())?;
                Ok(Slot::Resource(Arc::new(ResourceValue {
                    unknown: reg.unknown || reg.status != RegisterStatus::Success,
                    urn: reg.urn,
                    id: reg.id,
                    outputs: reg.outputs,
                    custom: !is_component_type(&r.type_),
                })))
            }
            _ => Err(format!("{name:?} is not a variable or resource")),
        }
    }

    async fn register(
        &self,
        scope: &Scope<'_>,
        r: &ResourceDecl,
        slots: &Slots,
        monitor: &ResourceMonitor,
    ) -> Result<Registered, SourceError> {
        let file = self.ast.file.as_str();
        let resource = |name: &str| match slots.get(name) {
            Some(Slot::Resource(v)) => Some(v.clone()),
            _ => None,
        };
        let urn_of = |name: &str| resource(name).map(|v| v.urn.clone());
        let o = &r.options;
        let parent = o.parent.as_ref().and_then(|p| urn_of(&p.name));
        let provider = o
            .provider
            .as_ref()
            .and_then(|p| resource(&p.name))
            .map(|p| {
                let id =
                    p.id.clone()
                        .filter(|id| !id.is_empty() && !p.unknown)
                        .unwrap_or_else(|| UNKNOWN_SENTINEL.to_string());
                format!("{}::{id}", p.urn)
            });
        let mut dependencies: Vec<Urn> = o
            .depends_on
            .iter()
            .filter_map(|d| urn_of(&d.name))
            .collect();
        let failed = |e: crate::engine::source::RegisterError| {
            SourceError::new(file, r.pos, format!("resource {:?}: {e}", r.key))
        };

        if let Some(get) = &r.get {
            let id = scope.eval(&get.id)?;
            dependencies.extend(id.deps);
            let mut properties = PropertyMap::new();
            for (k, e) in &get.state {
                let v = scope.eval(e)?;
                dependencies.extend(v.deps);
                properties.insert(k.clone(), v.value);
            }
            dependencies.sort();
            dependencies.dedup();
            let id = match id.value.reveal() {
                PropertyValue::String(s) => s,
                PropertyValue::Unknown => UNKNOWN_SENTINEL.to_string(),
                other => {
                    return Err(SourceError::new(
                        file,
                        get.id.pos,
                        format!(
                            "resource {:?}: `get.id` must be a string, found {}",
                            r.key,
                            describe(&other)
                        ),
                    ));
                }
            };
            let goal = ReadGoal {
                type_: r.type_.clone(),
                name: r.name.clone(),
                id,
                parent,
                provider,
                properties,
                dependencies,
                additional_secret_outputs: o.additional_secret_outputs.clone(),
                version: o.version.clone(),
            };
            return monitor.read(goal).await.map_err(failed);
        }

        let mut properties = PropertyMap::new();
        let mut property_dependencies = BTreeMap::new();
        for (k, e) in &r.properties {
            let v = scope.eval(e)?;
            dependencies.extend(v.deps.iter().cloned());
            if !v.deps.is_empty() {
                property_dependencies.insert(k.clone(), v.deps);
            }
            properties.insert(k.clone(), v.value);
        }
        let import_id = match &o.import {
            Some(e) => {
                let v = scope.eval(e)?;
                dependencies.extend(v.deps);
                Some(text_of(&v.value))
            }
            None => None,
        };
        dependencies.sort();
        dependencies.dedup();
        let aliases = o
            .aliases
            .iter()
            .map(|a| match a {
                AliasDecl::Urn(s) => Urn::parse(s).map(Alias::Urn).map_err(|e| {
                    SourceError::new(file, r.pos, format!("resource {:?}: alias: {e}", r.key))
                }),
                AliasDecl::Spec {
                    name,
                    type_,
                    parent,
                    no_parent,
                    project,
                    stack,
                } => Ok(Alias::Spec {
                    name: name.clone(),
                    type_: type_.clone(),
                    parent: parent.as_ref().and_then(|p| urn_of(&p.name)),
                    no_parent: *no_parent,
                    project: project.clone(),
                    stack: stack.clone(),
                }),
            })
            .collect::<Result<Vec<_>, _>>()?;
        let custom = !is_component_type(&r.type_);
        let goal = Goal {
            type_: r.type_.clone(),
            name: r.name.clone(),
            custom,
            parent,
            provider,
            properties,
            dependencies,
            property_dependencies,
            protect: o.protect,
            delete_before_replace: o.delete_before_replace,
            ignore_changes: o.ignore_changes.clone(),
            replace_on_changes: o.replace_on_changes.clone(),
            retain_on_delete: o.retain_on_delete,
            deleted_with: o.deleted_with.as_ref().and_then(|d| urn_of(&d.name)),
            aliases,
            import_id,
            custom_timeouts: o.custom_timeouts.clone(),
            additional_secret_outputs: o.additional_secret_outputs.clone(),
            version: o.version.clone(),
            source_position: Some(format!("{file}:{}", r.pos)),
        };
        monitor.register(goal).await.map_err(failed)
    }
}
