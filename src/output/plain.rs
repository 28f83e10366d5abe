//! Plain progress lines for terminals without the console and for logs, in the shape of
//! Pulumi's non-interactive display.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::io::{self, Write};

use crate::engine::model::urn::ROOT_STACK_TYPE;
use crate::engine::refresh_result;
use crate::engine::run::events::{ChainId, Decider, StepInfo};
use crate::engine::{EngineEvent, Operation, PropertyMap, Severity, StepOp, Urn};

use super::policies::PolicySection;
use super::property_diff;
use super::summary::{decision_line, human_duration, render};
use super::visibility::{Visibility, is_internal};

/// Turns events into lines as they arrive; diagnostics show on their resource's row as they
/// come and again, with the outputs, at the end.
pub struct ProgressPrinter<W: Write> {
    out: W,
    preview: bool,
    /// Where diagnostics without a resource belong: the stack's row (`<project>-<stack>`, once
    /// the prelude named it), as Pulumi shows them.
    stack_name: Option<String>,
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
    /// `--debug`: debug messages are shown too.
    debug: bool,
    /// Policy packs started loading before the prelude.
    packs_loading: bool,
    /// The prelude was printed: diagnostics from then on get their row as they come (notices
    /// from before the run only appear at the end).
    started: bool,
    /// The `Policies:` block, as violations and remediations arrive.
    policies: PolicySection,
    /// A standalone refresh: the recorded outputs of each resource being read, so that its
    /// row says what the read found (`~ updated`, `- deleted`) rather than `refreshed`.
    refreshing: Option<HashMap<Urn, PropertyMap>>,
    /// Refresh steps with nothing to read (the stack, components): they end as `same`.
    unread: HashSet<Urn>,
    /// A preview's lines for the chain planned last, held until its gate lets it through.
    held: HeldChain,
}

/// The rows of the chain a preview planned last, each marked whether it stays when the chain
/// is declined at its gate at once: the apply shows no row for a step it never runs.
#[derive(Default)]
struct HeldChain {
    chain: Option<ChainId>,
    lines: Vec<(String, bool)>,
}

fn row(op: StepOp, urn: &Urn, status: &str) -> String {
    format!(" {} {} {} {status}", op.prefix(), urn.type_(), urn.name())
}

impl<W: Write> ProgressPrinter<W> {
    pub fn new(out: W) -> ProgressPrinter<W> {
        ProgressPrinter {
            out,
            preview: false,
            stack_name: None,
            diagnostics: BTreeMap::new(),
            outputs: None,
            visibility: Visibility::default(),
            diff: None,
            cascade_sizes: HashMap::new(),
            decisions: Vec::new(),
            skipped: Vec::new(),
            debug: false,
            packs_loading: false,
            started: false,
            policies: PolicySection::default(),
            refreshing: None,
            unread: HashSet::new(),
            held: HeldChain::default(),
        }
    }

    /// Shows the steps `visibility` asks for and, with `diff`, each change's properties.
    pub fn with_display(mut self, visibility: Visibility, diff: bool) -> ProgressPrinter<W> {
        self.visibility = visibility;
        self.diff = diff.then(HashMap::new);
        self
    }

    /// Shows debug messages too (`--debug`).
    pub fn with_debug(mut self, debug: bool) -> ProgressPrinter<W> {
        self.debug = debug;
        self
    }

    /// Lists each policy remediation with what it changed (`--show-policy-remediations`).
    pub fn with_policy_remediations(mut self, detailed: bool) -> ProgressPrinter<W> {
        self.policies = PolicySection::detailed(detailed);
        self
    }

    /// `--diff` under a refresh: the outputs the read found changed, against the recorded ones.
    fn refresh_lines(&mut self, urn: &Urn, found: &PropertyMap) -> io::Result<()> {
        let Some(info) = self
            .diff
            .as_ref()
            .and_then(|d| d.get(&(urn.clone(), StepOp::Refresh)))
        else {
            return Ok(());
        };
        let old = info.old_outputs.clone().unwrap_or_default();
        let (_, changed) = refresh_result(&old, Some(found));
        let read = StepInfo {
            op: StepOp::Update,
            diffs: changed.changed_keys,
            detailed_diff: BTreeMap::new(),
            old_inputs: None,
            old_outputs: Some(old),
            new_inputs: Some(found.clone()),
            ..info.clone()
        };
        for line in property_diff::lines(&read, "        ") {
            writeln!(self.out, "{line}")?;
        }
        Ok(())
    }

    fn property_lines(&mut self, op: StepOp, urn: &Urn) -> io::Result<()> {
        for line in self.property_text(op, urn) {
            writeln!(self.out, "{line}")?;
        }
        Ok(())
    }

    /// `--diff`: the property lines under a planned step's row.
    fn property_text(&self, op: StepOp, urn: &Urn) -> Vec<String> {
        self.diff
            .as_ref()
            .and_then(|d| d.get(&(urn.clone(), op)))
            .map(|info| property_diff::lines(info, "        "))
            .unwrap_or_default()
    }

    /// Prints the held lines of a chain its gate let through (or had no gate); a declined
    /// chain keeps only the lines that say so.
    fn release(&mut self, declined: bool) -> io::Result<()> {
        self.held.chain = None;
        for (line, stays) in std::mem::take(&mut self.held.lines) {
            if stays || !declined {
                writeln!(self.out, "{line}")?;
            }
        }
        Ok(())
    }

    pub fn into_inner(self) -> W {
        self.out
    }

    /// Prints what an event calls for. A preview holds a chain's rows until the next event
    /// that is not of its planning: a decline then shows none of them, as the apply does.
    pub fn event(&mut self, e: &EngineEvent) -> io::Result<()> {
        match e {
            EngineEvent::StepPlanned(info) if info.chain != self.held.chain => {
                self.release(false)?;
                self.held.chain = info.chain;
            }
            EngineEvent::StepPlanned(_)
            | EngineEvent::PendingReplacement { .. }
            | EngineEvent::GateOpened { .. } => {}
            EngineEvent::Decision {
                approved: false, ..
            } => self.release(true)?,
            _ => self.release(false)?,
        }
        self.show(e)
    }

    fn show(&mut self, e: &EngineEvent) -> io::Result<()> {
        match e {
            EngineEvent::Prelude {
                operation,
                preview,
                stack,
                project,
                ..
            } => {
                self.preview = *preview;
                self.started = true;
                self.refreshing = (*operation == Operation::Refresh).then(HashMap::new);
                self.stack_name = Some(format!("{project}-{stack}"));
                let verb = match (operation, preview) {
                    (Operation::Preview, _) => "Previewing update",
                    (Operation::Update, _) => "Updating",
                    (Operation::Destroy, true) => "Previewing destroy",
                    (Operation::Destroy, false) => "Destroying",
                    (Operation::Refresh, true) => "Previewing refresh",
                    (Operation::Refresh, false) => "Refreshing",
                };
                writeln!(self.out, "{verb} ({stack}):")?;
                if std::mem::take(&mut self.packs_loading) {
                    // Pulumi's non-interactive display of its policy-loading progress item.
                    writeln!(self.out, "Loading policy packs...: starting")?;
                    writeln!(self.out, "Loading policy packs...: done")?;
                    writeln!(self.out)?;
                }
            }
            EngineEvent::PolicyLoad { .. } => self.packs_loading = true,
            EngineEvent::StartDebugging { message, .. } => {
                writeln!(self.out, "{}", crate::engine::waiting_for_debugger(message))?;
            }
            EngineEvent::PolicyViolation(v) => self.policies.violation(v),
            EngineEvent::PolicyRemediation(r) => self.policies.remediation(r),
            EngineEvent::StepPlanned(info) => {
                if let Some(d) = &mut self.diff {
                    d.insert((info.urn.clone(), info.op), (**info).clone());
                }
                if info.op == StepOp::Refresh && info.old_id.is_none() {
                    self.unread.insert(info.urn.clone());
                }
                if info.op == StepOp::Refresh
                    && let Some(r) = &mut self.refreshing
                {
                    let old = info.old_outputs.clone().unwrap_or_default();
                    r.insert(info.urn.clone(), old);
                }
                // With --diff a preview's refresh is shown once read, with what it found.
                let shown_when_read = info.op == StepOp::Refresh && self.diff.is_some();
                if self.preview && !shown_when_read && self.visibility.shows(info.op, &info.urn) {
                    // A preview reads what it refreshes: the row says so, as Pulumi's does.
                    let status = if info.op == StepOp::Refresh {
                        info.op.progressive()
                    } else {
                        info.op.as_str()
                    };
                    let lines = std::iter::once(row(info.op, &info.urn, status))
                        .chain(self.property_text(info.op, &info.urn))
                        .map(|l| (l, false));
                    self.held.lines.extend(lines.collect::<Vec<_>>());
                }
            }
            EngineEvent::StepFinished {
                op: StepOp::Refresh,
                urn,
                outputs,
                ..
            } if self.preview && self.diff.is_some() => {
                writeln!(
                    self.out,
                    "{}",
                    row(StepOp::Refresh, urn, StepOp::Refresh.progressive())
                )?;
                self.refresh_lines(urn, outputs)?;
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
                op,
                urn,
                id,
                duration,
                outputs,
                ..
            } if !self.preview && !is_internal(*op, urn) => {
                let recorded = self.refreshing.as_mut().and_then(|r| r.remove(urn));
                let shown = match recorded {
                    _ if *op == StepOp::Refresh && self.unread.remove(urn) => StepOp::Same,
                    Some(old) => refresh_result(&old, id.is_some().then_some(outputs)).0,
                    None => *op,
                };
                if shown == StepOp::Same && !self.visibility.shows(shown, urn) {
                    return Ok(());
                }
                writeln!(
                    self.out,
                    "{}",
                    row(
                        shown,
                        urn,
                        &format!("{} ({})", shown.past_tense(), human_duration(*duration))
                    )
                )?;
                if *op == StepOp::Refresh {
                    self.refresh_lines(urn, outputs)?;
                }
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
                let wait = if self.preview { "will wait" } else { "waiting" };
                let line = row(
                    *op,
                    urn,
                    &format!("{wait} for a decision ({}=ask)", kind.as_str()),
                );
                if self.preview {
                    self.held.lines.push((line, true));
                } else {
                    writeln!(self.out, "{line}")?;
                }
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
                let line = format!("    delete-before-replace of {}{with}", root.name());
                if self.preview {
                    self.held.lines.push((line, true));
                } else {
                    writeln!(self.out, "{line}")?;
                }
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
            } if *severity > Severity::Debug || self.debug => {
                let (type_, name) = match urn {
                    Some(u) => (u.type_(), Some(u.name())),
                    None => (ROOT_STACK_TYPE, self.stack_name.as_deref()),
                };
                let key = name.map_or_else(|| type_.to_string(), |n| format!("{type_} ({n})"));
                // The resource's row with the message as its info, when it comes (as Pulumi's
                // non-interactive display does), besides the summary's Diagnostics section.
                if self.started {
                    let row = name.map_or_else(|| type_.to_string(), |n| format!("{type_} {n}"));
                    let line = message.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
                    writeln!(
                        self.out,
                        "    {row} {}: {}",
                        severity.as_str(),
                        line.trim_end()
                    )?;
                }
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
                policy_packs,
                ..
            } => {
                let (policies, mandatory) = self.policies.render(policy_packs);
                writeln!(self.out)?;
                write!(self.out, "{policies}")?;
                self.finish(counts, *declined, *duration, *preview, !mandatory)?;
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
        summary: bool,
    ) -> io::Result<()> {
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
                // Every line of a message under the same indent, trailing blanks dropped, as
                // Pulumi's `printDiagnostics` prints them.
                for (sev, msg) in msgs {
                    let text = format!("{}: {msg}", sev.as_str());
                    for line in text.trim_end().lines() {
                        writeln!(self.out, "    {}", line.trim_end())?;
                    }
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
        // A mandatory violation ends the display without the summary, as Pulumi's does.
        if !summary {
            return Ok(());
        }
        let duration = (!preview).then_some(duration);
        write!(self.out, "{}", render(counts, declined, duration, preview))
    }
}
