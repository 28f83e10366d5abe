//! `stack history` and `--message`: each update, refresh and destroy is recorded by the
//! backend (Pulumi's DIY `history/<stack>-<time>.history.json`), failed ones too; previews are
//! not.

#![allow(clippy::unwrap_used, clippy::panic)]

use crate::cli_support;
use cli_support::*;
use serde_json::Value;

const FAILING: &str = r#"
resources:
  net:
    type: sim:index:Network
    properties:
      cidr: 10.0.0.0/16
      failOn: [update]
"#;

fn history(env: &Env) -> Vec<Value> {
    let text = env.ok(&["stack", "history", "--stack", "dev", "--json"]);
    serde_json::from_str::<Value>(&text)
        .expect("history is JSON")
        .as_array()
        .cloned()
        .expect("a list")
}

/// The history with its times replaced, for the snapshot.
fn shape(list: &[Value]) -> String {
    let mut list = list.to_vec();
    for u in &mut list {
        for key in ["startTime", "endTime"] {
            let t = u[key].as_str().expect("a time");
            // Pulumi's layout, the one Python's Automation API parses: `%Y-%m-%dT%H:%M:%S.%fZ`.
            assert!(
                chrono::NaiveDateTime::parse_from_str(t, "%Y-%m-%dT%H:%M:%S%.3fZ").is_ok()
                    && t.len() == 24,
                "{t}"
            );
            u[key] = Value::String("<time>".into());
        }
    }
    serde_json::to_string_pretty(&list).unwrap()
}

#[test]
fn every_update_is_recorded_with_its_kind_result_changes_and_message() {
    let env = Env::with_passphrase(NET_AND_DB);
    env.set_secret("token", "hunter2");
    env.ok(&[
        "config",
        "set",
        "--path",
        "db.ports[0]",
        "5432",
        "--stack",
        "dev",
    ]);
    let yes = ["--stack", "dev", "--yes", "--non-interactive"];
    env.ok(&[
        &["up"][..],
        &yes,
        &["--message", "first", "-c", "region=north"],
    ]
    .concat());
    env.ok(&["preview", "--stack", "dev", "--non-interactive"]);
    env.ok(&[&["refresh"][..], &yes].concat());
    env.write(
        "Pulumi.yaml",
        &format!("name: e2e\nruntime: yaml\n{FAILING}"),
    );
    let failed = env.run(&[&["up"][..], &yes, &["-m", "breaks"]].concat());
    assert_eq!(failed.status.code(), Some(1), "{}", stderr(&failed));
    env.ok(&[&["destroy"][..], &yes, &["-m", "bye"]].concat());

    let list = history(&env);
    insta::assert_snapshot!("stack_history_json", shape(&list));
    // The Automation API's `Stack.info()`: the latest update, secrets shown.
    let info: Value = serde_json::from_str(&env.ok(&[
        "--non-interactive",
        "stack",
        "history",
        "--json",
        "--show-secrets",
        "--page-size",
        "1",
        "--page",
        "1",
        "--stack",
        "dev",
    ]))
    .unwrap();
    assert_eq!(info.as_array().unwrap().len(), 1);
    assert_eq!(info[0]["version"], 4);
    assert_eq!(
        info[0]["config"]["e2e:token"],
        serde_json::json!({"value": "hunter2", "secret": true})
    );
    let dir = env.root.path().join("state/.pulumi/history/e2e/dev");
    for file in std::fs::read_dir(dir).unwrap() {
        let path = file.unwrap().path();
        let bytes = std::fs::read(&path).unwrap();
        // The events kept for a replay are gzipped: read as the replay reads them.
        let bytes = if path.extension().is_some_and(|e| e == "gz") {
            use stepdeck::state::codec::update_events::{decompress, stored};
            decompress(&stored(bytes)).unwrap()
        } else {
            bytes
        };
        let text = String::from_utf8(bytes).unwrap();
        assert!(!text.contains("hunter2"), "a secret in plain text: {text}");
    }

    let plain = env.ok(&["stack", "history", "--stack", "dev"]);
    let first = plain.find("Version: 4").expect(&plain);
    assert!(first < plain.find("Version: 1").expect(&plain), "{plain}");
    assert!(plain.contains("Message: breaks"), "{plain}");
    assert!(plain.contains("Status: failed"), "{plain}");
}

#[test]
fn a_stack_never_updated_has_an_empty_history() {
    let env = Env::new(NET_AND_DB);
    env.ok(&["stack", "init", "dev"]);
    assert!(history(&env).is_empty());
    let plain = env.ok(&["stack", "history", "--stack", "dev"]);
    assert!(plain.contains("Stack has never been updated"), "{plain}");
}

#[test]
fn history_files_follow_pulumis_diy_naming() {
    let env = Env::new(NET_AND_DB);
    env.ok(&["up", "--stack", "dev", "--yes", "--non-interactive"]);
    let dir = env.root.path().join("state/.pulumi/history/e2e/dev");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    // Pulumi's `addToHistory`: the record and a copy of the checkpoint the update left; the
    // events kept for a replay beside them, under a name Pulumi does not read.
    assert_eq!(names.pop().as_deref(), Some("dev-v1.events.json.gz"));
    assert_eq!(names.len(), 2, "{names:?}");
    let base = names[0].strip_suffix(".checkpoint.json").expect(&names[0]);
    assert_eq!(names[1], format!("{base}.history.json"), "{names:?}");
    assert!(
        base.strip_prefix("dev-")
            .is_some_and(|n| n.parse::<i64>().is_ok()),
        "{names:?}"
    );
    let record: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join(&names[1])).unwrap()).unwrap();
    assert_eq!(record["kind"], "update");
    assert_eq!(record["result"], "succeeded");
    assert!(
        record["startTime"].is_i64() && record["endTime"].is_i64(),
        "{record}"
    );
    // Pulumi's `config.Map`: a plain value as its text, a secret as `{"secure": ciphertext}`.
    assert!(record["config"].is_object(), "{record}");
    for (key, value) in record["config"].as_object().unwrap() {
        assert!(
            value.is_string() || value.get("secure").is_some_and(Value::is_string),
            "{key}: {value}"
        );
    }
    assert_eq!(
        std::fs::read(dir.join(&names[0])).unwrap(),
        std::fs::read(env.checkpoint_path("dev")).unwrap(),
        "the checkpoint copy is the stack's checkpoint"
    );
    // And Pulumi's backup of it.
    let backups: Vec<_> = std::fs::read_dir(env.root.path().join("state/.pulumi/backups/e2e/dev"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(backups.len(), 1, "{backups:?}");
    assert!(
        backups[0].starts_with("dev.") && backups[0].ends_with(".json"),
        "{backups:?}"
    );
}

#[test]
fn history_comes_a_page_at_a_time_newest_first_ten_by_default() {
    let env = Env::new(NET_AND_DB);
    env.ok(&["up", "--stack", "dev", "--yes", "--non-interactive"]);
    for _ in 0..10 {
        env.ok(&["refresh", "--stack", "dev", "--skip-preview"]);
    }
    let versions = |args: &[&str]| -> Vec<u64> {
        let mut all = vec!["stack", "history", "--json", "--stack", "dev"];
        all.extend_from_slice(args);
        serde_json::from_str::<Value>(&env.ok(&all))
            .unwrap()
            .as_array()
            .unwrap()
            .iter()
            .map(|u| u["version"].as_u64().unwrap())
            .collect()
    };
    assert_eq!(versions(&[]), (2..=11).rev().collect::<Vec<_>>());
    assert_eq!(versions(&["--page", "2"]), [1]);
    assert_eq!(versions(&["--page-size", "4", "--page", "2"]), [7, 6, 5, 4]);
    assert_eq!(versions(&["--page-size", "0"]).len(), 11);
    assert!(versions(&["--page-size", "4", "--page", "9"]).is_empty());
    let plain = env.ok(&["stack", "hist", "--stack", "dev", "--page", "5"]);
    assert_eq!(plain, "No stack updates found on page '5'\n");
}
