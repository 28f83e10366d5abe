//! The resource model and its Pulumi encodings: URNs and URN globs, property values and paths,
//! resource states and goals, snapshots and their integrity rules, the dependency graph,
//! assets, and the time recorded on resources.

pub mod asset;
pub mod clock;
pub mod glob;
pub mod goal;
pub mod graph;
pub mod hidden_diffs;
pub(super) mod hook_binding;
pub mod property;
pub mod property_path;
pub mod provider_ref;
pub mod resource;
pub mod shared_map;
pub mod snapshot;
pub(super) mod snapshot_repair;
pub mod sorted_map;
pub mod targets;
pub mod urn;
