//! The tables of the PostgreSQL backend and their versioned migrations. `<prefix>_schema`
//! holds the version; a database of a newer version is refused, an older one migrated in one
//! transaction under an advisory lock, which then reads the version afresh (two first users do
//! not both create the tables). Version 4 moved each stack's checkpoint, tags and history
//! records into Pulumi's table (`bucket`), where `pulumi` reads them, and dropped their copies.

use tokio_postgres::{Client, Transaction};

use crate::state::diy::{self, tags_file, update_info};
use crate::state::stack_ref::StackRef;
use crate::state::update_record::UpdateRecord;

use super::bucket::Bucket;
use super::db::describe;

/// The schema version this build writes.
pub(crate) const SCHEMA_VERSION: i32 = 4;

/// Migration `n` (1-based) takes the schema from version `n - 1` to `n`; `{t}` is the prefix.
const MIGRATIONS: &[&str] = &[
    "
CREATE TABLE {t}_stacks (
    project text NOT NULL, stack text NOT NULL,
    epoch bigint NOT NULL, checkpoint text NOT NULL,
    resource_count bigint NOT NULL, last_update text,
    tags text NOT NULL DEFAULT '{}',
    PRIMARY KEY (project, stack));
-- A checkpoint is rewritten whole and read whole: kept uncompressed, pglz costs more than it saves.
ALTER TABLE {t}_stacks ALTER COLUMN checkpoint SET STORAGE EXTERNAL;
CREATE TABLE {t}_journal (
    project text NOT NULL, stack text NOT NULL, epoch bigint NOT NULL, seq bigint NOT NULL,
    entry text NOT NULL,
    PRIMARY KEY (project, stack, epoch, seq));
CREATE TABLE {t}_locks (
    project text NOT NULL, stack text NOT NULL, id text NOT NULL,
    pid bigint NOT NULL, host text NOT NULL, username text NOT NULL, operation text NOT NULL,
    acquired text NOT NULL, expires timestamptz NOT NULL,
    PRIMARY KEY (project, stack));
CREATE TABLE {t}_history (
    project text NOT NULL, stack text NOT NULL, version bigint NOT NULL, record text NOT NULL,
    PRIMARY KEY (project, stack, version));
CREATE TABLE {t}_current (project text PRIMARY KEY, stack text NOT NULL);
",
    "
-- Locks' fencing tokens: a generation from a sequence, never given out twice (see `lease`).
ALTER TABLE {t}_locks ADD COLUMN generation bigint NOT NULL DEFAULT 0;
CREATE SEQUENCE {t}_lock_generation;
",
    "
-- Each update's engine events, gzip-compressed (`codec::update_events`), for `stack history --open`.
ALTER TABLE {t}_history ADD COLUMN events bytea;
",
    // Runs after `to_pulumi_keys`: the state now lives in Pulumi's table; `{t}_history` keeps
    // only each update's events.
    "
DROP TABLE {t}_stacks;
ALTER TABLE {t}_history DROP COLUMN record;
",
];

/// The migration before whose SQL [`to_pulumi_keys`] runs.
const PULUMI_KEYS_MIGRATION: usize = 3;

/// Brings the tables of prefix `t` to [`SCHEMA_VERSION`] and Pulumi's table `bucket` into
/// being, or says why it cannot.
pub(crate) async fn migrate(client: &mut Client, t: &str, bucket: &Bucket) -> Result<(), String> {
    if let Some(version) = recorded_version(client, t).await?
        && version == SCHEMA_VERSION
    {
        return Ok(());
    }
    let tx = client.transaction().await.map_err(|e| describe(&e))?;
    tx.execute("SELECT pg_advisory_xact_lock(hashtext($1))", &[&t])
        .await
        .map_err(|e| describe(&e))?;
    let from = match recorded_version(&tx, t).await? {
        Some(v) if v > SCHEMA_VERSION => {
            return Err(format!(
                "table {t}_schema records schema version {v}, but this stepdeck knows versions up \
                 to {SCHEMA_VERSION}: use a newer stepdeck, or another table prefix (?table=…)"
            ));
        }
        Some(v) => v,
        None => {
            tx.batch_execute(&format!(
                "CREATE TABLE {t}_schema (version integer NOT NULL); INSERT INTO {t}_schema VALUES (0);"
            ))
            .await
            .map_err(|e| format!("creating table {t}_schema: {}", describe(&e)))?;
            0
        }
    };
    for (i, sql) in MIGRATIONS.iter().enumerate().skip(from as usize) {
        if i == PULUMI_KEYS_MIGRATION {
            tx.batch_execute(&bucket.schema())
                .await
                .map_err(|e| format!("creating table {}: {}", bucket.table, describe(&e)))?;
            to_pulumi_keys(&tx, t, bucket)
                .await
                .map_err(|e| format!("migrating {t} to schema version {}: {e}", i + 1))?;
        }
        tx.batch_execute(&sql.replace("{t}", t))
            .await
            .map_err(|e| {
                format!(
                    "migrating {t} to schema version {}: {}",
                    i + 1,
                    describe(&e)
                )
            })?;
    }
    tx.execute(
        &format!("UPDATE {t}_schema SET version = $1"),
        &[&SCHEMA_VERSION],
    )
    .await
    .map_err(|e| describe(&e))?;
    tx.commit().await.map_err(|e| describe(&e))
}

/// The version in `<t>_schema`, `None` when the table does not exist.
async fn recorded_version(
    client: &impl tokio_postgres::GenericClient,
    t: &str,
) -> Result<Option<i32>, String> {
    // Read from the catalog under this statement's snapshot, not through a name lookup
    // (`to_regclass`): the lookup keeps a session's earlier "no such table" until the session
    // starts a transaction or locks a table, so a first user that waited on the advisory lock
    // while another created the tables would still find none, and create them again.
    let exists: bool = client
        .query_one(
            "SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_class c \
             JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace \
             WHERE n.nspname = current_schema() AND c.relname = $1)",
            &[&format!("{t}_schema")],
        )
        .await
        .map_err(|e| describe(&e))?
        .get(0);
    if !exists {
        return Ok(None);
    }
    let rows = client
        .query(&format!("SELECT version FROM {t}_schema"), &[])
        .await
        .map_err(|e| format!("table {t}_schema is not stepdeck's: {}", describe(&e)))?;
    match rows.as_slice() {
        [row] => {
            Ok(Some(row.try_get(0).map_err(|e| {
                format!("table {t}_schema is not stepdeck's: {e}")
            })?))
        }
        _ => Err(format!(
            "table {t}_schema has {} rows, expected one: it is not stepdeck's or was edited by hand",
            rows.len()
        )),
    }
}

/// Writes each stack of `<t>_stacks` to Pulumi's keys: its checkpoint (the same document as the
/// stack file), its tags and its update records, each history file named by the update's end
/// time (and version, so that they sort as they ran).
async fn to_pulumi_keys(tx: &Transaction<'_>, t: &str, bucket: &Bucket) -> Result<(), String> {
    let stacks = tx
        .query(
            &format!("SELECT project, stack, checkpoint, tags FROM {t}_stacks"),
            &[],
        )
        .await
        .map_err(|e| describe(&e))?;
    for row in stacks {
        let (project, name): (String, String) = (row.get(0), row.get(1));
        let stack = StackRef::new(&project, &name)
            .map_err(|e| format!("{t}_stacks {project}/{name}: {e}"))?;
        let checkpoint: &str = row.get(2);
        bucket
            .put(tx, &diy::stack_key(&stack), checkpoint.as_bytes())
            .await?;
        let tags: std::collections::BTreeMap<String, String> = serde_json::from_str(row.get(3))
            .map_err(|e| format!("{t}_stacks {stack} tags: {e}"))?;
        if !tags.is_empty() {
            bucket
                .put(tx, &diy::tags_key(&stack), &tags_file::encode(&tags))
                .await?;
        }
        let history = tx
            .query(
                &format!(
                    "SELECT version, record FROM {t}_history WHERE project = $1 AND stack = $2"
                ),
                &[&project, &name],
            )
            .await
            .map_err(|e| describe(&e))?;
        for row in history {
            let version: i64 = row.get(0);
            let record: UpdateRecord = serde_json::from_str(row.get(1))
                .map_err(|e| format!("{t}_history {stack} version {version}: {e}"))?;
            let nanos = i128::from(record.end_time) * 1_000_000_000 + i128::from(version);
            let key = format!(
                "{}{}-{nanos}{}",
                diy::history_dir(&stack),
                stack.stack(),
                update_info::SUFFIX
            );
            bucket.put(tx, &key, &update_info::encode(&record)).await?;
        }
    }
    Ok(())
}
