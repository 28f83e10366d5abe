//! What the operator is looking at (as opposed to what the deployment is doing): focused view,
//! shared selection, filter, scroll positions, overlays and dialogs.

use crate::engine::run::approval::ApprovalKind;
use std::collections::HashSet;

use crate::engine::{Severity, Urn};

use super::console::{ConsoleMode, Title};
use super::filter::Filter;
use super::graph_layout::GraphLayout;
use super::model::{Model, RunState};
use super::preset::Presets;
use super::sort::SortKey;
use super::tree_index::TreeIndex;

/// The footer's notice after a first Ctrl-C, while the run winds down.
pub const CANCELLING_NOTICE: &str = "cancelling; Ctrl-C again terminates";

/// The views; numbers are their keys in narrow mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ViewId {
    Resources,
    Graph,
    Chains,
    Pending,
    Log,
    Diffs,
    /// The closing summary (what ran, failures, outputs), once the run is over.
    Summary,
}

impl ViewId {
    pub const ALL: [ViewId; 7] = [
        ViewId::Resources,
        ViewId::Graph,
        ViewId::Chains,
        ViewId::Pending,
        ViewId::Log,
        ViewId::Diffs,
        ViewId::Summary,
    ];

    /// The view's heading.
    pub fn title(self) -> &'static str {
        match self {
            ViewId::Resources => "Resources",
            ViewId::Graph => "Graph",
            ViewId::Chains => "Chains",
            ViewId::Pending => "Pending replacements",
            ViewId::Log => "Log",
            ViewId::Diffs => "Diffs",
            ViewId::Summary => "Summary",
        }
    }

    /// The number key that shows the view.
    pub fn number(self) -> usize {
        ViewId::ALL.iter().position(|&v| v == self).unwrap_or(0) + 1
    }

    pub fn from_number(n: usize) -> Option<ViewId> {
        n.checked_sub(1).and_then(|k| ViewId::ALL.get(k).copied())
    }

    /// The view Tab goes to.
    pub fn next(self) -> ViewId {
        ViewId::ALL[self.number() % ViewId::ALL.len()]
    }

    /// The view Shift-Tab goes to.
    pub fn prev(self) -> ViewId {
        ViewId::ALL[(self.number() + ViewId::ALL.len() - 2) % ViewId::ALL.len()]
    }
}

/// A question the console asks before acting.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Confirm {
    /// `c`: cancel the deployment?
    Cancel,
    /// `q` while running: cancel and quit?
    Quit,
    /// `A`: approve every waiting cascade (each deletes before it creates)?
    ApproveAll,
    /// `K`: approve every waiting step gate of this kind?
    ApproveKind(ApprovalKind),
}

/// The operator's side of the console.
#[derive(Clone, Debug)]
pub struct UiState {
    pub mode: ConsoleMode,
    pub title: Title,
    pub focus: ViewId,
    /// Selection shared by every view.
    pub selected: Option<Urn>,
    pub filter: Filter,
    /// The filter being typed, while `/` input is open.
    pub filter_input: Option<String>,
    pub collapsed: HashSet<Urn>,
    collapsed_version: u64,
    /// First visible row per scrolling view.
    pub resources_offset: usize,
    pub chains_cursor: usize,
    pub pending_cursor: usize,
    /// Log rows scrolled up from the newest; 0 follows the tail.
    pub log_back: usize,
    pub log_min_severity: Severity,
    pub diffs_offset: usize,
    pub graph_focus: bool,
    pub graph_offset: (usize, usize),
    /// Narrow graph nodes, so that more layers fit.
    pub graph_zoomed_out: bool,
    pub help: bool,
    pub help_scroll: usize,
    pub details: bool,
    pub details_scroll: usize,
    pub confirm: Option<Confirm>,
    /// Ctrl-C presses so far (the second terminates).
    pub interrupts: u8,
    /// A one-line notice (bad filter, "preview still running", …).
    pub notice: Option<String>,
    pub tree: TreeIndex,
    pub graph: GraphLayout,
    /// Rows of the last drawn resources list (for page up/down).
    pub page: usize,
    /// Where the resource rows were last drawn (for mouse clicks).
    pub resources_rows: Option<ratatui::layout::Rect>,
    /// Wide layout (several views) in the last drawn frame.
    pub wide: bool,
    /// The engine closed its event stream (finished or gone): quitting needs no confirmation.
    pub engine_gone: bool,
    /// Decisions made on a preview's cascades, carried into its apply.
    pub presets: Presets,
    /// Summary rows scrolled past.
    pub summary_scroll: usize,
    /// The summary was brought forward once when the run ended.
    pub summary_shown: bool,
    /// What the tree's siblings are sorted by.
    pub sort: SortKey,
    /// Whether the console captures the mouse (off lets the terminal select text).
    pub mouse_capture: bool,
    /// A terminal escape the loop should write (OSC 52 copy), taken once written.
    pub clipboard: Option<String>,
}

impl UiState {
    pub fn new(mode: ConsoleMode, title: Title) -> UiState {
        let notice = title.phase.clone();
        UiState {
            mode,
            title,
            focus: ViewId::Resources,
            selected: None,
            filter: Filter::default(),
            filter_input: None,
            collapsed: HashSet::new(),
            collapsed_version: 0,
            resources_offset: 0,
            chains_cursor: 0,
            pending_cursor: 0,
            log_back: 0,
            log_min_severity: Severity::Info,
            diffs_offset: 0,
            graph_focus: false,
            graph_offset: (0, 0),
            graph_zoomed_out: false,
            help: false,
            help_scroll: 0,
            details: false,
            details_scroll: 0,
            confirm: None,
            interrupts: 0,
            notice,
            tree: TreeIndex::default(),
            graph: GraphLayout::default(),
            page: 10,
            resources_rows: None,
            wide: false,
            engine_gone: false,
            presets: Presets::default(),
            summary_scroll: 0,
            summary_shown: false,
            sort: SortKey::default(),
            mouse_capture: true,
            clipboard: None,
        }
    }

    /// Whether this console is a preview that ends with `y`/`n` (its decisions carry over).
    pub fn deciding_preview(&self) -> bool {
        matches!(
            self.mode,
            ConsoleMode::Preview {
                awaiting_decision: true
            }
        )
    }

    /// A preview that only shows (`stepdeck preview`): nothing to approve, nothing to cancel.
    pub fn read_only_preview(&self) -> bool {
        matches!(
            self.mode,
            ConsoleMode::Preview {
                awaiting_decision: false
            }
        )
    }

    /// Drops questions the deployment has made moot: nothing runs to cancel once it is over,
    /// and approve-all with nothing waiting asks nothing.
    pub fn settle(&mut self, model: &Model) {
        let over = model.run_state().is_over() || self.engine_gone;
        // A second Ctrl-C has nothing left to terminate once the run is over.
        if over && self.notice.as_deref() == Some(CANCELLING_NOTICE) {
            self.notice = None;
        }
        // On a narrow terminal the summary is one view among others: show it when the run
        // ends (the wide layout shows it beside the chains by itself).
        if model.run.summary.is_some() && !self.summary_shown {
            self.summary_shown = true;
            if !self.wide && self.focus == ViewId::Resources && !self.deciding_preview() {
                self.focus = ViewId::Summary;
            }
        }
        self.confirm = match self.confirm {
            Some(Confirm::Cancel | Confirm::Quit) if over => None,
            Some(Confirm::ApproveAll | Confirm::ApproveKind(_))
                if !self.deciding_preview()
                    && (over
                        || model.approvals.undecided() == 0
                        || model.run_state() == RunState::Cancelling) =>
            {
                None
            }
            other => other,
        };
    }

    /// Brings the flattened tree up to date with the model, filter and collapsed set.
    pub fn refresh_tree(&mut self, model: &Model) {
        self.tree.refresh(
            model,
            &self.filter,
            &self.collapsed,
            self.collapsed_version,
            self.sort,
        );
    }

    /// Brings the graph layout up to date (focused on the selection in focus mode), ordered
    /// through the selection's column and the next (what moving the selection needs).
    pub fn refresh_graph(&mut self, model: &Model) {
        let focus = if self.graph_focus {
            self.selected.as_ref()
        } else {
            None
        };
        self.graph.refresh(model, focus, &self.filter);
        if let Some(c) = self
            .selected_index(model)
            .and_then(|i| self.graph.column_of(model, i))
        {
            self.graph.order_through(model, c + 1);
        }
    }

    /// Collapses or expands a subtree of the resource tree.
    pub fn set_collapsed(&mut self, urn: &Urn, collapsed: bool) {
        let changed = if collapsed {
            self.collapsed.insert(urn.clone())
        } else {
            self.collapsed.remove(urn)
        };
        if changed {
            self.collapsed_version += 1;
        }
    }

    /// The selected resource's index, if it exists in the model.
    pub fn selected_index(&self, model: &Model) -> Option<usize> {
        self.selected.as_ref().and_then(|u| model.index_of(u))
    }

    /// Selects the first row when nothing is selected yet, so keys act on something visible.
    pub fn ensure_selection(&mut self, model: &Model) {
        if self.selected_index(model).is_none() {
            self.refresh_tree(model);
            if let Some(r) = self.tree.reach(model, 1).first() {
                self.selected = Some(model.resource(r.idx).urn.clone());
            }
        }
    }
}
