//! What the file-backend tests share: a backend in a temporary directory, a stack, resources,
//! and a deployment killed before it finished.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

use stepdeck::engine::journal::{SnapshotManager, SuccessEntry};
use stepdeck::engine::model::resource::OperationType;
use stepdeck::engine::{PropertyMap, PropertyValue, ResourceState, Urn};
use stepdeck::state::{Backend, BackendUrl, FileBackend, StackLock, StackRef};

pub(crate) fn backend(dir: &Path) -> FileBackend {
    let url = BackendUrl::parse(&format!("file://{}", dir.display())).unwrap();
    FileBackend::open(&url).unwrap()
}

pub(crate) fn dev() -> StackRef {
    StackRef::new("proj", "dev").unwrap()
}

pub(crate) fn res(name: &str, deps: &[&ResourceState]) -> ResourceState {
    let mut inputs = PropertyMap::new();
    inputs.insert("size".into(), PropertyValue::Number(3.0));
    ResourceState {
        urn: Urn::new("dev", "proj", None, "sim:index:Resource", name),
        custom: true,
        id: Some(format!("id-{name}")),
        type_: "sim:index:Resource".into(),
        outputs: inputs.clone(),
        inputs,
        dependencies: deps.iter().map(|d| d.urn.clone()).collect(),
        ..Default::default()
    }
}

/// A new `dev` stack with a deployment begun: the backend, its lock, the run's snapshot
/// manager over the journal, and the journal's path.
pub(crate) fn begun(dir: &Path) -> (FileBackend, StackLock, SnapshotManager, PathBuf) {
    let b = backend(dir);
    b.create_stack(&dev()).unwrap();
    let lock = b.lock(&dev(), "up").unwrap();
    let (base, journal) = b.begin_deployment(&lock, None).unwrap();
    let path = journal.path().to_path_buf();
    let mgr = SnapshotManager::new(&base, Box::new(journal));
    (b, lock, mgr, path)
}

/// Runs a deployment that creates `x` and `y` and stops before it is finished (its journal
/// is not compacted); returns the journal's path.
pub(crate) fn journaled(b: &FileBackend, lock: &StackLock) -> PathBuf {
    let (base, journal) = b.begin_deployment(lock, None).unwrap();
    let path = journal.path().to_path_buf();
    let mgr = SnapshotManager::new(&base, Box::new(journal));
    for name in ["x", "y"] {
        journal_create(&mgr, res(name, &[]));
    }
    path
}

/// Journals the creation of `r` (its begin, then its success).
pub(crate) fn journal_create(mgr: &SnapshotManager, r: ResourceState) {
    let op = mgr.begin(OperationType::Creating, &r).unwrap();
    mgr.success(SuccessEntry {
        op: Some(op),
        new: Some(r),
        ..Default::default()
    })
    .unwrap();
}

/// A new `dev` stack whose first deployment was killed after journaling `x` and `y`:
/// the backend and the journal's path.
pub(crate) fn killed_first_deployment(dir: &Path) -> (FileBackend, PathBuf) {
    let b = backend(dir);
    b.create_stack(&dev()).unwrap();
    let lock = b.lock(&dev(), "up").unwrap();
    let journal = journaled(&b, &lock);
    (b, journal)
}
