//! The operator's console: a model reduced from engine events, the operator's UI state, a pure
//! key map, and an update step that acts through `Steering` (the deployment's `Control`, here
//! or remote). The terminal and its event loop are `console`'s.

pub mod console;
pub mod filter;
pub mod graph_lanes;
pub mod graph_layout;
pub mod jump;
pub mod key_help;
pub mod keymap;
pub mod log_search;
pub mod model;
pub mod paged;
pub mod preset;
pub mod replay;
#[cfg(any(test, feature = "testing"))]
pub mod sample;
pub mod selection;
pub mod sort;
pub mod steering;
pub mod tree_index;
pub mod ui_state;
pub mod update;

pub use console::{ConsoleError, ConsoleExit, ConsoleMode, Title};
pub use steering::Steering;
