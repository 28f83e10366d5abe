//! The simulated cloud's persisted world: every live `sim` resource by ID, in a JSON file that
//! anyone can read to check that nothing leaked or was lost. A small world is rewritten
//! atomically after each change; a large one appends each change to a log beside it
//! (`<file>.log`, one JSON line per change) and folds the log into the file once the log holds
//! as many changes as the world has resources, and when the world is dropped, so a change
//! costs the same whatever the world's size.

use std::collections::BTreeMap;
use std::fs::{File, OpenOptions};
use std::io::Write as _;
use std::os::unix::fs::OpenOptionsExt as _;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use serde::{Deserialize, Serialize};

use crate::engine::PropertyMap;

/// One live resource of the simulated cloud.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WorldResource {
    #[serde(rename = "type")]
    pub type_: String,
    /// The resource's name in the program (the URN's name).
    pub name: String,
    /// The URN that created it, so that a create whose ID was never recorded can be found.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub urn: Option<String>,
    pub properties: PropertyMap,
}

/// Every live resource by ID.
pub type WorldResources = BTreeMap<String, WorldResource>;

#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct WorldFile {
    #[serde(default)]
    resources: WorldResources,
}

/// One change in the world's log.
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
enum Change {
    Put { id: String, resource: WorldResource },
    Delete { id: String },
}

/// Worlds with fewer resources than this are rewritten whole on every change (what a person
/// or a test reads is then always the file alone); larger ones log their changes.
const LOG_FROM: usize = 64;

/// Why the world file could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum SimWorldError {
    #[error("cannot read the sim world {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("the sim world {path} is invalid at line {line}, column {column}: {message}")]
    Parse {
        path: PathBuf,
        line: usize,
        column: usize,
        message: String,
    },
    #[error("cannot write the sim world {path}: {source}")]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// Modification time and size of the file as we last wrote or read it, so that an edit made by
/// someone else (a drift in a test, a person) is noticed and reloaded.
type FileStamp = Option<(SystemTime, u64)>;

fn stamp(path: &Path) -> FileStamp {
    let meta = std::fs::metadata(path).ok()?;
    Some((meta.modified().ok()?, meta.len()))
}

/// The change log beside a world file.
pub fn world_log_path(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(".log");
    path.with_file_name(name)
}

/// Reads a world file and applies its change log, if any; a missing file is an empty world.
pub fn load_world_file(path: &Path) -> Result<WorldResources, SimWorldError> {
    let read_err = |path: &Path| {
        let path = path.to_path_buf();
        move |source| SimWorldError::Read { path, source }
    };
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(source) => return Err(read_err(path)(source)),
    };
    let mut resources = if text.trim().is_empty() {
        WorldResources::new()
    } else {
        serde_json::from_str::<WorldFile>(&text)
            .map(|f| f.resources)
            .map_err(|e| SimWorldError::Parse {
                path: path.to_path_buf(),
                line: e.line(),
                column: e.column(),
                message: e.to_string(),
            })?
    };
    let log = world_log_path(path);
    let text = match std::fs::read_to_string(&log) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(source) => return Err(read_err(&log)(source)),
    };
    // A last line without its newline is a write cut short by a kill: ignored.
    let complete = text.rfind('\n').map_or("", |i| &text[..=i]);
    for (i, line) in complete.lines().enumerate() {
        let change: Change = serde_json::from_str(line).map_err(|e| SimWorldError::Parse {
            path: log.clone(),
            line: i + 1,
            column: e.column(),
            message: e.to_string(),
        })?;
        match change {
            Change::Put { id, resource } => {
                resources.insert(id, resource);
            }
            Change::Delete { id } => {
                resources.remove(&id);
            }
        }
    }
    Ok(resources)
}

/// Writes the world to a temporary file beside the target, syncs it and renames it over the
/// target, so that a reader (or a crash) only ever sees a whole world; then drops the log the
/// file now includes.
fn write_world_file(path: &Path, resources: &WorldResources) -> Result<(), SimWorldError> {
    let err = |source| SimWorldError::Write {
        path: path.to_path_buf(),
        source,
    };
    #[derive(Serialize)]
    struct Out<'a> {
        resources: &'a WorldResources,
    }
    let mut json =
        serde_json::to_vec_pretty(&Out { resources }).map_err(|e| err(std::io::Error::other(e)))?;
    json.push(b'\n');
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(err)?;
    }
    let file_name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "world.json".to_string());
    // A fresh name created exclusively, without following a symlink: a file or link planted
    // at a guessable name is never written through.
    let tmp = path.with_file_name(format!(
        ".{file_name}.{}.tmp",
        uuid::Uuid::new_v4().simple()
    ));
    let written = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .custom_flags(libc::O_NOFOLLOW)
        .open(&tmp)
        .and_then(|mut f| {
            f.write_all(&json)?;
            f.sync_all()
        })
        .and_then(|()| std::fs::rename(&tmp, path));
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written.map_err(err)?;
    match std::fs::remove_file(world_log_path(path)) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(err(e)),
        _ => Ok(()),
    }
}

struct Loaded {
    resources: WorldResources,
    stamp: FileStamp,
    /// The open change log and the changes it holds, while the world is large.
    log: Option<File>,
    logged: usize,
}

impl Loaded {
    fn apply(&mut self, change: Change) {
        match change {
            Change::Put { id, resource } => {
                self.resources.insert(id, resource);
            }
            Change::Delete { id } => {
                self.resources.remove(&id);
            }
        }
    }
}

/// The world shared by every `sim` provider instance of a process: an in-memory copy guarded
/// by one lock, so concurrent steps serialise their writes and never lose each other's changes.
pub struct SimWorld {
    path: PathBuf,
    /// The size from which changes are logged ([`LOG_FROM`] but in tests).
    log_from: usize,
    state: tokio::sync::Mutex<Loaded>,
}

impl SimWorld {
    /// Loads the world from `path` (missing means empty).
    pub fn open(path: PathBuf) -> Result<SimWorld, SimWorldError> {
        Self::open_logging_from(path, LOG_FROM)
    }

    fn open_logging_from(path: PathBuf, log_from: usize) -> Result<SimWorld, SimWorldError> {
        let resources = load_world_file(&path)?;
        let stamp = stamp(&path);
        Ok(SimWorld {
            path,
            log_from,
            state: tokio::sync::Mutex::new(Loaded {
                resources,
                stamp,
                log: None,
                logged: 0,
            }),
        })
    }

    /// The world file, for messages and for checks after a deployment.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Locks the world, first reloading it if the file changed behind our back.
    async fn lock(&self) -> Result<tokio::sync::MutexGuard<'_, Loaded>, SimWorldError> {
        let mut guard = self.state.lock().await;
        let now = stamp(&self.path);
        if now != guard.stamp {
            guard.resources = load_world_file(&self.path)?;
            guard.stamp = now;
        }
        Ok(guard)
    }

    /// Persists a change, and only then makes it current: appended to the log while the world
    /// is large, else (or when the log has grown as large as the world) the whole file.
    async fn commit(&self, guard: &mut Loaded, change: Change) -> Result<(), SimWorldError> {
        let size = guard.resources.len();
        if size >= self.log_from && guard.logged < size {
            self.append(guard, change)?;
            crate::fault::reached(crate::fault::FaultPoint::AfterProviderWrite);
            return Ok(());
        }
        guard.apply(change);
        guard.log = None;
        guard.logged = 0;
        let path = self.path.clone();
        let resources = std::mem::take(&mut guard.resources);
        let (resources, written) = tokio::task::spawn_blocking(move || {
            let r = write_world_file(&path, &resources);
            (resources, r)
        })
        .await
        .map_err(|e| SimWorldError::Write {
            path: self.path.clone(),
            source: std::io::Error::other(e),
        })?;
        guard.resources = resources;
        written?;
        guard.stamp = stamp(&self.path);
        crate::fault::reached(crate::fault::FaultPoint::AfterProviderWrite);
        Ok(())
    }

    /// Appends one change to the log with a single `write`, so a kill leaves at most a torn
    /// last line; the log is synced when it is folded into the file.
    fn append(&self, guard: &mut Loaded, change: Change) -> Result<(), SimWorldError> {
        let log_path = world_log_path(&self.path);
        let err = |source| SimWorldError::Write {
            path: log_path.clone(),
            source,
        };
        if guard.log.is_none() {
            let file = OpenOptions::new()
                .create(true)
                .append(true)
                .open(&log_path)
                .map_err(err)?;
            guard.log = Some(file);
        }
        let mut line = serde_json::to_vec(&change).map_err(|e| err(std::io::Error::other(e)))?;
        line.push(b'\n');
        guard
            .log
            .as_mut()
            .expect("log opened above")
            .write_all(&line)
            .map_err(err)?;
        guard.logged += 1;
        guard.apply(change);
        Ok(())
    }

    /// One live resource by ID, as the world has it now (drift included).
    pub async fn get(&self, id: &str) -> Result<Option<WorldResource>, SimWorldError> {
        Ok(self.lock().await?.resources.get(id).cloned())
    }

    /// Every live resource, as of now.
    pub async fn resources(&self) -> Result<WorldResources, SimWorldError> {
        Ok(self.lock().await?.resources.clone())
    }

    /// Adds a resource under the first ID from `make_id` that is not taken; returns the ID.
    pub async fn insert_new(
        &self,
        mut make_id: impl FnMut() -> String,
        resource: WorldResource,
    ) -> Result<String, SimWorldError> {
        let mut guard = self.lock().await?;
        let mut id = make_id();
        while guard.resources.contains_key(&id) {
            id = make_id();
        }
        let change = Change::Put {
            id: id.clone(),
            resource,
        };
        self.commit(&mut guard, change).await?;
        Ok(id)
    }

    /// Replaces a resource's properties; `false` if there is no such resource.
    pub async fn set_properties(
        &self,
        id: &str,
        properties: PropertyMap,
    ) -> Result<bool, SimWorldError> {
        let mut guard = self.lock().await?;
        let Some(current) = guard.resources.get(id) else {
            return Ok(false);
        };
        let resource = WorldResource {
            properties,
            ..current.clone()
        };
        let change = Change::Put {
            id: id.to_string(),
            resource,
        };
        self.commit(&mut guard, change).await?;
        Ok(true)
    }

    /// Removes a resource; `None` if there was none.
    pub async fn remove(&self, id: &str) -> Result<Option<WorldResource>, SimWorldError> {
        let mut guard = self.lock().await?;
        let Some(removed) = guard.resources.get(id).cloned() else {
            return Ok(None);
        };
        let change = Change::Delete { id: id.to_string() };
        self.commit(&mut guard, change).await?;
        Ok(Some(removed))
    }
}

impl Drop for SimWorld {
    /// Folds a pending log into the file, so that the world file alone is whole again.
    fn drop(&mut self) {
        let st = self.state.get_mut();
        if st.log.take().is_some() {
            let _ = write_world_file(&self.path, &st.resources);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::model::property::props;
    use std::sync::Arc;

    fn res(name: &str) -> WorldResource {
        WorldResource {
            type_: "sim:index:Resource".into(),
            name: name.into(),
            urn: None,
            properties: props([("k", "v")]),
        }
    }

    #[test]
    fn a_planted_temporary_symlink_is_not_written_through() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("world.json");
        let victim = dir.path().join("victim");
        std::fs::write(&victim, "precious").unwrap();
        // The names this process's temporaries once had.
        for name in [
            ".world.json.tmp".to_string(),
            format!(".world.json.{}.tmp", std::process::id()),
        ] {
            std::os::unix::fs::symlink(&victim, dir.path().join(name)).unwrap();
        }
        let mut resources = WorldResources::new();
        resources.insert("id-1".into(), res("a"));
        write_world_file(&path, &resources).unwrap();
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
        assert_eq!(load_world_file(&path).unwrap().len(), 1);
    }

    #[tokio::test]
    async fn concurrent_inserts_are_all_persisted() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("nested/world.json");
        let world = Arc::new(SimWorld::open(path.clone()).unwrap());
        let mut tasks = Vec::new();
        for i in 0..20 {
            let w = world.clone();
            tasks.push(tokio::spawn(async move {
                w.insert_new(|| format!("id-{i}"), res(&format!("r{i}")))
                    .await
                    .unwrap()
            }));
        }
        for t in tasks {
            t.await.unwrap();
        }
        let on_disk = load_world_file(&path).unwrap();
        assert_eq!(on_disk.len(), 20);
        assert_eq!(on_disk["id-7"].name, "r7");
        let names: Vec<_> = std::fs::read_dir(path.parent().unwrap())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names.len(), 1, "temporary files left behind: {names:?}");
    }

    #[tokio::test]
    async fn external_edits_are_reloaded_and_ids_stay_unique() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("world.json");
        let world = SimWorld::open(path.clone()).unwrap();
        world.insert_new(|| "a".into(), res("one")).await.unwrap();
        let mut n = 0;
        let id = world
            .insert_new(
                || {
                    n += 1;
                    if n == 1 { "a".into() } else { "b".into() }
                },
                res("two"),
            )
            .await
            .unwrap();
        assert_eq!(id, "b");
        std::fs::write(&path, r#"{"resources": {}}"#).unwrap();
        assert_eq!(world.get("a").await.unwrap(), None);
        assert_eq!(world.remove("a").await.unwrap(), None);
    }

    #[tokio::test]
    async fn a_large_world_logs_changes_and_folds_them_in() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("world.json");
        let log = world_log_path(&path);
        let world = SimWorld::open_logging_from(path.clone(), 4).unwrap();
        for i in 0..6 {
            world
                .insert_new(|| format!("id-{i}"), res(&format!("r{i}")))
                .await
                .unwrap();
        }
        assert!(log.exists(), "changes beyond 4 resources go to the log");
        assert_eq!(load_world_file(&path).unwrap().len(), 6);
        world.remove("id-0").await.unwrap();
        world
            .set_properties("id-5", props([("k", "w")]))
            .await
            .unwrap();
        let seen = load_world_file(&path).unwrap();
        assert_eq!(seen.len(), 5);
        assert_eq!(seen["id-5"].properties, props([("k", "w")]));
        world.remove("id-1").await.unwrap();
        // The log holds as many changes as the world has resources: the next one folds it in.
        world.insert_new(|| "id-6".into(), res("r6")).await.unwrap();
        assert!(!log.exists());
        world.remove("id-2").await.unwrap();
        assert!(log.exists());
        // A torn last line (a kill mid-write) is ignored.
        std::fs::OpenOptions::new()
            .append(true)
            .open(&log)
            .unwrap()
            .write_all(b"{\"delete\":{\"id\":\"id-3")
            .unwrap();
        assert_eq!(load_world_file(&path).unwrap().len(), 4);
        drop(world);
        assert!(!log.exists());
        let text = std::fs::read_to_string(&path).unwrap();
        let whole: WorldFile = serde_json::from_str(&text).unwrap();
        assert_eq!(whole.resources.len(), 4);
        assert!(!whole.resources.contains_key("id-2"));
    }

    #[test]
    fn bad_world_file_names_file_and_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("w.json");
        std::fs::write(&path, "{\n  \"resources\": [1,\n").unwrap();
        let e = SimWorld::open(path.clone()).err().unwrap().to_string();
        assert!(e.contains("w.json") && e.contains("line 2"), "{e}");
    }
}
