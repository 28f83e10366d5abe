//! The order of siblings in the resource tree: by name (the default, the same every run
//! whatever order the engine finished in), type, status or time spent.

use std::cmp::Ordering;

use super::model::{Model, Status};

/// What the tree sorts siblings by; `o` cycles through them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum SortKey {
    #[default]
    Name,
    Type,
    Status,
    Duration,
}

impl SortKey {
    /// The next key `o` moves to.
    pub fn next(self) -> SortKey {
        match self {
            SortKey::Name => SortKey::Type,
            SortKey::Type => SortKey::Status,
            SortKey::Status => SortKey::Duration,
            SortKey::Duration => SortKey::Name,
        }
    }

    /// The key as the Resources title names it.
    pub fn label(self) -> &'static str {
        match self {
            SortKey::Name => "name",
            SortKey::Type => "type",
            SortKey::Status => "status",
            SortKey::Duration => "duration",
        }
    }

    /// Whether the order changes as the run goes on (not only when resources are added).
    pub fn volatile(self) -> bool {
        matches!(self, SortKey::Status | SortKey::Duration)
    }

    /// Sorts resource indexes of the model in this order. By name, each name is found once
    /// (a name is parsed out of its URN) rather than once per comparison.
    pub fn sort(self, model: &Model, rows: &mut [usize]) {
        match self {
            SortKey::Name => rows.sort_by_cached_key(|&i| {
                let r = model.resource(i);
                (r.name(), r.urn.as_str())
            }),
            _ => rows.sort_by(|&a, &b| self.compare(model, a, b)),
        }
    }

    /// Orders two resources of the model; ties fall back to name, then URN, so the order is
    /// total and the same every run.
    pub fn compare(self, model: &Model, a: usize, b: usize) -> Ordering {
        let (ra, rb) = (model.resource(a), model.resource(b));
        let by_name = || {
            ra.name()
                .cmp(rb.name())
                .then_with(|| ra.urn.as_str().cmp(rb.urn.as_str()))
        };
        match self {
            SortKey::Name => by_name(),
            SortKey::Type => ra.type_.cmp(&rb.type_).then_with(by_name),
            SortKey::Status => urgency(ra.status)
                .cmp(&urgency(rb.status))
                .then_with(by_name),
            // Longest first: the slow ones are what the operator looks for.
            SortKey::Duration => {
                let now = model.active_now();
                rb.elapsed(now).cmp(&ra.elapsed(now)).then_with(by_name)
            }
        }
    }
}

/// Statuses that need the operator first.
fn urgency(s: Status) -> u8 {
    match s {
        Status::Failed => 0,
        Status::WaitingForApproval => 1,
        Status::Running => 2,
        Status::Interrupted => 3,
        Status::Planned => 4,
        Status::Skipped => 5,
        Status::Declined => 6,
        Status::Done => 7,
    }
}
