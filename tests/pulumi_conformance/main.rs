//! Pulumi's integration tests, as scenarios of our own: each case is a program directory (with
//! edit steps) under `tests/pulumi_conformance/programs/`, driven through the real binary and
//! the real SDKs the way Pulumi's Go `ProgramTest` drives its programs, and asserting what the
//! corresponding Pulumi test asserts (the mapping is in `tests/pulumi_conformance/README.md`).
//! Cases are separate tests, so the harness runs them in parallel threads.

#![allow(clippy::unwrap_used, clippy::panic)]

#[path = "../cli_support/mod.rs"]
mod cli_support;

mod harness;
mod integrity;
mod program_test;

mod aliases;
mod component_providers;
mod config;
mod deleted_with;
mod enums;
mod get_created;
mod graph;
mod hide_diffs;
mod hooks;
mod lifecycle;
mod outputs;
mod parameterized_packages;
mod program_error;
mod program_output;
mod property_names;
mod providers;
mod pulumi_yaml;
mod py_await;
mod python_types;
mod read_import;
mod remote_components;
mod sdk;
mod stash;
mod steps;
mod transforms;
