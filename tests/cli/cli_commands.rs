//! Pulumi's commands beyond the deployments, run on the real binary: `import` (one resource
//! or an import file, the generated Pulumi YAML, the history's `import`, the Python
//! and Node Automation APIs' imports) and `cancel` (a live run of this host signalled, a
//! stale lock released, what it cannot signal refused) and `plugin ls|install|rm` (Pulumi's
//! plugin cache under `PULUMI_HOME`, which the plugin search reads) and `new` (a project from
//! a local template directory) and `install` (a Python virtualenv and its requirements, a
//! Node.js package manager), offline.

#![allow(clippy::unwrap_used, clippy::panic)]

use crate::cli_support;

use cli_support::*;
use serde_json::Value;

const NET: &str =
    "\nresources:\n  net:\n    type: sim:index:Network\n    properties:\n      cidr: 10.0.0.0/16\n";

/// The sim world's ID of the resource named `name`.
fn world_id(env: &Env, name: &str) -> String {
    env.world()
        .iter()
        .find(|(_, r)| r["name"] == name)
        .map(|(id, _)| id.clone())
        .unwrap_or_else(|| panic!("no {name} in the sim world"))
}

/// The exported state's resource with this URN suffix (`::TYPE::NAME`).
fn resource(env: &Env, stack: &str, suffix: &str) -> Option<Value> {
    env.export(stack)["deployment"]["resources"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["urn"].as_str().unwrap().ends_with(suffix))
        .cloned()
}

fn latest_kind(env: &Env, stack: &str) -> String {
    let text = env.ok(&["stack", "history", "--stack", stack, "--json"]);
    let list: Value = serde_json::from_str(&text).unwrap();
    list[0]["kind"].as_str().unwrap().to_string()
}

#[test]
fn import_adopts_a_resource_and_its_generated_code_makes_the_next_preview_change_nothing() {
    let env = Env::with_passphrase(NET);
    env.ok(&["up", "--stack", "dev", "--yes", "--non-interactive"]);
    let id = world_id(&env, "net");
    let urn = "urn:pulumi:dev::e2e::sim:index:Network::net";
    env.ok(&["state", "delete", urn, "--yes", "--stack", "dev"]);
    assert!(resource(&env, "dev", "::net").is_none());

    // The stack as the parent, named as Pulumi names it: it is not written in the code.
    let out = env.ok(&[
        "import",
        "sim:index:Network",
        "net",
        &id,
        "--yes",
        "--stack",
        "dev",
        "--parent",
        "urn:pulumi:dev::e2e::pulumi:pulumi:Stack::e2e-dev",
    ]);
    let imported = resource(&env, "dev", "::net").expect("net imported");
    assert_eq!(imported["id"], id.as_str());
    assert_eq!(
        imported["protect"], true,
        "protected by default, as Pulumi's"
    );
    assert_eq!(imported["inputs"]["cidr"], "10.0.0.0/16");
    assert_eq!(latest_kind(&env, "dev"), "import");
    assert!(out.contains("Please copy the following code"), "{out}");
    let code = &out[out.find("resources:").expect("generated code")..];
    assert!(
        code.contains("  net:\n    type: sim:index:Network\n    properties:\n      cidr: 10.0.0.0/16\n    options:\n      protect: true"),
        "{code}"
    );
    // The generated code, as the program, changes nothing.
    env.write("Pulumi.yaml", &format!("name: e2e\nruntime: yaml\n{code}"));
    env.ok(&[
        "preview",
        "--stack",
        "dev",
        "--non-interactive",
        "--expect-no-changes",
    ]);
    // Importing the same ID again does nothing; another ID under the URN is refused.
    env.ok(&[
        "import",
        "sim:index:Network",
        "net",
        &id,
        "--yes",
        "-s",
        "dev",
    ]);
    let again = env.run(&[
        "import",
        "sim:index:Network",
        "net",
        "net-x",
        "--yes",
        "-s",
        "dev",
    ]);
    assert_eq!(again.status.code(), Some(2), "{}", stderr(&again));
    assert!(
        stderr(&again).contains(&format!("resource '{urn}' already exists")),
        "{}",
        stderr(&again)
    );
}

#[test]
fn an_import_file_imports_under_a_new_component_and_keeps_what_the_stack_has() {
    let env = Env::with_passphrase(NET_AND_DB);
    env.ok(&["up", "--stack", "dev", "--yes", "--non-interactive"]);
    // A network another project made: the one to adopt.
    let other = env.sibling("other", NET);
    env.ok_in(
        &other,
        &["up", "--stack", "prod", "--yes", "--non-interactive"],
    );
    let id = env
        .world()
        .iter()
        .find(|(_, r)| r["urn"].as_str().unwrap().contains("prod::other"))
        .map(|(id, _)| id.clone())
        .unwrap();
    let file = env.root.path().join("import.json");
    std::fs::write(
        &file,
        serde_json::json!({
            "nameTable": null,
            "resources": [
                {"type": "my:app:Group", "name": "group", "component": true},
                {"type": "sim:index:Network", "name": "adopted", "id": id, "parent": "group"},
            ]
        })
        .to_string(),
    )
    .unwrap();
    let out_file = env.root.path().join("code.yaml");
    let out = env.ok(&[
        "import",
        "--file",
        file.to_str().unwrap(),
        "--skip-preview",
        "--protect=false",
        "--out",
        out_file.to_str().unwrap(),
        "-m",
        "adopting",
        "--stack",
        "dev",
    ]);
    assert!(!out.contains("resources:"), "the code went to --out: {out}");
    let adopted = resource(&env, "dev", "my:app:Group$sim:index:Network::adopted").unwrap();
    assert_eq!(adopted["id"], id.as_str());
    assert!(adopted["protect"].as_bool() != Some(true));
    assert!(resource(&env, "dev", "::my:app:Group::group").is_some());
    // What the stack had stays.
    let managed: Vec<String> = env.managed("dev").into_iter().map(|(n, _)| n).collect();
    assert_eq!(managed, ["adopted", "db", "net"]);
    let code = std::fs::read_to_string(&out_file).unwrap();
    assert!(
        code.contains("  adopted:\n    type: sim:index:Network\n"),
        "{code}"
    );
    assert!(code.contains("parent: ${group}"), "{code}");
    assert!(!code.contains("protect"), "{code}");
    assert!(
        !code.contains("my:app:Group"),
        "components are not declared: {code}"
    );
    assert_eq!(latest_kind(&env, "dev"), "import");
}

#[test]
fn import_refuses_what_pulumi_refuses_in_its_words() {
    let env = Env::new(NET);
    env.ok(&["stack", "init", "dev"]);
    let cases: [(&[&str], &str); 4] = [
        (
            &["import", "sim:index:Network", "net"],
            "an inline resource must be specified if no converter or import file is used, missing id",
        ),
        (
            &[
                "import",
                "sim:index:Network",
                "net",
                "id",
                "--preview-only",
                "--yes",
            ],
            "cannot be used with",
        ),
        (
            &["import", "sim:index:Network", "net", "id"],
            "--yes or --skip-preview",
        ),
        (
            &[
                "import",
                "sim:index:Network",
                "net",
                "id",
                "--yes",
                "--parent",
                "bad",
            ],
            "invalid parent URN: 'bad'",
        ),
    ];
    for (args, words) in cases {
        let out = env.run(args);
        assert_ne!(out.status.code(), Some(0), "{args:?}");
        assert!(stderr(&out).contains(words), "{args:?}: {}", stderr(&out));
    }
    let file = env.root.path().join("bad.json");
    std::fs::write(
        &file,
        r#"{"resources": [{"type": "sim:index:Network", "name": "a"}, {"name": "b", "id": "x"}]}"#,
    )
    .unwrap();
    let out = env.run(&["import", "-f", file.to_str().unwrap(), "--yes"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("resource 'a' of type 'sim:index:Network' has no ID"));
    assert!(stderr(&out).contains("resource 'b' has no type"));
    // Nothing was recorded.
    assert!(env.ok(&["stack", "history", "--json"]).trim() == "[]");
}

#[test]
fn import_without_code_generation_prints_none() {
    let env = Env::new(NET);
    env.ok(&["up", "--stack", "dev", "--yes", "--non-interactive"]);
    let id = world_id(&env, "net");
    env.ok(&[
        "state",
        "delete",
        "urn:pulumi:dev::e2e::sim:index:Network::net",
        "--yes",
    ]);
    let out = env.ok(&[
        "import",
        "sim:index:Network",
        "net",
        &id,
        "--yes",
        "--generate-code=false",
    ]);
    assert!(
        !out.contains("resources:") && !out.contains("Please copy"),
        "{out}"
    );
    assert!(resource(&env, "dev", "::net").is_some());
}

/// Pulumi's Python Automation API adopts a resource with `Stack.import_resources` and lists
/// plugins on stepdeck as `pulumi`: `tests/automation_api/commands.py` says what it checks.
#[test]
fn the_python_automation_api_imports_resources_and_lists_plugins() {
    run_automation_script(&sdk::sdk_env().python, "commands.py");
}

fn hostname() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .unwrap()
        .trim()
        .to_string()
}

/// A lock record held by `pid` on `host`, its lease running.
fn holder(pid: u32, host: &str) -> Value {
    serde_json::json!({
        "pid": pid, "hostname": host, "user": "t",
        "time": "2026-01-01T00:00:00Z", "operation": "up", "id": "planted",
        "expires": "2999-01-01T00:00:00Z"
    })
}

#[test]
fn cancel_stops_a_running_up_of_this_host_and_the_stack_takes_updates_again() {
    use std::io::BufRead;
    let env = Env::new(NET);
    env.ok(&["stack", "init", "dev"]);
    let mut up = env.spawn(&[
        "up",
        "--stack",
        "dev",
        "--yes",
        "--non-interactive",
        "--pause-before",
        "**",
    ]);
    // The run holds the lock once it reaches its breakpoint, and waits there.
    let mut lines = std::io::BufReader::new(up.stdout.take().unwrap()).lines();
    lines
        .by_ref()
        .map(Result::unwrap)
        .find(|l| l.contains("paused before it"))
        .expect("the up pauses");
    let out = env.ok(&["cancel", "--yes", "--stack", "dev"]);
    assert_eq!(
        out,
        "The currently running update for 'dev' has been canceled!\n"
    );
    let status = up.wait().unwrap();
    assert_eq!(status.code(), Some(8), "the up was cancelled as by Ctrl-C");
    let history = env.ok(&["stack", "history", "--json"]);
    assert!(history.contains("\"failed\""), "{history}");
    env.ok(&["up", "--stack", "dev", "--yes", "--non-interactive"]);
    assert_eq!(
        env.ok(&["cancel", "--yes"]),
        "There is no update running for 'dev'.\n"
    );
}

#[test]
fn cancel_releases_a_lock_whose_holder_is_gone() {
    let env = Env::new(NET);
    env.ok(&["stack", "init", "dev"]);
    let mut gone = std::process::Command::new("true").spawn().unwrap();
    gone.wait().unwrap();
    let dir = env.stack_dir("dev");
    plant_lock(&dir, holder(gone.id(), &hostname()));
    env.ok(&["cancel", "--yes", "--stack", "dev"]);
    let (_, lock) = current_lock(&dir).unwrap();
    assert!(lock.get("released").is_some(), "{lock}");
    env.ok(&["up", "--stack", "dev", "--yes", "--non-interactive"]);
}

#[test]
fn cancel_refuses_a_run_it_cannot_signal_and_keeps_its_lock() {
    let env = Env::new(NET);
    env.ok(&["stack", "init", "dev"]);
    let dir = env.stack_dir("dev");
    // On another host; then on this one but not a stepdeck process (this test is running).
    for (pid, host, words) in [
        (
            4242,
            "elsewhere".to_string(),
            "which this host cannot signal",
        ),
        (std::process::id(), hostname(), "is not a stepdeck process"),
    ] {
        plant_lock(&dir, holder(pid, &host));
        let out = env.run(&["cancel", "--yes", "--stack", "dev"]);
        assert_eq!(out.status.code(), Some(2));
        assert!(stderr(&out).contains(words), "{}", stderr(&out));
        let up = env.run(&["up", "--stack", "dev", "--yes", "--non-interactive"]);
        assert!(stderr(&up).contains("locked"), "{}", stderr(&up));
        env.ok(&["stack", "unlock", "--force"]);
    }
}

/// `stepdeck plugin …` with `PULUMI_HOME` in the test's directory.
fn plugin(env: &Env, args: &[&str]) -> std::process::Output {
    env.command(&[&["plugin"][..], args].concat())
        .env("PULUMI_HOME", env.root.path().join("pulumi-home"))
        .output()
        .unwrap()
}

fn plugin_ok(env: &Env, args: &[&str]) -> String {
    let out = plugin(env, args);
    assert!(out.status.success(), "{args:?}: {}", stderr(&out));
    stdout(&out)
}

fn listed(env: &Env) -> Vec<Value> {
    serde_json::from_str::<Value>(&plugin_ok(env, &["ls", "--json"]))
        .unwrap()
        .as_array()
        .cloned()
        .unwrap()
}

#[test]
fn plugin_install_puts_a_local_plugin_where_pulumi_and_the_plugin_search_find_it() {
    use std::os::unix::fs::PermissionsExt;
    let env = Env::new("\nresources:\n  thing:\n    type: fake:index:Thing\n");
    env.ok(&["stack", "init", "dev"]);
    // Only the built-in providers, marked so.
    let names: Vec<(String, bool)> = listed(&env)
        .iter()
        .map(|p| {
            (
                p["name"].as_str().unwrap().to_string(),
                p["builtin"] == true,
            )
        })
        .collect();
    assert_eq!(
        names,
        [
            ("sim".into(), true),
            ("random".into(), true),
            ("command".into(), true)
        ]
    );
    let preview = |env: &Env| {
        env.command(&["preview", "--non-interactive"])
            .env("PULUMI_HOME", env.root.path().join("pulumi-home"))
            .output()
            .unwrap()
    };
    let before = preview(&env);
    assert!(
        stderr(&before).contains("is not on PATH"),
        "{}",
        stderr(&before)
    );

    // A plugin that starts and prints no port: enough to see that it is the one started.
    let exe = env.root.path().join("fake-plugin");
    std::fs::write(&exe, "#!/bin/sh\necho no-port\n").unwrap();
    std::fs::set_permissions(&exe, std::fs::Permissions::from_mode(0o755)).unwrap();
    let exe = exe.to_str().unwrap();
    let out = plugin(&env, &["install", "resource", "fake", "v1.2.0"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("--file PATH"), "{}", stderr(&out));
    let out = plugin(&env, &["install", "resource", "fake", "--file", exe]);
    assert!(
        stderr(&out).contains("missing plugin version argument"),
        "{}",
        stderr(&out)
    );
    plugin_ok(
        &env,
        &["install", "resource", "fake", "v1.2.0", "--file", exe],
    );
    let installed = env
        .root
        .path()
        .join("pulumi-home/plugins/resource-fake-v1.2.0");
    assert!(exists(&installed.join("pulumi-resource-fake")));
    let fake = listed(&env)
        .into_iter()
        .find(|p| p["name"] == "fake")
        .unwrap();
    assert_eq!(fake["kind"], "resource");
    assert_eq!(fake["version"], "1.2.0");
    assert_eq!(fake["size"], 23);
    assert!(fake["installTime"].is_string() && fake["lastUsedTime"].is_string());

    let after = preview(&env);
    assert!(
        stderr(&after).contains("pulumi-resource-fake")
            && !stderr(&after).contains("is not on PATH"),
        "{}",
        stderr(&after)
    );

    // Removal: nothing without a kind or --all; then by kind, name and range.
    let out = plugin(&env, &["rm"]);
    assert!(
        stderr(&out).contains("please pass --all"),
        "{}",
        stderr(&out)
    );
    plugin_ok(
        &env,
        &["install", "resource", "fake", "2.0.0", "--file", exe],
    );
    let out = plugin_ok(&env, &["rm", "resource", "fake", ">=1.0.0 <2.0.0", "--yes"]);
    assert_eq!(out, "removed: resource fake-1.2.0\n");
    assert!(!exists(&installed));
    let versions: Vec<Value> = listed(&env)
        .into_iter()
        .filter(|p| p["name"] == "fake")
        .map(|p| p["version"].clone())
        .collect();
    assert_eq!(versions, [Value::from("2.0.0")]);
    // A published plugin's tarball is extracted into place.
    let staging = env.root.path().join("staging");
    std::fs::create_dir_all(&staging).unwrap();
    std::fs::copy(exe, staging.join("pulumi-resource-fake")).unwrap();
    let tarball = env.root.path().join("fake.tar.gz");
    let tar = std::process::Command::new("tar")
        .arg("-czf")
        .arg(&tarball)
        .arg("-C")
        .arg(&staging)
        .arg("pulumi-resource-fake")
        .status()
        .unwrap();
    assert!(tar.success());
    plugin_ok(
        &env,
        &[
            "install",
            "resource",
            "fake",
            "3.0.0",
            "-f",
            tarball.to_str().unwrap(),
        ],
    );
    assert!(exists(&env.root.path().join(
        "pulumi-home/plugins/resource-fake-v3.0.0/pulumi-resource-fake"
    )));
    plugin_ok(&env, &["rm", "--all", "--yes"]);
    assert_eq!(listed(&env).len(), 3);
}

const TEMPLATE: &str = "name: ${PROJECT}\ndescription: ${DESCRIPTION}\nruntime: yaml\ntemplate:\n  description: A tiny network\n  config:\n    cidr:\n      description: the range\n      default: 10.9.0.0/16\nresources:\n  net:\n    type: sim:index:Network\n    properties:\n      cidr: ${cidr}\n";

/// A template directory: `Pulumi.yaml` and a text file naming the project.
fn template(env: &Env) -> std::path::PathBuf {
    let dir = env.root.path().join("tpl");
    std::fs::create_dir_all(dir.join("docs")).unwrap();
    std::fs::write(dir.join("Pulumi.yaml"), TEMPLATE).unwrap();
    std::fs::write(dir.join("docs/README.md"), "# ${PROJECT}: ${DESCRIPTION}\n").unwrap();
    dir
}

#[test]
fn new_makes_a_project_and_its_stack_from_a_local_template() {
    let env = Env::new("");
    let tpl = template(&env);
    let dest = env.root.path().join("net-app");
    let tpl_arg = tpl.to_str().unwrap();
    let dest_arg = dest.to_str().unwrap();
    let out = env.ok(&[
        "new",
        tpl_arg,
        "--dir",
        dest_arg,
        "--yes",
        "-c",
        "owner=ops",
    ]);
    assert!(
        out.starts_with("Created project 'net-app'\n\nCreated stack 'dev'\n"),
        "{out}"
    );
    assert_eq!(
        std::fs::read_to_string(dest.join("Pulumi.yaml")).unwrap(),
        "name: net-app\ndescription: A tiny network\nruntime: yaml\nresources:\n  net:\n    type: sim:index:Network\n    properties:\n      cidr: ${cidr}\n"
    );
    assert_eq!(
        std::fs::read_to_string(dest.join("docs/README.md")).unwrap(),
        "# net-app: A tiny network\n"
    );
    let settings = std::fs::read_to_string(dest.join("Pulumi.dev.yaml")).unwrap();
    assert!(settings.contains("net-app:cidr: 10.9.0.0/16"), "{settings}");
    assert!(settings.contains("net-app:owner: ops"), "{settings}");
    // The project deploys as it is.
    env.ok_in(&dest, &["up", "--yes", "--non-interactive"]);
    assert!(
        env.world()
            .values()
            .any(|r| r["properties"]["cidr"] == "10.9.0.0/16")
    );

    // A directory that is not empty is refused unless --force; --generate-only makes no stack.
    let again = env.run(&["new", tpl_arg, "--dir", dest_arg, "--yes"]);
    assert_eq!(again.status.code(), Some(2));
    assert!(
        stderr(&again).contains("is not empty; use --force"),
        "{}",
        stderr(&again)
    );
    let only = env.root.path().join("only");
    let out = env.ok(&[
        "new",
        tpl_arg,
        "--dir",
        only.to_str().unwrap(),
        "--generate-only",
        "--name",
        "named",
        "--description",
        "mine: yes",
    ]);
    assert_eq!(out, "Created project 'named'\n\n");
    let text = std::fs::read_to_string(only.join("Pulumi.yaml")).unwrap();
    assert!(
        text.starts_with("name: named\ndescription: \"mine: yes\"\n"),
        "{text}"
    );
    assert!(!exists(&only.join("Pulumi.dev.yaml")));
    let stacks = env.ok_in(&only, &["stack", "ls", "--json"]);
    assert_eq!(stacks.trim(), "[]");
}

#[test]
fn new_refuses_template_names_and_urls_offline() {
    let env = Env::new("");
    for t in [
        "aws-typescript",
        "https://github.com/pulumi/templates/tree/master/yaml",
    ] {
        let out = env.run(&["new", t, "--yes", "--dir", "x"]);
        assert_eq!(out.status.code(), Some(2), "{t}");
        assert!(
            stderr(&out).contains(&format!("template '{t}' not found: stepdeck works offline")),
            "{}",
            stderr(&out)
        );
    }
}

#[test]
fn install_creates_the_virtualenv_and_installs_the_requirements_with_pip() {
    let env = Env::new("");
    env.write(
        "Pulumi.yaml",
        "name: py\nruntime:\n  name: python\n  options:\n    virtualenv: venv\n",
    );
    // pip reads the requirements (a bad one fails the install, naming the command).
    env.write("requirements.txt", "this is not a requirement!\n");
    let out = env.run(&["install"]);
    assert_ne!(out.status.code(), Some(0));
    assert!(
        stderr(&out).contains("installing dependencies via")
            && stderr(&out).contains("pip install -r requirements.txt"),
        "{}",
        stderr(&out)
    );
    assert!(
        exists(&env.project().join("venv/bin/python")),
        "the virtualenv was made"
    );
    env.write("requirements.txt", "# nothing needed\n");
    let out = env.ok(&["install"]);
    assert!(out.contains("Finished installing dependencies"), "{out}");
    // Another toolchain must be on PATH.
    env.write(
        "Pulumi.yaml",
        "name: py\nruntime:\n  name: python\n  options:\n    virtualenv: venv\n    toolchain: uv\n",
    );
    install_needs_on_path(&env, "uv");
}

#[test]
fn a_preview_creates_the_missing_virtualenv_and_installs_the_programs_requirements() {
    let env = Env::new("");
    env.write(
        "Pulumi.yaml",
        "name: py\nruntime:\n  name: python\n  options:\n    virtualenv: venv\nmain: infra\n",
    );
    // The program directory's requirements are installed (a bad one fails the preview).
    std::fs::create_dir(env.project().join("infra")).unwrap();
    env.write("infra/requirements.txt", "this is not a requirement!\n");
    env.ok(&["stack", "init", "dev"]);
    let out = env.run(&["preview", "--stack", "dev"]);
    assert_ne!(out.status.code(), Some(0));
    assert!(
        stderr(&out).contains("pip install -r requirements.txt"),
        "{}",
        stderr(&out)
    );
    assert!(
        exists(&env.project().join("venv/pyvenv.cfg")),
        "the virtualenv was made"
    );
}

/// `install` with nothing on PATH is refused naming the toolchain the project asks for.
fn install_needs_on_path(env: &Env, tool: &str) {
    let out = env
        .command(&["install"])
        .env("PATH", "/nonexistent")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains(&format!("{tool} is not on PATH")),
        "{}",
        stderr(&out)
    );
}

#[test]
fn install_runs_the_projects_package_manager_and_yaml_needs_nothing() {
    let env = Env::new("");
    env.ok(&["install"]);
    env.write(
        "Pulumi.yaml",
        "name: nd\nruntime:\n  name: nodejs\n  options:\n    packagemanager: npm\n",
    );
    env.write(
        "package.json",
        r#"{"name": "nd", "version": "1.0.0", "private": true}"#,
    );
    env.ok(&["install"]);
    assert!(
        exists(&env.project().join("package-lock.json")),
        "npm install ran"
    );
    env.write(
        "Pulumi.yaml",
        "name: nd\nruntime:\n  name: nodejs\n  options:\n    packagemanager: pnpm\n",
    );
    install_needs_on_path(&env, "pnpm");
}

/// Pulumi's `auto` package manager: a lock file in a parent directory (a workspace's root)
/// picks its package manager, and `PULUMI_PREFER_YARN` picks yarn before any.
#[test]
fn install_finds_the_lock_file_of_a_workspace_root_and_prefers_yarn_when_asked() {
    let env = Env::new("");
    env.write("Pulumi.yaml", "name: nd\nruntime: nodejs\n");
    env.write("package.json", r#"{"name": "nd", "version": "1.0.0"}"#);
    std::fs::write(
        env.root.path().join("pnpm-lock.yaml"),
        "lockfileVersion: '9.0'\n",
    )
    .unwrap();
    install_needs_on_path(&env, "pnpm");
    let out = env
        .command(&["install"])
        .env("PATH", "/nonexistent")
        .env("PULUMI_PREFER_YARN", "true")
        .output()
        .unwrap();
    assert!(
        stderr(&out).contains("yarn is not on PATH"),
        "{}",
        stderr(&out)
    );
}

/// As Pulumi's `install`: from inside a policy pack nested in a project it installs the pack
/// alone; from a project nested in a pack, the project alone.
#[test]
fn install_in_a_policy_pack_installs_the_pack_and_not_the_project_around_it() {
    let env = Env::new("");
    env.write("Pulumi.yaml", "name: outer\nruntime: nodejs\n");
    env.write("package.json", r#"{"name": "outer", "version": "1.0.0"}"#);
    let pack = env.project().join("pack");
    std::fs::create_dir_all(pack.join("src")).unwrap();
    std::fs::write(pack.join("PulumiPolicy.yaml"), "runtime: nodejs\n").unwrap();
    std::fs::write(
        pack.join("package.json"),
        r#"{"name": "pack", "version": "1.0.0"}"#,
    )
    .unwrap();
    let out = env.ok_in(&pack.join("src"), &["install"]);
    assert!(out.contains("Finished installing dependencies"), "{out}");
    assert!(
        exists(&pack.join("package-lock.json")),
        "npm ran in the pack"
    );
    assert!(!exists(&env.project().join("package-lock.json")));

    let inner = pack.join("app");
    std::fs::create_dir(&inner).unwrap();
    std::fs::write(inner.join("Pulumi.yaml"), "name: inner\nruntime: nodejs\n").unwrap();
    std::fs::write(
        inner.join("package.json"),
        r#"{"name": "inner", "version": "1.0.0"}"#,
    )
    .unwrap();
    std::fs::remove_file(pack.join("package-lock.json")).unwrap();
    env.ok_in(&inner, &["install"]);
    assert!(
        exists(&inner.join("package-lock.json")),
        "npm ran in the project"
    );
    assert!(!exists(&pack.join("package-lock.json")));
}

#[test]
fn import_keeps_only_the_properties_named() {
    let env = Env::new(NET_AND_DB);
    env.ok(&["up", "--stack", "dev", "--yes", "--non-interactive"]);
    let id = world_id(&env, "db");
    let urn = "urn:pulumi:dev::e2e::sim:index:Database::db";
    let before = resource(&env, "dev", "::db").unwrap()["inputs"].clone();
    assert!(before.get("networkId").is_some(), "{before}");
    env.ok(&["state", "delete", urn, "--yes"]);
    let out = env.ok(&[
        "import",
        "sim:index:Database",
        "db",
        &id,
        "--yes",
        "--properties",
        "engine",
    ]);
    let inputs = resource(&env, "dev", "::db").unwrap()["inputs"].clone();
    assert_eq!(inputs, serde_json::json!({"engine": "pg15"}));
    assert!(
        out.contains("engine: pg15") && !out.contains("networkId"),
        "{out}"
    );
}

/// The same through the Node Automation API: `tests/automation_api/commands.js`.
#[test]
fn the_node_automation_api_imports_resources_and_lists_plugins() {
    run_automation_script(std::path::Path::new("node"), "commands.js");
}

/// As Pulumi's, a command run in a subdirectory of a project works on that project.
#[test]
fn commands_find_the_project_above_the_working_directory() {
    let env = Env::new("outputs:\n  greeting: hi\n");
    let sub = env.project().join("nested/deeper");
    std::fs::create_dir_all(&sub).unwrap();
    env.ok_in(&sub, &["stack", "init", "dev"]);
    env.ok_in(
        &sub,
        &["up", "--stack", "dev", "--yes", "--non-interactive"],
    );
    assert_eq!(
        env.export("dev")["deployment"]["resources"][0]["outputs"]["greeting"],
        "hi"
    );
}
