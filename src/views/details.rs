//! Details of one resource (Enter): the property diff old → new, nested, with unknown and secret
//! values shown as such, replace reasons, outputs, and the step history.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph, StatefulWidget, Widget, Wrap};

use crate::app::model::{Model, Resource, Status};
use crate::app::ui_state::Scroll;
use crate::engine::model::hidden_diffs::HiddenDiffs;
use crate::engine::{PropertyMap, PropertyValue, StepOp};
use crate::output::value_text::{asset_change, asset_text, value_line};

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
    /// The preview's operator declined its cascade: the apply keeps it as it is.
    pub kept: bool,
}

/// A value in one line: strings quoted, `[secret]`, `[unknown]`, assets and archives as
/// Pulumi prints them, containers compact. A recorded run (an event log, a replay) carries a
/// secret as the text `[secret]`, shown as a live secret is.
pub fn value_text(v: &PropertyValue) -> String {
    match v {
        PropertyValue::Secret(_) => "[secret]".into(),
        PropertyValue::String(s) if s == "[secret]" => "[secret]".into(),
        PropertyValue::Unknown => "[unknown]".into(),
        PropertyValue::String(s) => format!("{s:?}"),
        PropertyValue::Asset(_) | PropertyValue::Archive(_) => asset_text(v).unwrap_or_default(),
        other => {
            let s = value_line(other);
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
    /// Paths the provider's diff names as changed: a secret there is a change even when both
    /// sides read the same (masked, as a recorded run carries them).
    pub listed: &'a dyn Fn(&str) -> bool,
    pub hidden: HiddenDiffs,
    /// Whether the properties kept as they are are listed too (the details list them, the
    /// Diffs view only the changes).
    pub unchanged: bool,
}

impl PathMarks<'_> {
    /// Marks that only say `hideDiffs` (a remediation, a drift): nothing forces a
    /// replacement and only differing values are changes.
    fn plain(hidden: HiddenDiffs, unchanged: bool) -> PathMarks<'static> {
        PathMarks {
            forces: &|_: &str| false,
            listed: &|_: &str| false,
            hidden,
            unchanged,
        }
    }
}

/// Whether `v` is a secret, or the `[secret]` text a recorded run carries in its place.
fn masked(v: &PropertyValue) -> bool {
    match v {
        PropertyValue::Secret(_) => true,
        PropertyValue::String(s) => s == "[secret]",
        _ => false,
    }
}

/// The path of `key` under `path` (`tags.owner`).
fn child_path(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_string()
    } else {
        format!("{path}.{key}")
    }
}

/// How many lines [`diff_lines`] writes for two maps, counted without writing them: the
/// Diffs view sizes its scroll over every changed resource and draws only those in view.
pub fn diff_len(old: &PropertyMap, new: &PropertyMap, path: &str, marks: &PathMarks<'_>) -> usize {
    // A create or a delete: one line per input, added or dropped (or hidden).
    if old.is_empty() || new.is_empty() {
        return old.len() + new.len();
    }
    let keys: std::collections::BTreeSet<&String> = old.keys().chain(new.keys()).collect();
    let mut n = 0;
    for key in keys {
        let full = child_path(path, key);
        let listed = (marks.listed)(&full) && old.get(key).is_some_and(masked);
        if (listed || old.get(key) != new.get(key)) && marks.hidden.covering(&full).is_some() {
            n += 1;
            continue;
        }
        n += match (old.get(key), new.get(key)) {
            (Some(PropertyValue::Object(a)), Some(PropertyValue::Object(b))) if a != b => {
                1 + diff_len(a, b, &full, marks)
            }
            (Some(a), Some(b)) if a == b && !listed => usize::from(marks.unchanged),
            (None, None) => 0,
            _ => 1,
        };
    }
    n
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
        let full = child_path(path, key);
        let listed = (marks.listed)(&full) && old.get(key).is_some_and(masked);
        if (listed || old.get(key) != new.get(key)) && marks.hidden.covering(&full).is_some() {
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
            (Some(a), Some(b)) if a == b && !listed => {
                if marks.unchanged {
                    out.push(Line::styled(
                        format!("{indent}  {key}: {}", value_text(a)),
                        t.dim(),
                    ));
                }
            }
            (Some(a), Some(b)) => {
                let op = if force.is_empty() {
                    StepOp::Update
                } else {
                    StepOp::Replace
                };
                let change = asset_change(a, b)
                    .unwrap_or_else(|| format!("{} => {}", value_text(a), value_text(b)));
                out.push(Line::styled(
                    format!("{indent}~ {key}: {change}{force}"),
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

/// Calls `f` with `r`'s old and new inputs and the marks of its diff: what forces a
/// replacement, what the provider names as changed, what `hideDiffs` hides; `unchanged` lists
/// what it keeps too. A delete drops every input.
fn with_input_diff<T>(
    r: &Resource,
    unchanged: bool,
    f: impl FnOnce(&PropertyMap, &PropertyMap, &PathMarks<'_>) -> T,
) -> T {
    let changes = r.changes();
    let empty = PropertyMap::new();
    let old = changes.old_inputs.as_ref().unwrap_or(&empty);
    let new = match r.op {
        Some(StepOp::Delete | StepOp::DeleteReplaced) => &empty,
        _ => r.new_inputs.as_ref().unwrap_or(old),
    };
    let forces = |path: &str| {
        changes.replace_keys.iter().any(|k| k == path)
            || changes
                .detailed_diff
                .get(path)
                .is_some_and(|d| d.kind.is_replace())
    };
    let listed = |path: &str| {
        changes.diffs.iter().any(|k| k == path) || changes.detailed_diff.contains_key(path)
    };
    let marks = PathMarks {
        forces: &forces,
        listed: &listed,
        hidden: HiddenDiffs::new(&changes.hide_diffs),
        unchanged,
    };
    f(old, new, &marks)
}

/// The diff of `r`'s inputs at `depth`: what its step changes, each change that forces a
/// replacement marked; `unchanged` lists what it keeps too. A delete drops every input.
pub fn input_diff_lines(
    r: &Resource,
    depth: usize,
    unchanged: bool,
    t: Theme,
    out: &mut Vec<Line<'static>>,
) {
    with_input_diff(r, unchanged, |old, new, marks| {
        diff_lines(old, new, "", depth, marks, t, out);
    });
}

/// How many lines [`input_diff_lines`] writes for `r`.
pub fn input_diff_len(r: &Resource, unchanged: bool) -> usize {
    with_input_diff(r, unchanged, |old, new, marks| {
        diff_len(old, new, "", marks)
    })
}

/// Every line of the details of `r`.
/// `kept`: the preview's operator declined its cascade, so the head says so, not the op.
pub fn details_lines(
    m: &Model,
    r: &Resource,
    blast: &[usize],
    kept: bool,
    t: Theme,
) -> Vec<Line<'static>> {
    let mut out: Vec<Line<'static>> = Vec::new();
    let op = r.op.unwrap_or(StepOp::Same);
    let mut head = if kept {
        vec![
            Span::styled("declined: kept", t.status(Status::Declined)),
            Span::styled(
                format!("   the apply leaves it as it is (no {})", op.as_str()),
                t.dim(),
            ),
        ]
    } else {
        vec![Span::styled(
            format!("{} {}", op.prefix().trim_end(), op.as_str()),
            t.op(op),
        )]
    };
    if r.delete_before_replace && !kept {
        head.push(Span::styled(" (delete-before-replace)", t.op(op)));
    }
    head.push(Span::raw("   "));
    let unrun = m.run.preview && matches!(r.status, Status::Planned | Status::Done);
    if unrun {
        head.push(Span::styled("not run (preview)", t.dim()));
    } else {
        head.push(Span::styled(status_text(r, m), t.status(r.status)));
    }
    let changes = r.changes();
    if !changes.replace_keys.is_empty() && !kept {
        head.push(Span::raw(format!(
            "   reasons: {}",
            changes.replace_keys.join(", ")
        )));
    }
    if r.protect {
        head.push(Span::styled("   protected", t.bold()));
    }
    if let Some(w) = r.worker.filter(|_| !unrun) {
        head.push(Span::styled(format!("   worker {w}"), t.dim()));
    }
    out.push(Line::from(head));
    if let Some(e) = &r.error {
        out.push(Line::styled(format!("error: {e}"), t.error()));
    }
    policy_lines(m, r, t, &mut out);
    let has_inputs = |m: Option<&PropertyMap>| m.is_some_and(|m| !m.is_empty());
    if has_inputs(changes.old_inputs.as_ref()) || has_inputs(r.new_inputs.as_ref()) {
        out.push(Line::styled("inputs:", t.bold()));
        input_diff_lines(r, 0, true, t, &mut out);
    }
    // A refresh that found drift: what changed out of band, recorded outputs against read.
    if r.last_done_op == Some(StepOp::Refresh)
        && r.op == Some(StepOp::Update)
        && let (Some(old), Some(new)) = (changes.old_outputs.as_ref(), r.outputs.as_ref())
    {
        out.push(Line::styled("drift (read from the provider):", t.bold()));
        let marks = PathMarks::plain(HiddenDiffs::new(&changes.hide_diffs), true);
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
    for rem in m.policies.remediations_of(&r.urn) {
        out.push(Line::styled(
            format!(
                "remediated by {} ({}@v{}):",
                rem.policy_name, rem.pack_name, rem.pack_version
            ),
            t.bold(),
        ));
        let marks = PathMarks::plain(HiddenDiffs::new(&[]), true);
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
        let text = Paragraph::new(details_lines(m, r, self.blast, self.kept, t))
            .wrap(Wrap { trim: false });
        scroll.fit(text.line_count(inner.width), inner.height as usize);
        text.scroll((scroll_rows(scroll), 0)).render(inner, buf);
    }
}
