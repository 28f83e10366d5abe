//! The `pulumirpc.ResourceMonitor` service: SDK programs register resources here, and each
//! registration becomes a goal for the engine's resource monitor, answered when its step ends.

pub mod engine_service;
pub mod package_refs;

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, OnceLock};

use tokio::sync::watch;
use tonic::transport::Server;
use tonic::transport::server::Router;
use tonic::{Request, Response, Status};

use self::engine_service::EngineService;
use self::package_refs::PackageRefs;
use super::MAX_MESSAGE_SIZE;
use super::callbacks::Callbacks;
use super::callbacks::hooks::CallbackHook;
use super::callbacks::transforms::Transforms;
use super::marshal::{
    MarshalOptions, map_to_struct, mark_secret_outputs, struct_to_map, value_to_property,
};
use super::pulumirpc::engine_server::EngineServer;
use super::pulumirpc::resource_monitor_server::{
    ResourceMonitor as MonitorRpc, ResourceMonitorServer,
};
use super::pulumirpc::{
    self, Alias as WireAlias, CallResponse, Callback, DeploymentInfo, ReadResourceRequest,
    ReadResourceResponse, RegisterErrorHookRequest, RegisterPackageRequest,
    RegisterPackageResponse, RegisterResourceHookRequest, RegisterResourceOutputsRequest,
    RegisterResourceRequest, RegisterResourceResponse, ResourceCallRequest, ResourceInvokeRequest,
    ResourceInvokeResponse, ResourceMonitorFeature, SupportsFeatureRequest,
    SupportsFeatureResponse, alias, register_resource_request,
};
use super::transport::server::{PrivateAddress, ServerHandle, serve_loopback, serve_private};
use crate::engine::hooks::{HookBindings, HookKind, ResourceHook};
use crate::engine::model::resource::{CustomTimeouts, PropertyDependencies, is_provider_type};
use crate::engine::program::registration_check::{InvalidField, check_version, provider_reference};
use crate::engine::provider::{CallRequest, ConstructRequest, ProgramInfo};
use crate::engine::{
    Alias, EventSink, Goal, PropertyValue, ProviderRef, ReadGoal, RegisterError, RegisterStatus,
    Registered, ResourceMonitor, Urn,
};

/// Organization reported to programs when the stack has none.
pub const DEFAULT_ORGANIZATION: &str = "organization";

/// The features we implement, by the ids `SupportsFeature` is asked about (and the enum values
/// `GetDeploymentInfo` lists). `parameterization` covers parameterized packages, not
/// extension packages (`RegisterPackage` refuses those). Answered false, because we do not
/// implement them: `outputValues` (programs then send plain values), and the newer enum-only
/// features (options sent to hooks, byte strings, invoke dependsOn/parent, state migrations,
/// output values in invokes and calls).
const SUPPORTED_FEATURES: &[(&str, ResourceMonitorFeature)] = &[
    ("secrets", ResourceMonitorFeature::Secrets),
    (
        "resourceReferences",
        ResourceMonitorFeature::ResourceReferences,
    ),
    ("aliasSpecs", ResourceMonitorFeature::AliasSpecs),
    ("deletedWith", ResourceMonitorFeature::DeletedWith),
    ("replaceWith", ResourceMonitorFeature::ReplaceWith),
    ("transforms", ResourceMonitorFeature::Transforms),
    ("invokeTransforms", ResourceMonitorFeature::InvokeTransforms),
    ("resourceHooks", ResourceMonitorFeature::ResourceHooks),
    ("errorHooks", ResourceMonitorFeature::ErrorHooks),
    (
        "replacementTrigger",
        ResourceMonitorFeature::ReplacementTrigger,
    ),
    ("parameterization", ResourceMonitorFeature::Parameterization),
];

/// Serves ResourceMonitor on top of the engine's monitor.
#[derive(Clone)]
pub struct MonitorService {
    monitor: ResourceMonitor,
    organization: String,
    refused: Option<Arc<watch::Sender<bool>>>,
    callbacks: Arc<Callbacks>,
    transforms: Arc<Transforms>,
    /// Packages registered with `RegisterPackage`, by reference.
    packages: Arc<PackageRefs>,
    /// This service's loopback address, given to component providers to register through.
    address: Arc<OnceLock<String>>,
}

impl MonitorService {
    /// Serves `monitor`, reporting `organization` in GetDeploymentInfo.
    pub fn new(monitor: ResourceMonitor, organization: impl Into<String>) -> MonitorService {
        let callbacks = Arc::new(Callbacks::default());
        MonitorService {
            monitor,
            organization: organization.into(),
            refused: None,
            transforms: Arc::new(Transforms::new(callbacks.clone())),
            callbacks,
            packages: Arc::default(),
            address: Arc::default(),
        }
    }

    /// Sets `refused` when the engine refuses a registration, so the language host can stop the
    /// program (the engine has reported why, and the run fails).
    pub fn with_refusal_signal(mut self, refused: Arc<watch::Sender<bool>>) -> MonitorService {
        self.refused = Some(refused);
        self
    }

    /// A remote component: its package's provider constructs it, registering the component
    /// and its children through this service; the program gets the component's URN and state.
    async fn construct(
        &self,
        req: RegisterResourceRequest,
    ) -> Result<Response<RegisterResourceResponse>, Status> {
        let (accept_secrets, accept_resources) = (req.accept_secrets, req.accept_resources);
        let providers = providers_of("RegisterResourceRequest", &req.providers)?;
        let goal = goal_of(req)?;
        let package = crate::engine::model::goal::package_of(&goal.type_);
        let provider = goal
            .provider
            .clone()
            .or_else(|| providers.get(package).cloned());
        let construct = ConstructRequest {
            type_: goal.type_,
            name: goal.name,
            parent: goal.parent,
            inputs: goal.properties,
            input_dependencies: goal.property_dependencies,
            dependencies: goal.dependencies,
            protect: goal.protect,
            providers,
            additional_secret_outputs: goal.additional_secret_outputs.clone(),
            deleted_with: goal.deleted_with,
            ignore_changes: goal.ignore_changes,
            replace_on_changes: goal.replace_on_changes,
            retain_on_delete: goal.retain_on_delete,
            hooks: goal.hooks,
            info: self.program_info(),
        };
        let reg = match self
            .monitor
            .construct(construct, provider, goal.version)
            .await
        {
            Ok(reg) => reg,
            // The provider's error goes back to the program, which fails with it, as Pulumi's
            // engine answers a failed Construct.
            Err(e) if !e.is_invalid_request() && !matches!(e, RegisterError::Cancelled) => {
                return Err(register_status("RegisterResourceRequest", e));
            }
            Err(e) => return Err(self.refusal("RegisterResourceRequest", e)),
        };
        Ok(Response::new(RegisterResourceResponse {
            urn: reg.urn.to_string(),
            id: String::new(),
            object: Some(outputs_struct(
                &reg,
                &goal.additional_secret_outputs,
                accept_secrets,
                accept_resources,
            )),
            result: result_of(reg.status) as i32,
            ..RegisterResourceResponse::default()
        }))
    }

    /// What a component provider is told about the deployment beyond what the engine knows:
    /// where to register and the organization.
    fn program_info(&self) -> ProgramInfo {
        ProgramInfo {
            monitor_endpoint: self.address.get().cloned().unwrap_or_default(),
            organization: self.organization.clone(),
            ..ProgramInfo::default()
        }
    }

    /// A hook registration's callback, which must name the server to call.
    fn checked_callback(
        &self,
        message: &str,
        callback: Option<Callback>,
    ) -> Result<Callback, Status> {
        let callback =
            callback.ok_or_else(|| invalid(&format!("{message}.callback"), "must be given"))?;
        Callbacks::check(&callback).map_err(|e| invalid(&format!("{message}.callback"), e))?;
        Ok(callback)
    }

    /// A refused registration or read: the engine reported why and the run fails, so the SDK is
    /// told the monitor is shutting down (UNAVAILABLE), which both SDKs treat as "stop quietly".
    /// A malformed request is the program's error: INVALID_ARGUMENT naming the field of
    /// `message`, and the deployment goes on.
    fn refusal(&self, message: &str, e: RegisterError) -> Status {
        if let RegisterError::Rejected(f) = &e {
            return rejected(message, f);
        }
        if let Some(refused) = &self.refused {
            refused.send_replace(true);
        }
        Status::unavailable(e.to_string())
    }
}

/// Serves ResourceMonitor and Engine on one private Unix socket (programs get the same address
/// as `--monitor` and `--engine`); only the program we start is told where it is. Component
/// providers are told the same services' loopback address (`server::serve_loopback`), which
/// their SDKs can dial. `refused` is set when the engine refuses a registration.
pub async fn serve(
    monitor: ResourceMonitor,
    events: EventSink,
    organization: &str,
    refused: Arc<watch::Sender<bool>>,
) -> std::io::Result<(PrivateAddress, ServerHandle)> {
    let (router, address) = router(monitor, events, organization, refused);
    let (private, handle) = serve_private(router.clone()).await?;
    let (loopback, loopback_handle) = serve_loopback(router).await?;
    let _ = address.set(loopback.to_string());
    Ok((private, handle.and(loopback_handle)))
}

/// [`serve`] on loopback TCP only, to our own user's connections: for a program that runs in
/// a process we did not start (an Automation API's inline program), whose gRPC channels we do
/// not make and whose C core cannot reach our Unix socket.
pub async fn serve_on_loopback(
    monitor: ResourceMonitor,
    events: EventSink,
    organization: &str,
    refused: Arc<watch::Sender<bool>>,
) -> std::io::Result<(std::net::SocketAddr, ServerHandle)> {
    let (router, address) = router(monitor, events, organization, refused);
    let (loopback, handle) = serve_loopback(router).await?;
    let _ = address.set(loopback.to_string());
    Ok((loopback, handle))
}

/// The resource monitor and engine services of one deployment, and the cell that learns the
/// monitor's loopback address once served.
fn router(
    monitor: ResourceMonitor,
    events: EventSink,
    organization: &str,
    refused: Arc<watch::Sender<bool>>,
) -> (Router, Arc<OnceLock<String>>) {
    let engine = EngineService::new(Some(monitor.clone()), events);
    let monitor = MonitorService::new(monitor, organization).with_refusal_signal(refused);
    let address = monitor.address.clone();
    let router = Server::builder()
        .add_service(
            ResourceMonitorServer::new(monitor)
                .max_decoding_message_size(MAX_MESSAGE_SIZE)
                .max_encoding_message_size(MAX_MESSAGE_SIZE),
        )
        .add_service(
            EngineServer::new(engine)
                .max_decoding_message_size(MAX_MESSAGE_SIZE)
                .max_encoding_message_size(MAX_MESSAGE_SIZE),
        );
    (router, address)
}

fn invalid(field: &str, e: impl std::fmt::Display) -> Status {
    Status::invalid_argument(format!("{field}: {e}"))
}

fn parse_urn(field: &str, s: &str) -> Result<Urn, Status> {
    Urn::parse(s).map_err(|e| invalid(field, e))
}

fn opt_urn(field: &str, s: &str) -> Result<Option<Urn>, Status> {
    if s.is_empty() {
        Ok(None)
    } else {
        parse_urn(field, s).map(Some)
    }
}

/// A request's `provider` field, parsed; empty is none.
fn opt_provider(message: &str, reference: &str) -> Result<Option<ProviderRef>, Status> {
    if reference.is_empty() {
        return Ok(None);
    }
    provider_reference("provider", reference)
        .map(Some)
        .map_err(|f| rejected(message, &f))
}

/// A request's `providers` map (package to reference), parsed.
fn providers_of(
    message: &str,
    providers: &HashMap<String, String>,
) -> Result<BTreeMap<String, ProviderRef>, Status> {
    providers
        .iter()
        .map(|(pkg, reference)| {
            provider_reference(&format!("providers.{pkg}"), reference)
                .map(|p| (pkg.clone(), p))
                .map_err(|f| rejected(message, &f))
        })
        .collect()
}

fn non_empty(s: String) -> Option<String> {
    (!s.is_empty()).then_some(s)
}

/// INVALID_ARGUMENT naming the field as `<message>.<field>: <reason>`.
fn rejected(message: &str, f: &InvalidField) -> Status {
    Status::invalid_argument(format!("{message}.{f}"))
}

fn register_status(message: &str, e: RegisterError) -> Status {
    match e {
        RegisterError::Rejected(f) => rejected(message, &f),
        RegisterError::Cancelled => Status::cancelled("the deployment was cancelled"),
        e if e.is_invalid_request() => Status::invalid_argument(e.to_string()),
        e => Status::internal(e.to_string()),
    }
}

/// Parses a Go duration as the SDKs send custom timeouts (`"1h30m"`, `"2m"`, `"30s"`, `"1.5s"`).
pub fn parse_duration(s: &str) -> Result<f64, String> {
    if s.is_empty() {
        return Ok(0.0);
    }
    let mut total = 0.0;
    let mut rest = s;
    while !rest.is_empty() {
        let num_len = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .ok_or_else(|| format!("duration {s:?} lacks a unit"))?;
        let n: f64 = rest[..num_len]
            .parse()
            .map_err(|_| format!("invalid duration {s:?}"))?;
        rest = &rest[num_len..];
        let unit_len = rest
            .find(|c: char| c.is_ascii_digit() || c == '.')
            .unwrap_or(rest.len());
        let scale = match &rest[..unit_len] {
            "h" => 3600.0,
            "m" => 60.0,
            "s" => 1.0,
            "ms" => 1e-3,
            "us" | "µs" => 1e-6,
            "ns" => 1e-9,
            u => return Err(format!("invalid duration {s:?}: unknown unit {u:?}")),
        };
        total += n * scale;
        rest = &rest[unit_len..];
    }
    Ok(total)
}

fn custom_timeouts(
    t: Option<register_resource_request::CustomTimeouts>,
) -> Result<Option<CustomTimeouts>, Status> {
    let Some(t) = t else { return Ok(None) };
    let field = |name: &str, v: &str| {
        parse_duration(v)
            .map_err(|e| invalid(&format!("RegisterResourceRequest.customTimeouts.{name}"), e))
    };
    let ct = CustomTimeouts {
        create: field("create", &t.create)?,
        update: field("update", &t.update)?,
        delete: field("delete", &t.delete)?,
        read: field("read", &t.read)?,
    };
    Ok((ct != CustomTimeouts::default()).then_some(ct))
}

fn aliases(req: &RegisterResourceRequest) -> Result<Vec<Alias>, Status> {
    let mut out = Vec::new();
    for u in &req.alias_ur_ns {
        out.push(Alias::Urn(parse_urn(
            "RegisterResourceRequest.aliasURNs",
            u,
        )?));
    }
    for a in &req.aliases {
        out.push(alias_of(a)?);
    }
    Ok(out)
}

fn alias_of(a: &WireAlias) -> Result<Alias, Status> {
    match &a.alias {
        Some(alias::Alias::Urn(u)) => Ok(Alias::Urn(parse_urn(
            "RegisterResourceRequest.aliases.urn",
            u,
        )?)),
        Some(alias::Alias::Spec(spec)) => {
            let (parent, no_parent) = match &spec.parent {
                Some(alias::spec::Parent::ParentUrn(p)) => (
                    opt_urn("RegisterResourceRequest.aliases.spec.parentUrn", p)?,
                    false,
                ),
                Some(alias::spec::Parent::NoParent(b)) => (None, *b),
                None => (None, false),
            };
            Ok(Alias::Spec {
                name: non_empty(spec.name.clone()),
                type_: non_empty(spec.r#type.clone()),
                parent,
                no_parent,
                project: non_empty(spec.project.clone()),
                stack: non_empty(spec.stack.clone()),
            })
        }
        None => Err(invalid(
            "RegisterResourceRequest.aliases",
            "alias with neither urn nor spec",
        )),
    }
}

fn source_position(p: Option<&pulumirpc::SourcePosition>) -> Option<String> {
    let p = p.filter(|p| !p.uri.is_empty())?;
    Some(if p.column > 0 {
        format!("{}#{},{}", p.uri, p.line, p.column)
    } else {
        format!("{}#{}", p.uri, p.line)
    })
}

/// Builds the engine's goal from a wire registration, option by option.
pub fn goal_of(req: RegisterResourceRequest) -> Result<Goal, Status> {
    let properties = struct_to_map(req.object.as_ref(), MarshalOptions::ALL)
        .map_err(|e| invalid("RegisterResourceRequest.object", e))?;
    let dependencies = req
        .dependencies
        .iter()
        .map(|d| parse_urn("RegisterResourceRequest.dependencies", d))
        .collect::<Result<_, _>>()?;
    let property_dependencies = req
        .property_dependencies
        .iter()
        .map(|(k, deps)| {
            let urns = deps
                .urns
                .iter()
                .map(|u| {
                    parse_urn(
                        &format!("RegisterResourceRequest.propertyDependencies.{k}"),
                        u,
                    )
                })
                .collect::<Result<Vec<_>, _>>()?;
            Ok((k.clone(), urns))
        })
        .collect::<Result<PropertyDependencies, Status>>()?;
    let delete_before_replace = if req.delete_before_replace_defined || req.delete_before_replace {
        Some(req.delete_before_replace)
    } else {
        None
    };
    let providers = providers_of("RegisterResourceRequest", &req.providers)?;
    let package = crate::engine::model::goal::package_of(&req.r#type);
    let provider = match opt_provider("RegisterResourceRequest", &req.provider)? {
        Some(p) => Some(p),
        None if req.custom => providers.get(package).cloned(),
        None => None,
    };
    Ok(Goal {
        aliases: aliases(&req)?,
        custom_timeouts: custom_timeouts(req.custom_timeouts)?,
        parent: opt_urn("RegisterResourceRequest.parent", &req.parent)?,
        deleted_with: opt_urn("RegisterResourceRequest.deletedWith", &req.deleted_with)?,
        replace_with: req
            .replace_with
            .iter()
            .map(|u| parse_urn("RegisterResourceRequest.replaceWith", u))
            .collect::<Result<_, _>>()?,
        replacement_trigger: match &req.replacement_trigger {
            Some(v) => value_to_property(v, MarshalOptions::ALL, "replacementTrigger")
                .map_err(|e| invalid("RegisterResourceRequest.replacementTrigger", e))?
                .unwrap_or_default(),
            None => PropertyValue::Null,
        },
        source_position: source_position(req.source_position.as_ref()),
        hooks: req.hooks.map(hook_bindings).unwrap_or_default(),
        type_: req.r#type,
        name: req.name,
        custom: req.custom,
        provider,
        properties,
        dependencies,
        property_dependencies,
        protect: req.protect,
        delete_before_replace,
        ignore_changes: req.ignore_changes,
        replace_on_changes: req.replace_on_changes,
        hide_diffs: req.hide_diffs,
        retain_on_delete: req.retain_on_delete,
        import_id: non_empty(req.import_id),
        adopt_read: None,
        additional_secret_outputs: req.additional_secret_outputs,
        version: non_empty(req.version),
        plugin_download_url: non_empty(req.plugin_download_url),
    })
}

/// The hook names of a registration, by lifecycle point (empty lists left out).
fn hook_bindings(b: register_resource_request::ResourceHooksBinding) -> HookBindings {
    [
        (HookKind::BeforeCreate, b.before_create),
        (HookKind::AfterCreate, b.after_create),
        (HookKind::BeforeUpdate, b.before_update),
        (HookKind::AfterUpdate, b.after_update),
        (HookKind::BeforeDelete, b.before_delete),
        (HookKind::AfterDelete, b.after_delete),
        (HookKind::OnError, b.on_error),
    ]
    .into_iter()
    .filter(|(_, names)| !names.is_empty())
    .collect()
}

fn result_of(status: RegisterStatus) -> pulumirpc::Result {
    match status {
        RegisterStatus::Success => pulumirpc::Result::Success,
        RegisterStatus::Failed | RegisterStatus::Skipped => pulumirpc::Result::Fail,
    }
}

/// Outputs as sent back to a program: additionalSecretOutputs applied, then encoded for what
/// the program said it accepts.
fn outputs_struct(
    reg: &Registered,
    secret_outputs: &[String],
    accept_secrets: bool,
    accept_resources: bool,
) -> prost_types::Struct {
    let mut outputs = reg.outputs.clone();
    mark_secret_outputs(&mut outputs, secret_outputs);
    map_to_struct(
        &outputs,
        MarshalOptions::for_peer(accept_secrets, accept_resources),
    )
}

#[tonic::async_trait]
impl MonitorRpc for MonitorService {
    async fn get_deployment_info(
        &self,
        _req: Request<()>,
    ) -> Result<Response<DeploymentInfo>, Status> {
        let info = self.monitor.info();
        Ok(Response::new(DeploymentInfo {
            project: info.project.clone(),
            stack: info.stack.clone(),
            organization: self.organization.clone(),
            config: info.config.clone().into_iter().collect(),
            config_secret_keys: info.secret_keys.clone(),
            dry_run: info.dry_run,
            parallel: i32::try_from(info.parallel).unwrap_or(i32::MAX),
            supported_features: SUPPORTED_FEATURES.iter().map(|(_, f)| *f as i32).collect(),
        }))
    }

    async fn supports_feature(
        &self,
        req: Request<SupportsFeatureRequest>,
    ) -> Result<Response<SupportsFeatureResponse>, Status> {
        let id = req.into_inner().id;
        if id.is_empty() {
            return Err(invalid("SupportsFeatureRequest.id", "must not be empty"));
        }
        let has_support = SUPPORTED_FEATURES.iter().any(|(name, _)| *name == id);
        Ok(Response::new(SupportsFeatureResponse { has_support }))
    }

    async fn invoke(
        &self,
        req: Request<ResourceInvokeRequest>,
    ) -> Result<Response<ResourceInvokeResponse>, Status> {
        let mut req = req.into_inner();
        self.transforms
            .apply_invoke(&mut req)
            .await
            .map_err(|e| Status::unknown(e.to_string()))?;
        self.packages.apply(
            "ResourceInvokeRequest",
            &req.package_ref,
            &req.tok,
            &mut req.version,
        )?;
        let args = struct_to_map(req.args.as_ref(), MarshalOptions::ALL)
            .map_err(|e| invalid("ResourceInvokeRequest.args", e))?;
        if !req.version.is_empty() {
            check_version("version", &req.version)
                .map_err(|f| rejected("ResourceInvokeRequest", &f))?;
        }
        let result = self
            .monitor
            .invoke_with_version(
                &req.tok,
                &args,
                opt_provider("ResourceInvokeRequest", &req.provider)?,
                non_empty(req.version),
            )
            .await
            .map_err(|e| register_status("ResourceInvokeRequest", e))?;
        Ok(Response::new(ResourceInvokeResponse {
            r#return: Some(map_to_struct(
                &result,
                MarshalOptions::for_peer(true, req.accept_resources),
            )),
            failures: Vec::new(),
            unknown: false,
        }))
    }

    async fn call(
        &self,
        req: Request<ResourceCallRequest>,
    ) -> Result<Response<CallResponse>, Status> {
        let mut req = req.into_inner();
        self.packages.apply(
            "ResourceCallRequest",
            &req.package_ref,
            &req.tok,
            &mut req.version,
        )?;
        let args = struct_to_map(req.args.as_ref(), MarshalOptions::ALL)
            .map_err(|e| invalid("ResourceCallRequest.args", e))?;
        let mut arg_dependencies = BTreeMap::new();
        for (k, deps) in &req.arg_dependencies {
            let field = format!("ResourceCallRequest.argDependencies.{k}");
            let urns = deps
                .urns
                .iter()
                .map(|u| parse_urn(&field, u))
                .collect::<Result<Vec<_>, _>>()?;
            arg_dependencies.insert(k.clone(), urns);
        }
        let call = CallRequest {
            tok: req.tok,
            args,
            arg_dependencies,
            info: self.program_info(),
        };
        let result = self
            .monitor
            .call(
                call,
                opt_provider("ResourceCallRequest", &req.provider)?,
                non_empty(req.version),
            )
            .await
            .map_err(|e| register_status("ResourceCallRequest", e))?;
        let failures = result
            .failures
            .into_iter()
            .map(|f| pulumirpc::CheckFailure {
                property: f.property,
                reason: f.reason,
            })
            .collect();
        Ok(Response::new(CallResponse {
            r#return: Some(map_to_struct(&result.outputs, MarshalOptions::ALL)),
            return_dependencies: Default::default(),
            failures,
        }))
    }

    async fn read_resource(
        &self,
        req: Request<ReadResourceRequest>,
    ) -> Result<Response<ReadResourceResponse>, Status> {
        let mut req = req.into_inner();
        self.packages.apply(
            "ReadResourceRequest",
            &req.package_ref,
            &req.r#type,
            &mut req.version,
        )?;
        let goal = ReadGoal {
            properties: struct_to_map(req.properties.as_ref(), MarshalOptions::ALL)
                .map_err(|e| invalid("ReadResourceRequest.properties", e))?,
            parent: opt_urn("ReadResourceRequest.parent", &req.parent)?,
            dependencies: req
                .dependencies
                .iter()
                .map(|d| parse_urn("ReadResourceRequest.dependencies", d))
                .collect::<Result<_, _>>()?,
            type_: req.r#type,
            name: req.name,
            id: req.id,
            provider: opt_provider("ReadResourceRequest", &req.provider)?,
            additional_secret_outputs: req.additional_secret_outputs.clone(),
            version: non_empty(req.version),
        };
        let reg = self
            .monitor
            .read(goal)
            .await
            .map_err(|e| self.refusal("ReadResourceRequest", e))?;
        Ok(Response::new(ReadResourceResponse {
            urn: reg.urn.to_string(),
            properties: Some(outputs_struct(
                &reg,
                &req.additional_secret_outputs,
                req.accept_secrets,
                req.accept_resources,
            )),
            result: result_of(reg.status) as i32,
            unknown: reg.unknown,
            id: reg.id.clone().unwrap_or_default(),
        }))
    }

    async fn register_resource(
        &self,
        req: Request<RegisterResourceRequest>,
    ) -> Result<Response<RegisterResourceResponse>, Status> {
        let mut req = req.into_inner();
        let (accept_secrets, accept_resources, reporting) = (
            req.accept_secrets,
            req.accept_resources,
            req.supports_result_reporting,
        );
        self.transforms.adopt_pending(&mut req);
        let own_transforms = req.transforms.clone();
        self.transforms
            .apply(&mut req)
            .await
            .map_err(|e| Status::unknown(e.to_string()))?;
        let parameterized = self.packages.apply(
            "RegisterResourceRequest",
            &req.package_ref,
            &req.r#type,
            &mut req.version,
        )?;
        let parent = req.parent.clone();
        let secret_outputs = req.additional_secret_outputs.clone();
        if req.remote {
            return self.construct(req).await;
        }
        let custom = req.custom;
        let mut goal = goal_of(req)?;
        if let Some(package) = parameterized
            && is_provider_type(&goal.type_)
        {
            // An explicit provider of a parameterized package: the same inputs as its
            // default provider's (Pulumi's `RegisterResource` for a provider with a packageRef).
            goal.properties = package.provider_inputs(std::mem::take(&mut goal.properties));
        }
        let reg = self
            .monitor
            .register(goal)
            .await
            .map_err(|e| self.refusal("RegisterResourceRequest", e))?;
        self.transforms
            .record(&reg.urn.to_string(), &parent, own_transforms);
        if !reporting && reg.status != RegisterStatus::Success {
            return Err(Status::internal(format!(
                "resource registration of {} failed",
                reg.urn
            )));
        }
        // A local component's outputs are its previous run's (a `same` step keeps them) and
        // may reference resources this run has not registered yet, which the SDK could not
        // rehydrate: Pulumi answers a local component with no outputs (`source_eval.go`).
        let object = if custom {
            outputs_struct(&reg, &secret_outputs, accept_secrets, accept_resources)
        } else {
            prost_types::Struct::default()
        };
        Ok(Response::new(RegisterResourceResponse {
            urn: reg.urn.to_string(),
            id: reg.id.clone().unwrap_or_default(),
            object: Some(object),
            stable: false,
            stables: Vec::new(),
            property_dependencies: Default::default(),
            result: result_of(reg.status) as i32,
            unknown: reg.unknown,
        }))
    }

    async fn register_resource_outputs(
        &self,
        req: Request<RegisterResourceOutputsRequest>,
    ) -> Result<Response<()>, Status> {
        let req = req.into_inner();
        let urn = parse_urn("RegisterResourceOutputsRequest.urn", &req.urn)?;
        let outputs = struct_to_map(req.outputs.as_ref(), MarshalOptions::ALL)
            .map_err(|e| invalid("RegisterResourceOutputsRequest.outputs", e))?;
        self.monitor
            .register_outputs(&urn, outputs)
            .await
            .map_err(|e| register_status("RegisterResourceOutputsRequest", e))?;
        Ok(Response::new(()))
    }

    async fn register_stack_transform(
        &self,
        req: Request<Callback>,
    ) -> Result<Response<()>, Status> {
        self.transforms
            .add_stack(req.into_inner())
            .map_err(|e| invalid("Callback.target", e))?;
        Ok(Response::new(()))
    }

    async fn register_stack_invoke_transform(
        &self,
        req: Request<Callback>,
    ) -> Result<Response<()>, Status> {
        self.transforms
            .add_invoke(req.into_inner())
            .map_err(|e| invalid("Callback.target", e))?;
        Ok(Response::new(()))
    }

    async fn register_resource_hook(
        &self,
        req: Request<RegisterResourceHookRequest>,
    ) -> Result<Response<()>, Status> {
        let req = req.into_inner();
        let callback = self.checked_callback("RegisterResourceHookRequest", req.callback)?;
        let hook = ResourceHook {
            callback: Arc::new(CallbackHook::new(self.callbacks.clone(), callback)),
            on_dry_run: req.on_dry_run,
            ignore_errors: req.ignore_errors,
        };
        self.monitor
            .hooks()
            .register_resource_hook(&req.name, hook)
            .map_err(|e| invalid("RegisterResourceHookRequest.name", e))?;
        Ok(Response::new(()))
    }

    async fn register_error_hook(
        &self,
        req: Request<RegisterErrorHookRequest>,
    ) -> Result<Response<()>, Status> {
        let req = req.into_inner();
        let callback = self.checked_callback("RegisterErrorHookRequest", req.callback)?;
        self.monitor
            .hooks()
            .register_error_hook(
                &req.name,
                Arc::new(CallbackHook::new(self.callbacks.clone(), callback)),
            )
            .map_err(|e| invalid("RegisterErrorHookRequest.name", e))?;
        Ok(Response::new(()))
    }

    async fn register_package(
        &self,
        req: Request<RegisterPackageRequest>,
    ) -> Result<Response<RegisterPackageResponse>, Status> {
        let registered = self.packages.register(req.into_inner())?;
        if let Some(package) = registered.parameterized {
            self.monitor.register_parameterized(package);
        }
        Ok(Response::new(RegisterPackageResponse {
            r#ref: registered.reference,
        }))
    }

    /// The program stays up (its callback server serving hooks) until the deployment has run
    /// the deletes that may call its delete hooks.
    async fn signal_and_wait_for_shutdown(
        &self,
        _req: Request<()>,
    ) -> Result<Response<()>, Status> {
        self.monitor.shutdown().await;
        Ok(Response::new(()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_durations_parse() {
        assert_eq!(parse_duration("2m").unwrap(), 120.0);
        assert_eq!(parse_duration("1h30m").unwrap(), 5400.0);
        assert_eq!(parse_duration("1.5s").unwrap(), 1.5);
        assert!(parse_duration("10").is_err());
        assert!(parse_duration("5d").is_err());
    }

    #[test]
    fn delete_before_replace_defined_false_overrides_provider() {
        let req = RegisterResourceRequest {
            r#type: "random:index/randomString:RandomString".into(),
            name: "a".into(),
            custom: true,
            delete_before_replace_defined: true,
            delete_before_replace: false,
            ..Default::default()
        };
        assert_eq!(goal_of(req).unwrap().delete_before_replace, Some(false));
        let req = RegisterResourceRequest {
            r#type: "x:y:Z".into(),
            name: "b".into(),
            ..Default::default()
        };
        assert_eq!(goal_of(req).unwrap().delete_before_replace, None);
    }
}
