//! The resource tree: children under parents with tree guides, Pulumi's op symbols, status,
//! elapsed time and an info column. Virtualised: only the visible rows are built, so a frame
//! costs the same for 10 or 100,000 resources.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, StatefulWidget, Widget};

use crate::app::model::{Model, Resource, Status};
use crate::app::ui_state::UiState;
use crate::engine::step::StepOp;

use super::text::{cut_right, duration, fit_words, pad, shorten_left, width};
use super::theme::Theme;

/// The resources view; its state is the console's [`UiState`] (offset, selection, tree).
pub struct ResourcesView<'a> {
    pub model: &'a Model,
    pub theme: Theme,
    pub focused: bool,
}

/// Status text as the row shows it (`creating…`, `created`, `waiting for approval`).
pub fn status_text(r: &Resource, preview: bool) -> String {
    match r.status {
        Status::Running => format!(
            "{}…",
            r.running_op.or(r.op).map_or("running", StepOp::progressive)
        ),
        Status::Done => match r.op {
            Some(StepOp::Same) => "same".into(),
            Some(op) if preview => op.as_str().into(),
            Some(op) => op.past_tense().into(),
            None => "done".into(),
        },
        Status::Planned => match (r.op, r.last_done_op) {
            (_, Some(done)) if !preview => done.past_tense().into(),
            (Some(StepOp::Same), _) => "same".into(),
            (Some(op), _) if preview => op.as_str().into(),
            (Some(_), _) => "queued".into(),
            (None, _) => String::new(),
        },
        Status::Failed => "failed".into(),
        Status::Skipped => "skipped".into(),
        Status::WaitingForApproval => "waiting for approval".into(),
        Status::Interrupted => "interrupted".into(),
        Status::Declined => "declined: kept".into(),
    }
}

/// What the info column says: the error, why it is replaced, what changed, or the last message.
pub fn info_text(r: &Resource) -> (String, bool) {
    if let Some(e) = &r.error {
        return (e.clone(), true);
    }
    if !r.replace_keys.is_empty() {
        let dbr = if r.delete_before_replace {
            " (delete-before-replace)"
        } else {
            ""
        };
        return (
            format!("replace: {}{dbr}", r.replace_keys.join(", ")),
            false,
        );
    }
    if !r.diffs.is_empty() && r.op != Some(StepOp::Create) {
        return (format!("diff: {}", r.diffs.join(", ")), false);
    }
    (r.message.clone().unwrap_or_default(), false)
}

impl StatefulWidget for ResourcesView<'_> {
    type State = UiState;

    fn render(self, area: Rect, buf: &mut Buffer, ui: &mut UiState) {
        let m = self.model;
        let t = self.theme;
        ui.refresh_tree(m);
        let total = m.resources().len();
        let mut title = format!(" Resources ({}) ", ui.tree.len());
        if !ui.filter.is_empty() {
            title = format!(
                " Resources  / {}  ({} of {total}) ",
                ui.filter.text(),
                ui.tree.len()
            );
        }
        let block = Block::default()
            .borders(Borders::ALL)
            .border_style(t.border(self.focused))
            .title(Span::styled(title, t.border(self.focused)));
        let inner = block.inner(area);
        block.render(area, buf);
        let h = inner.height as usize;
        if h == 0 || inner.width == 0 {
            return;
        }
        ui.page = h.saturating_sub(1).max(1);
        ui.resources_rows = Some(inner);
        let sel = ui.selected_index(m).and_then(|i| ui.tree.position(i));
        if let Some(s) = sel {
            if s < ui.resources_offset {
                ui.resources_offset = s;
            } else if s >= ui.resources_offset + h {
                ui.resources_offset = s + 1 - h;
            }
        }
        ui.resources_offset = ui.resources_offset.min(ui.tree.len().saturating_sub(h));
        let w = inner.width as usize;
        let show_type = w >= 100;
        let type_w = if show_type { 22 } else { 0 };
        let name_w = if w >= 100 { 20 } else { 16 };
        let status_w = 21;
        let now = m.now();
        let end = (ui.resources_offset + h).min(ui.tree.len());
        for (line_no, row) in (ui.resources_offset..end).enumerate() {
            let fr = ui.tree.rows()[row];
            let r = m.resource(fr.idx);
            let selected = sel == Some(row);
            let mut spans: Vec<Span> = Vec::new();
            let op_style = r.op.map_or(Style::new(), |op| t.op(op));
            spans.push(Span::styled(
                format!("{} ", r.op.map_or("  ", StepOp::prefix)),
                op_style,
            ));
            let mut guides = ui.tree.guides(row);
            if fr.has_children && ui.collapsed.contains(&r.urn) {
                guides.push_str("▸ ");
            } else if !guides.is_empty() {
                guides.push(' ');
            }
            spans.push(Span::styled(guides, t.dim()));
            let used: usize = spans.iter().map(|s| width(&s.content)).sum();
            if show_type {
                spans.push(Span::styled(
                    pad(&shorten_left(&r.type_, type_w - 1), type_w),
                    t.dim(),
                ));
            }
            let name_room = name_w.max(8).min(w.saturating_sub(used + type_w));
            spans.push(Span::styled(
                pad(&cut_right(r.name(), name_room.saturating_sub(1)), name_room),
                op_style,
            ));
            let status = status_text(r, m.preview);
            spans.push(Span::styled(pad(&status, status_w), t.status(r.status)));
            let elapsed = r.elapsed(now).map(duration).unwrap_or_default();
            spans.push(Span::styled(format!("{elapsed:>6} "), t.dim()));
            let used: usize = spans.iter().map(|s| width(&s.content)).sum();
            let (info, is_err) = info_text(r);
            let room = w.saturating_sub(used);
            if room > 3 {
                let style = if is_err { t.error() } else { t.dim() };
                spans.push(Span::styled(fit_words(&info, room), style));
            }
            let mut line = Line::from(spans);
            if selected {
                line = line.patch_style(t.selected());
            }
            let y = inner.y + line_no as u16;
            buf.set_line(inner.x, y, &line, inner.width);
            if selected {
                buf.set_style(Rect::new(inner.x, y, inner.width, 1), t.selected());
            }
        }
        if ui.tree.is_empty() {
            let msg = if ui.filter.is_empty() {
                "waiting for the first resource…"
            } else {
                "no resource matches the filter (Esc clears it)"
            };
            buf.set_string(
                inner.x + 1,
                inner.y,
                fit_words(msg, w.saturating_sub(1)),
                t.dim(),
            );
        }
    }
}
