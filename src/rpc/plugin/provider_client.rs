//! A `pulumirpc.ResourceProvider` plugin behind the engine's `Provider` trait: the plugin is
//! started on first use, secrets are stripped for plugins that do not accept them and re-marked
//! on what comes back, and gRPC failures become `ProviderError`s naming the plugin.

use std::collections::HashMap;
use std::sync::Arc;

use parking_lot::Mutex;
use std::time::Duration;

use async_trait::async_trait;
use prost::Message;
use tokio::sync::OnceCell;
use tonic::{Code, Status};

use super::schema_types::resource_inputs;
use super::{PluginCommand, PluginContext, PluginProcess};
use crate::engine::hooks::{HookBindings, HookKind};
use crate::engine::model::property_path::PropertyPath;
use crate::engine::provider::input_types::ObjectType;
use crate::engine::provider::parameterization::Parameterization;
use crate::engine::provider::{
    AutonamingMode, AutonamingOptions, CallRequest, CallResult, CheckFailure, CheckRequest,
    CheckResult, ConfigureResult, ConstructRequest, ConstructResult, CreateRequest, CreateResult,
    DeleteRequest, DiffChanges, DiffKind, DiffRequest, DiffResult, PropertyDiff, ProviderError,
    ReadRequest, ReadResult, UpdateRequest,
};
use crate::engine::{PropertyMap, PropertyValue, Provider, Urn};
use crate::rpc::MAX_MESSAGE_SIZE;
use crate::rpc::marshal::{MarshalOptions, annotate_secrets, map_to_struct, struct_to_map};
use crate::rpc::pulumirpc::{
    self, diff_response, property_diff, resource_provider_client::ResourceProviderClient,
};
use crate::rpc::transport::server::ServerHandle;
use crate::rpc::transport::unary_channel::UnaryChannel;

/// The log-only engine plugins are given as their argument, shared by the plugins of one factory.
pub type SharedEngine = Arc<OnceCell<(String, ServerHandle)>>;

/// How long to wait for a failed plugin's exit to be observed before blaming the call itself.
const EXIT_GRACE: Duration = Duration::from_secs(2);

enum Connector {
    Launch {
        cmd: PluginCommand,
        ctx: Arc<PluginContext>,
        engine: SharedEngine,
    },
    Address(String),
}

struct Connection {
    client: ResourceProviderClient<UnaryChannel>,
    process: Option<PluginProcess>,
}

/// What the plugin said about itself in Configure.
#[derive(Clone, Copy, Debug, Default)]
struct Capabilities {
    accept_secrets: bool,
    accept_resources: bool,
    supports_preview: bool,
    /// Construct inputs and Call arguments may carry output values (Pulumi's `acceptOutputs`).
    accept_outputs: bool,
}

/// A provider plugin spoken to over gRPC.
pub struct PluginProvider {
    package: String,
    name: String,
    connector: Connector,
    conn: OnceCell<Connection>,
    caps: Mutex<Capabilities>,
    /// The package schema, asked for once (`None`: the plugin has no `GetSchema`).
    schema: OnceCell<Option<serde_json::Value>>,
}

/// The `google.rpc.Status` carried in a gRPC error's details (Pulumi puts
/// `ErrorResourceInitFailed` there).
#[derive(Clone, PartialEq, Message)]
struct RpcStatus {
    #[prost(int32, tag = "1")]
    code: i32,
    #[prost(string, tag = "2")]
    message: String,
    #[prost(message, repeated, tag = "3")]
    details: Vec<prost_types::Any>,
}

/// The `pulumirpc.InputPropertiesError` a component provider puts in a failed Construct's or
/// Call's status details (Pulumi's `errors.proto`): which inputs were wrong, and why.
#[derive(Clone, PartialEq, Message)]
struct InputPropertiesError {
    #[prost(message, repeated, tag = "1")]
    errors: Vec<InputPropertyError>,
}

/// One wrong input of an `InputPropertiesError`.
#[derive(Clone, PartialEq, Message)]
struct InputPropertyError {
    #[prost(string, tag = "1")]
    property_path: String,
    #[prost(string, tag = "2")]
    reason: String,
}

impl PluginProvider {
    /// A plugin for `package`, launched on first use by `cmd`.
    pub fn launch(
        package: &str,
        cmd: PluginCommand,
        ctx: Arc<PluginContext>,
        engine: SharedEngine,
    ) -> PluginProvider {
        PluginProvider::with(
            package,
            cmd.name.clone(),
            Connector::Launch { cmd, ctx, engine },
        )
    }

    /// A provider already listening at `address` (`host:port`), e.g. one a test or
    /// `PULUMI_DEBUG_PROVIDERS` started.
    pub fn connect_to(package: &str, address: &str) -> PluginProvider {
        PluginProvider::with(
            package,
            format!("provider {package} at {address}"),
            Connector::Address(address.to_string()),
        )
    }

    fn with(package: &str, name: String, connector: Connector) -> PluginProvider {
        PluginProvider {
            package: package.to_string(),
            name,
            connector,
            conn: OnceCell::new(),
            caps: Mutex::new(Capabilities::default()),
            schema: OnceCell::new(),
        }
    }

    /// Parameterizes the plugin from command-line arguments (`package add <source> [args]`):
    /// answers the package it now serves, its name and version.
    pub async fn parameterize_with_args(
        &self,
        args: Vec<String>,
    ) -> Result<(String, String), ProviderError> {
        use pulumirpc::parameterize_request::{Parameters, ParametersArgs};
        let wire = pulumirpc::ParameterizeRequest {
            parameters: Some(Parameters::Args(ParametersArgs { args })),
        };
        match self.client().await?.parameterize(wire).await {
            Ok(resp) => {
                let resp = resp.into_inner();
                Ok((resp.name, resp.version))
            }
            Err(s) => Err(self.rpc_error("Parameterize", s).await),
        }
    }

    /// The schema `GetSchema` answers for the plugin's own package, or for the package a
    /// parameterization made it serve (`subpackage`: its name and version), as `package
    /// get-schema` asks for it.
    pub async fn package_schema(
        &self,
        subpackage: Option<(String, String)>,
    ) -> Result<serde_json::Value, ProviderError> {
        let (subpackage_name, subpackage_version) = subpackage.unwrap_or_default();
        let wire = pulumirpc::GetSchemaRequest {
            version: 0,
            subpackage_name,
            subpackage_version,
        };
        let resp = match self.client().await?.get_schema(wire).await {
            Ok(resp) => resp.into_inner(),
            Err(s) => return Err(self.rpc_error("GetSchema", s).await),
        };
        serde_json::from_str(&resp.schema)
            .map_err(|e| self.fail(format!("GetSchema answered a schema that is not JSON: {e}")))
    }

    fn caps(&self) -> Capabilities {
        *self.caps.lock()
    }

    /// The package schema `GetSchema` answers, asked for once; `None` when the plugin has no
    /// `GetSchema`.
    async fn schema(&self) -> Result<Option<&serde_json::Value>, ProviderError> {
        let schema = self
            .schema
            .get_or_try_init(|| async {
                let wire = pulumirpc::GetSchemaRequest::default();
                let resp = match self.client().await?.get_schema(wire).await {
                    Ok(resp) => resp.into_inner(),
                    Err(s) if s.code() == Code::Unimplemented => return Ok(None),
                    Err(s) => return Err(self.rpc_error("GetSchema", s).await),
                };
                serde_json::from_str(&resp.schema).map(Some).map_err(|e| {
                    self.fail(format!("GetSchema answered a schema that is not JSON: {e}"))
                })
            })
            .await?;
        Ok(schema.as_ref())
    }

    /// What we send: secrets and resource references only if the plugin accepts them.
    fn send_opts(&self) -> MarshalOptions {
        let caps = self.caps();
        MarshalOptions::for_peer(caps.accept_secrets, caps.accept_resources)
    }

    /// The options for a Construct's inputs and a Call's arguments: as `send_opts`, with secrets
    /// and unknowns as output values when the plugin accepts them, as Pulumi's plugin client
    /// sends them, so a secret nested in an object stays an output of its own there instead
    /// of making the whole object secret.
    fn send_output_value_opts(&self) -> MarshalOptions {
        MarshalOptions {
            keep_output_values: self.caps().accept_outputs,
            ..self.send_opts()
        }
    }

    fn fail(&self, e: impl std::fmt::Display) -> ProviderError {
        ProviderError::Failed(format!("{}: {e}", self.name))
    }

    async fn connection(&self) -> Result<&Connection, ProviderError> {
        self.conn
            .get_or_try_init(|| async {
                let (address, process) = match &self.connector {
                    Connector::Address(a) => (a.clone(), None),
                    Connector::Launch { cmd, ctx, engine } => {
                        let (engine_addr, _) = engine
                            .get_or_try_init(|| async {
                                let (addr, handle) =
                                    crate::rpc::monitor::engine_service::serve_engine(
                                        ctx.events.clone(),
                                    )
                                    .await?;
                                Ok::<_, std::io::Error>((addr.to_string(), handle))
                            })
                            .await
                            .map_err(|e| {
                                self.fail(format!("cannot serve the engine for plugins: {e}"))
                            })?;
                        let process = PluginProcess::start(cmd, engine_addr, ctx.events.clone())
                            .await
                            .map_err(|e| ProviderError::Failed(e.to_string()))?;
                        (format!("127.0.0.1:{}", process.port()), Some(process))
                    }
                };
                let channel = UnaryChannel::connect(&address)
                    .await
                    .map_err(|e| self.fail(format!("cannot connect to {address}: {e}")))?;
                let client = ResourceProviderClient::new(channel)
                    .max_decoding_message_size(MAX_MESSAGE_SIZE)
                    .max_encoding_message_size(MAX_MESSAGE_SIZE);
                Ok(Connection { client, process })
            })
            .await
    }

    async fn client(&self) -> Result<ResourceProviderClient<UnaryChannel>, ProviderError> {
        Ok(self.connection().await?.client.clone())
    }

    /// Turns a failed call into the provider's message, or into a crash report when the plugin
    /// process died under the call.
    async fn rpc_error(&self, op: &'static str, status: Status) -> ProviderError {
        if status.code() == Code::Unimplemented {
            return ProviderError::Unsupported(op);
        }
        if status.code() == Code::Cancelled {
            return ProviderError::Cancelled;
        }
        if status.code() == Code::NotFound {
            return ProviderError::NotFound(status.message().to_string());
        }
        let transport =
            status.code() == Code::Unavailable || std::error::Error::source(&status).is_some();
        if transport
            && let Some(process) = self.conn.get().and_then(|c| c.process.as_ref())
            && let Some(exit) = process.exit_status(EXIT_GRACE).await
        {
            return ProviderError::Failed(format!(
                "plugin {} exited unexpectedly during {op} ({exit})",
                process.name()
            ));
        }
        if let Some(partial) = partial_failure(&status) {
            return partial;
        }
        ProviderError::Failed(status.message().to_string())
    }

    /// Outputs decoded from the plugin, re-marked secret where their inputs were.
    fn outputs(
        &self,
        s: Option<&prost_types::Struct>,
        inputs: &PropertyMap,
        field: &str,
    ) -> Result<PropertyMap, ProviderError> {
        let mut out = struct_to_map(s, MarshalOptions::ALL)
            .map_err(|e| self.fail(format!("{field}: {e}")))?;
        annotate_secrets(&mut out, inputs);
        Ok(out)
    }
}

/// The check failures a function's provider reported for its arguments, as one error.
fn refused_arguments(
    what: &str,
    token: &str,
    failures: &[pulumirpc::CheckFailure],
) -> Result<(), ProviderError> {
    if failures.is_empty() {
        return Ok(());
    }
    let reasons: Vec<String> = failures
        .iter()
        .map(|f| format!("{}: {}", f.property, f.reason))
        .collect();
    Err(ProviderError::Failed(format!(
        "{what} of {token} failed: {}",
        reasons.join("; ")
    )))
}

/// The component's hook names as Construct carries them; none bound, none sent.
fn construct_hooks(
    hooks: &HookBindings,
) -> Option<pulumirpc::construct_request::ResourceHooksBinding> {
    if hooks.is_empty() {
        return None;
    }
    let names = |kind| hooks.get(&kind).cloned().unwrap_or_default();
    Some(pulumirpc::construct_request::ResourceHooksBinding {
        before_create: names(HookKind::BeforeCreate),
        after_create: names(HookKind::AfterCreate),
        before_update: names(HookKind::BeforeUpdate),
        after_update: names(HookKind::AfterUpdate),
        before_delete: names(HookKind::BeforeDelete),
        after_delete: names(HookKind::AfterDelete),
        on_error: names(HookKind::OnError),
    })
}

fn partial_failure(status: &Status) -> Option<ProviderError> {
    let details = RpcStatus::decode(status.details()).ok()?;
    let any = details
        .details
        .iter()
        .find(|a| a.type_url.ends_with("pulumirpc.ErrorResourceInitFailed"))?;
    let init = pulumirpc::ErrorResourceInitFailed::decode(any.value.as_slice()).ok()?;
    Some(ProviderError::PartialFailure {
        id: init.id,
        outputs: struct_to_map(init.properties.as_ref(), MarshalOptions::ALL).ok()?,
        reasons: if init.reasons.is_empty() {
            vec![status.message().to_string()]
        } else {
            init.reasons
        },
    })
}

/// A failed Construct's or Call's message followed by the input properties its status details
/// blame, each on its own line as Pulumi's engine lists them (`errorToMessage` in
/// `source_eval.go`): the property, its value among `inputs` where the path finds one (secrets
/// masked), and the reason.
fn input_properties_error(status: &Status, inputs: &PropertyMap) -> Option<ProviderError> {
    let details = RpcStatus::decode(status.details()).ok()?;
    let any = details
        .details
        .iter()
        .find(|a| a.type_url.ends_with("pulumirpc.InputPropertiesError"))?;
    let errors = InputPropertiesError::decode(any.value.as_slice()).ok()?;
    let mut message = status.message().to_string();
    for e in errors.errors {
        let value = PropertyPath::parse(&e.property_path)
            .ok()
            .and_then(|p| p.get(inputs).cloned());
        let line = match value {
            Some(PropertyValue::String(s)) => format!(
                "property {} with value '{s}' has a problem: {}",
                e.property_path, e.reason
            ),
            Some(v) => format!(
                "property {} with value '{}' has a problem: {}",
                e.property_path,
                v.to_display_json(),
                e.reason
            ),
            None => format!("property {} has a problem: {}", e.property_path, e.reason),
        };
        message.push_str("\n\t\t- ");
        message.push_str(&line);
    }
    Some(ProviderError::Failed(message))
}

/// A partial failure's outputs re-marked secret where their inputs were, as a successful
/// call's outputs are (the wire loses the marks of a provider that does not keep secrets).
fn secret_where_input_was(err: ProviderError, inputs: &PropertyMap) -> ProviderError {
    match err {
        ProviderError::PartialFailure {
            id,
            mut outputs,
            reasons,
        } => {
            annotate_secrets(&mut outputs, inputs);
            ProviderError::PartialFailure {
                id,
                outputs,
                reasons,
            }
        }
        e => e,
    }
}

fn check_result(
    provider: &PluginProvider,
    resp: pulumirpc::CheckResponse,
    news: &PropertyMap,
) -> Result<CheckResult, ProviderError> {
    Ok(CheckResult {
        inputs: provider.outputs(resp.inputs.as_ref(), news, "CheckResponse.inputs")?,
        failures: resp
            .failures
            .into_iter()
            .map(|f| CheckFailure {
                property: f.property,
                reason: f.reason,
            })
            .collect(),
    })
}

fn diff_kind(kind: i32) -> DiffKind {
    match property_diff::Kind::try_from(kind).unwrap_or(property_diff::Kind::Update) {
        property_diff::Kind::Add => DiffKind::Add,
        property_diff::Kind::AddReplace => DiffKind::AddReplace,
        property_diff::Kind::Delete => DiffKind::Delete,
        property_diff::Kind::DeleteReplace => DiffKind::DeleteReplace,
        property_diff::Kind::Update => DiffKind::Update,
        property_diff::Kind::UpdateReplace => DiffKind::UpdateReplace,
    }
}

/// The engine's view of a DiffResponse.
pub fn diff_result(resp: pulumirpc::DiffResponse) -> DiffResult {
    let changes = match diff_response::DiffChanges::try_from(resp.changes) {
        Ok(diff_response::DiffChanges::DiffNone) => DiffChanges::None,
        Ok(diff_response::DiffChanges::DiffSome) => DiffChanges::Some,
        _ => DiffChanges::Unknown,
    };
    let detailed_diff = if resp.has_detailed_diff || !resp.detailed_diff.is_empty() {
        resp.detailed_diff
            .into_iter()
            .map(|(k, d)| {
                (
                    k,
                    PropertyDiff {
                        kind: diff_kind(d.kind),
                        input_diff: d.input_diff,
                    },
                )
            })
            .collect()
    } else {
        Default::default()
    };
    DiffResult {
        changes,
        replace_keys: resp.replaces,
        stables: resp.stables,
        changed_keys: resp.diffs,
        detailed_diff,
        delete_before_replace: resp.delete_before_replace,
    }
}

fn config_variables(package: &str, inputs: &PropertyMap) -> HashMap<String, String> {
    inputs
        .iter()
        .filter(|(_, v)| !v.contains_unknowns())
        .map(|(k, v)| {
            let text = match v.reveal() {
                PropertyValue::String(s) => s,
                other => other.to_json().to_string(),
            };
            (format!("{package}:config:{k}"), text)
        })
        .collect()
}

#[async_trait]
impl Provider for PluginProvider {
    async fn check_config(
        &self,
        urn: &Urn,
        olds: &PropertyMap,
        news: &PropertyMap,
    ) -> Result<CheckResult, ProviderError> {
        let opts = MarshalOptions::for_peer(false, false);
        let req = pulumirpc::CheckRequest {
            urn: urn.to_string(),
            olds: Some(map_to_struct(olds, opts)),
            news: Some(map_to_struct(news, opts)),
            name: urn.name().to_string(),
            r#type: urn.type_().to_string(),
            ..Default::default()
        };
        match self.client().await?.check_config(req).await {
            Ok(resp) => check_result(self, resp.into_inner(), news),
            Err(s) if s.code() == Code::Unimplemented => Ok(CheckResult {
                inputs: news.clone(),
                failures: Vec::new(),
            }),
            Err(s) => Err(self.rpc_error("CheckConfig", s).await),
        }
    }

    async fn diff_config(&self, req: DiffRequest) -> Result<DiffResult, ProviderError> {
        let opts = MarshalOptions::for_peer(false, false);
        let req = pulumirpc::DiffRequest {
            urn: req.urn.to_string(),
            olds: Some(map_to_struct(&req.old_outputs, opts)),
            news: Some(map_to_struct(&req.new_inputs, opts)),
            old_inputs: Some(map_to_struct(&req.old_inputs, opts)),
            name: req.urn.name().to_string(),
            r#type: req.urn.type_().to_string(),
            ignore_changes: req.ignore_changes,
            ..Default::default()
        };
        match self.client().await?.diff_config(req).await {
            Ok(resp) => Ok(diff_result(resp.into_inner())),
            Err(s) if s.code() == Code::Unimplemented => Ok(DiffResult::default()),
            Err(s) => Err(self.rpc_error("DiffConfig", s).await),
        }
    }

    async fn configure(&self, inputs: &PropertyMap) -> Result<ConfigureResult, ProviderError> {
        let req = pulumirpc::ConfigureRequest {
            variables: config_variables(&self.package, inputs),
            args: Some(map_to_struct(inputs, MarshalOptions::ALL)),
            accept_secrets: true,
            accept_resources: true,
            sends_old_inputs: true,
            sends_old_inputs_to_delete: true,
            ..Default::default()
        };
        let resp = match self.client().await?.configure(req).await {
            Ok(r) => r.into_inner(),
            Err(s) => return Err(self.rpc_error("Configure", s).await),
        };
        *self.caps.lock() = Capabilities {
            accept_secrets: resp.accept_secrets,
            accept_resources: resp.accept_resources,
            supports_preview: resp.supports_preview,
            accept_outputs: resp.accept_outputs,
        };
        Ok(ConfigureResult {
            accept_secrets: resp.accept_secrets,
            accept_resources: resp.accept_resources,
            supports_autonaming_configuration: resp.supports_autonaming_configuration,
        })
    }

    async fn check(&self, req: CheckRequest) -> Result<CheckResult, ProviderError> {
        let opts = self.send_opts();
        let wire = pulumirpc::CheckRequest {
            urn: req.urn.to_string(),
            olds: Some(map_to_struct(&req.olds, opts)),
            news: Some(map_to_struct(&req.news, opts)),
            random_seed: req.random_seed.clone(),
            name: req.urn.name().to_string(),
            r#type: req.urn.type_().to_string(),
            autonaming: req.autonaming.as_ref().map(wire_autonaming),
            ..Default::default()
        };
        match self.client().await?.check(wire).await {
            Ok(resp) => check_result(self, resp.into_inner(), &req.news),
            Err(s) => Err(self.rpc_error("Check", s).await),
        }
    }

    async fn diff(&self, req: DiffRequest) -> Result<DiffResult, ProviderError> {
        let opts = self.send_opts();
        let wire = pulumirpc::DiffRequest {
            id: req.id.clone(),
            urn: req.urn.to_string(),
            olds: Some(map_to_struct(&req.old_outputs, opts)),
            news: Some(map_to_struct(&req.new_inputs, opts)),
            ignore_changes: req.ignore_changes.clone(),
            old_inputs: Some(map_to_struct(&req.old_inputs, opts)),
            name: req.urn.name().to_string(),
            r#type: req.urn.type_().to_string(),
        };
        match self.client().await?.diff(wire).await {
            Ok(resp) => Ok(diff_result(resp.into_inner())),
            Err(s) if s.code() == Code::Unimplemented => Ok(DiffResult::default()),
            Err(s) => Err(self.rpc_error("Diff", s).await),
        }
    }

    async fn create(&self, req: CreateRequest) -> Result<CreateResult, ProviderError> {
        if req.preview && !self.caps().supports_preview {
            return Ok(CreateResult {
                id: String::new(),
                outputs: req.inputs,
            });
        }
        let wire = pulumirpc::CreateRequest {
            urn: req.urn.to_string(),
            properties: Some(map_to_struct(&req.inputs, self.send_opts())),
            timeout: req.timeout,
            preview: req.preview,
            name: req.urn.name().to_string(),
            r#type: req.urn.type_().to_string(),
            ..Default::default()
        };
        match self.client().await?.create(wire).await {
            Ok(resp) => {
                let resp = resp.into_inner();
                Ok(CreateResult {
                    outputs: self.outputs(
                        resp.properties.as_ref(),
                        &req.inputs,
                        "CreateResponse.properties",
                    )?,
                    id: resp.id,
                })
            }
            Err(s) => Err(secret_where_input_was(
                self.rpc_error("Create", s).await,
                &req.inputs,
            )),
        }
    }

    async fn read(&self, req: ReadRequest) -> Result<ReadResult, ProviderError> {
        let opts = self.send_opts();
        let wire = pulumirpc::ReadRequest {
            id: req.id.clone(),
            urn: req.urn.to_string(),
            properties: Some(map_to_struct(&req.state, opts)),
            inputs: Some(map_to_struct(&req.inputs, opts)),
            name: req.urn.name().to_string(),
            r#type: req.urn.type_().to_string(),
            ..Default::default()
        };
        match self.client().await?.read(wire).await {
            Ok(resp) => {
                let resp = resp.into_inner();
                Ok(ReadResult {
                    outputs: self.outputs(
                        resp.properties.as_ref(),
                        &req.state,
                        "ReadResponse.properties",
                    )?,
                    inputs: self.outputs(
                        resp.inputs.as_ref(),
                        &req.inputs,
                        "ReadResponse.inputs",
                    )?,
                    id: resp.id,
                })
            }
            Err(s) => Err(self.rpc_error("Read", s).await),
        }
    }

    async fn update(&self, req: UpdateRequest) -> Result<PropertyMap, ProviderError> {
        if req.preview && !self.caps().supports_preview {
            return Ok(req.new_inputs);
        }
        let opts = self.send_opts();
        let wire = pulumirpc::UpdateRequest {
            id: req.id.clone(),
            urn: req.urn.to_string(),
            olds: Some(map_to_struct(&req.old_outputs, opts)),
            news: Some(map_to_struct(&req.new_inputs, opts)),
            timeout: req.timeout,
            ignore_changes: req.ignore_changes.clone(),
            preview: req.preview,
            old_inputs: Some(map_to_struct(&req.old_inputs, opts)),
            name: req.urn.name().to_string(),
            r#type: req.urn.type_().to_string(),
            ..Default::default()
        };
        match self.client().await?.update(wire).await {
            Ok(resp) => self.outputs(
                resp.into_inner().properties.as_ref(),
                &req.new_inputs,
                "UpdateResponse.properties",
            ),
            Err(s) => Err(secret_where_input_was(
                self.rpc_error("Update", s).await,
                &req.new_inputs,
            )),
        }
    }

    async fn delete(&self, req: DeleteRequest) -> Result<(), ProviderError> {
        let opts = self.send_opts();
        let wire = pulumirpc::DeleteRequest {
            id: req.id.clone(),
            urn: req.urn.to_string(),
            properties: Some(map_to_struct(&req.outputs, opts)),
            timeout: req.timeout,
            old_inputs: Some(map_to_struct(&req.inputs, opts)),
            name: req.urn.name().to_string(),
            r#type: req.urn.type_().to_string(),
            ..Default::default()
        };
        match self.client().await?.delete(wire).await {
            Ok(_) => Ok(()),
            Err(s) => Err(self.rpc_error("Delete", s).await),
        }
    }

    async fn invoke(&self, token: &str, args: &PropertyMap) -> Result<PropertyMap, ProviderError> {
        let wire = pulumirpc::InvokeRequest {
            tok: token.to_string(),
            args: Some(map_to_struct(args, self.send_opts())),
            preview: false,
        };
        let resp = match self.client().await?.invoke(wire).await {
            Ok(resp) => resp.into_inner(),
            Err(s) => return Err(self.rpc_error("Invoke", s).await),
        };
        refused_arguments("invoke", token, &resp.failures)?;
        self.outputs(resp.r#return.as_ref(), args, "InvokeResponse.return")
    }

    async fn construct(&self, req: ConstructRequest) -> Result<ConstructResult, ProviderError> {
        let urns = |v: &[Urn]| v.iter().map(Urn::to_string).collect::<Vec<_>>();
        let info = req.info;
        let wire = pulumirpc::ConstructRequest {
            project: info.project,
            stack: info.stack,
            config: info.config.into_iter().collect(),
            dry_run: info.dry_run,
            parallel: i32::try_from(info.parallel).unwrap_or(i32::MAX),
            monitor_endpoint: info.monitor_endpoint,
            r#type: req.type_.clone(),
            name: req.name.clone(),
            parent: req.parent.as_ref().map(Urn::to_string).unwrap_or_default(),
            inputs: Some(map_to_struct(&req.inputs, self.send_output_value_opts())),
            input_dependencies: req
                .input_dependencies
                .iter()
                .map(|(k, deps)| {
                    let urns = urns(deps);
                    (
                        k.clone(),
                        pulumirpc::construct_request::PropertyDependencies { urns },
                    )
                })
                .collect(),
            protect: req.protect,
            providers: req
                .providers
                .into_iter()
                .map(|(pkg, p)| (pkg, p.to_string()))
                .collect(),
            dependencies: urns(&req.dependencies),
            config_secret_keys: info.config_secret_keys,
            organization: info.organization,
            additional_secret_outputs: req.additional_secret_outputs,
            custom_timeouts: None,
            deleted_with: req
                .deleted_with
                .as_ref()
                .map(Urn::to_string)
                .unwrap_or_default(),
            delete_before_replace: None,
            ignore_changes: req.ignore_changes,
            replace_on_changes: req.replace_on_changes,
            retain_on_delete: req.retain_on_delete,
            accepts_output_values: false,
            resource_hooks: construct_hooks(&req.hooks),
            replace_with: Vec::new(),
        };
        let resp = match self.client().await?.construct(wire).await {
            Ok(resp) => resp.into_inner(),
            Err(s) => {
                return Err(match input_properties_error(&s, &req.inputs) {
                    Some(e) => e,
                    None => self.rpc_error("Construct", s).await,
                });
            }
        };
        let urn =
            Urn::parse(&resp.urn).map_err(|e| self.fail(format!("ConstructResponse.urn: {e}")))?;
        let state = self.outputs(resp.state.as_ref(), &req.inputs, "ConstructResponse.state")?;
        let mut state_dependencies = std::collections::BTreeMap::new();
        for (k, deps) in resp.state_dependencies {
            let parsed = deps
                .urns
                .iter()
                .map(|u| Urn::parse(u))
                .collect::<Result<Vec<_>, _>>()
                .map_err(|e| self.fail(format!("ConstructResponse.stateDependencies.{k}: {e}")))?;
            state_dependencies.insert(k, parsed);
        }
        Ok(ConstructResult {
            urn,
            state,
            state_dependencies,
        })
    }

    async fn call(&self, req: CallRequest) -> Result<CallResult, ProviderError> {
        let info = req.info;
        let wire = pulumirpc::CallRequest {
            tok: req.tok.clone(),
            args: Some(map_to_struct(&req.args, self.send_output_value_opts())),
            arg_dependencies: req
                .arg_dependencies
                .iter()
                .map(|(k, deps)| {
                    let urns = deps.iter().map(Urn::to_string).collect();
                    (
                        k.clone(),
                        pulumirpc::call_request::ArgumentDependencies { urns },
                    )
                })
                .collect(),
            project: info.project,
            stack: info.stack,
            config: info.config.into_iter().collect(),
            config_secret_keys: info.config_secret_keys,
            dry_run: info.dry_run,
            parallel: i32::try_from(info.parallel).unwrap_or(i32::MAX),
            monitor_endpoint: info.monitor_endpoint,
            organization: info.organization,
            accepts_output_values: false,
        };
        let resp = match self.client().await?.call(wire).await {
            Ok(resp) => resp.into_inner(),
            Err(s) => {
                return Err(match input_properties_error(&s, &req.args) {
                    Some(e) => e,
                    None => self.rpc_error("Call", s).await,
                });
            }
        };
        let failures = resp
            .failures
            .into_iter()
            .map(|f| CheckFailure {
                property: f.property,
                reason: f.reason,
            })
            .collect();
        Ok(CallResult {
            outputs: self.outputs(resp.r#return.as_ref(), &req.args, "CallResponse.return")?,
            failures,
        })
    }

    async fn parameterize(&self, req: &Parameterization) -> Result<String, ProviderError> {
        use pulumirpc::parameterize_request::{Parameters, ParametersValue};
        let wire = pulumirpc::ParameterizeRequest {
            parameters: Some(Parameters::Value(ParametersValue {
                name: req.name.clone(),
                version: req.version.clone(),
                value: req.value.clone(),
            })),
        };
        match self.client().await?.parameterize(wire).await {
            Ok(resp) => Ok(resp.into_inner().name),
            Err(s) => Err(self.rpc_error("Parameterize", s).await),
        }
    }

    async fn component_types(&self) -> Result<Vec<String>, ProviderError> {
        let Some(schema) = self.schema().await? else {
            return Ok(Vec::new());
        };
        let Some(resources) = schema.get("resources").and_then(|r| r.as_object()) else {
            return Ok(Vec::new());
        };
        Ok(resources
            .iter()
            .filter(|(_, r)| r.get("isComponent") == Some(&serde_json::Value::Bool(true)))
            .map(|(token, _)| token.clone())
            .collect())
    }

    async fn input_types(&self, token: &str) -> Result<Option<ObjectType>, ProviderError> {
        Ok(self
            .schema()
            .await?
            .and_then(|schema| resource_inputs(schema, token)))
    }

    async fn cancel(&self) -> Result<(), ProviderError> {
        let Some(conn) = self.conn.get() else {
            return Ok(());
        };
        match conn.client.clone().cancel(()).await {
            Ok(_) => Ok(()),
            Err(s) if s.code() == Code::Unimplemented => Ok(()),
            Err(s) => Err(self.rpc_error("Cancel", s).await),
        }
    }
}

/// Check's autonaming options as pulumirpc carries them.
fn wire_autonaming(a: &AutonamingOptions) -> pulumirpc::check_request::AutonamingOptions {
    use pulumirpc::check_request::autonaming_options::Mode;
    let mode = match a.mode {
        AutonamingMode::Propose => Mode::Propose,
        AutonamingMode::Enforce => Mode::Enforce,
        AutonamingMode::Disable => Mode::Disable,
    };
    pulumirpc::check_request::AutonamingOptions {
        proposed_name: a.proposed_name.clone(),
        mode: mode as i32,
    }
}
