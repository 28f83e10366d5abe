//! `config set/get/rm --path`, `--type`, `--secret` and `config set-all` through the real
//! binary: the stack file holds exactly the text Pulumi writes for the same commands (cases
//! from Pulumi's `TestConfigSet`, `TestConfigSetTypes` and `TestConfigSetAll`, and nesting
//! beyond them), and values read back as Pulumi reads them.

#![allow(clippy::unwrap_used, clippy::panic)]

use crate::cli_support;
use cli_support::*;

/// The stack file's text, each ciphertext replaced by `<ct>`.
fn settings(env: &Env) -> String {
    let text = std::fs::read_to_string(env.project().join("Pulumi.dev.yaml")).unwrap();
    text.lines()
        .filter(|l| !l.starts_with("encryptionsalt:"))
        .map(|l| match l.split_once("secure: ") {
            Some((head, _)) => format!("{head}secure: <ct>\n"),
            None => format!("{l}\n"),
        })
        .collect()
}

/// A fresh project with a `dev` stack after running `config` with each argument list.
fn after(commands: &[&[&str]]) -> Env {
    let mut env = Env::new("");
    env.passphrase = commands.iter().any(|c| c.contains(&"--secret"));
    env.ok(&["stack", "init", "dev"]);
    for args in commands {
        let mut all = vec!["config"];
        all.extend_from_slice(args);
        all.extend_from_slice(&["--stack", "dev"]);
        env.ok(&all);
    }
    env
}

#[test]
fn config_set_writes_what_pulumi_writes() {
    let cases: &[(&[&str], &str)] = &[
        (
            &["set", "e2e:test", "true"],
            "config:\n  e2e:test: \"true\"\n",
        ),
        (
            &["set", "e2e:test", "123"],
            "config:\n  e2e:test: \"123\"\n",
        ),
        (
            &["set", "e2e:test", "123.456"],
            "config:\n  e2e:test: \"123.456\"\n",
        ),
        (
            &["set", "--path", "e2e:test[0]", "true"],
            "config:\n  e2e:test:\n    - true\n",
        ),
        (
            &["set", "--path", "e2e:test[0]", "123"],
            "config:\n  e2e:test:\n    - 123\n",
        ),
        (
            &["set", "--path", "e2e:test[0]", "123.456"],
            "config:\n  e2e:test:\n    - \"123.456\"\n",
        ),
        (
            &["set", "--type", "bool", "e2e:test", "true"],
            "config:\n  e2e:test: true\n",
        ),
        (
            &["set", "--type", "int", "e2e:test", "123"],
            "config:\n  e2e:test: 123\n",
        ),
        (
            &["set", "--type", "float", "e2e:test", "123.456"],
            "config:\n  e2e:test: 123.456\n",
        ),
        (
            &["set", "--type", "string", "--path", "e2e:test[0]", "123"],
            "config:\n  e2e:test:\n    - \"123\"\n",
        ),
        (
            &["set", "--type", "float", "--path", "e2e:test[0]", "123.456"],
            "config:\n  e2e:test:\n    - 123.456\n",
        ),
        (
            &["set", "--path", "test[1]", "0123"],
            "config:\n  e2e:test:\n    - null\n    - \"0123\"\n",
        ),
        (
            &[
                "set",
                "--path",
                r#"["parent.name"]["nested.name"]"#,
                "value",
            ],
            "config:\n  e2e:parent.name:\n    nested.name: value\n",
        ),
        (
            &["set", "--path", "aws:tags.Name", "web server: main"],
            "config:\n  aws:tags:\n    Name: 'web server: main'\n",
        ),
    ];
    for (args, expected) in cases {
        let env = after(&[args]);
        assert_eq!(&settings(&env), expected, "config {args:?}");
    }
}

#[test]
fn nested_paths_build_maps_and_lists_and_keep_secrets_encrypted() {
    let env = after(&[
        &["set", "--path", "db.host", "db.internal"],
        &["set", "--path", "db.port", "5432"],
        &["set", "--path", "--secret", "db.password", "hunter22"],
        &["set", "--path", "servers[0].name", "a"],
        &["set", "--path", "servers[1].name", "b"],
        &["set", "--path", "--secret", "servers[1].token", "t0ken"],
        &["set", "--path", "servers[0].tags[0]", "x"],
        &["set", "plain", "text"],
    ]);
    assert_eq!(
        settings(&env),
        "config:
  e2e:db:
    host: db.internal
    password:
      secure: <ct>
    port: 5432
  e2e:plain: text
  e2e:servers:
    - name: a
      tags:
        - x
    - name: b
      token:
        secure: <ct>
"
    );
    let get = |args: &[&str]| {
        let mut all = vec!["config", "get", "--stack", "dev"];
        all.extend_from_slice(args);
        env.ok(&all).trim_end().to_string()
    };
    assert_eq!(get(&["--path", "db.password"]), "hunter22");
    assert_eq!(
        get(&["--path", "servers[1]"]),
        r#"{"name":"b","token":"t0ken"}"#
    );
    assert_eq!(
        get(&["db"]),
        r#"{"host":"db.internal","password":"hunter22","port":5432}"#
    );
    let listed: serde_json::Value =
        serde_json::from_str(&env.ok(&["config", "ls", "--json", "--stack", "dev"])).unwrap();
    assert_eq!(listed["e2e:db"]["secret"], true);
    assert!(listed["e2e:db"].get("value").is_none(), "{listed}");
    assert_eq!(listed["e2e:plain"]["secret"], false);

    env.ok(&["config", "rm", "--path", "servers[0]", "--stack", "dev"]);
    env.ok(&["config", "rm", "--path", "db.password", "--stack", "dev"]);
    assert_eq!(
        settings(&env),
        "config:
  e2e:db:
    host: db.internal
    port: 5432
  e2e:plain: text
  e2e:servers:
    - name: b
      token:
        secure: <ct>
"
    );
}

#[test]
fn set_all_writes_what_pulumi_writes() {
    let cases: &[(&[&str], &str)] = &[
        (
            &[
                "set-all",
                "--plaintext",
                "e2e:key1=value1",
                "--plaintext",
                "e2e:key2=value2",
            ],
            "config:\n  e2e:key1: value1\n  e2e:key2: value2\n",
        ),
        (
            &[
                "set-all",
                "--path",
                "--plaintext",
                "e2e:nested.key1=value1",
                "--plaintext",
                "e2e:nested.key2=value2",
            ],
            "config:\n  e2e:nested:\n    key1: value1\n    key2: value2\n",
        ),
        (
            &[
                "set-all",
                "--path",
                "--secret",
                "e2e:nested.secret1=secret1",
            ],
            "config:\n  e2e:nested:\n    secret1:\n      secure: <ct>\n",
        ),
    ];
    for (args, expected) in cases {
        let env = after(&[args]);
        assert_eq!(&settings(&env), expected, "config {args:?}");
    }
    let mut env = Env::new("");
    env.passphrase = true;
    env.ok(&["stack", "init", "dev"]);
    env.ok(&[
        "config",
        "set-all",
        "--json",
        r#"{"e2e:plainKey": {"value": "plainValue"}, "e2e:secretKey": {"value": "secretValue", "secret": true}}"#,
        "--stack",
        "dev",
    ]);
    assert_eq!(
        settings(&env),
        "config:\n  e2e:plainKey: plainValue\n  e2e:secretKey:\n    secure: <ct>\n"
    );
    let mixed = env.run(&[
        "config",
        "set-all",
        "--json",
        r#"{"e2e:k": {"value": "v"}}"#,
        "--secret",
        "e2e:other=x",
        "--stack",
        "dev",
    ]);
    assert_eq!(mixed.status.code(), Some(1), "{}", stderr(&mixed));
    assert!(stderr(&mixed).contains("--json"), "{}", stderr(&mixed));
}

#[test]
fn path_errors_name_the_key_and_leave_the_file_alone() {
    let env = after(&[&["set", "--path", "db.port", "5432"]]);
    let before = settings(&env);
    for (args, message) in [
        (
            vec!["set", "--path", "db[0]", "x"],
            "key for a map must be a string",
        ),
        (vec!["set", "--path", "db.port.x", "x"], "expected a map"),
        (vec!["set", "--path", "list[2]", "x"], ""),
        (vec!["set", "--path", "db.", "x"], "invalid path"),
        (vec!["set", "--path", "db[x]", "x"], "invalid array index"),
    ] {
        let mut all = vec!["config"];
        all.extend_from_slice(&args);
        all.extend_from_slice(&["--stack", "dev"]);
        let out = env.run(&all);
        if message.is_empty() {
            assert!(out.status.success(), "{args:?}: {}", stderr(&out));
            env.ok(&["config", "rm", "list", "--stack", "dev"]);
            continue;
        }
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(stderr(&out).contains(message), "{args:?}: {}", stderr(&out));
        assert!(stderr(&out).contains("db"), "{args:?}: {}", stderr(&out));
    }
    assert_eq!(settings(&env), before);
}

// --- The config commands as Pulumi's Automation API runs them. ---

/// A project with a config default, a `dev` stack holding plain, object and secret values.
fn configured() -> Env {
    let env = Env::with_passphrase(
        "config:\n  greeting:\n    type: string\n    default: hi\nresources:\n  box:\n    type: sim:index:Resource\n    properties:\n      tag: ${plain}\n",
    );
    env.ok(&["stack", "init", "dev"]);
    env.ok(&[
        "config",
        "set-all",
        "--stack",
        "dev",
        "--plaintext",
        "plain=one",
        "--secret",
        "token=hunter2",
    ]);
    env.ok(&[
        "config", "set", "--path", "db.port", "5432", "--stack", "dev",
    ]);
    env.ok(&[
        "config",
        "set",
        "--path",
        "db.password",
        "s3cret",
        "--secret",
        "--stack",
        "dev",
    ]);
    env
}

#[test]
fn config_json_is_pulumis_shape_with_the_projects_defaults() {
    let env = configured();
    // The Automation API's get_all_config, and `config --json` without secrets.
    insta::assert_snapshot!(
        "config_json_show_secrets",
        env.ok(&[
            "--non-interactive",
            "config",
            "--show-secrets",
            "--json",
            "--stack",
            "dev"
        ])
    );
    let hidden: serde_json::Value =
        serde_json::from_str(&env.ok(&["config", "--json", "--stack", "dev"])).unwrap();
    assert_eq!(hidden["e2e:token"], serde_json::json!({"secret": true}));
    assert_eq!(hidden["e2e:db"], serde_json::json!({"secret": true}));
    assert_eq!(
        hidden["e2e:greeting"],
        serde_json::json!({"value": "hi", "secret": false})
    );
    // get_config: `config get [--path] KEY --json --stack S`; secrets are decrypted.
    let get = |args: &[&str]| {
        let mut all = vec!["--non-interactive", "config", "get"];
        all.extend_from_slice(args);
        all.extend_from_slice(&["--json", "--stack", "dev"]);
        env.ok(&all)
    };
    assert_eq!(
        get(&["token"]),
        "{\n  \"value\": \"hunter2\",\n  \"secret\": true\n}\n"
    );
    assert_eq!(
        get(&["--path", "db.port"]),
        "{\n  \"value\": \"5432\",\n  \"secret\": false\n}\n"
    );
    assert_eq!(
        get(&["greeting"]),
        "{\n  \"value\": \"hi\",\n  \"secret\": false\n}\n"
    );
    let db: serde_json::Value = serde_json::from_str(&get(&["db"])).unwrap();
    assert_eq!(
        db["objectValue"],
        serde_json::json!({"password": "s3cret", "port": 5432})
    );
    assert_eq!(db["value"], "{\"password\":\"s3cret\",\"port\":5432}");
    let missing = env.run(&["config", "get", "nope", "--json", "--stack", "dev"]);
    assert_eq!(
        stderr(&missing),
        "error: configuration key 'nope' not found for stack 'dev'\n"
    );
    // remove_all_config: `config rm-all --stack S [--path] KEY...`; a key not set is no error.
    env.ok(&[
        "config", "rm-all", "--stack", "dev", "--path", "db.port", "plain", "absent",
    ]);
    let left: serde_json::Value =
        serde_json::from_str(&env.ok(&["config", "--show-secrets", "--json", "--stack", "dev"]))
            .unwrap();
    assert!(left.get("e2e:plain").is_none(), "{left}");
    assert_eq!(
        left["e2e:db"]["objectValue"],
        serde_json::json!({"password": "s3cret"})
    );
    // Pulumi's DIY backends have no ESC environments and say so.
    let env_add = env.run(&[
        "config",
        "env",
        "add",
        "team/prod",
        "--yes",
        "--stack",
        "dev",
    ]);
    assert_eq!(env_add.status.code(), Some(1));
    assert!(
        stderr(&env_add).contains(
            "does not support environments; Pulumi ESC environments require the Pulumi Cloud backend"
        ),
        "{}",
        stderr(&env_add)
    );
}

#[test]
fn config_refresh_restores_the_latest_updates_configuration() {
    let env = configured();
    let none = env.run(&["config", "refresh", "--force", "--stack", "dev"]);
    assert_eq!(
        stderr(&none),
        "error: getting latest configuration: no previous deployment\n"
    );
    env.ok(&["up", "--stack", "dev", "--yes", "--non-interactive"]);
    let deployed = settings(&env);
    env.ok(&["config", "set", "plain", "two", "--stack", "dev"]);
    env.ok(&["config", "rm", "token", "--stack", "dev"]);
    // What the Automation API's refresh_config runs: overwritten in place.
    assert_eq!(
        env.ok(&["config", "refresh", "--force", "--stack", "dev"]),
        ""
    );
    assert_eq!(settings(&env), deployed);
    assert_eq!(
        env.ok(&["config", "get", "token", "--stack", "dev"]),
        "hunter2\n"
    );
    // Without --force the file in place is kept as a backup first.
    env.ok(&["config", "set", "plain", "three", "--stack", "dev"]);
    let out = env.ok(&["config", "refresh", "--stack", "dev"]);
    let backup = env.project().join("Pulumi.dev.yaml.bak");
    assert_eq!(
        out,
        format!(
            "backed up existing configuration file to {}\nrefreshed configuration for stack 'dev'\n",
            backup.display()
        )
    );
    assert!(std::fs::read_to_string(&backup).unwrap().contains("three"));
    assert_eq!(
        env.ok(&["config", "get", "plain", "--stack", "dev"]),
        "one\n"
    );
}

#[test]
fn config_file_replaces_the_stacks_settings_file_wherever_it_is_passed() {
    let env = Env::new(
        "resources:\n  box:\n    type: sim:index:Resource\n    properties:\n      tag: ${tag}\noutputs:\n  tag: ${box.tag}\n",
    );
    let file = env.root.path().join("elsewhere.yaml");
    let f = file.to_str().unwrap();
    // Go's order: the flags, then the key, then `--` and the value.
    env.ok(&["stack", "init", "dev"]);
    let set = env.run_exact(&[
        "--non-interactive",
        "config",
        "set",
        "--stack",
        "dev",
        "--config-file",
        f,
        "tag",
        "--plaintext",
        "--",
        "from-file",
    ]);
    assert!(set.status.success(), "{}", stderr(&set));
    assert!(!env.project().join("Pulumi.dev.yaml").exists());
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        "config:\n  e2e:tag: from-file\n"
    );
    let got: serde_json::Value = serde_json::from_str(&env.ok(&[
        "config",
        "get",
        "--config-file",
        f,
        "tag",
        "--json",
        "--stack",
        "dev",
    ]))
    .unwrap();
    assert_eq!(got["value"], "from-file");
    let all: serde_json::Value =
        serde_json::from_str(&env.ok(&["config", "--config-file", f, "--json", "--stack", "dev"]))
            .unwrap();
    assert_eq!(all["e2e:tag"]["value"], "from-file");
    env.ok(&[
        "up",
        "--stack",
        "dev",
        "--yes",
        "--config-file",
        f,
        "--non-interactive",
    ]);
    assert_eq!(
        env.ok(&["stack", "output", "tag", "--stack", "dev"]),
        "from-file\n"
    );
    // `config set KEY` without a value reads it from standard input.
    let mut child = env
        .command(&["config", "set", "tag", "--stack", "dev", "--config-file", f])
        .stdin(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::io::Write::write_all(&mut child.stdin.take().unwrap(), b"piped\n").unwrap();
    assert!(child.wait().unwrap().success());
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        "config:\n  e2e:tag: piped\n"
    );
}

#[test]
fn organizations_are_refused_as_on_pulumis_diy_backends() {
    let env = Env::new("");
    let get = env.run(&["--non-interactive", "org", "get-default"]);
    assert_eq!(get.status.code(), Some(1));
    assert!(
        stderr(&get).contains("do not support organizations"),
        "{}",
        stderr(&get)
    );
    let set = env.run(&["--non-interactive", "org", "set-default", "acme"]);
    assert!(
        stderr(&set).contains("unable to set a default organization for backend type:"),
        "{}",
        stderr(&set)
    );
}

#[test]
fn a_value_the_reader_would_refuse_is_never_written_and_one_already_there_can_be_removed() {
    use stepdeck::located_yaml::MAX_DEPTH;
    // `a.k1…kN`: the document's map, `config:` and a map per key but the last.
    let path = |keys: usize| {
        let rest: Vec<String> = (1..keys).map(|i| format!("k{i}")).collect();
        format!("a.{}", rest.join("."))
    };
    let env = after(&[&["set", "--path", &path(MAX_DEPTH - 1), "deepest"]]);
    let set = |args: &[&str]| {
        let mut all = vec!["config"];
        all.extend_from_slice(args);
        all.extend_from_slice(&["--stack", "dev"]);
        env.run(&all)
    };
    let got = env.ok(&[
        "config",
        "get",
        "--path",
        &path(MAX_DEPTH - 1),
        "--stack",
        "dev",
    ]);
    assert_eq!(
        got.trim(),
        "deepest",
        "the deepest value that fits reads back"
    );
    let file = env.project().join("Pulumi.dev.yaml");
    let before = std::fs::read(&file).unwrap();

    let out = set(&["set", "--path", &path(MAX_DEPTH).replacen('a', "b", 1), "v"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("e2e:b")
            && err.contains(&format!("{} levels", MAX_DEPTH + 1))
            && err.contains(&format!("the {MAX_DEPTH} stepdeck reads"))
            && err.contains("nothing was written"),
        "{err}"
    );
    assert_eq!(
        std::fs::read(&file).unwrap(),
        before,
        "the file is unchanged"
    );
    env.ok(&["config", "get", "a", "--stack", "dev"]);

    // A file written deeper than that (by hand, or before the check) names the value and
    // how to remove it, and `config rm` does.
    let mut deep = String::from_utf8(before).unwrap();
    deep.push_str("  e2e:b:\n");
    for i in 0..MAX_DEPTH {
        deep.push_str(&format!("{}k{i}:\n", "  ".repeat(i + 2)));
    }
    deep.push_str(&format!("{}k: v\n", "  ".repeat(MAX_DEPTH + 2)));
    std::fs::write(&file, &deep).unwrap();
    let out = set(&["get", "a"]);
    assert!(
        stderr(&out).contains("config value e2e:b nests")
            && stderr(&out).contains("stepdeck config rm e2e:b"),
        "{}",
        stderr(&out)
    );
    env.ok(&["config", "rm", "b", "--stack", "dev"]);
    assert_eq!(
        env.ok(&[
            "config",
            "get",
            "--path",
            &path(MAX_DEPTH - 1),
            "--stack",
            "dev"
        ])
        .trim(),
        "deepest"
    );
}
