//! What drawing learned: the layout of the last frame, and the tree and graph laid out from
//! the model (rebuilt only when the model, the filter or the focus changed).

use ratatui::layout::Rect;

use crate::app::graph_layout::GraphLayout;
use crate::app::tree_index::TreeIndex;

/// The last frame's layout and the views' layouts of the model.
#[derive(Clone, Debug, Default)]
pub struct ViewLayout {
    /// Wide layout (several views) in the last drawn frame.
    pub wide: bool,
    /// Where the resource rows were last drawn (for mouse clicks).
    pub resources_rows: Option<Rect>,
    /// The resource tree, flattened under the filter, the collapsed set and the sort.
    pub tree: TreeIndex,
    /// The dependency graph laid out in layers.
    pub graph: GraphLayout,
}
