//! The help overlay (`?`): the keys that act in the console's mode and what they do, from
//! `app::key_help`.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph, StatefulWidget, Widget, Wrap};

use crate::app::ui_state::Scroll;

use super::text::{pad, scroll_rows};
use super::theme::Theme;

/// The help overlay; its state is its [`Scroll`] (↑↓ when the terminal is shorter than the
/// list).
pub struct HelpView {
    pub theme: Theme,
    /// The keys to list, as (keys, what they do).
    pub keys: Vec<(&'static str, &'static str)>,
}

impl StatefulWidget for HelpView {
    type State = Scroll;

    fn render(self, area: Rect, buf: &mut Buffer, scroll: &mut Scroll) {
        let t = self.theme;
        Clear.render(area, buf);
        let key_w = self
            .keys
            .iter()
            .map(|(k, _)| k.chars().count())
            .max()
            .unwrap_or(8)
            + 2;
        let lines: Vec<Line> = self
            .keys
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
        let inner = block.inner(area);
        block.render(area, buf);
        let text = Paragraph::new(lines).wrap(Wrap { trim: false });
        scroll.fit(text.line_count(inner.width), inner.height as usize);
        text.scroll((scroll_rows(scroll), 0)).render(inner, buf);
    }
}
