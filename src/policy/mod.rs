//! Policy packs as a run loads them (Pulumi's `--policy-pack`): each pack's `PulumiPolicy.yaml`,
//! its `--policy-pack-config` file reconciled with the pack's own defaults and checked against
//! its schemas, and the loading itself — start, describe, configure — through `rpc::policy`,
//! handing the engine one `Analyzer` per pack.

pub mod config_file;
pub mod loader;
pub mod pack_file;
pub mod reconcile;
pub mod schema;

pub use loader::{LoadedPacks, PackRequest, PolicyLoadError, load};
