//! The replay's timeline, two lines under the console: where the cursor stands in the run
//! (the stream's line, as `grep -n` numbers it, and time; a scrub bar with the first failure
//! marked), where the graph's edges come from, the playback (`▶ playing`, `paused playback`: never the run's own ⏸, which the
//! console keeps for a run its operator paused, said here as `run paused by …`) and speed,
//! the read-only marker, and the timeline's keys.

use std::time::Duration;

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Widget;

use crate::app::replay::Timeline;

use super::text::width;
use super::theme::Theme;

/// Rows the timeline takes under the console.
pub const TIMELINE_HEIGHT: u16 = 2;

/// The timeline of a replayed run.
pub struct TimelineBar<'a> {
    pub timeline: &'a Timeline,
    pub theme: Theme,
}

fn clock(d: Duration) -> String {
    let s = d.as_secs();
    format!("{:02}:{:02}", s / 60, s % 60)
}

/// `width` cells of scrub bar: the cursor's share of the events filled, `✗` where the first
/// failure happens, `●` at the cursor.
fn scrub(len: usize, cursor: usize, error: Option<usize>, width: usize) -> String {
    if width == 0 {
        return String::new();
    }
    let cell = |n: usize| {
        if len == 0 {
            0
        } else {
            (n * (width - 1)).div_ceil(len).min(width - 1)
        }
    };
    let at = cell(cursor);
    let error = error.map(cell);
    (0..width)
        .map(|i| {
            if i == at {
                '●'
            } else if Some(i) == error {
                '✗'
            } else if i < at {
                '━'
            } else {
                '─'
            }
        })
        .collect()
}

impl Widget for TimelineBar<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let (tl, t) = (self.timeline, self.theme);
        let state = if tl.playing {
            format!("▶ playing {}", tl.speed.label())
        } else {
            format!("paused playback {}", tl.speed.label())
        };
        let mut left = vec![
            Span::styled(" REPLAY · read-only ", t.alert()),
            Span::raw(" "),
            Span::styled(state, t.bold()),
            Span::raw(format!(
                "  line {}/{}  {} / {}  ",
                tl.cursor(),
                tl.len(),
                clock(tl.position()),
                clock(tl.total())
            )),
        ];
        if let Some(by) = tl.model().run.paused_by() {
            left.push(Span::styled(format!("run paused {by} "), t.alert()));
        }
        let error = tl.first_error_at();
        let right = match error {
            Some(n) => format!("  ✗ first failure: line {n} "),
            None => "  no failure ".to_string(),
        };
        let used: usize = left.iter().map(|s| width(&s.content)).sum::<usize>() + width(&right);
        let bar = scrub(
            tl.len(),
            tl.cursor(),
            error,
            (area.width as usize).saturating_sub(used),
        );
        let mut spans = left;
        spans.push(Span::styled(bar, t.accent()));
        spans.push(Span::styled(right, t.dim()));
        buf.set_line(area.x, area.y, &Line::from(spans), area.width);
        if area.height > 1 {
            // The keys first: a narrow terminal cuts the note on the edges, not the keys.
            let keys = Line::from(vec![
                Span::styled(
                    " space play/stop · , . step · [ ] decisions · ! first failure · - + speed · 0 $ start/end · q quit · ",
                    t.dim(),
                ),
                Span::styled(format!("edges: {}", tl.edges().note()), t.bold()),
            ]);
            buf.set_line(area.x, area.y + 1, &keys, area.width);
        }
    }
}
