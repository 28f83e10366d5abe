//! Pending replacements: each delete-before-replace cascade with its root, every dependent and
//! why it goes too, a small picture of the cascade, and the keys that decide it.

use std::time::Duration;

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::StatefulWidget;

use crate::app::model::{Cascade, Model};
use crate::app::preset::Presets;
use crate::app::ui_state::Scroll;
use crate::engine::run::events::CascadeReason;

use super::frame::frame;
use super::text::{cut_right, fit_words, width};
use super::theme::Theme;

/// The pending replacements view; its state is its [`Scroll`], a cursor over the cascades.
/// A cascade takes several lines: the lines shown keep the cursor's a few lines up from the
/// bottom.
pub struct PendingView<'a> {
    pub model: &'a Model,
    pub theme: Theme,
    pub focused: bool,
    /// Decisions made in this preview for the apply.
    pub presets: &'a Presets,
    /// A preview that ends with `y`/`n`: its cascades can be decided for the apply.
    pub deciding: bool,
    /// Attached with a watch-only token: the keys that decide are not offered.
    pub watch_only: bool,
}

/// Input names as the operator reads them: `input "engine"`, `inputs "a", "b"`.
fn inputs(keys: &[String]) -> String {
    let quoted: Vec<String> = keys.iter().map(|k| format!("{k:?}")).collect();
    match quoted.len() {
        1 => format!("input {}", quoted[0]),
        _ => format!("inputs {}", quoted.join(", ")),
    }
}

/// Why a member goes with the cascade, in words.
pub fn reason_text(reason: &CascadeReason) -> String {
    match reason {
        CascadeReason::Root { keys } if keys.is_empty() => {
            "its provider asks for a replacement".into()
        }
        CascadeReason::Root { keys } if keys.len() == 1 => {
            format!("{} forces replacement", inputs(keys))
        }
        CascadeReason::Root { keys } => format!("{} force replacement", inputs(keys)),
        CascadeReason::Input {
            inputs: names,
            on,
            keys,
        } => {
            let verb = if names.len() == 1 {
                "depends"
            } else {
                "depend"
            };
            let mut s = format!("{} {verb} on {}", inputs(names), on.name());
            if !keys.is_empty() {
                s.push_str(&format!("; its diff replaces on {}", keys.join(", ")));
            }
            s
        }
        CascadeReason::Provider { provider } => {
            format!("its provider {} is replaced", provider.name())
        }
        CascadeReason::DeletedWith { target } => format!("deleted with {}", target.name()),
    }
}

/// `[db] ═▶ server-1 · server-2 · …`: the root fanning out to the dependents it takes along
/// (each one's own edge is in its "why" line).
fn picture(c: &Cascade, w: usize) -> String {
    let mut s = format!("[{}] ═▶", c.root.name());
    let mut others: Vec<_> = c.members.iter().filter(|m| m.urn != c.root).collect();
    others.sort_by_key(|m| m.urn.name());
    for (k, m) in others.into_iter().enumerate() {
        let next = format!("{}{}", if k == 0 { " " } else { " · " }, m.urn.name());
        if width(&s) + width(&next) + 2 > w {
            s.push_str(" …");
            break;
        }
        s.push_str(&next);
    }
    s
}

/// Lines for one cascade.
fn cascade_lines(
    c: &Cascade,
    (preset, now): (Option<bool>, Duration),
    t: Theme,
    w: usize,
    under_cursor: bool,
) -> Vec<Line<'static>> {
    let mut out = Vec::new();
    let root_type = c.root.type_();
    let (state, style) = match &c.decided {
        None if c.abandoned => ("not run: the run ended first".to_string(), t.dim()),
        None if c.planned => match preset {
            Some(true) => (
                "approved for the apply".to_string(),
                t.op(crate::engine::StepOp::Create),
            ),
            Some(false) => ("declined for the apply: kept".to_string(), t.dim()),
            None => (
                "will wait for approval".to_string(),
                t.op(crate::engine::StepOp::Replace),
            ),
        },
        None => match c.deadline {
            // The approval timeout counts down, whole seconds rounded up.
            Some(at) => (
                format!(
                    "waiting for approval · declined in {}s",
                    at.saturating_sub(now).as_millis().div_ceil(1000)
                ),
                t.alert(),
            ),
            None => ("waiting for approval".to_string(), t.alert()),
        },
        Some((true, by)) => (
            format!("approved by {by}"),
            t.op(crate::engine::StepOp::Create),
        ),
        Some((false, by)) => (format!("declined by {by}: kept"), t.dim()),
    };
    let pointer = if under_cursor { "▸ " } else { "  " };
    // The gate's kind stays when the line is narrow; the type goes first.
    let kind = match c.step {
        Some((op, kind, asked)) => format!(
            "  {}  {}={}  ",
            op.as_str(),
            kind.as_str(),
            if asked { "ask" } else { "decline" }
        ),
        None => "  delete-before-replace  ".to_string(),
    };
    let mut head = vec![
        Span::styled(pointer, t.accent()),
        Span::styled(c.root.name().to_string(), t.bold()),
        Span::styled(format!("  ({root_type})"), t.dim()),
        Span::styled(kind, t.dim()),
    ];
    let used: usize = head.iter().map(|s| width(&s.content)).sum();
    if used + width(&state) > w {
        head.remove(2);
    }
    head.push(Span::styled(state, style));
    let mut line = Line::from(head);
    if under_cursor {
        line = line.patch_style(t.selected());
    }
    out.push(line);
    let indent = "    ";
    // The root first, then its dependents by name: the same order every run.
    let mut members: Vec<_> = c.members.iter().collect();
    members.sort_by_key(|m| (m.urn != c.root, m.urn.name()));
    for member in members {
        let why = reason_text(&member.reason);
        let text = if member.urn == c.root {
            format!("why: {why}")
        } else {
            format!("{}: {why}", member.urn.name())
        };
        let fitted = fit_words(&text, w.saturating_sub(indent.len()));
        out.push(Line::styled(format!("{indent}{fitted}"), t.dim()));
    }
    if c.step.is_none() {
        out.push(Line::styled(
            cut_right(&format!("{indent}{}", picture(c, w.saturating_sub(4))), w),
            t.op(crate::engine::StepOp::Replace),
        ));
    }
    out
}

impl StatefulWidget for PendingView<'_> {
    type State = Scroll;

    fn render(self, area: Rect, buf: &mut Buffer, scroll: &mut Scroll) {
        let m = self.model;
        let t = self.theme;
        let waiting = if self.deciding {
            m.approvals
                .all()
                .iter()
                .filter(|c| c.to_decide() && self.presets.get(c).is_none())
                .count()
        } else {
            m.approvals.undecided()
        };
        // Step gates join the replacements here once a policy opens one.
        let noun = if m.approvals.all().iter().any(|c| c.step.is_some()) {
            "Pending approvals"
        } else {
            "Pending replacements"
        };
        let (title, border) = if waiting > 0 {
            (
                if self.deciding {
                    format!(" {noun} ⚠ {waiting} to decide for the apply ")
                } else {
                    format!(" {noun} ⚠ {waiting} waiting ")
                },
                t.alert_border(),
            )
        } else {
            (format!(" {noun} "), t.border(self.focused))
        };
        let title_style = if waiting > 0 { t.alert() } else { border };
        let inner = frame(area, buf, title, border, title_style);
        let w = inner.width as usize;
        let h = inner.height as usize;
        if h == 0 {
            return;
        }
        let keys = Line::from(vec![
            Span::styled("a", t.bold()),
            Span::raw(" approve   "),
            Span::styled("x", t.bold()),
            Span::raw(" decline   "),
            Span::styled("A", t.bold()),
            Span::raw(" approve all"),
        ]);
        let offers_keys = waiting > 0 && !self.watch_only;
        let body_h = if offers_keys { h.saturating_sub(1) } else { h };
        let cascades = m.approvals.all();
        scroll.set_len(cascades.len());
        let cursor = scroll.cursor();
        let mut lines: Vec<Line> = Vec::new();
        let mut starts = Vec::with_capacity(cascades.len());
        // Undecided first, then decided; the cursor indexes cascades in model order.
        for (k, c) in cascades.iter().enumerate() {
            starts.push(lines.len());
            let preset = self.presets.get(c);
            lines.extend(cascade_lines(
                c,
                (preset, m.clock.now()),
                t,
                w,
                self.focused && k == cursor,
            ));
        }
        if lines.is_empty() {
            lines.push(Line::styled("no delete-before-replace cascade", t.dim()));
        }
        let cursor_line = starts.get(cursor).copied().unwrap_or(0);
        let offset = cursor_line.saturating_sub(body_h.saturating_sub(4));
        // A page is as many cascades as start in view.
        let in_view = starts
            .iter()
            .filter(|&&l| (offset..offset + body_h).contains(&l))
            .count();
        scroll.fit(cascades.len(), in_view);
        for (y, line) in lines.iter().skip(offset).take(body_h).enumerate() {
            buf.set_line(inner.x, inner.y + y as u16, line, inner.width);
        }
        if offers_keys {
            buf.set_line(inner.x, inner.y + inner.height - 1, &keys, inner.width);
        }
    }
}
