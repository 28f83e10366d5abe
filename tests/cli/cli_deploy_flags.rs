//! Pulumi's deployment flags through the real binary: `--json` keeps stdout to JSON,
//! `--expect-no-changes`, `--config KEY=VALUE` (saved to the stack's settings first, as Pulumi
//! does), `--suppress-outputs`, outputs that cannot be written (`--event-log`, stdout), and
//! `destroy`'s aliases.

#![allow(clippy::unwrap_used, clippy::panic)]

use crate::cli_support;
use std::process::Output;

use cli_support::*;

const PROGRAM: &str = r#"
config:
  tag:
    type: string
    default: one
resources:
  box:
    type: sim:index:Resource
    properties:
      tag: ${tag}
outputs:
  shownTag: ${box.tag}
"#;

/// `preview` or `up` (with `--yes`) on stack `dev` with plain output and `extra` flags.
fn deploy(env: &Env, op: &str, extra: &[&str]) -> Output {
    let mut args = vec![op, "--stack", "dev", "--non-interactive"];
    if op == "up" {
        args.push("--yes");
    }
    args.extend_from_slice(extra);
    env.run(&args)
}

/// Asserts the run failed with `code` and said `message` on stderr.
fn assert_fails(out: &Output, code: i32, message: &str) {
    assert_eq!(out.status.code(), Some(code), "{}", stderr(out));
    assert!(stderr(out).contains(message), "{}", stderr(out));
}

fn settings(env: &Env) -> String {
    std::fs::read_to_string(env.project().join("Pulumi.dev.yaml")).unwrap()
}

fn shown_tag(env: &Env) -> String {
    env.ok(&["stack", "output", "shownTag", "--stack", "dev"])
        .trim()
        .to_string()
}

#[test]
fn json_output_is_json_only_and_notices_go_to_stderr() {
    let env = Env::new(PROGRAM);
    let out = env.run(&["up", "--stack", "dev", "--yes", "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("Created stack 'dev'"),
        "{}",
        stderr(&out)
    );
    let text = stdout(&out);
    assert!(!text.trim().is_empty());
    for line in text.lines() {
        serde_json::from_str::<serde_json::Value>(line)
            .unwrap_or_else(|e| panic!("stdout line is not JSON ({e}): {line}"));
    }
    let preview = env.run(&["preview", "--stack", "dev", "--json"]);
    assert!(preview.status.success(), "{}", stderr(&preview));
    serde_json::from_str::<serde_json::Value>(&stdout(&preview))
        .expect("the preview digest is JSON");
}

#[test]
fn expect_no_changes_fails_with_exit_code_7_when_something_changes() {
    let env = Env::new(PROGRAM);
    for (op, extra) in [
        ("up", &[][..]),
        ("preview", &["--expect-no-changes"][..]),
        ("up", &["--expect-no-changes"][..]),
    ] {
        let out = deploy(&env, op, extra);
        assert!(out.status.success(), "{op} {extra:?}: {}", stderr(&out));
    }

    let preview = deploy(
        &env,
        "preview",
        &["--expect-no-changes", "--config", "tag=two"],
    );
    assert_fails(
        &preview,
        7,
        "no changes were expected for preview but changes were proposed",
    );
    assert_eq!(settings(&env), "config:\n  e2e:tag: two\n");

    // Pulumi's update runs, then reports the unexpected changes.
    let up = deploy(&env, "up", &["--expect-no-changes", "-c", "tag=three"]);
    assert_fails(&up, 7, "no changes were expected for update");
    assert_eq!(shown_tag(&env), "three");
}

#[test]
fn config_paths_on_the_command_line_are_saved_before_the_update() {
    let env = Env::new(PROGRAM);
    let out = deploy(
        &env,
        "up",
        &[
            "--config-path",
            "--config",
            "tag=from-flag",
            "--config",
            "extra.list[0]=1",
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        settings(&env),
        "config:\n  e2e:extra:\n    list:\n      - 1\n  e2e:tag: from-flag\n"
    );
    assert_eq!(shown_tag(&env), "from-flag");
    let bad = deploy(&env, "up", &["--config", "novalue"]);
    assert_fails(&bad, 2, "expected KEY=VALUE");
}

#[test]
fn suppress_outputs_hides_the_stack_outputs() {
    let env = Env::new(PROGRAM);
    let shown = stdout(&deploy(&env, "up", &[]));
    assert!(
        shown.contains("Outputs:") && shown.contains("shownTag"),
        "{shown}"
    );
    let hidden = stdout(&deploy(&env, "up", &["--suppress-outputs"]));
    assert!(
        !hidden.contains("Outputs:") && !hidden.contains("shownTag"),
        "{hidden}"
    );
}

// --- The deployment flags Pulumi's Automation API passes. ---

/// The stack's latest update as `stack history --json` gives it.
fn latest(env: &Env) -> serde_json::Value {
    let list: serde_json::Value = serde_json::from_str(&env.ok(&[
        "stack",
        "history",
        "--json",
        "--page-size",
        "1",
        "--stack",
        "dev",
    ]))
    .unwrap();
    list[0].clone()
}

/// The `summaryEvent` of an event log.
fn summary(path: &std::path::Path) -> serde_json::Value {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .find_map(|e| e.get("summaryEvent").cloned())
        .expect("a summary event")
}

#[test]
fn the_automation_apis_run_flags_are_recorded_as_pulumi_records_them() {
    let env = Env::new(PROGRAM);
    // Python's argv, then Go's (`=` everywhere, the message in Go's %q quotes).
    env.ok(&[
        "--non-interactive",
        "up",
        "--yes",
        "--skip-preview",
        "--parallel",
        "4",
        "--color",
        "never",
        "--suppress-progress",
        "--suppress-outputs",
        "--exec-kind",
        "auto.local",
        "--exec-agent",
        "pulumi/pulumi/test",
        "--stack",
        "dev",
    ]);
    let first = latest(&env);
    assert_eq!(
        first["environment"],
        serde_json::json!({"exec.agent": "pulumi/pulumi/test", "exec.kind": "auto.local", "updatePlan": "false"})
    );
    let out = env.run(&[
        "--non-interactive",
        "up",
        "--yes",
        "--skip-preview",
        "--exec-kind=auto.inline",
        "--parallel=2",
        "--message=\"from go\"",
        "--attach-debugger",
        "--run-program=true",
        "--stack",
        "dev",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("--attach-debugger: a YAML program runs inside stepdeck"),
        "{}",
        stdout(&out)
    );
    let second = latest(&env);
    assert_eq!(second["environment"]["exec.kind"], "auto.inline");
    assert_eq!(second["message"], "\"from go\"");
    // A kind Pulumi does not know is recorded as `cli`, as Pulumi's metadata does.
    env.ok(&["up", "--yes", "--stack", "dev", "--exec-kind", "nonsense"]);
    assert_eq!(latest(&env)["environment"]["exec.kind"], "cli");
}

/// Pulumi's refresh has a step for every resource, the stack's included: a stack with nothing
/// but outputs still shows its `refreshing` row (Pulumi's Automation API suites look for it),
/// and a refresh leaves it unchanged rather than reading it as deleted.
#[test]
fn a_refresh_shows_the_stack_refreshing() {
    let env = Env::new("outputs:\n  greeting: hello\n");
    deploy(&env, "up", &[]);
    let row = " ~  pulumi:pulumi:Stack e2e-dev refreshing";
    for args in [
        &["preview", "--refresh"][..],
        &["up", "--refresh", "--yes"],
        &["destroy", "--refresh", "--preview-only"],
    ] {
        let mut all = args.to_vec();
        all.extend(["--stack", "dev", "--non-interactive"]);
        let out = env.ok(&all);
        assert!(out.contains(row), "{args:?}: {out}");
    }
    let out = env.ok(&["refresh", "--yes", "--stack", "dev", "--non-interactive"]);
    assert!(out.contains(row), "{out}");
    assert!(!out.contains("deleted"), "{out}");
    assert!(out.contains("Resources:\n    1 unchanged\n"), "{out}");
    let out = env.ok(&["up", "--yes", "--stack", "dev", "--non-interactive"]);
    assert!(out.contains("greeting: \"hello\""), "{out}");
}

#[test]
fn refresh_and_destroy_previews_act_on_nothing() {
    let env = Env::new(PROGRAM);
    deploy(&env, "up", &[]);
    let mut world: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(env.world_path()).unwrap()).unwrap();
    for r in world["resources"].as_object_mut().unwrap().values_mut() {
        r["properties"]["tag"] = "drifted".into();
    }
    std::fs::write(env.world_path(), world.to_string()).unwrap();
    let before = env.export("dev")["deployment"]["resources"].clone();
    let log = env.root.path().join("events.jsonl");
    let log_arg = log.to_str().unwrap();
    let preview = env.run(&[
        "refresh",
        "--preview-only",
        "--stack",
        "dev",
        "--non-interactive",
        "--event-log",
        log_arg,
    ]);
    assert!(preview.status.success(), "{}", stderr(&preview));
    assert!(
        stdout(&preview).contains("Previewing refresh (dev):"),
        "{}",
        stdout(&preview)
    );
    let s = summary(&log);
    assert_eq!(s["isPreview"], true);
    assert_eq!(
        s["resourceChanges"],
        serde_json::json!({"same": 1, "update": 1})
    );
    assert_eq!(env.export("dev")["deployment"]["resources"], before);

    // --diff shows what the read found.
    let diff = env.ok(&["refresh", "--preview-only", "--diff", "--stack", "dev"]);
    assert!(
        diff.contains(
            " ~  sim:index:Resource box refreshing\n        ~ tag: \"one\" => \"drifted\"\n"
        ),
        "{diff}"
    );
    // ProgramTest passes --expect-no-changes to every refresh: drift is exit code 7.
    let drift = env.run(&[
        "refresh",
        "--skip-preview",
        "--expect-no-changes",
        "--diff",
        "--stack",
        "dev",
    ]);
    assert_fails(&drift, 7, "no changes were expected for refresh");
    assert!(
        stdout(&drift).contains("        ~ tag: \"one\" => \"drifted\"\n"),
        "{}",
        stdout(&drift)
    );
    env.ok(&[
        "refresh",
        "--skip-preview",
        "--expect-no-changes",
        "--stack",
        "dev",
    ]);
    assert_eq!(
        latest(&env)["resourceChanges"],
        serde_json::json!({"same": 2})
    );

    let destroy = env.run(&[
        "destroy",
        "--preview-only",
        "--stack",
        "dev",
        "--event-log",
        log_arg,
    ]);
    assert!(destroy.status.success(), "{}", stderr(&destroy));
    assert_eq!(
        summary(&log)["resourceChanges"],
        serde_json::json!({"delete": 2})
    );
    assert_eq!(env.managed("dev").len(), 1);
    assert!(
        !stdout(&destroy).contains("have been deleted"),
        "{}",
        stdout(&destroy)
    );

    assert_fails(
        &env.run(&["refresh", "--preview-only", "--yes", "--stack", "dev"]),
        2,
        "--yes and --preview-only cannot be used together",
    );
    assert_fails(
        &env.run(&[
            "destroy",
            "--preview-only",
            "--skip-preview",
            "--stack",
            "dev",
        ]),
        2,
        "--skip-preview and --preview-only cannot be used together",
    );
    assert_fails(
        &env.run(&["destroy", "--stack", "dev", "--non-interactive"]),
        2,
        "--yes or --skip-preview or --preview-only must be passed in to proceed when running in non-interactive mode",
    );
}

const PROTECTED: &str = r#"
config:
  protected:
    type: boolean
    default: true
resources:
  net:
    type: sim:index:Network
    properties:
      cidr: 10.0.0.0/16
  db:
    type: sim:index:Database
    properties:
      engine: pg15
      networkId: ${net.networkId}
    options:
      protect: ${protected}
  box:
    type: sim:index:Resource
    properties:
      tag: one
"#;

#[test]
fn destroy_says_what_pulumis_says_and_removes_the_stack_when_asked() {
    let env = Env::new(PROTECTED);
    deploy(&env, "up", &[]);
    let destroy = |extra: &[&str]| {
        let mut args = vec!["destroy", "--stack", "dev", "--yes", "--non-interactive"];
        args.extend_from_slice(extra);
        env.ok(&args)
    };
    // The database, the network it stands on, its provider and the stack stay.
    let out = destroy(&["--exclude-protected"]);
    assert!(
        out.contains("All unprotected resources were destroyed. There are still 4 protected resources associated with this stack.\n"),
        "{out}"
    );
    let left: Vec<String> = env.managed("dev").into_iter().map(|(n, _)| n).collect();
    assert_eq!(left, ["db", "net"]);
    let out = destroy(&["--exclude-protected"]);
    assert_eq!(
        out,
        "There were no unprotected resources to destroy. There are still 4 protected resources associated with this stack.\n"
    );
    assert_fails(
        &env.run(&[
            "destroy",
            "--stack",
            "dev",
            "--yes",
            "--exclude-protected",
            "--target",
            "x",
        ]),
        2,
        "you cannot specify --target and --exclude-protected",
    );

    env.ok(&["config", "set", "protected", "false", "--stack", "dev"]);
    deploy(&env, "up", &[]);
    let out = destroy(&[]);
    assert!(
        out.contains("The resources in the stack have been deleted, but the history and configuration associated with the stack are still maintained. \nIf you want to remove the stack completely, run `stepdeck stack rm dev`.\n"),
        "{out}"
    );
    let out = destroy(&["--remove"]);
    assert!(
        out.ends_with("The resources in the stack have been deleted, and the history and configuration removed.\n"),
        "{out}"
    );
    assert!(!env.project().join("Pulumi.dev.yaml").exists());
    let gone = env.run(&["stack", "select", "--stack", "dev"]);
    assert_fails(&gone, 6, "no stack named 'dev' found");
}

#[test]
fn refresh_option_and_refusals_read_as_pulumis() {
    let env = Env::new(PROGRAM);
    deploy(&env, "up", &[]);
    for args in [
        &["preview", "--refresh"][..],
        &["up", "--refresh", "--yes"],
        &["destroy", "--refresh", "--preview-only"],
    ] {
        let mut all = args.to_vec();
        all.extend(["--stack", "dev", "--non-interactive"]);
        let out = env.ok(&all);
        assert!(out.contains("refreshing"), "{args:?}: {out}");
    }
    for op in ["preview", "refresh", "destroy"] {
        let out = env.run(&[op, "--stack", "dev", "--parallel", "1.1"]);
        assert_fails(
            &out,
            1,
            "error: invalid argument \"1.1\" for \"-p, --parallel\" flag",
        );
    }
    let out = deploy(&env, "up", &["--plan", "halloumi"]);
    assert_fails(&out, 1, "error: open halloumi: no such file or directory");
    assert_fails(
        &deploy(&env, "up", &["--policy-pack", "packs/one"]),
        2,
        "error: failed to load Pulumi policy project located at \"packs/one\"",
    );
    assert_fails(
        &deploy(
            &env,
            "up",
            &["--client=127.0.0.1:1", "--exec-kind", "auto.inline"],
        ),
        1,
        "cannot reach the language runtime service at 127.0.0.1:1 (--client): transport error: tcp connect error",
    );
    // As Pulumi's, a run whose event server cannot be reached goes on without it, and says so.
    let out = deploy(&env, "preview", &["--event-log", "tcp://127.0.0.1:1"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains(
            "warning: the Automation API's event server at 127.0.0.1:1: transport error: tcp connect error"
        ) && stderr(&out).contains("the engine events are not sent"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn preview_writes_an_import_file_of_what_it_would_create() {
    let env = Env::with_passphrase(
        r#"
resources:
  prov:
    type: pulumi:providers:random
    properties:
      version: 4.16.3
  pet:
    type: random:RandomPet
    options:
      provider: ${prov}
  box:
    type: sim:index:Resource
    properties:
      tag: one
"#,
    );
    let file = env.root.path().join("import.json");
    let out = deploy(&env, "preview", &["--import-file", file.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    // Independent resources are written in the order their steps ran, which varies.
    let mut written: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    written["resources"]
        .as_array_mut()
        .unwrap()
        .sort_by_key(|r| r["name"].as_str().unwrap_or_default().to_string());
    insta::assert_snapshot!(
        "preview_import_file",
        serde_json::to_string_pretty(&written).unwrap()
    );
    assert!(env.managed("dev").is_empty(), "a preview creates nothing");
}

/// A program of `n` sim resources in a chain.
fn chain(n: usize) -> String {
    let mut program = String::from("resources:\n");
    for i in 1..=n {
        program.push_str(&format!(
            "  r{i}:\n    type: sim:index:Resource\n    properties:\n      step: {i}\n"
        ));
        if i > 1 {
            program.push_str(&format!("      after: ${{r{}.id}}\n", i - 1));
        }
    }
    program
}

/// After a run whose output could not be written: every resource is in the state and in the
/// world, and another `up` has nothing to do.
fn assert_state_whole(env: &Env, n: usize) {
    assert_eq!(env.managed("dev").len(), n);
    assert_eq!(env.world().len(), n);
    let again = deploy(env, "up", &["--expect-no-changes"]);
    assert!(again.status.success(), "{}", stderr(&again));
    env.assert_no_leaks("dev");
}

#[test]
fn an_event_log_that_cannot_be_written_fails_the_command_naming_it_and_the_state_is_whole() {
    let env = Env::new(&chain(5));
    let out = deploy(&env, "up", &["--event-log", "/dev/full"]);
    assert_fails(
        &out,
        1,
        "/dev/full: cannot write the event log: No space left",
    );
    // The run went on (as Pulumi's engine does when its event log fails) and said so once.
    assert!(stdout(&out).contains("+ 6 created"), "{}", stdout(&out));
    assert_eq!(
        stderr(&out).matches("/dev/full").count(),
        1,
        "{}",
        stderr(&out)
    );
    assert_state_whole(&env, 5);
}

#[test]
fn json_events_to_a_full_disk_or_a_closed_pipe_fail_the_command_and_the_state_is_whole() {
    let env = Env::new(&chain(5));
    let full = std::fs::File::options()
        .write(true)
        .open("/dev/full")
        .unwrap();
    let out = env
        .command(&["up", "--stack", "dev", "--yes", "--json"])
        .stdout(full)
        .output()
        .unwrap();
    assert_fails(
        &out,
        1,
        "standard output: cannot write the engine events: No space left",
    );
    assert_state_whole(&env, 5);

    // A reader that went away: the run is not killed by the broken pipe, it finishes.
    let env = Env::new(&chain(5));
    let mut child = env
        .command(&["up", "--stack", "dev", "--yes", "--json"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    assert_fails(
        &out,
        1,
        "standard output: cannot write the engine events: Broken pipe",
    );
    assert_state_whole(&env, 5);
}

/// The Automation API's `pulumirpc.Events` server, recording each `StreamEvents` call's lines.
#[derive(Clone, Default)]
struct EventsRecorder(std::sync::Arc<std::sync::Mutex<Vec<Vec<String>>>>);

#[tonic::async_trait]
impl stepdeck::rpc::pulumirpc::events_server::Events for EventsRecorder {
    async fn stream_events(
        &self,
        request: tonic::Request<tonic::Streaming<stepdeck::rpc::pulumirpc::EventRequest>>,
    ) -> Result<tonic::Response<()>, tonic::Status> {
        let mut stream = request.into_inner();
        let mut lines = Vec::new();
        while let Some(m) = stream.message().await? {
            lines.push(m.event);
        }
        self.0.lock().unwrap().push(lines);
        Ok(tonic::Response::new(()))
    }
}

/// An engine event without what differs between two runs (when, how long, and the default
/// provider's ID a preview makes up).
fn comparable(line: &str) -> serde_json::Value {
    let mut text = String::new();
    let mut rest = line;
    while let Some(at) = rest.find("::default::") {
        let end = at + "::default::".len();
        text.push_str(&rest[..end]);
        text.push_str("ID");
        rest = &rest[(end + 36).min(rest.len())..];
    }
    text.push_str(rest);
    let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
    v.as_object_mut().unwrap().remove("timestamp");
    if let Some(s) = v.get_mut("summaryEvent") {
        s.as_object_mut().unwrap().remove("durationSeconds");
    }
    // The default provider's own step (the event log carries it, as Pulumi's does).
    if let Some(new) = v
        .get_mut("resOutputsEvent")
        .map(|e| &mut e["metadata"]["new"])
        .filter(|n| n["urn"].as_str().is_some_and(|u| u.ends_with("::default")))
    {
        new["id"] = "ID".into();
    }
    v
}

#[test]
fn the_grpc_event_log_gets_every_event_the_file_does_in_one_stream_before_the_command_ends() {
    let env = Env::new(&chain(3));
    let file = env.root.path().join("events.jsonl");
    let out = deploy(&env, "preview", &["--event-log", file.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    let expected: Vec<serde_json::Value> = std::fs::read_to_string(&file)
        .unwrap()
        .lines()
        .map(comparable)
        .collect();

    let runtime = tokio::runtime::Runtime::new().unwrap();
    let recorder = EventsRecorder::default();
    let listener = runtime
        .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
        .unwrap();
    let port = listener.local_addr().unwrap().port();
    runtime.spawn(
        tonic::transport::Server::builder()
            .add_service(stepdeck::rpc::pulumirpc::events_server::EventsServer::new(
                recorder.clone(),
            ))
            .serve_with_incoming(tonic::transport::server::TcpIncoming::from(listener)),
    );
    // `localhost`, as the Go and .NET SDKs write it.
    let target = format!("tcp://localhost:{port}");
    let out = deploy(&env, "preview", &["--event-log", &target]);
    assert!(out.status.success(), "{}", stderr(&out));
    // The command waited for the server's answer: the call is recorded once it exits.
    let calls = recorder.0.lock().unwrap().clone();
    assert_eq!(calls.len(), 1, "one StreamEvents call per command");
    assert!(
        calls[0]
            .iter()
            .all(|l| l.ends_with('\n') && !l[..l.len() - 1].contains('\n')),
        "each event is one JSON line: {:?}",
        calls[0]
    );
    let got: Vec<serde_json::Value> = calls[0].iter().map(|l| comparable(l)).collect();
    assert_eq!(got, expected);
    assert!(got.last().unwrap().get("cancelEvent").is_some(), "{got:?}");
}

/// Pulumi's `destroy` also answers to `down` and `dn` (its command's aliases), as scripts and
/// Pulumi's own tests call it.
#[test]
fn destroy_answers_to_down_and_dn() {
    let env = Env::new(PROGRAM);
    for alias in ["down", "dn"] {
        deploy(&env, "up", &[]);
        assert!(!env.managed("dev").is_empty());
        env.ok(&[alias, "--stack", "dev", "--yes", "--non-interactive"]);
        assert!(env.managed("dev").is_empty(), "{alias} left resources");
    }
}

const NEEDS_CONFIG: &str = "config:
  needed:
    type: string
resources:
  box:
    type: sim:index:Resource
    properties:
      tag: ${needed}
";

/// As Pulumi's: the stack's config is checked against the project's declarations only when
/// the program runs (preview, up, `--run-program`), and never with --skip-config-validation.
#[test]
fn refresh_and_destroy_check_config_only_when_they_run_the_program() {
    let env = Env::new(NEEDS_CONFIG);
    env.ok(&["stack", "init", "dev"]);
    let out = deploy(&env, "up", &["--config", "needed=x"]);
    assert!(out.status.success(), "{}", stderr(&out));
    env.ok(&["config", "rm", "needed", "--stack", "dev"]);
    assert_fails(
        &deploy(&env, "preview", &[]),
        2,
        "validating stack config: missing required configuration value e2e:needed",
    );
    assert_fails(
        &deploy(&env, "refresh", &["--yes", "--run-program"]),
        2,
        "validating stack config",
    );
    env.ok(&["refresh", "--yes", "--non-interactive"]);
    env.ok(&["destroy", "--yes", "--non-interactive"]);
    let skipped = deploy(&env, "preview", &["--skip-config-validation"]);
    assert!(
        !stderr(&skipped).contains("validating stack config"),
        "{}",
        stderr(&skipped)
    );
}

/// `requiredPulumiVersion` is checked against the Pulumi version stepdeck implements, as
/// Pulumi checks its own.
#[test]
fn required_pulumi_version_is_enforced() {
    let env = Env::new("requiredPulumiVersion: \">=3.0.0 <4.0.0\"\n");
    env.ok(&["stack", "init", "dev"]);
    let out = deploy(&env, "preview", &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    env.write(
        "Pulumi.yaml",
        "name: e2e\nruntime: yaml\nrequiredPulumiVersion: \"<1.0.0 || >=4.0.0\"\n",
    );
    assert_fails(
        &deploy(&env, "preview", &[]),
        1,
        "does not satisfy the version range \"<1.0.0 || >=4.0.0\"",
    );
}
