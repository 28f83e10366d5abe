//! Configuration (Pulumi's `config_basic`, `config_missing` and secret config tests): typed
//! values from the stack file, defaults, missing keys, secrets and objects read by path.

use serde_json::json;

use super::harness::{ProgramTest, live, stack_outputs};
use super::program_test::Options;

/// The secret marker of Pulumi's property encoding.
const SECRET_SIG: &str = "4dabf18193072939515e22adb298388d";

/// Whether an exported value is an encrypted secret.
pub(crate) fn is_secret(v: &serde_json::Value) -> bool {
    v[SECRET_SIG] == "1b47061264138c4ac30d75fd1eb44270" && v.get("ciphertext").is_some()
}

/// Pulumi's `TestConfigBasic*`: typed stack config reaches the program, defaults fill in.
#[test]
fn config_basic() {
    let t = ProgramTest::new("config_basic");
    t.up();
    assert_eq!(
        t.outputs(),
        json!({"name": "stepdeck", "count": 3, "enabled": true, "greeting": "hi"})
    );
    t.destroy();
}

/// Pulumi's `config_missing`: a required key without a value fails the program, naming it.
#[test]
fn config_missing() {
    let t = ProgramTest::new("config_missing");
    let out = t.up_fails();
    assert!(out.contains("required"), "names the key:\n{out}");
    t.ok(&["config", "set", "required", "now"]);
    t.up();
    assert_eq!(t.outputs(), json!({"value": "now"}));
    t.destroy();
}

/// Secret config stays encrypted in the stack file and the state, and outputs built from it
/// are secrets.
#[test]
fn config_secret() {
    let t = ProgramTest::with_secrets("config_secret");
    t.ok(&["config", "set", "--secret", "password", "hunter2"]);
    let file = std::fs::read_to_string(t.env.project().join("Pulumi.dev.yaml")).unwrap();
    assert!(
        file.contains("secure:") && !file.contains("hunter2"),
        "{file}"
    );
    let state = t.up();
    assert!(
        !state.to_string().contains("hunter2"),
        "no plain text in the state"
    );
    assert!(is_secret(&stack_outputs(&state)["password"]));
    assert!(is_secret(&live(&state, "r")["inputs"]["password"]));
    assert_eq!(t.outputs()["password"], "hunter2");
    let hidden = t.ok(&["stack", "output", "--json"]);
    assert!(!hidden.contains("hunter2"), "{hidden}");
    assert!(hidden.contains("visible"));
    t.destroy();
}

/// Object config set by path (`config set --path`), read whole and by path in the program.
#[test]
fn config_object_paths() {
    let t = ProgramTest::new("config_object");
    t.ok(&["config", "set", "--path", "db.hosts[0]", "h1"]);
    t.ok(&["config", "set", "--path", "db.hosts[1]", "h2"]);
    t.ok(&[
        "config", "set", "--path", "--type", "int", "db.port", "5432",
    ]);
    t.up();
    assert_eq!(
        t.outputs(),
        json!({"host": "h1", "port": 5432, "all": {"hosts": ["h1", "h2"], "port": 5432}})
    );
    t.destroy();
}

/// A secret set by path inside an object (`config set --path --secret`) reaches the program
/// decrypted; the whole object is then a secret, as Pulumi lists its key as secret.
#[test]
fn config_secret_path() {
    let t = ProgramTest::with_secrets("config_secret_path");
    t.ok(&["config", "set", "--path", "db.user", "admin"]);
    t.ok(&["config", "set", "--path", "--secret", "db.password", "pa55"]);
    let state = t.up();
    assert!(!state.to_string().contains("pa55"));
    assert!(is_secret(&stack_outputs(&state)["password"]));
    assert!(is_secret(&stack_outputs(&state)["user"]));
    assert!(is_secret(&live(&state, "r")["inputs"]["password"]));
    assert_eq!(t.outputs(), json!({"user": "admin", "password": "pa55"}));
    t.destroy();
}

/// pulumi-yaml's `TestProjectConfigRef`: `${foo}` and `${<project>:foo}` read the project's
/// config; `${wrong-namespace:foo}` fails in pulumi-yaml's words, naming the reference as
/// written and not the project-qualified key.
#[test]
fn project_config_ref() {
    let t = ProgramTest::new("project_config_ref");
    let out = t.up_fails();
    assert!(
        out.contains(r#"resource, variable, or config value "wrong-namespace:foo" not found"#),
        "{out}"
    );
    assert!(
        !out.contains(r#"config value "project-config-ref:foo" not found"#),
        "{out}"
    );
}

/// pulumi-yaml's `TestResourcePropertiesConfig`: `properties:` is one expression, an object
/// from config set by path; its entries are the resource's inputs.
#[test]
fn resource_properties_config() {
    let t = ProgramTest::with_secrets("resource_properties_config");
    t.ok(&["config", "set", "--path", "props.length", "8"]);
    let state = t.up();
    let password = live(&state, "randomPassword");
    assert_eq!(password["inputs"]["length"], 8, "{password}");
    assert!(is_secret(&password["outputs"]["result"]), "{password}");
    assert!(is_secret(&stack_outputs(&state)["password"]));
    t.destroy();
}

/// pulumi-yaml's `TestEnvVarsPassedToExecCommand` and `TestEnvVarsKeepConflictingValues`:
/// `runtime.options.compiler` prints the program, run in the project with the stack, project,
/// organization, config (project defaults included) and root directory in its environment;
/// a variable already set in stepdeck's environment keeps its value.
#[test]
fn yaml_compiler_env_vars() {
    let t = ProgramTest::new("yaml_compiler_env_vars");
    t.up();
    assert_eq!(
        t.outputs(),
        json!({
            "stack": "dev",
            "project": "project-env-vars",
            "organization": "organization",
            "config": {"project-env-vars:foo": "hello world"},
            "rootIsHere": true,
        })
    );
    let kept = t
        .env
        .command(&["up", "--stack", "dev", "--yes", "--non-interactive"])
        .env("PULUMI_PROJECT", "bar")
        .output()
        .unwrap();
    assert!(
        kept.status.success(),
        "{}",
        String::from_utf8_lossy(&kept.stderr)
    );
    assert_eq!(t.outputs()["project"], "bar");

    std::fs::write(
        t.env.project().join("compile.sh"),
        "echo broken >&2; exit 3\n",
    )
    .unwrap();
    let failed = t.up_fails();
    assert!(
        failed.contains("error running compiler sh: exit status: 3, stderr follows: broken"),
        "{failed}"
    );
    t.destroy();
}

/// Pulumi's `TestConfigMissingPython` and `TestConfigMissingJS` (Quick, `ExpectFailure`): the
/// update's diagnostic events name the missing key and the command that sets it.
#[test]
fn py_config_missing() {
    sdk_config_missing("py_config_missing", "config_missing_py");
}

/// See [`py_config_missing`].
#[test]
fn js_config_missing() {
    sdk_config_missing("js_config_missing", "config_missing_js");
}

fn sdk_config_missing(case: &str, project: &str) {
    let t = ProgramTest::new(case);
    let opts = Options {
        quick: true,
        expect_failure: true,
        ..Options::default()
    };
    t.lifecycle(&opts, |run| {
        let said = ProgramTest::diagnostics(&run.events).join("\n");
        let missing = format!("Missing required configuration variable '{project}:notFound'");
        let hint = format!(
            "\tplease set a value using the command `pulumi config set --secret {project}:notFound <value>`"
        );
        assert!(said.contains(&missing), "{said}");
        assert!(said.contains(&hint), "{said}");
    });
}
