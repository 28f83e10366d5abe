//! State on both backends: the file and PostgreSQL backends, their locks under races, refusals of damaged state, and crash consistency under forced kills.

#![allow(clippy::unwrap_used, clippy::panic)]

#[path = "../cli_support/mod.rs"]
mod cli_support;
#[path = "../crash_support/mod.rs"]
mod crash_support;
#[path = "../lock_support/mod.rs"]
mod lock_support;
#[path = "../pg_support/mod.rs"]
mod pg_support;
#[path = "../state_support/mod.rs"]
mod state_support;
#[path = "../support/mod.rs"]
mod support;

mod crash_engine;
mod crash_sweep;
mod crash_windows;
mod state_backend;
mod state_diy_layout;
mod state_postgres;
mod state_postgres_pulumi;
mod state_postgres_stack_list;
mod state_races;
mod state_refusals;
mod state_update_events;
