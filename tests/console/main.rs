//! The console: its screens rendered from models (insta snapshots), the graph, the console protocol, plans and policy packs in a real terminal (a frame's cost is `benches/scale.rs console-frame`).

#![allow(clippy::unwrap_used, clippy::panic)]

#[path = "../cli_support/mod.rs"]
mod cli_support;
#[path = "../console_support/mod.rs"]
mod console_support;
#[path = "../policy_support/mod.rs"]
mod policy_support;

mod console_clock;
mod console_diffs;
mod console_graph;
mod console_header;
mod console_one_truth;
mod console_operator_keys;
mod console_plans;
mod console_policy_packs;
mod console_protocol;
mod console_replay;
mod console_views;
mod console_walkthrough;
