//! Replaying a finished run: its recorded events on a timeline the operator scrubs (`timeline`),
//! the keys that move it (`keys`), and the steering that acts on nothing (`read_only`).

pub mod keys;
pub mod read_only;
pub mod timeline;

pub use keys::{ReplayKey, map_replay_key};
pub use read_only::ReadOnly;
pub use timeline::{Speed, Timeline};
