//! The dependency graph in layers (longest path), left to right, edges routed with box-drawing
//! characters in the gutters between layers, nodes coloured by status. It follows the selection,
//! can focus on the selection's dependencies and dependents (`f`), and draws only what is in view.
//! Edges that skip layers are not routed; the node then shows `⇠n` for n such dependencies.
//! The selection's own edges are highlighted, and the last row names what depends on it,
//! transitively (its blast radius). The `/` filter applies.

use std::collections::{HashMap, HashSet};

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::widgets::StatefulWidget;

use crate::app::model::{Model, Status};
use crate::app::ui_state::UiState;

use crate::app::graph_layout::GraphLayout;

use super::frame::frame;
use super::text::{cut_right, fit_words, width};
use super::theme::Theme;

/// The graph view; its state is the console's [`UiState`] (layout cache, offset, selection).
pub struct GraphView<'a> {
    pub model: &'a Model,
    pub theme: Theme,
    pub focused: bool,
}

const GUTTER: usize = 6;
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
        let g = &ui.graph;
        let nodes = g.nodes;
        let title = if ui.graph_focus {
            let name = ui.selected.as_ref().map_or("", |u| u.name());
            format!(" Graph  focus: {name}  ({nodes} nodes, Esc all) ")
        } else {
            format!(
                " Graph  {} layers · {nodes} nodes · f focus · z {} ",
                g.columns.len(),
                if ui.graph_zoomed_out {
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
        let node_w = if ui.graph_zoomed_out {
            (longest + 5).clamp(8, 12)
        } else {
            (longest + 5).clamp(8, 22)
        };
        let col_w = node_w + GUTTER;
        // The last row tells what the selection reaches and what `⇠n` means.
        let footer = inner.height >= 4;
        let (vw, vh) = (
            inner.width as usize,
            inner.height as usize - usize::from(footer),
        );
        // Follow the selection.
        let sel = ui.selected_index(m);
        if let Some((c, r)) = sel.and_then(|i| g.place(i)) {
            let (ox, oy) = &mut ui.graph_offset;
            let x = c * col_w;
            if x < *ox {
                *ox = x;
            } else if x + node_w > *ox + vw {
                *ox = (x + node_w).saturating_sub(vw);
            }
            if r < *oy {
                *oy = r;
            } else if r >= *oy + vh {
                *oy = r + 1 - vh;
            }
        }
        let (ox, oy) = ui.graph_offset;
        let g = &ui.graph;
        let first_col = ox / col_w;
        let last_col = ((ox + vw) / col_w + 1).min(g.columns.len());
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
        // Edges between adjacent layers: each source gets a lane in its gutter. The
        // selection's edges are kept apart so they can be drawn over the others.
        let mut cells: HashMap<(usize, usize), u8> = HashMap::new();
        let mut arrows: HashSet<(usize, usize)> = HashSet::new();
        let mut hot: HashMap<(usize, usize), u8> = HashMap::new();
        let mut hot_arrows: HashSet<(usize, usize)> = HashSet::new();
        for c in first_col.saturating_sub(1)..last_col {
            if c + 1 >= g.columns.len() {
                break;
            }
            let mut edges: HashSet<(usize, usize)> = HashSet::new();
            for &s in g.columns[c].iter().skip(oy).take(vh) {
                for &d in &g.dependents[s] {
                    if g.place(d).is_some_and(|(dc, _)| dc == c + 1) {
                        edges.insert((s, d));
                    }
                }
            }
            for &d in g.columns[c + 1].iter().skip(oy).take(vh) {
                for &s in &g.deps[d] {
                    if g.place(s).is_some_and(|(sc, _)| sc == c) {
                        edges.insert((s, d));
                    }
                }
            }
            let x0 = c * col_w + node_w;
            for (s, d) in edges {
                let (_, rs) = g.place(s).unwrap_or_default();
                let start = c * col_w + width(&node_label(m, g, s, c, node_w));
                let (_, rd) = g.place(d).unwrap_or_default();
                let lane = x0 + 1 + rs % (GUTTER - 3);
                let selected = sel == Some(s) || sel == Some(d);
                let (target, heads) = if selected {
                    (&mut hot, &mut hot_arrows)
                } else {
                    (&mut cells, &mut arrows)
                };
                let mut add =
                    |x: usize, y: usize, bits: u8| *target.entry((x, y)).or_default() |= bits;
                for x in start..lane {
                    add(x, rs, LEFT | RIGHT);
                }
                add(lane, rs, LEFT);
                add(lane, rd, RIGHT);
                let (lo, hi) = (rs.min(rd), rs.max(rd));
                if lo != hi {
                    add(lane, lo, DOWN);
                    add(lane, hi, UP);
                    for y in lo + 1..hi {
                        add(lane, y, UP | DOWN);
                    }
                } else {
                    add(lane, rs, RIGHT);
                }
                for x in lane + 1..x0 + GUTTER - 1 {
                    add(x, rd, LEFT | RIGHT);
                }
                heads.insert((x0 + GUTTER - 1, rd));
            }
        }
        for (edges, heads, style) in [(&cells, &arrows, t.dim()), (&hot, &hot_arrows, t.accent())] {
            for (&(x, y), &bits) in edges {
                // A junction keeps every edge through it, whichever layer draws it.
                let all = bits | cells.get(&(x, y)).copied().unwrap_or(0);
                put(buf, x, y, box_char(all).encode_utf8(&mut [0; 4]), style);
            }
            for &(x, y) in heads {
                put(buf, x, y, "▶", style);
            }
        }
        // Nodes.
        for c in first_col..last_col {
            for (r, &i) in g.columns[c].iter().enumerate().skip(oy).take(vh) {
                let res = m.resource(i);
                let mut style = match res.status {
                    Status::Planned => res.op.map_or(t.dim(), |op| t.op(op)),
                    s => t.status(s),
                };
                if sel == Some(i) {
                    style = style.patch(t.selected());
                }
                put(buf, c * col_w, r, &node_label(m, g, i, c, node_w), style);
            }
        }
        if footer {
            let line = footer_text(m, g, sel);
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
fn footer_text(m: &Model, g: &GraphLayout, sel: Option<usize>) -> String {
    const LEGEND: &str = "⇠n: n dependencies further left";
    let Some(i) = sel.filter(|&i| g.place(i).is_some()) else {
        return LEGEND.into();
    };
    let reach = g.blast_radius(i);
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
    format!(
        "{} depend on {name}: {}{more} · {LEGEND}",
        reach.len(),
        names.join(", ")
    )
}

/// `[+ name]`, prefixed with `⇠n` when n dependencies sit more than one layer to the left.
fn node_label(m: &Model, g: &GraphLayout, i: usize, c: usize, node_w: usize) -> String {
    let res = m.resource(i);
    let skipped = g.deps[i]
        .iter()
        .filter(|&&d| g.place(d).is_some_and(|(dc, _)| dc + 1 < c))
        .count();
    let sym = res.op.map_or("", |op| op.prefix().trim_end());
    let sep = if sym.is_empty() { "" } else { " " };
    let mut label = format!("[{sym}{sep}{}]", res.name());
    if skipped > 0 {
        label = format!("⇠{skipped}{label}");
    }
    cut_right(&label, node_w)
}
