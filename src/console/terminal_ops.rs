//! What a console loop asks of the real terminal beyond drawing (tests pass no-ops).

use ratatui::Terminal;
use ratatui::backend::Backend;

use crate::app::console::ConsoleError;
use crate::app::ui_state::UiState;

/// The terminal's operations a loop calls: taking it back, the mouse, the clipboard.
pub(crate) struct TerminalOps<B: Backend> {
    /// Takes the terminal back after the panic hook restored it.
    pub reclaim: fn(&mut Terminal<B>) -> Result<(), ConsoleError>,
    /// Captures the mouse, or lets the terminal have it (to select text).
    pub set_mouse: fn(&mut Terminal<B>, bool) -> Result<(), ConsoleError>,
    /// Writes an OSC 52 sequence: the terminal puts the text on the clipboard.
    pub copy: fn(&mut Terminal<B>, &str) -> Result<(), ConsoleError>,
}

impl<B: Backend> TerminalOps<B> {
    /// Passes on what the last keys asked of the terminal: the mouse captured or let go (`mouse`
    /// is what the terminal has now), a text for the clipboard.
    pub(crate) fn follow_ui(
        &self,
        terminal: &mut Terminal<B>,
        ui: &mut UiState,
        mouse: &mut bool,
    ) -> Result<(), ConsoleError> {
        if *mouse != ui.mouse_capture {
            *mouse = ui.mouse_capture;
            (self.set_mouse)(terminal, *mouse)?;
        }
        if let Some(text) = ui.clipboard.take() {
            (self.copy)(terminal, &text)?;
        }
        Ok(())
    }
}
