//! The dependency graph laid out in layers (longest path from resources without dependencies),
//! each layer a column ordered by the average row of its dependencies to keep edges short
//! (ordered from the left as far as a view needs, not all at once).
//! The whole graph's layers are the model's, kept as rows arrive, so a frame at a million
//! resources orders a few columns and walks nothing else. A graph focused on a resource or
//! narrowed by the filter is layered here, and rebuilt only when the model's structure, the
//! focus or the filter changes (while the model grows, spaced to take at most a ninth of the
//! time).

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::engine::Urn;

use super::filter::Filter;
use super::graph_lanes::Gutter;
use super::model::Model;
use super::paged::Paged;
use super::sort::SortKey;

const NONE: u32 = u32::MAX;

/// A laid-out graph: columns of resource indexes, ordered from the left as far as asked.
#[derive(Clone, Debug, Default)]
pub struct GraphLayout {
    key: Option<(u64, Option<Urn>, String)>,
    /// The layers of a focused or filtered graph; `None` for the whole graph, whose layers
    /// the model keeps.
    part: Option<Part>,
    /// The columns ordered so far, from the left, top to bottom.
    ordered: Vec<Vec<usize>>,
    /// The model graph's version the ordered columns were checked against.
    seen: u64,
    /// (column, row) per resource index; `None` when not in the graph or not ordered yet.
    place: Paged<Option<(u32, u32)>>,
    /// Layers (columns) in all.
    pub layers: usize,
    /// Characters in the longest name laid out (sizes the node boxes).
    pub longest_name: usize,
    /// Resources laid out.
    pub nodes: usize,
    /// Routed edges between each ordered layer and the next.
    pub gutters: Vec<Gutter>,
    built_at: Option<Instant>,
    cost: Duration,
    /// The last blast radius asked for, by resource index: frames ask for the selection's
    /// again and again, and at a million resources it is a walk of most of the graph.
    blast: Option<(usize, Arc<[usize]>)>,
}

/// The layers of part of the graph.
#[derive(Clone, Debug, Default)]
struct Part {
    columns: Vec<Vec<u32>>,
    /// Column per resource index; `NONE` when not in the part.
    column: Vec<u32>,
}

impl GraphLayout {
    /// Lays out the whole graph, or with `focus` only that resource, everything it depends on
    /// and everything that depends on it (transitively); only resources `filter` keeps.
    pub fn refresh(&mut self, model: &Model, focus: Option<&Urn>, filter: &Filter) {
        let key = (
            model.structure_version(),
            focus.cloned(),
            filter.text().to_string(),
        );
        let same_view = self
            .key
            .as_ref()
            .is_some_and(|old| old.1 == key.1 && old.2 == key.2);
        if let Some(old) = &self.key {
            if *old == key {
                return;
            }
            let recent = self.built_at.is_some_and(|at| at.elapsed() < self.cost * 8);
            if same_view && recent {
                return;
            }
        }
        let started = Instant::now();
        self.key = Some(key);
        self.blast = None;
        let graph = model.graph();
        let whole = focus.is_none() && filter.is_empty();
        if whole && same_view && self.part.is_none() {
            // Only the columns that changed (or went) since, and those right of them, are
            // ordered again.
            let from = (0..self.ordered.len())
                .find(|&c| c >= graph.layers() || graph.changed(c) > self.seen);
            if let Some(c) = from {
                self.unorder_from(c);
            }
        } else {
            self.unorder_from(0);
            self.place.clear();
            self.part = (!whole).then(|| Part::of(model, focus, filter));
        }
        self.seen = graph.version();
        self.place.resize(model.resources().len());
        match &self.part {
            None => {
                self.layers = graph.layers();
                self.nodes = graph.members();
                self.longest_name = graph.longest_name();
            }
            Some(part) => {
                self.layers = part.columns.len();
                self.nodes = part.columns.iter().map(Vec::len).sum();
                self.longest_name = part
                    .columns
                    .iter()
                    .flatten()
                    .map(|&i| model.resource(i as usize).name_chars())
                    .max()
                    .unwrap_or(0);
            }
        }
        self.order_through(model, 1);
        self.built_at = Some(Instant::now());
        self.cost = started.elapsed();
    }

    /// Whether the model changed since the last layout (a throttled rebuild is due).
    pub fn is_stale(&self, model: &Model) -> bool {
        self.key
            .as_ref()
            .is_some_and(|k| k.0 != model.structure_version())
    }

    /// Forgets the order of column `c` and those right of it.
    fn unorder_from(&mut self, c: usize) {
        for col in self.ordered.drain(c..) {
            for i in col {
                if i < self.place.len() {
                    self.place.set(i, None);
                }
            }
        }
        self.gutters.truncate(c.saturating_sub(1));
    }

    /// Orders the columns up to `last` and routes the gutters between them. Each column's
    /// order follows from the one before, so only the first columns and those up to the view
    /// need it: at a million resources in 10,000 layers, a frame orders a handful.
    pub fn order_through(&mut self, model: &Model, last: usize) {
        let started = Instant::now();
        let graph = model.graph();
        while self.ordered.len() <= last && self.ordered.len() < self.layers {
            let c = self.ordered.len();
            let members = match &self.part {
                Some(part) => &part.columns[c],
                None => graph.column(c),
            };
            let mut column: Vec<usize> = members.iter().map(|&i| i as usize).collect();
            if c == 0 {
                // The same order every run, whatever order the resources arrived in.
                SortKey::Name.sort(model, &mut column);
            } else {
                let place = &self.place;
                // By the mean row of the dependencies, then by name (and URN): found once each.
                let mut keyed: Vec<(f64, (u64, &str, &str), usize)> = column
                    .iter()
                    .map(|&i| {
                        let (sum, count) = graph
                            .deps(i)
                            .filter_map(|d| place.get(d).map(|(_, r)| f64::from(r)))
                            .fold((0.0, 0u32), |(s, k), r| (s + r, k + 1));
                        let key = if count == 0 {
                            f64::MAX
                        } else {
                            sum / f64::from(count)
                        };
                        (key, model.resource(i).name_order(), i)
                    })
                    .collect();
                keyed.sort_by(|a, b| a.0.total_cmp(&b.0).then_with(|| a.1.cmp(&b.1)));
                column = keyed.into_iter().map(|(.., i)| i).collect();
            }
            for (row, &i) in column.iter().enumerate() {
                self.place.set(i, Some((c as u32, row as u32)));
            }
            if c > 0 {
                // Only edges between adjacent layers are drawn; the others are counted on the
                // node.
                let place = &self.place;
                self.gutters
                    .push(Gutter::route(column.iter().flat_map(|&d| {
                        let rd = place.get(d).map_or(0, |(_, r)| r as usize);
                        graph.deps(d).filter_map(move |s| match place.get(s) {
                            Some((sc, rs)) if sc as usize + 1 == c => Some((s, rs as usize, d, rd)),
                            _ => None,
                        })
                    })));
            }
            self.ordered.push(column);
        }
        self.cost += started.elapsed();
    }

    /// Column `c`, top to bottom, once ordered (empty before).
    pub fn column(&self, c: usize) -> &[usize] {
        self.ordered.get(c).map_or(&[], Vec::as_slice)
    }

    /// The column (layer) of resource `idx`, known before the column is ordered.
    pub fn column_of(&self, model: &Model, idx: usize) -> Option<usize> {
        match &self.part {
            None => model.graph().layer(idx),
            Some(part) => part
                .column
                .get(idx)
                .copied()
                .filter(|&c| c != NONE)
                .map(|c| c as usize),
        }
    }

    /// Everything that depends on `idx`, directly or not (what a change to it can reach), in
    /// breadth-first order: nearest first.
    pub fn blast_radius(&mut self, model: &Model, idx: usize) -> Arc<[usize]> {
        if let Some((at, reach)) = &self.blast
            && *at == idx
        {
            return reach.clone();
        }
        let reach: Arc<[usize]> = reach_of(model, idx).into();
        self.blast = Some((idx, reach.clone()));
        reach
    }

    /// (column, row) of resource `idx` in the layout.
    pub fn place(&self, idx: usize) -> Option<(usize, usize)> {
        self.place.get(idx).map(|(c, r)| (c as usize, r as usize))
    }

    /// No resource to lay out (only the root stack, or nothing yet).
    pub fn is_empty(&self) -> bool {
        self.layers == 0
    }
}

impl Part {
    /// The layers of the graph's members that `focus` reaches (both ways) and `filter` keeps.
    fn of(model: &Model, focus: Option<&Urn>, filter: &Filter) -> Part {
        let graph = model.graph();
        let n = model.resources().len();
        let mut member: Vec<bool> = match focus.and_then(|u| model.index_of(u)) {
            Some(f) => {
                // The focus is shown even when the whole graph leaves it out (a provider, a
                // component linked to nothing): alone, with what links to it.
                let mut member = vec![false; n];
                member[f] = true;
                // Up the dependencies, then down the dependents: not their other dependencies.
                for down in [false, true] {
                    let mut todo = vec![f];
                    while let Some(x) = todo.pop() {
                        let next: Vec<usize> = if down {
                            graph.dependents(x).collect()
                        } else {
                            graph.deps(x).collect()
                        };
                        for y in next {
                            if !member[y] {
                                member[y] = true;
                                todo.push(y);
                            }
                        }
                    }
                }
                member
            }
            None => (0..n).map(|i| graph.is_member(i)).collect(),
        };
        if !filter.is_empty() {
            for (i, r) in model.resources().iter().enumerate() {
                member[i] &= filter.matches(r);
            }
        }
        // Longest paths among the members, dependencies first.
        let mut indegree = vec![0usize; n];
        for i in (0..n).filter(|&i| member[i]) {
            indegree[i] = graph.deps(i).filter(|&d| member[d]).count();
        }
        let mut layer = vec![0u32; n];
        let mut queue: VecDeque<usize> =
            (0..n).filter(|&i| member[i] && indegree[i] == 0).collect();
        while let Some(i) = queue.pop_front() {
            for j in graph.dependents(i) {
                if !member[j] {
                    continue;
                }
                layer[j] = layer[j].max(layer[i] + 1);
                indegree[j] -= 1;
                if indegree[j] == 0 {
                    queue.push_back(j);
                }
            }
        }
        let mut part = Part {
            columns: Vec::new(),
            column: vec![NONE; n],
        };
        for i in (0..n).filter(|&i| member[i]) {
            let c = layer[i] as usize;
            if part.columns.len() <= c {
                part.columns.resize_with(c + 1, Vec::new);
            }
            part.columns[c].push(i as u32);
            part.column[i] = layer[i];
        }
        part
    }
}

/// Everything that depends on `idx`, nearest first.
fn reach_of(model: &Model, idx: usize) -> Vec<usize> {
    let graph = model.graph();
    let mut seen = vec![false; model.resources().len()];
    let mut out = Vec::new();
    let mut queue: VecDeque<usize> = VecDeque::from([idx]);
    if let Some(s) = seen.get_mut(idx) {
        *s = true;
    }
    let mut next = Vec::new();
    while let Some(x) = queue.pop_front() {
        // Dependents in the order they arrived, the same every run.
        next.clear();
        next.extend(graph.dependents(x).filter(|&y| !seen[y]));
        next.sort_unstable();
        for &y in &next {
            seen[y] = true;
            out.push(y);
            queue.push_back(y);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::sample::{sample_urn, step_info};
    use crate::engine::{EngineEvent, StepOp};

    /// A chain of `n` resources, each depending on the one before.
    fn chain(n: usize) -> Model {
        let mut m = Model::new();
        let mut before: Option<Urn> = None;
        for k in 0..n {
            let u = sample_urn("sim:index:Resource", &format!("r{k}"));
            let mut info = step_info(StepOp::Create, &u, None, k as u64);
            info.dependencies = before.iter().cloned().collect();
            m.apply(&EngineEvent::StepPlanned(Box::new(info)));
            before = Some(u);
        }
        m
    }

    #[test]
    fn columns_are_ordered_only_as_far_as_asked() {
        let m = chain(6);
        let mut g = GraphLayout::default();
        g.refresh(&m, None, &Filter::default());
        assert_eq!(g.layers, 6);
        assert_eq!((g.place(0), g.place(1)), (Some((0, 0)), Some((1, 0))));
        assert_eq!(g.place(4), None, "not ordered yet");
        assert_eq!(g.column_of(&m, 4), Some(4));
        assert_eq!(g.gutters.len(), 1);
        g.order_through(&m, 9);
        assert_eq!(g.place(5), Some((5, 0)));
        assert_eq!(g.gutters.len(), 5);
        assert_eq!(g.gutters[4].edges[0].target, 5);
        assert_eq!(m.graph().deps(5).collect::<Vec<_>>(), [4]);
        assert_eq!(m.graph().dependents(4).collect::<Vec<_>>(), [5]);
    }

    #[test]
    fn a_layout_kept_while_the_graph_grows_matches_one_made_at_the_end() {
        let mut m = Model::new();
        let mut kept = GraphLayout::default();
        let urns: Vec<Urn> = (0..40)
            .map(|k| sample_urn("sim:index:Resource", &format!("n{:02}", (k * 17) % 40)))
            .collect();
        for (k, u) in urns.iter().enumerate() {
            let mut info = step_info(StepOp::Create, u, None, k as u64);
            // Links back to earlier rows, two and seven before: columns fill unevenly.
            info.dependencies = [2, 7]
                .iter()
                .filter_map(|&back| k.checked_sub(back).map(|j| urns[j].clone()))
                .collect();
            m.apply(&EngineEvent::StepPlanned(Box::new(info)));
            if k % 3 == 0 {
                // Past the throttle, so each refresh lays out the graph as it is (a sleep
                // would be outrun by a layout that a loaded machine makes slowly).
                kept.built_at = None;
                kept.refresh(&m, None, &Filter::default());
                kept.order_through(&m, usize::MAX);
            }
        }
        kept.built_at = None;
        kept.refresh(&m, None, &Filter::default());
        kept.order_through(&m, usize::MAX);
        let mut fresh = GraphLayout::default();
        fresh.refresh(&m, None, &Filter::default());
        fresh.order_through(&m, usize::MAX);
        assert_eq!(kept.layers, fresh.layers);
        assert!(kept.layers > 3);
        for c in 0..fresh.layers {
            assert_eq!(kept.column(c), fresh.column(c), "column {c}");
            for &i in fresh.column(c) {
                assert_eq!(kept.place(i), fresh.place(i));
            }
        }
        assert_eq!(kept.gutters.len(), fresh.gutters.len());
        assert_eq!(
            (kept.nodes, kept.longest_name),
            (fresh.nodes, fresh.longest_name)
        );
    }

    #[test]
    fn a_focus_the_whole_graph_leaves_out_is_shown_alone() {
        let mut m = chain(3);
        let provider = sample_urn("pulumi:providers:sim", "default");
        m.apply(&EngineEvent::StepPlanned(Box::new(step_info(
            StepOp::Create,
            &provider,
            None,
            9,
        ))));
        let p = m.index_of(&provider).unwrap();
        let mut g = GraphLayout::default();
        g.refresh(&m, None, &Filter::default());
        assert_eq!(
            (g.nodes, g.place(p)),
            (3, None),
            "providers are not in the graph"
        );
        g.refresh(&m, Some(&provider), &Filter::default());
        assert_eq!((g.nodes, g.layers, g.place(p)), (1, 1, Some((0, 0))));
    }
}
