//! The help overlay's lines (`?`): the keys that act in the console's current mode, each
//! listed once, so that a preview's help does not offer pausing and a run's does not offer
//! `y`.

use super::console::ConsoleMode;
use super::model::Model;
use super::ui_state::UiState;

/// What the console is showing, as far as the keys that act go.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HelpMode {
    /// A preview that ends with `y`/`n` (`up` before its update).
    Deciding,
    /// A preview that only shows (`stepdeck preview`).
    ReadOnlyPreview,
    /// A live deployment this console steers, still running.
    Running,
    /// A live deployment that is over.
    Finished,
    /// Attached with a watch-only token: it shows, it does not act.
    WatchOnly,
    /// A recorded run on a timeline (`stepdeck replay`): its keys move the timeline.
    Replay,
}

impl HelpMode {
    /// The mode the console is in now.
    pub fn of(ui: &UiState, model: &Model) -> HelpMode {
        match ui.mode {
            _ if ui.replay => HelpMode::Replay,
            _ if ui.watch_only => HelpMode::WatchOnly,
            ConsoleMode::Preview {
                awaiting_decision: true,
            } => HelpMode::Deciding,
            ConsoleMode::Preview {
                awaiting_decision: false,
            } => HelpMode::ReadOnlyPreview,
            ConsoleMode::Live if model.run_state().is_over() || ui.engine_gone => {
                HelpMode::Finished
            }
            ConsoleMode::Live => HelpMode::Running,
        }
    }

    fn bit(self) -> u8 {
        match self {
            HelpMode::Deciding => D,
            HelpMode::ReadOnlyPreview => R,
            HelpMode::Running => L,
            HelpMode::Finished => F,
            HelpMode::WatchOnly => W,
            HelpMode::Replay => P,
        }
    }
}

const D: u8 = 1;
const R: u8 = 2;
const L: u8 = 4;
const F: u8 = 8;
const W: u8 = 16;
const P: u8 = 32;
const ALL: u8 = D | R | L | F | W | P;

/// Every key with the modes it acts in and what it does there.
const KEYS: &[(u8, &str, &str)] = &[
    (ALL, "↑ ↓  k j", "move the selection"),
    (
        ALL,
        "← →  h l",
        "collapse / expand (tree), move between layers (graph)",
    ),
    (ALL, "PgUp PgDn", "page up / down"),
    (ALL, "Home End  g G", "first / last"),
    (ALL, "Tab  Shift-Tab", "next / previous view"),
    (
        ALL,
        "1-7",
        "Resources, Graph, Chains, Pending, Log, Diffs (props), Summary",
    ),
    (D, "y", "apply the preview"),
    (
        D,
        "n  N",
        "abort the preview; Log while searching: next / previous match",
    ),
    (
        D,
        "space",
        "select for the apply (y applies only the selection)",
    ),
    (
        D,
        "x",
        "exclude with dependents; in Pending: decline for the apply",
    ),
    (D, "a", "approve the selected replacement for the apply"),
    (
        D,
        "A",
        "approve every planned replacement for the apply (asks)",
    ),
    (D, "C", "mark the pending creates to clear in the apply"),
    (L, "p", "pause / resume (no new step starts while paused)"),
    (
        L,
        "s",
        "paused: let one waiting step start; else Log: severity",
    ),
    (
        D | R | F | W | P,
        "s",
        "Log: cycle the minimum severity shown",
    ),
    (L, "a", "approve the selected gate"),
    (L, "x", "decline the selected gate"),
    (L, "A", "approve everything waiting (asks to confirm)"),
    (
        L,
        "K",
        "approve all waiting gates of the selected kind (asks)",
    ),
    (L, "c", "cancel the deployment (asks to confirm)"),
    (L, "Ctrl-C", "cancel; a second Ctrl-C terminates and quits"),
    (L, "q", "quit (asks: the deployment is cancelled)"),
    (D, "q  Ctrl-C", "abort the preview (as n)"),
    (R, "q  Ctrl-C", "quit (the preview stops)"),
    (F | P, "q  Ctrl-C", "quit"),
    (W, "q  Ctrl-C", "detach (the run goes on)"),
    (P, "space", "play the run from the cursor, or stop"),
    (P, ".  ,", "one event forward / back"),
    (P, "]  [", "next / previous decision, gate, pause or cancel"),
    (P, "!", "the first failure"),
    (P, "+  -", "play faster / slower (1x, 4x, 16x, max)"),
    (P, "0  $", "the run's start / end"),
    (ALL, "z", "zoom the focused panel to full screen, or back"),
    (
        ALL,
        ":",
        "jump to a resource by name (Tab or ↑↓ choose, Enter selects)",
    ),
    (ALL, "Enter", "details of the selected resource"),
    (ALL, "P", "policy packs: what each policy found, by level"),
    (
        ALL,
        "Esc",
        "close details, policies, help, dialog or filter",
    ),
    (
        ALL,
        "/",
        "filter: words, op:, type:, status:, urn:; in the Log: search",
    ),
    (
        R | L | F | W | P,
        "n  N",
        "Log, while searching: next / previous match",
    ),
    (
        ALL,
        "f",
        "Log: follow the newest lines or hold; Graph: focus",
    ),
    (
        ALL,
        "Z",
        "graph: narrow nodes (more layers in view) / full names",
    ),
    (
        ALL,
        "e  E",
        "next / previous failed resource, with its error",
    ),
    (ALL, "o", "sort the tree by name, type, status, duration"),
    (ALL, "u", "copy the selected URN to the clipboard (OSC 52)"),
    (ALL, "Y", "copy the selected resource's error (OSC 52)"),
    (
        ALL,
        "m",
        "mouse capture on / off (off lets the terminal select text)",
    ),
    (ALL, "?", "this help"),
];

/// The keys that act in `mode`, each once, as (keys, what they do).
pub fn bindings(mode: HelpMode) -> Vec<(&'static str, &'static str)> {
    KEYS.iter()
        .filter(|(modes, _, _)| modes & mode.bit() != 0)
        .map(|&(_, k, what)| (k, what))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const MODES: [HelpMode; 6] = [
        HelpMode::Deciding,
        HelpMode::ReadOnlyPreview,
        HelpMode::Running,
        HelpMode::Finished,
        HelpMode::WatchOnly,
        HelpMode::Replay,
    ];

    #[test]
    fn each_key_is_listed_once_in_every_mode() {
        for mode in MODES {
            let keys: Vec<&str> = bindings(mode)
                .iter()
                .flat_map(|(k, _)| k.split_whitespace())
                .collect();
            let mut unique = keys.clone();
            unique.sort();
            unique.dedup();
            assert_eq!(keys.len(), unique.len(), "{mode:?}: {keys:?}");
        }
    }

    #[test]
    fn only_a_deciding_preview_offers_y_and_only_a_run_pauses() {
        let has = |mode, key: &str| bindings(mode).iter().any(|(k, _)| k.starts_with(key));
        assert!(has(HelpMode::Deciding, "y"));
        for mode in MODES.into_iter().filter(|&m| m != HelpMode::Deciding) {
            assert!(!has(mode, "y"), "{mode:?}");
            assert!(!has(mode, "space") || mode == HelpMode::Replay, "{mode:?}");
        }
        assert!(has(HelpMode::Running, "p"));
        for mode in MODES.into_iter().filter(|&m| m != HelpMode::Running) {
            assert!(
                !has(mode, "p") && !has(mode, "c") && !has(mode, "K"),
                "{mode:?}"
            );
        }
        assert!(!has(HelpMode::WatchOnly, "a") && !has(HelpMode::WatchOnly, "x"));
        assert!(!has(HelpMode::Replay, "a") && !has(HelpMode::Replay, "x"));
    }

    #[test]
    fn a_replay_lists_the_timeline_s_keys_and_only_it_does() {
        let has = |mode, key: &str| bindings(mode).iter().any(|(k, _)| k.starts_with(key));
        for key in ["space", ".  ,", "]  [", "!", "+  -", "0  $"] {
            assert!(has(HelpMode::Replay, key), "{key}");
        }
        for mode in MODES.into_iter().filter(|&m| m != HelpMode::Replay) {
            assert!(!has(mode, "!") && !has(mode, "0  $"), "{mode:?}");
        }
    }
}
