//! The `command` provider through the `Provider` trait, running real processes.

#![allow(clippy::unwrap_used, clippy::panic)]

use std::sync::Arc;
use std::time::{Duration, Instant};

use stepdeck::engine::model::property::props;
use stepdeck::engine::provider::{
    CheckRequest, CreateRequest, DeleteRequest, DiffRequest, ProviderError, UpdateRequest,
};
use stepdeck::engine::{PropertyMap, PropertyValue, Provider, ProviderFactory, Urn};
use stepdeck::providers::BuiltinProviders;

fn provider() -> Arc<dyn Provider> {
    BuiltinProviders::new("unused.json".into())
        .load("command", None)
        .unwrap()
}

fn urn(name: &str) -> Urn {
    Urn::new("dev", "p", None, "command:local:Command", name)
}

fn create_req(inputs: PropertyMap, preview: bool) -> CreateRequest {
    CreateRequest {
        urn: urn("cmd"),
        inputs,
        timeout: 0.0,
        preview,
    }
}

#[tokio::test]
async fn create_writes_a_file_and_delete_removes_it() {
    let dir = tempfile::tempdir().unwrap();
    let p = provider();
    let inputs = props([
        ("create", "echo hello > made.txt && echo created"),
        ("delete", "rm made.txt"),
        ("dir", dir.path().to_str().unwrap()),
    ]);
    let r = p.create(create_req(inputs.clone(), false)).await.unwrap();
    assert!(r.id.starts_with("cmd") && r.id.len() == 3 + 8, "{}", r.id);
    assert_eq!(r.outputs["stdout"], PropertyValue::from("created"));
    assert_eq!(r.outputs["stderr"], PropertyValue::from(""));
    assert_eq!(r.outputs["create"], inputs["create"]);
    let made = dir.path().join("made.txt");
    assert_eq!(std::fs::read_to_string(&made).unwrap(), "hello\n");

    p.delete(DeleteRequest {
        urn: urn("cmd"),
        id: r.id,
        inputs,
        outputs: r.outputs,
        timeout: 0.0,
    })
    .await
    .unwrap();
    assert!(!made.exists());
}

#[tokio::test]
async fn failing_command_reports_exit_status_and_stderr_tail() {
    let err = provider()
        .create(create_req(
            props([("create", "echo partial; echo boom >&2; exit 3")]),
            false,
        ))
        .await
        .unwrap_err();
    let ProviderError::Failed(msg) = err else {
        panic!("unexpected error {err:?}");
    };
    assert!(msg.contains("exit status 3"), "{msg}");
    assert!(msg.ends_with("boom"), "{msg}");
}

#[tokio::test]
async fn environment_stdin_and_interpreter_reach_the_process() {
    let mut inputs = props([("create", "read line; echo \"$GREETING $line\"")]);
    inputs.insert(
        "environment".into(),
        PropertyValue::Object(props([("GREETING", "hello")])),
    );
    inputs.insert("stdin".into(), "world\n".into());
    let r = provider().create(create_req(inputs, false)).await.unwrap();
    assert_eq!(r.outputs["stdout"], PropertyValue::from("hello world"));

    let mut inputs = props([("create", "print-me")]);
    inputs.insert(
        "interpreter".into(),
        PropertyValue::Array(vec!["/bin/echo".into(), "via".into()]),
    );
    let r = provider().create(create_req(inputs, false)).await.unwrap();
    assert_eq!(r.outputs["stdout"], PropertyValue::from("via print-me"));
}

#[tokio::test]
async fn update_runs_update_or_create_with_previous_output() {
    let p = provider();
    let old_in = props([("create", "echo one")]);
    let created = p.create(create_req(old_in.clone(), false)).await.unwrap();
    let update = |new: PropertyMap, preview: bool| UpdateRequest {
        urn: urn("cmd"),
        id: created.id.clone(),
        old_inputs: old_in.clone(),
        old_outputs: created.outputs.clone(),
        new_inputs: new,
        timeout: 0.0,
        ignore_changes: Vec::new(),
        preview,
    };
    let out = p
        .update(update(
            props([("create", "echo two; echo \"was $PULUMI_COMMAND_STDOUT\"")]),
            false,
        ))
        .await
        .unwrap();
    assert_eq!(out["stdout"], PropertyValue::from("two\nwas one"));
    let out = p
        .update(update(
            props([("create", "echo x"), ("update", "echo updated")]),
            false,
        ))
        .await
        .unwrap();
    assert_eq!(out["stdout"], PropertyValue::from("updated"));
    let out = p
        .update(update(props([("create", "echo x")]), true))
        .await
        .unwrap();
    assert_eq!(out["stdout"], PropertyValue::Unknown);
}

#[tokio::test]
async fn preview_runs_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let inputs = props([
        ("create", "touch should-not-exist"),
        ("dir", dir.path().to_str().unwrap()),
    ]);
    let r = provider().create(create_req(inputs, true)).await.unwrap();
    assert_eq!(r.outputs["stdout"], PropertyValue::Unknown);
    assert_eq!(r.outputs["stderr"], PropertyValue::Unknown);
    assert!(!dir.path().join("should-not-exist").exists());
}

#[tokio::test]
async fn triggers_force_replacement_other_changes_update() {
    let p = provider();
    let diff = |old: PropertyMap, new: PropertyMap| DiffRequest {
        urn: urn("cmd"),
        id: "cmd1".into(),
        old_inputs: old,
        old_outputs: PropertyMap::new(),
        new_inputs: new,
        ignore_changes: Vec::new(),
    };
    let mut old = props([("create", "echo a")]);
    old.insert("triggers".into(), PropertyValue::Array(vec!["v1".into()]));
    let mut new = old.clone();
    new.insert("triggers".into(), PropertyValue::Array(vec!["v2".into()]));
    let d = p.diff(diff(old.clone(), new)).await.unwrap();
    assert_eq!(d.replace_keys, vec!["triggers"]);
    let mut new = old.clone();
    new.insert("create".into(), "echo b".into());
    let d = p.diff(diff(old, new)).await.unwrap();
    assert!(d.replace_keys.is_empty());
    assert_eq!(d.changed_keys, vec!["create"]);
}

#[tokio::test]
async fn cancel_and_timeout_kill_the_process() {
    let p = provider();
    let running = {
        let p = p.clone();
        tokio::spawn(async move {
            p.create(create_req(props([("create", "sleep 30")]), false))
                .await
        })
    };
    tokio::time::sleep(Duration::from_millis(200)).await;
    let t = Instant::now();
    p.cancel().await.unwrap();
    let r = running.await.unwrap();
    assert_eq!(r.unwrap_err(), ProviderError::Cancelled);
    assert!(t.elapsed() < Duration::from_secs(5));

    let mut req = create_req(props([("create", "sleep 30")]), false);
    req.timeout = 0.3;
    let t = Instant::now();
    let err = provider().create(req).await.unwrap_err();
    assert!(err.to_string().contains("did not finish"), "{err}");
    assert!(t.elapsed() < Duration::from_secs(5));
}

#[tokio::test]
async fn a_preview_accepts_commands_not_known_yet() {
    let p = provider();
    let mut inputs = PropertyMap::new();
    inputs.insert("create".into(), PropertyValue::Unknown);
    let r = p.create(create_req(inputs.clone(), true)).await.unwrap();
    assert_eq!(r.outputs["stdout"], PropertyValue::Unknown);
    let created = p
        .create(create_req(props([("create", "echo one")]), false))
        .await
        .unwrap();
    let out = p
        .update(UpdateRequest {
            urn: urn("cmd"),
            id: created.id,
            old_inputs: props([("create", "echo one")]),
            old_outputs: created.outputs,
            new_inputs: inputs,
            timeout: 0.0,
            ignore_changes: Vec::new(),
            preview: true,
        })
        .await
        .unwrap();
    assert_eq!(out["stderr"], PropertyValue::Unknown);
}

#[tokio::test]
async fn the_run_function_runs_a_command_and_returns_its_output() {
    let p = provider();
    let mut args = props([("command", "printf \"$GREETING\"")]);
    args.insert(
        "environment".into(),
        PropertyValue::Object(props([("GREETING", "hi there")])),
    );
    let out = p.invoke("command:local:run", &args).await.unwrap();
    assert_eq!(out["stdout"], PropertyValue::string("hi there"));
    assert_eq!(out["stderr"], PropertyValue::string(""));
    assert_eq!(out["command"], args["command"]);
    let err = p
        .invoke("command:local:nope", &args)
        .await
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("unknown function `command:local:nope`"),
        "{err}"
    );
    let err = p
        .invoke("command:local:run", &PropertyMap::new())
        .await
        .unwrap_err()
        .to_string();
    assert_eq!(err, "`command` is required");
}

#[tokio::test]
async fn logged_lines_arrive_while_the_command_runs() {
    let (events, mut rx) = stepdeck::engine::EventSink::channel();
    let p = BuiltinProviders::new("unused.json".into())
        .with_events(events)
        .load("command", None)
        .unwrap();
    let inputs = props([
        ("create", "echo first; sleep 1; echo second >&2"),
        ("logging", "stdoutAndStderr"),
    ]);
    let run = tokio::spawn(async move { p.create(create_req(inputs, false)).await });
    let first = tokio::time::timeout(Duration::from_secs(5), rx.recv())
        .await
        .expect("a line within the command's run")
        .unwrap();
    assert!(
        !run.is_finished(),
        "the first line came before the command ended"
    );
    let stepdeck::engine::EngineEvent::Diagnostic { urn, message, .. } = first else {
        panic!("{first:?}")
    };
    assert_eq!((urn, message.as_str()), (Some(self::urn("cmd")), "first"));
    let created = run.await.unwrap().unwrap();
    assert_eq!(created.outputs["stdout"], PropertyValue::from("first"));
    assert_eq!(created.outputs["stderr"], PropertyValue::from("second"));
    let Ok(stepdeck::engine::EngineEvent::Diagnostic { message, .. }) = rx.try_recv() else {
        panic!("the second line")
    };
    assert_eq!(message, "second");
}

#[tokio::test]
async fn check_refuses_an_unknown_logging_value_naming_the_values_it_takes() {
    let p = provider();
    let check = |logging: &str| CheckRequest {
        urn: urn("cmd"),
        olds: PropertyMap::new(),
        news: props([("create", "true"), ("logging", logging)]),
        random_seed: Vec::new(),
        autonaming: None,
    };
    let refused = p.check(check("loud")).await.unwrap();
    assert_eq!(refused.failures.len(), 1, "{:?}", refused.failures);
    assert_eq!(refused.failures[0].property, "logging");
    assert_eq!(
        refused.failures[0].reason,
        "unknown value \"loud\"; expected one of stdout, stderr, stdoutAndStderr, none"
    );
    assert!(p.check(check("stderr")).await.unwrap().failures.is_empty());
}

#[tokio::test]
async fn what_a_command_produces_is_secret_when_an_input_holds_a_secret() {
    let dir = tempfile::tempdir().unwrap();
    let p = provider();
    let secret = |v: &str| PropertyValue::Secret(Box::new(v.into()));
    let mut inputs = props([
        (
            "create",
            "echo \"pw=$PW\"; echo warn >&2; echo f > made.txt",
        ),
        ("dir", dir.path().to_str().unwrap()),
    ]);
    inputs.insert(
        "environment".into(),
        PropertyValue::Object([("PW".to_string(), secret("s3cr3t"))].into_iter().collect()),
    );
    inputs.insert(
        "assetPaths".into(),
        PropertyValue::Array(vec!["made.txt".into()]),
    );
    let created = p.create(create_req(inputs.clone(), false)).await.unwrap();
    let out = &created.outputs;
    assert_eq!(out["stdout"], secret("pw=s3cr3t"));
    assert_eq!(out["stderr"], secret("warn"));
    assert!(out["assets"].is_secret(), "{:?}", out["assets"]);
    // Inputs come back as they were given: the plain command plain, the secret inside.
    assert_eq!(out["create"], inputs["create"]);
    assert_eq!(out["environment"], inputs["environment"]);

    // The next run gets the secret previous output in its environment: still secret.
    let plain = props([("create", "echo \"before: $PULUMI_COMMAND_STDOUT\"")]);
    let updated = p
        .update(UpdateRequest {
            urn: urn("cmd"),
            id: created.id.clone(),
            old_inputs: inputs.clone(),
            old_outputs: created.outputs.clone(),
            new_inputs: plain.clone(),
            timeout: 0.0,
            ignore_changes: Vec::new(),
            preview: false,
        })
        .await
        .unwrap();
    assert_eq!(updated["stdout"], secret("before: pw=s3cr3t"));

    // Without any secret, nothing is wrapped; the run function follows the same rule.
    let plain_out = p.create(create_req(plain, false)).await.unwrap().outputs;
    assert_eq!(plain_out["stdout"], PropertyValue::from("before: "));
    let mut args = props([("command", "echo \"$PW\"")]);
    args.insert("environment".into(), inputs["environment"].clone());
    let ran = p.invoke("command:local:run", &args).await.unwrap();
    assert_eq!(ran["stdout"], secret("s3cr3t"));
}
