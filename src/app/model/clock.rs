//! The console's clocks: time since the console started (what step and chain times are
//! measured on: the wall time of a step, as Pulumi shows it), and the same without the time
//! spent paused (the run's time, shown with its pauses apart).

use std::time::Duration;

/// The console clock and its pauses.
#[derive(Clone, Debug, Default)]
pub struct Clock {
    now: Duration,
    /// When the run started, on the active clock.
    started_at: Option<Duration>,
    /// When the run started, on the console clock (what the Log's times count from).
    started_wall: Option<Duration>,
    /// When the current pause began (console clock).
    paused_since: Option<Duration>,
    /// Time spent paused in earlier pauses.
    paused_total: Duration,
}

impl Clock {
    /// The console clock: time since the console started.
    pub fn now(&self) -> Duration {
        self.now
    }

    /// The console clock without the time spent paused.
    pub fn active_now(&self) -> Duration {
        self.active_at(self.now)
    }

    /// The console instant `at` without the time spent paused before it.
    fn active_at(&self, at: Duration) -> Duration {
        at.saturating_sub(self.paused_total).saturating_sub(
            self.paused_since
                .map_or(Duration::ZERO, |p| at.saturating_sub(p)),
        )
    }

    /// Time spent paused so far.
    pub fn paused_time(&self) -> Duration {
        self.paused_total
            + self
                .paused_since
                .map_or(Duration::ZERO, |p| self.now.saturating_sub(p))
    }

    /// Active time since the run started (zero before it did).
    pub fn since_start(&self) -> Duration {
        self.started_at
            .map_or(Duration::ZERO, |s| self.active_now().saturating_sub(s))
    }

    /// Wall time since the run started, pauses included: the Log's clock, so the header and
    /// the Log never disagree about when something happened.
    pub fn since_start_wall(&self) -> Duration {
        self.started_wall
            .map_or(Duration::ZERO, |s| self.now.saturating_sub(s))
    }

    /// Advances the clock; it never goes back.
    pub(super) fn set_now(&mut self, now: Duration) {
        self.now = self.now.max(now);
    }

    /// The run starts at `at` (console clock: a watcher learns it from the served run).
    pub(super) fn start(&mut self, at: Duration) {
        self.started_at = Some(self.active_at(at));
        self.started_wall = Some(at);
    }

    /// A pause begins at `at` (unless one already runs).
    pub(super) fn pause(&mut self, at: Duration) {
        self.paused_since.get_or_insert(at);
    }

    /// The pause, if any, ends at `at`.
    pub(super) fn resume(&mut self, at: Duration) {
        if let Some(since) = self.paused_since.take() {
            self.paused_total += at.saturating_sub(since);
        }
    }
}
