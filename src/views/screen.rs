//! The whole screen: the top bar, then either the wide layout (Resources and Graph over Chains
//! and Pending, a log line) or, on a narrow terminal, one view at a time with tabs; overlays on
//! top (details, help, the jump prompt, confirm dialog). `z` gives the focused view the
//! whole body.

use ratatui::Frame;
use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{StatefulWidget, Widget};

use crate::app::key_help::{HelpMode, bindings};
use crate::app::model::Model;
use crate::app::ui_state::{UiState, ViewId};

use super::chains::ChainsView;
use super::details::DetailsView;
use super::dialog::{ConfirmDialog, NameDialog};
use super::diffs::{DiffGauge, DiffsView};
use super::graph::GraphView;
use super::help::HelpView;
use super::jump::JumpView;
use super::key_hint::key_hint;
use super::log::{LogLine, LogView};
use super::pending::PendingView;
use super::policies::PoliciesView;
use super::resources::ResourcesView;
use super::status_bar::StatusBar;
use super::summary::SummaryView;
use super::theme::Theme;

/// Terminals at least this wide (and [`WIDE_MIN_HEIGHT`] high) get the multi-view layout.
pub const WIDE_MIN_WIDTH: u16 = 120;
pub const WIDE_MIN_HEIGHT: u16 = 28;
/// Rows the narrow layout gives the Log under the view in focus, on a terminal at least
/// [`WIDE_MIN_HEIGHT`] high (at most a quarter more on a taller one): a plan's warnings and a
/// run's progress stay in view on a terminal too narrow for the panels side by side.
const NARROW_LOG_ROWS: u16 = 6;

/// Draws the console into a frame.
pub fn draw(frame: &mut Frame, model: &Model, ui: &mut UiState, theme: Theme) {
    let area = frame.area();
    render_screen(area, frame.buffer_mut(), model, ui, theme);
}

/// Draws the console into a buffer (what `draw` does, usable without a terminal).
pub fn render_screen(area: Rect, buf: &mut Buffer, model: &Model, ui: &mut UiState, theme: Theme) {
    if area.height < 3 || area.width < 20 {
        buf.set_string(area.x, area.y, "terminal too small", theme.bold());
        return;
    }
    ui.layout.wide = area.width >= WIDE_MIN_WIDTH && area.height >= WIDE_MIN_HEIGHT;
    // Learned again if the tree is drawn: a click lands on its rows only where they are.
    ui.layout.resources_rows = None;
    let [top, body, foot] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Min(1),
        Constraint::Length(1),
    ])
    .areas(area);
    StatusBar { model, ui, theme }.render(top, buf);
    if ui.nav.zoomed {
        // `z`: the focused view alone, over the whole body (k9s's and lazygit's maximize).
        view(ui.nav.focus, body, buf, model, ui, theme);
        let hints = key_hint(model, ui, theme, foot.width as usize);
        buf.set_line(foot.x, foot.y, &hints, foot.width);
    } else if ui.layout.wide {
        wide(body, buf, model, ui, theme);
        // The hints leave most of the line to the latest log entry.
        let hints = key_hint(model, ui, theme, (foot.width * 9 / 20) as usize);
        if ui.nav.filter_input.is_some() || ui.overlay.notice.is_some() {
            buf.set_line(foot.x, foot.y, &hints, foot.width);
        } else {
            LogLine {
                model,
                theme,
                hints,
            }
            .render(foot, buf);
        }
    } else {
        narrow(body, buf, model, ui, theme);
        let hints = key_hint(model, ui, theme, foot.width as usize);
        buf.set_line(foot.x, foot.y, &hints, foot.width);
    }
    overlays(body, buf, model, ui, theme);
}

fn wide(body: Rect, buf: &mut Buffer, model: &Model, ui: &mut UiState, theme: Theme) {
    let [upper, lower] =
        Layout::vertical([Constraint::Percentage(60), Constraint::Percentage(40)]).areas(body);
    let [res, graph] =
        Layout::horizontal([Constraint::Percentage(55), Constraint::Percentage(45)]).areas(upper);
    let [left, right] =
        Layout::horizontal([Constraint::Percentage(55), Constraint::Percentage(45)]).areas(lower);
    let focus = ui.nav.focus;
    view(ViewId::Resources, res, buf, model, ui, theme);
    view(ViewId::Graph, graph, buf, model, ui, theme);
    if focus == ViewId::Diffs {
        view(ViewId::Diffs, left, buf, model, ui, theme);
    } else {
        chains(left, buf, model, ui, theme, 1);
    }
    // The summary takes the pending panel's place once the run is over, unless the plan has
    // cascades to decide before `y`.
    let to_decide = ui.deciding_preview() && model.approvals.all().iter().any(|c| c.planned);
    let over = model.run.summary.is_some() && !to_decide;
    let right_view = match focus {
        ViewId::Log | ViewId::Pending | ViewId::Summary => focus,
        _ if over => ViewId::Summary,
        _ => ViewId::Pending,
    };
    view(right_view, right, buf, model, ui, theme);
}

fn narrow(body: Rect, buf: &mut Buffer, model: &Model, ui: &mut UiState, theme: Theme) {
    let [tabs, rest] = Layout::vertical([Constraint::Length(1), Constraint::Min(1)]).areas(body);
    let name = |v: ViewId| match v {
        ViewId::Pending => "Pending",
        other => other.title(),
    };
    // Every tab named when they fit; else the focused one only, the others by their key;
    // never a tab cut in half.
    let full: usize = ViewId::ALL.iter().map(|&v| name(v).len() + 4).sum();
    let named = |v: ViewId| full <= usize::from(tabs.width) || v == ui.nav.focus;
    let mut spans: Vec<Span> = Vec::new();
    for v in ViewId::ALL {
        let text = if named(v) {
            format!(" {} {} ", v.number(), name(v))
        } else {
            format!(" {} ", v.number())
        };
        let style = if v == ui.nav.focus {
            theme.selected().patch(theme.bold())
        } else if v == ViewId::Pending && model.approvals.undecided() > 0 {
            theme.alert()
        } else {
            theme.dim()
        };
        spans.push(Span::styled(text, style));
    }
    buf.set_line(tabs.x, tabs.y, &Line::from(spans), tabs.width);
    let tall = body.height + 2 >= WIDE_MIN_HEIGHT;
    if tall && ui.nav.focus != ViewId::Log {
        let rows = (rest.height / 4).max(NARROW_LOG_ROWS);
        let [main, log] =
            Layout::vertical([Constraint::Min(1), Constraint::Length(rows)]).areas(rest);
        view(ui.nav.focus, main, buf, model, ui, theme);
        view(ViewId::Log, log, buf, model, ui, theme);
    } else {
        view(ui.nav.focus, rest, buf, model, ui, theme);
    }
}

fn view(v: ViewId, area: Rect, buf: &mut Buffer, model: &Model, ui: &mut UiState, theme: Theme) {
    let focused = ui.nav.focus == v;
    match v {
        ViewId::Resources => ResourcesView {
            model,
            theme,
            focused,
        }
        .render(area, buf, ui),
        ViewId::Graph => GraphView {
            model,
            theme,
            focused,
        }
        .render(area, buf, ui),
        ViewId::Chains => chains(area, buf, model, ui, theme, 2),
        ViewId::Pending => PendingView {
            model,
            theme,
            focused,
            presets: &ui.presets,
            deciding: ui.deciding_preview(),
            watch_only: ui.watch_only,
        }
        .render(area, buf, &mut ui.scroll.pending),
        ViewId::Log => LogView {
            model,
            theme,
            focused,
            min_severity: ui.nav.log_min_severity,
            search: &ui.log_search,
        }
        .render(area, buf, &mut ui.scroll.log),
        ViewId::Diffs => DiffsView {
            model,
            theme,
            focused,
            selected: ui.nav.selected.as_ref(),
        }
        .render(area, buf, &mut ui.scroll.diffs),
        ViewId::Summary => SummaryView {
            model,
            presets: &ui.presets,
            theme,
            focused,
        }
        .render(area, buf, &mut ui.scroll.summary),
    }
}

/// The chains view, its list leaving `footer` rows below it, with the diff gauge (when there are
/// diffs) on its second line from the bottom: one drawing for both layouts.
fn chains(
    area: Rect,
    buf: &mut Buffer,
    model: &Model,
    ui: &mut UiState,
    theme: Theme,
    footer: u16,
) {
    ChainsView {
        model,
        theme,
        focused: ui.nav.focus == ViewId::Chains,
        footer,
        presets: &ui.presets,
    }
    .render(area, buf, &mut ui.scroll.chains);
    // A run with no provider diff (a destroy, a refresh) has no gauge to show.
    if model.diffs.total() == 0 {
        return;
    }
    let gauge = Rect::new(
        area.x + 1,
        area.bottom().saturating_sub(2),
        area.width.saturating_sub(2),
        1,
    );
    DiffGauge { model, theme }.render(gauge, buf);
}

fn centered(area: Rect, w: u16, h: u16) -> Rect {
    let w = w.min(area.width);
    let h = h.min(area.height);
    Rect::new(
        area.x + (area.width - w) / 2,
        area.y + (area.height - h) / 2,
        w,
        h,
    )
}

fn overlays(body: Rect, buf: &mut Buffer, model: &Model, ui: &mut UiState, theme: Theme) {
    if ui.overlay.details
        && let Some(idx) = ui.nav.selected_index(model)
    {
        let area = if ui.layout.wide {
            centered(body, body.width * 9 / 10, body.height * 8 / 10)
        } else {
            body
        };
        ui.refresh_graph(model);
        let blast = ui.layout.graph.blast_radius(model, idx);
        DetailsView {
            model,
            theme,
            idx,
            kept: ui.presets.keeps(model, model.resource(idx)),
            blast: &blast,
        }
        .render(area, buf, &mut ui.scroll.details);
    }
    if ui.overlay.policies {
        let area = if ui.layout.wide {
            centered(body, body.width * 8 / 10, body.height * 7 / 10)
        } else {
            body
        };
        PoliciesView { model, theme }.render(area, buf);
    }
    if ui.overlay.help {
        let keys = bindings(HelpMode::of(ui, model));
        let h = keys.len() as u16 + 2;
        HelpView { theme, keys }.render(centered(body, 80, h), buf, &mut ui.scroll.help);
    }
    if let Some(jump) = &ui.jump {
        JumpView { model, theme, jump }.render(body, buf);
    }
    if let Some(confirm) = ui.overlay.confirm {
        ConfirmDialog { confirm, theme }.render(centered(body, 60, 7), buf);
    }
    if let (Some(typed), Some(stack)) = (&ui.overlay.typed_name, &ui.name_to_apply) {
        NameDialog {
            stack,
            typed,
            theme,
        }
        .render(centered(body, 60, 8), buf);
    }
}
