//! What both backends store, encoded and decoded the same way: the checkpoint document
//! (Pulumi's DeploymentV3 in a versioned checkpoint, `checkpoint`; read back, checked and
//! replayed onto, `document`) and journal entries as lines of text (`journal_line` writes
//! them, `journal_reader` reads and replays them), and the engine events kept with each update
//! (`update_events`).

pub mod checkpoint;
pub(crate) mod document;
pub(crate) mod journal_line;
pub(crate) mod journal_reader;
pub mod update_events;
