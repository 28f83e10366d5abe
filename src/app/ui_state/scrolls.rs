//! Where each scrolling view is: one [`Scroll`] per view, of the kind that view moves by.

use super::scroll::Scroll;

/// Each view's scrolling position.
#[derive(Clone, Debug)]
pub struct Scrolls {
    /// The resource tree's rows (the selection moves; the rows shown follow it).
    pub resources: Scroll,
    /// The graph's columns of cells, across and down (it follows the selection).
    pub graph_x: Scroll,
    pub graph_y: Scroll,
    /// The chains' lanes, in display order.
    pub chains: Scroll,
    /// The pending view's cascades.
    pub pending: Scroll,
    /// The log's entries at the severity shown; it follows the newest.
    pub log: Scroll,
    /// The diffs running now.
    pub diffs: Scroll,
    /// The summary's lines.
    pub summary: Scroll,
    /// The help overlay's lines.
    pub help: Scroll,
    /// The details overlay's lines.
    pub details: Scroll,
}

impl Default for Scrolls {
    fn default() -> Self {
        Scrolls {
            resources: Scroll::pager(),
            graph_x: Scroll::pager(),
            graph_y: Scroll::pager(),
            chains: Scroll::list(),
            pending: Scroll::list(),
            log: Scroll::tail(),
            diffs: Scroll::pager(),
            summary: Scroll::pager(),
            help: Scroll::pager(),
            details: Scroll::pager(),
        }
    }
}
