//! Policy packs over gRPC (Pulumi's `pulumirpc.Analyzer`): how a pack's process is started as
//! Pulumi's language hosts start it (`launch`), its start-up up to the port it prints
//! (`process`), and the client that puts the running pack behind the engine's `Analyzer`
//! (`client`).

pub mod client;
pub mod info;
pub mod launch;
pub mod process;
