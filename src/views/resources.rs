//! The resource tree: children under parents with tree guides, Pulumi's op symbols, status,
//! elapsed time and an info column, drawn by tui-tree-widget. Virtualised: the widget gets
//! `TreeItem`s only for the visible window of rows (and that window's ancestors, which it needs
//! for the depth of the first row), so a frame costs the same for 10 or 100,000 resources.

use std::ops::Range;

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::StatefulWidget;
use tui_tree_widget::{Tree, TreeItem, TreeState};

use crate::app::model::{Model, Resource, Status};
use crate::app::selection::Mark;
use crate::app::sort::SortKey;
use crate::app::ui_state::UiState;
use crate::engine::StepOp;
use crate::engine::run::policy::EnforcementLevel;

use super::frame::frame;
use super::text::{cut_right, duration, fit_words, pad, shorten_left, width};
use super::theme::Theme;

/// The resources view; its state is the console's [`UiState`] (scroll, selection, tree).
pub struct ResourcesView<'a> {
    pub model: &'a Model,
    pub theme: Theme,
    pub focused: bool,
}

/// Status text as the row shows it (`creating…`, `created`, `waiting for approval`); a
/// replacement follows its physical steps (`deleted, waiting for db`, `creating replacement…`).
pub fn status_text(r: &Resource, m: &Model) -> String {
    let preview = m.run.preview;
    if !preview && r.status == Status::Planned && r.op == Some(StepOp::Replace) {
        if r.created_replacement {
            return "replacement created".into();
        }
        if r.deleted_original {
            let root = r
                .cascade
                .and_then(|id| m.approvals.get(id))
                .map(|c| &c.root)
                .filter(|root| **root != r.urn)
                .filter(|root| m.get(root).is_none_or(|x| x.status != Status::Done));
            return match root {
                Some(root) => format!("deleted, waiting for {}", root.name()),
                None => "deleted, replacement next".into(),
            };
        }
    }
    if !preview
        && r.status == Status::Planned
        && let Some(root) = m.behind.root_of(&r.urn)
    {
        return format!("waiting for {}", root.name());
    }
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
            // Registered, its step not planned yet: its diff runs, or it waits for inputs.
            (None, _) if r.diffing => "diffing…".into(),
            (None, _) if r.history.is_empty() => String::new(),
            (None, _) => "registered".into(),
        },
        Status::Failed => "failed".into(),
        Status::Skipped => "skipped".into(),
        Status::WaitingForApproval => "waiting for approval".into(),
        Status::Interrupted => "interrupted".into(),
        Status::Declined => "declined: kept".into(),
    }
}

/// The operation a row's sign shows: none for a skipped step, which changes nothing, nor for
/// a row the preview's operator declined (the apply keeps it as it is).
pub(super) fn shown_op(r: &Resource, m: &Model, ui: &UiState) -> Option<StepOp> {
    r.op.filter(|_| r.status != Status::Skipped && !ui.presets.keeps(m, r))
}

/// What a row the preview's operator declined reads: the apply keeps it as it is.
const KEPT: &str = "declined: kept";

/// An error on one line, its root cause first: a multi-line error whose first line introduces
/// the rest (`command "…" failed with exit status 3:` over the command's `ERROR: disk full`)
/// reads `ERROR: disk full · command "…" failed with exit status 3`, so that a cut row or status
/// line keeps the cause rather than the command text.
pub fn root_cause_first(error: &str) -> String {
    let lines: Vec<&str> = error
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    match lines.split_first() {
        Some((head, rest)) if !rest.is_empty() && head.ends_with(':') => {
            format!("{} · {}", rest.join(" "), head.trim_end_matches(':'))
        }
        _ => lines.join(" "),
    }
}

/// What the info column says: the error, why it is replaced, what changed, or the last message.
pub fn info_text(r: &Resource) -> (String, bool) {
    if let Some(e) = &r.error {
        // The row has the resource already: show the provider's words first ("creating
        // <urn> failed: sim: …" reads as "sim: …"); details and the log keep all of it.
        // A refusal names the resource first ("resource <urn> violates the plan: …").
        let brief = e
            .split_once(&format!(" {} failed: ", r.urn.as_str()))
            .map(|(_, m)| m)
            .or_else(|| e.strip_prefix(&format!("resource {} ", r.urn.as_str())))
            .unwrap_or(e);
        return (root_cause_first(brief), true);
    }
    let changes = r.changes();
    if !changes.replace_keys.is_empty() {
        let dbr = if r.delete_before_replace {
            " (delete-before-replace)"
        } else {
            ""
        };
        return (
            format!("replace: {}{dbr}", changes.replace_keys.join(", ")),
            false,
        );
    }
    if !changes.diffs.is_empty() && r.op != Some(StepOp::Create) {
        return (format!("diff: {}", changes.diffs.join(", ")), false);
    }
    (r.message.as_deref().unwrap_or_default().to_string(), false)
}

/// Identifier of the hidden child that makes a collapsed node show as closed.
const PLACEHOLDER: usize = usize::MAX;
/// Width of the op column left of the tree (`+- `).
const OP_W: u16 = 3;

/// Column widths for one inner width.
#[derive(Clone, Copy)]
struct Columns {
    /// Guides, node symbol and name together, so the columns after it line up at any depth.
    tree: usize,
    /// 0 when the type column is left out (narrow terminals).
    type_: usize,
    status: usize,
}

/// Columns a row's mark (`[✓] `, `[✗] `) takes before its name.
const MARK_W: usize = 4;

/// The marker before the name of a resource a policy pack reported violations on: `✖ ` for a
/// mandatory one (its step cannot run), `⚠ ` for advisory ones only.
pub fn policy_marker(m: &Model, r: &Resource) -> Option<(&'static str, EnforcementLevel)> {
    m.policies.marker(&r.urn).map(|level| match level {
        EnforcementLevel::Advisory => ("⚠ ", level),
        _ => ("✖ ", EnforcementLevel::Mandatory),
    })
}

impl Columns {
    /// Columns as wide as the visible rows need (so the info column gets the rest of a wide
    /// terminal), within the fixed widths' limits.
    fn fit(w: usize, m: &Model, ui: &UiState, window: Range<usize>) -> Columns {
        let most = Columns::for_width(w);
        let rows = || window.clone().map(|row| ui.layout.tree.rows()[row]);
        let tree = rows()
            .map(|fr| {
                let r = m.resource(fr.idx);
                let mark = ui.presets.selection.mark(&r.urn).map_or(0, |_| MARK_W);
                let policy = policy_marker(m, r).map_or(0, |(p, _)| width(p));
                2 * fr.depth as usize + 3 + mark + policy + width(&r.label())
            })
            .max()
            .unwrap_or(0);
        let type_ = rows()
            .map(|fr| width(m.resource(fr.idx).type_()) + 1)
            .max()
            .unwrap_or(0);
        let status = rows()
            .map(|fr| {
                let r = m.resource(fr.idx);
                match ui.presets.keeps(m, r) {
                    true => width(KEPT) + 1,
                    false => width(&status_text(r, m)) + 1,
                }
            })
            .max()
            .unwrap_or(0);
        Columns {
            tree: tree.clamp(12, most.tree.max(12) + 8),
            type_: if most.type_ == 0 {
                0
            } else {
                type_.clamp(8, most.type_ + 6)
            },
            status: status.clamp(10, most.status + 6),
        }
    }

    fn for_width(w: usize) -> Columns {
        if w >= 100 {
            Columns {
                tree: 28,
                type_: 22,
                status: 21,
            }
        } else if w >= 84 {
            Columns {
                tree: 24,
                type_: 21,
                status: 21,
            }
        } else {
            Columns {
                tree: 24,
                type_: 0,
                status: 21,
            }
        }
    }
}

impl ResourcesView<'_> {
    /// The text right of a row's guides: name, type, status, elapsed time and info.
    /// `mark`: how the operator marked the row in a preview (`space`, `x`), and whether they
    /// declined its cascade there (it is kept).
    fn row_text(
        &self,
        r: &Resource,
        (mark, kept): (Option<Mark>, bool),
        depth: u16,
        cols: Columns,
        text_w: usize,
    ) -> Line<'static> {
        let t = self.theme;
        let m = self.model;
        let op_style =
            r.op.filter(|_| r.status != Status::Skipped && !kept)
                .map_or(Style::new(), |op| t.op(op));
        // The widget puts the indent and the node symbol before this text.
        let indent = 2 * depth as usize + 2;
        let text_w = text_w.saturating_sub(indent);
        let name_w = cols.tree.saturating_sub(indent).max(8);
        let name = match mark {
            Some(Mark::Selected) => format!("[✓] {}", r.label()),
            Some(Mark::Excluded) => format!("[✗] {}", r.label()),
            Some(Mark::Implied) => format!("[+] {}", r.label()),
            None => r.label().into_owned(),
        };
        let mut spans = Vec::new();
        let mut name_w = name_w;
        if let Some((marker, level)) = policy_marker(m, r) {
            spans.push(Span::styled(marker, t.violation(level)));
            name_w = name_w.saturating_sub(width(marker)).max(2);
        }
        spans.push(Span::styled(
            pad(&cut_right(&name, name_w - 1), name_w),
            op_style,
        ));
        if cols.type_ > 0 {
            spans.push(Span::styled(
                pad(&shorten_left(r.type_(), cols.type_ - 1), cols.type_),
                t.dim(),
            ));
        }
        let status = if kept {
            KEPT.to_string()
        } else {
            status_text(r, m)
        };
        // Unchanged resources recede so that the changes stand out.
        let status_style = if r.op == Some(StepOp::Same) || kept {
            t.dim()
        } else {
            t.status(r.status)
        };
        spans.push(Span::styled(pad(&status, cols.status), status_style));
        // A time only means something for work done or under way in a live run.
        let timed = !m.run.preview && r.op != Some(StepOp::Same);
        let elapsed = if timed {
            r.elapsed(m.clock.now()).map(duration).unwrap_or_default()
        } else {
            String::new()
        };
        spans.push(Span::styled(format!("{elapsed:>6} "), t.dim()));
        let used: usize = spans.iter().map(|s| width(&s.content)).sum();
        let (info, is_err) = info_text(r);
        let room = text_w.saturating_sub(used);
        if room > 3 && !info.is_empty() {
            let style = if is_err { t.error() } else { t.dim() };
            spans.push(Span::styled(fit_words(&info, room), style));
        }
        Line::from(spans)
    }

    /// The tree items for `window` (rows of the flattened tree) under the window's ancestors,
    /// the number of ancestor rows the widget draws before the window, and the widget state
    /// (open nodes, selection) for them.
    fn window_items(
        &self,
        ui: &UiState,
        window: Range<usize>,
        selected_row: Option<usize>,
        cols: Columns,
        text_w: usize,
    ) -> (Vec<TreeItem<'static, usize>>, usize, TreeState<usize>) {
        let tree = &ui.layout.tree;
        let mut ancestors = Vec::new();
        let mut up = tree.parent_row(window.start);
        while let Some(row) = up {
            ancestors.push(row);
            up = tree.parent_row(row);
        }
        ancestors.reverse();
        let skipped = ancestors.len();
        let mut state = TreeState::default();
        let mut roots: Vec<TreeItem<'static, usize>> = Vec::new();
        let mut open: Vec<(u16, TreeItem<'static, usize>)> = Vec::new();
        let mut path: Vec<usize> = Vec::new();
        fn close(
            open: &mut Vec<(u16, TreeItem<'static, usize>)>,
            roots: &mut Vec<TreeItem<'static, usize>>,
        ) {
            if let Some((_, item)) = open.pop() {
                match open.last_mut() {
                    Some((_, parent)) => parent
                        .add_child(item)
                        .expect("resource indexes are unique among siblings"),
                    None => roots.push(item),
                }
            }
        }
        for row in ancestors.into_iter().chain(window) {
            let fr = tree.rows()[row];
            while open.last().is_some_and(|(d, _)| *d >= fr.depth) {
                close(&mut open, &mut roots);
                path.pop();
            }
            path.push(fr.idx);
            let r = self.model.resource(fr.idx);
            let collapsed = fr.has_children && ui.nav.collapsed.contains(&r.urn);
            let children = if collapsed {
                vec![TreeItem::new_leaf(PLACEHOLDER, "")]
            } else {
                Vec::new()
            };
            if fr.has_children && !collapsed {
                state.open(path.clone());
            }
            if selected_row == Some(row) {
                state.select(path.clone());
            }
            let mark = ui.presets.selection.mark(&r.urn);
            let kept = ui.presets.keeps(self.model, r);
            let text = self.row_text(r, (mark, kept), fr.depth, cols, text_w);
            let item = TreeItem::new(fr.idx, text, children)
                .expect("a collapsed node has one placeholder child");
            open.push((fr.depth, item));
        }
        while !open.is_empty() {
            close(&mut open, &mut roots);
        }
        (roots, skipped, state)
    }
}

impl StatefulWidget for ResourcesView<'_> {
    type State = UiState;

    fn render(self, area: Rect, buf: &mut Buffer, ui: &mut UiState) {
        let m = self.model;
        let t = self.theme;
        ui.refresh_tree(m);
        let total = m.resources().len();
        let mut title = format!(" Resources ({}) ", ui.layout.tree.len());
        if !ui.nav.filter.is_empty() {
            title = format!(
                " Resources  / {}  ({} of {total}) ",
                ui.nav.filter.text(),
                ui.layout.tree.len()
            );
        }
        if ui.nav.sort != SortKey::default() {
            title.push_str(&format!("by {} ", ui.nav.sort.label()));
        }
        let focus = t.border(self.focused);
        let inner = frame(area, buf, title, focus, focus);
        let h = inner.height as usize;
        if h == 0 || inner.width <= OP_W {
            return;
        }
        ui.layout.resources_rows = Some(inner);
        let sel = ui
            .nav
            .selected_index(m)
            .and_then(|i| ui.layout.tree.find(m, i));
        let scroll = &mut ui.scroll.resources;
        scroll.fit(ui.layout.tree.len(), h);
        if let Some(s) = sel {
            scroll.reveal(s..s + 1);
        }
        let offset = scroll.offset();
        if ui.layout.tree.is_empty() {
            let msg = if ui.nav.filter.is_empty() {
                "waiting for the first resource…"
            } else {
                "no resource matches the filter (Esc clears it)"
            };
            let w = inner.width as usize;
            buf.set_string(
                inner.x + 1,
                inner.y,
                fit_words(msg, w.saturating_sub(1)),
                t.dim(),
            );
            return;
        }
        let end = ui.layout.tree.reach(m, offset + h).len();
        let window = offset.min(end)..end;
        let tree_w = inner.width - OP_W;
        let cols = Columns::fit(inner.width as usize, m, ui, window.clone());
        let (items, skipped, mut state) =
            self.window_items(ui, window.clone(), sel, cols, tree_w as usize);
        // The widget draws the window's ancestors first; it draws off screen and the window
        // is copied into place.
        let rows = (skipped + window.len()).min(u16::MAX as usize) as u16;
        let mut scratch = Buffer::empty(Rect::new(0, 0, tree_w, rows));
        let widget = Tree::new(&items)
            .expect("resource indexes are unique among roots")
            .highlight_style(t.selected())
            .node_open_symbol("▾ ")
            .node_closed_symbol("▸ ")
            .node_no_children_symbol("  ");
        StatefulWidget::render(widget, scratch.area, &mut scratch, &mut state);
        for (line_no, row) in window.enumerate() {
            let y = inner.y + line_no as u16;
            for x in 0..tree_w {
                buf[(inner.x + OP_W + x, y)] = scratch[(x, (skipped + line_no) as u16)].clone();
            }
            let fr = ui.layout.tree.rows()[row];
            let r = m.resource(fr.idx);
            let op = shown_op(r, m, ui);
            let op_style = op.map_or(Style::new(), |op| t.op(op));
            let op = format!("{:<3}", op.map_or("", StepOp::prefix).trim_end());
            buf.set_stringn(inner.x, y, op, OP_W as usize, op_style);
            // The widget indents with blanks; the guides go over them.
            if fr.depth > 0 {
                let mut guides = ui.layout.tree.guides(row);
                if !fr.has_children {
                    guides.push('─');
                }
                let guide_w = width(&guides).min(tree_w as usize);
                buf.set_stringn(inner.x + OP_W, y, guides, guide_w, t.dim());
            }
            if sel == Some(row) {
                buf.set_style(Rect::new(inner.x, y, inner.width, 1), t.selected());
            }
        }
    }
}
