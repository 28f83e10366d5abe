//! The dependency graph kept up to date as rows arrive: each resource's dependency rows, which
//! of those links the graph draws, each resource's layer (the longest path from resources
//! without dependencies) and the members of every layer. A layout of a million resources then
//! starts from here instead of walking them all.
//!
//! The graph leaves out the stack and providers, a link to the parent component (the tree
//! shows containment), components linked to nothing, and any link that would close a cycle.

const NONE: u32 = u32::MAX;
/// Marks a dependency the graph draws, in the dependency lists.
const DRAWN: u32 = 1 << 31;

/// A row's dependency list: where it is in the shared list of lists.
#[derive(Clone, Copy, Debug, Default)]
struct Span {
    start: u32,
    len: u32,
}

/// A link from a dependent to a row, in that row's list of dependents.
#[derive(Clone, Copy, Debug)]
struct Dependent {
    row: u32,
    next: u32,
}

/// What the graph knows of one row, together: the links from and to a row are followed one row
/// at a time, so each costs one cache line.
#[derive(Clone, Copy, Debug)]
struct Row {
    /// Shown in the graph at all (neither the stack nor a provider).
    node: bool,
    custom: bool,
    parent: u32,
    name_chars: u32,
    /// Its dependency list in `lists`.
    deps: Span,
    /// Its dependents (the rows whose lists name it) in `dependent_links`, most recent first.
    first_dependent: u32,
    drawn_deps: u32,
    drawn_dependents: u32,
    layer: u32,
    /// Where a member is in its layer's column; `NONE` for rows the graph leaves out.
    slot: u32,
    /// Placed (or left out) at least once.
    placed: bool,
}

/// The graph of a model's rows, indexed by row.
#[derive(Clone, Debug, Default)]
pub struct GraphIndex {
    rows: Vec<Row>,
    /// The rows' dependency lists, `DRAWN` set on the links the graph draws.
    lists: Vec<u32>,
    dependent_links: Vec<Dependent>,
    columns: Vec<Vec<u32>>,
    /// The version at which each column last changed.
    changed: Vec<u64>,
    version: u64,
    members: usize,
    /// Members by the characters in their names: the longest name sizes the node boxes.
    name_lengths: Vec<u32>,
    /// Rows to place again, kept between calls for its allocation.
    todo: Vec<usize>,
    /// Rows added since the last [`GraphIndex::place_new_rows`].
    new_rows: Vec<u32>,
}

impl GraphIndex {
    /// A new row, linked to nothing yet.
    pub fn add_row(&mut self, node: bool, name_chars: u32) {
        self.rows.push(Row {
            node,
            custom: true,
            parent: NONE,
            name_chars,
            deps: Span::default(),
            first_dependent: NONE,
            drawn_deps: 0,
            drawn_dependents: 0,
            layer: 0,
            slot: NONE,
            placed: false,
        });
        self.new_rows.push(row(self.rows.len() - 1));
    }

    /// Places the rows added since, those that no link has placed yet: a new row is most often
    /// linked before this, and put straight into its column.
    #[inline]
    pub fn place_new_rows(&mut self) {
        if !self.new_rows.is_empty() {
            self.place_rows_left_out();
        }
    }

    fn place_rows_left_out(&mut self) {
        let mut rows = std::mem::take(&mut self.new_rows);
        rows.retain(|&i| !self.rows[i as usize].placed);
        self.settle(rows.drain(..).map(|i| i as usize));
        self.new_rows = rows;
    }

    /// Row `i` is a custom resource, or a component.
    pub fn set_custom(&mut self, i: usize, custom: bool) {
        if self.rows[i].custom != custom {
            self.relink(i, |g| g.rows[i].custom = custom);
        }
    }

    /// Row `i`'s parent row.
    pub fn set_parent(&mut self, i: usize, parent: usize) {
        if self.rows[i].deps.len == 0 {
            // No link of its own for the parent to change.
            self.rows[i].parent = row(parent);
            return;
        }
        self.undraw_deps(i);
        self.rows[i].parent = row(parent);
        self.draw_deps(i);
    }

    /// Row `i`'s dependency rows (distinct), replacing those it had.
    pub fn set_deps(&mut self, i: usize, deps: &[usize]) {
        self.undraw_deps(i);
        let old: Vec<usize> = self.dependency_rows(i).collect();
        for &d in old.iter().filter(|d| !deps.contains(d)) {
            self.unlink_dependent(d, i);
        }
        for &d in deps.iter().filter(|d| !old.contains(d)) {
            self.link_dependent(d, i);
        }
        // A list that does not grow is rewritten where it is; one that does goes at the end.
        let start = if deps.len() <= old.len() {
            self.rows[i].deps.start as usize
        } else {
            self.lists.len()
        };
        for (k, &d) in deps.iter().enumerate() {
            match self.lists.get_mut(start + k) {
                Some(slot) => *slot = row(d),
                None => self.lists.push(row(d)),
            }
        }
        self.rows[i].deps = Span {
            start: row(start),
            len: row(deps.len()),
        };
        self.draw_deps(i);
    }

    /// Row `i`'s dependency rows, whether drawn or not.
    pub fn dependency_rows(&self, i: usize) -> impl Iterator<Item = usize> + '_ {
        self.list(i).iter().map(|&d| (d & !DRAWN) as usize)
    }

    /// Adds `dep` to row `i`'s dependency rows (a dependency whose row appeared late).
    pub fn add_dep(&mut self, i: usize, dep: usize) {
        let mut deps: Vec<usize> = self.dependency_rows(i).collect();
        if !deps.contains(&dep) {
            deps.push(dep);
            self.set_deps(i, &deps);
        }
    }

    /// The dependencies of row `i` that the graph draws.
    pub fn deps(&self, i: usize) -> impl Iterator<Item = usize> + '_ {
        self.list(i)
            .iter()
            .filter(|&&d| d & DRAWN != 0)
            .map(|&d| (d & !DRAWN) as usize)
    }

    /// The rows that depend on row `i` through a link the graph draws.
    pub fn dependents(&self, i: usize) -> impl Iterator<Item = usize> + '_ {
        let drawn = row(i) | DRAWN;
        let mut left = self.rows.get(i).map_or(0, |r| r.drawn_dependents);
        self.named_by(i).filter(move |&d| {
            let hit = left > 0 && self.list(d).contains(&drawn);
            left -= u32::from(hit);
            hit
        })
    }

    /// Every row whose list names row `i`, drawn or not.
    fn named_by(&self, i: usize) -> impl Iterator<Item = usize> + '_ {
        let mut at = self.rows.get(i).map_or(NONE, |r| r.first_dependent);
        std::iter::from_fn(move || {
            (at != NONE).then(|| {
                let link = self.dependent_links[at as usize];
                at = link.next;
                link.row as usize
            })
        })
    }

    /// The layer (column) of row `i`, when the graph shows it.
    pub fn layer(&self, i: usize) -> Option<usize> {
        self.rows
            .get(i)
            .filter(|r| r.slot != NONE)
            .map(|r| r.layer as usize)
    }

    /// The members of layer `c`, in no particular order.
    pub fn column(&self, c: usize) -> &[u32] {
        self.columns.get(c).map_or(&[], Vec::as_slice)
    }

    /// Number of layers.
    pub fn layers(&self) -> usize {
        self.columns.len()
    }

    /// The version at which column `c` last changed (0 if never): a layout ordered before that
    /// orders it again.
    pub fn changed(&self, c: usize) -> u64 {
        self.changed.get(c).copied().unwrap_or(0)
    }

    /// Bumped by every change to a column.
    pub fn version(&self) -> u64 {
        self.version
    }

    /// Resources the graph shows.
    pub fn members(&self) -> usize {
        self.members
    }

    /// Whether row `i` is in the graph.
    pub fn is_member(&self, i: usize) -> bool {
        self.layer(i).is_some()
    }

    /// Characters in the longest member name.
    pub fn longest_name(&self) -> usize {
        self.name_lengths.iter().rposition(|&n| n > 0).unwrap_or(0)
    }

    fn list(&self, i: usize) -> &[u32] {
        let s = self.rows[i].deps;
        &self.lists[s.start as usize..(s.start + s.len) as usize]
    }

    fn link_dependent(&mut self, d: usize, i: usize) {
        self.dependent_links.push(Dependent {
            row: row(i),
            next: self.rows[d].first_dependent,
        });
        self.rows[d].first_dependent = row(self.dependent_links.len() - 1);
    }

    /// Takes `i` off `d`'s dependents: a walk of them, for the rare list that drops a row.
    fn unlink_dependent(&mut self, d: usize, i: usize) {
        let mut prev = NONE;
        let mut at = self.rows[d].first_dependent;
        while at != NONE {
            let link = self.dependent_links[at as usize];
            if link.row == row(i) {
                match prev {
                    NONE => self.rows[d].first_dependent = link.next,
                    p => self.dependent_links[p as usize].next = link.next,
                }
                return;
            }
            prev = at;
            at = link.next;
        }
    }

    /// Changes something every link to and from row `i` depends on, drawing them again.
    fn relink(&mut self, i: usize, change: impl FnOnce(&mut GraphIndex)) {
        let named_by: Vec<usize> = self.named_by(i).collect();
        for &d in &named_by {
            self.undraw_deps(d);
        }
        self.undraw_deps(i);
        change(self);
        self.settle([i]);
        self.draw_deps(i);
        for d in named_by {
            self.draw_deps(d);
        }
    }

    /// Takes row `i`'s links out of the graph, settling the layers they held up (before any
    /// link is drawn and checked for a cycle against them).
    fn undraw_deps(&mut self, i: usize) {
        if self.rows[i].drawn_deps == 0 {
            return;
        }
        let mut touched = Vec::new();
        let s = self.rows[i].deps;
        for k in s.start as usize..(s.start + s.len) as usize {
            let d = self.lists[k];
            if d & DRAWN != 0 {
                let d = (d & !DRAWN) as usize;
                self.lists[k] &= !DRAWN;
                self.rows[i].drawn_deps -= 1;
                self.rows[d].drawn_dependents -= 1;
                touched.extend([i, d]);
            }
        }
        self.settle(touched);
    }

    /// Draws row `i`'s links the graph shows. A cycle through one of them would come back into
    /// `i` by a link drawn before, so the layers settled before these are enough to check.
    fn draw_deps(&mut self, i: usize) {
        let mut todo = std::mem::take(&mut self.todo);
        todo.push(i);
        let s = self.rows[i].deps;
        for k in s.start as usize..(s.start + s.len) as usize {
            let d = (self.lists[k] & !DRAWN) as usize;
            if self.lists[k] & DRAWN == 0 && self.draws(i, d) {
                self.lists[k] |= DRAWN;
                self.rows[i].drawn_deps += 1;
                self.rows[d].drawn_dependents += 1;
                // A member's layer does not follow from its dependents: only a newcomer moves.
                if self.rows[d].slot == NONE {
                    todo.push(d);
                }
            }
        }
        self.todo = todo;
        self.settle([]);
    }

    /// Whether the graph draws "`i` depends on `d`".
    fn draws(&self, i: usize, d: usize) -> bool {
        let contains = self.rows[i].parent == row(d) && !self.rows[d].custom;
        self.rows[i].node && self.rows[d].node && i != d && !contains && !self.reaches(d, i)
    }

    /// Whether `from` depends on `to` through drawn links, directly or not. Layers fall along
    /// every drawn link, so only rows with a layer between the two are searched.
    fn reaches(&self, from: usize, to: usize) -> bool {
        if self.rows[to].drawn_dependents == 0
            || self.rows[to].slot == NONE
            || self.rows[from].slot == NONE
        {
            return false;
        }
        let floor = self.rows[to].layer;
        let mut todo = vec![from];
        let mut seen = vec![from];
        while let Some(x) = todo.pop() {
            if x == to {
                return true;
            }
            for d in self.deps(x) {
                if self.rows[d].layer >= floor && !seen.contains(&d) {
                    seen.push(d);
                    todo.push(d);
                }
            }
        }
        false
    }

    /// Brings the membership and layer of every touched row up to date, and those of their
    /// dependents as far as layers move.
    fn settle(&mut self, rows: impl IntoIterator<Item = usize>) {
        let mut todo = std::mem::take(&mut self.todo);
        todo.extend(rows);
        while let Some(x) = todo.pop() {
            if self.place(x) {
                todo.extend(self.dependents(x));
            }
        }
        self.todo = todo;
        while self.columns.last().is_some_and(Vec::is_empty) {
            self.columns.pop();
            self.changed.pop();
        }
    }

    /// Puts row `x` in the column its links give it; whether its layer or membership changed.
    fn place(&mut self, x: usize) -> bool {
        let member = self.rows[x].node
            && (self.rows[x].custom
                || self.rows[x].drawn_deps > 0
                || self.rows[x].drawn_dependents > 0);
        let layer = if member {
            self.deps(x)
                .map(|d| self.rows[d].layer + 1)
                .max()
                .unwrap_or(0)
        } else {
            0
        };
        let was = self.rows[x].slot != NONE;
        self.rows[x].placed = true;
        if was == member && (!member || self.rows[x].layer == layer) {
            return false;
        }
        if was {
            self.leave_column(x);
        }
        self.rows[x].layer = layer;
        if member {
            let c = layer as usize;
            if self.columns.len() <= c {
                self.columns.resize_with(c + 1, Vec::new);
                self.changed.resize(c + 1, 0);
            }
            self.rows[x].slot = row(self.columns[c].len());
            self.columns[c].push(row(x));
            self.touch(c);
            let n = self.rows[x].name_chars as usize;
            if self.name_lengths.len() <= n {
                self.name_lengths.resize(n + 1, 0);
            }
            self.name_lengths[n] += 1;
            self.members += 1;
        }
        true
    }

    fn leave_column(&mut self, x: usize) {
        let c = self.rows[x].layer as usize;
        let s = self.rows[x].slot as usize;
        self.columns[c].swap_remove(s);
        if let Some(&moved) = self.columns[c].get(s) {
            self.rows[moved as usize].slot = row(s);
        }
        self.rows[x].slot = NONE;
        self.touch(c);
        self.name_lengths[self.rows[x].name_chars as usize] -= 1;
        self.members -= 1;
    }

    fn touch(&mut self, c: usize) {
        self.version += 1;
        self.changed[c] = self.version;
    }
}

/// A row index as the index stores it.
fn row(i: usize) -> u32 {
    u32::try_from(i).expect("fewer than 2^31 rows")
}

#[cfg(test)]
mod tests {
    use crate::app::model::Model;
    use crate::app::sample::{sample_urn, step_info};
    use crate::engine::{EngineEvent, StepOp, Urn};
    use rand::rngs::StdRng;
    use rand::{Rng, SeedableRng};

    fn plan(m: &mut Model, u: &Urn, parent: Option<&Urn>, custom: bool, deps: &[&Urn]) {
        let mut info = step_info(StepOp::Create, u, parent, 1);
        info.custom = custom;
        info.dependencies = deps.iter().map(|&d| d.clone()).collect();
        m.apply(&EngineEvent::StepPlanned(Box::new(info)));
    }

    /// The graph worked out from scratch: which links are drawn, then longest paths.
    fn layers_from_scratch(m: &Model) -> Vec<Option<usize>> {
        let n = m.resources().len();
        let g = m.graph();
        let node = |i: usize| m.resource(i).graph_node();
        let drawn: Vec<Vec<usize>> = (0..n)
            .map(|i| {
                let r = m.resource(i);
                g.dependency_rows(i)
                    .filter(|&d| {
                        let contains = r.parent == Some(d) && !m.resource(d).custom;
                        node(i) && node(d) && d != i && !contains
                    })
                    .collect()
            })
            .collect();
        let mut dependents = vec![0; n];
        for &d in drawn.iter().flatten() {
            dependents[d] += 1;
        }
        let member: Vec<bool> = (0..n)
            .map(|i| node(i) && (m.resource(i).custom || !drawn[i].is_empty() || dependents[i] > 0))
            .collect();
        let mut layer: Vec<Option<usize>> = vec![None; n];
        // Every link goes to an earlier rank here, so repeated passes settle.
        for _ in 0..n {
            for i in (0..n).filter(|&i| member[i]) {
                let l = drawn[i]
                    .iter()
                    .map(|&d| layer[d].map_or(0, |l| l + 1))
                    .max();
                layer[i] = Some(l.unwrap_or(0));
            }
        }
        layer
    }

    #[test]
    fn layers_kept_as_events_arrive_match_layers_worked_out_from_scratch() {
        for seed in 1..=40u64 {
            // Seeded, so that a failure replays.
            let mut dice = StdRng::seed_from_u64(seed);
            let n = 12 + dice.random_range(0..30);
            // Rank k may depend only on lower ranks: no cycle, whatever order events come in.
            let urns: Vec<Urn> = (0..n)
                .map(|k| match dice.random_range(0..10) {
                    0 => sample_urn("pulumi:providers:sim", &format!("p{k}")),
                    1 | 2 => sample_urn("my:index:Group", &format!("c{k}")),
                    _ => sample_urn("sim:index:Resource", &format!("r{k}")),
                })
                .collect();
            let mut m = Model::new();
            for _ in 0..3 * n {
                let k = dice.random_range(0..n);
                let deps: Vec<&Urn> = (0..dice.random_range(0..4))
                    .filter(|_| k > 0)
                    .map(|_| &urns[dice.random_range(0..k)])
                    .fold(Vec::new(), |mut v, d| {
                        if !v.contains(&d) {
                            v.push(d);
                        }
                        v
                    });
                let parent =
                    (k > 0 && dice.random_range(0..2) == 0).then(|| &urns[dice.random_range(0..k)]);
                let custom = urns[k].type_() != "my:index:Group";
                plan(&mut m, &urns[k], parent, custom, &deps);
                let want = layers_from_scratch(&m);
                let g = m.graph();
                for (i, w) in want.iter().enumerate() {
                    assert_eq!(
                        g.layer(i),
                        *w,
                        "seed {seed}: row {i} ({})",
                        m.resource(i).urn
                    );
                }
                let members = want.iter().flatten().count();
                assert_eq!(g.members(), members, "seed {seed}");
                let in_columns: usize = (0..g.layers()).map(|c| g.column(c).len()).sum();
                assert_eq!(in_columns, members, "seed {seed}");
                for c in 0..g.layers() {
                    assert!(g.column(c).iter().all(|&i| g.layer(i as usize) == Some(c)));
                }
                let longest = (0..m.resources().len())
                    .filter(|&i| want[i].is_some())
                    .map(|i| m.resource(i).name_chars())
                    .max()
                    .unwrap_or(0);
                assert_eq!(g.longest_name(), longest, "seed {seed}");
                for i in 0..m.resources().len() {
                    for d in g.deps(i) {
                        assert!(g.dependents(d).any(|x| x == i), "seed {seed}: {i} -> {d}");
                    }
                }
            }
        }
    }

    #[test]
    fn a_link_that_would_close_a_cycle_is_left_out() {
        let mut m = Model::new();
        let [a, b, c] = ["a", "b", "c"].map(|n| sample_urn("sim:index:Resource", n));
        plan(&mut m, &a, None, true, &[]);
        plan(&mut m, &b, None, true, &[&a]);
        plan(&mut m, &c, None, true, &[&b]);
        // Garbage from elsewhere: a now depends on c, closing a → c → b → a.
        plan(&mut m, &a, None, true, &[&c]);
        let [ia, ib, ic] = [&a, &b, &c].map(|u| m.index_of(u).unwrap());
        let g = m.graph();
        assert_eq!(g.deps(ia).count(), 0, "the closing link is not drawn");
        assert_eq!(g.dependency_rows(ia).collect::<Vec<_>>(), [ic]);
        assert_eq!(
            [ia, ib, ic].map(|i| g.layer(i)),
            [Some(0), Some(1), Some(2)]
        );
        // Once b depends on something else, the link from a to c closes no cycle; it is drawn
        // when a's links change.
        let d = sample_urn("sim:index:Resource", "d");
        plan(&mut m, &d, None, true, &[]);
        plan(&mut m, &b, None, true, &[&d]);
        plan(&mut m, &a, None, true, &[&c, &b]);
        let id = m.index_of(&d).unwrap();
        let g = m.graph();
        assert_eq!(
            [id, ib, ic, ia].map(|i| g.layer(i)),
            [Some(0), Some(1), Some(2), Some(3)]
        );
    }
}
