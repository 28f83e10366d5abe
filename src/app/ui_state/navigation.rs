//! Where the operator is: the focused view, the selection every view shares, the filter (and
//! the one being typed), collapsed subtrees, the sort, and how the graph and the log are shown.

use std::collections::HashSet;

use crate::app::filter::Filter;
use crate::app::model::Model;
use crate::app::sort::SortKey;
use crate::engine::{Severity, Urn};

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

/// The operator's place in the console.
#[derive(Clone, Debug)]
pub struct Navigation {
    pub focus: ViewId,
    /// Selection shared by every view.
    pub selected: Option<Urn>,
    pub filter: Filter,
    /// The filter being typed, while `/` input is open.
    pub filter_input: Option<String>,
    pub collapsed: HashSet<Urn>,
    /// Bumped when `collapsed` changes, so that the tree knows to flatten again.
    collapsed_version: u64,
    /// What the tree's siblings are sorted by.
    pub sort: SortKey,
    /// The graph shows only the selection's dependencies and dependents.
    pub graph_focus: bool,
    /// Narrow graph nodes, so that more layers fit.
    pub graph_zoomed_out: bool,
    /// The focused view fills the screen (`z`).
    pub zoomed: bool,
    pub log_min_severity: Severity,
}

impl Default for Navigation {
    fn default() -> Self {
        Navigation {
            focus: ViewId::Resources,
            selected: None,
            filter: Filter::default(),
            filter_input: None,
            collapsed: HashSet::new(),
            collapsed_version: 0,
            sort: SortKey::default(),
            graph_focus: false,
            graph_zoomed_out: false,
            zoomed: false,
            log_min_severity: Severity::Info,
        }
    }
}

impl Navigation {
    /// The selected resource's index, if it exists in the model.
    pub fn selected_index(&self, model: &Model) -> Option<usize> {
        self.selected.as_ref().and_then(|u| model.index_of(u))
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

    /// Changes whenever the collapsed set does.
    pub fn collapsed_version(&self) -> u64 {
        self.collapsed_version
    }
}
