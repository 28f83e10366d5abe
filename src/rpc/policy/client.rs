//! A running policy pack behind the engine's `Analyzer`: the start-up calls the loader makes
//! (`Handshake`, `ConfigureStack`, `GetPluginInfo`, `GetAnalyzerInfo`, `Configure`), and the
//! run's calls with their requests and answers converted as Pulumi's analyzer plugin converts
//! them: properties with unknowns and secrets kept (internal `__` keys left out of Analyze),
//! the version `PulumiPolicy.yaml` gives over the pack's own, an advisory level where the wire
//! leaves it out, a remediation's secrets kept where the inputs had them.

use std::collections::BTreeMap;

use std::sync::Arc;

use async_trait::async_trait;
use parking_lot::Mutex;
use tonic::{Code, Status};

use super::info::{ConfigSchema, PackInfo, PackPolicy, PolicyConfig};
use super::launch::StackIdentity;
use super::process::PackProcess;
use crate::engine::run::policy::{
    AnalyzeDiagnostic, AnalyzeResponse, Analyzer, AnalyzerError, AnalyzerInfo, AnalyzerProvider,
    AnalyzerResource, AnalyzerStackResource, EnforcementLevel, NotApplicable, PolicySeverity,
    PolicyType, RemediateResponse, Remediation, ResourceOptions,
};
use crate::engine::{PropertyMap, PropertyValue, Urn};
use crate::rpc::MAX_MESSAGE_SIZE;
use crate::rpc::marshal::{
    MarshalOptions, annotate_secrets, json_object_to_struct, map_to_struct, struct_to_json,
    struct_to_map,
};
use crate::rpc::pulumirpc::{self, analyzer_client::AnalyzerClient};
use crate::rpc::transport::server::ServerHandle;
use crate::rpc::transport::unary_channel::UnaryChannel;

/// What the packs are sent: unknowns and secrets as they are, resource references as their
/// IDs (Pulumi's analyzer marshalling).
const SEND: MarshalOptions = MarshalOptions {
    keep_unknowns: true,
    keep_secrets: true,
    keep_resources: false,
    keep_output_values: false,
};

/// A start-up call that failed, or answered what does not decode.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CallError {
    #[error("cannot connect to it at {address}: {reason}")]
    Connect { address: String, reason: String },
    #[error("{call} failed: {message}")]
    Failed { call: &'static str, message: String },
    #[error("{call} answered {reason}")]
    Invalid { call: &'static str, reason: String },
}

fn failed(call: &'static str, s: &Status) -> CallError {
    CallError::Failed {
        call,
        message: s.message().to_string(),
    }
}

fn level(call: &'static str, n: i32) -> Result<EnforcementLevel, CallError> {
    use pulumirpc::EnforcementLevel as W;
    match W::try_from(n) {
        Ok(W::Advisory) => Ok(EnforcementLevel::Advisory),
        Ok(W::Mandatory) => Ok(EnforcementLevel::Mandatory),
        Ok(W::Remediate) => Ok(EnforcementLevel::Remediate),
        Ok(W::Disabled) => Ok(EnforcementLevel::Disabled),
        Err(_) => Err(CallError::Invalid {
            call,
            reason: format!("invalid enforcement level {n}"),
        }),
    }
}

fn level_to_wire(l: EnforcementLevel) -> i32 {
    use pulumirpc::EnforcementLevel as W;
    let w = match l {
        EnforcementLevel::Advisory => W::Advisory,
        EnforcementLevel::Mandatory => W::Mandatory,
        EnforcementLevel::Remediate => W::Remediate,
        EnforcementLevel::Disabled => W::Disabled,
    };
    w as i32
}

fn severity(n: i32) -> PolicySeverity {
    use pulumirpc::PolicySeverity as W;
    match W::try_from(n) {
        Ok(W::Low) => PolicySeverity::Low,
        Ok(W::Medium) => PolicySeverity::Medium,
        Ok(W::High) => PolicySeverity::High,
        Ok(W::Critical) => PolicySeverity::Critical,
        Ok(W::Unspecified) | Err(_) => PolicySeverity::Unspecified,
    }
}

fn policy_type(n: i32) -> PolicyType {
    use pulumirpc::PolicyType as W;
    match W::try_from(n) {
        Ok(W::Resource) => PolicyType::Resource,
        Ok(W::Stack) => PolicyType::Stack,
        Ok(W::Unknown) | Err(_) => PolicyType::Unknown,
    }
}

/// Leaves out internal (`__`) keys at every level, as Pulumi's `SkipInternalKeys` does.
fn without_internal_keys(m: &PropertyMap) -> PropertyMap {
    fn value(v: &PropertyValue) -> PropertyValue {
        match v {
            PropertyValue::Object(m) => PropertyValue::Object(without_internal_keys(m)),
            PropertyValue::Array(a) => PropertyValue::Array(a.iter().map(value).collect()),
            PropertyValue::Secret(inner) => PropertyValue::Secret(Box::new(value(inner))),
            other => other.clone(),
        }
    }
    m.iter()
        .filter(|(k, _)| !k.starts_with("__"))
        .map(|(k, v)| (k.clone(), value(v)))
        .collect()
}

fn options(o: &ResourceOptions) -> pulumirpc::AnalyzerResourceOptions {
    let t = &o.custom_timeouts;
    pulumirpc::AnalyzerResourceOptions {
        protect: o.protect,
        ignore_changes: o.ignore_changes.clone(),
        delete_before_replace: o.delete_before_replace.unwrap_or(false),
        delete_before_replace_defined: o.delete_before_replace.is_some(),
        additional_secret_outputs: o.additional_secret_outputs.clone(),
        aliases: o.aliases.iter().map(|u| u.as_str().to_string()).collect(),
        custom_timeouts: Some(pulumirpc::analyzer_resource_options::CustomTimeouts {
            create: t.create,
            update: t.update,
            delete: t.delete,
            read: t.read,
        }),
        parent: o
            .parent
            .as_ref()
            .map(|p| p.as_str().to_string())
            .unwrap_or_default(),
    }
}

fn provider(p: Option<&AnalyzerProvider>) -> Option<pulumirpc::AnalyzerProviderResource> {
    p.map(|p| pulumirpc::AnalyzerProviderResource {
        r#type: p.type_.clone(),
        properties: Some(map_to_struct(&without_internal_keys(&p.properties), SEND)),
        urn: p.urn.as_str().to_string(),
        name: p.name.clone(),
    })
}

fn request(r: &AnalyzerResource, internal_keys: bool) -> pulumirpc::AnalyzeRequest {
    let properties = if internal_keys {
        map_to_struct(&r.properties, SEND)
    } else {
        map_to_struct(&without_internal_keys(&r.properties), SEND)
    };
    pulumirpc::AnalyzeRequest {
        r#type: r.type_.clone(),
        properties: Some(properties),
        urn: r.urn.as_str().to_string(),
        name: r.name.clone(),
        options: Some(options(&r.options)),
        provider: provider(r.provider.as_ref()),
    }
}

fn stack_resource(r: &AnalyzerStackResource) -> pulumirpc::AnalyzerResource {
    let req = request(&r.resource, false);
    pulumirpc::AnalyzerResource {
        r#type: req.r#type,
        properties: req.properties,
        urn: req.urn,
        name: req.name,
        options: req.options,
        provider: req.provider,
        parent: r
            .parent
            .as_ref()
            .map(|p| p.as_str().to_string())
            .unwrap_or_default(),
        dependencies: r
            .dependencies
            .iter()
            .map(|u| u.as_str().to_string())
            .collect(),
        property_dependencies: r
            .property_dependencies
            .iter()
            .map(|(k, urns)| {
                let urns = urns.iter().map(|u| u.as_str().to_string()).collect();
                (k.clone(), pulumirpc::AnalyzerPropertyDependencies { urns })
            })
            .collect(),
    }
}

fn not_applicable(v: Vec<pulumirpc::PolicyNotApplicable>) -> Vec<NotApplicable> {
    v.into_iter()
        .map(|n| NotApplicable {
            policy_name: n.policy_name,
            reason: n.reason,
        })
        .collect()
}

fn policy_config(
    call: &'static str,
    c: pulumirpc::PolicyConfig,
) -> Result<PolicyConfig, CallError> {
    Ok(PolicyConfig {
        level: Some(level(call, c.enforcement_level)?),
        properties: c.properties.as_ref().map(struct_to_json),
    })
}

/// One pack's gRPC connection with what `PulumiPolicy.yaml` overrides in its answers.
pub struct PackConnection {
    client: AnalyzerClient<UnaryChannel>,
    /// `PulumiPolicy.yaml`'s `version`, used over what the pack reports.
    version: Option<String>,
    /// `PulumiPolicy.yaml`'s `description`, used when the pack gives none.
    description: Option<String>,
}

impl PackConnection {
    /// Dials the pack at 127.0.0.1:`port`.
    pub async fn connect(
        port: u16,
        version: Option<String>,
        description: Option<String>,
    ) -> Result<PackConnection, CallError> {
        let address = format!("127.0.0.1:{port}");
        let channel = UnaryChannel::connect(&address)
            .await
            .map_err(|e| CallError::Connect {
                address: address.clone(),
                reason: e.to_string(),
            })?;
        let client = AnalyzerClient::new(channel)
            .max_decoding_message_size(MAX_MESSAGE_SIZE)
            .max_encoding_message_size(MAX_MESSAGE_SIZE);
        Ok(PackConnection {
            client,
            version: version.filter(|v| !v.is_empty()),
            description,
        })
    }

    /// The first call; a pack that does not implement it (both SDKs today) is fine.
    pub async fn handshake(&self, engine_address: &str, dir: &str) -> Result<(), CallError> {
        let req = pulumirpc::AnalyzerHandshakeRequest {
            engine_address: engine_address.to_string(),
            root_directory: Some(dir.to_string()),
            program_directory: Some(dir.to_string()),
        };
        match self.client.clone().handshake(req).await {
            Ok(_) => Ok(()),
            Err(s) if s.code() == Code::Unimplemented => Ok(()),
            Err(s) => Err(failed("Handshake", &s)),
        }
    }

    /// The stack the pack analyzes (the SDKs read its tags from here).
    pub async fn configure_stack(&self, identity: &StackIdentity) -> Result<(), CallError> {
        let req = pulumirpc::AnalyzerStackConfigureRequest {
            stack: identity.stack.clone(),
            project: identity.project.clone(),
            organization: identity.organization.clone(),
            dry_run: identity.dry_run,
            config_secret_keys: identity.secret_keys.clone(),
            config: identity.config.clone().into_iter().collect(),
            tags: identity.tags.clone().into_iter().collect(),
        };
        match self.client.clone().configure_stack(req).await {
            Ok(_) => Ok(()),
            Err(s) if s.code() == Code::Unimplemented => Ok(()),
            Err(s) => Err(failed("ConfigureStack", &s)),
        }
    }

    /// The policy SDK's version.
    pub async fn plugin_info(&self) -> Result<String, CallError> {
        let info = self
            .client
            .clone()
            .get_plugin_info(())
            .await
            .map_err(|s| failed("GetPluginInfo", &s))?;
        Ok(info.into_inner().version)
    }

    /// The pack's name, version, policies (sorted by name) and initial config.
    pub async fn analyzer_info(&self) -> Result<PackInfo, CallError> {
        const CALL: &str = "GetAnalyzerInfo";
        let info = self
            .client
            .clone()
            .get_analyzer_info(())
            .await
            .map_err(|s| failed(CALL, &s))?
            .into_inner();
        let supports_config = info.supports_config;
        let mut policies = info
            .policies
            .into_iter()
            .map(|p| {
                let schema = supports_config.then(|| {
                    let mut schema = p
                        .config_schema
                        .map(|s| ConfigSchema {
                            properties: s
                                .properties
                                .as_ref()
                                .map(struct_to_json)
                                .unwrap_or_default(),
                            required: s.required,
                        })
                        .unwrap_or_default();
                    schema.properties.insert(
                        "enforcementLevel".into(),
                        serde_json::json!({
                            "type": "string",
                            "enum": ["advisory", "mandatory", "remediate", "disabled"],
                        }),
                    );
                    schema
                });
                Ok(PackPolicy {
                    level: level(CALL, p.enforcement_level)?,
                    policy_type: policy_type(p.policy_type),
                    severity: severity(p.severity),
                    schema,
                    name: p.name,
                })
            })
            .collect::<Result<Vec<_>, CallError>>()?;
        policies.sort_by(|a, b| a.name.cmp(&b.name));
        let initial_config = info
            .initial_config
            .into_iter()
            .map(|(k, c)| Ok((k, policy_config(CALL, c)?)))
            .collect::<Result<BTreeMap<_, _>, CallError>>()?;
        let description = if info.description.is_empty() {
            self.description.clone().unwrap_or_default()
        } else {
            info.description
        };
        Ok(PackInfo {
            name: info.name,
            version: self.version.clone().unwrap_or(info.version),
            description,
            supports_config,
            policies,
            initial_config,
        })
    }

    /// Sends every policy's config (nothing when there is none, as Pulumi skips the call).
    pub async fn configure(
        &self,
        config: &BTreeMap<String, PolicyConfig>,
    ) -> Result<(), CallError> {
        if config.is_empty() {
            return Ok(());
        }
        let mut policy_config = std::collections::HashMap::new();
        for (name, c) in config {
            let Some(l) = c.level else {
                return Err(CallError::Invalid {
                    call: "Configure",
                    reason: format!(
                        "no enforcement level for {name:?}: invalid enforcement level \"\""
                    ),
                });
            };
            policy_config.insert(
                name.clone(),
                pulumirpc::PolicyConfig {
                    enforcement_level: level_to_wire(l),
                    properties: Some(json_object_to_struct(
                        c.properties.as_ref().unwrap_or(&serde_json::Map::new()),
                    )),
                },
            );
        }
        self.client
            .clone()
            .configure(pulumirpc::ConfigureAnalyzerRequest { policy_config })
            .await
            .map_err(|s| failed("Configure", &s))?;
        Ok(())
    }

    fn version_of(&self, reported: String) -> String {
        self.version.clone().unwrap_or(reported)
    }

    fn diagnostics(
        &self,
        call: &'static str,
        v: Vec<pulumirpc::AnalyzeDiagnostic>,
    ) -> Result<Vec<AnalyzeDiagnostic>, CallError> {
        v.into_iter()
            .map(|d| {
                let urn = if d.urn.is_empty() {
                    None
                } else {
                    Some(Urn::parse(&d.urn).map_err(|e| CallError::Invalid {
                        call,
                        reason: format!("a diagnostic on {:?}: {e}", d.urn),
                    })?)
                };
                Ok(AnalyzeDiagnostic {
                    level: level(call, d.enforcement_level)?,
                    severity: severity(d.severity),
                    pack_version: self.version_of(d.policy_pack_version),
                    policy_name: d.policy_name,
                    pack_name: d.policy_pack_name,
                    description: d.description,
                    message: d.message,
                    urn,
                })
            })
            .collect()
    }
}

/// How long a pack has to answer `Cancel` before it is killed (Pulumi's grace).
const CANCEL_GRACE: std::time::Duration = std::time::Duration::from_secs(5);

/// A loaded, configured pack the engine consults; dropping it kills the pack's process.
pub struct PackClient {
    conn: PackConnection,
    info: AnalyzerInfo,
    event_name: String,
    /// The pack as errors name it (`policy pack "<path>"`).
    label: String,
    process: Mutex<PackProcess>,
    /// The engine service the packs were given, stopped with the last of them.
    _engine: Arc<ServerHandle>,
}

impl PackClient {
    pub fn new(
        conn: PackConnection,
        info: AnalyzerInfo,
        event_name: String,
        label: String,
        process: PackProcess,
        engine: Arc<ServerHandle>,
    ) -> PackClient {
        PackClient {
            conn,
            info,
            event_name,
            label,
            process: Mutex::new(process),
            _engine: engine,
        }
    }

    /// A failed call as the engine reports it: the pack's message, or that it died.
    fn error(&self, call: &'static str, s: &Status) -> AnalyzerError {
        let exited = self.process.lock().exit_status();
        match exited {
            Some(status) => AnalyzerError(format!(
                "{} exited unexpectedly during {call} ({status})",
                self.label
            )),
            None => AnalyzerError(s.message().to_string()),
        }
    }
}

fn invalid(e: CallError) -> AnalyzerError {
    AnalyzerError(e.to_string())
}

#[async_trait]
impl Analyzer for PackClient {
    fn info(&self) -> &AnalyzerInfo {
        &self.info
    }

    fn event_name(&self) -> String {
        self.event_name.clone()
    }

    async fn remediate(&self, r: &AnalyzerResource) -> Result<RemediateResponse, AnalyzerError> {
        const CALL: &str = "Remediate";
        let answer = match self.conn.client.clone().remediate(request(r, true)).await {
            Ok(a) => a.into_inner(),
            Err(s) if s.code() == Code::Unimplemented => return Ok(RemediateResponse::default()),
            Err(s) => return Err(self.error(CALL, &s)),
        };
        let remediations = answer
            .remediations
            .into_iter()
            .map(|t| {
                let mut properties = struct_to_map(t.properties.as_ref(), MarshalOptions::ALL)
                    .map_err(|e| {
                        invalid(CallError::Invalid {
                            call: CALL,
                            reason: e.to_string(),
                        })
                    })?;
                // A pack that copies the inputs into a new object loses their secrecy; what
                // went in secret stays secret.
                annotate_secrets(&mut properties, &r.properties);
                Ok(Remediation {
                    pack_version: self.conn.version_of(t.policy_pack_version),
                    policy_name: t.policy_name,
                    pack_name: t.policy_pack_name,
                    description: t.description,
                    properties,
                    diagnostic: t.diagnostic,
                })
            })
            .collect::<Result<Vec<_>, AnalyzerError>>()?;
        Ok(RemediateResponse {
            remediations,
            not_applicable: not_applicable(answer.not_applicable),
        })
    }

    async fn analyze(&self, r: &AnalyzerResource) -> Result<AnalyzeResponse, AnalyzerError> {
        const CALL: &str = "Analyze";
        let answer = self
            .conn
            .client
            .clone()
            .analyze(request(r, false))
            .await
            .map_err(|s| self.error(CALL, &s))?
            .into_inner();
        Ok(AnalyzeResponse {
            diagnostics: self
                .conn
                .diagnostics(CALL, answer.diagnostics)
                .map_err(invalid)?,
            not_applicable: not_applicable(answer.not_applicable),
        })
    }

    async fn analyze_stack(
        &self,
        resources: &[AnalyzerStackResource],
    ) -> Result<AnalyzeResponse, AnalyzerError> {
        const CALL: &str = "AnalyzeStack";
        let req = pulumirpc::AnalyzeStackRequest {
            resources: resources.iter().map(stack_resource).collect(),
        };
        let answer = match self.conn.client.clone().analyze_stack(req).await {
            Ok(a) => a.into_inner(),
            Err(s) if s.code() == Code::Unimplemented => return Ok(AnalyzeResponse::default()),
            Err(s) => return Err(self.error(CALL, &s)),
        };
        Ok(AnalyzeResponse {
            diagnostics: self
                .conn
                .diagnostics(CALL, answer.diagnostics)
                .map_err(invalid)?,
            not_applicable: not_applicable(answer.not_applicable),
        })
    }

    /// Tells the pack the run is over (packs that do not implement it are fine), then stops
    /// its process, so that its output streams end with the run.
    async fn cancel(&self) {
        let _ = tokio::time::timeout(CANCEL_GRACE, self.conn.client.clone().cancel(())).await;
        self.process.lock().kill();
    }
}
