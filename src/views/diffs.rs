//! View 6: what each step changes, property by property, as `pulumi preview --diff` shows it,
//! under a one-line gauge of the provider diffs done / running / queued (parallel diff
//! progress).

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{StatefulWidget, Widget};

use crate::app::model::{Model, Resource};
use crate::app::ui_state::Scroll;
use crate::engine::{StepOp, Urn};

use super::details::{input_diff_len, input_diff_lines};
use super::frame::frame;
use super::text::width;
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
            Span::styled("█".repeat(done_w), t.op(StepOp::Create)),
            Span::styled("▓".repeat(run_w), t.accent()),
            Span::styled("░".repeat(bar_w - done_w - run_w), t.dim()),
            Span::raw(tail),
        ]);
        buf.set_line(area.x, area.y, &line, area.width);
    }
}

/// Whether a resource's step changes anything a diff would show.
fn changes_something(r: &Resource) -> bool {
    !matches!(r.op, None | Some(StepOp::Same))
}

/// The head line of a resource's diff, as `pulumi preview --diff` opens it: its op sign,
/// type and name, the op, and what forces a replacement.
fn head_line(r: &Resource, selected: bool, t: Theme) -> Line<'static> {
    let op = r.op.unwrap_or(StepOp::Same);
    let mut spans = vec![
        Span::styled(
            format!("{} {} {}: ", op.prefix().trim_end(), r.type_(), r.name()),
            t.op(op).patch(t.bold()),
        ),
        Span::styled(format!("({})", op.as_str()), t.op(op)),
    ];
    if r.delete_before_replace {
        spans.push(Span::styled(" (delete-before-replace)", t.op(op)));
    }
    let reasons = &r.changes().replace_keys;
    if !reasons.is_empty() {
        spans.push(Span::raw(format!("  [reasons: {}]", reasons.join(", "))));
    }
    let line = Line::from(spans);
    if selected {
        line.patch_style(t.selected())
    } else {
        line
    }
}

/// The diffs view: the parallel-diff gauge on its first line, then the property diff of each
/// resource whose step changes it (Pulumi's `preview --diff`: `~ key: old => new`, `+ key`,
/// `- key`, what forces a replacement marked, secrets masked), the selected one highlighted;
/// its state is its [`Scroll`] over those lines.
pub struct DiffsView<'a> {
    pub model: &'a Model,
    pub theme: Theme,
    pub focused: bool,
    pub selected: Option<&'a Urn>,
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
        // Each changed resource's lines, counted without drawing them; drawn only in view.
        let blocks: Vec<(&Resource, usize)> = m
            .resources()
            .iter()
            .filter(|r| changes_something(r))
            .map(|r| (&**r, 1 + input_diff_len(r, false)))
            .collect();
        let changed = blocks.len();
        let total: usize = blocks.iter().map(|(_, n)| n).sum();
        let focus = t.border(self.focused);
        let title = format!(" Diffs · {changed} changed · diffs {mode} ");
        let inner = frame(area, buf, title, focus, focus);
        if inner.height == 0 {
            return;
        }
        DiffGauge { model: m, theme: t }.render(Rect { height: 1, ..inner }, buf);
        let rows = inner.height.saturating_sub(1) as usize;
        if rows == 0 {
            return;
        }
        if total == 0 {
            let text = if m.run.summary.is_some() {
                "no resource changes"
            } else {
                "no change planned yet"
            };
            buf.set_string(inner.x, inner.y + 1, text, t.dim());
        }
        scroll.fit(total, rows);
        let (first, last) = (scroll.offset(), scroll.offset() + rows);
        let mut lines: Vec<Line<'static>> = Vec::new();
        let mut at = 0;
        for (r, n) in blocks {
            if at + n > first && at < last {
                let mut block = vec![head_line(r, self.selected == Some(&r.urn), t)];
                input_diff_lines(r, 1, false, t, &mut block);
                let skip = first.saturating_sub(at);
                lines.extend(block.into_iter().skip(skip));
            }
            at += n;
            if at >= last {
                break;
            }
        }
        for (y, line) in (inner.y + 1..).zip(lines.into_iter().take(rows)) {
            buf.set_line(inner.x, y, &line, inner.width);
        }
    }
}
