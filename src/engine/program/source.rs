//! The program side of a deployment: the resource monitor a program registers resources with,
//! whether the program is a YAML file evaluated in-process or an SDK program over gRPC.

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::sync::Arc;

use parking_lot::Mutex;

use async_trait::async_trait;
use futures::future::{BoxFuture, FutureExt, Shared};
use tokio::sync::{mpsc, oneshot};

use super::registration_check::{
    InvalidField, check_goal, check_invoke, check_properties, check_read_goal,
};
use super::resource_lookup::{GET_RESOURCE, ResourceLookup};
use crate::engine::hooks::Hooks;
use crate::engine::model::goal::{Goal, ReadGoal, package_of};
use crate::engine::model::property::PropertyMap;
use crate::engine::model::provider_ref::ProviderRef;
use crate::engine::model::resource::{is_provider_type, provider_type, provider_type_package};
use crate::engine::model::urn::{ROOT_STACK_TYPE, Urn, UrnMap, UrnSet};
use crate::engine::provider::download_url::{qualified_name, set_download_url};
use crate::engine::provider::parameterization::ParameterizedPackage;
use crate::engine::provider::registry::ProviderRegistry;
use crate::engine::provider::{CallRequest, CallResult, ConstructRequest, ProgramInfo, Provider};
use crate::engine::run::events::{EventSink, Severity};

use super::register_error::{FunctionCall, ProviderRefError};
pub use super::registration::{RegisterError, RegisterStatus, Registered};

/// Facts about the deployment a program may ask for.
#[derive(Clone, Debug, Default)]
pub struct DeploymentInfo {
    pub stack: String,
    pub project: String,
    pub dry_run: bool,
    pub parallel: usize,
    /// Stack configuration, `<namespace>:<key>` to the value's JSON text or string.
    pub config: BTreeMap<String, String>,
    pub secret_keys: Vec<String>,
}

pub(crate) type Reply<T> = oneshot::Sender<Result<T, RegisterError>>;

/// Requests from the program to the deployment loop.
pub(crate) enum SourceEvent {
    Register {
        goal: Box<Goal>,
        reply: Reply<Registered>,
    },
    RegisterOutputs {
        urn: Urn,
        outputs: PropertyMap,
        reply: Reply<()>,
    },
    Read {
        goal: ReadGoal,
        reply: Reply<Registered>,
    },
    /// The program registered everything (SignalAndWaitForShutdown); the reply comes when
    /// the deployment no longer needs its callbacks.
    Shutdown { reply: Reply<()> },
}

/// Options a child inherits from its parent when it does not set them.
#[derive(Clone, Debug, Default)]
struct Inherited {
    protect: bool,
    retain_on_delete: bool,
    deleted_with: Option<Urn>,
    /// Explicit providers by package, passed down to children of the same package.
    providers: BTreeMap<String, ProviderRef>,
}

impl Inherited {
    /// Nothing to pass down: such a resource is not recorded, since a parent missing from the
    /// table passes down the defaults (most resources are never anyone's parent).
    fn is_default(&self) -> bool {
        !self.protect
            && !self.retain_on_delete
            && self.deleted_with.is_none()
            && self.providers.is_empty()
    }
}

type DefaultProvider = Shared<BoxFuture<'static, Result<ProviderRef, RegisterError>>>;

/// Default providers registered so far, by what was asked of them.
type DefaultProviders = HashMap<DefaultRequest, DefaultProvider>;

/// What a default provider serves (Pulumi's `ProviderRequest`): a package, the version asked
/// for, and where its plugin comes from; each different request has its own default provider.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct DefaultRequest {
    package: String,
    version: Option<String>,
    download_url: Option<String>,
}

impl DefaultRequest {
    fn new(package: &str, version: Option<String>, download_url: Option<String>) -> DefaultRequest {
        // Pulumi trims a trailing `/` from the URL when a version is given (`parseProviderRequest`).
        let download_url = match (&version, download_url) {
            (Some(_), Some(url)) => Some(url.trim_end_matches('/').to_string()),
            (_, url) => url,
        };
        DefaultRequest {
            package: package.to_string(),
            version,
            download_url: download_url.filter(|u| !u.is_empty()),
        }
    }

    /// The default provider's name (Pulumi's `DefaultName`): `default`, the version's parts
    /// and the download URL as a qualified name (`default_1_2_3_get.example.test`).
    fn name(&self) -> String {
        let base = default_provider_name(self.version.as_deref());
        match &self.download_url {
            Some(url) => format!("{base}_{}", qualified_name(url)),
            None => base,
        }
    }
}

/// The stack config key listing packages whose default providers are denied.
const DISABLE_DEFAULT_PROVIDERS: &str = "pulumi:disable-default-providers";

/// The packages of the Python and Node.js SDKs' dynamic providers.
const DYNAMIC_PROVIDER_PACKAGES: [&str; 2] = ["pulumi-python", "pulumi-nodejs"];

/// A default provider's name (Pulumi's `DefaultName`): `default`, or for a requested version
/// `default_` and the version with its separators as underscores (`default_1_2_3_beta_1`).
pub(crate) fn default_provider_name(version: Option<&str>) -> String {
    match version {
        None => "default".to_string(),
        Some(v) => {
            let v = v.trim_start_matches('v');
            let flat: String = v
                .chars()
                .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
                .collect();
            format!("default_{flat}")
        }
    }
}

/// The handle a program registers resources through; clone it freely across tasks.
#[derive(Clone)]
pub struct ResourceMonitor {
    tx: mpsc::UnboundedSender<SourceEvent>,
    info: Arc<DeploymentInfo>,
    registry: Arc<ProviderRegistry>,
    events: EventSink,
    inherited: Arc<Mutex<UrnMap<Inherited>>>,
    defaults: Arc<Mutex<DefaultProviders>>,
    root: Arc<Mutex<Option<Urn>>>,
    /// The default providers this deployment registered. With the resources `lookup` records
    /// (every other registration and read), the only resources a request may name as parent,
    /// dependency, provider or owner of outputs.
    default_providers: Arc<Mutex<UrnSet>>,
    lookup: ResourceLookup,
    hooks: Arc<Hooks>,
    /// Parameterized packages the program registered, by package name and version: their
    /// default providers load the base plugin and parameterize it.
    parameterized: Arc<Mutex<HashMap<(String, String), ParameterizedPackage>>>,
    /// Where this monitor is served over gRPC, when it is: component providers constructing
    /// for an in-process program (YAML) register there.
    endpoint: Arc<std::sync::OnceLock<String>>,
}

impl ResourceMonitor {
    pub(crate) fn new(
        tx: mpsc::UnboundedSender<SourceEvent>,
        info: Arc<DeploymentInfo>,
        registry: Arc<ProviderRegistry>,
        events: EventSink,
    ) -> ResourceMonitor {
        ResourceMonitor {
            tx,
            info,
            registry,
            events,
            inherited: Arc::default(),
            defaults: Arc::default(),
            root: Arc::default(),
            default_providers: Arc::default(),
            lookup: ResourceLookup::default(),
            hooks: Arc::default(),
            parameterized: Arc::default(),
            endpoint: Arc::default(),
        }
    }

    /// Records the gRPC address this monitor is served at, for the component providers of an
    /// in-process program; the first address set stays.
    pub fn set_endpoint(&self, address: impl Into<String>) {
        let _ = self.endpoint.set(address.into());
    }

    /// Makes a parameterized package's default provider (of its name and version) the base
    /// plugin parameterized with the package's value.
    pub fn register_parameterized(&self, package: ParameterizedPackage) {
        let p = &package.parameterization;
        let key = (p.name.clone(), p.version.clone());
        self.parameterized.lock().insert(key, package);
    }

    /// Registers hooks into `hooks`, the set step application runs.
    pub(crate) fn with_hooks(mut self, hooks: Arc<Hooks>) -> ResourceMonitor {
        self.hooks = hooks;
        self
    }

    /// Where the program's resource and error hooks are registered.
    pub fn hooks(&self) -> &Hooks {
        &self.hooks
    }

    /// Tells the deployment the program registered everything, and waits until the
    /// deployment has run what may call back into the program (deletes and their hooks).
    pub async fn shutdown(&self) {
        let _ = self.send(|reply| SourceEvent::Shutdown { reply }).await;
    }

    pub fn info(&self) -> &DeploymentInfo {
        &self.info
    }

    /// The root stack resource's URN, once the program registered it.
    pub fn root(&self) -> Option<Urn> {
        self.root.lock().clone()
    }

    /// Lets an SDK set the root explicitly (the Engine service's SetRootResource); it must be a
    /// stack this deployment registered.
    pub fn set_root(&self, urn: Urn) -> Result<(), InvalidField> {
        self.check_registered("urn", &urn)?;
        if urn.type_() != ROOT_STACK_TYPE {
            return Err(InvalidField::new(
                "urn",
                format!("{urn} is not a {ROOT_STACK_TYPE} resource"),
            ));
        }
        *self.root.lock() = Some(urn);
        Ok(())
    }

    /// The field is written out only when the check fails: every registration checks each of
    /// its dependencies, and naming them up front cost an allocation each.
    fn check_registered(&self, field: impl fmt::Display, urn: &Urn) -> Result<(), InvalidField> {
        if self.lookup.contains(urn) || self.default_providers.lock().contains(urn) {
            Ok(())
        } else {
            Err(InvalidField::new(
                field.to_string(),
                format!("{urn} is not a registered resource"),
            ))
        }
    }

    fn check_provider_registered(
        &self,
        reference: Option<&ProviderRef>,
    ) -> Result<(), InvalidField> {
        match reference {
            Some(p) => self.check_registered("provider", &p.urn),
            None => Ok(()),
        }
    }

    /// Every resource a registration names must be registered already (an SDK learns a URN
    /// only from the answer to its registration).
    fn check_references(&self, goal: &Goal) -> Result<(), InvalidField> {
        if let Some(p) = &goal.parent {
            self.check_registered("parent", p)?;
        }
        for (i, d) in goal.dependencies.iter().enumerate() {
            self.check_registered(format_args!("dependencies[{i}]"), d)?;
        }
        for (key, deps) in &goal.property_dependencies {
            for (i, d) in deps.iter().enumerate() {
                self.check_registered(format_args!("propertyDependencies.{key}[{i}]"), d)?;
            }
        }
        if let Some(d) = &goal.deleted_with {
            self.check_registered("deletedWith", d)?;
        }
        for (i, r) in goal.replace_with.iter().enumerate() {
            self.check_registered(format_args!("replaceWith[{i}]"), r)?;
        }
        self.check_provider_registered(goal.provider.as_ref())
    }

    /// The URN a registration gets in this deployment's stack and project.
    fn urn(&self, parent: Option<&Urn>, ty: &str, name: &str) -> Urn {
        Urn::new(&self.info.stack, &self.info.project, parent, ty, name)
    }

    /// Registers a resource and waits until its step finished; applies parent inheritance and
    /// default providers as Pulumi's resource monitor does.
    pub async fn register(&self, mut goal: Goal) -> Result<Registered, RegisterError> {
        check_goal(&goal)?;
        let is_root = goal.type_ == ROOT_STACK_TYPE;
        if is_root {
            if let Some(root) = self.root() {
                return Err(InvalidField::new(
                    "type",
                    format!("the stack is registered already as {root}"),
                )
                .into());
            }
        } else if goal.parent.is_none() {
            goal.parent = self.root();
        }
        self.check_references(&goal)?;
        let parent = goal
            .parent
            .as_ref()
            .and_then(|p| self.inherited.lock().get(p).cloned());
        let parent = parent.unwrap_or_default();
        goal.protect = Some(goal.protect.unwrap_or(parent.protect));
        goal.retain_on_delete = Some(goal.retain_on_delete.unwrap_or(parent.retain_on_delete));
        if goal.deleted_with.is_none() {
            goal.deleted_with = parent.deleted_with.clone();
        }
        let is_provider = is_provider_type(&goal.type_);
        if goal.custom && !is_provider && goal.provider.is_none() {
            let pkg = goal.package().to_string();
            goal.provider = match parent.providers.get(&pkg) {
                Some(p) => Some(p.clone()),
                None => {
                    let user = || {
                        self.urn(goal.parent.as_ref(), &goal.type_, &goal.name)
                            .to_string()
                    };
                    let request = DefaultRequest::new(
                        &pkg,
                        goal.version.clone(),
                        goal.plugin_download_url.clone(),
                    );
                    Some(self.default_provider(request, user).await?)
                }
            };
        }
        if is_provider && let Some(url) = &goal.plugin_download_url {
            set_download_url(&mut goal.properties, url);
        }
        let mut providers = parent.providers.clone();
        if !goal.custom
            && let Some(p) = &goal.provider
        {
            let pkg = provider_type_package(p.urn.type_())
                .unwrap_or_default()
                .to_string();
            providers.insert(pkg, p.clone());
        }
        let own = Inherited {
            protect: goal.protect.unwrap_or(false),
            retain_on_delete: goal.retain_on_delete.unwrap_or(false),
            deleted_with: goal.deleted_with.clone(),
            providers,
        };
        let provider = goal.provider.clone();
        let reg = self
            .send(|reply| SourceEvent::Register {
                goal: Box::new(goal),
                reply,
            })
            .await?;
        self.lookup.record(&reg, provider);
        if is_root {
            *self.root.lock() = Some(reg.urn.clone());
        }
        if !own.is_default() {
            self.inherited.lock().insert(reg.urn.clone(), own);
        }
        Ok(reg)
    }

    /// Records a component's (or the stack's) outputs.
    pub async fn register_outputs(
        &self,
        urn: &Urn,
        outputs: PropertyMap,
    ) -> Result<(), RegisterError> {
        self.check_registered("urn", urn)?;
        check_properties("outputs", &outputs)?;
        self.lookup.record_outputs(urn, &outputs);
        let urn = urn.clone();
        self.send(|reply| SourceEvent::RegisterOutputs {
            urn,
            outputs,
            reply,
        })
        .await
    }

    /// Reads an existing resource the program does not manage.
    pub async fn read(&self, mut goal: ReadGoal) -> Result<Registered, RegisterError> {
        check_read_goal(&goal)?;
        if goal.parent.is_none() {
            goal.parent = self.root();
        }
        if let Some(p) = &goal.parent {
            self.check_registered("parent", p)?;
        }
        for (i, d) in goal.dependencies.iter().enumerate() {
            self.check_registered(format_args!("dependencies[{i}]"), d)?;
        }
        self.check_provider_registered(goal.provider.as_ref())?;
        if goal.provider.is_none() {
            let pkg = package_of(&goal.type_).to_string();
            let user = || {
                self.urn(goal.parent.as_ref(), &goal.type_, &goal.name)
                    .to_string()
            };
            let request = DefaultRequest::new(&pkg, goal.version.clone(), None);
            goal.provider = Some(self.default_provider(request, user).await?);
        }
        let provider = goal.provider.clone();
        let reg = self.send(|reply| SourceEvent::Read { goal, reply }).await?;
        self.lookup.record(&reg, provider);
        Ok(reg)
    }

    /// Calls a provider function; without an explicit provider, the default provider of the
    /// requested version serves it (an invoke's `version` option). `pulumi:pulumi:getResource`
    /// is answered here, from this deployment's registrations.
    pub async fn invoke_with_version(
        &self,
        token: &str,
        args: &PropertyMap,
        provider: Option<ProviderRef>,
        version: Option<String>,
    ) -> Result<PropertyMap, RegisterError> {
        check_invoke(token, args)?;
        if token == GET_RESOURCE {
            self.check_provider_registered(provider.as_ref())?;
            return self.lookup.get_resource(args);
        }
        let prov = self.provider_for(token, provider, version).await?;
        prov.invoke(token, args)
            .await
            .map_err(|source| RegisterError::Provider {
                call: Box::new(FunctionCall::Invoke(token.to_string())),
                source,
            })
    }

    /// Constructs a remote component through its package's provider (the explicit one, or the
    /// package's default provider); the provider registers the component and its children
    /// through this monitor, and its answer is the component's registration. The request's
    /// deployment facts (project, stack, config, dry run, parallel) are filled in here.
    pub async fn construct(
        &self,
        mut req: ConstructRequest,
        provider: Option<ProviderRef>,
        version: Option<String>,
    ) -> Result<Registered, RegisterError> {
        if let Some(parent) = &req.parent {
            self.check_registered("parent", parent)?;
        }
        for d in &req.dependencies {
            self.check_registered("dependencies", d)?;
        }
        let call = Box::new(FunctionCall::Construct {
            type_: req.type_.clone(),
            name: req.name.clone(),
        });
        let prov = self.provider_for(&req.type_, provider, version).await?;
        self.fill_info(&mut req.info);
        let built = prov
            .construct(req)
            .await
            .map_err(|source| RegisterError::Provider { call, source })?;
        self.check_registered("urn", &built.urn)?;
        Ok(Registered {
            urn: built.urn,
            id: None,
            outputs: built.state,
            status: RegisterStatus::Success,
            unknown: false,
        })
    }

    /// Calls a method of a component (`<type>/<method>`) through its package's provider; the
    /// provider may register resources through this monitor while it runs.
    pub async fn call(
        &self,
        mut req: CallRequest,
        provider: Option<ProviderRef>,
        version: Option<String>,
    ) -> Result<CallResult, RegisterError> {
        for deps in req.arg_dependencies.values() {
            for d in deps {
                self.check_registered("argDependencies", d)?;
            }
        }
        let prov = self.provider_for(&req.tok, provider, version).await?;
        self.fill_info(&mut req.info);
        let call = Box::new(FunctionCall::Call(req.tok.clone()));
        prov.call(req)
            .await
            .map_err(|source| RegisterError::Provider { call, source })
    }

    /// The provider of `token`'s package: the explicit one (which must be registered), or
    /// the package's default provider of `version`.
    async fn provider_for(
        &self,
        token: &str,
        provider: Option<ProviderRef>,
        version: Option<String>,
    ) -> Result<Arc<dyn Provider>, RegisterError> {
        self.check_provider_registered(provider.as_ref())?;
        let reference = match provider {
            Some(p) => p,
            None => {
                let request = DefaultRequest::new(package_of(token), version, None);
                self.default_provider(request, || token.to_string()).await?
            }
        };
        self.registry
            .get(&reference)
            .ok_or_else(|| ProviderRefError::Unknown(reference.to_string()).into())
    }

    /// The deployment facts a component provider is given.
    fn fill_info(&self, info: &mut ProgramInfo) {
        info.project = self.info.project.clone();
        info.stack = self.info.stack.clone();
        info.dry_run = self.info.dry_run;
        info.parallel = self.info.parallel;
        info.config = self.info.config.clone();
        info.config_secret_keys = self.info.secret_keys.clone();
        if info.monitor_endpoint.is_empty()
            && let Some(endpoint) = self.endpoint.get()
        {
            info.monitor_endpoint = endpoint.clone();
        }
    }

    /// The resource types the provider of a package declares, for resolving short type tokens
    /// and checking a program's types before it registers anything.
    pub fn resource_types(
        &self,
        package: &str,
        version: Option<&str>,
    ) -> Result<Vec<String>, crate::engine::provider::ProviderError> {
        self.registry.resource_types(package, version)
    }

    /// The types the provider of a package gives a resource type's inputs, for checking a
    /// program's values before it registers anything.
    pub async fn input_types(
        &self,
        package: &str,
        version: Option<&str>,
        token: &str,
    ) -> Result<
        Option<crate::engine::provider::input_types::ObjectType>,
        crate::engine::provider::ProviderError,
    > {
        self.registry.input_types(package, version, token).await
    }

    /// The component types the provider of a package declares in its schema.
    pub async fn component_types(
        &self,
        package: &str,
        version: Option<&str>,
    ) -> Result<Vec<String>, crate::engine::provider::ProviderError> {
        self.registry.component_types(package, version).await
    }

    /// Forwards a program's log message as a diagnostic.
    pub fn log(&self, severity: Severity, urn: Option<Urn>, message: impl Into<String>) {
        self.events.diag(urn, severity, message);
    }

    async fn send<T>(
        &self,
        make: impl FnOnce(Reply<T>) -> SourceEvent,
    ) -> Result<T, RegisterError> {
        let (reply, rx) = oneshot::channel();
        self.tx
            .send(make(reply))
            .map_err(|_| RegisterError::Cancelled)?;
        rx.await.map_err(|_| RegisterError::Cancelled)?
    }

    /// Registers (once per package, version and download URL) the default provider
    /// `pulumi:providers:<pkg>::default[_X_Y_Z][_<url>]`, configured from the stack's `<pkg>:*` config
    /// (and, for a parameterized package the program registered at that version, its base
    /// plugin and value under `__internal`), and returns its reference. `user` names what
    /// needs it, for the error when the stack's `pulumi:disable-default-providers` config
    /// denies default providers for the package (made only then: every registration asks).
    async fn default_provider(
        &self,
        request: DefaultRequest,
        user: impl FnOnce() -> String,
    ) -> Result<ProviderRef, RegisterError> {
        if self.default_provider_denied(&request.package)? {
            return Err(ProviderRefError::DefaultDisabled {
                package: request.package,
                user: user(),
            }
            .into());
        }
        let fut = {
            let mut defaults = self.defaults.lock();
            defaults
                .entry(request.clone())
                .or_insert_with(|| {
                    let this = self.clone();
                    let name = request.name();
                    let DefaultRequest {
                        package: pkg,
                        version,
                        download_url,
                    } = request;
                    async move {
                        let mut inputs = this.provider_config(&pkg);
                        if let Some(v) = &version {
                            inputs.insert(
                                "version".to_string(),
                                crate::engine::model::property::PropertyValue::String(v.clone()),
                            );
                            let package = this
                                .parameterized
                                .lock()
                                .get(&(pkg.clone(), v.clone()))
                                .cloned();
                            if let Some(package) = package {
                                inputs = package.provider_inputs(inputs);
                            }
                        }
                        if let Some(url) = &download_url {
                            set_download_url(&mut inputs, url);
                        }
                        let mut goal = Goal::custom(&provider_type(&pkg), &name, inputs);
                        goal.version = version;
                        goal.plugin_download_url = download_url;
                        let urn = this.urn(None, &goal.type_, &goal.name);
                        let reg = this
                            .send(|reply| SourceEvent::Register {
                                goal: Box::new(goal),
                                reply,
                            })
                            .await?;
                        this.default_providers.lock().insert(reg.urn.clone());
                        let id = reg.id.unwrap_or_default();
                        Ok(ProviderRef::new(urn, id))
                    }
                    .boxed()
                    .shared()
                })
                .clone()
        };
        fut.await
    }

    /// Whether `pulumi:disable-default-providers` (a JSON list of packages, `*` for all)
    /// denies the package's default provider.
    fn default_provider_denied(&self, pkg: &str) -> Result<bool, RegisterError> {
        let Some(raw) = self.info.config.get(DISABLE_DEFAULT_PROVIDERS) else {
            return Ok(false);
        };
        let denied: Vec<String> =
            serde_json::from_str(raw).map_err(|e| ProviderRefError::DisabledListMalformed {
                key: DISABLE_DEFAULT_PROVIDERS,
                source: Arc::new(e),
            })?;
        Ok(denied.iter().any(|d| d == "*" || d == pkg))
    }

    /// The default provider's inputs: the package's own keys without their namespace, or for
    /// the SDKs' dynamic providers the whole stack config with namespaced keys and text values,
    /// which their `configure()` reads (Pulumi's `Target.GetPackageConfig`).
    fn provider_config(&self, pkg: &str) -> PropertyMap {
        let prefix = format!("{pkg}:");
        let dynamic = DYNAMIC_PROVIDER_PACKAGES.contains(&pkg);
        self.info
            .config
            .iter()
            .filter_map(|(k, v)| {
                let key = if dynamic {
                    k.as_str()
                } else {
                    k.strip_prefix(&prefix)?
                };
                let value = serde_json::from_str::<serde_json::Value>(v)
                    .ok()
                    .filter(|j| !j.is_string() && !dynamic)
                    .and_then(|j| crate::engine::model::property::PropertyValue::from_json(&j).ok())
                    .unwrap_or_else(|| {
                        crate::engine::model::property::PropertyValue::String(v.clone())
                    });
                let value = if self.info.secret_keys.iter().any(|s| s == k) {
                    crate::engine::model::property::PropertyValue::Secret(Box::new(value))
                } else {
                    value
                };
                Some((key.to_string(), value))
            })
            .collect()
    }
}

/// Why a program failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ProgramError(pub String);

/// A program: anything that registers resources through a monitor and then returns.
#[async_trait]
pub trait Program: Send {
    async fn run(self: Box<Self>, monitor: ResourceMonitor) -> Result<(), ProgramError>;
}

/// A program made from an async closure (tests, embedders).
pub struct ProgramFn<F>(pub F);

#[async_trait]
impl<F, Fut> Program for ProgramFn<F>
where
    F: FnOnce(ResourceMonitor) -> Fut + Send + 'static,
    Fut: std::future::Future<Output = Result<(), ProgramError>> + Send + 'static,
{
    async fn run(self: Box<Self>, monitor: ResourceMonitor) -> Result<(), ProgramError> {
        (self.0)(monitor).await
    }
}
