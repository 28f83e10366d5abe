//! One lane per step chain: its steps in order (done, running, to come), the worker, elapsed time,
//! and whether it waits for approval or is held by pause. Lanes that wait for the operator first.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::StatefulWidget;

use crate::app::model::{Cascade, Chain, ChainState, Model, label};
use crate::app::preset::Presets;
use crate::app::ui_state::Scroll;
use crate::engine::StepOp;

use super::frame::frame;
use super::text::{duration, fit_words, width};
use super::theme::Theme;

/// The chains view; its state is its [`Scroll`] over the lanes in display order.
pub struct ChainsView<'a> {
    pub model: &'a Model,
    pub theme: Theme,
    pub focused: bool,
    /// Rows at the bottom left for the diff gauge.
    pub footer: u16,
    /// The plan's decisions: a lane the operator declined there is kept, not run.
    pub presets: &'a Presets,
}

fn marker(c: &Chain, paused: bool) -> (&'static str, ChainState) {
    match c.state {
        ChainState::AwaitingApproval => ("⚠ awaiting approval", c.state),
        ChainState::Queued | ChainState::Running if paused && c.current.is_none() => {
            ("⏸ paused", ChainState::Queued)
        }
        ChainState::Queued => ("queued", c.state),
        ChainState::Running => ("", c.state),
        ChainState::Done => ("✓ done", c.state),
        ChainState::Failed => ("✗ failed", c.state),
        ChainState::Declined => ("declined", c.state),
        ChainState::Skipped => ("skipped", c.state),
    }
}

/// One lane as a line `#7 w3  -- app ▸ -- db ▸ ++ db   ⚠ awaiting approval  2.1s`, fitted to `w`.
pub fn lane(c: &Chain, (m, presets): (&Model, &Presets), t: Theme, w: usize) -> Line<'static> {
    // A preview runs nothing: its chains are plans, with no worker or time of their own.
    let worker = match c.worker {
        Some(w) if !m.run.preview => format!("w{w}"),
        _ => "  ".to_string(),
    };
    // A lane of a cascade declined (in the plan, or in the run): what it holds is kept.
    let kept = m.run.preview
        && (c
            .cascade
            .and_then(|id| m.approvals.get(id))
            .is_some_and(|x| presets.get(x) == Some(false))
            || (!c.steps.is_empty()
                && c.steps
                    .iter()
                    .all(|(_, u)| m.get(u).is_some_and(|r| presets.keeps(m, r)))))
        || c.state == ChainState::Declined;
    let (mark, mark_state) = match marker(c, m.run.paused) {
        _ if kept => ("declined: kept", ChainState::Declined),
        (_, ChainState::Done) if m.run.preview => ("planned", ChainState::Queued),
        other => other,
    };
    let elapsed = if m.run.preview {
        String::new()
    } else {
        c.elapsed(m.clock.now()).map(duration).unwrap_or_default()
    };
    let mut tail: Vec<Span<'static>> = Vec::new();
    if !mark.is_empty() {
        tail.push(Span::raw("  "));
        tail.push(Span::styled(mark.to_string(), t.chain(mark_state)));
    }
    if !elapsed.is_empty() {
        tail.push(Span::styled(format!("  {elapsed}"), t.dim()));
    }
    let head = Span::styled(format!("#{:<3} {worker:<3} ", c.id), t.dim());
    let room = w
        .saturating_sub(width(&head.content))
        .saturating_sub(tail.iter().map(|s| width(&s.content)).sum());
    let first = c.current.unwrap_or(c.finished_steps).saturating_sub(1);
    let first = if c.steps.len() > 3 {
        first.min(c.steps.len() - 1)
    } else {
        0
    };
    let mut steps: Vec<Span<'static>> = Vec::new();
    let mut used = 0;
    if first > 0 {
        steps.push(Span::styled("… ", t.dim()));
        used += 2;
    }
    for (k, (op, urn)) in c.steps.iter().enumerate().skip(first) {
        // A kept lane changes nothing: each of its resources once, under the lane's mark.
        if kept && c.steps[first..k].iter().any(|(_, u)| u == urn) {
            continue;
        }
        let sep = if k > first { " ▸ " } else { "" };
        let (op, text) = if kept {
            (StepOp::Same, label(urn).into_owned())
        } else {
            let op = shown_step_op(m, *op, urn);
            (op, format!("{} {}", op.prefix().trim_end(), label(urn)))
        };
        if used + width(sep) + width(&text) + 2 > room {
            steps.push(Span::styled(" …", t.dim()));
            break;
        }
        used += width(sep) + width(&text);
        let style = if Some(k) == c.current {
            t.op(op).patch(t.bold()).patch(
                ratatui::style::Style::new().add_modifier(ratatui::style::Modifier::UNDERLINED),
            )
        } else if k < c.finished_steps {
            t.dim()
        } else {
            t.op(op)
        };
        steps.push(Span::styled(sep, t.dim()));
        steps.push(Span::styled(text, style));
    }
    // A gate held for approval has no steps yet: say what it will do.
    if c.steps.is_empty()
        && let Some(cascade) = c.cascade.and_then(|id| m.approvals.get(id))
    {
        let (text, op) = held_text(cascade);
        let (text, style) = if kept {
            let unsigned = text.trim_start_matches(op.prefix().trim()).trim_start();
            (unsigned.to_string(), t.dim())
        } else {
            (text, t.op(op))
        };
        steps.push(Span::styled(fit_words(&text, room), style));
    }
    let mut spans = vec![head];
    spans.extend(steps);
    let now_used: usize = spans.iter().map(|s| width(&s.content)).sum();
    let tail_w: usize = tail.iter().map(|s| width(&s.content)).sum();
    if now_used + tail_w < w {
        spans.push(Span::raw(" ".repeat(w - now_used - tail_w)));
    }
    spans.extend(tail);
    Line::from(spans)
}

/// The op a lane shows for a step: a refresh's is what the refresh found (the row's `~ update`,
/// `- delete` or same), as the tree, the details and the summaries show it.
fn shown_step_op(m: &Model, op: StepOp, urn: &crate::engine::Urn) -> StepOp {
    match m.get(urn).and_then(|r| r.op) {
        Some(found) if op == StepOp::Refresh => found,
        _ => op,
    }
}

/// What a held gate will do once approved, labelled by its kind: a single step's gate as its
/// operation and the policy that holds it (`~ cfg (updates=ask)`), a delete-before-replace
/// cascade as its root and the dependents it takes along.
fn held_text(cascade: &Cascade) -> (String, StepOp) {
    if let Some((op, kind, asked)) = cascade.step {
        let text = format!(
            "{} {} ({}={})",
            op.prefix().trim(),
            cascade.root.name(),
            kind.as_str(),
            if asked { "ask" } else { "decline" }
        );
        return (text, op);
    }
    let dependents = cascade
        .members
        .iter()
        .filter(|x| x.urn != cascade.root)
        .count();
    let text = format!(
        "+- {} and {dependents} dependent{} (delete-before-replace)",
        cascade.root.name(),
        if dependents == 1 { "" } else { "s" }
    );
    (text, StepOp::Replace)
}

impl StatefulWidget for ChainsView<'_> {
    type State = Scroll;

    fn render(self, area: Rect, buf: &mut Buffer, scroll: &mut Scroll) {
        let m = self.model;
        let t = self.theme;
        let running = m.chains.running();
        let title = format!(" Chains ({} · {running} running) ", m.chains.all().len());
        let focus = t.border(self.focused);
        let inner = frame(area, buf, title, focus, focus);
        let h = inner.height.saturating_sub(self.footer) as usize;
        if h == 0 {
            return;
        }
        scroll.fit(m.chains.all().len(), h);
        let (offset, cursor) = (scroll.offset(), scroll.cursor());
        for (line_no, (k, c)) in m
            .chains
            .in_order()
            .enumerate()
            .skip(offset)
            .take(h)
            .enumerate()
        {
            let mut line = lane(c, (m, self.presets), t, inner.width as usize);
            if self.focused && k == cursor {
                line = line.patch_style(t.selected());
            }
            buf.set_line(inner.x, inner.y + line_no as u16, &line, inner.width);
        }
        if m.chains.all().is_empty() {
            buf.set_string(inner.x + 1, inner.y, "no chain queued yet", t.dim());
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::app::sample::sample_urn;
    use crate::engine::run::approval::ApprovalKind;
    use crate::engine::run::events::{CascadeMember, CascadeReason};

    fn gate(step: Option<(StepOp, ApprovalKind, bool)>, members: &[&str]) -> Cascade {
        let root = sample_urn("sim:index:Resource", "cfg");
        Cascade {
            id: 1,
            chain: 1,
            root: root.clone(),
            members: members
                .iter()
                .map(|n| CascadeMember {
                    urn: if *n == "cfg" {
                        root.clone()
                    } else {
                        sample_urn("sim:index:Resource", n)
                    },
                    type_: "sim:index:Resource".into(),
                    reason: CascadeReason::Root { keys: Vec::new() },
                })
                .collect(),
            decided: None,
            deadline: None,
            at: Duration::ZERO,
            planned: false,
            abandoned: false,
            step,
        }
    }

    #[test]
    fn a_held_gate_is_labelled_by_its_kind() {
        let update = gate(Some((StepOp::Update, ApprovalKind::Updates, true)), &[]);
        assert_eq!(
            held_text(&update),
            ("~ cfg (updates=ask)".into(), StepOp::Update)
        );
        let cascade = gate(None, &["cfg", "app"]);
        assert_eq!(
            held_text(&cascade).0,
            "+- cfg and 1 dependent (delete-before-replace)"
        );
    }

    #[test]
    fn a_declined_lane_names_each_resource_once_marked_kept() {
        let urn = sample_urn("sim:index:Server", "server-5");
        let chain = Chain {
            id: 7,
            steps: std::sync::Arc::from(vec![
                (StepOp::CreateReplacement, urn.clone()),
                (StepOp::Replace, urn.clone()),
                (StepOp::DeleteReplaced, urn),
            ]),
            state: ChainState::Declined,
            worker: None,
            current: None,
            finished_steps: 0,
            started: None,
            ended: None,
            busy: Duration::ZERO,
            step_started: None,
            cascade: None,
            failed: false,
        };
        let line = lane(
            &chain,
            (&Model::new(), &Presets::default()),
            Theme::colored(),
            80,
        );
        let text: String = line.spans.iter().map(|s| s.content.as_ref()).collect();
        assert_eq!(text.matches("server-5").count(), 1, "{text}");
        assert!(!text.contains('▸'), "{text}");
        assert!(text.trim_end().ends_with("declined: kept"), "{text}");
    }
}
