//! The Engine service's `StartDebugging`: a program or plugin whose own launcher started it under
//! a debugger announces where to attach, and the run passes the configuration and message on
//! as Pulumi's host server does (its `StartDebuggingEvent`).

use prost_types::value::Kind;
use prost_types::{Struct, Value};
use stepdeck::engine::{EngineEvent, EventSink};
use stepdeck::rpc::monitor::engine_service::serve_engine;
use stepdeck::rpc::pulumirpc::StartDebuggingRequest;
use stepdeck::rpc::pulumirpc::engine_client::EngineClient;
use stepdeck::rpc::transport::server::connect;

#[tokio::test(flavor = "multi_thread")]
async fn start_debugging_becomes_the_runs_event() {
    let (events, mut rx) = EventSink::channel();
    let (addr, handle) = serve_engine(events).await.unwrap();
    let mut engine = EngineClient::new(connect(&addr.to_string()).await.unwrap());
    let text = |s: &str| Value {
        kind: Some(Kind::StringValue(s.into())),
    };
    let config = Struct {
        fields: [
            ("type".to_string(), text("python")),
            ("request".to_string(), text("attach")),
        ]
        .into(),
    };
    engine
        .start_debugging(StartDebuggingRequest {
            config: Some(config),
            message: "on port 5678".into(),
        })
        .await
        .unwrap();
    let event = rx.recv().await.unwrap();
    let EngineEvent::StartDebugging { config, message } = event else {
        panic!("not a StartDebugging event: {event:?}");
    };
    assert_eq!(message, "on port 5678");
    assert_eq!(
        serde_json::Value::Object(config),
        serde_json::json!({"type": "python", "request": "attach"})
    );
    handle.shutdown().await;
}
