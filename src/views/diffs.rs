//! Parallel diff progress: a gauge of done / running / queued provider diffs and the resources
//! being diffed now, with their workers.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{StatefulWidget, Widget};

use crate::app::model::Model;
use crate::app::ui_state::Scroll;

use super::frame::frame;
use super::text::{shorten_left, width};
use super::theme::Theme;

/// The one-line gauge `diffs ████░░ 31/48  running 6  queued 11`.
pub struct DiffGauge<'a> {
    pub model: &'a Model,
    pub theme: Theme,
}

impl Widget for DiffGauge<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let d = &self.model.diffs;
        let t = self.theme;
        let total = d.total();
        let tail = format!(
            " {}/{}  running {}  queued {}",
            d.done,
            total,
            d.running.len(),
            d.queued
        );
        let bar_w = (area.width as usize)
            .saturating_sub(width(&tail) + 7)
            .min(40);
        let done_w = (bar_w * d.done).checked_div(total).unwrap_or(0);
        let run_w = if total == 0 {
            0
        } else {
            (bar_w * d.running.len()).div_ceil(total)
        };
        let run_w = run_w.min(bar_w - done_w);
        let line = Line::from(vec![
            Span::styled("diffs ", t.bold()),
            Span::styled("█".repeat(done_w), t.op(crate::engine::StepOp::Create)),
            Span::styled("▓".repeat(run_w), t.accent()),
            Span::styled("░".repeat(bar_w - done_w - run_w), t.dim()),
            Span::raw(tail),
        ]);
        buf.set_line(area.x, area.y, &line, area.width);
    }
}

/// The diffs view: the gauge and the resources being diffed; its state is its [`Scroll`]
/// over those.
pub struct DiffsView<'a> {
    pub model: &'a Model,
    pub theme: Theme,
    pub focused: bool,
}

impl StatefulWidget for DiffsView<'_> {
    type State = Scroll;

    fn render(self, area: Rect, buf: &mut Buffer, scroll: &mut Scroll) {
        let m = self.model;
        let t = self.theme;
        let mode = if m.run.parallel_diff {
            "parallel"
        } else {
            "serial"
        };
        let focus = t.border(self.focused);
        let inner = frame(area, buf, format!(" Diffs ({mode}) "), focus, focus);
        if inner.height == 0 {
            return;
        }
        DiffGauge { model: m, theme: t }.render(Rect { height: 1, ..inner }, buf);
        let w = inner.width as usize;
        if m.diffs.replaces > 0 && inner.height > 1 {
            let text = format!(
                "{} of the finished diffs found a replacement",
                m.diffs.replaces
            );
            buf.set_string(
                inner.x,
                inner.y + 1,
                text,
                t.op(crate::engine::StepOp::Replace),
            );
        }
        let first = inner.y + 2;
        let rows = inner.height.saturating_sub(2) as usize;
        if m.diffs.running.is_empty() && rows > 0 {
            buf.set_string(inner.x, first, "no diff running", t.dim());
        }
        scroll.fit(m.diffs.running.len(), rows);
        let shown = m.diffs.running.iter().skip(scroll.offset()).take(rows);
        for (y, (urn, worker)) in (first..).zip(shown) {
            let line = Line::from(vec![
                Span::styled(format!("w{worker:<3} "), t.dim()),
                Span::styled(format!("{:<20} ", urn.name()), t.accent()),
                Span::styled(shorten_left(urn.type_(), w.saturating_sub(26)), t.dim()),
            ]);
            buf.set_line(inner.x, y, &line, inner.width);
        }
    }
}
