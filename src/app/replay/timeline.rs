//! A recorded run on a timeline: the console's model as it was after any line of its stream,
//! rebuilt by the model's own reducer. The cursor counts the stream's lines, as `grep -n` does
//! (line 41 is the 41st line of the `--event-log` file), so an operator finds in the file what
//! the timeline shows. A copy of the model is kept every [`SNAPSHOT_EVERY`] events (further
//! apart in a long run: at most [`SNAPSHOTS`] copies, fewer in a run of millions), so a jump
//! anywhere reduces at most that many events.

use std::time::Duration;

use crate::engine::{EngineEvent, Severity};
use crate::output::event_log_reader::{Edges, RecordedRun};

use super::super::model::Model;

/// Events between two kept models, at least: a jump costs at most this many reductions.
pub const SNAPSHOT_EVERY: usize = 512;
/// Kept models at most, whatever the run's length: what a long run's timeline holds.
pub const SNAPSHOTS: usize = 64;
/// Events the kept models may stand for together: a model grows with the events reduced into
/// it, so a run of millions keeps a few copies (at least two) rather than 64 of its whole stack.
const COPIED_EVENTS: usize = 4_000_000;

/// How many events apart the kept models of a run of `events` are.
fn spacing(events: usize) -> usize {
    let copies = SNAPSHOTS.min((COPIED_EVENTS / events.max(1)).max(2));
    SNAPSHOT_EVERY.max(events.div_ceil(copies))
}

/// How fast play goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Speed {
    X1,
    X4,
    X16,
    /// No waiting between lines: one line of the stream a frame.
    Max,
}

impl Speed {
    const ALL: [Speed; 4] = [Speed::X1, Speed::X4, Speed::X16, Speed::Max];

    pub fn label(self) -> &'static str {
        match self {
            Speed::X1 => "1x",
            Speed::X4 => "4x",
            Speed::X16 => "16x",
            Speed::Max => "max",
        }
    }

    fn factor(self) -> Option<u32> {
        match self {
            Speed::X1 => Some(1),
            Speed::X4 => Some(4),
            Speed::X16 => Some(16),
            Speed::Max => None,
        }
    }

    pub fn faster(self) -> Speed {
        let i = Speed::ALL.iter().position(|s| *s == self).unwrap_or(0);
        Speed::ALL[(i + 1).min(Speed::ALL.len() - 1)]
    }

    pub fn slower(self) -> Speed {
        let i = Speed::ALL.iter().position(|s| *s == self).unwrap_or(0);
        Speed::ALL[i.saturating_sub(1)]
    }
}

/// A recorded run, the cursor in it (the last line read) and the model there.
pub struct Timeline {
    events: Vec<(Duration, EngineEvent)>,
    /// The line of each event, in order.
    event_lines: Vec<usize>,
    /// The stream's lines: the cursor's end.
    lines: usize,
    /// `snapshots[k]`: the model after `k * every` events.
    snapshots: Vec<Model>,
    every: usize,
    model: Model,
    /// Events reduced into `model`.
    applied: usize,
    /// Lines read: every event of lines up to it is in the model.
    cursor: usize,
    /// Where play stands in the run's time (at or after the cursor's event).
    position: Duration,
    pub playing: bool,
    pub speed: Speed,
    /// Where the graph's edges come from.
    edges: Edges,
}

fn reduce(model: &mut Model, (at, e): &(Duration, EngineEvent)) {
    model.set_now(*at);
    model.apply(e);
}

/// Whether an event is one an incident review jumps between: a decision, a pause or a cancel.
fn is_decision(e: &EngineEvent) -> bool {
    matches!(
        e,
        EngineEvent::Decision { .. }
            | EngineEvent::PendingReplacement { .. }
            | EngineEvent::GateOpened { .. }
            | EngineEvent::Paused
            | EngineEvent::Resumed
            | EngineEvent::Breakpoint { .. }
            | EngineEvent::CancelRequested { .. }
    )
}

fn is_error(e: &EngineEvent) -> bool {
    matches!(
        e,
        EngineEvent::StepFailed { .. }
            | EngineEvent::Diagnostic {
                severity: Severity::Error,
                ..
            }
    )
}

impl Timeline {
    /// The timeline of a recorded run (`replay FILE`, `stack history --open`, the benchmark
    /// and the tests build it here alike), its cursor before the first line.
    pub fn new(run: RecordedRun) -> Timeline {
        let RecordedRun {
            events: recorded,
            lines,
            edges,
        } = run;
        let event_lines: Vec<usize> = recorded.iter().map(|e| e.line).collect();
        let lines = lines.max(event_lines.last().copied().unwrap_or(0));
        let events: Vec<(Duration, EngineEvent)> =
            recorded.into_iter().map(|e| (e.at, e.event)).collect();
        let every = spacing(events.len());
        let mut snapshots = vec![Model::new()];
        let mut model = Model::new();
        for (i, e) in events.iter().enumerate() {
            reduce(&mut model, e);
            if (i + 1) % every == 0 {
                snapshots.push(model.clone());
            }
        }
        Timeline {
            events,
            event_lines,
            lines,
            snapshots,
            every,
            model: Model::new(),
            applied: 0,
            cursor: 0,
            position: Duration::ZERO,
            playing: false,
            speed: Speed::X1,
            edges,
        }
    }

    /// Where the graph's edges come from, as the timeline says it.
    pub fn edges(&self) -> &Edges {
        &self.edges
    }

    /// The model after the events up to the cursor.
    pub fn model(&self) -> &Model {
        &self.model
    }

    /// The stream's line the cursor stands after (0 before the first).
    pub fn cursor(&self) -> usize {
        self.cursor
    }

    /// The stream's lines.
    pub fn len(&self) -> usize {
        self.lines
    }

    pub fn is_empty(&self) -> bool {
        self.lines == 0
    }

    /// Events on lines up to `line`.
    fn events_through(&self, line: usize) -> usize {
        self.event_lines.partition_point(|l| *l <= line)
    }

    /// Where the cursor stands in the run's time.
    pub fn position(&self) -> Duration {
        self.position
    }

    /// The run's length: the time of its last event.
    pub fn total(&self) -> Duration {
        self.events.last().map_or(Duration::ZERO, |(at, _)| *at)
    }

    /// The time of the last of the first `applied` events.
    fn time_of(&self, applied: usize) -> Duration {
        applied
            .checked_sub(1)
            .and_then(|i| self.events.get(i))
            .map_or(Duration::ZERO, |(at, _)| *at)
    }

    /// Moves the cursor to after line `line` (clamped), rebuilding the model from the nearest
    /// kept one at or before it; play stops at the end.
    pub fn seek(&mut self, line: usize) {
        let line = line.min(self.lines);
        let applied = self.events_through(line);
        let from = if applied >= self.applied && applied - self.applied < self.every {
            self.applied
        } else {
            let k = (applied / self.every).min(self.snapshots.len() - 1);
            self.model = self.snapshots[k].clone();
            k * self.every
        };
        for e in &self.events[from..applied] {
            reduce(&mut self.model, e);
        }
        self.applied = applied;
        self.cursor = line;
        self.position = self.time_of(applied);
        self.model.set_now(self.position);
        if line == self.lines {
            self.playing = false;
        }
    }

    /// The line of event `i`.
    fn line_of(&self, i: usize) -> usize {
        self.event_lines.get(i).copied().unwrap_or(self.lines)
    }

    pub fn step_forward(&mut self) {
        self.seek(self.cursor + 1);
    }

    pub fn step_back(&mut self) {
        self.seek(self.cursor.saturating_sub(1));
    }

    /// To just after the line of the first failure (a failed step or an error); false when
    /// there is none.
    pub fn first_error(&mut self) -> bool {
        match self.first_error_at() {
            Some(line) => {
                self.seek(line);
                true
            }
            None => false,
        }
    }

    /// The line of the first failure, if the run had one.
    pub fn first_error_at(&self) -> Option<usize> {
        self.events
            .iter()
            .position(|(_, e)| is_error(e))
            .map(|i| self.line_of(i))
    }

    /// To just after the line of the next decision, gate, pause or cancel; false when none
    /// follows.
    pub fn next_decision(&mut self) -> bool {
        let next = self.events[self.applied..]
            .iter()
            .position(|(_, e)| is_decision(e));
        match next {
            Some(i) => {
                self.seek(self.line_of(self.applied + i));
                true
            }
            None => false,
        }
    }

    /// To just after the line of the previous decision, gate, pause or cancel (before the
    /// cursor's own line).
    pub fn prev_decision(&mut self) -> bool {
        let before = self.events_through(self.cursor.saturating_sub(1));
        match self.events[..before]
            .iter()
            .rposition(|(_, e)| is_decision(e))
        {
            Some(i) => {
                self.seek(self.line_of(i));
                true
            }
            None => {
                self.seek(0);
                false
            }
        }
    }

    /// Play from the cursor (from the start once at the end), or stop.
    pub fn toggle_play(&mut self) {
        if !self.playing && self.cursor == self.lines {
            self.seek(0);
        }
        self.playing = !self.playing;
    }

    /// Lets `elapsed` of real time pass at the play speed: the events due happen.
    pub fn advance(&mut self, elapsed: Duration) {
        if !self.playing {
            return;
        }
        let Some(factor) = self.speed.factor() else {
            self.step_forward();
            return;
        };
        let position = self.position + elapsed * factor;
        let due = self.applied
            + self.events[self.applied..]
                .iter()
                .take_while(|(at, _)| *at <= position)
                .count();
        let line = if due == self.events.len() {
            self.lines
        } else {
            self.line_of(due).saturating_sub(1).max(self.cursor)
        };
        self.seek(line);
        if self.playing {
            self.position = position;
            self.model.set_now(position);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_run_keeps_few_enough_models_that_they_stay_within_a_few_of_its_size() {
        assert_eq!(spacing(1_000), SNAPSHOT_EVERY);
        for events in [10_000_usize, 100_000, 1_000_000, 6_000_000, 60_000_000] {
            let copies = events.div_ceil(spacing(events));
            assert!(copies <= SNAPSHOTS, "{events}: {copies} copies");
            assert!(
                copies * events <= COPIED_EVENTS.max(2 * events),
                "{events} events keep {copies} copies"
            );
        }
    }
}
