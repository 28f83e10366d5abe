//! Pulumi's DIY key/blob table (`pkg/backend/diy/postgres`): `(key TEXT PRIMARY KEY, data JSON,
//! updated_at)`, one row per file of the DIY layout, its bytes base64-encoded in
//! `{"data": "…"}`. Pulumi prefixes every key with the URL's path (the database name and a
//! `/`), as it prefixes keys in any bucket.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use futures::{Stream, StreamExt};
use tokio_postgres::types::ToSql;
use tokio_postgres::{GenericClient, Row};

use super::db::describe;

/// The end of a stack file's key: `.json`, `.json.gz` or `.json.zst` (`diy::stack_keys`).
const STACK_FILE: &str = r"\.json(\.gz|\.zst)?$";

/// Pulumi's `schema.sql`, `{table}` its name: created when missing, by either program.
const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS {table} (
    key TEXT PRIMARY KEY,
    data JSON NOT NULL,
    updated_at TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS {table}_key_prefix_idx ON {table} (key text_pattern_ops);";

/// One backend's view of the table: its name and the prefix of its keys.
#[derive(Clone, Debug)]
pub(crate) struct Bucket {
    pub(crate) table: String,
    pub(crate) prefix: String,
}

impl Bucket {
    /// The SQL that creates the table as Pulumi does.
    pub(crate) fn schema(&self) -> String {
        SCHEMA.replace("{table}", &self.table)
    }

    fn full(&self, key: &str) -> String {
        format!("{}{key}", self.prefix)
    }

    /// The blob at `key`, if there is one.
    pub(crate) async fn get(
        &self,
        c: &impl GenericClient,
        key: &str,
    ) -> Result<Option<Vec<u8>>, String> {
        let t = &self.table;
        let row = c
            .query_opt(
                &format!("SELECT data->>'data' FROM {t} WHERE key = $1"),
                &[&self.full(key)],
            )
            .await
            .map_err(|e| describe(&e))?;
        row.map(|r| decode(key, r.get::<_, Option<&str>>(0)))
            .transpose()
    }

    /// Which of `keys` was written last (a tie going to the later key, as Pulumi's listing
    /// decides it), if any is there.
    pub(crate) async fn newest(
        &self,
        c: &impl GenericClient,
        keys: &[String],
    ) -> Result<Option<String>, String> {
        let t = &self.table;
        let full: Vec<String> = keys.iter().map(|k| self.full(k)).collect();
        let row = c
            .query_opt(
                &format!(
                    "SELECT key FROM {t} WHERE key = ANY($1) \
                     ORDER BY updated_at DESC, key DESC LIMIT 1"
                ),
                &[&full],
            )
            .await
            .map_err(|e| describe(&e))?;
        Ok(row.map(|r| self.relative(r.get(0))))
    }

    /// The blobs whose keys start with `prefix`, by key (relative, as given), in key order.
    pub(crate) async fn get_under(
        &self,
        c: &impl GenericClient,
        prefix: &str,
    ) -> Result<Vec<(String, Vec<u8>)>, String> {
        let t = &self.table;
        let rows = c
            .query(
                &format!("SELECT key, data->>'data' FROM {t} WHERE key LIKE $1 ORDER BY key"),
                &[&like_prefix(&self.full(prefix))],
            )
            .await
            .map_err(|e| describe(&e))?;
        self.blobs(&rows)
    }

    /// The blobs directly under `dir` (a key ending in `/`) whose names end with `suffix`, by
    /// key (relative), in key order.
    pub(crate) async fn get_dir(
        &self,
        c: &impl GenericClient,
        dir: &str,
        suffix: &str,
    ) -> Result<Vec<(String, Vec<u8>)>, String> {
        let t = &self.table;
        let dir = escape(&self.full(dir));
        let rows = c
            .query(
                &format!(
                    "SELECT key, data->>'data' FROM {t} \
                     WHERE key LIKE $1 AND key NOT LIKE $2 AND key LIKE $3 ORDER BY key"
                ),
                &[
                    &format!("{dir}%"),
                    &format!("{dir}%/%"),
                    &format!("%{}", escape(suffix)),
                ],
            )
            .await
            .map_err(|e| describe(&e))?;
        self.blobs(&rows)
    }

    /// The stack files directly under `dir` (a project's folder), the newest of each stack's
    /// variants as [`Bucket::newest`] picks it, streamed in key order; a stack with only a
    /// `.zst` file is not among them, as it is not in Pulumi's listing.
    pub(crate) async fn newest_stack_files<'a>(
        &'a self,
        c: &'a impl GenericClient,
        dir: &str,
    ) -> Result<impl Stream<Item = Result<(String, Vec<u8>), String>> + 'a, String> {
        let t = &self.table;
        let dir = escape(&self.full(dir));
        let (under, deeper) = (format!("{dir}%"), format!("{dir}%/%"));
        let params: [&(dyn ToSql + Sync); 3] = [&under, &deeper, &STACK_FILE];
        let rows = c
            .query_raw(
                &format!(
                    "SELECT key, data->>'data' FROM (
                        SELECT key, data,
                               row_number() OVER (PARTITION BY stem
                                   ORDER BY updated_at DESC, key DESC) AS nth,
                               bool_or(key NOT LIKE '%.zst') OVER (PARTITION BY stem) AS listed
                        FROM (SELECT key, data, updated_at, regexp_replace(key, $3, '') AS stem
                              FROM {t} WHERE key LIKE $1 AND key NOT LIKE $2 AND key ~ $3) AS files
                     ) AS newest WHERE nth = 1 AND listed ORDER BY key"
                ),
                params,
            )
            .await
            .map_err(|e| describe(&e))?;
        Ok(rows.map(move |row| {
            let row = row.map_err(|e| describe(&e))?;
            let key = self.relative(row.get(0));
            let bytes = decode(&key, row.get::<_, Option<&str>>(1))?;
            Ok((key, bytes))
        }))
    }

    /// Rows of `(key, data->>'data')` as relative keys and their decoded blobs.
    fn blobs(&self, rows: &[Row]) -> Result<Vec<(String, Vec<u8>)>, String> {
        rows.iter()
            .map(|r| {
                let key = self.relative(r.get(0));
                let bytes = decode(&key, r.get::<_, Option<&str>>(1))?;
                Ok((key, bytes))
            })
            .collect()
    }

    /// The keys that start with `prefix` (relative, as given), in key order.
    pub(crate) async fn list(
        &self,
        c: &impl GenericClient,
        prefix: &str,
    ) -> Result<Vec<String>, String> {
        let t = &self.table;
        let rows = c
            .query(
                &format!("SELECT key FROM {t} WHERE key LIKE $1 ORDER BY key"),
                &[&like_prefix(&self.full(prefix))],
            )
            .await
            .map_err(|e| describe(&e))?;
        Ok(rows.iter().map(|r| self.relative(r.get(0))).collect())
    }

    fn relative(&self, key: &str) -> String {
        key.strip_prefix(&self.prefix).unwrap_or(key).to_string()
    }

    /// Writes `bytes` at `key`, replacing what is there (Pulumi's upsert).
    pub(crate) async fn put(
        &self,
        c: &impl GenericClient,
        key: &str,
        bytes: &[u8],
    ) -> Result<(), String> {
        let t = &self.table;
        c.execute(
            &format!(
                "INSERT INTO {t} (key, data) VALUES ($1, $2::text::json) \
                 ON CONFLICT (key) DO UPDATE SET data = EXCLUDED.data, updated_at = now()"
            ),
            &[&self.full(key), &encode(bytes)],
        )
        .await
        .map_err(|e| describe(&e))
        .map(drop)
    }

    /// Writes `bytes` at `key` unless something is there; whether it wrote.
    pub(crate) async fn put_new(
        &self,
        c: &impl GenericClient,
        key: &str,
        bytes: &[u8],
    ) -> Result<bool, String> {
        let t = &self.table;
        c.execute(
            &format!(
                "INSERT INTO {t} (key, data) VALUES ($1, $2::text::json) ON CONFLICT (key) DO NOTHING"
            ),
            &[&self.full(key), &encode(bytes)],
        )
        .await
        .map_err(|e| describe(&e))
        .map(|n| n == 1)
    }

    /// Copies the blob at `from` to `to` (replacing it) when there is one (Pulumi's `Copy`).
    pub(crate) async fn copy(
        &self,
        c: &impl GenericClient,
        from: &str,
        to: &str,
    ) -> Result<(), String> {
        let t = &self.table;
        c.execute(
            &format!(
                "INSERT INTO {t} (key, data) SELECT $2, data FROM {t} WHERE key = $1 \
                 ON CONFLICT (key) DO UPDATE SET data = EXCLUDED.data, updated_at = now()"
            ),
            &[&self.full(from), &self.full(to)],
        )
        .await
        .map_err(|e| describe(&e))
        .map(drop)
    }

    /// Removes the blob at `key`, if any.
    pub(crate) async fn delete(&self, c: &impl GenericClient, key: &str) -> Result<(), String> {
        let t = &self.table;
        c.execute(
            &format!("DELETE FROM {t} WHERE key = $1"),
            &[&self.full(key)],
        )
        .await
        .map_err(|e| describe(&e))
        .map(drop)
    }

    /// Removes every blob whose key starts with `prefix`.
    pub(crate) async fn delete_under(
        &self,
        c: &impl GenericClient,
        prefix: &str,
    ) -> Result<(), String> {
        let t = &self.table;
        c.execute(
            &format!("DELETE FROM {t} WHERE key LIKE $1"),
            &[&like_prefix(&self.full(prefix))],
        )
        .await
        .map_err(|e| describe(&e))
        .map(drop)
    }
}

/// `{"data": "<base64>"}`, as Pulumi's writer stores a blob.
fn encode(bytes: &[u8]) -> String {
    serde_json::json!({ "data": STANDARD.encode(bytes) }).to_string()
}

fn decode(key: &str, data: Option<&str>) -> Result<Vec<u8>, String> {
    let data = data.ok_or_else(|| format!("key {key}: no \"data\" in its JSON"))?;
    STANDARD
        .decode(data)
        .map_err(|e| format!("key {key}: its \"data\" is not base64: {e}"))
}

/// A `LIKE` pattern matching the keys that start with `prefix`.
fn like_prefix(prefix: &str) -> String {
    format!("{}%", escape(prefix))
}

/// `text` as a `LIKE` pattern matching itself (its `%`, `_` and `\` literal).
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if matches!(c, '%' | '_' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}
