//! Evaluation: runs a checked program against the engine's resource monitor. The root stack
//! registers first; then every variable and resource is a task that waits for exactly what it
//! references and registers as soon as that resolved, so independent resources register
//! concurrently, as they would from an SDK program.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use async_trait::async_trait;
use futures::future::BoxFuture;
use tokio::sync::watch;
use tokio::task::JoinSet;

use crate::engine::model::property::UNKNOWN_SENTINEL;
use crate::engine::model::resource::PropertyDependencies;
use crate::engine::model::urn::ROOT_STACK_TYPE;
use crate::engine::program::source::DeploymentInfo;
use crate::engine::provider::stack_outputs::STACK_REFERENCE_TYPE;
use crate::engine::{
    Alias, Goal, Program, ProgramError, PropertyMap, PropertyValue, ProviderRef, ReadGoal,
    RegisterStatus, Registered, ResourceMonitor, Urn,
};
use crate::project::{ConfigType, LocalPlugin, config::value_text};

use super::analyze::{Analysis, Symbol};
use super::ast::{AliasDecl, Expr, GetDecl, ProgramAst, Properties, ResourceDecl, resolve_type};
use super::compiler::Compiler;
use super::component::{ComponentDef, Components};
use super::error::{Pos, SourceError};
use super::functions::type_string;
use super::remote_components::{self, RemoteComponents};
use super::scope::{PulumiVars, ResourceValue, Scope, Slot, Slots, text_of};
use super::stack_reference::{StackReferences, reference_goal};
use super::type_check::{check_resource_types, is_component_type};

/// A directory made absolute against the current directory, as `pulumi.cwd` reports it.
fn absolute(dir: &Path) -> PathBuf {
    std::path::absolute(dir).unwrap_or_else(|_| dir.to_path_buf())
}

/// Where a declared resource goes, worked out once before its goal is built: its type as the
/// provider names it, its parent and provider, and the resources it depends on so far.
struct Target {
    type_: String,
    parent: Option<Urn>,
    provider: Option<ProviderRef>,
    dependencies: Vec<Urn>,
}

/// Evaluates a map of properties; what each depends on joins `dependencies`, and is kept by
/// property for the properties that depend on something.
async fn eval_properties(
    scope: &Scope<'_>,
    entries: &[(String, Expr)],
    dependencies: &mut Vec<Urn>,
) -> Result<(PropertyMap, PropertyDependencies), SourceError> {
    let mut properties = PropertyMap::new();
    let mut by_property = PropertyDependencies::new();
    for (k, e) in entries {
        let v = scope.eval(e).await?;
        dependencies.extend(v.deps.iter().cloned());
        if !v.deps.is_empty() {
            by_property.insert(k.clone(), v.deps);
        }
        properties.insert(k.clone(), v.value);
    }
    Ok((properties, by_property))
}

/// [`eval_properties`] for a resource, whose `properties:` may be one expression: its object's
/// entries are the properties, each secret when the object is, each depending on what it does.
async fn resource_properties(
    scope: &Scope<'_>,
    r: &ResourceDecl,
    dependencies: &mut Vec<Urn>,
) -> Result<(PropertyMap, PropertyDependencies), SourceError> {
    let e = match &r.properties {
        Properties::Map(entries) => return eval_properties(scope, entries, dependencies).await,
        Properties::Expr(e) => e,
    };
    let v = scope.eval(e).await?;
    dependencies.extend(v.deps.iter().cloned());
    let (object, secret) = match v.value {
        PropertyValue::Secret(inner) => (*inner, true),
        other => (other, false),
    };
    let entries = match object {
        PropertyValue::Object(map) => map,
        PropertyValue::Null => PropertyMap::new(),
        PropertyValue::Unknown => {
            return Err(SourceError::new(
                scope.file,
                e.pos,
                format!(
                    "resources.{}.properties is not known until the resources it references \
                     exist; name each property instead",
                    r.key
                ),
            ));
        }
        other => {
            return Err(SourceError::new(
                scope.file,
                e.pos,
                format!(
                    "resources.{}.properties must be an object, instead got type {}",
                    r.key,
                    type_string(&other)
                ),
            ));
        }
    };
    let mut properties = PropertyMap::new();
    let mut by_property = PropertyDependencies::new();
    for (k, value) in entries {
        if !v.deps.is_empty() {
            by_property.insert(k.clone(), v.deps.clone());
        }
        let value = if secret {
            PropertyValue::Secret(Box::new(value))
        } else {
            value
        };
        properties.insert(k, value);
    }
    Ok((properties, by_property))
}

/// A checked program ready to run.
#[derive(Clone, Debug)]
pub struct YamlProgram {
    pub ast: Arc<ProgramAst>,
    pub analysis: Arc<Analysis>,
    /// The program's directory (`pulumi.cwd`): file functions resolve relative paths here.
    pub dir: PathBuf,
    /// The directory holding `Pulumi.yaml` (`pulumi.rootDirectory`).
    pub root_dir: PathBuf,
    /// The YAML components of the component packages the program names in `packages:`.
    pub components: Arc<Components>,
    /// The plugins served from the project's paths (Pulumi.yaml's and the program's own
    /// `packages:`), whose schemas may declare components constructed by their provider.
    pub local_plugins: Arc<Vec<LocalPlugin>>,
    /// `runtime.options.compiler`: the program is what it prints, at each run.
    pub compiler: Option<Compiler>,
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
        let declared: HashSet<String> = self
            .ast
            .config
            .iter()
            .map(|c| c.decl.key.to_string())
            .collect();
        let own = format!("{project}:");
        for (key, text) in config {
            if declared.contains(key) {
                continue;
            }
            let name = key.strip_prefix(&own).unwrap_or(key);
            let value = match serde_json::from_str::<serde_json::Value>(text) {
                Ok(json @ (serde_json::Value::Object(_) | serde_json::Value::Array(_))) => {
                    PropertyValue::from_json(&json).unwrap_or(PropertyValue::String(text.clone()))
                }
                _ => PropertyValue::String(text.clone()),
            };
            let value = if secret_keys.iter().any(|k| k == key) {
                PropertyValue::Secret(Box::new(value))
            } else {
                value
            };
            out.entry(name.to_string()).or_insert(value);
        }
        Ok(out)
    }

    /// References the analysis could not resolve must name stack config keys.
    pub(super) fn check_references(
        &self,
        config: &HashMap<String, PropertyValue>,
        project: &str,
    ) -> Result<(), SourceError> {
        check_references(&self.ast, &self.analysis, config, project)
    }
}

/// References the analysis could not resolve must name config keys (`config`).
fn check_references(
    ast: &ProgramAst,
    analysis: &Analysis,
    config: &HashMap<String, PropertyValue>,
    project: &str,
) -> Result<(), SourceError> {
    let own = format!("{project}:");
    for u in &analysis.unresolved {
        let bare = u.name.strip_prefix(&own).unwrap_or(&u.name);
        if !config.contains_key(&u.name) && !config.contains_key(bare) {
            return Err(SourceError::new(&ast.file, u.pos, u.message.clone()));
        }
    }
    Ok(())
}

/// The resources whose `if:` evaluates to false under this configuration.
async fn disabled(
    ast: &ProgramAst,
    config: &HashMap<String, PropertyValue>,
    pulumi: &PulumiVars,
) -> Result<HashSet<String>, SourceError> {
    let slots = Slots::new();
    let stack_refs = StackReferences::default();
    let scope = Scope {
        file: &ast.file,
        config,
        slots: &slots,
        pulumi,
        dry_run: false,
        monitor: None,
        stack_refs: &stack_refs,
    };
    let mut out = HashSet::new();
    for r in &ast.resources {
        let Some(cond) = &r.condition else { continue };
        match scope.eval(cond).await?.value.reveal() {
            PropertyValue::Bool(true) => {}
            PropertyValue::Bool(false) => {
                out.insert(r.key.clone());
            }
            other => {
                return Err(SourceError::new(
                    &ast.file,
                    cond.pos,
                    format!(
                        "resource {:?}: `if` must be true or false, found {}",
                        r.key,
                        type_string(&other)
                    ),
                ));
            }
        }
    }
    Ok(out)
}

#[async_trait]
impl Program for YamlProgram {
    async fn run(self: Box<Self>, monitor: ResourceMonitor) -> Result<(), ProgramError> {
        let info = monitor.info().clone();
        let compiled;
        let program = match &self.compiler {
            Some(compiler) => {
                compiled = self
                    .compiled(compiler, &info)
                    .await
                    .map_err(|e| ProgramError(e.to_string()))?;
                &compiled
            }
            None => &*self,
        };
        program.evaluate(monitor, info).await
    }
}

impl YamlProgram {
    /// Runs the program: config typed and checked, types checked, the stack registered and
    /// every resource as soon as what it references resolved.
    async fn evaluate(
        &self,
        monitor: ResourceMonitor,
        info: DeploymentInfo,
    ) -> Result<(), ProgramError> {
        let config = self
            .config_values(&info.project, &info.config, &info.secret_keys)
            .and_then(|c| self.check_references(&c, &info.project).map(|()| c))
            .map_err(|e| ProgramError(e.to_string()))?;
        let type_errors = check_resource_types(&self.ast, &self.components, &monitor).await;
        if !type_errors.is_empty() {
            let lines: Vec<String> = type_errors.iter().map(ToString::to_string).collect();
            return Err(ProgramError(lines.join("\n")));
        }
        let pulumi = PulumiVars {
            stack: info.stack.clone(),
            project: info.project.clone(),
            organization: "organization".to_string(),
            cwd: absolute(&self.dir),
            root_directory: absolute(&self.root_dir),
        };
        let root = monitor
            .register(Goal::component(
                ROOT_STACK_TYPE,
                &format!("{}-{}", info.project, info.stack),
            ))
            .await
            .map_err(|e| ProgramError(format!("registering the stack failed: {e}")))?;

        let shared = Shared::new(
            (self.ast.clone(), self.analysis.clone()),
            config,
            pulumi,
            info.dry_run,
            None,
            (
                self.components.clone(),
                Arc::new(RemoteComponents::new(
                    self.local_plugins.iter().map(|p| p.name.clone()),
                )),
            ),
            StackReferences::default(),
        )
        .await
        .map_err(|e| ProgramError(e.to_string()))?;
        let outputs = evaluate_template(shared, monitor.clone())
            .await
            .map_err(ProgramError)?;
        monitor
            .register_outputs(&root.urn, outputs)
            .await
            .map_err(|e| ProgramError(format!("registering stack outputs failed: {e}")))
    }
}

/// Evaluates a program or component body: every variable and resource as a task that waits for
/// what it references, then the outputs. Errors are located messages, one a line.
fn evaluate_template(
    shared: Arc<Shared>,
    monitor: ResourceMonitor,
) -> BoxFuture<'static, Result<PropertyMap, String>> {
    Box::pin(async move {
        let mut senders = HashMap::new();
        let mut receivers = HashMap::new();
        for name in &shared.analysis.order {
            let (tx, rx) = watch::channel(None::<Slot>);
            senders.insert(name.clone(), tx);
            receivers.insert(name.clone(), rx);
        }
        let receivers = Arc::new(receivers);
        let mut tasks = JoinSet::new();
        for name in &shared.analysis.order {
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
            return Err(errors.join("\n"));
        }
        let slots: Slots = receivers
            .iter()
            .filter_map(|(k, rx)| Some((k.clone(), rx.borrow().clone()?)))
            .collect();
        let scope = shared.scope(&slots, &monitor);
        let mut outputs = PropertyMap::new();
        for o in &shared.ast.outputs {
            let v = scope.eval(&o.value).await.map_err(|e| e.to_string())?;
            outputs.insert(o.name.clone(), v.value);
        }
        Ok(outputs)
    })
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
    pulumi: PulumiVars,
    dry_run: bool,
    /// The component whose body this is: the parent of resources that name none.
    parent: Option<Urn>,
    components: Arc<Components>,
    remote: Arc<RemoteComponents>,
    stack_refs: StackReferences,
}

impl Shared {
    /// What the tasks of one program or component `body` share; its `if:` conditions are
    /// evaluated here, before anything registers.
    async fn new(
        body: (Arc<ProgramAst>, Arc<Analysis>),
        config: HashMap<String, PropertyValue>,
        pulumi: PulumiVars,
        dry_run: bool,
        parent: Option<Urn>,
        components: (Arc<Components>, Arc<RemoteComponents>),
        stack_refs: StackReferences,
    ) -> Result<Arc<Shared>, SourceError> {
        let (ast, analysis) = body;
        let (components, remote) = components;
        let disabled = disabled(&ast, &config, &pulumi).await?;
        Ok(Arc::new(Shared {
            ast,
            analysis,
            disabled,
            config,
            pulumi,
            dry_run,
            parent,
            components,
            remote,
            stack_refs,
        }))
    }

    /// Whether a type is a custom resource (neither a stepdeck nor a YAML component).
    fn is_custom(&self, ty: &str) -> bool {
        !is_component_type(ty) && self.components.get(ty).is_none()
    }

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

    fn scope<'a>(&'a self, slots: &'a Slots, monitor: &'a ResourceMonitor) -> Scope<'a> {
        Scope {
            file: &self.ast.file,
            config: &self.config,
            slots,
            pulumi: &self.pulumi,
            dry_run: self.dry_run,
            monitor: Some(monitor),
            stack_refs: &self.stack_refs,
        }
    }

    async fn resolve(
        &self,
        name: &str,
        slots: &Slots,
        monitor: &ResourceMonitor,
    ) -> Result<Slot, String> {
        let scope = self.scope(slots, monitor);
        match self.analysis.symbols.get(name) {
            Some(Symbol::Variable(i)) => {
                let v = scope
                    .eval(&self.ast.variables[*i].value)
                    .await
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
                    custom: self.is_custom(&r.type_),
                    providers: self.providers_of(r, slots).map_err(|e| e.to_string())?,
                })))
            }
            _ => Err(format!("{name:?} is not a variable or resource")),
        }
    }

    /// The explicit providers by package a resource passes to its children: its parent's,
    /// then its `providers`, then its own `provider`.
    fn providers_of(
        &self,
        r: &ResourceDecl,
        slots: &Slots,
    ) -> Result<BTreeMap<String, ProviderRef>, SourceError> {
        let resource = |name: &str| match slots.get(name) {
            Some(Slot::Resource(v)) => Some(v.clone()),
            _ => None,
        };
        let mut out = r
            .options
            .parent
            .as_ref()
            .and_then(|p| resource(&p.name))
            .map(|p| p.providers.clone())
            .unwrap_or_default();
        for p in r.options.providers.iter().chain(r.options.provider.iter()) {
            let Some(v) = resource(&p.name) else { continue };
            let Some(pkg) = crate::engine::model::resource::provider_type_package(v.urn.type_())
            else {
                return Err(SourceError::new(
                    &self.ast.file,
                    p.pos,
                    format!(
                        "resource passed as provider was not a provider resource '{}'",
                        v.urn
                    ),
                ));
            };
            out.insert(pkg.to_string(), v.provider_reference());
        }
        Ok(out)
    }

    async fn register(
        &self,
        scope: &Scope<'_>,
        r: &ResourceDecl,
        slots: &Slots,
        monitor: &ResourceMonitor,
    ) -> Result<Registered, SourceError> {
        let file = self.ast.file.as_str();
        // Only providers name their types: components and `pulumi:` types keep theirs.
        let type_ = if !self.is_custom(&r.type_) || r.type_.starts_with("pulumi:") {
            r.type_.clone()
        } else {
            let declared = monitor
                .resource_types(
                    crate::engine::model::goal::package_of(&r.type_),
                    r.options.version.as_deref(),
                )
                .unwrap_or_default();
            resolve_type(&r.type_, &declared)
        };
        let resource = |name: &str| match slots.get(name) {
            Some(Slot::Resource(v)) => Some(v.clone()),
            _ => None,
        };
        let urn_of = |name: &str| resource(name).map(|v| v.urn.clone());
        let o = &r.options;
        let parent = match &o.parent {
            Some(p) => urn_of(&p.name),
            None => self.parent.clone(),
        };
        let providers = self.providers_of(r, slots)?;
        let provider = match o.provider.as_ref().and_then(|p| resource(&p.name)) {
            Some(p) => Some(p.provider_reference()),
            None if self.is_custom(&r.type_) => providers
                .get(crate::engine::model::goal::package_of(&r.type_))
                .cloned(),
            None => None,
        };
        let dependencies: Vec<Urn> = o
            .depends_on
            .iter()
            .filter_map(|d| urn_of(&d.name))
            .collect();
        let failed = |e: crate::engine::RegisterError| {
            SourceError::new(file, r.pos, format!("resource {:?}: {e}", r.key))
        };
        let target = Target {
            type_,
            parent,
            provider,
            dependencies,
        };
        if let Some(get) = &r.get {
            let goal = self.read_goal(scope, r, get, target).await?;
            return monitor.read(goal).await.map_err(failed);
        }
        if target.type_ == STACK_REFERENCE_TYPE {
            let goal = self.stack_reference_goal(scope, r, target).await?;
            return monitor.read(goal).await.map_err(failed);
        }
        let remote_provider = target.provider.clone();
        let goal = self.resource_goal(scope, r, target, &urn_of).await?;
        if self.is_custom(&r.type_)
            && self
                .remote
                .is_remote(&goal.type_, o.version.as_deref(), monitor)
                .await
                .map_err(|e| SourceError::new(file, r.pos, format!("resource {:?}: {e}", r.key)))?
        {
            return remote_components::construct(monitor, goal, remote_provider, providers)
                .await
                .map_err(failed);
        }
        match self.components.get(&r.type_) {
            Some(def) => {
                let inputs = goal.properties.clone();
                let reg = monitor.register(goal).await.map_err(failed)?;
                self.construct(def, r, reg, inputs, monitor).await
            }
            None => monitor.register(goal).await.map_err(failed),
        }
    }

    /// The read a resource with `get:` becomes: its id and state evaluated.
    async fn read_goal(
        &self,
        scope: &Scope<'_>,
        r: &ResourceDecl,
        get: &GetDecl,
        target: Target,
    ) -> Result<ReadGoal, SourceError> {
        let file = self.ast.file.as_str();
        let o = &r.options;
        let Target {
            type_,
            parent,
            provider,
            mut dependencies,
        } = target;
        let id = scope.eval(&get.id).await?;
        dependencies.extend(id.deps);
        let (properties, _) = eval_properties(scope, &get.state, &mut dependencies).await?;
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
                        type_string(&other)
                    ),
                ));
            }
        };
        Ok(ReadGoal {
            type_,
            name: r.name.clone(),
            id,
            parent,
            provider,
            properties,
            dependencies,
            additional_secret_outputs: o.additional_secret_outputs.clone(),
            version: o.version.clone(),
        })
    }

    /// The read a `pulumi:pulumi:StackReference` becomes: as in Pulumi YAML, its id is its
    /// `name` property, the resource's key when the property is left out.
    async fn stack_reference_goal(
        &self,
        scope: &Scope<'_>,
        r: &ResourceDecl,
        target: Target,
    ) -> Result<ReadGoal, SourceError> {
        let file = self.ast.file.as_str();
        let Target {
            parent,
            provider,
            mut dependencies,
            ..
        } = target;
        // As in Pulumi YAML, a stack reference is a read whose id is its `name` property,
        // the resource's key when the property is left out.
        let (mut properties, _) = resource_properties(scope, r, &mut dependencies).await?;
        let name = match properties.remove("name").map(|v| v.reveal()) {
            None => r.key.clone(),
            Some(PropertyValue::String(s)) => s,
            Some(other) => {
                return Err(SourceError::new(
                    file,
                    r.pos,
                    format!(
                        "'name' property must be a string, instead got type {}",
                        type_string(&other)
                    ),
                ));
            }
        };
        dependencies.sort();
        dependencies.dedup();
        let mut goal = reference_goal(&name, properties);
        goal.name = r.name.clone();
        goal.parent = parent;
        goal.provider = provider;
        goal.dependencies = dependencies;
        goal.version = r.options.version.clone();
        Ok(goal)
    }

    /// The goal a resource declaration becomes: properties, options and their dependencies
    /// evaluated.
    async fn resource_goal(
        &self,
        scope: &Scope<'_>,
        r: &ResourceDecl,
        target: Target,
        urn_of: &impl Fn(&str) -> Option<Urn>,
    ) -> Result<Goal, SourceError> {
        let file = self.ast.file.as_str();
        let o = &r.options;
        let Target {
            type_,
            parent,
            provider,
            mut dependencies,
        } = target;
        let (properties, property_dependencies) =
            resource_properties(scope, r, &mut dependencies).await?;
        let protect = match &o.protect {
            None => None,
            Some(e) => match scope.eval(e).await?.value.reveal() {
                PropertyValue::Bool(b) => Some(b),
                _ => {
                    return Err(SourceError::new(
                        file,
                        e.pos,
                        "protect must be a boolean value",
                    ));
                }
            },
        };
        let import_id = match &o.import {
            Some(e) => {
                let v = scope.eval(e).await?;
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
        let replacement_trigger = match &o.replacement_trigger {
            Some(e) => scope.eval(e).await?.value,
            None => PropertyValue::Null,
        };
        let custom = self.is_custom(&r.type_);
        let (name, aliases) = self.child_name(r, &type_, aliases);
        let goal = Goal {
            type_,
            name,
            custom,
            parent,
            provider,
            properties,
            dependencies,
            property_dependencies,
            protect,
            delete_before_replace: o.delete_before_replace,
            ignore_changes: o.ignore_changes.clone(),
            replace_on_changes: o.replace_on_changes.clone(),
            hide_diffs: o.hide_diffs.clone(),
            retain_on_delete: o.retain_on_delete,
            deleted_with: o.deleted_with.as_ref().and_then(|d| urn_of(&d.name)),
            replace_with: o
                .replace_with
                .iter()
                .filter_map(|d| urn_of(&d.name))
                .collect(),
            replacement_trigger,
            aliases,
            import_id,
            adopt_read: None,
            custom_timeouts: o.custom_timeouts.clone(),
            additional_secret_outputs: o.additional_secret_outputs.clone(),
            version: o.version.clone(),
            plugin_download_url: o.plugin_download_url.clone(),
            source_position: Some(format!("{file}:{}", r.pos)),
            hooks: Default::default(),
        };
        Ok(goal)
    }

    /// The name a resource registers under, and its aliases. Inside a YAML component it is
    /// prefixed with the component instance's name (`web-bucket`), so that two instances do not
    /// collide, as Pulumi YAML names them since 1.33; an alias to the unprefixed name under the
    /// component lets a stack from before keep its resources, unless a sibling is literally
    /// named what this one now is (the two claims would collide).
    fn child_name(
        &self,
        r: &ResourceDecl,
        type_: &str,
        mut aliases: Vec<Alias>,
    ) -> (String, Vec<Alias>) {
        let Some(component) = &self.parent else {
            return (r.name.clone(), aliases);
        };
        let name = format!("{}-{}", component.name(), r.name);
        let taken = self
            .ast
            .resources
            .iter()
            .any(|s| s.key != r.key && s.name == name);
        if !taken {
            aliases.push(Alias::Urn(Urn::new(
                component.stack(),
                component.project(),
                Some(component),
                type_,
                &r.name,
            )));
        }
        (name, aliases)
    }

    /// Evaluates a YAML component's body under its registered resource `reg`, its inputs typed
    /// by the component's `inputs:`; the component's outputs become the resource's.
    async fn construct(
        &self,
        def: &ComponentDef,
        r: &ResourceDecl,
        reg: Registered,
        inputs: PropertyMap,
        monitor: &ResourceMonitor,
    ) -> Result<Registered, SourceError> {
        let file = self.ast.file.as_str();
        let failed = |why: String| {
            SourceError::new(
                file,
                r.pos,
                format!("component {:?} ({}) failed:\n{why}", r.key, r.type_),
            )
        };
        let mut config = HashMap::new();
        for c in &def.ast.config {
            let value = match inputs.get(&c.name) {
                Some(v) => v.clone(),
                None => match &c.decl.default {
                    Some(d) => PropertyValue::from_json(d).map_err(|e| failed(e.to_string()))?,
                    None => {
                        return Err(SourceError::new(
                            file,
                            r.pos,
                            format!(
                                "resource {:?}: missing required input {:?} of component {}",
                                r.key, c.name, r.type_
                            ),
                        ));
                    }
                },
            };
            config.insert(c.name.clone(), value);
        }
        let project = self.pulumi.project.as_str();
        check_references(&def.ast, &def.analysis, &config, project)
            .map_err(|e| failed(e.to_string()))?;
        let shared = Shared::new(
            (def.ast.clone(), def.analysis.clone()),
            config,
            self.pulumi.clone(),
            self.dry_run,
            Some(reg.urn.clone()),
            (self.components.clone(), self.remote.clone()),
            // A stack is read once per run, whichever body references it.
            self.stack_refs.clone(),
        )
        .await
        .map_err(|e| failed(e.to_string()))?;
        let outputs = evaluate_template(shared, monitor.clone())
            .await
            .map_err(failed)?;
        monitor
            .register_outputs(&reg.urn, outputs.clone())
            .await
            .map_err(|e| failed(e.to_string()))?;
        Ok(Registered { outputs, ..reg })
    }
}
