//! Plain progress lines for terminals without the console and for logs, in the shape of
//! Pulumi's non-interactive display.

use std::collections::{BTreeMap, HashMap};
use std::io::{self, Write};

use crate::engine::model::urn::ROOT_STACK_TYPE;
use crate::engine::run::events::{Decider, StepInfo};
use crate::engine::steps::drift::refresh_result;
use crate::engine::{EngineEvent, Operation, PropertyMap, Severity, StepOp, Urn};

use super::property_diff;
use super::summary::{decision_line, human_duration, render};
use super::visibility::{Visibility, is_internal};

/// Turns events into lines as they arrive; diagnostics and outputs are printed at the end.
pub struct ProgressPrinter<W: Write> {
    out: W,
    preview: bool,
    /// Where diagnostics without a resource belong: the stack's row, as Pulumi shows them.
    stack_row: String,
    diagnostics: BTreeMap<String, Vec<(Severity, String)>>,
    outputs: Option<PropertyMap>,
    visibility: Visibility,
    /// `--diff`: property lines under each changed resource, from the planned steps kept here.
    diff: Option<HashMap<(Urn, StepOp), StepInfo>>,
    /// Dependents of each announced cascade, for the decision lines.
    cascade_sizes: HashMap<u64, usize>,
    /// The `Decisions:` block, as decisions arrive.
    decisions: Vec<String>,
    /// The `Skipped:` block: each skipped step and why.
    skipped: Vec<String>,
    /// A standalone refresh: the recorded outputs of each resource being read, so that its
    /// row says what the read found (`~ update`, `- delete`) rather than `refresh`.
    refreshing: Option<HashMap<Urn, PropertyMap>>,
}

fn row(op: StepOp, urn: &Urn, status: &str) -> String {
    format!(" {} {} {} {status}", op.prefix(), urn.type_(), urn.name())
}

impl<W: Write> ProgressPrinter<W> {
    pub fn new(out: W) -> ProgressPrinter<W> {
        ProgressPrinter {
            out,
            preview: false,
            stack_row: ROOT_STACK_TYPE.to_string(),
            diagnostics: BTreeMap::new(),
            outputs: None,
            visibility: Visibility::default(),
            diff: None,
            cascade_sizes: HashMap::new(),
            decisions: Vec::new(),
            skipped: Vec::new(),
            refreshing: None,
        }
    }

    /// Shows the steps `visibility` asks for and, with `diff`, each change's properties.
    pub fn with_display(mut self, visibility: Visibility, diff: bool) -> ProgressPrinter<W> {
        self.visibility = visibility;
        self.diff = diff.then(HashMap::new);
        self
    }

    fn property_lines(&mut self, op: StepOp, urn: &Urn) -> io::Result<()> {
        let Some(info) = self.diff.as_ref().and_then(|d| d.get(&(urn.clone(), op))) else {
            return Ok(());
        };
        for line in property_diff::lines(info, "        ") {
            writeln!(self.out, "{line}")?;
        }
        Ok(())
    }

    pub fn into_inner(self) -> W {
        self.out
    }

    /// Prints what an event calls for.
    pub fn event(&mut self, e: &EngineEvent) -> io::Result<()> {
        match e {
            EngineEvent::Prelude {
                operation,
                preview,
                stack,
                project,
                ..
            } => {
                self.preview = *preview;
                self.refreshing = (*operation == Operation::Refresh).then(HashMap::new);
                self.stack_row = format!("{ROOT_STACK_TYPE} ({project}-{stack})");
                let verb = match operation {
                    Operation::Preview => "Previewing update",
                    Operation::Update => "Updating",
                    Operation::Destroy => "Destroying",
                    Operation::Refresh => "Refreshing",
                };
                writeln!(self.out, "{verb} ({stack}):")?;
            }
            EngineEvent::StepPlanned(info) => {
                if let Some(d) = &mut self.diff {
                    d.insert((info.urn.clone(), info.op), (**info).clone());
                }
                if info.op == StepOp::Refresh
                    && let Some(r) = &mut self.refreshing
                {
                    r.insert(
                        info.urn.clone(),
                        info.old_outputs.clone().unwrap_or_default(),
                    );
                } else if self.preview && self.visibility.shows(info.op, &info.urn) {
                    writeln!(self.out, "{}", row(info.op, &info.urn, info.op.as_str()))?;
                    self.property_lines(info.op, &info.urn)?;
                }
            }
            EngineEvent::StepStarted { op, urn, .. }
                if !self.preview && *op != StepOp::Same && !is_internal(*op, urn) =>
            {
                writeln!(
                    self.out,
                    "{}",
                    row(*op, urn, &format!("{} (0s)", op.progressive()))
                )?;
                self.property_lines(*op, urn)?;
            }
            EngineEvent::StepFinished {
                op: StepOp::Refresh,
                urn,
                id,
                outputs,
                duration,
                ..
            } if self.refreshing.is_some() => {
                let old = self
                    .refreshing
                    .as_mut()
                    .and_then(|r| r.remove(urn))
                    .unwrap_or_default();
                let (found, _) = refresh_result(&old, id.is_some().then_some(outputs));
                if found != StepOp::Same || self.visibility.shows(found, urn) {
                    let status = if self.preview {
                        found.as_str().to_string()
                    } else {
                        format!("{} ({})", found.past_tense(), human_duration(*duration))
                    };
                    writeln!(self.out, "{}", row(found, urn, &status))?;
                }
            }
            EngineEvent::StepFinished {
                op, urn, duration, ..
            } if !self.preview
                && !is_internal(*op, urn)
                && (*op != StepOp::Same || self.visibility.shows(*op, urn)) =>
            {
                writeln!(
                    self.out,
                    "{}",
                    row(
                        *op,
                        urn,
                        &format!("{} ({})", op.past_tense(), human_duration(*duration))
                    )
                )?;
            }
            EngineEvent::StepFailed { op, urn, error, .. } => {
                writeln!(
                    self.out,
                    "{}",
                    row(
                        *op,
                        urn,
                        &format!("**{} failed** error: {error}", op.progressive())
                    )
                )?;
            }
            EngineEvent::StepSkipped { op, urn, reason } => {
                writeln!(self.out, "{}", row(*op, urn, &format!("skipped: {reason}")))?;
                self.skipped.push(format!(
                    "    {} {} ({}): {reason}",
                    op.as_str(),
                    urn.name(),
                    urn.type_()
                ));
            }
            EngineEvent::GateOpened {
                op,
                urn,
                kind,
                asked: true,
                ..
            } => {
                writeln!(
                    self.out,
                    "{}",
                    row(
                        *op,
                        urn,
                        &format!("waiting for a decision ({}=ask)", kind.as_str())
                    )
                )?;
            }
            EngineEvent::Breakpoint { op, urn } => {
                writeln!(
                    self.out,
                    "{}",
                    row(*op, urn, "breakpoint: paused before it")
                )?;
            }
            EngineEvent::PendingReplacement {
                cascade,
                root,
                members,
                ..
            } => {
                self.cascade_sizes
                    .insert(*cascade, members.len().saturating_sub(1));
                let others: Vec<&str> = members.iter().skip(1).map(|m| m.urn.name()).collect();
                let with = if others.is_empty() {
                    String::new()
                } else {
                    format!(" with {}", others.join(", "))
                };
                writeln!(
                    self.out,
                    "    delete-before-replace of {}{with}",
                    root.name()
                )?;
            }
            EngineEvent::Decision {
                cascade,
                op,
                urn,
                approved,
                by,
            } => {
                let cascade = self.cascade_sizes.get(cascade).copied();
                if *approved && *by == Decider::Policy {
                    return Ok(());
                }
                if !approved {
                    let what = if cascade.is_some() {
                        "replacement"
                    } else {
                        op.as_str()
                    };
                    writeln!(
                        self.out,
                        "    {what} declined: the resources keep their current state"
                    )?;
                }
                self.decisions
                    .push(decision_line(*op, urn, cascade.unwrap_or(0), *approved, by));
            }
            EngineEvent::CancelRequested { terminate } => {
                let msg = if *terminate {
                    "terminating"
                } else {
                    "cancelling; running steps will finish"
                };
                writeln!(self.out, "^C received; {msg}")?;
            }
            EngineEvent::Diagnostic {
                urn,
                severity,
                message,
                ephemeral: false,
            } if *severity > Severity::Debug => {
                let key = urn.as_ref().map_or_else(
                    || self.stack_row.clone(),
                    |u| format!("{} ({})", u.type_(), u.name()),
                );
                self.diagnostics
                    .entry(key)
                    .or_default()
                    .push((*severity, message.clone()));
            }
            EngineEvent::ResourceOutputs { urn, outputs } if urn.type_() == ROOT_STACK_TYPE => {
                self.outputs = Some(outputs.clone());
            }
            EngineEvent::Summary {
                counts,
                declined,
                duration,
                preview,
                ..
            } => {
                self.finish(counts, *declined, *duration, *preview)?;
            }
            _ => {}
        }
        Ok(())
    }

    fn finish(
        &mut self,
        counts: &BTreeMap<StepOp, usize>,
        declined: usize,
        duration: std::time::Duration,
        preview: bool,
    ) -> io::Result<()> {
        writeln!(self.out)?;
        if let Some(outputs) = self.outputs.take().filter(|o| !o.is_empty()) {
            writeln!(self.out, "Outputs:")?;
            for (k, v) in &outputs {
                writeln!(self.out, "    {k}: {v}")?;
            }
            writeln!(self.out)?;
        }
        if !self.diagnostics.is_empty() {
            writeln!(self.out, "Diagnostics:")?;
            for (who, msgs) in std::mem::take(&mut self.diagnostics) {
                writeln!(self.out, "  {who}:")?;
                for (sev, msg) in msgs {
                    writeln!(self.out, "    {}: {msg}", sev.as_str())?;
                }
            }
            writeln!(self.out)?;
        }
        for (heading, lines) in [
            ("Decisions:", std::mem::take(&mut self.decisions)),
            ("Skipped:", std::mem::take(&mut self.skipped)),
        ] {
            if !lines.is_empty() {
                writeln!(self.out, "{heading}")?;
                for line in lines {
                    writeln!(self.out, "{line}")?;
                }
                writeln!(self.out)?;
            }
        }
        let duration = (!preview).then_some(duration);
        write!(self.out, "{}", render(counts, declined, duration, preview))
    }
}
