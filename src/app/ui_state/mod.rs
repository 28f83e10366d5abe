//! What the operator is looking at (as opposed to what the deployment is doing), one struct
//! per concern: where they are (`navigation`: focus, selection, filter), each view's scroll
//! position (`scrolls`, all of one [`Scroll`] type), what is drawn over the views
//! (`overlays`), and what drawing learned (`view_layout`). A new concern is a file here and a
//! field of [`UiState`].

mod navigation;
mod overlays;
mod scroll;
mod scrolls;
mod view_layout;

pub use navigation::{Navigation, ViewId};
pub use overlays::{CANCELLING_NOTICE, Confirm, Overlays};
pub use scroll::{Move, Scroll};
pub use scrolls::Scrolls;
pub use view_layout::ViewLayout;

use super::console::{ConsoleMode, Title};
use super::jump::Jump;
use super::log_search::LogSearch;
use super::model::{Model, RunState};
use super::preset::Presets;

/// The operator's side of the console.
#[derive(Clone, Debug)]
pub struct UiState {
    pub mode: ConsoleMode,
    pub title: Title,
    pub nav: Navigation,
    pub scroll: Scrolls,
    pub overlay: Overlays,
    pub layout: ViewLayout,
    /// Decisions made on a preview's cascades, carried into its apply.
    pub presets: Presets,
    /// Ctrl-C presses so far (the second terminates).
    pub interrupts: u8,
    /// The engine closed its event stream (finished or gone): quitting needs no confirmation.
    pub engine_gone: bool,
    /// The summary was brought forward once when the run ended.
    pub summary_shown: bool,
    /// Whether the console captures the mouse (off lets the terminal select text).
    pub mouse_capture: bool,
    /// A terminal escape the loop should write (OSC 52 copy), taken once written.
    pub clipboard: Option<String>,
    /// Attached with a watch-only token: the bar says so and offers no action.
    pub watch_only: bool,
    /// A recorded run on a timeline: read-only, and its help lists the timeline's keys.
    pub replay: bool,
    /// The `:` prompt, while it is open.
    pub jump: Option<Jump>,
    /// The Log's search.
    pub log_search: LogSearch,
    /// The stack's name, when `y` applies only once it is typed (a whole-stack destroy, as
    /// `pulumi stack rm` asks); `None` for a plain y/n.
    pub name_to_apply: Option<String>,
}

impl UiState {
    pub fn new(mode: ConsoleMode, title: Title) -> UiState {
        let notice = title.phase.clone();
        UiState {
            mode,
            title,
            nav: Navigation::default(),
            scroll: Scrolls::default(),
            overlay: Overlays {
                notice,
                ..Overlays::default()
            },
            layout: ViewLayout::default(),
            presets: Presets::default(),
            interrupts: 0,
            engine_gone: false,
            summary_shown: false,
            mouse_capture: true,
            clipboard: None,
            watch_only: false,
            replay: false,
            jump: None,
            log_search: LogSearch::default(),
            name_to_apply: None,
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
        let overlay = &mut self.overlay;
        // A second Ctrl-C has nothing left to terminate once the run is over.
        if over && overlay.notice.as_deref() == Some(CANCELLING_NOTICE) {
            overlay.notice = None;
        }
        // On a narrow terminal the summary is one view among others: show it when the run
        // ends (the wide layout shows it beside the chains by itself).
        if model.run.summary.is_some() && !self.summary_shown {
            self.summary_shown = true;
            if !self.layout.wide && self.nav.focus == ViewId::Resources && !self.deciding_preview()
            {
                self.nav.focus = ViewId::Summary;
            }
        }
        let deciding = self.deciding_preview();
        let overlay = &mut self.overlay;
        overlay.confirm = match overlay.confirm {
            Some(Confirm::Cancel | Confirm::Quit) if over => None,
            Some(Confirm::ApproveAll | Confirm::ApproveKind(_))
                if !deciding
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
        let nav = &self.nav;
        self.layout.tree.refresh(
            model,
            &nav.filter,
            &nav.collapsed,
            nav.collapsed_version(),
            nav.sort,
        );
    }

    /// Brings the graph layout up to date (focused on the selection in focus mode), ordered
    /// through the selection's column and the next (what moving the selection needs).
    pub fn refresh_graph(&mut self, model: &Model) {
        let nav = &self.nav;
        let focus = if nav.graph_focus {
            nav.selected.as_ref()
        } else {
            None
        };
        let graph = &mut self.layout.graph;
        graph.refresh(model, focus, &nav.filter);
        if let Some(c) = nav
            .selected_index(model)
            .and_then(|i| graph.column_of(model, i))
        {
            graph.order_through(model, c + 1);
        }
    }

    /// Selects the first row when nothing is selected yet, so keys act on something visible.
    pub fn ensure_selection(&mut self, model: &Model) {
        if self.nav.selected_index(model).is_none() {
            self.refresh_tree(model);
            if let Some(r) = self.layout.tree.reach(model, 1).first() {
                self.nav.selected = Some(model.resource(r.idx).urn.clone());
            }
        }
    }
}
