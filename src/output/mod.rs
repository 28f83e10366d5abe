//! Non-interactive outputs built on the engine's event stream: plain progress lines in Pulumi's
//! wording, Pulumi's preview digest and engine-event JSON, and the destinations they are
//! written to, whose failed writes are kept and reported (`checked_output`).

pub mod checked_output;
pub mod digest;
mod event_fields;
pub mod event_log_export;
pub mod event_log_reader;
pub mod event_stream;
pub mod import_file;
pub mod json;
pub mod plain;
pub mod policies;
pub mod property_diff;
mod replay_detail;
pub mod summary;
pub mod value_text;
pub mod visibility;
