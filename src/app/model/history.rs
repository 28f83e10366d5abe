//! A resource's history, line by line, as the details pane shows it.

use std::borrow::Cow;
use std::time::Duration;

use crate::engine::StepOp;
use crate::engine::provider::DiffChanges;
use crate::engine::run::events::WorkerId;

/// One line of a resource's history, stamped with the console clock. A million rows log
/// three or four each, so a line is 24 bytes: the common ones are said by what they are and
/// written out only when shown.
#[derive(Clone, Debug, PartialEq)]
pub struct HistoryEntry {
    /// The console clock in tenths of a second, the precision lines show: 13 years fit.
    at_tenths: u32,
    line: HistoryLine,
}

/// What a history line says: the common lines need no text of their own.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum HistoryLine {
    Registered,
    Planned(StepOp),
    DiffQueued,
    Diffed {
        replace: bool,
        changes: DiffChanges,
    },
    AwaitingApproval,
    OnWorker(StepOp, WorkerId),
    /// Finished; in a preview, what would have run.
    Finished {
        op: StepOp,
        preview: bool,
    },
    Interrupted,
    /// Failures, skips and decisions: rare, and worded with what caused them.
    #[expect(
        clippy::box_collection,
        reason = "a thin pointer keeps every line at 24 bytes; a String would make them 32"
    )]
    Text(Box<String>),
}

impl HistoryEntry {
    /// `line`, logged at `at` on the console clock.
    pub(super) fn new(at: Duration, line: HistoryLine) -> HistoryEntry {
        HistoryEntry {
            at_tenths: u32::try_from(at.as_millis() / 100).unwrap_or(u32::MAX),
            line,
        }
    }

    /// When the line was logged, to the tenth of a second.
    pub fn at(&self) -> Duration {
        Duration::from_millis(u64::from(self.at_tenths) * 100)
    }

    /// The line as the details pane shows it.
    pub fn text(&self) -> Cow<'static, str> {
        match &self.line {
            HistoryLine::Registered => "registered".into(),
            HistoryLine::Planned(op) => format!("planned {}", op.as_str()).into(),
            HistoryLine::DiffQueued => "diff queued".into(),
            HistoryLine::Diffed { replace: true, .. } => "diff: replace".into(),
            HistoryLine::Diffed {
                changes: DiffChanges::None,
                ..
            } => "diff: no changes".into(),
            HistoryLine::Diffed {
                changes: DiffChanges::Some,
                ..
            } => "diff: some changes".into(),
            HistoryLine::Diffed {
                changes: DiffChanges::Unknown,
                ..
            } => "diff: changes unknown".into(),
            HistoryLine::AwaitingApproval => "waiting for approval".into(),
            HistoryLine::OnWorker(op, worker) => {
                format!("{} on worker {worker}", op.progressive()).into()
            }
            HistoryLine::Finished {
                op: StepOp::Same,
                preview: true,
            } => "would stay the same (preview: nothing ran)".into(),
            HistoryLine::Finished { op, preview: true } => {
                format!("would {} (preview: nothing ran)", op.as_str()).into()
            }
            HistoryLine::Finished { op, preview: false } => op.past_tense().into(),
            HistoryLine::Interrupted => "interrupted".into(),
            HistoryLine::Text(text) => text.to_string().into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_history_line_takes_24_bytes_and_reads_as_its_text_did() {
        assert_eq!(std::mem::size_of::<HistoryEntry>(), 24);
        let entry = |line| HistoryEntry::new(Duration::from_millis(75_400), line);
        assert_eq!(
            entry(HistoryLine::Registered).at(),
            Duration::from_millis(75_400)
        );
        for op in StepOp::ALL {
            let text = |line| entry(line).text().into_owned();
            assert_eq!(
                text(HistoryLine::Planned(op)),
                format!("planned {}", op.as_str())
            );
            let would = match op {
                StepOp::Same => "stay the same",
                op => op.as_str(),
            };
            assert_eq!(
                text(HistoryLine::Finished { op, preview: true }),
                format!("would {would} (preview: nothing ran)")
            );
            assert_eq!(
                text(HistoryLine::Finished { op, preview: false }),
                op.past_tense()
            );
            assert_eq!(
                text(HistoryLine::OnWorker(op, 3)),
                format!("{} on worker 3", op.progressive())
            );
        }
        let diffed = |replace, changes| entry(HistoryLine::Diffed { replace, changes }).text();
        assert_eq!(diffed(true, DiffChanges::Some), "diff: replace");
        assert_eq!(diffed(false, DiffChanges::None), "diff: no changes");
        assert_eq!(diffed(false, DiffChanges::Some), "diff: some changes");
        assert_eq!(diffed(false, DiffChanges::Unknown), "diff: changes unknown");
    }
}
