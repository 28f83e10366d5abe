//! The closing summary, in Pulumi's wording (`+ 3 created`, `4 unchanged`, `Duration: 2s`).

use std::collections::BTreeMap;
use std::time::Duration;

use crate::engine::StepOp;

/// Ops that appear in a summary, in Pulumi's order (reads and sames are reported apart).
const SUMMARY_OPS: [StepOp; 6] = [
    StepOp::Create,
    StepOp::Update,
    StepOp::Delete,
    StepOp::Replace,
    StepOp::Refresh,
    StepOp::Import,
];

fn phrase(op: StepOp, preview: bool) -> &'static str {
    match (op, preview) {
        (StepOp::Create, true) => "to create",
        (StepOp::Update, true) => "to update",
        (StepOp::Delete, true) => "to delete",
        (StepOp::Replace, true) => "to replace",
        (StepOp::Refresh, true) => "to refresh",
        (StepOp::Import, true) => "to import",
        (op, _) => op.past_tense(),
    }
}

/// Whether counts hold a change: anything but unchanged resources and reads, as Pulumi's
/// `--expect-no-changes` judges.
pub fn has_changes(counts: &BTreeMap<StepOp, usize>) -> bool {
    counts.iter().any(|(op, n)| {
        *n > 0 && !matches!(op, StepOp::Same | StepOp::Read | StepOp::ReadReplacement)
    })
}

/// Formats a duration as Pulumi does: `1m2s`, `3s`, `0.42s` under a second.
pub fn human_duration(d: Duration) -> String {
    let secs = d.as_secs();
    if secs == 0 {
        format!("{:.2}s", d.as_secs_f64())
    } else if secs < 60 {
        format!("{secs}s")
    } else if secs < 3600 {
        format!("{}m{}s", secs / 60, secs % 60)
    } else {
        format!("{}h{}m{}s", secs / 3600, (secs / 60) % 60, secs % 60)
    }
}

/// One line of the `Decisions:` block: what was approved or declined, and by whom.
pub fn decision_line(
    op: StepOp,
    urn: &crate::engine::Urn,
    dependents: usize,
    approved: bool,
    by: &crate::engine::run::events::Decider,
) -> String {
    let with = match dependents {
        0 => String::new(),
        1 => " and 1 dependent".to_string(),
        n => format!(" and {n} dependents"),
    };
    let verdict = if approved {
        "approved"
    } else {
        "declined (kept as it is)"
    };
    format!(
        "    {} {}{with} ({}): {verdict} by {by}",
        op.as_str(),
        urn.name(),
        urn.type_()
    )
}

/// Declined replacements, counted by cascade as the engine counts them, with the rows they
/// kept when known: one wording for the console's header and every summary.
pub fn declined_phrase(cascades: usize, kept: Option<usize>) -> String {
    let plural = if cascades == 1 { "" } else { "s" };
    match kept {
        Some(rows) => format!("{cascades} replacement{plural} declined ({rows} kept)"),
        None => format!("{cascades} replacement{plural} declined"),
    }
}

/// The `Resources:` block and the duration line.
pub fn render(
    counts: &BTreeMap<StepOp, usize>,
    declined: usize,
    duration: Option<Duration>,
    preview: bool,
) -> String {
    let mut out = String::from("Resources:\n");
    let mut kinds = 0;
    for op in SUMMARY_OPS {
        if let Some(&n) = counts.get(&op).filter(|n| **n > 0) {
            kinds += 1;
            out.push_str(&format!(
                "    {} {n} {}\n",
                op.prefix().trim_end(),
                phrase(op, preview)
            ));
        }
    }
    if declined > 0 {
        out.push_str(&format!("    {}\n", declined_phrase(declined, None)));
    }
    if kinds >= 2 {
        let total: usize = SUMMARY_OPS.iter().filter_map(|op| counts.get(op)).sum();
        out.push_str(&format!("    {total} changes"));
        if let Some(same) = counts.get(&StepOp::Same).filter(|n| **n > 0) {
            out.push_str(&format!(". {same} unchanged"));
        }
        out.push('\n');
    } else if let Some(same) = counts.get(&StepOp::Same).filter(|n| **n > 0) {
        out.push_str(&format!("    {same} unchanged\n"));
    }
    if let Some(d) = duration {
        out.push_str(&format!("\nDuration: {}\n", human_duration(d)));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wording_matches_pulumi() {
        let counts: BTreeMap<StepOp, usize> = [
            (StepOp::Create, 3),
            (StepOp::Update, 1),
            (StepOp::Replace, 2),
            (StepOp::Same, 5),
        ]
        .into();
        let text = render(&counts, 0, Some(Duration::from_secs(62)), false);
        assert_eq!(
            text,
            "Resources:\n    + 3 created\n    ~ 1 updated\n    +- 2 replaced\n    6 changes. 5 unchanged\n\nDuration: 1m2s\n"
        );
        let preview = render(&[(StepOp::Create, 1)].into(), 0, None, true);
        assert_eq!(preview, "Resources:\n    + 1 to create\n");
        assert_eq!(human_duration(Duration::from_millis(420)), "0.42s");
    }
}
