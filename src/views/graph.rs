//! The dependency graph in layers (longest path), left to right, nodes coloured by status on
//! every other row, each edge on its own route through the gutter between layers (a crossing is
//! drawn `┼`, and lines join only where edges share a source or a target). It follows the selection,
//! can focus on the selection's dependencies and dependents (`f`), and draws only what is in view.
//! Edges that skip layers are not routed; the node then shows `⇠n` for n such dependencies.
//! The selection's own edges are highlighted, and the last row names what depends on it,
//! transitively (its blast radius). The `/` filter applies.

use std::collections::HashMap;

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::widgets::StatefulWidget;

use crate::app::model::{Model, Status};
use crate::app::ui_state::UiState;

use crate::app::graph_layout::GraphLayout;

use super::frame::frame;
use super::text::{counted, cut_right, fit_words, width};
use super::theme::Theme;

/// The graph view; its state is the console's [`UiState`] (layout cache, scroll, selection).
pub struct GraphView<'a> {
    pub model: &'a Model,
    pub theme: Theme,
    pub focused: bool,
}

const UP: u8 = 1;
const DOWN: u8 = 2;
const LEFT: u8 = 4;
const RIGHT: u8 = 8;

fn box_char(bits: u8) -> char {
    match bits {
        b if b == UP | DOWN | LEFT | RIGHT => '┼',
        b if b == UP | DOWN | RIGHT => '├',
        b if b == UP | DOWN | LEFT => '┤',
        b if b == LEFT | RIGHT | DOWN => '┬',
        b if b == LEFT | RIGHT | UP => '┴',
        b if b == DOWN | RIGHT => '┌',
        b if b == DOWN | LEFT => '┐',
        b if b == UP | RIGHT => '└',
        b if b == UP | LEFT => '┘',
        b if b & (UP | DOWN) != 0 && b & (LEFT | RIGHT) == 0 => '│',
        _ => '─',
    }
}

impl StatefulWidget for GraphView<'_> {
    type State = UiState;

    fn render(self, area: Rect, buf: &mut Buffer, ui: &mut UiState) {
        let m = self.model;
        let t = self.theme;
        ui.refresh_graph(m);
        let sel = ui.nav.selected_index(m);
        let reach = sel
            .filter(|&i| ui.layout.graph.place(i).is_some())
            .map(|i| ui.layout.graph.blast_radius(m, i));
        let g = &ui.layout.graph;
        let nodes = g.nodes;
        let title = if ui.nav.graph_focus {
            let name = ui.nav.selected.as_ref().map_or("", |u| u.name());
            format!(
                " Graph  focus: {name}  ({}, Esc all) ",
                counted(nodes, "node", "nodes")
            )
        } else {
            format!(
                " Graph  {} · {} · f focus · Z {} ",
                counted(g.layers, "layer", "layers"),
                counted(nodes, "node", "nodes"),
                if ui.nav.graph_zoomed_out {
                    "names"
                } else {
                    "more layers"
                }
            )
        };
        let focus = t.border(self.focused);
        let inner = frame(area, buf, title, focus, focus);
        if inner.width < 8 || inner.height == 0 {
            return;
        }
        if g.is_empty() {
            buf.set_string(inner.x + 1, inner.y, "no dependencies yet", t.dim());
            return;
        }
        let longest = g.longest_name.max(4);
        // Zoomed to the whole screen (`z`), a node is as wide as its full name, up to the
        // view's width.
        let node_w = if ui.nav.graph_zoomed_out {
            (longest + 5).clamp(8, 12)
        } else if ui.nav.zoomed {
            (longest + 5).clamp(8, (inner.width as usize).max(8))
        } else {
            (longest + 5).clamp(8, 22)
        };
        let columns = g.layers;
        // The last row tells what the selection reaches and what `⇠n` means.
        let footer = inner.height >= 4;
        let (vw, vh) = (
            inner.width as usize,
            inner.height as usize - usize::from(footer),
        );
        // Each gutter is as wide as its lanes need: a margin, the lanes, a line and the arrow.
        // Columns are placed (and ordered) only as far right as the view reaches, past the
        // offset or past the selection it moves to.
        let sel_col = sel.and_then(|i| ui.layout.graph.column_of(m, i));
        let mut col_x = vec![0];
        while col_x.len() <= columns {
            let c = col_x.len() - 1;
            let sel_x = sel_col.map_or(0, |s| col_x.get(s).copied().unwrap_or(usize::MAX));
            if col_x[c] >= ui.scroll.graph_x.offset().max(sel_x).saturating_add(vw) {
                break;
            }
            ui.layout.graph.order_through(m, c + 1);
            let gutter = ui
                .layout
                .graph
                .gutters
                .get(c)
                .map_or(0, |gut| gut.lanes + 3);
            col_x.push(col_x[c] + node_w + gutter);
        }
        let placed = col_x.len() - 1;
        let g = &ui.layout.graph;
        // The view scrolls over what is laid out so far: as far right as the placed columns
        // reach (past the view, unless they all fit), as far down as the tallest of them.
        let height = (0..placed)
            .map(|c| 2 * g.column(c).len())
            .max()
            .unwrap_or(0);
        let (sx, sy) = (&mut ui.scroll.graph_x, &mut ui.scroll.graph_y);
        sx.fit(col_x[placed], vw);
        sy.fit(height, vh);
        // Follow the selection: its label and the row its edges leave on.
        if let Some((c, r)) = sel.and_then(|i| g.place(i)) {
            sx.reveal(col_x[c]..col_x[c] + node_w);
            sy.reveal(2 * r..2 * r + 2);
        }
        let (ox, oy) = (sx.offset(), sy.offset());
        let g = &ui.layout.graph;
        let seen = |c: usize| col_x[c] < ox + vw && col_x[c + 1] > ox;
        let rows = oy..oy + vh;
        let put = |buf: &mut Buffer, x: usize, y: usize, s: &str, style| {
            if x >= ox && x < ox + vw && rows.contains(&y) {
                let room = (ox + vw - x) as u16;
                buf.set_stringn(
                    inner.x + (x - ox) as u16,
                    inner.y + (y - oy) as u16,
                    s,
                    room as usize,
                    style,
                );
            }
        };
        // Edges between adjacent layers, each on its own route (see `graph_lanes`). The
        // selection's edges are kept apart so that they are drawn highlighted.
        let mut cells: HashMap<(usize, usize), u8> = HashMap::new();
        let mut hot: HashMap<(usize, usize), u8> = HashMap::new();
        let mut arrows: Vec<(usize, usize, bool)> = Vec::new();
        for (c, gutter) in g
            .gutters
            .iter()
            .enumerate()
            .take(placed)
            .filter(|&(c, _)| seen(c))
        {
            let lane_x = col_x[c] + node_w + 1;
            let arrow_x = col_x[c + 1] - 1;
            for e in gutter.visible(oy, oy + vh) {
                let selected = sel == Some(e.source) || sel == Some(e.target);
                let target = if selected { &mut hot } else { &mut cells };
                // Cells outside the view are not even collected.
                let ys = oy..oy + vh;
                // Sets `bits` on row `y` from column `from` to `to`, exclusive.
                let mut run = |from: usize, to: usize, y: usize, bits: u8| {
                    if ys.contains(&y) {
                        for x in from.max(ox)..to.min(ox + vw) {
                            *target.entry((x, y)).or_default() |= bits;
                        }
                    }
                };
                let start = col_x[c] + width(&node_label((m, ui), g, e.source, c, node_w)) - 1;
                let x = lane_x + e.lane;
                run(start, start + 1, e.out_row, UP | RIGHT);
                run(start + 1, x, e.out_row, LEFT | RIGHT);
                let (toward_in, toward_out) = if e.in_row < e.out_row {
                    (UP, DOWN)
                } else {
                    (DOWN, UP)
                };
                run(x, x + 1, e.out_row, LEFT | toward_in);
                let (lo, hi) = e.span();
                if (ox..ox + vw).contains(&x) {
                    for y in (lo + 1).max(oy)..hi.min(oy + vh) {
                        run(x, x + 1, y, UP | DOWN);
                    }
                }
                run(x, x + 1, e.in_row, toward_out | RIGHT);
                run(x + 1, arrow_x, e.in_row, LEFT | RIGHT);
                arrows.push((arrow_x, e.in_row, selected));
            }
        }
        for (&(x, y), &bits) in &cells {
            let style = if hot.contains_key(&(x, y)) {
                t.accent()
            } else {
                t.dim()
            };
            let all = bits | hot.get(&(x, y)).copied().unwrap_or(0);
            put(buf, x, y, box_char(all).encode_utf8(&mut [0; 4]), style);
        }
        for (&(x, y), &bits) in hot.iter().filter(|(k, _)| !cells.contains_key(k)) {
            put(
                buf,
                x,
                y,
                box_char(bits).encode_utf8(&mut [0; 4]),
                t.accent(),
            );
        }
        for (x, y, selected) in arrows {
            let style = if selected { t.accent() } else { t.dim() };
            put(buf, x, y, "▶", style);
        }
        // Nodes, one every other row.
        for c in (0..placed).filter(|&c| seen(c)) {
            let rows = oy.div_ceil(2)..(oy + vh).div_ceil(2);
            for (r, &i) in g
                .column(c)
                .iter()
                .enumerate()
                .take(rows.end)
                .skip(rows.start)
            {
                let res = m.resource(i);
                let mut style = match res.status {
                    Status::Planned => {
                        super::resources::shown_op(res, m, ui).map_or(t.dim(), |op| t.op(op))
                    }
                    s => t.status(s),
                };
                if sel == Some(i) {
                    style = style.patch(t.selected());
                }
                put(
                    buf,
                    col_x[c],
                    2 * r,
                    &node_label((m, ui), g, i, c, node_w),
                    style,
                );
            }
        }
        if footer {
            let line = footer_text(m, sel.zip(reach.as_deref()));
            buf.set_stringn(
                inner.x,
                inner.y + vh as u16,
                fit_words(&line, vw),
                vw,
                t.dim(),
            );
        }
    }
}

/// The footer: the selection's blast radius, and the `⇠n` legend.
fn footer_text(m: &Model, selected: Option<(usize, &[usize])>) -> String {
    const LEGEND: &str = "⇠n: n dependencies further left";
    let Some((i, reach)) = selected else {
        return LEGEND.into();
    };
    let name = m.resource(i).name();
    if reach.is_empty() {
        return format!("nothing depends on {name} · {LEGEND}");
    }
    let names: Vec<&str> = reach
        .iter()
        .take(6)
        .map(|&j| m.resource(j).name())
        .collect();
    let more = if reach.len() > names.len() {
        ", …"
    } else {
        ""
    };
    let verb = if reach.len() == 1 {
        "depends"
    } else {
        "depend"
    };
    format!(
        "{} {verb} on {name}: {}{more} · {LEGEND}",
        reach.len(),
        names.join(", ")
    )
}

/// `[+ name]`, prefixed with `⇠n` when n dependencies sit more than one layer to the left.
fn node_label(
    (m, ui): (&Model, &UiState),
    g: &GraphLayout,
    i: usize,
    c: usize,
    node_w: usize,
) -> String {
    let res = m.resource(i);
    let skipped = m
        .graph()
        .deps(i)
        .filter(|&d| g.place(d).is_some_and(|(dc, _)| dc + 1 < c))
        .count();
    let sym = super::resources::shown_op(res, m, ui).map_or("", |op| op.prefix().trim_end());
    let sep = if sym.is_empty() { "" } else { " " };
    let mut label = format!("[{sym}{sep}{}]", res.name());
    if skipped > 0 {
        label = format!("⇠{skipped}{label}");
    }
    cut_right(&label, node_w)
}
