//! The engine events each update keeps for `stack history --open`, on both backends: kept
//! compressed with the update, read back as written, the oldest dropped once a stack has more
//! than `KEPT_UPDATES` of them, and (on `file://`) carried along by a stack rename.

use stepdeck::state::codec::update_events::{self, KEPT_UPDATES};
use stepdeck::state::{Backend, BackendUrl, PgBackend, StackRef};

use crate::pg_support;
use crate::state_support::{backend, dev};

/// A stream of `n` lines, each naming its update, compressible as real streams are.
fn stream(version: u64, n: usize) -> Vec<u8> {
    (0..n)
        .map(|i| format!("{{\"sequence\":{i},\"timestamp\":{version},\"diagnosticEvent\":{{\"message\":\"update {version}\\n\"}}}}\n"))
        .collect::<String>()
        .into_bytes()
}

/// Records the events of updates 1 to `KEPT_UPDATES + 2` and checks what each backend keeps.
fn keeps_the_last_updates(b: &dyn Backend, stack: &StackRef) {
    let lock = b.lock(stack, "up").unwrap();
    let last = KEPT_UPDATES + 2;
    for version in 1..=last {
        let events = update_events::compress(&stream(version, 200));
        b.record_update_events(&lock, version, &events).unwrap();
    }
    for version in 1..=2 {
        assert_eq!(
            b.update_events(stack, version).unwrap(),
            None,
            "update {version}"
        );
    }
    for version in 3..=last {
        assert_eq!(
            b.update_events(stack, version).unwrap().as_deref(),
            Some(stream(version, 200).as_slice()),
            "update {version}"
        );
    }
    assert_eq!(b.update_events(stack, last + 1).unwrap(), None);
}

#[test]
fn a_file_stack_keeps_the_events_of_its_last_updates_compressed_and_renames_carry_them() {
    let dir = tempfile::tempdir().unwrap();
    let b = backend(dir.path());
    let stack = dev();
    b.create_stack(&stack).unwrap();
    keeps_the_last_updates(&b, &stack);
    let history = dir.path().join(".pulumi/history/proj/dev");
    let kept = std::fs::read_dir(&history).unwrap().count() as u64;
    assert_eq!(kept, KEPT_UPDATES, "one compressed file per kept update");
    let size = std::fs::metadata(history.join("dev-v3.events.json.gz"))
        .unwrap()
        .len();
    assert!(
        (size as usize) < stream(3, 200).len() / 10,
        "{size} bytes for {}",
        stream(3, 200).len()
    );

    let lock = b.lock(&stack, "rename").unwrap();
    let renamed = StackRef::new("proj", "prod").unwrap();
    b.rename_stack(lock, &renamed, None).unwrap();
    assert_eq!(
        b.update_events(&renamed, 3).unwrap().as_deref(),
        Some(stream(3, 200).as_slice())
    );
}

#[test]
fn a_postgres_stack_keeps_the_events_of_its_last_updates() {
    let Some(server) = pg_support::server() else {
        return;
    };
    let (db, url) = server.database();
    let b = PgBackend::open(&BackendUrl::parse(&url).unwrap()).unwrap();
    let stack = StackRef::new("proj", "dev").unwrap();
    b.create_stack(&stack).unwrap();
    // The events ride on the update's history row.
    let lock = b.lock(&stack, "up").unwrap();
    for version in 1..=KEPT_UPDATES + 2 {
        let record = stepdeck::state::UpdateRecord {
            kind: "update".into(),
            start_time: 0,
            message: String::new(),
            environment: Default::default(),
            config: Default::default(),
            result: "succeeded".into(),
            end_time: 0,
            version: 0,
            resource_changes: Default::default(),
        };
        assert_eq!(b.record_update(&lock, record).unwrap().version, version);
    }
    drop(lock);
    keeps_the_last_updates(&b, &stack);
    assert_eq!(
        server.sql(
            &db,
            "SELECT count(*) FROM stepdeck_history WHERE events IS NOT NULL"
        ),
        KEPT_UPDATES.to_string()
    );
}
