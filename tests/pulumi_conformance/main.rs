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
mod local_components;
mod program_test;

mod about;
mod aliases;
mod autonaming;
mod bun;
mod call_component_failures;
mod cancel;
mod component_providers;
mod config;
mod config_capture;
mod config_flags;
mod construct_component_error_apply;
mod construct_component_failures;
mod construct_component_methods;
mod construct_component_methods_errors;
mod construct_component_methods_provider;
mod construct_component_methods_resources;
mod construct_component_methods_unknown;
mod construct_component_output_values;
mod construct_component_plain;
mod construct_component_provider;
mod construct_component_provider_explicit;
mod construct_component_provider_propagation;
mod construct_component_slow;
mod construct_component_unknown;
mod debugger;
mod deleted_with;
mod dynamic;
mod dynamic_nodejs;
mod enums;
mod exclude_protected;
mod gather_plugin;
mod get_created;
mod get_resource;
mod graph;
mod hide_diffs;
mod hooks;
mod lifecycle;
mod new_templates;
mod node_programs;
mod nodejs_entry_points;
mod nodejs_exits;
mod nodejs_failures;
mod nodejs_package_add;
mod nodejs_registry_programs;
mod nodejs_sdk_component_providers;
mod nodejs_workspaces;
mod outputs;
mod packages;
mod parameterized_packages;
mod policy_packs;
mod program_error;
mod program_output;
mod property_names;
mod providers;
mod pulumi_yaml;
mod py_await;
mod python;
mod python_component_providers;
mod python_dynamic_provider;
mod python_event_loop;
mod python_generated_sdks;
mod python_toolchains;
mod python_typecheckers;
mod python_types;
mod python_venvs;
mod read_import;
mod remote_components;
mod resource_hooks;
mod resource_refs;
mod rotate_passphrase;
mod sdk;
mod single_resource;
mod stash;
mod state_rename_parent;
mod steps;
mod transforms;
mod unsafe_snapshot;
