//! What a console loop asks of the real terminal beyond drawing (tests pass no-ops).

use ratatui::Terminal;
use ratatui::backend::Backend;

use crate::app::console::ConsoleError;

/// The terminal's operations a loop calls: taking it back, the mouse, the clipboard.
pub(crate) struct TerminalOps<B: Backend> {
    /// Takes the terminal back after the panic hook restored it.
    pub reclaim: fn(&mut Terminal<B>) -> Result<(), ConsoleError>,
    /// Captures the mouse, or lets the terminal have it (to select text).
    pub set_mouse: fn(&mut Terminal<B>, bool) -> Result<(), ConsoleError>,
    /// Writes an OSC 52 sequence: the terminal puts the text on the clipboard.
    pub copy: fn(&mut Terminal<B>, &str) -> Result<(), ConsoleError>,
}
