//! The resource tree flattened into display rows (children under parents, collapsed subtrees
//! hidden, filtered rows kept with their ancestors). Rebuilt only when the model's structure,
//! the filter or the collapsed set changes, so drawing a frame touches only the visible rows.
//! While the model grows, rebuilds are spaced so that they take at most a ninth of the time.

use std::collections::HashSet;
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
    /// Position of the parent row in the flattened list.
    parent_row: u32,
    pub has_children: bool,
}

/// The flattened tree and its rebuild key.
#[derive(Clone, Debug, Default)]
pub struct TreeIndex {
    key: Option<(u64, String, u64, SortKey, u64)>,
    rows: Vec<FlatRow>,
    /// Row position per resource index (`NONE` when hidden).
    pos: Vec<u32>,
    built_at: Option<Instant>,
    cost: Duration,
}

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
        // Room for every row at once: growing by doubling copies a million rows' worth twice.
        self.rows.reserve(n);
        self.pos.clear();
        self.pos.resize(n, NONE);
        // Depth-first, siblings sorted; the stack holds (idx, depth, last, parent row).
        let mut roots: Vec<usize> = model.roots().filter(|&i| kept(i)).collect();
        sort.sort(model, &mut roots);
        let mut stack: Vec<(usize, u16, bool, u32)> = roots
            .iter()
            .enumerate()
            .rev()
            .map(|(k, &i)| (i, 0, k + 1 == roots.len(), NONE))
            .collect();
        let mut kids: Vec<usize> = Vec::new();
        while let Some((i, depth, last, parent_row)) = stack.pop() {
            let r = model.resource(i);
            let row = self.rows.len() as u32;
            self.pos[i] = row;
            kids.clear();
            kids.extend(r.children.iter().copied().filter(|&c| kept(c)));
            sort.sort(model, &mut kids);
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

    /// The visible rows, top to bottom.
    pub fn rows(&self) -> &[FlatRow] {
        &self.rows
    }

    /// Number of visible rows.
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    /// No visible row (nothing yet, or the filter matches nothing).
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// The row showing resource `idx`, if visible.
    pub fn position(&self, idx: usize) -> Option<usize> {
        self.pos
            .get(idx)
            .copied()
            .filter(|&p| p != NONE)
            .map(|p| p as usize)
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
