//! The provider client's wire behaviour against a small gRPC ResourceProvider written here:
//! what it sends to a provider that does not accept secrets, how it maps DiffResponse, and
//! how `ErrorResourceInitFailed` details become a partial failure; that a method's check
//! failures come back as its answer; what a component provider that accepts output values gets
//! in Construct (the component's hook names among it), and how the `InputPropertiesError`
//! details of a failed Construct or Call are reported.

#![allow(clippy::unwrap_used, clippy::panic)]

use std::sync::{Arc, Mutex};

use prost::Message;
use prost_types::value::Kind;
use tonic::{Request, Response, Status};

use stepdeck::engine::hooks::HookKind;
use stepdeck::engine::model::property::{OUTPUT_SIG, SIG_KEY, props};
use stepdeck::engine::provider::parameterization::Parameterization;
use stepdeck::engine::provider::{
    CallRequest, CheckFailure, ConstructRequest, CreateRequest, DiffChanges, DiffKind, DiffRequest,
    ProviderError,
};
use stepdeck::engine::{PropertyMap, PropertyValue, Provider, Urn};
use stepdeck::rpc::MAX_MESSAGE_SIZE;
use stepdeck::rpc::marshal::{MarshalOptions, map_to_struct};
use stepdeck::rpc::plugin::provider_client::PluginProvider;
use stepdeck::rpc::pulumirpc::resource_provider_server::{
    ResourceProvider, ResourceProviderServer,
};
use stepdeck::rpc::pulumirpc::{self, diff_response, property_diff};
use stepdeck::rpc::transport::server::{ServerHandle, serve_router};

/// What the fake provider saw.
#[derive(Default)]
struct Seen {
    configure: Option<pulumirpc::ConfigureRequest>,
    create: Option<pulumirpc::CreateRequest>,
    construct: Option<pulumirpc::ConstructRequest>,
}

struct Fake {
    seen: Arc<Mutex<Seen>>,
}

#[derive(Clone, PartialEq, Message)]
struct RpcStatus {
    #[prost(int32, tag = "1")]
    code: i32,
    #[prost(string, tag = "2")]
    message: String,
    #[prost(message, repeated, tag = "3")]
    details: Vec<prost_types::Any>,
}

#[tonic::async_trait]
impl ResourceProvider for Fake {
    async fn check_config(
        &self,
        _: Request<pulumirpc::CheckRequest>,
    ) -> Result<Response<pulumirpc::CheckResponse>, Status> {
        Err(Status::unimplemented("CheckConfig"))
    }
    async fn diff_config(
        &self,
        _: Request<pulumirpc::DiffRequest>,
    ) -> Result<Response<pulumirpc::DiffResponse>, Status> {
        Err(Status::unimplemented("DiffConfig"))
    }
    async fn configure(
        &self,
        req: Request<pulumirpc::ConfigureRequest>,
    ) -> Result<Response<pulumirpc::ConfigureResponse>, Status> {
        let req = req.into_inner();
        // Configured with `components: true`, it is a component provider as the SDKs serve
        // them: secrets and output values accepted.
        let components = req
            .args
            .as_ref()
            .and_then(|a| a.fields.get("components"))
            .is_some_and(|v| v.kind == Some(Kind::BoolValue(true)));
        self.seen.lock().unwrap().configure = Some(req);
        Ok(Response::new(pulumirpc::ConfigureResponse {
            accept_secrets: components,
            supports_preview: true,
            accept_resources: false,
            accept_outputs: components,
            ..Default::default()
        }))
    }
    async fn invoke(
        &self,
        _: Request<pulumirpc::InvokeRequest>,
    ) -> Result<Response<pulumirpc::InvokeResponse>, Status> {
        Ok(Response::new(pulumirpc::InvokeResponse {
            r#return: None,
            failures: vec![pulumirpc::CheckFailure {
                property: "region".into(),
                reason: "unknown region".into(),
            }],
        }))
    }
    async fn check(
        &self,
        req: Request<pulumirpc::CheckRequest>,
    ) -> Result<Response<pulumirpc::CheckResponse>, Status> {
        Ok(Response::new(pulumirpc::CheckResponse {
            inputs: req.into_inner().news,
            failures: Vec::new(),
        }))
    }
    async fn diff(
        &self,
        _: Request<pulumirpc::DiffRequest>,
    ) -> Result<Response<pulumirpc::DiffResponse>, Status> {
        Ok(Response::new(pulumirpc::DiffResponse {
            replaces: vec!["size".into()],
            stables: vec!["id".into()],
            delete_before_replace: true,
            changes: diff_response::DiffChanges::DiffSome as i32,
            diffs: vec!["size".into(), "tags".into()],
            detailed_diff: [
                (
                    "size".to_string(),
                    pulumirpc::PropertyDiff {
                        kind: property_diff::Kind::UpdateReplace as i32,
                        input_diff: true,
                    },
                ),
                (
                    "tags.env".to_string(),
                    pulumirpc::PropertyDiff {
                        kind: property_diff::Kind::Add as i32,
                        input_diff: false,
                    },
                ),
            ]
            .into_iter()
            .collect(),
            has_detailed_diff: true,
        }))
    }
    async fn create(
        &self,
        req: Request<pulumirpc::CreateRequest>,
    ) -> Result<Response<pulumirpc::CreateResponse>, Status> {
        let req = req.into_inner();
        self.seen.lock().unwrap().create = Some(req.clone());
        let props = req.properties.unwrap_or_default();
        if props.fields.contains_key("halfway") {
            let init = pulumirpc::ErrorResourceInitFailed {
                id: "vm-1".into(),
                properties: Some(map_to_struct(
                    &stepdeck::engine::model::property::props([("state", "booting")]),
                    MarshalOptions::ALL,
                )),
                reasons: vec!["health check timed out".into()],
                ..Default::default()
            };
            let details = RpcStatus {
                code: tonic::Code::Unknown as i32,
                message: "resource partially created".into(),
                details: vec![prost_types::Any {
                    type_url: "type.googleapis.com/pulumirpc.ErrorResourceInitFailed".into(),
                    value: init.encode_to_vec(),
                }],
            };
            return Err(Status::with_details(
                tonic::Code::Unknown,
                "resource partially created",
                details.encode_to_vec().into(),
            ));
        }
        Ok(Response::new(pulumirpc::CreateResponse {
            id: "vm-2".into(),
            properties: Some(props),
            refresh_before_update: false,
        }))
    }
    async fn read(
        &self,
        _: Request<pulumirpc::ReadRequest>,
    ) -> Result<Response<pulumirpc::ReadResponse>, Status> {
        Err(Status::unimplemented("Read"))
    }
    async fn update(
        &self,
        _: Request<pulumirpc::UpdateRequest>,
    ) -> Result<Response<pulumirpc::UpdateResponse>, Status> {
        Err(Status::internal("update exploded"))
    }
    async fn delete(&self, _: Request<pulumirpc::DeleteRequest>) -> Result<Response<()>, Status> {
        Ok(Response::new(()))
    }
    /// Refuses the input `foo` (and a `gone` one).
    async fn construct(
        &self,
        req: Request<pulumirpc::ConstructRequest>,
    ) -> Result<Response<pulumirpc::ConstructResponse>, Status> {
        self.seen.lock().unwrap().construct = Some(req.into_inner());
        Err(input_properties_error("failing for a reason"))
    }
    /// Refuses the input `foo` (and a `gone` one), with no message of its own.
    async fn call(
        &self,
        request: Request<pulumirpc::CallRequest>,
    ) -> Result<Response<pulumirpc::CallResponse>, Status> {
        if request.get_ref().tok == "fake:index:Cluster/scale" {
            return Err(input_properties_error(""));
        }
        Ok(Response::new(pulumirpc::CallResponse {
            r#return: Some(map_to_struct(
                &props([("partial", PropertyValue::from("so far"))]),
                MarshalOptions::ALL,
            )),
            failures: vec![pulumirpc::CheckFailure {
                property: "the failure property".into(),
                reason: "the failure reason".into(),
            }],
            ..Default::default()
        }))
    }
    async fn cancel(&self, _: Request<()>) -> Result<Response<()>, Status> {
        Ok(Response::new(()))
    }
    async fn get_plugin_info(
        &self,
        _: Request<()>,
    ) -> Result<Response<pulumirpc::PluginInfo>, Status> {
        Ok(Response::new(pulumirpc::PluginInfo {
            version: "1.0.0".into(),
        }))
    }
    /// Serves the package its value names, at the requested version.
    async fn parameterize(
        &self,
        req: Request<pulumirpc::ParameterizeRequest>,
    ) -> Result<Response<pulumirpc::ParameterizeResponse>, Status> {
        use pulumirpc::parameterize_request::Parameters;
        match req.into_inner().parameters {
            Some(Parameters::Value(v)) => Ok(Response::new(pulumirpc::ParameterizeResponse {
                name: String::from_utf8_lossy(&v.value).into_owned(),
                version: v.version,
            })),
            _ => Err(Status::invalid_argument("only values")),
        }
    }
    /// A component and a custom resource; the first request names the schema version.
    async fn get_schema(
        &self,
        req: Request<pulumirpc::GetSchemaRequest>,
    ) -> Result<Response<pulumirpc::GetSchemaResponse>, Status> {
        if req.into_inner().version != 0 {
            return Err(Status::invalid_argument("unsupported schema version"));
        }
        let schema = serde_json::json!({
            "name": "fake",
            "resources": {
                "fake:index:Vm": {"properties": {}},
                "fake:index:Cluster": {"isComponent": true, "properties": {}},
            },
        });
        Ok(Response::new(pulumirpc::GetSchemaResponse {
            schema: schema.to_string(),
        }))
    }
}

#[derive(Clone, PartialEq, Message)]
struct InputPropertiesError {
    #[prost(message, repeated, tag = "1")]
    errors: Vec<PropertyError>,
}

#[derive(Clone, PartialEq, Message)]
struct PropertyError {
    #[prost(string, tag = "1")]
    property_path: String,
    #[prost(string, tag = "2")]
    reason: String,
}

/// A status as the SDKs' `InputPropertiesError` sends it: the message, and the properties in
/// the details.
fn input_properties_error(message: &str) -> Status {
    let error = |path: &str, reason: &str| PropertyError {
        property_path: path.into(),
        reason: reason.into(),
    };
    let errors = InputPropertiesError {
        errors: vec![
            error("foo", "the failure reason"),
            error("gone", "it is not there"),
        ],
    };
    let status = RpcStatus {
        code: tonic::Code::InvalidArgument as i32,
        message: message.into(),
        details: vec![prost_types::Any {
            type_url: "type.googleapis.com/pulumirpc.InputPropertiesError".into(),
            value: errors.encode_to_vec(),
        }],
    };
    Status::with_details(
        tonic::Code::InvalidArgument,
        message,
        status.encode_to_vec().into(),
    )
}

fn urn() -> Urn {
    Urn::parse("urn:pulumi:dev::proj::fake:index:Vm::vm").unwrap()
}

async fn start() -> (PluginProvider, Arc<Mutex<Seen>>, ServerHandle) {
    let seen = Arc::new(Mutex::new(Seen::default()));
    // Pulumi's plugins take messages of up to 400 MiB, as we do.
    let router = tonic::transport::Server::builder().add_service(
        ResourceProviderServer::new(Fake { seen: seen.clone() })
            .max_decoding_message_size(MAX_MESSAGE_SIZE)
            .max_encoding_message_size(MAX_MESSAGE_SIZE),
    );
    let (addr, handle) = serve_router(router).await.unwrap();
    (
        PluginProvider::connect_to("fake", &addr.to_string()),
        seen,
        handle,
    )
}

#[tokio::test]
async fn secrets_are_stripped_for_the_provider_and_outputs_re_marked() {
    let (p, seen, _server) = start().await;
    let cfg = p
        .configure(&props([
            ("region", PropertyValue::from("eu")),
            ("token", PropertyValue::Secret(Box::new("t0k".into()))),
        ]))
        .await
        .unwrap();
    assert!(!cfg.accept_secrets && !cfg.accept_resources);
    {
        let seen = seen.lock().unwrap();
        let conf = seen.configure.as_ref().unwrap();
        assert!(conf.accept_secrets && conf.accept_resources);
        assert_eq!(conf.variables["fake:config:region"], "eu");
        assert_eq!(conf.variables["fake:config:token"], "t0k");
    }
    let inputs = props([
        ("size", PropertyValue::from(2.0)),
        ("password", PropertyValue::Secret(Box::new("pw".into()))),
    ]);
    let created = p
        .create(CreateRequest {
            urn: urn(),
            inputs: inputs.clone(),
            timeout: 300.0,
            preview: false,
        })
        .await
        .unwrap();
    let sent = seen.lock().unwrap().create.clone().unwrap();
    assert_eq!(sent.timeout, 300.0);
    assert_eq!(sent.name, "vm");
    assert_eq!(sent.r#type, "fake:index:Vm");
    let password = &sent.properties.unwrap().fields["password"];
    assert_eq!(
        password.kind,
        Some(Kind::StringValue("pw".into())),
        "no {SIG_KEY} envelope"
    );
    assert_eq!(created.id, "vm-2");
    assert_eq!(
        created.outputs["password"],
        PropertyValue::Secret(Box::new("pw".into()))
    );
    assert_eq!(created.outputs["size"], 2.0.into());
}

#[tokio::test]
async fn parameterize_sends_the_value_and_answers_the_providers_package() {
    let (p, _seen, _server) = start().await;
    let served = p
        .parameterize(&Parameterization {
            name: "gadgets".into(),
            version: "2.0.0".into(),
            value: b"widgets".to_vec(),
        })
        .await
        .unwrap();
    assert_eq!(
        served, "widgets",
        "the name comes from the provider's answer"
    );
}

/// A method's check failures are its answer, not an error: the monitor hands them to the
/// program, whose SDK words them (`the failure reason (the failure property)`), as Pulumi's
/// monitor does.
#[tokio::test]
async fn call_failures_are_answered_with_the_return() {
    let (p, _seen, _server) = start().await;
    let answered = p
        .call(CallRequest {
            tok: "fake:index:Vm/restart".into(),
            ..CallRequest::default()
        })
        .await
        .unwrap();
    assert_eq!(
        answered.failures,
        [CheckFailure {
            property: "the failure property".into(),
            reason: "the failure reason".into(),
        }]
    );
    assert_eq!(answered.outputs["partial"], "so far".into());
}

#[tokio::test]
async fn diff_response_maps_to_the_engines_diff() {
    let (p, _seen, _server) = start().await;
    let d = p
        .diff(DiffRequest {
            urn: urn(),
            id: "vm-2".into(),
            old_inputs: PropertyMap::new(),
            old_outputs: PropertyMap::new(),
            new_inputs: PropertyMap::new(),
            ignore_changes: Vec::new(),
        })
        .await
        .unwrap();
    assert_eq!(d.changes, DiffChanges::Some);
    assert_eq!(d.replace_keys, vec!["size".to_string()]);
    assert_eq!(d.stables, vec!["id".to_string()]);
    assert_eq!(d.changed_keys, vec!["size".to_string(), "tags".to_string()]);
    assert!(d.delete_before_replace);
    assert_eq!(d.detailed_diff["size"].kind, DiffKind::UpdateReplace);
    assert!(d.detailed_diff["size"].input_diff);
    assert_eq!(d.detailed_diff["tags.env"].kind, DiffKind::Add);
}

#[tokio::test]
async fn init_failures_become_partial_failures_and_errors_keep_the_message() {
    let (p, _seen, _server) = start().await;
    let mut inputs = props([("halfway", true)]);
    // The partial outputs come back plain; the secret input marks them secret again.
    inputs.insert(
        "state".into(),
        PropertyValue::Secret(Box::new(PropertyValue::String("booting".into()))),
    );
    let err = p
        .create(CreateRequest {
            urn: urn(),
            inputs,
            timeout: 0.0,
            preview: false,
        })
        .await
        .unwrap_err();
    let mut outputs = PropertyMap::new();
    outputs.insert(
        "state".into(),
        PropertyValue::Secret(Box::new(PropertyValue::String("booting".into()))),
    );
    assert_eq!(
        err,
        ProviderError::PartialFailure {
            id: "vm-1".into(),
            outputs,
            reasons: vec!["health check timed out".into()],
        }
    );
    let err = p
        .update(stepdeck::engine::provider::UpdateRequest {
            urn: urn(),
            id: "vm-1".into(),
            old_inputs: PropertyMap::new(),
            old_outputs: PropertyMap::new(),
            new_inputs: PropertyMap::new(),
            timeout: 0.0,
            ignore_changes: Vec::new(),
            preview: false,
        })
        .await
        .unwrap_err();
    assert_eq!(err, ProviderError::Failed("update exploded".into()));
    let err = p
        .read(stepdeck::engine::provider::ReadRequest {
            urn: urn(),
            id: "vm-1".into(),
            inputs: PropertyMap::new(),
            state: PropertyMap::new(),
        })
        .await
        .unwrap_err();
    assert_eq!(err, ProviderError::Unsupported("Read"));
    let err = p
        .invoke("fake:index:getVm", &PropertyMap::new())
        .await
        .unwrap_err();
    assert!(err.to_string().contains("region: unknown region"), "{err}");
}

/// Construct names the hooks the program bound to the component (Pulumi's `resource_hooks`), so
/// the provider's own registration of it binds them too and a transform run again there sees
/// them (an anonymous hook it adds then takes the next free name, not a taken one).
#[tokio::test]
async fn construct_sends_the_components_hook_names() {
    let (p, seen, _server) = start().await;
    let hooks = [
        (
            HookKind::AfterCreate,
            vec!["comp_after_create_0".to_string()],
        ),
        (HookKind::BeforeDelete, vec!["cleanup".to_string()]),
    ];
    p.construct(ConstructRequest {
        type_: "fake:index:Cluster".into(),
        name: "comp".into(),
        hooks: hooks.into_iter().collect(),
        ..ConstructRequest::default()
    })
    .await
    .unwrap_err();
    let sent = seen.lock().unwrap().construct.clone().unwrap();
    assert_eq!(
        sent.resource_hooks,
        Some(pulumirpc::construct_request::ResourceHooksBinding {
            after_create: vec!["comp_after_create_0".into()],
            before_delete: vec!["cleanup".into()],
            ..Default::default()
        })
    );
}

/// A component provider that accepts output values gets a secret nested in an input object as
/// an output value of its own (not the whole object made secret), as Pulumi sends it; the
/// input properties a failed Construct or Call blames follow its message, each with its value
/// where the inputs hold one, and its reason.
#[tokio::test]
async fn construct_sends_output_values_and_lists_input_property_errors() {
    let (p, seen, _server) = start().await;
    p.configure(&props([("components", true)])).await.unwrap();
    let mut inputs = props([("foo", "bar")]);
    inputs.insert(
        "tags".into(),
        PropertyValue::Object(
            [(
                "b".to_string(),
                PropertyValue::Secret(Box::new(PropertyValue::String("shh".into()))),
            )]
            .into_iter()
            .collect(),
        ),
    );
    let err = p
        .construct(ConstructRequest {
            type_: "fake:index:Cluster".into(),
            name: "c".into(),
            inputs,
            ..ConstructRequest::default()
        })
        .await
        .unwrap_err();
    assert_eq!(
        err,
        ProviderError::Failed(
            "failing for a reason\n\t\t- property foo with value 'bar' has a problem: the failure reason\n\t\t- property gone has a problem: it is not there"
                .into()
        )
    );
    let sent = seen
        .lock()
        .unwrap()
        .construct
        .clone()
        .unwrap()
        .inputs
        .unwrap();
    let Some(Kind::StructValue(tags)) = &sent.fields["tags"].kind else {
        panic!("tags is an object: {sent:?}");
    };
    let Some(Kind::StructValue(b)) = &tags.fields["b"].kind else {
        panic!("tags.b is an output value: {tags:?}");
    };
    let field = |k: &str| b.fields[k].kind.clone();
    assert_eq!(field(SIG_KEY), Some(Kind::StringValue(OUTPUT_SIG.into())));
    assert_eq!(field("secret"), Some(Kind::BoolValue(true)));
    assert_eq!(field("value"), Some(Kind::StringValue("shh".into())));
    let err = p
        .call(CallRequest {
            tok: "fake:index:Cluster/scale".into(),
            ..CallRequest::default()
        })
        .await
        .unwrap_err();
    assert_eq!(
        err,
        ProviderError::Failed(
            "\n\t\t- property foo has a problem: the failure reason\n\t\t- property gone has a problem: it is not there"
                .into()
        )
    );
}

/// Inputs and outputs of many megabytes (the stream's window is 2 MiB, the connection's 5) go
/// through whole, several calls at once on the one connection: the client hands back the
/// window of every chunk it reads.
#[tokio::test]
async fn messages_larger_than_the_flow_control_windows_arrive_whole() {
    let (p, _seen, _server) = start().await;
    let create = |i: usize| {
        let blob = "x".repeat((6 << 20) + i);
        let request = CreateRequest {
            urn: urn(),
            inputs: props([("blob", PropertyValue::from(blob.as_str()))]),
            timeout: 0.0,
            preview: false,
        };
        let p = &p;
        async move { (p.create(request).await, blob) }
    };
    let calls = futures::future::join_all((0..3).map(create));
    let done = tokio::time::timeout(std::time::Duration::from_secs(60), calls)
        .await
        .expect("the calls finished");
    for (created, blob) in done {
        assert_eq!(created.unwrap().outputs["blob"], PropertyValue::from(blob));
    }
}

#[tokio::test]
async fn component_types_are_what_the_schema_marks_as_components() {
    let (p, _seen, _server) = start().await;
    assert_eq!(p.component_types().await.unwrap(), ["fake:index:Cluster"]);
}
