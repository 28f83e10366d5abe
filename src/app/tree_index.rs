//! The resource tree flattened into display rows (children under parents, collapsed subtrees
//! hidden, filtered rows kept with their ancestors). Rebuilt only when the model's structure,
//! the filter or the collapsed set changes; while the model grows, rebuilds are spaced so that
//! they take at most a ninth of the time.
//!
//! The rows are walked depth-first only as far as a view needs (the window, the selection), so
//! a frame at a million resources sorts and places a few dozen rows, not a million: with no
//! filter and nothing collapsed, the number of rows is known without the walk (every resource
//! has one; the model keeps parents free of cycles).

use std::collections::HashSet;
use std::time::{Duration, Instant};

use crate::engine::Urn;

use super::filter::Filter;
use super::model::Model;
use super::paged::Paged;
use super::sort::SortKey;

const NONE: u32 = u32::MAX;

/// One visible row of the tree.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FlatRow {
    /// Index of the resource in the model.
    pub idx: usize,
    pub depth: u16,
    /// Last among its visible siblings (draws `└─` rather than `├─`).
    pub last: bool,
    /// Position of the parent row in the flattened list.
    parent_row: u32,
    pub has_children: bool,
}

/// What a rebuild depends on: the model's structure, the filter, the collapsed set, the sort
/// and (for orders and filters that follow statuses) the model's version.
type Key = (u64, String, u64, SortKey, u64);

/// The flattened tree (as far as it has been walked) and its rebuild key.
#[derive(Clone, Debug, Default)]
pub struct TreeIndex {
    key: Option<Key>,
    rows: Vec<FlatRow>,
    /// Row plus one per resource index (0 when hidden or not reached yet); resources added
    /// since the rebuild are past its end, and wait for the next one.
    pos: Paged<u32>,
    /// The rest of the depth-first walk: one level per open row on the path to the next row.
    walk: Vec<Level>,
    /// Rows the walk will have placed once done.
    total: usize,
    /// Resources the filter keeps, with their ancestors (`None` without a filter).
    keep: Option<Vec<bool>>,
    sort: SortKey,
    built_at: Option<Instant>,
    cost: Duration,
}

/// Siblings still to place under one open row (or the roots). They are put in display order
/// a batch at a time, as the walk reaches them.
#[derive(Clone, Debug)]
struct Level {
    kids: Vec<usize>,
    /// The kids before this one are in display order.
    sorted: usize,
    next: usize,
    depth: u16,
    parent_row: u32,
}

/// Siblings sorted at once when a walk first reaches a level: a window's worth and more.
const SORT_BATCH: usize = 64;

impl TreeIndex {
    /// Rebuilds when the structure, the filter or the collapsed set changed; O(1) otherwise.
    pub fn refresh(
        &mut self,
        model: &Model,
        filter: &Filter,
        collapsed: &HashSet<Urn>,
        collapsed_version: u64,
        sort: SortKey,
    ) {
        // Orders and filters that follow statuses go stale with every event, not only with
        // new resources.
        let volatile = if sort.volatile() || filter.by_status() {
            model.version()
        } else {
            0
        };
        let key = (
            model.structure_version(),
            filter.text().to_string(),
            collapsed_version,
            sort,
            volatile,
        );
        let Some(old) = &self.key else {
            return self.rebuild(key, model, filter, collapsed);
        };
        if *old == key {
            return;
        }
        let only_model_changed = old.1 == key.1 && old.2 == key.2 && old.3 == key.3;
        let recent = self.built_at.is_some_and(|at| at.elapsed() < self.cost * 8);
        if only_model_changed && recent {
            return;
        }
        self.rebuild(key, model, filter, collapsed);
    }

    /// Whether the model changed since the last rebuild (a throttled rebuild is due).
    pub fn is_stale(&self, model: &Model) -> bool {
        self.key
            .as_ref()
            .is_some_and(|k| k.0 != model.structure_version())
    }

    fn rebuild(&mut self, key: Key, model: &Model, filter: &Filter, collapsed: &HashSet<Urn>) {
        let started = Instant::now();
        self.sort = key.3;
        self.key = Some(key);
        let n = model.resources().len();
        self.keep = (!filter.is_empty()).then(|| {
            let mut keep = vec![false; n];
            for (i, r) in model.resources().iter().enumerate() {
                if !filter.matches(r) {
                    continue;
                }
                let mut cur = Some(i);
                while let Some(c) = cur {
                    if keep[c] {
                        break;
                    }
                    keep[c] = true;
                    cur = model.resource(c).parent;
                }
            }
            keep
        });
        self.rows.clear();
        self.pos = Paged::new(n);
        let roots: Vec<usize> = model.roots().filter(|&i| self.kept(i)).collect();
        self.walk = vec![Level {
            kids: roots,
            sorted: 0,
            next: 0,
            depth: 0,
            parent_row: NONE,
        }];
        if self.keep.is_none() && collapsed.is_empty() {
            self.total = n;
        } else {
            // Which rows are hidden is known only by walking them all.
            self.walk_until(model, collapsed, usize::MAX, None);
            self.total = self.rows.len();
        }
        self.built_at = Some(Instant::now());
        self.cost = started.elapsed();
    }

    fn kept(&self, i: usize) -> bool {
        self.keep.as_ref().is_none_or(|k| k[i])
    }

    /// Places rows until there are `rows` of them, `idx` has its row, or the walk is done. Only
    /// a walk that began with nothing collapsed is resumed, so `collapsed` is the rebuild's.
    fn walk_until(
        &mut self,
        model: &Model,
        collapsed: &HashSet<Urn>,
        rows: usize,
        idx: Option<usize>,
    ) {
        let started = Instant::now();
        let reached = |t: &TreeIndex| {
            t.rows.len() >= rows || idx.is_some_and(|i| i >= t.pos.len() || t.pos.get(i) != 0)
        };
        while !reached(self) {
            let Some(level) = self.walk.last_mut() else {
                // Rows re-parented since the rebuild may have been passed by: count what was
                // placed.
                self.total = self.rows.len();
                break;
            };
            if level.next == level.sorted && level.sorted < level.kids.len() {
                // Twice as many as were sorted before: a whole walk still sorts in O(n log n).
                let batch = level.sorted.max(SORT_BATCH);
                self.sort
                    .sort_first(model, &mut level.kids[level.sorted..], batch);
                level.sorted = (level.sorted + batch).min(level.kids.len());
            }
            let Some(&i) = level.kids.get(level.next) else {
                self.walk.pop();
                continue;
            };
            level.next += 1;
            let (depth, parent_row) = (level.depth, level.parent_row);
            let last = level.next == level.kids.len();
            // Rows added since the rebuild wait for the next one.
            if i >= self.pos.len() || self.pos.get(i) != 0 {
                continue;
            }
            let row = self.rows.len() as u32;
            self.pos.set(i, row + 1);
            let r = model.resource(i);
            let kids: Vec<usize> = r
                .children
                .iter()
                .copied()
                .filter(|&c| c < self.pos.len() && self.kept(c))
                .collect();
            self.rows.push(FlatRow {
                idx: i,
                depth,
                last,
                parent_row,
                has_children: !kids.is_empty(),
            });
            if kids.is_empty() || collapsed.contains(&r.urn) {
                continue;
            }
            self.walk.push(Level {
                kids,
                sorted: 0,
                next: 0,
                depth: depth + 1,
                parent_row: row,
            });
        }
        self.cost += started.elapsed();
    }

    /// The first `end` rows (fewer when there are fewer), walking on as far as they need.
    pub fn reach(&mut self, model: &Model, end: usize) -> &[FlatRow] {
        if self.rows.len() < end {
            self.walk_until(model, &HashSet::new(), end, None);
        }
        &self.rows[..end.min(self.rows.len())]
    }

    /// The row showing resource `idx`, walking on until it is placed; `None` when hidden.
    pub fn find(&mut self, model: &Model, idx: usize) -> Option<usize> {
        if self.position(idx).is_none() && idx < self.pos.len() {
            self.walk_until(model, &HashSet::new(), usize::MAX, Some(idx));
        }
        self.position(idx)
    }

    /// The rows placed so far, top to bottom (all of them after `reach(model, len())`).
    pub fn rows(&self) -> &[FlatRow] {
        &self.rows
    }

    /// Number of visible rows.
    pub fn len(&self) -> usize {
        self.total
    }

    /// No visible row (nothing yet, or the filter matches nothing).
    pub fn is_empty(&self) -> bool {
        self.total == 0
    }

    /// The row showing resource `idx`, if visible and placed.
    pub fn position(&self, idx: usize) -> Option<usize> {
        self.pos.get(idx).checked_sub(1).map(|p| p as usize)
    }

    /// The row of a row's parent (`None` for a root).
    pub fn parent_row(&self, row: usize) -> Option<usize> {
        let p = self.rows[row].parent_row;
        (p != NONE).then_some(p as usize)
    }

    /// Tree guides for a row (`│ ├─ └─`), built from its ancestors: O(depth).
    pub fn guides(&self, row: usize) -> String {
        let r = self.rows[row];
        if r.depth == 0 {
            return String::new();
        }
        let mut parts: Vec<&str> = Vec::with_capacity(r.depth as usize);
        parts.push(if r.last { "└─" } else { "├─" });
        let mut p = r.parent_row;
        while p != NONE {
            let pr = self.rows[p as usize];
            if pr.depth == 0 {
                break;
            }
            parts.push(if pr.last { "  " } else { "│ " });
            p = pr.parent_row;
        }
        parts.iter().rev().copied().collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::sample::{sample_urn, step_info};
    use crate::engine::{EngineEvent, StepOp};

    /// A stack of `groups` components with `per` resources each, arriving interleaved and out of
    /// name order (as a parallel preview sends them), some of them with children of their own.
    fn forest(groups: usize, per: usize) -> Model {
        let mut m = Model::new();
        let stack = sample_urn("pulumi:pulumi:Stack", "myproj-dev");
        let mut chain = 0;
        let mut plan = |m: &mut Model, urn: &Urn, parent: &Urn| {
            chain += 1;
            let info = step_info(StepOp::Create, urn, Some(parent), chain);
            m.apply(&EngineEvent::StepPlanned(Box::new(info)));
        };
        // Names in a scrambled order (7919 is prime, so every name is used once).
        let group = |g: usize| sample_urn("my:index:Group", &format!("g{}", g * 7919 % groups));
        for g in 0..groups {
            plan(&mut m, &group(g), &stack);
        }
        for k in 0..per {
            for g in 0..groups {
                let r = sample_urn("sim:index:Resource", &format!("r{}-{}", g, per - k));
                plan(&mut m, &r, &group(g));
                if k % 3 == 0 {
                    let leaf = sample_urn("sim:index:Leaf", &format!("l{g}-{k}"));
                    plan(&mut m, &leaf, &r);
                }
            }
        }
        m
    }

    /// The rows a plain recursive walk gives: (resource, depth, last) with siblings by name.
    fn expected(m: &Model) -> Vec<(usize, u16, bool)> {
        fn visit(m: &Model, i: usize, depth: u16, last: bool, out: &mut Vec<(usize, u16, bool)>) {
            out.push((i, depth, last));
            let mut kids = m.resource(i).children.clone();
            SortKey::Name.sort(m, &mut kids);
            for (k, &c) in kids.iter().enumerate() {
                visit(m, c, depth + 1, k + 1 == kids.len(), out);
            }
        }
        let mut out = Vec::new();
        let mut roots: Vec<usize> = m.roots().collect();
        SortKey::Name.sort(m, &mut roots);
        for (k, &r) in roots.iter().enumerate() {
            visit(m, r, 0, k + 1 == roots.len(), &mut out);
        }
        out
    }

    fn shape(rows: &[FlatRow]) -> Vec<(usize, u16, bool)> {
        rows.iter().map(|r| (r.idx, r.depth, r.last)).collect()
    }

    #[test]
    fn rows_are_walked_only_as_far_as_asked_and_match_a_whole_walk() {
        let m = forest(7, 12);
        let want = expected(&m);
        let mut t = TreeIndex::default();
        t.refresh(&m, &Filter::default(), &HashSet::new(), 0, SortKey::Name);
        assert_eq!(t.rows().len(), 0, "nothing is walked before a view asks");
        assert_eq!(t.len(), m.resources().len(), "every resource has a row");
        assert_eq!(shape(t.reach(&m, 5)), want[..5]);
        assert_eq!(t.rows().len(), 5);
        let deep = want[60].0;
        assert_eq!(t.find(&m, deep), Some(60));
        assert_eq!(t.rows().len(), 61, "walked up to the row asked for");
        assert_eq!(shape(t.reach(&m, usize::MAX)), want);
        for (row, r) in t.rows().iter().enumerate() {
            let parent = m.resource(r.idx).parent.and_then(|p| t.position(p));
            assert_eq!(t.parent_row(row), parent);
            assert_eq!(r.has_children, !m.resource(r.idx).children.is_empty());
        }
    }

    #[test]
    fn many_siblings_sorted_a_batch_at_a_time_come_in_the_order_of_a_whole_sort() {
        let m = forest(300, 2);
        let want = expected(&m);
        for end in [1, 3, 64, 65, 66, 200, 500, want.len()] {
            let mut t = TreeIndex::default();
            t.refresh(&m, &Filter::default(), &HashSet::new(), 0, SortKey::Name);
            assert_eq!(shape(t.reach(&m, end)), want[..end], "the first {end}");
            assert_eq!(shape(t.reach(&m, usize::MAX)), want, "then the rest");
        }
        let mut t = TreeIndex::default();
        t.refresh(&m, &Filter::default(), &HashSet::new(), 0, SortKey::Name);
        let late = want[want.len() - 2].0;
        assert_eq!(t.find(&m, late), Some(want.len() - 2));
        assert_eq!(shape(t.rows()), want[..want.len() - 1]);
    }

    #[test]
    fn a_collapsed_subtree_or_a_filter_is_walked_whole_and_counted_exactly() {
        let m = forest(3, 4);
        let under = |i: usize, a: usize| {
            let mut cur = m.resource(i).parent;
            while let Some(c) = cur {
                if c == a {
                    return true;
                }
                cur = m.resource(c).parent;
            }
            false
        };
        let group = sample_urn("my:index:Group", "g2");
        let g = m.index_of(&group).unwrap();
        let mut t = TreeIndex::default();
        t.refresh(
            &m,
            &Filter::default(),
            &HashSet::from([group]),
            1,
            SortKey::Name,
        );
        let shown: Vec<usize> = t.rows().iter().map(|r| r.idx).collect();
        let want: Vec<usize> = expected(&m)
            .into_iter()
            .map(|r| r.0)
            .filter(|&i| !under(i, g))
            .collect();
        assert_eq!((shown, t.len()), (want.clone(), want.len()));
        assert!(t.rows()[t.position(g).unwrap()].has_children);

        let filter = Filter::parse("l1-").unwrap();
        t.refresh(&m, &filter, &HashSet::new(), 1, SortKey::Name);
        let shown: Vec<usize> = t.rows().iter().map(|r| r.idx).collect();
        let matching = |i: usize| m.resource(i).name().starts_with("l1-");
        let want: Vec<usize> = expected(&m)
            .into_iter()
            .map(|r| r.0)
            .filter(|&i| (0..m.resources().len()).any(|j| matching(j) && (j == i || under(j, i))))
            .collect();
        assert_eq!((shown, t.len()), (want.clone(), want.len()));
        assert!(!want.is_empty() && want.len() < m.resources().len() / 2);
    }
}
