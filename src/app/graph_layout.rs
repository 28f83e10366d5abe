//! The dependency graph laid out in layers (longest path from resources without dependencies),
//! each layer a column ordered by the average row of its dependencies to keep edges short
//! (ordered from the left as far as a view needs, not all at once).
//! Providers and links to parent components are left out: the tree shows containment.
//! Rebuilt only when the model's structure or the focus changes; while the model grows, rebuilds
//! are spaced so that they take at most a ninth of the time.

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::engine::urn::Urn;

use super::filter::Filter;
use super::graph_lanes::Gutter;
use super::model::Model;
use super::sort::SortKey;

const NONE: u32 = u32::MAX;

/// A laid-out graph: columns of resource indexes, with resolved edges.
#[derive(Clone, Debug, Default)]
pub struct GraphLayout {
    key: Option<(u64, Option<Urn>, String)>,
    /// Column per layer, resource indexes top to bottom once ordered (see `order_through`).
    pub columns: Vec<Vec<usize>>,
    /// Columns ordered so far, from the left.
    ordered: usize,
    /// (column, row) per resource index; `None` when not in the graph or not ordered yet.
    place: Vec<Option<(u32, u32)>>,
    /// Column per resource index; `NONE` when not in the graph.
    column: Vec<u32>,
    /// Dependencies per resource index (in the graph).
    deps: Adjacency,
    /// Dependents per resource index.
    dependents: Adjacency,
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

impl GraphLayout {
    /// Lays out the whole graph, or with `focus` only that resource, everything it depends on
    /// and everything that depends on it (transitively); only resources `filter` keeps.
    pub fn refresh(&mut self, model: &Model, focus: Option<&Urn>, filter: &Filter) {
        let key = (
            model.structure_version(),
            focus.cloned(),
            filter.text().to_string(),
        );
        if let Some(old) = &self.key {
            if *old == key {
                return;
            }
            let recent = self.built_at.is_some_and(|at| at.elapsed() < self.cost * 8);
            if old.1 == key.1 && old.2 == key.2 && recent {
                return;
            }
        }
        let started = Instant::now();
        self.key = Some(key);
        self.blast = None;
        let n = model.resources().len();
        let in_graph: Vec<bool> = model.resources().iter().map(|r| r.graph_node()).collect();
        // Containment is the tree's business; the graph shows what depends on what. The
        // model keeps each row's dependency rows, so no URN is looked up here.
        self.deps = Adjacency::collect((0..n).map(|i| {
            let r = model.resource(i);
            let keep = in_graph[i];
            let in_graph = &in_graph;
            r.dependency_rows()
                .iter()
                .copied()
                .filter(move |&j| keep && in_graph[j] && j != i && !contains(model, r.parent, j))
        }));
        self.dependents = self.deps.reversed();
        let mut member = match focus.and_then(|u| model.index_of(u)) {
            Some(f) => self.closure(f, n),
            // A component linked to nothing only groups its children: the tree shows that.
            None => (0..n)
                .map(|i| {
                    in_graph[i]
                        && (model.resource(i).custom
                            || !self.deps.of(i).is_empty()
                            || !self.dependents.of(i).is_empty())
                })
                .collect(),
        };
        if !filter.is_empty() {
            for (i, r) in model.resources().iter().enumerate() {
                member[i] &= filter.matches(r);
            }
        }
        self.layout(model, &member);
        self.built_at = Some(Instant::now());
        self.cost = started.elapsed();
    }

    /// Whether the model changed since the last layout (a throttled rebuild is due).
    pub fn is_stale(&self, model: &Model) -> bool {
        self.key
            .as_ref()
            .is_some_and(|k| k.0 != model.structure_version())
    }

    fn closure(&self, f: usize, n: usize) -> Vec<bool> {
        let mut member = vec![false; n];
        member[f] = true;
        for edges in [&self.deps, &self.dependents] {
            let mut todo = vec![f];
            while let Some(x) = todo.pop() {
                for &y in edges.of(x) {
                    if !member[y] {
                        member[y] = true;
                        todo.push(y);
                    }
                }
            }
        }
        member
    }

    fn layout(&mut self, model: &Model, member: &[bool]) {
        let n = member.len();
        let mut indegree = vec![0usize; n];
        for i in (0..n).filter(|&i| member[i]) {
            indegree[i] = self.deps.of(i).iter().filter(|&&d| member[d]).count();
        }
        let mut layer = vec![0u32; n];
        let mut queue: VecDeque<usize> =
            (0..n).filter(|&i| member[i] && indegree[i] == 0).collect();
        let mut seen = 0;
        while let Some(i) = queue.pop_front() {
            seen += 1;
            for &j in self.dependents.of(i) {
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
        debug_assert!(seen <= n);
        let depth = (0..n).filter(|&i| member[i]).map(|i| layer[i]).max();
        self.columns = vec![Vec::new(); depth.map_or(0, |d| d as usize + 1)];
        self.place = vec![None; n];
        self.column = vec![NONE; n];
        for i in (0..n).filter(|&i| member[i]) {
            self.columns[layer[i] as usize].push(i);
            self.column[i] = layer[i];
        }
        self.nodes = self.columns.iter().map(Vec::len).sum();
        self.longest_name = (0..n)
            .filter(|&i| member[i])
            .map(|i| model.resource(i).name_chars())
            .max()
            .unwrap_or(0);
        self.gutters = Vec::new();
        self.ordered = 0;
        self.order_through(model, 1);
    }

    /// Orders the columns up to `last` and routes the gutters between them. Each column's
    /// order follows from the one before, so only the first columns and those up to the view
    /// need it: at a million resources in 10,000 layers, a frame orders a handful.
    pub fn order_through(&mut self, model: &Model, last: usize) {
        while self.ordered <= last && self.ordered < self.columns.len() {
            let c = self.ordered;
            if c == 0 {
                // The same order every run, whatever order the resources arrived in.
                SortKey::Name.sort(model, &mut self.columns[0]);
            } else {
                let place = &self.place;
                let deps = &self.deps;
                // By the mean row of the dependencies, then by name (and URN): found once each.
                let mut keyed: Vec<(f64, &str, &str, usize)> = self.columns[c]
                    .iter()
                    .map(|&i| {
                        let (sum, count) = deps
                            .of(i)
                            .iter()
                            .filter_map(|&d| place[d].map(|(_, r)| f64::from(r)))
                            .fold((0.0, 0u32), |(s, k), r| (s + r, k + 1));
                        let key = if count == 0 {
                            f64::MAX
                        } else {
                            sum / f64::from(count)
                        };
                        let r = model.resource(i);
                        (key, r.name(), r.urn.as_str(), i)
                    })
                    .collect();
                keyed.sort_by(|a, b| {
                    a.0.total_cmp(&b.0)
                        .then_with(|| (a.1, a.2).cmp(&(b.1, b.2)))
                });
                self.columns[c] = keyed.into_iter().map(|(.., i)| i).collect();
            }
            for (row, &i) in self.columns[c].iter().enumerate() {
                self.place[i] = Some((c as u32, row as u32));
            }
            if c > 0 {
                // Only edges between adjacent layers are drawn; the others are counted on the
                // node.
                let place = &self.place;
                let dependents = &self.dependents;
                self.gutters
                    .push(Gutter::route(self.columns[c - 1].iter().flat_map(|&s| {
                        let rs = place[s].map_or(0, |(_, r)| r as usize);
                        dependents
                            .of(s)
                            .iter()
                            .filter_map(move |&d| match place[d] {
                                Some((dc, rd)) if dc as usize == c => Some((s, rs, d, rd as usize)),
                                _ => None,
                            })
                    })));
            }
            self.ordered += 1;
        }
    }

    /// The column (layer) of resource `idx`, known before the column is ordered.
    pub fn column_of(&self, idx: usize) -> Option<usize> {
        self.column
            .get(idx)
            .copied()
            .filter(|&c| c != NONE)
            .map(|c| c as usize)
    }

    /// Everything that depends on `idx`, directly or not (what a change to it can reach), in
    /// breadth-first order: nearest first.
    pub fn blast_radius(&mut self, idx: usize) -> Arc<[usize]> {
        if let Some((at, reach)) = &self.blast
            && *at == idx
        {
            return reach.clone();
        }
        let reach: Arc<[usize]> = self.reach_of(idx).into();
        self.blast = Some((idx, reach.clone()));
        reach
    }

    fn reach_of(&self, idx: usize) -> Vec<usize> {
        let mut seen = vec![false; self.dependents.len()];
        let mut out = Vec::new();
        let mut queue: VecDeque<usize> = VecDeque::from([idx]);
        if let Some(s) = seen.get_mut(idx) {
            *s = true;
        }
        while let Some(x) = queue.pop_front() {
            for &y in self.dependents.of(x) {
                if !seen[y] {
                    seen[y] = true;
                    out.push(y);
                    queue.push_back(y);
                }
            }
        }
        out
    }

    /// (column, row) of resource `idx` in the layout.
    pub fn place(&self, idx: usize) -> Option<(usize, usize)> {
        self.place
            .get(idx)
            .copied()
            .flatten()
            .map(|(c, r)| (c as usize, r as usize))
    }

    /// The dependents of resource `idx` in the graph (none when it is not in it).
    pub fn dependents(&self, idx: usize) -> &[usize] {
        self.dependents.of(idx)
    }

    /// The dependencies of resource `idx` in the graph (none when it is not in it).
    pub fn deps(&self, idx: usize) -> &[usize] {
        self.deps.of(idx)
    }

    /// No resource to lay out (only the root stack, or nothing yet).
    pub fn is_empty(&self) -> bool {
        self.columns.is_empty()
    }
}

/// Adjacency lists of every resource index in two vectors (offsets and targets): one
/// allocation each, where a vector per resource costs a million allocations at a million rows.
#[derive(Clone, Debug, Default)]
struct Adjacency {
    /// Where each index's list starts in `targets`, and one past the last list's end.
    starts: Vec<usize>,
    targets: Vec<usize>,
}

impl Adjacency {
    /// The lists of indexes 0, 1, … in order.
    fn collect<L: IntoIterator<Item = usize>>(lists: impl Iterator<Item = L>) -> Adjacency {
        let mut a = Adjacency::default();
        for list in lists {
            a.starts.push(a.targets.len());
            a.targets.extend(list);
        }
        a.starts.push(a.targets.len());
        a
    }

    /// Number of indexes with a list.
    fn len(&self) -> usize {
        self.starts.len().saturating_sub(1)
    }

    /// The list of index `i` (empty past the end).
    fn of(&self, i: usize) -> &[usize] {
        match (self.starts.get(i), self.starts.get(i + 1)) {
            (Some(&a), Some(&b)) => &self.targets[a..b],
            _ => &[],
        }
    }

    /// The reverse edges, each list in increasing source order.
    fn reversed(&self) -> Adjacency {
        let n = self.len();
        let mut starts = vec![0; n + 1];
        for &t in &self.targets {
            starts[t + 1] += 1;
        }
        for i in 0..n {
            starts[i + 1] += starts[i];
        }
        let mut next = starts.clone();
        let mut targets = vec![0; self.targets.len()];
        for s in 0..n {
            for &t in self.of(s) {
                targets[next[t]] = s;
                next[t] += 1;
            }
        }
        Adjacency { starts, targets }
    }
}

/// Whether `j` is `parent`, a component: a link that only says "contains".
fn contains(model: &Model, parent: Option<usize>, j: usize) -> bool {
    parent == Some(j) && !model.resources()[j].custom
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::sample::{sample_urn, step_info};
    use crate::engine::events::EngineEvent;
    use crate::engine::step::StepOp;

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
        assert_eq!(g.columns.len(), 6);
        assert_eq!((g.place(0), g.place(1)), (Some((0, 0)), Some((1, 0))));
        assert_eq!(g.place(4), None, "not ordered yet");
        assert_eq!(g.column_of(4), Some(4));
        assert_eq!(g.gutters.len(), 1);
        g.order_through(&m, 9);
        assert_eq!(g.place(5), Some((5, 0)));
        assert_eq!(g.gutters.len(), 5);
        assert_eq!(g.gutters[4].edges[0].target, 5);
        assert_eq!(g.deps(5), [4]);
        assert_eq!(g.dependents(4), [5]);
    }
}
