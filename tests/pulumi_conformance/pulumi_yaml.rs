//! pulumi-yaml's own program tests (`pkg/tests/integration_test.go`, `example_test.go`), each
//! driven as its `testWrapper` drives it: ProgramTest's whole lifecycle with the options the
//! test adds.

use serde_json::json;

use super::cli_support::sdk::sdk_env;
use super::harness::{ProgramTest, live, stack_outputs};
use super::program_test::{Config, Options};

/// `TestRandom` (`examples/random`): a random password through the full lifecycle, the empty
/// update and a refresh that must find nothing changed.
#[test]
fn yaml_random() {
    let t = ProgramTest::with_secrets("yaml_random");
    t.lifecycle(&Options::default(), |run| {
        let word = &t.outputs()["word"];
        assert_eq!(word.as_str().map(str::len), Some(20), "{word}");
        let pw = live(&run.state, "secretWord");
        assert!(pw["outputs"]["result"]["ciphertext"].is_string(), "{pw}");
    });
}

/// `TestExamplePulumiVariable`: `pulumi.cwd` is the program's directory (`main:`), and
/// `pulumi.stack`, `pulumi.project`, `pulumi.organization` name the stack's.
#[test]
fn yaml_pulumi_variable() {
    let t = ProgramTest::new("yaml_pulumi_variable");
    t.lifecycle(&Options::default(), |_| {
        let out = t.outputs();
        assert!(
            out["where"].as_str().unwrap().ends_with("program-dir"),
            "{out}"
        );
        assert_eq!(out["stackName"], "dev");
        assert_eq!(out["projectName"], "reserved-variables");
        assert_eq!(out["org"], "organization");
    });
}

/// `TestConfigObjectType`: a config value of type `object` with a default, read by property.
#[test]
fn yaml_config_object_type() {
    let t = ProgramTest::new("yaml_config_object_type");
    t.lifecycle(&Options::default(), |_| {
        assert_eq!(t.outputs()["greeting"], json!({"value": "hi there"}));
    });
}

/// `TestResourceSecret`: a whole resource wrapped in `fn::secret` is a secret stack output.
#[test]
fn yaml_resource_secret() {
    let t = ProgramTest::with_secrets("yaml_resource_secret");
    t.lifecycle(&Options::default(), |run| {
        let everything = &stack_outputs(&run.state)["everything"];
        assert!(everything["ciphertext"].is_string(), "{everything}");
    });
}

/// `TestPropertyAccessOnObjects`: config set by path (`OrderedConfig`, `Path: true`) and never
/// declared is read property by property.
#[test]
fn yaml_property_access_on_objects() {
    let t = ProgramTest::new("yaml_property_access");
    let opts = Options {
        config: vec![Config::path("repoSettings.branch", "main")],
        ..Options::default()
    };
    t.lifecycle(&opts, |_| assert_eq!(t.outputs()["branch"], "main"));
}

/// `TestInvalidResourceObject` (`ExpectFailure`): a resource that is not an object fails the
/// run with pulumi-yaml's words.
#[test]
fn yaml_invalid_resource_object() {
    let t = ProgramTest::new("yaml_invalid_resource_object");
    let opts = Options {
        expect_failure: true,
        ..Options::default()
    };
    let mut seen = false;
    t.lifecycle(&opts, |run| {
        seen |= run
            .output
            .contains("resources.notAnObject must be an object");
    });
    assert!(seen, "the failure does not name the resource");
}

/// `TestProjectConfigWithSecret` and `…Decrypted`: a project's stack file that already holds an
/// encryption salt and a `secure:` value (made with the test passphrase) is used as it is; the
/// secret reaches the output as a secret.
#[test]
fn yaml_project_config_with_secret() {
    let t = ProgramTest::with_secrets("yaml_config_with_secret");
    t.lifecycle(&Options::default(), |run| {
        let token = &stack_outputs(&run.state)["theToken"];
        assert!(token["ciphertext"].is_string(), "{token}");
        let shown = t.env.ok(&["stack", "export", "--show-secrets"]);
        let shown: serde_json::Value = serde_json::from_str(&shown).unwrap();
        assert_eq!(
            stack_outputs(&shown)["theToken"]["plaintext"],
            json!("\"open sesame\"")
        );
    });
}

/// `TestAbout`: `about` in a YAML project reports no plugin of an unknown version.
#[test]
fn yaml_about() {
    let t = ProgramTest::new("yaml_about");
    let out = t.env.run(&["about"]);
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "{text}");
    assert!(!text.contains("unknown"), "{text}");
}

/// `TestTypeCheckError` (`ExpectFailure`): property values the package's schema refuses (a
/// string for an integer, a number for a boolean) stop the run before anything registers, in
/// pulumi-yaml's words.
#[test]
fn yaml_type_fail() {
    let t = ProgramTest::new("yaml_type_fail");
    let opts = Options {
        expect_failure: true,
        ..Options::default()
    };
    let mut seen = false;
    t.lifecycle(&opts, |run| {
        seen |= run.output.contains(
            "Cannot assign '{length: string, lower: number}' to 'random:index/randomString:RandomString':

  length: Cannot assign type 'string' to type 'integer'

  lower: Cannot assign type 'number' to type 'boolean'
",
        );
        let created = run.state["deployment"]["resources"].as_array().map_or(0, Vec::len);
        assert!(created <= 1, "only the stack may exist: {}", run.state);
    });
    assert!(seen, "the failure does not give pulumi-yaml's reasons");
}

/// `TestLocalPlugin` (`LocalProviders`): the program's provider is a plugin in a local directory
/// (a Python one standing in for Pulumi's Go test provider, with its `venv`), which ProgramTest names in
/// Pulumi.yaml's `plugins: providers:` by its absolute path; the whole lifecycle runs on it.
#[test]
fn yaml_local_plugin() {
    let t = ProgramTest::new("yaml_local");
    let project = t.env.project();
    let file = project.join("Pulumi.yaml");
    let mut text = std::fs::read_to_string(&file).unwrap();
    text.push_str(&format!(
        "plugins:\n  providers:\n    - name: testprovider\n      path: {}\n",
        project.join("testprovider").display()
    ));
    std::fs::write(&file, text).unwrap();
    // The plugin's own dependencies (the Python SDK), where Pulumi's Python plugin host looks.
    std::os::unix::fs::symlink(
        sdk_env().root.join("venv"),
        project.join("testprovider").join("venv"),
    )
    .unwrap();
    t.lifecycle(&Options::default(), |run| {
        let random = live(&run.state, "first");
        assert_eq!(
            random["outputs"]["result"].as_str().map(str::len),
            Some(10),
            "{random}"
        );
        let echo = live(&run.state, "second");
        assert!(
            echo["provider"].as_str().unwrap().contains("testprovider"),
            "{echo}"
        );
    });
}
