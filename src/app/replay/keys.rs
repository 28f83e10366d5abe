//! The keys that move a replay's timeline, read before the console's own key map; the
//! console's keys that would act on a run are not offered in a replay.

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

use super::super::keymap::Action;

/// What the operator asks of the timeline.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReplayKey {
    /// `space`: play from the cursor, or stop.
    PlayPause,
    /// `.`: one line of the stream forward.
    StepForward,
    /// `,`: one line back.
    StepBack,
    /// `]`: to just after the next decision, pause or cancel.
    NextDecision,
    /// `[`: to just after the previous one.
    PrevDecision,
    /// `!`: to just after the first failure.
    FirstError,
    /// `+`: play faster.
    Faster,
    /// `-`: play slower.
    Slower,
    /// `0`: before the first event.
    Start,
    /// `$`: after the last event.
    End,
}

/// The timeline's action for a key, if it is one of the timeline's.
pub fn map_replay_key(key: KeyEvent) -> Option<ReplayKey> {
    if key.kind == KeyEventKind::Release || key.modifiers.contains(KeyModifiers::CONTROL) {
        return None;
    }
    Some(match key.code {
        KeyCode::Char(' ') => ReplayKey::PlayPause,
        KeyCode::Char('.') => ReplayKey::StepForward,
        KeyCode::Char(',') => ReplayKey::StepBack,
        KeyCode::Char(']') => ReplayKey::NextDecision,
        KeyCode::Char('[') => ReplayKey::PrevDecision,
        KeyCode::Char('!') => ReplayKey::FirstError,
        KeyCode::Char('+') | KeyCode::Char('=') => ReplayKey::Faster,
        KeyCode::Char('-') => ReplayKey::Slower,
        KeyCode::Char('0') => ReplayKey::Start,
        KeyCode::Char('$') => ReplayKey::End,
        _ => return None,
    })
}

/// Whether a console action may run in a replay: navigation and reading yes, anything that
/// would steer a run or prepare its apply no.
pub fn allowed_in_replay(action: &Action) -> bool {
    !matches!(
        action,
        Action::TogglePause
            | Action::Approve
            | Action::Decline
            | Action::ApproveAll
            | Action::ApproveKind
            | Action::ToggleSelect
            | Action::ToggleExclude
            | Action::ClearPendingCreates
            | Action::Cancel
            | Action::PreviewApply
            | Action::PreviewAbort
            | Action::Step
    )
}
