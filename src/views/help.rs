//! The help overlay (`?`): every key and what it does, from the key map's own table.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph, Widget, Wrap};

use crate::app::keymap::BINDINGS;

use super::text::pad;
use super::theme::Theme;

/// The help overlay.
pub struct HelpView {
    pub theme: Theme,
    /// Rows scrolled past (↑↓ when the terminal is shorter than the list).
    pub scroll: usize,
}

impl Widget for HelpView {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let t = self.theme;
        Clear.render(area, buf);
        let key_w = BINDINGS
            .iter()
            .map(|(k, _)| k.chars().count())
            .max()
            .unwrap_or(8)
            + 2;
        let lines: Vec<Line> = BINDINGS
            .iter()
            .map(|(k, what)| {
                Line::from(vec![
                    Span::styled(pad(k, key_w), t.accent()),
                    Span::raw(*what),
                ])
            })
            .collect();
        let block = Block::default()
            .borders(Borders::ALL)
            .border_style(t.accent())
            .title(Span::styled(" Keys ", t.accent()))
            .title_bottom(Span::styled(" ↑↓ scroll · Esc or ? closes ", t.dim()));
        Paragraph::new(lines)
            .block(block)
            .wrap(Wrap { trim: false })
            .scroll((self.scroll.min(u16::MAX as usize) as u16, 0))
            .render(area, buf);
    }
}
