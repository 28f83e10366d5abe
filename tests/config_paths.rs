//! `config set/get/rm --path`, `--type`, `--secret` and `config set-all` through the real
//! binary: the stack file holds exactly the text Pulumi writes for the same commands (cases
//! from Pulumi's `TestConfigSet`, `TestConfigSetTypes` and `TestConfigSetAll`, and nesting
//! beyond them), and values read back as Pulumi reads them.

#![allow(clippy::unwrap_used, clippy::panic)]

mod cli_support;

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
    assert_eq!(listed["e2e:db"]["value"], "[secret]");
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
    assert_eq!(mixed.status.code(), Some(2), "{}", stderr(&mixed));
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
