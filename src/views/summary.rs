//! The closing summary of a run: its outcome, the stack's outputs, every failure with its full
//! message, the declined cascades, what was skipped, and the counts and duration in the plain
//! display's wording. Shown on the DONE/FAILED screen and printed when the terminal is back.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::{Paragraph, StatefulWidget, Widget, Wrap};

use crate::app::model::{Model, Status};
use crate::app::preset::Presets;
use crate::app::ui_state::Scroll;
use crate::engine::model::urn::ROOT_STACK_TYPE;
use crate::engine::run::events::Decider;
use crate::engine::run::policy::EnforcementLevel;
use crate::engine::{Outcome, RunFailure, StepOp};
use crate::output::summary::{declined_phrase, render};

use super::details::value_text;
use super::frame::frame;
use super::text::{scroll_rows, width, wrap_keeping_quotes};
use super::theme::Theme;

/// One line of the summary, with how it is styled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Heading,
    Error,
    Plain,
}

/// The summary's lines, once the run has ended (`None` before).
/// `presets` are the preview's decisions: rows its operator declined are kept, not counted.
fn summary_lines(m: &Model, presets: &Presets) -> Option<Vec<(Kind, String)>> {
    let s = m.run.summary.as_ref()?;
    let mut out = Vec::new();
    let what = m.run.operation.map_or("deployment", |o| match o.as_str() {
        "up" | "preview" => "update",
        other => other,
    });
    // A failed resource's error is the root cause, listed in full under `Failures:`; when the
    // run's failure only repeats it, the headline says only that the run failed.
    let listed = |why: &RunFailure| {
        m.troubled(Status::Failed)
            .filter_map(|r| r.error.as_deref())
            .any(|e| why.message().contains(e))
    };
    let headline = match (&s.outcome, s.preview) {
        (Outcome::Failed(why), true) if listed(why) => "The preview failed".to_string(),
        (Outcome::Failed(why), false) if listed(why) => format!("The {what} failed"),
        (Outcome::Succeeded, true) => format!("Preview of the {what} done: nothing ran"),
        (Outcome::Succeeded, false) => format!("The {what} succeeded"),
        (Outcome::Failed(why), true) => format!("The preview failed: {why}"),
        (Outcome::Failed(why), false) => format!("The {what} failed: {why}"),
        (Outcome::Cancelled, _) => format!("The {what} was cancelled"),
        (Outcome::Terminated, _) => format!(
            "The {what} was terminated: run `stepdeck refresh` to reconcile what was in flight"
        ),
    };
    let kind = if s.outcome.is_success() {
        Kind::Heading
    } else {
        Kind::Error
    };
    out.push((kind, headline));
    if s.preview && m.run.operation == Some(crate::engine::Operation::Refresh) {
        out.push((
            Kind::Plain,
            "Applying it records what the refresh found in the stack's state; it modifies no resource."
                .into(),
        ));
    }
    out.push((Kind::Plain, String::new()));
    let outputs = m
        .roots()
        .map(|i| m.resource(i))
        .find(|r| r.type_() == ROOT_STACK_TYPE)
        .and_then(|r| r.outputs.as_ref())
        .filter(|o| !o.is_empty());
    if let Some(outputs) = outputs {
        out.push((Kind::Heading, "Outputs:".into()));
        for (k, v) in outputs {
            out.push((Kind::Plain, format!("    {k}: {}", value_text(v))));
        }
        out.push((Kind::Plain, String::new()));
    }
    let failed: Vec<_> = m.troubled(Status::Failed).collect();
    if !failed.is_empty() {
        out.push((Kind::Heading, "Failures:".into()));
        for r in failed {
            // The line names the resource already: the provider's words, without the step's
            // "creating <urn> failed:" in front of them.
            let error = r.error.as_deref().unwrap_or("failed");
            let error = error
                .split_once(&format!(" {} failed: ", r.urn.as_str()))
                .map_or(error, |(_, cause)| cause);
            out.push((
                Kind::Error,
                format!("    {} ({}): {error}", r.name(), r.type_()),
            ));
        }
        out.push((Kind::Plain, String::new()));
    }
    policy_lines(m, &mut out);
    let decided: Vec<String> = m
        .approvals
        .all()
        .iter()
        .filter_map(|c| {
            let (approved, by) = c.decided.as_ref()?;
            // A cascade the policy let run is the default, not a decision worth listing.
            if *approved && *by == Decider::Policy {
                return None;
            }
            Some(crate::output::summary::decision_line(
                c.step.map_or(StepOp::Replace, |(op, ..)| op),
                &c.root,
                c.members.iter().filter(|x| x.urn != c.root).count(),
                *approved,
                by,
            ))
        })
        .collect();
    if !decided.is_empty() {
        out.push((Kind::Heading, "Decisions:".into()));
        out.extend(decided.into_iter().map(|l| (Kind::Plain, l)));
        out.push((Kind::Plain, String::new()));
    }
    if !m.run.deselected.is_empty() {
        out.push((
            Kind::Heading,
            "Skipped (outside the preview's selection):".into(),
        ));
        for (name, type_) in &m.run.deselected {
            out.push((Kind::Plain, format!("    {name} ({type_})")));
        }
        out.push((Kind::Plain, String::new()));
    }
    if m.counts.skipped() > 0 {
        out.push((
            Kind::Plain,
            format!("{} resource(s) skipped: not run", m.counts.skipped()),
        ));
        // Which ones, by name (why is in their details and the Log).
        let names: Vec<&str> = m.troubled(Status::Skipped).map(|r| r.name()).collect();
        out.push((Kind::Plain, format!("    {}", names.join(", "))));
        out.push((Kind::Plain, String::new()));
    }
    let duration = (!s.preview).then_some(m.elapsed());
    // What the operator declined in the preview is kept as it is: it leaves the counts.
    let mut counts = s.counts.clone();
    let mut kept = 0;
    for (op, n) in counts.iter_mut() {
        let k = presets.kept(m, *op).min(*n);
        *n -= k;
        kept += k;
    }
    let mut block: Vec<String> = render(&counts, s.declined, duration, s.preview)
        .lines()
        .map(str::to_string)
        .collect();
    // The console knows the rows a decline kept: the header's wording, in full.
    let rows = m.counts.declined();
    if s.declined > 0 && rows > 0 {
        let short = declined_phrase(s.declined, None);
        for line in block.iter_mut().filter(|l| l.trim() == short) {
            *line = format!("    {}", declined_phrase(s.declined, Some(rows)));
        }
    }
    if kept > 0 {
        // After the ops' lines, before the totals (the first line that starts with a number).
        let at = (1..block.len())
            .find(|&i| {
                block[i]
                    .trim_start()
                    .starts_with(|c: char| c.is_ascii_digit())
            })
            .unwrap_or(block.len());
        block.insert(
            at,
            format!("    {kept} kept as they are (declined in this preview)"),
        );
    }
    for line in block {
        let kind = if line.ends_with(':') {
            Kind::Heading
        } else {
            Kind::Plain
        };
        out.push((kind, line));
    }
    if m.clock.paused_time() > std::time::Duration::ZERO && !s.preview {
        out.push((
            Kind::Plain,
            format!(
                "(paused for {}, not counted)",
                crate::output::summary::human_duration(m.clock.paused_time())
            ),
        ));
    }
    Some(out)
}

/// The run's policy packs, each with its counts, then its violations by level (mandatory
/// first) and policy, each naming its resource.
fn policy_lines(m: &Model, out: &mut Vec<(Kind, String)>) {
    let packs = m.policies.packs();
    if packs.is_empty() {
        return;
    }
    out.push((Kind::Heading, "Policies:".into()));
    for p in packs {
        let mark = match (p.mandatory, p.advisory) {
            (0, 0) => "✓",
            (0, _) => "⚠",
            _ => "✖",
        };
        out.push((
            Kind::Plain,
            format!(
                "    {mark} {}@v{}: {} mandatory, {} advisory, {} remediated",
                p.name, p.version, p.mandatory, p.advisory, p.remediations
            ),
        ));
        let mut found: Vec<_> = m
            .policies
            .violations()
            .iter()
            .filter(|v| v.pack_name == p.name && v.pack_version == p.version)
            .collect();
        found.sort_by(|a, b| {
            b.level
                .cmp(&a.level)
                .then_with(|| a.policy_name.cmp(&b.policy_name))
                .then_with(|| a.urn.as_str().cmp(b.urn.as_str()))
        });
        for v in found {
            let kind = if v.level == EnforcementLevel::Advisory {
                Kind::Plain
            } else {
                Kind::Error
            };
            out.push((
                kind,
                format!(
                    "        [{}]  {}  ({}: {})",
                    v.level.as_str(),
                    v.policy_name,
                    v.urn.type_(),
                    v.urn.name()
                ),
            ));
        }
    }
    out.push((Kind::Plain, String::new()));
}

/// The summary as plain text, for the terminal after the console leaves. A line wider than
/// `columns` is broken at spaces, never inside a quoted value, and goes on indented under its
/// start (the terminal would break it anywhere, a URN or a quoted error in the middle).
pub fn summary_text(m: &Model, presets: &Presets, columns: Option<usize>) -> Option<String> {
    let lines = summary_lines(m, presets)?;
    let mut text = String::new();
    for (_, l) in lines {
        for part in l.split('\n') {
            for row in fit_to(part, columns) {
                text.push_str(&row);
                text.push('\n');
            }
        }
    }
    Some(text)
}

/// `line` as it is when it fits in `columns`, else broken at spaces, its continuations
/// indented four more than its start.
fn fit_to(line: &str, columns: Option<usize>) -> Vec<String> {
    let indent = line.len() - line.trim_start_matches(' ').len();
    let room = columns.map_or(0, |c| c.saturating_sub(indent + 5));
    if columns.is_none_or(|c| width(line) <= c) || room < 20 {
        return vec![line.to_string()];
    }
    wrap_keeping_quotes(&line[indent..], room)
        .into_iter()
        .enumerate()
        .map(|(k, row)| {
            let pad = if k == 0 { indent } else { indent + 4 };
            format!("{}{row}", " ".repeat(pad))
        })
        .collect()
}

/// The summary panel of a finished run; its state is its [`Scroll`] over the wrapped lines.
pub struct SummaryView<'a> {
    pub model: &'a Model,
    /// The preview's decisions: what its operator declined is kept, not counted.
    pub presets: &'a Presets,
    pub theme: Theme,
    pub focused: bool,
}

impl StatefulWidget for SummaryView<'_> {
    type State = Scroll;

    fn render(self, area: Rect, buf: &mut Buffer, scroll: &mut Scroll) {
        let t = self.theme;
        let lines = summary_lines(self.model, self.presets)
            .unwrap_or_else(|| vec![(Kind::Plain, "the summary appears when the run ends".into())]);
        let border = t.border(self.focused);
        let inner = frame(area, buf, " Summary ".into(), border, border);
        // A message of several errors keeps one line each (a `Line` would run them together).
        let text: Vec<Line> = lines
            .iter()
            .flat_map(|(k, l)| l.split('\n').map(move |part| (k, part.to_string())))
            .map(|(k, l)| match k {
                Kind::Heading => Line::styled(l, t.bold()),
                Kind::Error => Line::styled(l, t.error()),
                Kind::Plain => Line::raw(l),
            })
            .collect();
        let text = Paragraph::new(text).wrap(Wrap { trim: false });
        scroll.fit(text.line_count(inner.width), inner.height as usize);
        text.scroll((scroll_rows(scroll), 0)).render(inner, buf);
    }
}
