//! `stepdeck state …` end to end: the real binary edits a real stack's state (Pulumi's
//! `pulumi state` commands), and later deployments act on what it wrote.

#![allow(clippy::unwrap_used, clippy::panic)]

use crate::cli_support;
use cli_support::*;
use serde_json::Value;

/// Appended to [`NET_AND_DB`].
const MORE: &str = r#"  other:
    type: sim:index:Resource
    properties:
      tag: two
  box:
    type: sim:index:Resource
    properties:
      tag: one
"#;

fn program() -> String {
    format!("{NET_AND_DB}{MORE}")
}

fn urn(ty: &str, name: &str) -> String {
    format!("urn:pulumi:dev::e2e::{ty}::{name}")
}

fn net() -> String {
    urn("sim:index:Network", "net")
}

fn db() -> String {
    urn("sim:index:Database", "db")
}

fn boxed() -> String {
    urn("sim:index:Resource", "box")
}

fn up(env: &Env) -> String {
    env.ok(&["up", "--stack", "dev", "--yes", "--non-interactive"])
}

/// Runs a `state` subcommand on stack dev with `--yes`.
fn state(env: &Env, args: &[&str]) -> std::process::Output {
    let mut all = vec!["state"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--stack", "dev", "--yes"]);
    env.run(&all)
}

fn ok(env: &Env, args: &[&str]) -> String {
    let out = state(env, args);
    assert!(
        out.status.success(),
        "state {args:?}: {}{}",
        stdout(&out),
        stderr(&out)
    );
    stdout(&out)
}

fn refused(env: &Env, args: &[&str]) -> String {
    let out = state(env, args);
    assert_eq!(
        out.status.code(),
        Some(2),
        "state {args:?}: {}",
        stdout(&out)
    );
    stderr(&out)
}

fn resource(env: &Env, urn: &str) -> Option<Value> {
    env.export("dev")["deployment"]["resources"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["urn"] == urn)
        .cloned()
}

#[test]
fn unprotect_lets_destroy_delete_a_protected_resource_and_protect_sets_it_again() {
    let env = Env::new(&format!("{}    options:\n      protect: true\n", program()));
    up(&env);
    let refused = env.run(&["destroy", "--stack", "dev", "--yes", "--non-interactive"]);
    assert!(!refused.status.success());
    let text = format!("{}{}", stdout(&refused), stderr(&refused));
    assert!(
        text.contains(&format!("`stepdeck state unprotect '{}'`", boxed())),
        "{text}"
    );
    assert!(!text.contains("pulumi state"), "{text}");

    let out = ok(&env, &["unprotect", &boxed()]);
    assert!(out.contains("1 resource unprotected"), "{out}");
    assert!(resource(&env, &boxed()).unwrap().get("protect").is_none());
    ok(&env, &["protect", &boxed()]);
    assert_eq!(resource(&env, &boxed()).unwrap()["protect"], true);
    ok(&env, &["unprotect", "--all"]);
    env.ok(&["destroy", "--stack", "dev", "--yes", "--non-interactive"]);
    assert!(env.world().is_empty(), "{:?}", env.world());
}

#[test]
fn delete_refuses_dependents_and_protected_resources_unless_asked() {
    let env = Env::new(&program());
    up(&env);
    let world = env.world().len();

    let no_yes = env.run(&["state", "delete", &db(), "--stack", "dev"]);
    assert_eq!(no_yes.status.code(), Some(2));
    assert!(stderr(&no_yes).contains("--yes must be passed"));

    let err = refused(&env, &["delete", &net()]);
    assert!(
        err.contains("can't be safely deleted because the following resources depend on it"),
        "{err}"
    );
    assert!(err.contains(&db()), "{err}");
    assert!(err.contains("--target-dependents"), "{err}");

    let out = ok(&env, &["delete", &net(), "--target-dependents"]);
    assert!(out.contains("2 resources deleted"), "{out}");
    assert!(resource(&env, &net()).is_none() && resource(&env, &db()).is_none());
    assert_eq!(env.world().len(), world, "the cloud is not touched");

    ok(&env, &["protect", &boxed()]);
    let err = refused(&env, &["delete", &boxed()]);
    assert!(err.contains("because it is protected"), "{err}");
    assert!(err.contains("--force"), "{err}");
    let forced = state(&env, &["delete", &boxed(), "--force"]);
    assert!(forced.status.success());
    assert!(stderr(&forced).contains("deleting protected resource"));
    assert!(resource(&env, &boxed()).is_none());

    let err = refused(&env, &["delete", &urn("sim:index:Resource", "nothing")]);
    assert!(err.contains("no resource"), "{err}");
}

#[test]
fn rename_keeps_every_reference_pointing_at_the_resource() {
    let env = Env::new(&program());
    up(&env);
    let provider = "urn:pulumi:dev::e2e::pulumi:providers:sim::default";
    let out = ok(&env, &["rename", &net(), "network"]);
    let renamed = urn("sim:index:Network", "network");
    assert!(out.contains(&renamed), "{out}");
    let database = resource(&env, &db()).unwrap();
    assert_eq!(database["dependencies"], serde_json::json!([renamed]));
    assert_eq!(
        database["propertyDependencies"]["networkId"],
        serde_json::json!([renamed])
    );
    ok(&env, &["rename", provider, "sims"]);
    let database = resource(&env, &db()).unwrap();
    assert!(
        database["provider"]
            .as_str()
            .unwrap()
            .starts_with("urn:pulumi:dev::e2e::pulumi:providers:sim::sims::"),
        "{database}"
    );
    let err = refused(&env, &["rename", &boxed(), "other"]);
    assert!(err.contains("already exists"), "{err}");
    let err = refused(&env, &["rename", &boxed(), "bad::name"]);
    assert!(err.contains("not a valid resource name"), "{err}");
}

#[test]
fn taint_replaces_at_the_next_up_and_untaint_takes_it_back() {
    let env = Env::new(&program());
    up(&env);
    let id = resource(&env, &boxed()).unwrap()["id"].clone();
    ok(&env, &["taint", &boxed()]);
    ok(&env, &["untaint", &boxed()]);
    let out = up(&env);
    assert!(!out.contains("replaced"), "{out}");
    ok(&env, &["taint", &boxed()]);
    assert_eq!(resource(&env, &boxed()).unwrap()["taint"], true);
    let out = up(&env);
    assert!(out.contains("1 replaced"), "{out}");
    let after = resource(&env, &boxed()).unwrap();
    assert_ne!(after["id"], id);
    assert!(after.get("taint").is_none(), "{after}");
    env.assert_no_leaks("dev");
}

#[test]
fn repair_sorts_a_broken_state_and_drops_references_to_missing_resources() {
    let env = Env::new(&program());
    up(&env);
    ok(&env, &["repair"]);
    // Break the checkpoint: db before the network it depends on, box depending on a resource
    // that does not exist.
    let path = env.root.path().join("state/.pulumi/stacks/e2e/dev.json");
    let mut doc: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let resources = doc["checkpoint"]["latest"]["resources"]
        .as_array_mut()
        .unwrap();
    let at = |rs: &Vec<Value>, u: &str| rs.iter().position(|r| r["urn"] == u).unwrap();
    let db_at = at(resources, &db());
    let db_state = resources.remove(db_at);
    let net_at = at(resources, &net());
    resources.insert(net_at, db_state);
    let box_at = at(resources, &boxed());
    resources[box_at]["dependencies"] = serde_json::json!([urn("sim:index:Resource", "gone")]);
    std::fs::write(&path, serde_json::to_string(&doc).unwrap()).unwrap();

    let broken = env.run(&["up", "--stack", "dev", "--yes", "--non-interactive"]);
    assert_eq!(broken.status.code(), Some(2));
    let err = stderr(&broken);
    assert!(err.contains("integrity check"), "{err}");
    assert!(err.contains("`stepdeck state repair`"), "{err}");

    let out = ok(&env, &["repair"]);
    assert!(out.contains("State repaired successfully"), "{out}");
    assert!(out.contains(&format!("move {}", db())), "{out}");
    assert!(
        out.contains("dependency urn:pulumi:dev::e2e::sim:index:Resource::gone (missing)"),
        "{out}"
    );
    let repaired = env.export("dev");
    let rs = repaired["deployment"]["resources"].as_array().unwrap();
    assert!(at(rs, &net()) < at(rs, &db()));
    assert!(rs[at(rs, &boxed())].get("dependencies").is_none());
    let out = up(&env);
    assert!(!out.contains("created"), "{out}");
    env.assert_no_leaks("dev");
}

#[test]
fn move_takes_resources_to_another_stack_with_a_copy_of_their_provider() {
    // db is also replaced with net: the move breaks that reference as well.
    let env = Env::new(&program().replace(
        "      networkId: ${net.networkId}\n",
        "      networkId: ${net.networkId}\n    options:\n      replaceWith:\n        - ${net}\n",
    ));
    up(&env);
    env.ok(&["stack", "init", "prod"]);
    let world = env.world();
    let mv = |args: &[&str]| {
        let mut all = vec![
            "state", "move", "--source", "dev", "--dest", "prod", "--yes",
        ];
        all.extend_from_slice(args);
        env.run(&all)
    };
    let out = mv(&["urn:pulumi:dev::e2e::pulumi:providers:sim::default"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("providers cannot be moved"));

    // net moves; db stays in dev and loses its dependency on it.
    let out = mv(&[&net(), &boxed()]);
    assert!(out.status.success(), "{}{}", stdout(&out), stderr(&out));
    let text = stdout(&out);
    assert!(
        text.contains("remaining in dev have dependencies"),
        "{text}"
    );
    assert!(
        text.contains("Successfully moved resources from dev to prod"),
        "{text}"
    );
    let dev = env.export("dev")["deployment"]["resources"].clone();
    let dev_urns: Vec<&str> = dev
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["urn"].as_str().unwrap())
        .collect();
    assert!(!dev_urns.contains(&net().as_str()) && !dev_urns.contains(&boxed().as_str()));
    let db = dev
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["urn"] == db())
        .unwrap();
    assert!(db.get("dependencies").is_none(), "{db}");
    assert!(db.get("replaceWith").is_none(), "{db}");

    let prod = env.export("prod")["deployment"]["resources"].clone();
    let prod_box = prod
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["urn"] == "urn:pulumi:prod::e2e::sim:index:Resource::box")
        .expect("box in prod")
        .clone();
    assert!(
        prod_box["provider"]
            .as_str()
            .unwrap()
            .starts_with("urn:pulumi:prod::e2e::pulumi:providers:sim::default::"),
        "{prod_box}"
    );
    assert_eq!(
        prod_box["parent"],
        "urn:pulumi:prod::e2e::pulumi:pulumi:Stack::e2e-prod"
    );
    assert_eq!(env.world(), world, "the cloud is not touched");

    // prod's next update keeps the moved resources and creates only what it lacks.
    let out = env.ok(&["up", "--stack", "prod", "--yes", "--non-interactive"]);
    assert!(
        !out.contains("box created") && !out.contains("net created"),
        "{out}"
    );
    assert!(out.contains("db created"), "{out}");
}

#[test]
fn edit_replaces_the_state_with_a_valid_edit_and_keeps_a_bad_one_aside() {
    let env = Env::new(&program());
    up(&env);
    let script = |name: &str, body: &str| {
        let path = env.root.path().join(name);
        std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
        let mut perms = std::fs::metadata(&path).unwrap().permissions();
        std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o755);
        std::fs::set_permissions(&path, perms).unwrap();
        path.display().to_string()
    };
    let edit = |editor: &str| {
        env.command(&["state", "edit", "--stack", "dev"])
            .env("EDITOR", editor)
            .env_remove("VISUAL")
            .output()
            .unwrap()
    };
    let retag = script("retag", r#"sed -i 's/"tag": "one"/"tag": "edited"/' "$1""#);
    let out = edit(&retag);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("State edited"));
    assert_eq!(resource(&env, &boxed()).unwrap()["inputs"]["tag"], "edited");

    let unchanged = edit("true");
    assert!(stdout(&unchanged).contains("No changes"));

    let before = env.export("dev");
    let break_it = script("break", r#"echo '{"version": 3' > "$1""#);
    let out = edit(&break_it);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(
        err.contains("invalid JSON") && err.contains("the edit is in"),
        "{err}"
    );
    assert_eq!(env.export("dev"), before, "a bad edit changes nothing");
}

#[test]
fn edit_never_writes_through_a_planted_name_and_keeps_its_copy_private() {
    let env = Env::new(&program());
    up(&env);
    let root = env.root.path();
    let tmp = root.join("tmp");
    std::fs::create_dir(&tmp).unwrap();
    let seen = root.join("seen");
    let editor = root.join("retag");
    std::fs::write(
        &editor,
        format!(
            "#!/bin/sh\nstat -c '%a' \"$(dirname \"$1\")\" \"$1\" > '{}'\nsed -i 's/\"tag\": \"one\"/\"tag\": \"edited\"/' \"$1\"\n",
            seen.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&editor, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    // Plants `$TMPDIR/stepdeck-state-dev-<pid>.json`, the name the edit once used, then
    // becomes stepdeck under the same pid.
    let edit_after = |plant: &str| {
        let inner = env.command(&["state", "edit", "--stack", "dev"]);
        let mut c = std::process::Command::new("sh");
        c.arg("-c")
            .arg(format!("{plant}; exec \"$@\""))
            .arg("sh")
            .arg(inner.get_program())
            .args(inner.get_args())
            .env("TMPDIR", &tmp)
            .env("EDITOR", &editor)
            .env_remove("VISUAL");
        for (k, v) in inner.get_envs() {
            match v {
                Some(v) => c.env(k, v),
                None => c.env_remove(k),
            };
        }
        c.output().unwrap()
    };
    let planted = "\"$TMPDIR/stepdeck-state-dev-$$.json\"";

    let victim = root.join("victim");
    std::fs::write(&victim, "not yours").unwrap();
    let out = edit_after(&format!("ln -s '{}' {planted}", victim.display()));
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("State edited"), "{}", stdout(&out));
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "not yours");
    assert_eq!(resource(&env, &boxed()).unwrap()["inputs"]["tag"], "edited");
    assert_eq!(
        std::fs::read_to_string(&seen).unwrap().trim(),
        "700\n600",
        "the editor's file is private, in a private directory"
    );

    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir(&tmp).unwrap();
    let attacker = r#"{"version": 3, "deployment": {"resources": []}}"#;
    let out = edit_after(&format!(
        "echo '{attacker}' > {planted}; chmod 666 {planted}"
    ));
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("No changes"), "{}", stdout(&out));
    let left: Vec<_> = std::fs::read_dir(&tmp)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(left.len(), 1, "only the planted file is left: {left:?}");
    assert_eq!(
        std::fs::read_to_string(&left[0]).unwrap().trim(),
        attacker,
        "the pre-created file is not rewritten"
    );
    assert!(
        resource(&env, &boxed()).is_some(),
        "its empty state is not imported"
    );
}

/// A resource whose input is the secret config `pw`.
const SECRET_BOX: &str = r#"
config:
  pw:
    type: string
resources:
  box:
    type: sim:index:Resource
    properties:
      tag: ${pw}
outputs:
  tag: ${box.tag}
"#;

#[test]
fn a_secret_moved_into_a_fresh_stack_stays_readable_there() {
    let env = Env::with_passphrase(SECRET_BOX);
    env.ok(&["stack", "init", "dev"]);
    env.set_secret("pw", "hunter2");
    up(&env);
    env.ok(&["stack", "init", "prod"]);
    let boxed = boxed();
    let out = env.run(&[
        "state", "move", "--source", "dev", "--dest", "prod", "--yes", &boxed,
    ]);
    assert!(out.status.success(), "{}{}", stdout(&out), stderr(&out));
    assert!(resource(&env, &boxed).is_none(), "it left dev");

    env.ok(&["stack", "export", "--stack", "prod"]);
    let settings = std::fs::read_to_string(env.project().join("Pulumi.prod.yaml")).unwrap();
    assert!(settings.contains("encryptionsalt: v1:"), "{settings}");
    env.ok(&[
        "config", "set", "--secret", "pw", "hunter3", "--stack", "prod",
    ]);
    for args in [
        &["preview", "--stack", "prod", "--non-interactive"][..],
        &["up", "--stack", "prod", "--yes", "--non-interactive"],
        &["state", "repair", "--stack", "prod", "--yes"],
        &["destroy", "--stack", "prod", "--yes", "--non-interactive"],
    ] {
        env.ok(args);
    }
    assert!(env.world().is_empty(), "destroyed");
    assert!(
        env.ok(&["stack", "output", "tag", "--stack", "dev", "--show-secrets"])
            .contains("hunter2"),
        "dev is as it was but for the box"
    );
}

#[test]
fn a_state_is_read_with_the_salt_recorded_beside_it() {
    let env = Env::with_passphrase(SECRET_BOX);
    env.ok(&["stack", "init", "dev"]);
    env.set_secret("pw", "hunter2");
    up(&env);
    let export = |env: &Env| {
        env.ok(&["stack", "export", "--stack", "dev"]);
        env.ok(&["stack", "output", "tag", "--stack", "dev", "--show-secrets"])
    };
    assert!(export(&env).contains("hunter2"));
    // The settings now name another salt of the same passphrase (another stack's).
    env.ok(&["stack", "init", "other"]);
    env.ok(&["config", "set", "--secret", "x", "y", "--stack", "other"]);
    let other = std::fs::read_to_string(env.project().join("Pulumi.other.yaml")).unwrap();
    let salt = other
        .lines()
        .find(|l| l.starts_with("encryptionsalt:"))
        .unwrap();
    let path = env.project().join("Pulumi.dev.yaml");
    let dev = std::fs::read_to_string(&path).unwrap();
    let config = dev.lines().filter(|l| !l.starts_with("encryptionsalt:"));
    std::fs::write(
        &path,
        format!("{salt}\n{}\n", config.collect::<Vec<_>>().join("\n")),
    )
    .unwrap();
    env.set_secret("pw", "hunter2");

    assert!(export(&env).contains("hunter2"));
    let out = env.ok(&["up", "--stack", "dev", "--yes", "--non-interactive"]);
    assert!(!out.contains("box updated"), "{out}");
    let recorded = env.checkpoint_text("e2e", "dev");
    let salt = salt.trim_start_matches("encryptionsalt:").trim();
    assert!(
        recorded.contains(salt),
        "the next update re-encrypts under the settings' salt"
    );
    assert!(export(&env).contains("hunter2"));
}

/// A state left with a pending create (a run killed mid-step): the next update warns in
/// Pulumi's words, every line of the message under the Diagnostics indent, and a preview does
/// not (Pulumi warns only when it deploys).
#[test]
fn an_update_over_pending_operations_warns_under_the_stack_and_a_preview_does_not() {
    let env = Env::new(&program());
    env.ok(&["up", "--stack", "dev", "--yes", "--non-interactive"]);
    let mut state = env.export("dev");
    state["deployment"]["pending_operations"] = serde_json::json!([{
        "resource": {
            "urn": urn("sim:index:Resource", "lost"),
            "custom": true,
            "type": "sim:index:Resource",
            "inputs": {"tag": "x"}
        },
        "type": "creating"
    }]);
    let path = env.root.path().join("pending.json");
    std::fs::write(&path, state.to_string()).unwrap();
    let file = path.to_str().unwrap();
    env.ok(&["stack", "import", "--stack", "dev", "--file", file]);

    let preview = env.ok(&["preview", "--stack", "dev", "--non-interactive"]);
    assert!(!preview.contains("pending operations"), "{preview}");
    let up = env.ok(&["up", "--stack", "dev", "--yes", "--non-interactive"]);
    let expected = format!(
        "Diagnostics:\n  pulumi:pulumi:Stack (e2e-dev):\n    warning: Attempting to deploy or update \
         resources with 1 pending operations from a previous deployment.\n      * {}, interrupted \
         while creating\n    These resources are in an unknown state",
        urn("sim:index:Resource", "lost")
    );
    assert!(up.contains(&expected), "{up}");
}
