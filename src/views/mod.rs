//! The console's widgets, one per view, pure functions of the model and the UI state.

pub mod chains;
pub mod details;
pub mod dialog;
pub mod diffs;
pub mod frame;
pub mod graph;
pub mod help;
pub mod jump;
pub mod key_hint;
pub mod log;
pub mod pending;
pub mod policies;
pub mod resources;
pub mod screen;
pub mod status_bar;
pub mod summary;
pub mod text;
pub mod theme;
pub mod timeline;

pub use screen::{draw, render_screen};
pub use theme::Theme;
