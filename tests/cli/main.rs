//! The `stepdeck` binary as a user and the Automation API drive it: deployments and their flags, config, secrets, stacks, state commands, plans, approvals, policy packs, limits, and attaching to a served run.

#![allow(clippy::unwrap_used, clippy::panic)]

#[path = "../cli_support/mod.rs"]
mod cli_support;
#[path = "../console_support/mod.rs"]
mod console_support;
#[path = "../json_support/mod.rs"]
mod json_support;
#[path = "../policy_support/mod.rs"]
mod policy_support;

mod attach_e2e;
mod cli_about;
mod cli_approvals;
mod cli_attach_debugger;
mod cli_autonaming;
mod cli_bun;
mod cli_change_secrets;
mod cli_commands;
mod cli_deploy_flags;
mod cli_e2e;
mod cli_history_export;
mod cli_limits;
mod cli_output_json;
mod cli_packages;
mod cli_plans;
mod cli_policy_packs;
mod cli_program_not_run;
mod cli_project_plugins;
mod cli_python_typechecker;
mod cli_secrets;
mod cli_stack_history;
mod cli_stack_rename;
mod cli_stack_show;
mod cli_stack_tags;
mod cli_state;
mod config_paths;
mod sdkgen_nodejs;
mod sdkgen_python;
mod sdkgen_python_parameterized;
