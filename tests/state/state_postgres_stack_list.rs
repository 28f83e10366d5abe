//! `stack ls` on `postgres://` reads a project of many stacks in as many statements as a
//! project of one: the statements are counted in the server's own log.

use crate::pg_support;
use std::path::Path;

use stepdeck::state::{Backend, BackendUrl, PgBackend, StackRef};

/// Pulumi's table and the prefix of stepdeck's in this test's database: the log's statements
/// that name it are this test's.
const TABLE: &str = "lsqueries";

/// The statements the server logged after the first `from` bytes of its log that name
/// [`TABLE`]: an entry is a line and the tab-indented lines continuing it.
fn statements_after(log: &Path, from: usize) -> usize {
    let text = std::fs::read_to_string(log).unwrap();
    let mut entries: Vec<String> = Vec::new();
    for line in text[from..].lines() {
        match entries.last_mut() {
            Some(entry) if line.starts_with('\t') => entry.push_str(line),
            _ => entries.push(line.to_string()),
        }
    }
    entries
        .iter()
        .filter(|e| e.contains("LOG:  statement: ") || e.contains("LOG:  execute "))
        .filter(|e| e.contains(TABLE))
        .count()
}

#[test]
fn listing_twenty_stacks_runs_as_many_statements_as_listing_one() {
    let Some(server) = pg_support::server() else {
        return;
    };
    let (db, url) = server.database();
    server.sql(
        "postgres",
        &format!("ALTER DATABASE {db} SET log_statement = 'all'"),
    );
    let b = PgBackend::open(&BackendUrl::parse(&format!("{url}&table={TABLE}")).unwrap()).unwrap();
    let one = StackRef::new("one", "dev").unwrap();
    b.create_stack(&one).unwrap();
    for n in 0..20 {
        b.create_stack(&StackRef::new("many", &format!("s{n:02}")).unwrap())
            .unwrap();
    }
    // A lock (another host's, so no lease renewal runs meanwhile) and a selected stack are
    // read too.
    server.sql(
        &db,
        &format!(
            "INSERT INTO {TABLE}_locks (project, stack, id, pid, host, username, operation, \
               acquired, expires, generation) \
             VALUES ('many', 's07', 'elsewhere', 1, 'other-host', 'ops', 'up', \
               '2026-01-01T00:00:00Z', now() + interval '1 hour', 5)"
        ),
    );
    b.select_stack(&StackRef::new("many", "s03").unwrap())
        .unwrap();

    let log = server.log();
    let count = |project: &str| {
        let from = std::fs::metadata(log).unwrap().len() as usize;
        let listed = b.list_stacks(project).unwrap();
        (listed, statements_after(log, from))
    };
    let (ones, for_one) = count("one");
    let (many, for_many) = count("many");

    assert_eq!(ones.len(), 1);
    assert_eq!(many.len(), 20);
    let s03 = &many[3];
    let s07 = &many[7];
    assert!(s03.current && !many.iter().any(|s| s.current && s.name != "s03"));
    assert_eq!(s07.lock.as_ref().map(|l| l.id.as_str()), Some("elsewhere"));
    assert!(for_one > 0, "no statement of the listing was logged");
    assert_eq!(
        for_many, for_one,
        "listing 20 stacks ran {for_many} statements, listing 1 ran {for_one}"
    );
}
