//! The simulated cloud's persisted world: every live `sim` resource by ID, in a JSON file that
//! is rewritten atomically after each change so that anyone can check nothing leaked or was lost.

use std::collections::BTreeMap;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use serde::{Deserialize, Serialize};

use crate::engine::property::PropertyMap;

/// One live resource of the simulated cloud.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WorldResource {
    #[serde(rename = "type")]
    pub type_: String,
    /// The resource's name in the program (the URN's name).
    pub name: String,
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

/// Reads a world file; a missing file is an empty world.
pub fn load_world_file(path: &Path) -> Result<WorldResources, SimWorldError> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(WorldResources::new()),
        Err(source) => {
            return Err(SimWorldError::Read {
                path: path.to_path_buf(),
                source,
            });
        }
    };
    if text.trim().is_empty() {
        return Ok(WorldResources::new());
    }
    serde_json::from_str::<WorldFile>(&text)
        .map(|f| f.resources)
        .map_err(|e| SimWorldError::Parse {
            path: path.to_path_buf(),
            line: e.line(),
            column: e.column(),
            message: e.to_string(),
        })
}

/// Writes the world to a temporary file beside the target, syncs it and renames it over the
/// target, so that a reader (or a crash) only ever sees a whole world.
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
    let tmp = path.with_file_name(format!(".{file_name}.{}.tmp", std::process::id()));
    let mut f = std::fs::File::create(&tmp).map_err(err)?;
    f.write_all(&json).map_err(err)?;
    f.sync_all().map_err(err)?;
    drop(f);
    std::fs::rename(&tmp, path).map_err(err)
}

struct Loaded {
    resources: WorldResources,
    stamp: FileStamp,
}

/// The world shared by every `sim` provider instance of a process: an in-memory copy guarded
/// by one lock, so concurrent steps serialise their writes and never lose each other's changes.
pub struct SimWorld {
    path: PathBuf,
    state: tokio::sync::Mutex<Loaded>,
}

impl SimWorld {
    /// Loads the world from `path` (missing means empty).
    pub fn open(path: PathBuf) -> Result<SimWorld, SimWorldError> {
        let resources = load_world_file(&path)?;
        let stamp = stamp(&path);
        Ok(SimWorld {
            path,
            state: tokio::sync::Mutex::new(Loaded { resources, stamp }),
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

    /// Applies a change to a copy, persists it, and only then makes it current.
    async fn commit(
        &self,
        guard: &mut Loaded,
        resources: WorldResources,
    ) -> Result<(), SimWorldError> {
        let path = self.path.clone();
        let (resources, written) = tokio::task::spawn_blocking(move || {
            let r = write_world_file(&path, &resources);
            (resources, r)
        })
        .await
        .map_err(|e| SimWorldError::Write {
            path: self.path.clone(),
            source: std::io::Error::other(e),
        })?;
        written?;
        guard.resources = resources;
        guard.stamp = stamp(&self.path);
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
        let mut next = guard.resources.clone();
        next.insert(id.clone(), resource);
        self.commit(&mut guard, next).await?;
        Ok(id)
    }

    /// Replaces a resource's properties; `false` if there is no such resource.
    pub async fn set_properties(
        &self,
        id: &str,
        properties: PropertyMap,
    ) -> Result<bool, SimWorldError> {
        let mut guard = self.lock().await?;
        if !guard.resources.contains_key(id) {
            return Ok(false);
        }
        let mut next = guard.resources.clone();
        if let Some(r) = next.get_mut(id) {
            r.properties = properties;
        }
        self.commit(&mut guard, next).await?;
        Ok(true)
    }

    /// Removes a resource; `None` if there was none.
    pub async fn remove(&self, id: &str) -> Result<Option<WorldResource>, SimWorldError> {
        let mut guard = self.lock().await?;
        let mut next = guard.resources.clone();
        let Some(removed) = next.remove(id) else {
            return Ok(None);
        };
        self.commit(&mut guard, next).await?;
        Ok(Some(removed))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::property::props;
    use std::sync::Arc;

    fn res(name: &str) -> WorldResource {
        WorldResource {
            type_: "sim:index:Resource".into(),
            name: name.into(),
            properties: props([("k", "v")]),
        }
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

    #[test]
    fn bad_world_file_names_file_and_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("w.json");
        std::fs::write(&path, "{\n  \"resources\": [1,\n").unwrap();
        let e = SimWorld::open(path.clone()).err().unwrap().to_string();
        assert!(e.contains("w.json") && e.contains("line 2"), "{e}");
    }
}
