//! Keys to actions, as a pure function of the key and the input context, so every binding is
//! testable without a terminal.

use crossterm::event::{
    KeyCode, KeyEvent, KeyEventKind, KeyModifiers, MouseButton, MouseEvent, MouseEventKind,
};

use super::ui_state::ViewId;

/// Everything the operator can ask of the console.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Action {
    Up,
    Down,
    PageUp,
    PageDown,
    Home,
    End,
    /// Collapse (tree) or move left (graph).
    Left,
    /// Expand (tree) or move right (graph).
    Right,
    NextView,
    PrevView,
    ShowView(ViewId),
    OpenDetails,
    /// Esc: closes the topmost overlay, dialog or filter input.
    Close,
    StartFilter,
    FilterChar(char),
    FilterBackspace,
    FilterCommit,
    /// A key typed where the stack's name is asked for.
    NameChar(char),
    NameBackspace,
    /// Enter where the stack's name is asked for: apply if it is the name.
    NameCommit,
    TogglePause,
    Approve,
    Decline,
    ApproveAll,
    /// `space` in a preview: select the resource for the apply, or unmark it.
    ToggleSelect,
    /// `x` in a preview (outside the pending view): exclude the resource and its subtree
    /// from the apply, or unmark it.
    ToggleExclude,
    /// `C` in a preview: mark the stack's pending creates to be cleared by the apply.
    ClearPendingCreates,
    /// `c`: asks to confirm a cancel.
    Cancel,
    /// `y` in a dialog.
    Confirm,
    /// `n` in a dialog.
    Deny,
    /// Ctrl-C: cancel, then terminate and quit.
    Interrupt,
    Quit,
    ToggleHelp,
    /// `P`: the policy packs overlay.
    TogglePolicies,
    PreviewApply,
    PreviewAbort,
    /// `f` in the graph: show only the selection's dependencies and dependents.
    ToggleGraphFocus,
    /// `s`: while paused, let one waiting step start; otherwise, in the log, cycle the
    /// minimum severity shown.
    Step,
    /// `K`: approve every waiting gate of the selected gate's kind (asks to confirm).
    ApproveKind,
    ScrollUp,
    ScrollDown,
    /// `e`: select the next failed resource and show its error.
    NextError,
    /// `E`: the previous failed resource.
    PrevError,
    /// `u`: copy the selected resource's URN to the clipboard (OSC 52).
    CopyUrn,
    /// `m`: capture the mouse, or let the terminal select text.
    ToggleMouse,
    /// `o`: sort the tree by the next key (name, type, status, duration).
    CycleSort,
    /// `z`: the focused panel fills the screen, or goes back to its place.
    ToggleZoom,
    /// `Z`: the graph's nodes narrow (more layers in view) or back to full names.
    ToggleGraphNarrow,
    /// `:`: opens the prompt that jumps to a resource by name.
    StartJump,
    JumpChar(char),
    JumpBackspace,
    /// Tab or ↓ in the jump prompt: the next match.
    JumpNext,
    /// Shift-Tab or ↑ in the jump prompt: the previous match.
    JumpPrev,
    /// Enter in the jump prompt: select the chosen resource.
    JumpCommit,
    /// `/` in the Log: opens the search prompt.
    StartSearch,
    SearchChar(char),
    SearchBackspace,
    /// Enter in the search prompt: keep the search (`n`/`N` then move between matches).
    SearchCommit,
    /// `n` in the Log while searching.
    SearchNext,
    /// `N` in the Log while searching.
    SearchPrev,
    /// `f` in the Log: follow the newest lines, or hold the lines shown.
    ToggleFollow,
    /// `Y`: copy the selected resource's error to the clipboard (OSC 52).
    CopyError,
    /// A left click at a screen cell: selects the resource row there.
    Click {
        column: u16,
        row: u16,
    },
}

/// What decides how a key is read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct KeyContext {
    /// `/` input is open: printable keys are filter text.
    pub filter_input: bool,
    /// The `:` prompt is open: printable keys are the name to jump to.
    pub jump_input: bool,
    /// The Log's `/` prompt is open: printable keys are the search text.
    pub search_input: bool,
    /// The Log has the focus (no overlay on top): `/` searches it and `f` follows it.
    pub in_log: bool,
    /// The Log holds a search: `n`/`N` move between its matches.
    pub searching: bool,
    /// A confirm dialog is open: `y`/`n`/Esc answer it.
    pub confirming: bool,
    /// The stack's name is asked for: printable keys are the name.
    pub typing_name: bool,
    /// A preview waits for `y`/`n`.
    pub preview_decision: bool,
    /// A preview waiting for `y`/`n` shows resources (not its pending replacements): `x`
    /// excludes the selected one rather than declining a replacement.
    pub marking: bool,
}

/// The keys the operator typed for one key event. A terminal sends Alt-x as Esc then x, so an
/// Esc typed just before another key reaches us as one Alt-chord when both are read at once;
/// the console binds nothing to Alt, so such a chord is taken as that Esc, then the key.
pub fn as_typed(key: KeyEvent) -> impl Iterator<Item = KeyEvent> {
    let esc = key
        .modifiers
        .contains(KeyModifiers::ALT)
        .then(|| KeyEvent::new_with_kind(KeyCode::Esc, KeyModifiers::NONE, key.kind));
    let key = KeyEvent {
        modifiers: key.modifiers - KeyModifiers::ALT,
        ..key
    };
    esc.into_iter().chain(std::iter::once(key))
}

/// The action for a key, if any.
pub fn map_key(key: KeyEvent, ctx: KeyContext) -> Option<Action> {
    if key.kind == KeyEventKind::Release {
        return None;
    }
    let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
    if ctrl && matches!(key.code, KeyCode::Char('c') | KeyCode::Char('C')) {
        return Some(Action::Interrupt);
    }
    if ctx.jump_input {
        return match key.code {
            KeyCode::Esc => Some(Action::Close),
            KeyCode::Enter => Some(Action::JumpCommit),
            KeyCode::Backspace => Some(Action::JumpBackspace),
            KeyCode::Tab | KeyCode::Down => Some(Action::JumpNext),
            KeyCode::BackTab | KeyCode::Up => Some(Action::JumpPrev),
            KeyCode::Char(c) if !ctrl => Some(Action::JumpChar(c)),
            _ => None,
        };
    }
    if ctx.search_input {
        return match key.code {
            KeyCode::Esc => Some(Action::Close),
            KeyCode::Enter => Some(Action::SearchCommit),
            KeyCode::Backspace => Some(Action::SearchBackspace),
            KeyCode::Char(c) if !ctrl => Some(Action::SearchChar(c)),
            _ => None,
        };
    }
    if ctx.filter_input {
        return match key.code {
            KeyCode::Esc => Some(Action::Close),
            KeyCode::Enter => Some(Action::FilterCommit),
            KeyCode::Backspace => Some(Action::FilterBackspace),
            KeyCode::Char(c) if !ctrl => Some(Action::FilterChar(c)),
            _ => None,
        };
    }
    if ctx.typing_name {
        return match key.code {
            KeyCode::Esc => Some(Action::Close),
            KeyCode::Enter => Some(Action::NameCommit),
            KeyCode::Backspace => Some(Action::NameBackspace),
            KeyCode::Char(c) if !ctrl => Some(Action::NameChar(c)),
            _ => None,
        };
    }
    if ctx.confirming {
        return match key.code {
            KeyCode::Char('y') | KeyCode::Char('Y') | KeyCode::Enter => Some(Action::Confirm),
            KeyCode::Char('n') | KeyCode::Char('N') | KeyCode::Esc => Some(Action::Deny),
            _ => None,
        };
    }
    Some(match key.code {
        KeyCode::Up | KeyCode::Char('k') => Action::Up,
        KeyCode::Down | KeyCode::Char('j') => Action::Down,
        KeyCode::Left | KeyCode::Char('h') => Action::Left,
        KeyCode::Right | KeyCode::Char('l') => Action::Right,
        KeyCode::PageUp => Action::PageUp,
        KeyCode::PageDown => Action::PageDown,
        KeyCode::Char('b') if ctrl => Action::PageUp,
        KeyCode::Char('f') if ctrl => Action::PageDown,
        KeyCode::Home | KeyCode::Char('g') => Action::Home,
        KeyCode::End | KeyCode::Char('G') => Action::End,
        KeyCode::Tab => Action::NextView,
        KeyCode::BackTab => Action::PrevView,
        KeyCode::Char(d @ '1'..='7') => {
            ViewId::from_number(d as usize - '0' as usize).map(Action::ShowView)?
        }
        KeyCode::Enter => Action::OpenDetails,
        KeyCode::Esc => Action::Close,
        KeyCode::Char('/') if ctx.in_log => Action::StartSearch,
        KeyCode::Char('/') => Action::StartFilter,
        KeyCode::Char(':') => Action::StartJump,
        KeyCode::Char('n') if ctx.in_log && ctx.searching => Action::SearchNext,
        KeyCode::Char('N') if ctx.in_log && ctx.searching => Action::SearchPrev,
        KeyCode::Char('f') if ctx.in_log => Action::ToggleFollow,
        KeyCode::Char('Y') => Action::CopyError,
        KeyCode::Char('p') => Action::TogglePause,
        KeyCode::Char('a') => Action::Approve,
        KeyCode::Char('x') if ctx.marking => Action::ToggleExclude,
        KeyCode::Char('x') => Action::Decline,
        KeyCode::Char(' ') => Action::ToggleSelect,
        KeyCode::Char('A') => Action::ApproveAll,
        KeyCode::Char('C') => Action::ClearPendingCreates,
        KeyCode::Char('c') => Action::Cancel,
        KeyCode::Char('q') => Action::Quit,
        KeyCode::Char('?') => Action::ToggleHelp,
        KeyCode::Char('P') => Action::TogglePolicies,
        KeyCode::Char('f') => Action::ToggleGraphFocus,
        KeyCode::Char('s') => Action::Step,
        KeyCode::Char('K') => Action::ApproveKind,
        KeyCode::Char('e') => Action::NextError,
        KeyCode::Char('E') => Action::PrevError,
        KeyCode::Char('u') => Action::CopyUrn,
        KeyCode::Char('m') => Action::ToggleMouse,
        KeyCode::Char('o') => Action::CycleSort,
        KeyCode::Char('z') => Action::ToggleZoom,
        KeyCode::Char('Z') => Action::ToggleGraphNarrow,
        KeyCode::Char('y') if ctx.preview_decision => Action::PreviewApply,
        KeyCode::Char('n') if ctx.preview_decision => Action::PreviewAbort,
        _ => return None,
    })
}

/// The action for a mouse event: the wheel scrolls.
pub fn map_mouse(m: MouseEvent) -> Option<Action> {
    match m.kind {
        MouseEventKind::ScrollUp => Some(Action::ScrollUp),
        MouseEventKind::ScrollDown => Some(Action::ScrollDown),
        MouseEventKind::Down(MouseButton::Left) => Some(Action::Click {
            column: m.column,
            row: m.row,
        }),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crossterm::event::KeyEventState;

    fn key(code: KeyCode) -> KeyEvent {
        KeyEvent::new(code, KeyModifiers::NONE)
    }

    fn ctrl(c: char) -> KeyEvent {
        KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL)
    }

    fn normal(code: KeyCode) -> Option<Action> {
        map_key(key(code), KeyContext::default())
    }

    #[test]
    fn an_alt_chord_is_the_esc_before_its_key() {
        let alt = |code| KeyEvent::new(code, KeyModifiers::ALT);
        let typed: Vec<KeyEvent> = as_typed(alt(KeyCode::Char('/'))).collect();
        assert_eq!(typed, vec![key(KeyCode::Esc), key(KeyCode::Char('/'))]);
        let both = KeyEvent::new(
            KeyCode::Char('c'),
            KeyModifiers::ALT | KeyModifiers::CONTROL,
        );
        let typed: Vec<KeyEvent> = as_typed(both).collect();
        assert_eq!(typed, vec![key(KeyCode::Esc), ctrl('c')], "Ctrl stays");
        let plain: Vec<KeyEvent> = as_typed(key(KeyCode::Char('/'))).collect();
        assert_eq!(plain, vec![key(KeyCode::Char('/'))]);
    }

    #[test]
    fn arrows_and_vim_keys_move() {
        for (a, b, want) in [
            (KeyCode::Up, KeyCode::Char('k'), Action::Up),
            (KeyCode::Down, KeyCode::Char('j'), Action::Down),
            (KeyCode::Left, KeyCode::Char('h'), Action::Left),
            (KeyCode::Right, KeyCode::Char('l'), Action::Right),
            (KeyCode::Home, KeyCode::Char('g'), Action::Home),
            (KeyCode::End, KeyCode::Char('G'), Action::End),
        ] {
            assert_eq!(normal(a), Some(want.clone()));
            assert_eq!(normal(b), Some(want));
        }
        assert_eq!(normal(KeyCode::PageDown), Some(Action::PageDown));
        assert_eq!(normal(KeyCode::PageUp), Some(Action::PageUp));
    }

    #[test]
    fn view_switching_keys() {
        assert_eq!(normal(KeyCode::Tab), Some(Action::NextView));
        assert_eq!(normal(KeyCode::BackTab), Some(Action::PrevView));
        assert_eq!(
            normal(KeyCode::Char('1')),
            Some(Action::ShowView(ViewId::Resources))
        );
        assert_eq!(
            normal(KeyCode::Char('4')),
            Some(Action::ShowView(ViewId::Pending))
        );
        assert_eq!(
            normal(KeyCode::Char('6')),
            Some(Action::ShowView(ViewId::Diffs))
        );
        assert_eq!(
            normal(KeyCode::Char('7')),
            Some(Action::ShowView(ViewId::Summary))
        );
        assert_eq!(normal(KeyCode::Char('8')), None);
    }

    #[test]
    fn operator_keys() {
        assert_eq!(normal(KeyCode::Char('p')), Some(Action::TogglePause));
        assert_eq!(normal(KeyCode::Char('a')), Some(Action::Approve));
        assert_eq!(normal(KeyCode::Char('x')), Some(Action::Decline));
        assert_eq!(normal(KeyCode::Char(' ')), Some(Action::ToggleSelect));
        let marking = KeyContext {
            preview_decision: true,
            marking: true,
            ..KeyContext::default()
        };
        assert_eq!(
            map_key(key(KeyCode::Char('x')), marking),
            Some(Action::ToggleExclude)
        );
        assert_eq!(normal(KeyCode::Char('A')), Some(Action::ApproveAll));
        assert_eq!(
            normal(KeyCode::Char('C')),
            Some(Action::ClearPendingCreates)
        );
        assert_eq!(normal(KeyCode::Char('c')), Some(Action::Cancel));
        assert_eq!(normal(KeyCode::Char('q')), Some(Action::Quit));
        assert_eq!(normal(KeyCode::Char('?')), Some(Action::ToggleHelp));
        assert_eq!(normal(KeyCode::Char('P')), Some(Action::TogglePolicies));
        assert_eq!(normal(KeyCode::Enter), Some(Action::OpenDetails));
        assert_eq!(normal(KeyCode::Char('/')), Some(Action::StartFilter));
        assert_eq!(normal(KeyCode::Char('e')), Some(Action::NextError));
        assert_eq!(normal(KeyCode::Char('E')), Some(Action::PrevError));
        assert_eq!(normal(KeyCode::Char('u')), Some(Action::CopyUrn));
        assert_eq!(normal(KeyCode::Char('m')), Some(Action::ToggleMouse));
        assert_eq!(normal(KeyCode::Char('o')), Some(Action::CycleSort));
        assert_eq!(normal(KeyCode::Char('z')), Some(Action::ToggleZoom));
        assert_eq!(
            map_key(ctrl('c'), KeyContext::default()),
            Some(Action::Interrupt)
        );
    }

    #[test]
    fn the_log_searches_and_follows_and_colon_jumps() {
        let log = KeyContext {
            in_log: true,
            preview_decision: true,
            ..KeyContext::default()
        };
        assert_eq!(
            map_key(key(KeyCode::Char('/')), log),
            Some(Action::StartSearch)
        );
        assert_eq!(
            map_key(key(KeyCode::Char('f')), log),
            Some(Action::ToggleFollow)
        );
        assert_eq!(
            map_key(key(KeyCode::Char('n')), log),
            Some(Action::PreviewAbort),
            "without a search, n still aborts a preview"
        );
        let searching = KeyContext {
            searching: true,
            ..log
        };
        assert_eq!(
            map_key(key(KeyCode::Char('n')), searching),
            Some(Action::SearchNext)
        );
        assert_eq!(
            map_key(key(KeyCode::Char('N')), searching),
            Some(Action::SearchPrev)
        );
        assert_eq!(normal(KeyCode::Char('/')), Some(Action::StartFilter));
        assert_eq!(normal(KeyCode::Char('f')), Some(Action::ToggleGraphFocus));
        assert_eq!(normal(KeyCode::Char(':')), Some(Action::StartJump));
        assert_eq!(normal(KeyCode::Char('Z')), Some(Action::ToggleGraphNarrow));
        assert_eq!(normal(KeyCode::Char('Y')), Some(Action::CopyError));
        let jump = KeyContext {
            jump_input: true,
            ..KeyContext::default()
        };
        for (code, want) in [
            (KeyCode::Tab, Action::JumpNext),
            (KeyCode::Down, Action::JumpNext),
            (KeyCode::BackTab, Action::JumpPrev),
            (KeyCode::Up, Action::JumpPrev),
            (KeyCode::Enter, Action::JumpCommit),
            (KeyCode::Esc, Action::Close),
            (KeyCode::Char('q'), Action::JumpChar('q')),
        ] {
            assert_eq!(map_key(key(code), jump), Some(want));
        }
        let search = KeyContext {
            search_input: true,
            ..KeyContext::default()
        };
        assert_eq!(
            map_key(key(KeyCode::Char('n')), search),
            Some(Action::SearchChar('n'))
        );
        assert_eq!(
            map_key(key(KeyCode::Enter), search),
            Some(Action::SearchCommit)
        );
    }

    #[test]
    fn y_and_n_apply_or_abort_only_when_a_preview_waits() {
        assert_eq!(normal(KeyCode::Char('y')), None);
        let ctx = KeyContext {
            preview_decision: true,
            ..KeyContext::default()
        };
        assert_eq!(
            map_key(key(KeyCode::Char('y')), ctx),
            Some(Action::PreviewApply)
        );
        assert_eq!(
            map_key(key(KeyCode::Char('n')), ctx),
            Some(Action::PreviewAbort)
        );
    }

    #[test]
    fn dialogs_and_filter_input_take_their_keys_but_ctrl_c_always_interrupts() {
        let confirm = KeyContext {
            confirming: true,
            ..KeyContext::default()
        };
        assert_eq!(
            map_key(key(KeyCode::Char('y')), confirm),
            Some(Action::Confirm)
        );
        assert_eq!(map_key(key(KeyCode::Esc), confirm), Some(Action::Deny));
        assert_eq!(map_key(key(KeyCode::Char('p')), confirm), None);
        let filter = KeyContext {
            filter_input: true,
            ..KeyContext::default()
        };
        assert_eq!(
            map_key(key(KeyCode::Char('q')), filter),
            Some(Action::FilterChar('q'))
        );
        assert_eq!(
            map_key(key(KeyCode::Backspace), filter),
            Some(Action::FilterBackspace)
        );
        assert_eq!(
            map_key(key(KeyCode::Enter), filter),
            Some(Action::FilterCommit)
        );
        assert_eq!(map_key(ctrl('c'), filter), Some(Action::Interrupt));
        assert_eq!(map_key(ctrl('c'), confirm), Some(Action::Interrupt));
    }

    #[test]
    fn key_releases_are_ignored_and_the_wheel_scrolls() {
        let release = KeyEvent {
            code: KeyCode::Char('p'),
            modifiers: KeyModifiers::NONE,
            kind: KeyEventKind::Release,
            state: KeyEventState::NONE,
        };
        assert_eq!(map_key(release, KeyContext::default()), None);
        let wheel = |kind| MouseEvent {
            kind,
            column: 0,
            row: 0,
            modifiers: KeyModifiers::NONE,
        };
        assert_eq!(
            map_mouse(wheel(MouseEventKind::ScrollDown)),
            Some(Action::ScrollDown)
        );
        assert_eq!(
            map_mouse(wheel(MouseEventKind::ScrollUp)),
            Some(Action::ScrollUp)
        );
        assert_eq!(
            map_mouse(wheel(MouseEventKind::Down(MouseButton::Left))),
            Some(Action::Click { column: 0, row: 0 })
        );
        assert_eq!(
            map_mouse(wheel(MouseEventKind::Down(MouseButton::Right))),
            None
        );
    }
}
