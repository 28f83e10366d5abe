//! Details of one resource (Enter): the property diff old → new, nested, with unknown and secret
//! values shown as such, replace reasons, outputs, and the step history.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph, StatefulWidget, Widget, Wrap};

use crate::app::model::{Model, Resource};
use crate::app::ui_state::Scroll;
use crate::engine::model::hidden_diffs::HiddenDiffs;
use crate::engine::{PropertyMap, PropertyValue, StepOp};

use super::pending::reason_text;
use super::resources::status_text;
use super::text::{offset, scroll_rows, shorten_left, width};
use super::theme::Theme;

/// The details popup for the resource at `idx`; its state is its [`Scroll`] over the wrapped
/// lines.
pub struct DetailsView<'a> {
    pub model: &'a Model,
    pub theme: Theme,
    pub idx: usize,
    /// What depends on the resource, transitively (nearest first).
    pub blast: &'a [usize],
}

/// A value in one line: strings quoted, `[secret]`, `[unknown]`, containers compact.
pub fn value_text(v: &PropertyValue) -> String {
    match v {
        PropertyValue::Secret(_) => "[secret]".into(),
        PropertyValue::Unknown => "[unknown]".into(),
        PropertyValue::String(s) => format!("{s:?}"),
        other => {
            let s = other.to_display_json().to_string();
            if s.chars().count() > 60 {
                format!("{}…", s.chars().take(59).collect::<String>())
            } else {
                s
            }
        }
    }
}

/// What a property path's diff line says besides the change: that the change forces a
/// replacement, or that `hideDiffs` compacts it to `~ key (hidden)`.
pub struct PathMarks<'a> {
    pub forces: &'a dyn Fn(&str) -> bool,
    pub hidden: HiddenDiffs,
}

/// Diff lines of two property maps, recursing into objects present on both sides.
pub fn diff_lines(
    old: &PropertyMap,
    new: &PropertyMap,
    path: &str,
    depth: usize,
    marks: &PathMarks<'_>,
    t: Theme,
    out: &mut Vec<Line<'static>>,
) {
    let indent = "  ".repeat(depth + 1);
    let keys: std::collections::BTreeSet<&String> = old.keys().chain(new.keys()).collect();
    for key in keys {
        let full = if path.is_empty() {
            key.clone()
        } else {
            format!("{path}.{key}")
        };
        if old.get(key) != new.get(key) && marks.hidden.covering(&full).is_some() {
            out.push(Line::styled(
                format!("{indent}~ {key} (hidden)"),
                t.op(StepOp::Update),
            ));
            continue;
        }
        let force = if (marks.forces)(&full) {
            "  (forces replacement)"
        } else {
            ""
        };
        match (old.get(key), new.get(key)) {
            (Some(PropertyValue::Object(a)), Some(PropertyValue::Object(b))) if a != b => {
                out.push(Line::styled(
                    format!("{indent}~ {key}:"),
                    t.op(StepOp::Update),
                ));
                diff_lines(a, b, &full, depth + 1, marks, t, out);
            }
            (Some(a), Some(b)) if a == b => {
                out.push(Line::styled(
                    format!("{indent}  {key}: {}", value_text(a)),
                    t.dim(),
                ));
            }
            (Some(a), Some(b)) => {
                let op = if force.is_empty() {
                    StepOp::Update
                } else {
                    StepOp::Replace
                };
                out.push(Line::styled(
                    format!(
                        "{indent}~ {key}: {} => {}{force}",
                        value_text(a),
                        value_text(b)
                    ),
                    t.op(op),
                ));
            }
            (None, Some(b)) => out.push(Line::styled(
                format!("{indent}+ {key}: {}{force}", value_text(b)),
                t.op(StepOp::Create),
            )),
            (Some(a), None) => out.push(Line::styled(
                format!("{indent}- {key}: {}{force}", value_text(a)),
                t.op(StepOp::Delete),
            )),
            (None, None) => {}
        }
    }
}

/// Every line of the details of `r`.
pub fn details_lines(m: &Model, r: &Resource, blast: &[usize], t: Theme) -> Vec<Line<'static>> {
    let mut out: Vec<Line<'static>> = Vec::new();
    let op = r.op.unwrap_or(StepOp::Same);
    let mut head = vec![Span::styled(
        format!("{} {}", op.prefix().trim_end(), op.as_str()),
        t.op(op),
    )];
    if r.delete_before_replace {
        head.push(Span::styled(" (delete-before-replace)", t.op(op)));
    }
    head.push(Span::raw("   "));
    head.push(Span::styled(status_text(r, m), t.status(r.status)));
    let changes = r.changes();
    if !changes.replace_keys.is_empty() {
        head.push(Span::raw(format!(
            "   reasons: {}",
            changes.replace_keys.join(", ")
        )));
    }
    if r.protect {
        head.push(Span::styled("   protected", t.bold()));
    }
    if let Some(w) = r.worker {
        head.push(Span::styled(format!("   worker {w}"), t.dim()));
    }
    out.push(Line::from(head));
    if let Some(e) = &r.error {
        out.push(Line::styled(format!("error: {e}"), t.error()));
    }
    policy_lines(m, r, t, &mut out);
    let empty = PropertyMap::new();
    let old = changes.old_inputs.as_ref().unwrap_or(&empty);
    let new = r.new_inputs.as_ref().unwrap_or(old);
    if !old.is_empty() || !new.is_empty() {
        out.push(Line::styled("inputs:", t.bold()));
        let forces = |path: &str| {
            changes.replace_keys.iter().any(|k| k == path)
                || changes
                    .detailed_diff
                    .get(path)
                    .is_some_and(|d| d.kind.is_replace())
        };
        let marks = PathMarks {
            forces: &forces,
            hidden: HiddenDiffs::new(&changes.hide_diffs),
        };
        diff_lines(old, new, "", 0, &marks, t, &mut out);
    }
    // A refresh that found drift: what changed out of band, recorded outputs against read.
    if r.last_done_op == Some(StepOp::Refresh)
        && r.op == Some(StepOp::Update)
        && let (Some(old), Some(new)) = (changes.old_outputs.as_ref(), r.outputs.as_ref())
    {
        out.push(Line::styled("drift (read from the provider):", t.bold()));
        let marks = PathMarks {
            forces: &|_: &str| false,
            hidden: HiddenDiffs::new(&changes.hide_diffs),
        };
        diff_lines(old, new, "", 0, &marks, t, &mut out);
    }
    if let Some(outputs) = r.outputs.as_ref().or(changes.old_outputs.as_ref())
        && !outputs.is_empty()
    {
        out.push(Line::styled("outputs:", t.bold()));
        for (k, v) in outputs {
            out.push(Line::raw(format!("    {k}: {}", value_text(v))));
        }
    }
    if let Some(c) = r.cascade.and_then(|id| m.approvals.get(id)) {
        let gate = match c.step {
            Some((op, kind, asked)) => format!(
                "approval gate: {} of {} ({}={})",
                op.as_str(),
                c.root.name(),
                kind.as_str(),
                if asked { "ask" } else { "decline" }
            ),
            None => format!("cascade of {} (delete-before-replace):", c.root.name()),
        };
        out.push(Line::styled(gate, t.bold()));
        for member in &c.members {
            out.push(Line::raw(format!(
                "    {}: {}",
                member.urn.name(),
                reason_text(&member.reason)
            )));
        }
    }
    if !r.dependencies.is_empty() {
        let deps: Vec<&str> = r.dependencies.iter().map(|u| u.name()).collect();
        out.push(Line::raw(format!("depends on: {}", deps.join(", "))));
    }
    if !blast.is_empty() {
        let names: Vec<&str> = blast.iter().map(|&i| m.resource(i).name()).collect();
        out.push(Line::raw(format!(
            "blast radius ({} depend on it, directly or not): {}",
            blast.len(),
            names.join(", ")
        )));
    }
    out.push(Line::styled("history:", t.bold()));
    for h in &r.history {
        out.push(Line::from(vec![
            Span::styled(format!("    {}  ", offset(h.at())), t.dim()),
            Span::raw(h.text()),
        ]));
    }
    out
}

/// The policy violations reported on `r` (pack, level, policy, then the pack's message) and
/// the remediations that rewrote its inputs, each as the diff it made.
fn policy_lines(m: &Model, r: &Resource, t: Theme, out: &mut Vec<Line<'static>>) {
    let mut violations = m.policies.violations_of(&r.urn).peekable();
    if violations.peek().is_some() {
        out.push(Line::styled("policy violations:", t.bold()));
    }
    for v in violations {
        out.push(Line::from(vec![
            Span::styled(format!("    [{}]", v.level.as_str()), t.violation(v.level)),
            Span::raw(format!(
                "  {}  ({}@v{})",
                v.policy_name, v.pack_name, v.pack_version
            )),
        ]));
        for line in v.message.lines() {
            out.push(Line::raw(format!("      {line}")));
        }
    }
    let no_replace = |_: &str| false;
    for rem in m.policies.remediations_of(&r.urn) {
        out.push(Line::styled(
            format!(
                "remediated by {} ({}@v{}):",
                rem.policy_name, rem.pack_name, rem.pack_version
            ),
            t.bold(),
        ));
        let marks = PathMarks {
            forces: &no_replace,
            hidden: HiddenDiffs::new(&[]),
        };
        diff_lines(&rem.before, &rem.after, "", 1, &marks, t, out);
    }
}

impl StatefulWidget for DetailsView<'_> {
    type State = Scroll;

    fn render(self, area: Rect, buf: &mut Buffer, scroll: &mut Scroll) {
        let m = self.model;
        let t = self.theme;
        let r = m.resource(self.idx);
        Clear.render(area, buf);
        let fixed = format!(" {}  {}  ", r.label(), r.type_());
        let urn_room = (area.width as usize).saturating_sub(width(&fixed) + 4);
        let title = format!("{fixed}{} ", shorten_left(r.urn.as_str(), urn_room));
        let block = Block::default()
            .borders(Borders::ALL)
            .border_style(t.accent())
            .title(Span::styled(title, t.accent()))
            .title_bottom(Span::styled(
                if r.error.is_some() {
                    " ↑↓ scroll · Y copies the error · u the URN · Esc close "
                } else {
                    " ↑↓ scroll · u copies the URN · Esc close "
                },
                t.dim(),
            ));
        let inner = block.inner(area);
        block.render(area, buf);
        let text = Paragraph::new(details_lines(m, r, self.blast, t)).wrap(Wrap { trim: false });
        scroll.fit(text.line_count(inner.width), inner.height as usize);
        text.scroll((scroll_rows(scroll), 0)).render(inner, buf);
    }
}
