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
            SortKey::Name => rows.sort_by_cached_key(|&i| model.resource(i).name_order()),
            _ => rows.sort_by(|&a, &b| self.compare(model, a, b)),
        }
    }

    /// Puts the `k` first rows of this order at the front, in order, and leaves the rest
    /// unordered behind them: a level of 20,000 siblings shows its first few dozen after a
    /// selection (linear), not a whole sort.
    pub fn sort_first(self, model: &Model, rows: &mut [usize], k: usize) {
        if k == 0 || k >= rows.len() {
            return self.sort(model, rows);
        }
        match self {
            SortKey::Name => {
                let mut keyed: Vec<((u64, &str, &str), usize)> = rows
                    .iter()
                    .map(|&i| (model.resource(i).name_order(), i))
                    .collect();
                keyed.select_nth_unstable(k - 1);
                keyed[..k].sort_unstable();
                for (row, key) in rows.iter_mut().zip(&keyed) {
                    *row = key.1;
                }
            }
            _ => {
                let cmp = |a: &usize, b: &usize| self.compare(model, *a, *b);
                rows.select_nth_unstable_by(k - 1, cmp);
                rows[..k].sort_unstable_by(cmp);
            }
        }
    }

    /// Orders two resources of the model; ties fall back to name, then URN, so the order is
    /// total and the same every run.
    pub fn compare(self, model: &Model, a: usize, b: usize) -> Ordering {
        let (ra, rb) = (model.resource(a), model.resource(b));
        let by_name = || ra.name_order().cmp(&rb.name_order());
        match self {
            SortKey::Name => by_name(),
            SortKey::Type => ra.type_().cmp(rb.type_()).then_with(by_name),
            SortKey::Status => urgency(ra.status)
                .cmp(&urgency(rb.status))
                .then_with(by_name),
            // Longest first: the slow ones are what the operator looks for.
            SortKey::Duration => {
                let now = model.clock.now();
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

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use rand::SeedableRng;
    use rand::rngs::StdRng;
    use rand::seq::SliceRandom;

    use super::*;
    use crate::app::sample::{sample_urn, step_info};
    use crate::engine::{EngineEvent, StepOp, Urn};

    /// Resources with clashing names (under two types), some running, some done at different
    /// times: every key has ties to break.
    fn model() -> Model {
        let mut m = Model::new();
        for k in 0..240u64 {
            let type_ = if k % 2 == 0 { "sim:a:A" } else { "sim:b:B" };
            let urn = sample_urn(type_, &format!("n{}", k % 97));
            let info = step_info(StepOp::Create, &urn, None, k + 1);
            m.apply(&EngineEvent::StepPlanned(Box::new(info)));
            m.set_now(Duration::from_millis(k % 7));
            if k % 3 > 0 {
                m.apply(&started(&urn, k + 1));
            }
            if k % 3 == 2 {
                m.set_now(Duration::from_millis(k % 11 + 7));
                m.apply(&EngineEvent::StepFinished {
                    chain: k + 1,
                    op: StepOp::Create,
                    urn: urn.clone(),
                    id: None,
                    outputs: Default::default(),
                    duration: Duration::from_millis(k % 5),
                });
            }
        }
        m
    }

    fn started(urn: &Urn, chain: u64) -> EngineEvent {
        EngineEvent::StepStarted {
            chain,
            op: StepOp::Create,
            urn: urn.clone(),
            worker: 0,
        }
    }

    #[test]
    fn the_first_rows_of_a_partial_sort_are_those_of_a_whole_sort() {
        let m = model();
        let mut rng = StdRng::seed_from_u64(17);
        let mut rows: Vec<usize> = (0..m.resources().len()).collect();
        for key in [
            SortKey::Name,
            SortKey::Type,
            SortKey::Status,
            SortKey::Duration,
        ] {
            let mut whole = rows.clone();
            key.sort(&m, &mut whole);
            for k in [1, 2, 31, 120, 239, 240, 500] {
                rows.shuffle(&mut rng);
                let mut part = rows.clone();
                key.sort_first(&m, &mut part, k);
                let k = k.min(rows.len());
                assert_eq!(part[..k], whole[..k], "{key:?}, the first {k}");
                part.sort_unstable();
                let mut all = whole.clone();
                all.sort_unstable();
                assert_eq!(part, all, "{key:?}, {k}: the same rows");
            }
        }
    }
}
