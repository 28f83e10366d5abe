//! The resource tree as display rows (children under parents, collapsed subtrees hidden,
//! filtered rows kept with their ancestors). In the default view (siblings by name, no
//! filter) nothing is flattened: the model keeps children in that order and subtree sizes as
//! rows arrive, so a row is found by position in O(depth × siblings) and the first frame costs
//! what every frame costs. Other orders and filters flatten the tree, rebuilt only when the
//! model's structure, the filter or the collapsed set changes; while the model grows, those
//! rebuilds are spaced so that they take at most a ninth of the time.

use std::collections::{HashMap, HashSet};
use std::ops::Range;
use std::time::{Duration, Instant};

use crate::engine::urn::Urn;

use super::filter::Filter;
use super::model::Model;
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
    /// Position of the parent row in the flattened list (`NONE` in the default view, where
    /// the model's parent links stand for it).
    parent_row: u32,
    pub has_children: bool,
}

/// The rows of the tree, in the default view or flattened for a filter or another order.
#[derive(Clone, Debug, Default)]
pub struct TreeIndex {
    /// Set when a filter or an order other than by name is in force.
    flat: Option<Flat>,
    live: Live,
}

impl TreeIndex {
    /// Brings the rows up to date: O(collapsed rows × depth) in the default view; otherwise
    /// a rebuild when the structure, the filter or the collapsed set changed.
    pub fn refresh(
        &mut self,
        model: &Model,
        filter: &Filter,
        collapsed: &HashSet<Urn>,
        collapsed_version: u64,
        sort: SortKey,
    ) {
        if filter.is_empty() && sort == SortKey::Name {
            self.flat = None;
            self.live.refresh(model, collapsed, collapsed_version);
        } else {
            self.flat.get_or_insert_with(Flat::default).refresh(
                model,
                filter,
                collapsed,
                collapsed_version,
                sort,
            );
        }
    }

    /// Whether the model changed since the last rebuild (a throttled rebuild is due).
    pub fn is_stale(&self, model: &Model) -> bool {
        self.flat.as_ref().is_some_and(|f| f.is_stale(model))
    }

    /// Number of visible rows.
    pub fn len(&self) -> usize {
        match &self.flat {
            Some(f) => f.rows.len(),
            None => self.live.len,
        }
    }

    /// No visible row (nothing yet, or the filter matches nothing).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The row at position `row`.
    pub fn get(&self, model: &Model, row: usize) -> Option<FlatRow> {
        self.rows_in(model, row..row + 1).first().copied()
    }

    /// The rows at positions `range` (fewer when it runs past the end).
    pub fn rows_in(&self, model: &Model, range: Range<usize>) -> Vec<FlatRow> {
        match &self.flat {
            Some(f) => {
                let end = range.end.min(f.rows.len());
                f.rows[range.start.min(end)..end].to_vec()
            }
            None => self.live.rows_in(model, range),
        }
    }

    /// The row showing resource `idx`, if visible.
    pub fn position(&self, model: &Model, idx: usize) -> Option<usize> {
        match &self.flat {
            Some(f) => f
                .pos
                .get(idx)
                .copied()
                .filter(|&p| p != NONE)
                .map(|p| p as usize),
            None => self.live.position(model, idx),
        }
    }

    /// The rows of `row`'s ancestors, outermost first.
    pub fn ancestors(&self, model: &Model, row: FlatRow) -> Vec<FlatRow> {
        let mut out = Vec::with_capacity(row.depth as usize);
        match &self.flat {
            Some(f) => {
                let mut p = row.parent_row;
                while p != NONE {
                    let pr = f.rows[p as usize];
                    out.push(pr);
                    p = pr.parent_row;
                }
            }
            None => {
                let mut depth = row.depth;
                let mut cur = model.resource(row.idx).parent;
                while let (Some(p), Some(d)) = (cur, depth.checked_sub(1)) {
                    out.push(FlatRow {
                        idx: p,
                        depth: d,
                        last: is_last(model, p),
                        parent_row: NONE,
                        has_children: true,
                    });
                    depth = d;
                    cur = model.resource(p).parent;
                }
            }
        }
        out.reverse();
        out
    }

    /// Tree guides for a row (`│ ├─ └─`), built from its ancestors: O(depth).
    pub fn guides(&self, model: &Model, row: FlatRow) -> String {
        if row.depth == 0 {
            return String::new();
        }
        let mut parts: Vec<&str> = Vec::with_capacity(row.depth as usize);
        parts.push(if row.last { "└─" } else { "├─" });
        parts.extend(
            self.ancestors(model, row)
                .iter()
                .rev()
                .filter(|a| a.depth > 0)
                .map(|a| if a.last { "  " } else { "│ " }),
        );
        parts.iter().rev().copied().collect()
    }
}

/// Whether row `i` is the last of its siblings (in the default order).
fn is_last(model: &Model, i: usize) -> bool {
    siblings(model, i).last() == Some(&i)
}

/// The rows `i` is listed among: its parent's children, or the roots.
fn siblings(model: &Model, i: usize) -> &[usize] {
    match model.resource(i).parent {
        Some(p) => &model.resource(p).children,
        None => model.root_slice(),
    }
}

/// The default view, answered from the model's ordered children and subtree sizes; what it
/// keeps itself is only about collapsed rows.
#[derive(Clone, Debug, Default)]
struct Live {
    key: Option<(u64, u64)>,
    /// Collapsed rows present in the model.
    collapsed: HashSet<usize>,
    /// For each row, the outermost collapsed rows strictly inside its subtree.
    collapsed_below: HashMap<usize, Vec<usize>>,
    len: usize,
}

impl Live {
    fn refresh(&mut self, model: &Model, collapsed: &HashSet<Urn>, collapsed_version: u64) {
        let key = (model.structure_version(), collapsed_version);
        if self.key == Some(key) {
            return;
        }
        self.key = Some(key);
        self.collapsed = collapsed.iter().filter_map(|u| model.index_of(u)).collect();
        self.collapsed_below.clear();
        for &c in &self.collapsed {
            let mut ancestors = Vec::new();
            let mut cur = model.resource(c).parent;
            while let Some(a) = cur {
                ancestors.push(a);
                cur = model.resource(a).parent;
            }
            if ancestors.iter().any(|a| self.collapsed.contains(a)) {
                continue;
            }
            for a in ancestors {
                self.collapsed_below.entry(a).or_default().push(c);
            }
        }
        self.len = model
            .root_slice()
            .iter()
            .map(|&r| self.visible(model, r))
            .sum();
    }

    /// Rows row `i` shows with its visible descendants.
    fn visible(&self, model: &Model, i: usize) -> usize {
        if self.collapsed.is_empty() {
            return model.resource(i).subtree;
        }
        if self.collapsed.contains(&i) {
            return 1;
        }
        let hidden: usize = self.collapsed_below.get(&i).map_or(0, |below| {
            below.iter().map(|&c| model.resource(c).subtree - 1).sum()
        });
        model.resource(i).subtree.saturating_sub(hidden)
    }

    /// The rows at positions `range`: one descent to its start, then a walk in tree order.
    fn rows_in(&self, model: &Model, range: Range<usize>) -> Vec<FlatRow> {
        let mut out = Vec::with_capacity(range.len().min(self.len));
        // The path to the current row: (parent, position among the parent's children).
        let mut path: Vec<(Option<usize>, usize)> = Vec::new();
        let (mut list, mut parent, mut k) = (model.root_slice(), None, range.start);
        'descend: loop {
            for (j, &c) in list.iter().enumerate() {
                let v = self.visible(model, c);
                if k < v {
                    path.push((parent, j));
                    if k == 0 {
                        break 'descend;
                    }
                    k -= 1;
                    (list, parent) = (&model.resource(c).children, Some(c));
                    continue 'descend;
                }
                k -= v;
            }
            return out;
        }
        while out.len() < range.len() {
            let Some(&(parent, j)) = path.last() else {
                break;
            };
            let list = parent.map_or(model.root_slice(), |p| &model.resource(p).children);
            let i = list[j];
            let r = model.resource(i);
            out.push(FlatRow {
                idx: i,
                depth: (path.len() - 1) as u16,
                last: j + 1 == list.len(),
                parent_row: NONE,
                has_children: !r.children.is_empty(),
            });
            if !r.children.is_empty() && !self.collapsed.contains(&i) {
                path.push((Some(i), 0));
                continue;
            }
            while let Some((parent, j)) = path.pop() {
                let len = parent.map_or(model.root_slice().len(), |p| {
                    model.resource(p).children.len()
                });
                if j + 1 < len {
                    path.push((parent, j + 1));
                    break;
                }
            }
        }
        out
    }

    /// The position of row `idx`: the rows before it among its siblings and its ancestors'.
    fn position(&self, model: &Model, idx: usize) -> Option<usize> {
        let mut row = 0;
        let mut cur = idx;
        loop {
            let list = siblings(model, cur);
            let j = list
                .binary_search_by(|&s| SortKey::Name.compare(model, s, cur))
                .ok()?;
            row += list[..j]
                .iter()
                .map(|&s| self.visible(model, s))
                .sum::<usize>();
            match model.resource(cur).parent {
                Some(p) if self.collapsed.contains(&p) => return None,
                Some(p) => {
                    row += 1;
                    cur = p;
                }
                None => return Some(row),
            }
        }
    }
}

/// The flattened tree and its rebuild key.
#[derive(Clone, Debug, Default)]
struct Flat {
    key: Option<(u64, String, u64, SortKey, u64)>,
    rows: Vec<FlatRow>,
    /// Row position per resource index (`NONE` when hidden).
    pos: Vec<u32>,
    built_at: Option<Instant>,
    cost: Duration,
}

impl Flat {
    /// Rebuilds when the structure, the filter or the collapsed set changed; O(1) otherwise.
    fn refresh(
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

    fn is_stale(&self, model: &Model) -> bool {
        self.key
            .as_ref()
            .is_some_and(|k| k.0 != model.structure_version())
    }

    fn rebuild(
        &mut self,
        key: (u64, String, u64, SortKey, u64),
        model: &Model,
        filter: &Filter,
        collapsed: &HashSet<Urn>,
    ) {
        let started = Instant::now();
        let sort = key.3;
        self.key = Some(key);
        let n = model.resources().len();
        let keep: Option<Vec<bool>> = (!filter.is_empty()).then(|| {
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
        let kept = |i: usize| keep.as_ref().is_none_or(|k| k[i]);
        self.rows.clear();
        self.pos.clear();
        self.pos.resize(n, NONE);
        // Depth-first, siblings sorted; the stack holds (idx, depth, last, parent row).
        let mut roots: Vec<usize> = model.roots().filter(|&i| kept(i)).collect();
        roots.sort_by(|&a, &b| sort.compare(model, a, b));
        let mut stack: Vec<(usize, u16, bool, u32)> = roots
            .iter()
            .enumerate()
            .rev()
            .map(|(k, &i)| (i, 0, k + 1 == roots.len(), NONE))
            .collect();
        while let Some((i, depth, last, parent_row)) = stack.pop() {
            let r = model.resource(i);
            let row = self.rows.len() as u32;
            self.pos[i] = row;
            let mut kids: Vec<usize> = r.children.iter().copied().filter(|&c| kept(c)).collect();
            kids.sort_by(|&a, &b| sort.compare(model, a, b));
            let count = kids.len();
            self.rows.push(FlatRow {
                idx: i,
                depth,
                last,
                parent_row,
                has_children: count > 0,
            });
            if collapsed.contains(&r.urn) {
                continue;
            }
            let mut k = count;
            for &c in kids.iter().rev() {
                stack.push((c, depth + 1, k == count, row));
                k -= 1;
            }
        }
        self.built_at = Some(Instant::now());
        self.cost = started.elapsed();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::sample::step_info;
    use crate::engine::events::EngineEvent;
    use crate::engine::step::StepOp;

    /// A stack of groups of members, some members registered before their group (orphans
    /// first, then moved), with names out of arrival order.
    fn model() -> Model {
        let stack = Urn::new("dev", "p", None, "pulumi:pulumi:Stack", "p-dev");
        let mut m = Model::new();
        let mut plan = |urn: &Urn, parent: Option<&Urn>| {
            m.apply(&EngineEvent::StepPlanned(Box::new(step_info(
                StepOp::Create,
                urn,
                parent,
                1,
            ))));
        };
        plan(&stack, None);
        for g in [3, 1, 2, 0] {
            let group = Urn::new("dev", "p", Some(&stack), "b:i:Group", &format!("g{g}"));
            let members: Vec<Urn> = [5, 1, 3, 0]
                .iter()
                .map(|k| Urn::new("dev", "p", Some(&group), "sim:i:Thing", &format!("t{g}{k}")))
                .collect();
            if g == 1 {
                plan(&members[0], Some(&group));
            }
            plan(&group, Some(&stack));
            for u in &members {
                plan(u, Some(&group));
            }
        }
        m
    }

    /// The default view's rows against the flattened tree's, for the same collapsed set.
    fn same_as_flattened(m: &Model, collapsed: &HashSet<Urn>) {
        let mut live = TreeIndex::default();
        live.refresh(m, &Filter::default(), collapsed, 1, SortKey::Name);
        assert!(live.flat.is_none());
        let mut flat = Flat::default();
        flat.refresh(m, &Filter::default(), collapsed, 1, SortKey::Name);
        let flat = TreeIndex {
            flat: Some(flat),
            live: Live::default(),
        };
        assert_eq!(live.len(), flat.len());
        let strip = |r: FlatRow| (r.idx, r.depth, r.last, r.has_children);
        let all =
            |t: &TreeIndex| -> Vec<_> { t.rows_in(m, 0..t.len()).into_iter().map(strip).collect() };
        assert_eq!(all(&live), all(&flat));
        for start in 0..flat.len() {
            let window = start..(start + 3).min(flat.len());
            assert_eq!(
                live.rows_in(m, window.clone())
                    .into_iter()
                    .map(strip)
                    .collect::<Vec<_>>(),
                flat.rows_in(m, window)
                    .into_iter()
                    .map(strip)
                    .collect::<Vec<_>>()
            );
            let (l, f) = (live.get(m, start).unwrap(), flat.get(m, start).unwrap());
            assert_eq!(live.guides(m, l), flat.guides(m, f), "row {start}");
            let anc =
                |t: &TreeIndex, r| -> Vec<_> { t.ancestors(m, r).into_iter().map(strip).collect() };
            assert_eq!(anc(&live, l), anc(&flat, f));
        }
        for i in 0..m.resources().len() {
            assert_eq!(
                live.position(m, i),
                flat.position(m, i),
                "{}",
                m.resource(i).urn
            );
        }
        assert_eq!(live.get(m, flat.len()), None);
    }

    #[test]
    fn the_default_view_matches_the_flattened_tree() {
        let m = model();
        assert_eq!(m.resources().len(), 21);
        same_as_flattened(&m, &HashSet::new());
        let urn = |i: usize| m.resource(i).urn.clone();
        let g1 = m.resources().iter().position(|r| r.name() == "g1").unwrap();
        let stack = m.root_slice()[0];
        same_as_flattened(&m, &[urn(g1)].into());
        same_as_flattened(&m, &[urn(g1), urn(stack)].into());
        let t13 = m
            .resources()
            .iter()
            .position(|r| r.name() == "t13")
            .unwrap();
        same_as_flattened(&m, &[urn(g1), urn(t13)].into());
    }

    #[test]
    fn the_default_view_follows_the_model_without_a_rebuild() {
        let mut m = model();
        let mut index = TreeIndex::default();
        let none = HashSet::new();
        index.refresh(&m, &Filter::default(), &none, 1, SortKey::Name);
        assert_eq!(index.len(), 21);
        let stack = m.resource(m.root_slice()[0]).urn.clone();
        let late = Urn::new("dev", "p", Some(&stack), "sim:i:Thing", "a-late");
        m.apply(&EngineEvent::StepPlanned(Box::new(step_info(
            StepOp::Create,
            &late,
            Some(&stack),
            2,
        ))));
        index.refresh(&m, &Filter::default(), &none, 1, SortKey::Name);
        assert_eq!(index.len(), 22);
        let first_child = index.get(&m, 1).unwrap();
        assert_eq!(m.resource(first_child.idx).name(), "a-late");
        assert_eq!(index.position(&m, first_child.idx), Some(1));
        same_as_flattened(&m, &none);
    }
}
