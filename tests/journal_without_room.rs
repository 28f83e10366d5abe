//! The file journal writes zeros megabytes ahead of its lines to make their syncs shorter.
//! Where a file may not grow that far, the lines must still be recorded: this test caps the
//! size of every file the process writes (`RLIMIT_FSIZE`, so it is a binary of its own).

#![allow(clippy::unwrap_used)]

mod state_support;

use state_support::{begun, dev, journal_create, res};

/// Far less than the zeros a journal writes ahead, far more than the lines below take.
const FILE_LIMIT: u64 = 1 << 20;

#[test]
fn a_journal_without_room_for_its_zeros_ahead_records_its_lines_all_the_same() {
    // Past the limit a write fails with EFBIG, instead of the signal killing the process.
    // SAFETY: ignoring a signal and lowering a limit of this single-test process.
    unsafe {
        libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
        let limit = libc::rlimit {
            rlim_cur: FILE_LIMIT,
            rlim_max: FILE_LIMIT,
        };
        assert_eq!(libc::setrlimit(libc::RLIMIT_FSIZE, &limit), 0);
    }
    let dir = tempfile::tempdir().unwrap();
    let (b, lock, mgr, path) = begun(dir.path());
    let names: Vec<String> = (0..500).map(|i| format!("r{i}")).collect();
    for name in &names {
        journal_create(&mgr, res(name, &[]));
    }
    let written = std::fs::metadata(&path).unwrap().len();
    assert!(
        written < FILE_LIMIT,
        "{written} bytes: the journal holds its lines and no zeros"
    );

    // What a kill would leave now loads every resource.
    let loaded = b.load(&dev(), None).unwrap();
    let urns: Vec<&str> = loaded
        .snapshot
        .resources
        .iter()
        .map(|r| r.urn.name())
        .collect();
    assert_eq!(urns, names);
    drop(mgr);
    b.finish_deployment(&lock, None).unwrap();
    assert_eq!(b.load(&dev(), None).unwrap().snapshot.resources.len(), 500);
}
