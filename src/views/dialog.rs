//! The confirm dialogs: the one place the console asks before acting (cancel, quit while
//! running, approve every pending replacement), and the stack's name a whole-stack destroy
//! asks to be typed.

use ratatui::buffer::Buffer;
use ratatui::layout::{Alignment, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph, Widget, Wrap};

use crate::app::ui_state::Confirm;

use super::theme::Theme;

/// The confirm dialog for `confirm`.
pub struct ConfirmDialog {
    pub confirm: Confirm,
    pub theme: Theme,
}

impl ConfirmDialog {
    fn question(&self) -> (String, &'static str) {
        match self.confirm {
            Confirm::Cancel => (
                " Cancel the deployment? ".into(),
                "No new steps start; running steps finish and are recorded.",
            ),
            Confirm::Quit => (
                " Quit while the deployment runs? ".into(),
                "The deployment is cancelled first: running steps finish and are recorded.",
            ),
            Confirm::ApproveAll => (
                " Approve every pending replacement? ".into(),
                "Each replacement deletes its resource and every dependent before creating them again; each step waiting at its gate runs.",
            ),
            Confirm::ApproveKind(kind) => (
                format!(" Approve every waiting step of {}? ", kind.as_str()),
                "Each one runs now; gates of other kinds keep waiting.",
            ),
        }
    }
}

/// The prompt a whole-stack destroy's `y` opens: the stack's name must be typed, as
/// `pulumi stack rm` asks, so that a `y` meant for another stack destroys nothing.
pub struct NameDialog<'a> {
    pub stack: &'a str,
    pub typed: &'a str,
    pub theme: Theme,
}

impl Widget for NameDialog<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let t = self.theme;
        Clear.render(area, buf);
        let block = Block::default()
            .borders(Borders::ALL)
            .border_style(t.alert_border())
            .title(Span::styled(
                format!(" Destroy every resource of stack {}? ", self.stack),
                t.alert(),
            ));
        Paragraph::new(vec![
            Line::raw(format!(
                "Type the stack's name ({}) to confirm:",
                self.stack
            )),
            Line::raw(""),
            Line::styled(format!("> {}_", self.typed), t.bold()),
            Line::raw(""),
            Line::from(vec![
                Span::styled("Enter", t.bold()),
                Span::raw(" destroy    "),
                Span::styled("Esc", t.bold()),
                Span::raw(" back"),
            ]),
        ])
        .alignment(Alignment::Center)
        .wrap(Wrap { trim: true })
        .block(block)
        .render(area, buf);
    }
}

impl Widget for ConfirmDialog {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let t = self.theme;
        let (title, body) = self.question();
        Clear.render(area, buf);
        let block = Block::default()
            .borders(Borders::ALL)
            .border_style(t.alert_border())
            .title(Span::styled(title, t.alert()));
        Paragraph::new(vec![
            Line::raw(body),
            Line::raw(""),
            Line::from(vec![
                Span::styled("y", t.bold()),
                Span::raw(" yes    "),
                Span::styled("n", t.bold()),
                Span::raw(" / Esc no"),
            ]),
        ])
        .alignment(Alignment::Center)
        .wrap(Wrap { trim: true })
        .block(block)
        .render(area, buf);
    }
}
