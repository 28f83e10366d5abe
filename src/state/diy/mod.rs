//! Pulumi's DIY ("self-managed") state layout, as keys relative to the backend's root: a
//! `file://DIR` backend keeps each key as the file `DIR/<key>`, a `postgres://` backend as a
//! row of Pulumi's key/blob table. Both backends write and read the same shapes through this
//! module (the stack file, its history, tags and lock files, `meta.yaml`), so `pulumi` shares
//! their stacks whichever stores them.

pub mod compression;
pub mod lock_file;
pub mod tags_file;
pub mod update_info;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::state::error::StateError;
use crate::state::stack_ref::StackRef;
use crate::state::update_record::UpdateRecord;

/// Where the keys are read from: a directory (`file://DIR`, each key the file `DIR/<key>`) or
/// Pulumi's key/blob table (`postgres://`), so that both backends read them with one code.
pub trait Bucket {
    /// The bytes at `key`, `None` when there is none.
    fn read(&self, key: &str) -> Result<Option<Vec<u8>>, StateError>;

    /// The keys directly under `dir` (a key ending in `/`) whose names end with `suffix`, with
    /// their bytes, in key order.
    fn read_dir(&self, dir: &str, suffix: &str) -> Result<Vec<(String, Vec<u8>)>, StateError>;

    /// Where `key` is, named in errors.
    fn location(&self, key: &str) -> PathBuf;
}

/// The tags the user set on `stack`.
pub fn user_tags(
    b: &impl Bucket,
    stack: &StackRef,
) -> Result<BTreeMap<String, String>, StateError> {
    let key = tags_key(stack);
    match b.read(&key)? {
        Some(bytes) => tags_file::decode(&b.location(&key), &bytes),
        None => Ok(BTreeMap::new()),
    }
}

/// The stack's updates, newest first: stepdeck's and those `pulumi` recorded.
pub fn history(b: &impl Bucket, stack: &StackRef) -> Result<Vec<UpdateRecord>, StateError> {
    let dir = history_dir(stack);
    let mut files = Vec::new();
    for suffix in [update_info::SUFFIX, HISTORY_GZ_SUFFIX] {
        for (key, bytes) in b.read_dir(&dir, suffix)? {
            let Some(nanos) = key.strip_prefix(&dir).and_then(history_nanos) else {
                continue;
            };
            let location = b.location(&key);
            let bytes = compression::decode(&location, bytes)?;
            files.push((nanos, location, bytes));
        }
    }
    update_info::records(files)
}

/// The suffix of a history file `pulumi` wrote gzipped (`PULUMI_DIY_BACKEND_GZIP`).
const HISTORY_GZ_SUFFIX: &str = ".history.json.gz";

/// Pulumi's bookkeeping directory, the first part of every key.
pub const PULUMI_DIR: &str = ".pulumi";
/// The key of the layout's version.
pub const META_KEY: &str = ".pulumi/meta.yaml";
/// What `meta.yaml` holds in the layout we write (yaml.v3's rendering of Pulumi's `pulumiMeta`).
pub const META_TEXT: &str = "version: 1\n";
/// The layout version we read and write: project-scoped stacks.
const META_VERSION: i64 = 1;

/// `.pulumi/stacks/<project>/`: one `<stack>.json` per stack.
pub fn stacks_dir(project: &str) -> String {
    format!("{PULUMI_DIR}/stacks/{project}/")
}

/// `.pulumi/stacks/<project>/<stack>.json`: the stack file, Pulumi's checkpoint.
pub fn stack_key(stack: &StackRef) -> String {
    format!("{}{}.json", stacks_dir(stack.project()), stack.stack())
}

/// The stack file's keys Pulumi reads, the newest of them: `<stack>.json`, `.json.gz` and
/// `.json.zst`, in Pulumi's order.
pub fn stack_keys(stack: &StackRef) -> [String; 3] {
    compression::STACK_EXTS.map(|ext| format!("{}{ext}", stack_key(stack)))
}

/// Where the stack file of the next write goes: `<stack>.json`, with the suffix of the
/// compression Pulumi's switches choose.
pub fn stack_key_to_write(stack: &StackRef) -> Result<String, StateError> {
    Ok(format!(
        "{}{}",
        stack_key(stack),
        compression::Compression::from_env()?.ext()
    ))
}

/// A history file of `record`, named `<base>.history.json` (`.gz` when compressed), and its bytes.
pub fn history_file(base: &str, record: &UpdateRecord) -> Result<(String, Vec<u8>), StateError> {
    let compression = compression::Compression::from_env()?;
    Ok((
        format!("{base}{}{}", update_info::SUFFIX, compression.ext()),
        compression.encode(update_info::encode(record)),
    ))
}

/// With `PULUMI_DIY_BACKEND_RETAIN_CHECKPOINTS` (or `PULUMI_RETAIN_CHECKPOINTS`), the key
/// every checkpoint written to `key` is also kept at, as Pulumi keeps them: `<key>.<nanos>`.
pub fn retained_key(key: &str) -> Option<String> {
    pulumi_flag(&[
        "PULUMI_DIY_BACKEND_RETAIN_CHECKPOINTS",
        "PULUMI_RETAIN_CHECKPOINTS",
    ])
    .then(|| {
        let nanos = chrono::Utc::now().timestamp_nanos_opt().unwrap_or_default();
        format!("{key}.{nanos}")
    })
}

/// `.pulumi/stacks/<project>/<stack>.pulumi-tags`: the user's tags.
pub fn tags_key(stack: &StackRef) -> String {
    format!(
        "{}{}.pulumi-tags",
        stacks_dir(stack.project()),
        stack.stack()
    )
}

/// `.pulumi/history/<project>/<stack>/`: `<stack>-<nanos>.history.json` per update and the
/// `<stack>-<nanos>.checkpoint.json` it left.
pub fn history_dir(stack: &StackRef) -> String {
    format!(
        "{PULUMI_DIR}/history/{}/{}/",
        stack.project(),
        stack.stack()
    )
}

/// `.pulumi/backups/<project>/<stack>/`: `<stack>.<nanos>.json`, the stack file after each update.
pub fn backups_dir(stack: &StackRef) -> String {
    format!(
        "{PULUMI_DIR}/backups/{}/{}/",
        stack.project(),
        stack.stack()
    )
}

/// `.pulumi/locks/organization/<project>/<stack>/`: Pulumi's lock files, `<id>.json`.
pub fn lock_dir(stack: &StackRef) -> String {
    format!(
        "{PULUMI_DIR}/locks/organization/{}/{}/",
        stack.project(),
        stack.stack()
    )
}

/// Whether a Pulumi boolean environment variable (or its older name) is set true, as Pulumi
/// reads one: `1` or `true` in any case.
pub fn pulumi_flag(names: &[&str]) -> bool {
    names
        .iter()
        .any(|n| std::env::var(n).is_ok_and(|v| v == "1" || v.eq_ignore_ascii_case("true")))
}

/// Whether checkpoint backups (`backups/…`) are written: unless Pulumi's switch turns them off.
pub fn backups_enabled() -> bool {
    !pulumi_flag(&[
        "PULUMI_DIY_BACKEND_DISABLE_CHECKPOINT_BACKUPS",
        "PULUMI_DISABLE_CHECKPOINT_BACKUPS",
    ])
}

/// Checks a `meta.yaml` (read from `path`): version 1, the layout we read and write.
pub fn check_meta(path: &Path, bytes: &[u8]) -> Result<(), StateError> {
    #[derive(serde::Deserialize)]
    struct Meta {
        version: Option<i64>,
    }
    let bad = |message: String| StateError::Corrupt {
        path: path.to_path_buf(),
        line: None,
        message,
    };
    let text = std::str::from_utf8(bytes).map_err(|e| bad(e.to_string()))?;
    let meta: Meta = serde_saphyr::from_str(text).map_err(|e| bad(e.to_string()))?;
    match meta.version {
        Some(META_VERSION) => Ok(()),
        None => Err(bad("missing version".into())),
        Some(v) => Err(bad(format!(
            "layout version {v} is not supported: stepdeck reads version {META_VERSION} \
             (stacks scoped by project)"
        ))),
    }
}

/// The refusal of a stack of Pulumi's legacy layout (stacks not scoped by project).
pub fn legacy_layout(path: &Path) -> StateError {
    StateError::Corrupt {
        path: path.to_path_buf(),
        line: None,
        message: "a stack of Pulumi's legacy layout (stacks not scoped by project, no \
                  meta.yaml), which stepdeck does not read: run `pulumi state upgrade` to \
                  move it to the project-scoped layout"
            .into(),
    }
}

/// The nanoseconds a history file's name carries (`<stack>-<nanos>.history.json`), `None`
/// for any other file of the history directory.
pub fn history_nanos(name: &str) -> Option<i128> {
    name.strip_suffix(update_info::SUFFIX)
        .or_else(|| name.strip_suffix(HISTORY_GZ_SUFFIX))
        .and_then(|n| n.rsplit_once('-'))
        .and_then(|(_, n)| n.parse::<i128>().ok())
}
