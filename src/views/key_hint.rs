//! The one-line key hint at the foot of the screen: what the operator can do right now, the
//! filter being typed, or a notice.

use ratatui::text::{Line, Span};

use crate::app::console::ConsoleMode;
use crate::app::model::{Model, RunState};
use crate::app::ui_state::{UiState, ViewId};

use super::text::width;
use super::theme::Theme;

/// Hints for the current state, at most `w` cells (whole hints are dropped, never cut).
pub fn key_hint(model: &Model, ui: &UiState, t: Theme, w: usize) -> Line<'static> {
    if let Some(text) = &ui.nav.filter_input {
        return Line::from(vec![
            Span::styled(" / ", t.accent()),
            Span::raw(format!("{text}█")),
            Span::styled(
                "   Enter keep · Esc close · op: type: status: urn:",
                t.dim(),
            ),
        ]);
    }
    if let Some(text) = &ui.log_search.input {
        return Line::from(vec![
            Span::styled(" / ", t.accent()),
            Span::raw(format!("{text}█")),
            Span::styled("   Enter keep (n N next/prev) · Esc clear", t.dim()),
        ]);
    }
    if let Some(jump) = &ui.jump {
        return Line::from(vec![
            Span::styled(" : ", t.accent()),
            Span::raw(format!("{}█", jump.text)),
            Span::styled(
                "   name or URN · Tab next · Enter select · Esc cancel",
                t.dim(),
            ),
        ]);
    }
    if let Some(n) = &ui.overlay.notice {
        return Line::styled(format!(" {n}"), t.alert_border());
    }
    let state = model.run_state();
    let mut hints: Vec<(&str, &str)> = Vec::new();
    if ui.nav.zoomed {
        hints.push(("z", "unzoom"));
    }
    let deciding = matches!(
        ui.mode,
        ConsoleMode::Preview {
            awaiting_decision: true
        }
    );
    // Outside the pending view, a preview's `x` excludes rather than declines.
    let marking = deciding && ui.nav.focus != ViewId::Pending;
    // A failed or cancelled preview has nothing to apply or pick: only `n` is left.
    let applicable = deciding && !matches!(state, RunState::Failed | RunState::Cancelled);
    if deciding {
        if applicable {
            hints.push(("y", "apply"));
        }
        // In the Log, a search takes `n` for its next match.
        if !(ui.nav.focus == ViewId::Log && ui.log_search.active()) {
            hints.push(("n", "abort"));
        }
        // Offered where rows are picked; the keys work in every view but Pending.
        if applicable && matches!(ui.nav.focus, ViewId::Resources | ViewId::Graph) {
            hints.push(("space", "select"));
            hints.push(("x", "exclude"));
        }
        if !model.run.pending_creates().is_empty() {
            hints.push(("C", "clear pending creates"));
        }
    }
    let decidable = if ui.deciding_preview() {
        applicable && model.approvals.all().iter().any(|c| c.to_decide())
    } else {
        !ui.read_only_preview() && model.approvals.undecided() > 0
    };
    if decidable && !ui.watch_only {
        hints.push(("a", "approve"));
        if !marking {
            hints.push(("x", "decline"));
        }
        hints.push(("A", "all"));
    }
    if model.counts.failed() > 0 {
        hints.push(("e", "next error"));
    }
    // In the Log, its own keys come first: they are what acts there.
    let in_log = ui.nav.focus == ViewId::Log;
    if in_log {
        if ui.log_search.active() {
            hints.push(("n N", "match"));
        }
        hints.push(("/", "search"));
        let follow = if ui.scroll.log.following() {
            "hold"
        } else {
            "follow"
        };
        hints.push(("f", follow));
    }
    if !ui.layout.wide {
        hints.push(("1-7", "views"));
    }
    hints.push(("Enter", "details"));
    if !in_log {
        hints.push(("/", "filter"));
    }
    if !state.is_over() && ui.mode == ConsoleMode::Live && !ui.watch_only {
        hints.push((
            "p",
            if state == RunState::Paused {
                "resume"
            } else {
                "pause"
            },
        ));
        hints.push(("c", "cancel"));
    }
    if ui.nav.focus == ViewId::Graph {
        hints.push(("f", "focus"));
    }
    // An attached console only leaves: the served run goes on.
    hints.push(("q", if ui.watch_only { "detach" } else { "quit" }));
    hints.push(("?", "help"));
    // Last, so that they take only room the keys above leave (a zoom says first how to
    // leave it).
    if !ui.nav.zoomed {
        hints.push(("z", "zoom"));
    }
    hints.push((":", "jump"));
    let mut spans: Vec<Span<'static>> = Vec::new();
    let mut used = 0;
    for (k, what) in hints {
        let item = width(k) + width(what) + 3;
        if used + item > w {
            break;
        }
        used += item;
        spans.push(Span::styled(format!(" {k}"), t.bold()));
        spans.push(Span::styled(format!(" {what} "), t.dim()));
    }
    Line::from(spans)
}
