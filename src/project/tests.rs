//! Tests of project files, stack settings and configuration resolution.

use std::path::Path;

use super::*;

/// Reversible test "encryption" (prefix + reversed text), standing in for a real secrets
/// provider, which is another module's job.
struct Reverse;

impl ConfigCrypter for Reverse {
    fn encrypt(&self, plain: &str) -> Result<String, CryptError> {
        Ok(format!("v1:{}", plain.chars().rev().collect::<String>()))
    }
    fn decrypt(&self, ct: &str) -> Result<String, CryptError> {
        ct.strip_prefix("v1:")
            .map(|s| s.chars().rev().collect())
            .ok_or_else(|| CryptError("not a v1 ciphertext".into()))
    }
}

const PROJECT: &str = "name: web
runtime:
  name: yaml
  options:
    compiler: none
description: A web app
config:
  size:
    type: integer
    default: 3
  password:
    type: string
    secret: true
  aws:region: us-east-1
";

fn project() -> Project {
    Project::parse(Path::new("/p"), PROJECT).unwrap()
}

#[test]
fn project_file_fields_are_read() {
    let p = project();
    assert_eq!(p.name, "web");
    assert_eq!(p.runtime.name, "yaml");
    assert_eq!(p.runtime.options["compiler"], "none");
    assert_eq!(p.description.as_deref(), Some("A web app"));
    assert_eq!(p.config.len(), 3);
    assert_eq!(p.config[0].key.to_string(), "web:size");
    assert_eq!(p.config[0].type_, Some(ConfigType::Integer));
    assert!(p.config[1].secret);
    assert_eq!(p.config[2].key.to_string(), "aws:region");
    let short = Project::parse(Path::new("/p"), "name: x\nruntime: yaml\n").unwrap();
    assert_eq!(short.runtime.name, "yaml");
    assert_eq!(short.program_dir(), Path::new("/p"));
}

#[test]
fn project_errors_name_file_line_and_column() {
    let err = Project::parse(Path::new("/p"), "name: x\n").unwrap_err();
    assert_eq!(
        err.to_string(),
        "Pulumi.yaml:1:1: project is missing `runtime`"
    );
    let err = Project::parse(Path::new("/p"), "name: 'a b'\nruntime: yaml\n").unwrap_err();
    assert!(
        err.to_string()
            .starts_with("Pulumi.yaml:1:7: invalid project name \"a b\""),
        "{err}"
    );
    let err = Project::parse(
        Path::new("/p"),
        "name: x\nruntime: yaml\nconfig:\n  n:\n    type: quantity\n",
    )
    .unwrap_err();
    assert!(
        err.to_string()
            .starts_with("Pulumi.yaml:5:11: unknown config type \"quantity\""),
        "{err}"
    );
    let err = Project::parse(
        Path::new("/p"),
        "name: x\nruntime: yaml\nconfig:\n  n:\n    secret: yes\n",
    )
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        "Pulumi.yaml:5:13: secret must be true or false, found a string"
    );
}

#[test]
fn keys_without_namespace_belong_to_the_project() {
    assert_eq!(
        ConfigKey::parse("size", "web").unwrap().to_string(),
        "web:size"
    );
    assert_eq!(
        ConfigKey::parse("aws:region", "web").unwrap().to_string(),
        "aws:region"
    );
    assert!(ConfigKey::parse(":x", "web").is_err());
    assert!(ConfigKey::parse("a:b:c", "web").is_err());
}

#[test]
fn set_get_rm_list_and_secrets_stay_encrypted() {
    let mut s = StackSettings::parse("Pulumi.dev.yaml", "", "web").unwrap();
    s.set("size", "web", "5", false, None).unwrap();
    s.set("password", "web", "hunter2", true, Some(&Reverse))
        .unwrap();
    assert!(matches!(
        s.set("token", "web", "x", true, None),
        Err(ProjectError::NoCrypter { .. })
    ));
    let key = ConfigKey::parse("password", "web").unwrap();
    assert_eq!(s.config[&key], ConfigValue::Secure("v1:2retnuh".into()));
    let got = s
        .get("web:password", "web", Some(&Reverse))
        .unwrap()
        .unwrap();
    assert_eq!(got.value.as_deref(), Some("hunter2"));
    assert!(got.secret);
    let hidden = s.get("password", "web", None).unwrap().unwrap();
    assert_eq!(hidden.value, None);
    let listed: Vec<String> = s
        .list(None)
        .unwrap()
        .iter()
        .map(|e| e.key.to_string())
        .collect();
    assert_eq!(listed, ["web:password", "web:size"]);
    assert!(s.rm("size", "web").unwrap());
    assert!(!s.rm("size", "web").unwrap());
    let text = s.to_yaml();
    assert!(text.contains("secure: v1:2retnuh"), "{text}");
    assert!(!text.contains("hunter2"));
}

#[test]
fn stack_file_round_trips_in_pulumis_layout() {
    let text = "config:
  web:zeta: 'yes'
  web:tags: {b: [x], a: 1}
  aws:region: us-west-2
  web:password: {secure: v1:xyz}
  web:count: 2
encryptionsalt: v1:abc
secretsprovider: passphrase
";
    let s = StackSettings::parse("Pulumi.dev.yaml", text, "web").unwrap();
    let out = s.to_yaml();
    let again = StackSettings::parse("Pulumi.dev.yaml", &out, "web").unwrap();
    assert_eq!(again.config, s.config);
    assert_eq!(again.extra, s.extra);
    assert_eq!(again.encryption_salt.as_deref(), Some("v1:abc"));
    // Pulumi's layout: the settings' fields in Pulumi's order, keys in go-yaml's order,
    // `yes` quoted so that it stays a string.
    assert_eq!(
        out,
        "secretsprovider: passphrase
encryptionsalt: v1:abc
config:
  aws:region: us-west-2
  web:count: 2
  web:password:
    secure: v1:xyz
  web:tags:
    a: 1
    b:
      - x
  web:zeta: \"yes\"
"
    );
    // `yes` stays a string, `2` stays a number.
    let zeta = ConfigKey::parse("zeta", "web").unwrap();
    assert_eq!(again.config[&zeta], ConfigValue::Plain("yes".into()));
    let count = ConfigKey::parse("count", "web").unwrap();
    assert_eq!(again.config[&count], ConfigValue::Plain(2.into()));
}

#[test]
fn save_and_load_through_the_file_system() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = StackSettings::load(dir.path(), "dev", "web").unwrap();
    assert!(s.config.is_empty());
    s.set("size", "web", "4", false, None).unwrap();
    let path = s.save(dir.path(), "dev").unwrap();
    assert!(path.ends_with("Pulumi.dev.yaml"));
    let back = StackSettings::load(dir.path(), "dev", "web").unwrap();
    assert_eq!(back.config, s.config);
}

#[test]
fn resolution_types_defaults_and_secrets() {
    let p = project();
    let text = "config:\n  web:password:\n    secure: v1:2retnuh\n  web:size: 7\n";
    let s = StackSettings::parse("Pulumi.dev.yaml", text, "web").unwrap();
    let r = s.resolve(&p, Some(&Reverse)).unwrap();
    assert_eq!(r.values["web:size"], "7");
    assert_eq!(r.values["web:password"], "hunter2");
    assert_eq!(r.values["aws:region"], "us-east-1");
    assert_eq!(r.secret_keys, ["web:password"]);
    assert!(matches!(
        s.resolve(&p, None),
        Err(ProjectError::NoCrypter { .. })
    ));

    let bad = StackSettings::parse(
        "Pulumi.dev.yaml",
        "config:\n  web:password:\n    secure: v1:x\n  web:size: lots\n",
        "web",
    )
    .unwrap();
    let err = bad.resolve(&p, Some(&Reverse)).unwrap_err();
    assert_eq!(
        err.to_string(),
        "Pulumi.dev.yaml:4:13: config value web:size: expected an integer, got \"lots\""
    );

    let missing = StackSettings::parse("Pulumi.dev.yaml", "config: {}\n", "web").unwrap();
    let err = missing.resolve(&p, Some(&Reverse)).unwrap_err();
    assert!(matches!(err, ProjectError::MissingRequired { ref key, .. } if key == "web:password"));

    // Unvalidated, as a refresh or destroy that does not run the program takes it: the bad
    // value and the missing key pass, the defaults still fill in.
    let r = bad.resolve_unvalidated(&p, Some(&Reverse)).unwrap();
    assert_eq!(r.values["web:size"], "lots");
    let r = missing.resolve_unvalidated(&p, Some(&Reverse)).unwrap();
    assert_eq!(r.values["aws:region"], "us-east-1");
    assert!(!r.values.contains_key("web:password"));
}

#[test]
fn secure_value_must_be_a_string() {
    let err = StackSettings::parse(
        "Pulumi.dev.yaml",
        "config:\n  web:p:\n    secure: [1]\n",
        "web",
    )
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        "Pulumi.dev.yaml:3:13: `secure` value of web:p must be a string"
    );
}

#[test]
fn saving_settings_does_not_write_through_a_planted_temporary() {
    let dir = tempfile::tempdir().unwrap();
    let victim = dir.path().join("victim");
    std::fs::write(&victim, "precious").unwrap();
    // The fixed temporary name settings were once saved through.
    std::os::unix::fs::symlink(&victim, dir.path().join(".Pulumi.dev.yaml.tmp")).unwrap();
    let settings = StackSettings {
        encryption_salt: Some("v1:salt".into()),
        ..StackSettings::default()
    };
    settings.save(dir.path(), "dev").unwrap();
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
    let loaded = StackSettings::load(dir.path(), "dev", "p").unwrap();
    assert_eq!(loaded.encryption_salt.as_deref(), Some("v1:salt"));
}

#[test]
fn stack_files_read_back_every_value_they_write() {
    let strings = [
        "",
        " ",
        "true",
        "False",
        "yes",
        "n",
        "null",
        "~",
        "123",
        "-1",
        "+1",
        "0x1F",
        "0o17",
        "1e3",
        "1_000",
        ".5",
        ".inf",
        "12:30",
        "2024-01-02",
        "2024-01-02T10:11:12Z",
        "<<",
        "a: b",
        "a #b",
        "#x",
        "- x",
        "-x",
        "? x",
        ":x",
        "x:",
        "'q'",
        "\"dq\"",
        "[a]",
        "{a}",
        "*a",
        "&a",
        "!a",
        "|a",
        ">a",
        "%a",
        "@a",
        "`a",
        "---",
        "...",
        " lead",
        "trail ",
        "tab\there",
        "line1\nline2",
        "ends\n",
        "two\n\n",
        "\nlead",
        "sp \nx",
        "über ☃",
        "back\\slash",
        "v1:abc=",
        "a,b",
        "x\u{1}y",
        "\u{feff}bom",
    ];
    let mut settings = StackSettings::parse("Pulumi.dev.yaml", "", "web").unwrap();
    for (i, s) in strings.iter().enumerate() {
        let key = format!("k{i}");
        settings.set(&key, "web", s, false, None).unwrap();
        settings
            .set_path(
                &format!("nested.{key}[0]"),
                "web",
                crate::project::NewConfigValue::Text {
                    text: s,
                    type_: None,
                },
                true,
                None,
            )
            .unwrap();
    }
    let text = settings.to_yaml();
    let back = StackSettings::parse("Pulumi.dev.yaml", &text, "web")
        .unwrap_or_else(|e| panic!("{e}\n{text}"));
    assert_eq!(back.config, settings.config, "{text}");
}

#[test]
fn backend_url_is_read_and_a_bad_one_named_by_line() {
    let p = Project::parse(
        Path::new("/p"),
        "name: x\nruntime: yaml\nbackend:\n  url: file://./state\n",
    )
    .unwrap();
    assert_eq!(p.backend_url.as_deref(), Some("file://./state"));
    assert_eq!(project().backend_url, None);
    let e = Project::parse(
        Path::new("/p"),
        "name: x\nruntime: yaml\nbackend:\n  url: [a]\n",
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("Pulumi.yaml:4") && e.contains("`backend.url` must be a string"),
        "{e}"
    );
    let e = Project::parse(
        Path::new("/p"),
        "name: x\nruntime: yaml\nbackend: file://x\n",
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("Pulumi.yaml:3") && e.contains("`backend` must be a mapping"),
        "{e}"
    );
}

#[test]
fn local_plugins_come_from_plugins_providers_then_local_packages() {
    let p = Project::parse(
        Path::new("/p"),
        "name: x\nruntime: yaml\nplugins:\n  providers:\n    - name: greet\n      path: ./bin\n      version: 1.2.0\npackages:\n  greet: ./elsewhere\n  pets: ../pets@0.0.0\n  random: random@4.16.0\n  aws:\n    source: aws\n    version: 6.0.0\n  local:\n    source: /abs/local\n",
    )
    .unwrap();
    let got: Vec<_> = p
        .local_plugins
        .iter()
        .map(|l| (l.name.as_str(), l.path.clone(), l.version.as_deref()))
        .collect();
    assert_eq!(
        got,
        [
            ("greet", Path::new("/p/./bin").to_path_buf(), Some("1.2.0")),
            ("pets", Path::new("/p/../pets").to_path_buf(), None),
            ("local", Path::new("/abs/local").to_path_buf(), None),
        ]
    );
    assert!(project().local_plugins.is_empty());
}

#[test]
fn a_bad_plugins_entry_is_named_by_line_and_field() {
    for (text, line, why) in [
        (
            "plugins:\n  providers:\n    - path: ./bin\n",
            "Pulumi.yaml:5",
            "`plugins.providers[0]` is missing `name`",
        ),
        (
            "plugins:\n  providers: ./bin\n",
            "Pulumi.yaml:4",
            "`plugins.providers` must be a list",
        ),
        (
            "plugins:\n  providers:\n    - name: a\n      path: [x]\n",
            "Pulumi.yaml:6",
            "`plugins.providers[0].path` must be a string",
        ),
        (
            "packages: [a]\n",
            "Pulumi.yaml:3",
            "`packages` must be a mapping",
        ),
    ] {
        let e = Project::parse(Path::new("/p"), &format!("name: x\nruntime: yaml\n{text}"))
            .unwrap_err()
            .to_string();
        assert!(e.contains(line) && e.contains(why), "{text}: {e}");
    }
}

#[test]
fn a_plugin_directory_says_its_runtime_yaml_when_left_out() {
    use crate::project::LocalPlugin;
    let dir = tempfile::tempdir().unwrap();
    let plugin = LocalPlugin {
        name: "greet".into(),
        path: dir.path().to_path_buf(),
        version: None,
    };
    assert_eq!(
        plugin.source_runtime().unwrap(),
        None,
        "no PulumiPlugin.yaml"
    );
    let manifest = dir.path().join("PulumiPlugin.yaml");
    for (text, name) in [
        ("components: {}\n", "yaml"),
        ("runtime: python\n", "python"),
        (
            "runtime:\n  name: nodejs\n  options:\n    typescript: false\n",
            "nodejs",
        ),
    ] {
        std::fs::write(&manifest, text).unwrap();
        let runtime = plugin.source_runtime().unwrap().unwrap();
        assert_eq!(runtime.name, name, "{text}");
    }
    std::fs::write(&manifest, "runtime: [python]\n").unwrap();
    let e = plugin.source_runtime().unwrap_err().to_string();
    assert!(e.contains("PulumiPlugin.yaml:1"), "{e}");
}

#[test]
fn version_ranges_are_read_as_pulumi_reads_them() {
    let cli = "3.260.0+stepdeck.0.2.0";
    for ok in [
        "",
        ">=3.0.0",
        "> 3.259.9",
        "<4.0.0 >=3.260.0",
        "!3.1.0",
        "=3.260.0",
        "3.260.0",
        "<1.0.0 || >=3.200.0",
    ] {
        assert_eq!(check_version_range(ok, cli), Ok(()), "{ok}");
    }
    assert_eq!(
        check_version_range("<1.0.0", cli).unwrap_err().to_string(),
        "Pulumi CLI version 3.260.0+stepdeck.0.2.0 does not satisfy the version range \"<1.0.0\""
    );
    for refused in [
        ">=3.260.1",
        "!=3.260.0",
        "<3.0.0 || >4.0.0",
        ">=3.0.0 <3.260.0",
    ] {
        assert!(
            matches!(
                check_version_range(refused, cli),
                Err(VersionRangeError::Unsatisfied { .. })
            ),
            "{refused}"
        );
    }
    assert!(matches!(
        check_version_range(">=three", cli),
        Err(VersionRangeError::BadRange { .. })
    ));
}

#[test]
fn a_local_plugins_own_packages_are_served_too() {
    let dir = tempfile::tempdir().unwrap();
    let write = |rel: &str, text: &str| {
        let path = dir.path().join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    write(
        "provider/PulumiPlugin.yaml",
        "runtime: python\npackages:\n  nested: ../nested@0.0.0\n  outer: ../elsewhere\n",
    );
    write(
        "nested/PulumiPlugin.yaml",
        "runtime: python\npackages:\n  deepest: ./deepest\n",
    );
    let listed = [
        LocalPlugin {
            name: "provider".into(),
            path: dir.path().join("provider"),
            version: None,
        },
        LocalPlugin {
            name: "outer".into(),
            path: dir.path().join("outer"),
            version: None,
        },
    ];
    let got: Vec<(String, std::path::PathBuf)> = local_plugins::with_nested_packages(&listed)
        .unwrap()
        .into_iter()
        .map(|p| (p.name, p.path))
        .collect();
    assert_eq!(
        got,
        [
            ("provider".to_string(), dir.path().join("provider")),
            ("outer".to_string(), dir.path().join("outer")),
            ("nested".to_string(), dir.path().join("provider/../nested")),
            (
                "deepest".to_string(),
                dir.path().join("provider/../nested/./deepest")
            ),
        ],
        "the project's own entry for `outer` wins"
    );
}
