//! Where the file backend keeps what: Pulumi's DIY ("self-managed") project-scoped layout under
//! `DIR/.pulumi`, so that `pulumi` and stepdeck share stacks, and stepdeck's own bookkeeping
//! (journals, lease lock files, the selected stack) under `DIR/.pulumi/.stepdeck`, where Pulumi
//! never looks. `meta.yaml` says which layout a `.pulumi` directory uses; we read and write
//! version 1 (stacks under their project) only.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use crate::state::diy;
use crate::state::error::StateError;
use crate::state::stack_ref::StackRef;

use super::FileBackend;
use super::atomic::write_atomic;

/// Our bookkeeping inside Pulumi's (`DIR/.pulumi`).
pub(super) const OURS: &str = ".stepdeck";
/// The extension of a stack file (Pulumi's JSON marshaler).
pub(super) const STACK_EXT: &str = ".json";
/// The extension of a gzip-compressed stack file, after [`STACK_EXT`].
pub(super) const GZ_EXT: &str = ".gz";

impl FileBackend {
    /// The file of a DIY key (`diy`): `DIR/<key>`.
    pub(super) fn at(&self, key: &str) -> PathBuf {
        let dir = self.root.parent().unwrap_or(Path::new("/"));
        dir.join(key.trim_end_matches('/'))
    }

    /// `DIR/.pulumi/stacks`: one directory per project, one `<stack>.json` per stack.
    pub(super) fn stacks_root(&self) -> PathBuf {
        self.root.join("stacks")
    }

    /// `DIR/.pulumi/.stepdeck`: what only stepdeck reads.
    pub(super) fn ours(&self) -> PathBuf {
        self.root.join(OURS)
    }

    /// The directory of stepdeck's bookkeeping for one stack: its journals, the lock files of
    /// its lease, and the write guard (`flock` on the directory).
    pub fn stack_dir(&self, stack: &StackRef) -> PathBuf {
        self.ours()
            .join("stacks")
            .join(stack.project())
            .join(stack.stack())
    }

    /// The stack's checkpoint, Pulumi's stack file: `DIR/.pulumi/stacks/<project>/<stack>.json`,
    /// or `<stack>.json.gz` when that is there and not older (the one Pulumi reads: the newest).
    pub fn checkpoint_path(&self, stack: &StackRef) -> PathBuf {
        let plain = self.plain_checkpoint_path(stack);
        let mut gz = plain.clone().into_os_string();
        gz.push(GZ_EXT);
        let gz = PathBuf::from(gz);
        let modified = |p: &Path| fs::metadata(p).and_then(|m| m.modified()).ok();
        match (modified(&gz), modified(&plain)) {
            (Some(g), Some(p)) if g >= p => gz,
            (Some(_), None) => gz,
            _ => plain,
        }
    }

    /// `DIR/.pulumi/stacks/<project>/<stack>.json`.
    fn plain_checkpoint_path(&self, stack: &StackRef) -> PathBuf {
        self.at(&diy::stack_key(stack))
    }

    /// The previous checkpoint, kept as Pulumi keeps it: `<stack>.json.bak`.
    pub fn backup_path(&self, stack: &StackRef) -> PathBuf {
        let mut name = self.checkpoint_path(stack).into_os_string();
        name.push(".bak");
        PathBuf::from(name)
    }

    /// `DIR/.pulumi/history/<project>/<stack>`: one file per update and a copy of the
    /// checkpoint it left.
    pub fn history_dir(&self, stack: &StackRef) -> PathBuf {
        self.at(&diy::history_dir(stack))
    }

    /// `DIR/.pulumi/backups/<project>/<stack>`: the checkpoint after each update.
    pub(super) fn backups_dir(&self, stack: &StackRef) -> PathBuf {
        self.at(&diy::backups_dir(stack))
    }

    /// `DIR/.pulumi/locks/organization/<project>/<stack>`: Pulumi's lock files, any of which
    /// means the stack is being updated.
    pub fn pulumi_lock_dir(&self, stack: &StackRef) -> PathBuf {
        self.at(&diy::lock_dir(stack))
    }

    /// The stack file of a zstd-compressed stack (`.json.zst`), which we do not read.
    pub(super) fn compressed_path(&self, stack: &StackRef) -> Option<PathBuf> {
        [".zst"].into_iter().find_map(|ext| {
            let mut name = self.plain_checkpoint_path(stack).into_os_string();
            name.push(ext);
            let path = PathBuf::from(name);
            path.exists().then_some(path)
        })
    }
}

/// The backend's directory as the bucket of the DIY keys, each the file `DIR/<key>`.
impl diy::Bucket for FileBackend {
    fn read(&self, key: &str) -> Result<Option<Vec<u8>>, StateError> {
        let path = self.at(key);
        match fs::read(&path) {
            Ok(bytes) => Ok(Some(bytes)),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(StateError::io(&path)(e)),
        }
    }

    fn read_dir(&self, dir: &str, suffix: &str) -> Result<Vec<(String, Vec<u8>)>, StateError> {
        let path = self.at(dir);
        let entries = match fs::read_dir(&path) {
            Ok(e) => e,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(StateError::io(&path)(e)),
        };
        let mut out = Vec::new();
        for entry in entries {
            let entry = entry.map_err(StateError::io(&path))?;
            let Some(name) = entry.file_name().to_str().map(str::to_string) else {
                continue;
            };
            if !name.ends_with(suffix) || entry.path().is_dir() {
                continue;
            }
            let file = entry.path();
            let bytes = fs::read(&file).map_err(StateError::io(&file))?;
            out.push((format!("{dir}{name}"), bytes));
        }
        out.sort();
        Ok(out)
    }

    fn location(&self, key: &str) -> PathBuf {
        self.at(key)
    }
}

/// Checks `DIR/.pulumi/meta.yaml`, writing it (`version: 1`) when it is missing and the
/// directory holds no stacks of Pulumi's older layout (`stacks/<stack>.json`, no project).
pub(super) fn ensure_meta(root: &Path) -> Result<(), StateError> {
    let path = root.join("meta.yaml");
    match fs::read(&path) {
        Ok(bytes) => return diy::check_meta(&path, &bytes),
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => return Err(StateError::io(&path)(e)),
    }
    let stacks = root.join("stacks");
    let legacy = match fs::read_dir(&stacks) {
        Ok(entries) => entries.flatten().find(|e| {
            let name = e.file_name();
            let name = name.to_string_lossy();
            e.path().is_file()
                && !name.starts_with('.')
                && [".json", ".json.gz", ".json.zst", ".yaml", ".yml"]
                    .iter()
                    .any(|x| name.ends_with(x))
        }),
        Err(e) if e.kind() == io::ErrorKind::NotFound => None,
        Err(e) => return Err(StateError::io(&stacks)(e)),
    };
    if let Some(entry) = legacy {
        return Err(diy::legacy_layout(&entry.path()));
    }
    fs::create_dir_all(root).map_err(StateError::io(root))?;
    write_atomic(&path, diy::META_TEXT.as_bytes()).map_err(StateError::io(&path))
}
