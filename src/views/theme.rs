//! Colours and emphasis. With `NO_COLOR` set the console keeps only bold and reverse, so states
//! stay distinguishable on any terminal.

use ratatui::style::{Color, Modifier, Style};

use crate::app::model::{ChainState, RunState, Status};
use crate::engine::run::policy::EnforcementLevel;
use crate::engine::{Severity, StepOp};

/// The console's palette; `color == false` degrades to bold/reverse only.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Theme {
    pub color: bool,
}

impl Theme {
    /// Colour unless `NO_COLOR` is set to a non-empty value (no-color.org).
    pub fn from_env() -> Theme {
        Theme {
            color: std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()),
        }
    }

    pub fn colored() -> Theme {
        Theme { color: true }
    }

    fn fg(self, c: Color) -> Style {
        if self.color {
            Style::new().fg(c)
        } else {
            Style::new()
        }
    }

    /// Pulumi's colours for step ops.
    pub fn op(self, op: StepOp) -> Style {
        match op {
            StepOp::Same => self.dim(),
            StepOp::Create => self.fg(Color::Green),
            StepOp::CreateReplacement => self.fg(Color::LightGreen),
            StepOp::Update | StepOp::Refresh | StepOp::RemovePendingReplace => {
                self.fg(Color::Yellow)
            }
            StepOp::Delete | StepOp::Discard => self.fg(Color::Red),
            StepOp::DeleteReplaced | StepOp::DiscardReplaced => self.fg(Color::LightRed),
            StepOp::Replace => self.fg(Color::LightMagenta),
            StepOp::Read | StepOp::ReadReplacement => self.fg(Color::LightCyan),
            StepOp::Import | StepOp::ImportReplacement => self.fg(Color::LightBlue),
        }
    }

    /// A resource status: running bold, failures red, waiting for approval as an alert.
    pub fn status(self, s: Status) -> Style {
        match s {
            Status::Planned => self.dim(),
            Status::Running => self.fg(Color::Cyan).add_modifier(Modifier::BOLD),
            Status::Done => self.fg(Color::Green),
            Status::Failed => self.fg(Color::Red).add_modifier(Modifier::BOLD),
            Status::Skipped | Status::Declined => self.dim(),
            Status::WaitingForApproval => self.alert(),
            Status::Interrupted => self.fg(Color::LightRed).add_modifier(Modifier::BOLD),
        }
    }

    /// A chain's state marker.
    pub fn chain(self, s: ChainState) -> Style {
        match s {
            ChainState::Queued | ChainState::Declined | ChainState::Skipped => self.dim(),
            ChainState::Running => self.fg(Color::Cyan).add_modifier(Modifier::BOLD),
            ChainState::Done => self.fg(Color::Green),
            ChainState::Failed => self.fg(Color::Red).add_modifier(Modifier::BOLD),
            ChainState::AwaitingApproval => self.alert(),
        }
    }

    /// The top bar's state badge.
    pub fn run_state(self, s: RunState) -> Style {
        let bold = Modifier::BOLD;
        if !self.color {
            return match s {
                RunState::AwaitingApproval | RunState::Failed | RunState::Paused => {
                    Style::new().add_modifier(bold | Modifier::REVERSED)
                }
                _ => Style::new().add_modifier(bold),
            };
        }
        match s {
            RunState::AwaitingApproval => self.alert(),
            RunState::Paused => Style::new()
                .fg(Color::Black)
                .bg(Color::Cyan)
                .add_modifier(bold),
            RunState::Failed => Style::new()
                .fg(Color::White)
                .bg(Color::Red)
                .add_modifier(bold),
            RunState::Cancelling | RunState::Cancelled => {
                self.fg(Color::LightRed).add_modifier(bold)
            }
            RunState::Done => self.fg(Color::Green).add_modifier(bold),
            RunState::Preview => self.fg(Color::LightMagenta).add_modifier(bold),
            RunState::Running | RunState::Starting => self.fg(Color::Cyan).add_modifier(bold),
        }
    }

    /// A log entry's severity.
    pub fn severity(self, s: Severity) -> Style {
        match s {
            Severity::Debug => self.dim(),
            Severity::Info => Style::new(),
            Severity::Warning => self.fg(Color::Yellow),
            Severity::Error => self.fg(Color::Red).add_modifier(Modifier::BOLD),
        }
    }

    /// A policy violation's level: advisory warns, mandatory stops.
    pub fn violation(self, level: EnforcementLevel) -> Style {
        match level {
            EnforcementLevel::Advisory => self.fg(Color::Yellow),
            _ => self.fg(Color::Red).add_modifier(Modifier::BOLD),
        }
    }

    /// What waits for the operator: impossible to miss.
    pub fn alert(self) -> Style {
        if self.color {
            Style::new()
                .fg(Color::Black)
                .bg(Color::Yellow)
                .add_modifier(Modifier::BOLD)
        } else {
            Style::new().add_modifier(Modifier::BOLD | Modifier::REVERSED)
        }
    }

    /// Border of a panel that waits for the operator.
    pub fn alert_border(self) -> Style {
        if self.color {
            Style::new().fg(Color::Yellow).add_modifier(Modifier::BOLD)
        } else {
            Style::new().add_modifier(Modifier::BOLD)
        }
    }

    /// The shared selection.
    pub fn selected(self) -> Style {
        Style::new().add_modifier(Modifier::REVERSED)
    }

    /// Secondary text (types, guides, times).
    pub fn dim(self) -> Style {
        self.fg(Color::DarkGray)
    }

    /// Focused borders and headings.
    pub fn accent(self) -> Style {
        self.fg(Color::Cyan).add_modifier(Modifier::BOLD)
    }

    /// Emphasis that survives `NO_COLOR`.
    pub fn bold(self) -> Style {
        Style::new().add_modifier(Modifier::BOLD)
    }

    /// Error text.
    pub fn error(self) -> Style {
        self.fg(Color::Red)
    }

    /// A panel border, brighter when the panel has the focus.
    pub fn border(self, focused: bool) -> Style {
        if focused { self.accent() } else { self.dim() }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_color_keeps_only_bold_and_reverse() {
        let t = Theme { color: false };
        let styles = [
            t.op(StepOp::Create),
            t.op(StepOp::Replace),
            t.status(Status::Failed),
            t.status(Status::WaitingForApproval),
            t.run_state(RunState::AwaitingApproval),
            t.severity(Severity::Error),
            t.alert(),
            t.dim(),
            t.accent(),
        ];
        for s in styles {
            assert_eq!((s.fg, s.bg), (None, None), "{s:?}");
            let allowed = Modifier::BOLD | Modifier::REVERSED;
            assert!(allowed.contains(s.add_modifier), "{s:?}");
        }
        assert!(t.alert().add_modifier.contains(Modifier::REVERSED));
        assert_eq!(Theme::colored().op(StepOp::Create).fg, Some(Color::Green));
    }
}
