//! The frame around a panel: a bordered, titled block drawn first, the view inside it.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::Span;
use ratatui::widgets::{Block, Borders, Widget};

/// Draws the frame with its title and returns the area inside it.
pub fn frame(
    area: Rect,
    buf: &mut Buffer,
    title: String,
    border: Style,
    title_style: Style,
) -> Rect {
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(border)
        .title(Span::styled(title, title_style));
    let inner = block.inner(area);
    block.render(area, buf);
    inner
}
