//! The engine as a library: Pulumi's lifecycle scenarios with scripted fake providers, operations, options, targets, plans, approvals, hooks and the operator's controls; YAML programs; the JSON displays; decoders under fuzzing; and the module graph's rules.

#![allow(clippy::unwrap_used, clippy::panic)]

#[path = "../cli_support/mod.rs"]
mod cli_support;
#[path = "../json_support/mod.rs"]
mod json_support;
#[path = "../support/mod.rs"]
mod support;

mod engine_approval;
mod engine_autonaming;
mod engine_conformance;
mod engine_hooks;
mod engine_operations;
mod engine_operator;
mod engine_options;
mod engine_plans;
mod engine_providers;
mod engine_sharing;
mod engine_targets;
mod fuzz_decoders;
mod json_digest;
mod json_events;
mod module_graph;
mod yaml_programs;
