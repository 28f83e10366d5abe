//! The `postgres://` backend in Pulumi's DIY table (`pkg/backend/diy/postgres`), so that
//! `pulumi` and stepdeck share stacks there: what stepdeck writes are the keys and shapes
//! Pulumi reads, a stack written into the table in Pulumi's shape is updated and destroyed by
//! the real binary, a Pulumi lock key refuses stepdeck in Pulumi's words while stepdeck's run
//! holds one of its own, and a database of stepdeck's earlier tables (schema v3) is migrated.

#![allow(clippy::unwrap_used, clippy::panic)]

use crate::cli_support;
use crate::pg_support;
use crate::state_diy_layout::{PROGRAM_V2, pulumi_checkpoint};

use serde_json::{Value, json};

use cli_support::{Env, stderr};

macro_rules! server {
    () => {
        match pg_support::server() {
            Some(s) => s,
            None => return,
        }
    };
}

/// A project on a fresh database of `server` (nothing created yet), and the database's name.
fn pg_env(server: &pg_support::Server, program: &str) -> (Env, String) {
    let (db, url) = server.database();
    let mut env = Env::new(program);
    env.backend = Some(url);
    (env, db)
}

/// The keys of Pulumi's table, in order.
fn keys(server: &pg_support::Server, db: &str) -> Vec<String> {
    let out = server.sql(db, "SELECT key FROM pulumi_state ORDER BY key");
    out.lines().map(str::to_string).collect()
}

/// The bytes at `key` (its `data` decoded as Pulumi's reader decodes it), as text.
fn blob(server: &pg_support::Server, db: &str, key: &str) -> String {
    server.sql(
        db,
        &format!(
            "SELECT convert_from(decode(data->>'data', 'base64'), 'UTF8') FROM pulumi_state \
             WHERE key = '{key}'"
        ),
    )
}

/// The bytes at `key`, gunzipped if `pulumi` (or stepdeck) wrote them compressed.
fn blob_unzipped(server: &pg_support::Server, db: &str, key: &str) -> Value {
    use base64::Engine as _;
    let data = server.sql(
        db,
        &format!("SELECT data->>'data' FROM pulumi_state WHERE key = '{key}'"),
    );
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(data)
        .unwrap();
    assert_eq!(bytes[..2], [0x1f, 0x8b], "{key} is gzipped");
    let mut text = String::new();
    std::io::Read::read_to_string(&mut flate2::read::GzDecoder::new(&bytes[..]), &mut text)
        .unwrap();
    serde_json::from_str(&text).unwrap()
}

/// `text` gzipped, as `pulumi` writes with `PULUMI_DIY_BACKEND_GZIP`.
fn gzip(text: &str) -> Vec<u8> {
    use std::io::Write as _;
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(text.as_bytes()).unwrap();
    gz.finish().unwrap()
}

/// Writes `bytes` at `key` as Pulumi's writer does: `{"data": base64}`.
fn put(server: &pg_support::Server, db: &str, key: &str, bytes: impl AsRef<[u8]>) {
    use base64::Engine as _;
    let data = json!({ "data": base64::engine::general_purpose::STANDARD.encode(bytes) });
    server.sql(
        db,
        &format!(
            "INSERT INTO pulumi_state (key, data) VALUES ('{key}', '{data}') \
             ON CONFLICT (key) DO UPDATE SET data = EXCLUDED.data"
        ),
    );
}

/// Pulumi's table as `schema.sql` creates it, for a database `pulumi login` opened first.
fn pulumi_table(server: &pg_support::Server, db: &str) {
    server.sql(
        db,
        "CREATE TABLE IF NOT EXISTS pulumi_state (key TEXT PRIMARY KEY, data JSON NOT NULL, \
         updated_at TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now()); \
         CREATE INDEX IF NOT EXISTS pulumi_state_key_prefix_idx ON pulumi_state (key text_pattern_ops);",
    );
}

/// `key` with each run of more than 9 digits (a time in nanoseconds) written `N`.
fn nanos_as_n(key: &str) -> String {
    let mut out = String::new();
    let mut digits = String::new();
    for c in key.chars().chain(std::iter::once('/')) {
        if c.is_ascii_digit() {
            digits.push(c);
            continue;
        }
        out.push_str(if digits.len() > 9 { "N" } else { &digits });
        digits.clear();
        out.push(c);
    }
    out.pop();
    out
}

/// The sim world holding the resource of [`pulumi_checkpoint`].
fn pulumi_world(env: &Env) {
    std::fs::write(
        env.world_path(),
        json!({"resources": {"a-pulumi": {"type": "sim:index:Resource", "name": "a",
            "urn": "urn:pulumi:dev::e2e::sim:index:Resource::a",
            "properties": {"uid": "u-pulumi", "v": 1}}}})
        .to_string(),
    )
    .unwrap();
}

#[test]
fn a_stack_stepdeck_writes_has_the_keys_and_shapes_pulumis_postgres_backend_reads() {
    let server = server!();
    let (env, db) = pg_env(server, PROGRAM_V2);
    env.ok(&["up", "--stack", "dev", "--yes", "--non-interactive"]);
    env.ok(&["stack", "tag", "set", "team", "ops", "--stack", "dev"]);

    // Pulumi's schema: key TEXT PRIMARY KEY, data JSON, updated_at, the key-prefix index.
    let columns = server.sql(
        &db,
        "SELECT column_name || ' ' || data_type FROM information_schema.columns \
         WHERE table_name = 'pulumi_state' ORDER BY ordinal_position",
    );
    assert_eq!(
        columns,
        "key text\ndata json\nupdated_at timestamp with time zone"
    );
    assert_eq!(
        server.sql(
            &db,
            "SELECT count(*) FROM pg_indexes WHERE indexname = 'pulumi_state_key_prefix_idx'"
        ),
        "1"
    );

    // Every key is prefixed with the URL's path (the database name), as Pulumi's bucket is.
    let prefix = format!("{db}/.pulumi/");
    let all = keys(server, &db);
    let rel: Vec<&str> = all
        .iter()
        .map(|k| k.strip_prefix(&prefix).unwrap_or_else(|| panic!("{k}")))
        .collect();
    let shape: Vec<String> = rel.iter().map(|k| nanos_as_n(k)).collect();
    assert_eq!(
        shape,
        [
            "backups/e2e/dev/dev.N.json",
            "history/e2e/dev/dev-N.checkpoint.json",
            "history/e2e/dev/dev-N.history.json",
            "meta.yaml",
            "stacks/e2e/dev.json",
            "stacks/e2e/dev.json.bak",
            "stacks/e2e/dev.pulumi-tags",
        ],
        "{all:#?}"
    );
    assert_eq!(
        blob(server, &db, &format!("{prefix}meta.yaml")),
        "version: 1"
    );
    let tags: Value = serde_json::from_str(&blob(
        server,
        &db,
        &format!("{prefix}stacks/e2e/dev.pulumi-tags"),
    ))
    .unwrap();
    assert_eq!(tags, json!({"version": 1, "tags": {"team": "ops"}}));

    // The stack key decodes as Pulumi's `apitype.VersionedCheckpoint` (version 3).
    let doc: Value =
        serde_json::from_str(&blob(server, &db, &format!("{prefix}stacks/e2e/dev.json"))).unwrap();
    assert_eq!(doc["version"], 3);
    assert_eq!(doc["checkpoint"]["stack"], "organization/e2e/dev");
    let latest = &doc["checkpoint"]["latest"];
    for field in ["time", "magic", "version"] {
        assert!(latest["manifest"][field].is_string(), "{field}: {doc}");
    }
    let types: Vec<&str> = latest["resources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["type"].as_str().unwrap())
        .collect();
    assert_eq!(
        types,
        [
            "pulumi:pulumi:Stack",
            "pulumi:providers:sim",
            "sim:index:Resource"
        ]
    );
    let resource = &latest["resources"][2];
    assert_eq!(
        resource["urn"],
        "urn:pulumi:dev::e2e::sim:index:Resource::a"
    );
    assert_eq!(resource["custom"], true);
    assert_eq!(resource["inputs"], json!({"v": 2}));

    // The history file is Pulumi's `UpdateInfo`; its checkpoint copy is the stack file.
    let history_key = all.iter().find(|k| k.ends_with(".history.json")).unwrap();
    let info: Value = serde_json::from_str(&blob(server, &db, history_key)).unwrap();
    assert_eq!(info["kind"], "update");
    assert_eq!(info["result"], "succeeded");
    assert!(
        info["startTime"].is_i64() && info["endTime"].is_i64(),
        "{info}"
    );
    assert_eq!(info["resourceChanges"]["create"], 2, "{info}");
    let copy = history_key.replace(".history.json", ".checkpoint.json");
    assert_eq!(
        blob(server, &db, &copy),
        blob(server, &db, &format!("{prefix}stacks/e2e/dev.json"))
    );

    // stepdeck's own tables hold no copy of the state.
    assert_eq!(
        server.sql(
            &db,
            "SELECT string_agg(tablename, ' ' ORDER BY tablename) FROM pg_tables \
             WHERE schemaname = 'public'"
        ),
        "pulumi_state stepdeck_current stepdeck_history stepdeck_journal stepdeck_locks stepdeck_schema"
    );
    // A rename moves the stack file, tags and history (each file renamed), as Pulumi's does,
    // keeping the old stack file as its backup.
    env.ok(&["stack", "rename", "prod", "--stack", "dev"]);
    let moved: Vec<String> = keys(server, &db)
        .iter()
        .filter(|k| !k.contains("/backups/"))
        .map(|k| nanos_as_n(k.strip_prefix(&prefix).unwrap()))
        .collect();
    assert_eq!(
        moved,
        [
            "history/e2e/prod/prod-N.checkpoint.json",
            "history/e2e/prod/prod-N.history.json",
            "meta.yaml",
            "stacks/e2e/dev.json.bak",
            "stacks/e2e/prod.json",
            "stacks/e2e/prod.pulumi-tags",
        ]
    );
    let history = env.ok(&["stack", "history", "--stack", "prod", "--json"]);
    let history: Value = serde_json::from_str(&history).unwrap();
    assert_eq!(history.as_array().unwrap().len(), 1, "{history}");
}

#[test]
fn a_stack_pulumi_wrote_into_the_table_is_listed_updated_and_destroyed() {
    let server = server!();
    let (env, db) = pg_env(server, PROGRAM_V2);
    pulumi_table(server, &db);
    let prefix = format!("{db}/.pulumi/");
    put(server, &db, &format!("{prefix}meta.yaml"), "version: 1\n");
    let written = pulumi_checkpoint().to_string();
    put(
        server,
        &db,
        &format!("{prefix}stacks/e2e/dev.json"),
        &written,
    );
    put(
        server,
        &db,
        &format!("{prefix}history/e2e/dev/dev-1714557600123456789.history.json"),
        json!({"kind": "update", "startTime": 1714557598, "message": "",
               "environment": {"exec.kind": "cli"}, "config": {"e2e:region": "eu-west-1"},
               "version": 0, "result": "succeeded", "endTime": 1714557600,
               "resourceChanges": {"create": 3}})
        .to_string(),
    );
    pulumi_world(&env);

    let ls = env.ok(&["stack", "ls"]);
    assert!(ls.lines().any(|l| l.starts_with("dev")), "{ls}");
    let history = env.ok(&["stack", "history", "--stack", "dev", "--json"]);
    let history: Value = serde_json::from_str(&history).unwrap();
    assert_eq!(history[0]["version"], 1, "{history}");

    env.ok(&["up", "--stack", "dev", "--yes", "--non-interactive"]);
    assert_eq!(env.world()["a-pulumi"]["properties"]["v"], 2);
    let after: Value =
        serde_json::from_str(&blob(server, &db, &format!("{prefix}stacks/e2e/dev.json"))).unwrap();
    let a = after["checkpoint"]["latest"]["resources"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["id"] == "a-pulumi")
        .cloned()
        .expect("the resource keeps Pulumi's id");
    assert_eq!(a["inputs"], json!({"v": 2}));
    let bak: Value = serde_json::from_str(&blob(
        server,
        &db,
        &format!("{prefix}stacks/e2e/dev.json.bak"),
    ))
    .unwrap();
    assert_eq!(
        bak["checkpoint"]["latest"]["resources"],
        pulumi_checkpoint()["checkpoint"]["latest"]["resources"]
    );
    let history = env.ok(&["stack", "history", "--stack", "dev", "--json"]);
    let history: Value = serde_json::from_str(&history).unwrap();
    assert_eq!(history[0]["version"], 2, "{history}");

    env.ok(&["destroy", "--stack", "dev", "--yes", "--non-interactive"]);
    assert!(env.world().is_empty(), "{:?}", env.world());
    let after: Value =
        serde_json::from_str(&blob(server, &db, &format!("{prefix}stacks/e2e/dev.json"))).unwrap();
    assert_eq!(after["checkpoint"]["latest"]["resources"], json!([]));
    assert_eq!(
        server.sql(&db, "SELECT count(*) FROM stepdeck_journal"),
        "0"
    );
}

#[test]
fn a_pulumi_lock_key_refuses_stepdeck_in_pulumis_words_and_stepdeck_holds_one_while_it_runs() {
    let server = server!();
    let (env, db) = pg_env(
        server,
        "resources:\n  a:\n    type: sim:index:Resource\n    properties:\n      v: 2\n      latencyMs: 2000\n",
    );
    env.ok(&["stack", "init", "dev"]);
    let prefix = format!("{db}/.pulumi/");
    let lock =
        format!("{prefix}locks/organization/e2e/dev/5d2c6a8e-7f1b-4c3a-9e0d-2b4f6a8c0e1d.json");
    put(
        server,
        &db,
        &lock,
        r#"{"pid":4242,"username":"alice","hostname":"build-7","timestamp":"2024-05-01T10:00:00.123456789Z"}"#,
    );
    let checkpoint =
        "SELECT md5(data::text) FROM pulumi_state WHERE key LIKE '%/stacks/e2e/dev.json'";
    let before = server.sql(&db, checkpoint);
    let out = env.run(&["up", "--stack", "dev", "--yes", "--non-interactive"]);
    let err = stderr(&out);
    assert!(!out.status.success(), "{err}");
    assert!(
        err.contains(
            "the stack is currently locked by 1 lock(s). Either wait for the other \
             process(es) to end or delete the lock file with `pulumi cancel`."
        ),
        "{err}"
    );
    assert!(
        err.contains(&format!(
            "#pulumi_state/{lock}: created by alice@build-7 (pid 4242) at 2024-05-01T10:00:00Z"
        )),
        "{err}"
    );
    assert_eq!(server.sql(&db, checkpoint), before);
    assert!(env.world().is_empty());
    let locks = "SELECT key FROM pulumi_state WHERE key LIKE '%/.pulumi/locks/%'";
    assert_eq!(server.sql(&db, locks), lock, "Pulumi's lock is left alone");
    assert_eq!(server.sql(&db, "SELECT count(*) FROM stepdeck_locks"), "0");

    // Once Pulumi is done, stepdeck runs, holding a lock key of Pulumi's shape meanwhile.
    server.sql(
        &db,
        &format!("DELETE FROM pulumi_state WHERE key = '{lock}'"),
    );
    let run = env.spawn(&["up", "--stack", "dev", "--yes", "--non-interactive"]);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    let held = loop {
        let found = server.sql(&db, locks);
        if !found.is_empty() {
            break found;
        }
        assert!(std::time::Instant::now() < deadline, "the up never locked");
        std::thread::yield_now();
    };
    let id = server.sql(&db, "SELECT id FROM stepdeck_locks");
    assert_eq!(
        held,
        format!("{prefix}locks/organization/e2e/dev/{id}.json")
    );
    let content: Value = serde_json::from_str(&blob(server, &db, &held)).unwrap();
    let fields: Vec<&str> = content
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(fields, ["pid", "username", "hostname", "timestamp"]);
    let out = run.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(server.sql(&db, locks), "", "released with the lease");
}

/// stepdeck's tables as schema version 3 left them (its migrations 1 to 3).
const SCHEMA_V3: &str = "
CREATE TABLE stepdeck_schema (version integer NOT NULL); INSERT INTO stepdeck_schema VALUES (3);
CREATE TABLE stepdeck_stacks (
    project text NOT NULL, stack text NOT NULL,
    epoch bigint NOT NULL, checkpoint text NOT NULL,
    resource_count bigint NOT NULL, last_update text,
    tags text NOT NULL DEFAULT '{}',
    PRIMARY KEY (project, stack));
CREATE TABLE stepdeck_journal (
    project text NOT NULL, stack text NOT NULL, epoch bigint NOT NULL, seq bigint NOT NULL,
    entry text NOT NULL,
    PRIMARY KEY (project, stack, epoch, seq));
CREATE TABLE stepdeck_locks (
    project text NOT NULL, stack text NOT NULL, id text NOT NULL,
    pid bigint NOT NULL, host text NOT NULL, username text NOT NULL, operation text NOT NULL,
    acquired text NOT NULL, expires timestamptz NOT NULL,
    PRIMARY KEY (project, stack));
CREATE TABLE stepdeck_history (
    project text NOT NULL, stack text NOT NULL, version bigint NOT NULL, record text NOT NULL,
    PRIMARY KEY (project, stack, version));
CREATE TABLE stepdeck_current (project text PRIMARY KEY, stack text NOT NULL);
ALTER TABLE stepdeck_locks ADD COLUMN generation bigint NOT NULL DEFAULT 0;
CREATE SEQUENCE stepdeck_lock_generation;
ALTER TABLE stepdeck_history ADD COLUMN events bytea;
";

#[test]
fn a_database_of_stepdecks_schema_v3_is_migrated_into_pulumis_table() {
    let server = server!();
    // A stack deployed by stepdeck, as a v3 database held it: the checkpoint document (the
    // one a file backend writes), tags and one update record.
    let (env, db) = pg_env(server, PROGRAM_V2);
    let file_url = format!("file://{}", env.root.path().join("state").display());
    let mut on_file = Env::new(PROGRAM_V2);
    on_file.backend = Some(file_url);
    on_file.ok(&["up", "--stack", "dev", "--yes", "--non-interactive"]);
    std::fs::copy(on_file.world_path(), env.world_path()).unwrap();
    let checkpoint =
        std::fs::read_to_string(env.root.path().join("state/.pulumi/stacks/e2e/dev.json")).unwrap();
    let doc: Value = serde_json::from_str(&checkpoint).unwrap();
    let epoch = doc["stepdeck"]["journalEpoch"].as_u64().unwrap();
    let record = json!({"kind": "update", "startTime": 1714557598, "message": "first",
        "environment": {}, "config": {}, "result": "succeeded", "endTime": 1714557600,
        "version": 1, "resourceChanges": {"create": 3}});
    server.sql(&db, SCHEMA_V3);
    server.sql(
        &db,
        &format!(
            "INSERT INTO stepdeck_stacks VALUES ('e2e', 'dev', {epoch}, $${checkpoint}$$, 3, NULL, \
             '{{\"team\":\"ops\"}}'); \
             INSERT INTO stepdeck_history VALUES ('e2e', 'dev', 1, $${record}$$, NULL); \
             INSERT INTO stepdeck_current VALUES ('e2e', 'dev');"
        ),
    );

    let ls = env.ok(&["stack", "ls"]);
    assert!(ls.lines().any(|l| l.starts_with("dev*")), "{ls}");
    assert_eq!(server.sql(&db, "SELECT version FROM stepdeck_schema"), "4");
    assert_eq!(
        server.sql(
            &db,
            "SELECT count(*) FROM pg_tables WHERE tablename = 'stepdeck_stacks'"
        ),
        "0"
    );
    let prefix = format!("{db}/.pulumi/");
    assert_eq!(
        blob(server, &db, &format!("{prefix}stacks/e2e/dev.json")),
        checkpoint.trim_end()
    );
    let tags: Value = serde_json::from_str(&blob(
        server,
        &db,
        &format!("{prefix}stacks/e2e/dev.pulumi-tags"),
    ))
    .unwrap();
    assert_eq!(tags, json!({"version": 1, "tags": {"team": "ops"}}));
    let history = env.ok(&["stack", "history", "--stack", "dev", "--json"]);
    let history: Value = serde_json::from_str(&history).unwrap();
    assert_eq!(history.as_array().unwrap().len(), 1, "{history}");
    assert_eq!(history[0]["message"], "first", "{history}");
    assert_eq!(
        blob(server, &db, &format!("{prefix}meta.yaml")),
        "version: 1"
    );

    // The migrated stack carries on: no changes, then a second update on record.
    env.ok(&[
        "up",
        "--stack",
        "dev",
        "--yes",
        "--non-interactive",
        "--expect-no-changes",
    ]);
    let history = env.ok(&["stack", "history", "--stack", "dev", "--json"]);
    let history: Value = serde_json::from_str(&history).unwrap();
    assert_eq!(history[0]["version"], 2, "{history}");
}

#[test]
fn the_lock_key_of_a_run_that_died_goes_with_its_lease_and_unlock_force_removes_pulumis() {
    let server = server!();
    let (env, db) = pg_env(server, PROGRAM_V2);
    env.ok(&["stack", "init", "dev"]);
    let dir = format!("{db}/.pulumi/locks/organization/e2e/dev/");
    let locks = "SELECT key FROM pulumi_state WHERE key LIKE '%/.pulumi/locks/%'";
    // A stepdeck run whose lease ran out, with the Pulumi lock key it wrote.
    server.sql(
        &db,
        "INSERT INTO stepdeck_locks VALUES ('e2e', 'dev', 'dead-run', 4242, 'elsewhere', 'u', \
         'up', '2024-05-01T10:00:00Z', now() - interval '1 second', 1)",
    );
    put(
        server,
        &db,
        &format!("{dir}dead-run.json"),
        r#"{"pid":4242,"username":"u","hostname":"elsewhere","timestamp":"2024-05-01T10:00:00Z"}"#,
    );
    env.ok(&["up", "--stack", "dev", "--yes", "--non-interactive"]);
    assert_eq!(
        server.sql(&db, locks),
        "",
        "the dead run's key went with its lease"
    );

    // A `pulumi` that died elsewhere: `stack unlock` refuses, `--force` removes its key.
    let theirs = format!("{dir}0c4f.json");
    put(
        server,
        &db,
        &theirs,
        r#"{"pid":4242,"username":"bob","hostname":"elsewhere","timestamp":"2024-05-01T10:00:00Z"}"#,
    );
    let out = env.run(&["stack", "unlock", "--stack", "dev"]);
    assert!(!out.status.success(), "{}", stderr(&out));
    assert_eq!(server.sql(&db, locks), theirs);
    env.ok(&["stack", "unlock", "--stack", "dev", "--force"]);
    assert_eq!(server.sql(&db, locks), "");
    env.ok(&["destroy", "--stack", "dev", "--yes", "--non-interactive"]);
}

#[test]
fn a_zstd_stack_key_is_refused_and_never_shadowed_by_a_new_stack() {
    let server = server!();
    let (env, db) = pg_env(server, PROGRAM_V2);
    env.ok(&["stack", "ls"]);
    let key = format!("{db}/.pulumi/stacks/e2e/dev.json.zst");
    put(server, &db, &key, "not read");
    for args in [
        &["stack", "init", "dev"][..],
        &["up", "--stack", "dev", "--yes", "--non-interactive"],
    ] {
        let out = env.run(args);
        let err = stderr(&out);
        assert!(!out.status.success(), "{args:?}: {err}");
        assert!(
            err.contains("a zstd-compressed stack file") && err.contains(&key),
            "{args:?}: {err}"
        );
    }
    assert_eq!(
        server.sql(
            &db,
            "SELECT count(*) FROM pulumi_state WHERE key LIKE '%/stacks/e2e/dev.json'"
        ),
        "0"
    );
}

/// Runs `args` with `vars` set, insisting on success.
fn ok_with(env: &Env, vars: &[(&str, &str)], args: &[&str]) {
    let out = env
        .command(args)
        .envs(vars.iter().copied())
        .output()
        .unwrap();
    assert!(out.status.success(), "{args:?}: {}", stderr(&out));
}

#[test]
fn a_stack_pulumi_wrote_gzipped_is_updated_and_written_as_pulumis_gzip_switch_says() {
    let server = server!();
    let (env, db) = pg_env(server, PROGRAM_V2);
    pulumi_table(server, &db);
    let prefix = format!("{db}/.pulumi/");
    put(server, &db, &format!("{prefix}meta.yaml"), "version: 1\n");
    let stack = format!("{prefix}stacks/e2e/dev.json");
    put(
        server,
        &db,
        &format!("{stack}.gz"),
        gzip(&pulumi_checkpoint().to_string()),
    );
    put(
        server,
        &db,
        &format!("{prefix}history/e2e/dev/dev-1714557600123456789.history.json.gz"),
        gzip(
            &json!({"kind": "update", "startTime": 1714557598, "message": "",
                   "environment": {}, "config": {}, "version": 0, "result": "succeeded",
                   "endTime": 1714557600, "resourceChanges": {"create": 3}})
            .to_string(),
        ),
    );
    pulumi_world(&env);
    let ls = env.ok(&["stack", "ls"]);
    assert!(ls.lines().any(|l| l.starts_with("dev")), "{ls}");
    let history: Value =
        serde_json::from_str(&env.ok(&["stack", "history", "--stack", "dev", "--json"])).unwrap();
    assert_eq!(history.as_array().unwrap().len(), 1, "{history}");

    // With Pulumi's switch the stack stays gzipped, and so do its history and backups.
    let gz = [("PULUMI_DIY_BACKEND_GZIP", "true")];
    ok_with(
        &env,
        &gz,
        &["up", "--stack", "dev", "--yes", "--non-interactive"],
    );
    assert_eq!(env.world()["a-pulumi"]["properties"]["v"], 2);
    let after = blob_unzipped(server, &db, &format!("{stack}.gz"));
    assert!(
        after["checkpoint"]["latest"]["resources"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["id"] == "a-pulumi" && r["inputs"] == json!({"v": 2})),
        "{after}"
    );
    let all: Vec<String> = keys(server, &db)
        .iter()
        .map(|k| nanos_as_n(k.strip_prefix(&prefix).unwrap()))
        .collect();
    for want in [
        "stacks/e2e/dev.json.gz",
        "stacks/e2e/dev.json.gz.bak",
        "history/e2e/dev/dev-N.history.json.gz",
        "history/e2e/dev/dev-N.checkpoint.json.gz",
        "backups/e2e/dev/dev.N.json.gz",
    ] {
        assert!(all.iter().any(|k| k == want), "{want} in {all:?}");
    }
    assert!(!all.iter().any(|k| k == "stacks/e2e/dev.json"), "{all:?}");
    let history: Value =
        serde_json::from_str(&env.ok(&["stack", "history", "--stack", "dev", "--json"])).unwrap();
    assert_eq!(history[0]["version"], 2, "{history}");

    // Without it the stack is written plain, the gzipped key kept only as its `.bak`.
    env.ok(&["destroy", "--stack", "dev", "--yes", "--non-interactive"]);
    assert!(env.world().is_empty(), "{:?}", env.world());
    let plain: Value = serde_json::from_str(&blob(server, &db, &stack)).unwrap();
    assert_eq!(plain["checkpoint"]["latest"]["resources"], json!([]));
    let all = keys(server, &db);
    assert!(!all.contains(&format!("{stack}.gz")), "{all:?}");
    assert!(all.contains(&format!("{stack}.gz.bak")), "{all:?}");
}

#[test]
fn pulumis_retain_checkpoints_switch_keeps_every_checkpoint_beside_the_stack_key() {
    let server = server!();
    let (env, db) = pg_env(server, PROGRAM_V2);
    let retain = [("PULUMI_DIY_BACKEND_RETAIN_CHECKPOINTS", "true")];
    ok_with(
        &env,
        &retain,
        &["up", "--stack", "dev", "--yes", "--non-interactive"],
    );
    ok_with(
        &env,
        &retain,
        &["destroy", "--stack", "dev", "--yes", "--non-interactive"],
    );
    let stack = format!("{db}/.pulumi/stacks/e2e/dev.json");
    let kept: Vec<String> = keys(server, &db)
        .into_iter()
        .filter(|k| {
            k.strip_prefix(&format!("{stack}."))
                .is_some_and(|n| n.len() > 9 && n.bytes().all(|b| b.is_ascii_digit()))
        })
        .collect();
    assert!(kept.len() >= 2, "{kept:?}");
    let last: Value = serde_json::from_str(&blob(server, &db, kept.last().unwrap())).unwrap();
    let current: Value = serde_json::from_str(&blob(server, &db, &stack)).unwrap();
    assert_eq!(last["checkpoint"], current["checkpoint"]);
    let first: Value = serde_json::from_str(&blob(server, &db, &kept[0])).unwrap();
    assert_eq!(first["checkpoint"]["stack"], "organization/e2e/dev");
}

#[test]
fn a_postgres_url_without_a_database_takes_libpqs_variables_and_no_key_prefix() {
    let server = server!();
    let (mut env, db) = pg_env(server, PROGRAM_V2);
    env.backend = Some("postgres://".into());
    let port = server.port.to_string();
    let vars = [
        ("PGHOST", "127.0.0.1"),
        ("PGPORT", port.as_str()),
        ("PGUSER", "postgres"),
        ("PGPASSWORD", pg_support::PASSWORD),
        ("PGDATABASE", db.as_str()),
        ("PGSSLMODE", "disable"),
    ];
    ok_with(
        &env,
        &vars,
        &["up", "--stack", "dev", "--yes", "--non-interactive"],
    );
    // Pulumi prefixes keys with the URL's path, which `postgres://` has none of.
    let all = keys(server, &db);
    assert!(all.contains(&".pulumi/meta.yaml".to_string()), "{all:?}");
    let doc: Value =
        serde_json::from_str(&blob(server, &db, ".pulumi/stacks/e2e/dev.json")).unwrap();
    assert_eq!(doc["checkpoint"]["stack"], "organization/e2e/dev");
    ok_with(
        &env,
        &vars,
        &["destroy", "--stack", "dev", "--yes", "--non-interactive"],
    );
    assert!(env.world().is_empty(), "{:?}", env.world());
}
