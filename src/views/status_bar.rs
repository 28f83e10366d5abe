//! The top bar: operation, stack, state, elapsed time, workers and counts, always visible.
//! Segments are dropped by priority when the terminal is narrow, never cut mid-word.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Widget;

use crate::app::console::ConsoleMode;
use crate::app::model::{Model, RunState};
use crate::app::ui_state::UiState;
use crate::engine::StepOp;
use crate::output::summary::declined_phrase;

use super::text::{clock, fit_words, width};
use super::theme::Theme;

/// The top bar widget.
pub struct StatusBar<'a> {
    pub model: &'a Model,
    pub ui: &'a UiState,
    pub theme: Theme,
}

/// Ops shown in the counts, in Pulumi's order.
const COUNTED: [StepOp; 7] = [
    StepOp::Create,
    StepOp::Update,
    StepOp::Replace,
    StepOp::Delete,
    StepOp::Read,
    StepOp::Import,
    StepOp::Refresh,
];

/// The phase's priority: kept whole when it fits, else cut to the room the others leave.
const PHASE: u8 = 5;

/// A phase cut shorter than this says nothing: it is left out.
const PHASE_MIN: usize = 12;

impl StatusBar<'_> {
    fn segments(&self) -> Vec<(u8, Vec<Span<'static>>)> {
        let m = self.model;
        let t = self.theme;
        let state = m.run_state();
        let operation = m
            .run
            .operation
            .map_or(self.ui.title.operation.clone(), |o| o.as_str().to_string());
        let stack = if m.run.stack.is_empty() {
            &self.ui.title.stack
        } else {
            &m.run.stack
        };
        let project = if m.run.project.is_empty() {
            &self.ui.title.project
        } else {
            &m.run.project
        };
        let mut segs: Vec<(u8, Vec<Span<'static>>)> = Vec::new();
        segs.push((7, vec![Span::styled(" stepdeck ", t.accent())]));
        segs.push((
            1,
            vec![
                Span::styled(format!("{operation} "), t.bold()),
                Span::raw(format!("{stack} ▸ {project}")),
            ],
        ));
        if let Some(phase) = &self.ui.title.phase {
            segs.push((PHASE, vec![Span::styled(phase.clone(), t.accent())]));
        }
        let preview_decision = matches!(
            self.ui.mode,
            ConsoleMode::Preview {
                awaiting_decision: true
            }
        );
        let mut state_spans = vec![Span::styled(
            format!(" {} ", state.label()),
            t.run_state(state),
        )];
        if state == RunState::AwaitingApproval {
            state_spans[0] = Span::styled(
                format!(" ⚠ AWAITING APPROVAL ({}) ", m.approvals.undecided()),
                t.alert(),
            );
        } else if m.approvals.undecided() > 0 && !state.is_over() {
            state_spans.push(Span::raw(" "));
            state_spans.push(Span::styled(" ⚠ AWAITING APPROVAL ", t.alert()));
        }
        if preview_decision {
            // `y` only applies a finished plan: the bar asks for it only then.
            state_spans = match state {
                RunState::Done => vec![Span::styled(" PREVIEW — y apply · n abort ", t.alert())],
                RunState::Failed | RunState::Cancelled => vec![
                    Span::styled(format!(" PREVIEW {} ", state.label()), t.run_state(state)),
                    Span::raw(" n abort"),
                ],
                _ => vec![Span::styled(" PREVIEWING… ", t.run_state(state))],
            };
            let (selected, excluded) = self.ui.presets.selection.counts();
            if selected + excluded > 0 {
                let implied = self.ui.presets.selection.implied_count();
                let with = if implied > 0 {
                    format!(" · {implied} with it")
                } else {
                    String::new()
                };
                state_spans.push(Span::raw(" "));
                state_spans.push(Span::styled(
                    format!(" {selected} selected · {excluded} excluded{with} "),
                    t.accent(),
                ));
            }
            let pending = m.run.pending_creates().len();
            if pending > 0 {
                let text = if self.ui.presets.pending_creates_marked().is_some() {
                    format!(" {pending} pending creates will be cleared ")
                } else {
                    format!(" ⚠ {pending} pending creates · C clear ")
                };
                state_spans.push(Span::raw(" "));
                state_spans.push(Span::styled(text, t.alert()));
            }
        }
        if self.ui.watch_only {
            state_spans.push(Span::raw(" "));
            state_spans.push(Span::styled(" WATCH ONLY ", t.dim()));
        }
        segs.push((0, state_spans));
        // One clock with the Log's: wall time, the pauses in it said apart.
        let mut time = format!("⏱ {}", clock(m.wall_elapsed()));
        let paused = m.clock.paused_time();
        if paused.as_secs() > 0 {
            time.push_str(&format!(" ({} paused)", clock(paused)));
        }
        segs.push((2, vec![Span::raw(time)]));
        let (done, total) = m.counts.progress();
        if total > 0 && !m.run.preview {
            let done = done.min(total);
            let mut text = format!("{done}/{total} steps {}%", done * 100 / total);
            let declined = m.counts.declined();
            let cascades = m.counts.cascades_declined();
            if cascades > 0 {
                let phrase = declined_phrase(cascades, Some(declined));
                text.push_str(&format!(" · {phrase}"));
            } else if declined > 0 {
                text.push_str(&format!(" · {declined} declined"));
            }
            let beyond = m.counts.beyond_preview();
            if beyond > 0 {
                text.push_str(&format!(" (+{beyond} beyond the preview)"));
            }
            if let Some(eta) = m.eta() {
                text.push_str(&format!(" ETA {}", clock(eta)));
            }
            segs.push((4, vec![Span::raw(text)]));
        }
        if !m.run.parallel_diff
            && !m.run.preview
            && m.run.summary.is_none()
            && m.run.operation == Some(crate::engine::Operation::Update)
        {
            segs.push((8, vec![Span::styled("diffs serial", t.dim())]));
        }
        if m.run.parallel > 0 && !m.run.preview {
            segs.push((
                5,
                vec![Span::raw(format!(
                    "workers {}/{}",
                    m.workers_busy(),
                    m.run.parallel
                ))],
            ));
        }
        let planned = m.run.preview || m.run.summary.as_ref().is_some_and(|s| s.preview);
        let mut counts: Vec<Span<'static>> = Vec::new();
        for op in COUNTED {
            // Once over, the bar counts what the summary below counts.
            let n = match &m.run.summary {
                Some(s) => s.counts.get(&op).copied().unwrap_or(0),
                None if planned => m.counts.planned(op),
                None => m.counts.done(op),
            };
            // What the operator declined in the preview is kept: it leaves the counts.
            let n = n.saturating_sub(self.ui.presets.kept(m, op));
            if n > 0 {
                if !counts.is_empty() {
                    counts.push(Span::raw(" "));
                }
                counts.push(Span::styled(
                    format!("{}{n}", op.prefix().trim_end()),
                    t.op(op),
                ));
            }
        }
        if m.counts.failed() > 0 {
            counts.push(Span::styled(
                format!("  ✗{} failed", m.counts.failed()),
                t.error(),
            ));
        }
        if m.counts.skipped() > 0 {
            counts.push(Span::styled(
                format!("  {} skipped", m.counts.skipped()),
                t.dim(),
            ));
        }
        if !counts.is_empty() {
            segs.push((3, counts));
        }
        segs.push((6, vec![Span::styled("? help", t.dim())]));
        segs
    }
}

impl Widget for StatusBar<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let segs = self.segments();
        let gap = 2;
        let seg_width = |s: &Vec<Span>| s.iter().map(|x| width(&x.content)).sum::<usize>();
        let mut order: Vec<usize> = (0..segs.len()).collect();
        order.sort_by_key(|&i| segs[i].0);
        let mut keep = vec![false; segs.len()];
        let mut used = 0;
        for &i in &order {
            let w = seg_width(&segs[i].1) + if used == 0 { 0 } else { gap };
            if used + w <= area.width as usize {
                keep[i] = true;
                used += w;
            }
        }
        // A long phase (a demo's, a plan file's name) is cut, never pushing the title out.
        let mut segs = segs;
        let room = (area.width as usize).saturating_sub(used + gap);
        let phase = self.ui.title.phase.as_deref();
        let cut = (0..segs.len()).find(|&i| {
            segs[i].0 == PHASE && !keep[i] && phase == Some(segs[i].1[0].content.as_ref())
        });
        if let Some(i) = cut
            && room >= PHASE_MIN
        {
            let span = &mut segs[i].1[0];
            span.content = fit_words(&span.content, room).into();
            keep[i] = true;
        }
        let mut spans: Vec<Span> = Vec::new();
        for (i, (_, s)) in segs.into_iter().enumerate() {
            if keep[i] {
                if !spans.is_empty() {
                    spans.push(Span::raw(" ".repeat(gap)));
                }
                spans.extend(s);
            }
        }
        Line::from(spans).render(area, buf);
    }
}
