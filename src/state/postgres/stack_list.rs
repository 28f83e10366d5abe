//! `stack ls` on `postgres://`: a project's stacks and their summaries read in one read-only
//! transaction of three statements (the selected stack, the locks, the newest stack files),
//! however many stacks there are.

use std::collections::HashMap;

use futures::StreamExt;
use serde_json::Value;

use super::super::backend::StackSummary;
use super::super::codec::document::corrupt;
use super::super::diy::{self, compression};
use super::super::error::StateError;
use super::super::lock_info::LockInfo;
use super::super::stack_ref::StackRef;
use super::PgBackend;
use super::db::{describe, read_only};
use super::lease::{COLUMNS, lock_from_row};

impl PgBackend {
    /// The summaries of `project`'s stacks, by name.
    pub(super) fn stack_summaries(&self, project: &str) -> Result<Vec<StackSummary>, StateError> {
        let t = &self.t;
        let dir = diy::stacks_dir(project);
        let listed = self.run(async {
            let mut conn = self.db.get().await?;
            let tx = read_only(&mut conn).await?;
            let current: Option<String> = tx
                .query_opt(
                    &format!("SELECT stack FROM {t}_current WHERE project = $1"),
                    &[&project],
                )
                .await
                .map_err(|e| describe(&e))?
                .map(|r| r.get(0));
            let mut locks: HashMap<String, LockInfo> = tx
                .query(
                    &format!("SELECT {COLUMNS}, stack FROM {t}_locks WHERE project = $1"),
                    &[&project],
                )
                .await
                .map_err(|e| describe(&e))?
                .iter()
                .map(|r| (r.get(9), lock_from_row(r).0))
                .collect();
            // Each stack file is summarised as it arrives: one document in memory at a time.
            let mut out = Vec::new();
            {
                let mut files = std::pin::pin!(self.bucket.newest_stack_files(&tx, &dir).await?);
                while let Some(file) = files.next().await {
                    let (key, bytes) = file?;
                    let Some(name) = stack_name(project, &dir, &key) else {
                        continue;
                    };
                    let latest = match self.latest_deployment(&key, bytes) {
                        Ok(latest) => latest,
                        Err(e) => return Ok(Err(e)),
                    };
                    let lock = locks.remove(&name);
                    let current = current.as_deref() == Some(name.as_str());
                    out.push(StackSummary::of(name, current, latest.as_ref(), lock));
                }
            }
            tx.commit().await.map_err(|e| describe(&e))?;
            Ok(Ok(out))
        })?;
        let mut out = listed?;
        out.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(out)
    }

    /// The `latest` deployment of the stack file read from `key`.
    fn latest_deployment(&self, key: &str, bytes: Vec<u8>) -> Result<Option<Value>, StateError> {
        let bytes = self.decode_stack_file(key, bytes)?;
        let mut doc: Value = serde_json::from_slice(&bytes)
            .map_err(|e| corrupt(&self.key_location(key), e.to_string()))?;
        Ok(doc.pointer_mut("/checkpoint/latest").map(Value::take))
    }
}

/// The name of the stack whose file is `key` (under `dir`), if it names one.
fn stack_name(project: &str, dir: &str, key: &str) -> Option<String> {
    let file = key.strip_prefix(dir)?;
    let file = [compression::GZIP_EXT, compression::ZSTD_EXT]
        .iter()
        .find_map(|ext| file.strip_suffix(ext))
        .unwrap_or(file);
    let name = file.strip_suffix(".json")?;
    StackRef::new(project, name).ok()?;
    Some(name.to_string())
}
