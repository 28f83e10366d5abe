//! The `:` prompt's matches, in a box over the bottom of the body: each resource's name,
//! type and status, the chosen one highlighted (Tab or ↑↓ choose, Enter selects).

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Widget};

use crate::app::jump::Jump;
use crate::app::model::Model;

use super::text::{counted, pad};
use super::theme::Theme;

/// At most this many matches are listed.
const LISTED: usize = 8;

/// The jump prompt's list of matches.
pub struct JumpView<'a> {
    pub model: &'a Model,
    pub theme: Theme,
    pub jump: &'a Jump,
}

impl Widget for JumpView<'_> {
    fn render(self, body: Rect, buf: &mut Buffer) {
        let t = self.theme;
        let m = self.model;
        let matches = self.jump.matches(m);
        let chosen = self.jump.choice.min(matches.len().saturating_sub(1));
        // The chosen match stays in the window of those listed.
        let first = chosen.saturating_sub(LISTED - 1);
        let rows = matches.len().clamp(1, LISTED) as u16;
        let h = (rows + 2).min(body.height);
        let area = Rect::new(body.x, body.bottom() - h, body.width, h);
        Clear.render(area, buf);
        let title = format!(" Jump to  {} ", counted(matches.len(), "match", "matches"));
        let block = Block::default()
            .borders(Borders::ALL)
            .border_style(t.accent())
            .title(Span::styled(title, t.accent()))
            .title_bottom(Span::styled(
                " Tab ↑↓ choose · Enter select · Esc cancel ",
                t.dim(),
            ));
        let inner = block.inner(area);
        block.render(area, buf);
        if matches.is_empty() {
            let text = format!("no resource's name or URN holds {:?}", self.jump.text);
            buf.set_stringn(inner.x, inner.y, text, inner.width as usize, t.dim());
            return;
        }
        let w = inner.width as usize;
        let name_w = (w / 2).max(8);
        for (row, (k, &i)) in matches
            .iter()
            .enumerate()
            .skip(first)
            .take(inner.height as usize)
            .enumerate()
        {
            let r = m.resource(i);
            let style = if k == chosen {
                t.selected().patch(t.bold())
            } else {
                ratatui::style::Style::new()
            };
            let marker = if k == chosen { "▶ " } else { "  " };
            let line = Line::from(vec![
                Span::styled(format!("{marker}{}", pad(r.name(), name_w)), style),
                Span::styled(format!(" {}  {}", r.type_(), r.status.label()), t.dim()),
            ]);
            buf.set_line(inner.x, inner.y + row as u16, &line, inner.width);
        }
    }
}
