//! The table of resource rows: rows by index and by URN, the tree's roots and parents, the
//! dependency graph kept as rows arrive, dependencies named before their row exists, and the
//! rows running now. Every lookup is O(1): events name rows by URN, views by index.

use std::collections::HashSet;
use std::sync::Arc;

use foldhash::fast::RandomState as FastHash;

use crate::engine::Urn;
use crate::engine::model::urn::UrnMap;

use super::graph_index::GraphIndex;
use super::resource::{Resource, Status};

/// The rows and their indexes.
#[derive(Clone, Debug, Default)]
pub struct Resources {
    #[expect(
        clippy::vec_box,
        reason = "a row is large: growing a vector of a million of them would copy them all"
    )]
    rows: Vec<Box<Resource>>,
    index: UrnMap<usize>,
    /// The dependency graph of the rows, kept as they arrive.
    graph: GraphIndex,
    /// A dependency list's rows, kept between calls for its allocation.
    scratch_rows: Vec<usize>,
    /// Rows made without a parent; those given one later are passed over by
    /// [`Resources::roots`].
    roots: Vec<usize>,
    /// Bumped whenever rows are added or re-parented or dependencies change, so that derived
    /// layouts know to rebuild.
    structure_version: u64,
    /// Rows naming a dependency that has no row yet, by its URN: linked when the row appears.
    awaiting_dependency: UrnMap<Vec<usize>>,
    /// Rows with a step running now (interrupted if the run stops).
    running: HashSet<usize, FastHash>,
}

impl Resources {
    /// Every row, indexable by the indexes the tree and the graph hold.
    pub fn all(&self) -> &[Box<Resource>] {
        &self.rows
    }

    /// The row at `idx` (an index from this table).
    pub fn row(&self, idx: usize) -> &Resource {
        &self.rows[idx]
    }

    /// The row index of `urn`, in O(1).
    pub fn index_of(&self, urn: &Urn) -> Option<usize> {
        self.index.get(urn).copied()
    }

    /// The row of `urn`, in O(1).
    pub fn get(&self, urn: &Urn) -> Option<&Resource> {
        self.index_of(urn).map(|i| &*self.rows[i])
    }

    /// Top-level rows (the root stack, and orphans whose parent is not known yet).
    pub fn roots(&self) -> impl Iterator<Item = usize> + '_ {
        self.roots
            .iter()
            .copied()
            .filter(|&i| self.rows[i].parent.is_none())
    }

    /// The dependency graph, with its layers.
    pub fn graph(&self) -> &GraphIndex {
        &self.graph
    }

    /// Changes whenever rows or dependencies are added: the key of derived layouts.
    pub fn structure_version(&self) -> u64 {
        self.structure_version
    }

    pub(super) fn row_mut(&mut self, idx: usize) -> &mut Resource {
        &mut self.rows[idx]
    }

    /// The row for `urn`, created as a placeholder when an event names it first.
    pub(super) fn ensure(&mut self, urn: &Urn) -> usize {
        if let Some(i) = self.index_of(urn) {
            return i;
        }
        let i = self.rows.len();
        let r = Resource::new(urn.clone());
        self.graph.add_row(
            r.graph_node(),
            u32::try_from(r.name_chars()).unwrap_or(u32::MAX),
        );
        self.rows.push(Box::new(r));
        self.index.insert(urn.clone(), i);
        self.roots.push(i);
        self.structure_version += 1;
        if !self.awaiting_dependency.is_empty()
            && let Some(waiting) = self.awaiting_dependency.remove(urn)
        {
            for w in waiting {
                // It may have changed its dependencies since it named this one.
                if self.rows[w].dependencies.contains(urn) {
                    self.graph.add_dep(w, i);
                }
            }
        }
        i
    }

    /// Places the rows added since in the graph's layers (once per event).
    pub(super) fn place_new_rows(&mut self) {
        self.graph.place_new_rows();
    }

    pub(super) fn set_parent(&mut self, i: usize, parent: Option<&Urn>) {
        let Some(p_urn) = parent else { return };
        // A step names the parent its registration named: no need to hash its URN again.
        if let Some(known) = self.rows[i].parent
            && self.rows[known].urn == *p_urn
        {
            return;
        }
        let p = self.ensure(p_urn);
        // Only a row with children can be an ancestor of its new parent.
        let cycle = p == i || (!self.rows[i].children.is_empty() && self.is_within(p, i));
        if self.rows[i].parent == Some(p) || cycle {
            return;
        }
        if let Some(old) = self.rows[i].parent {
            self.rows[old].children.retain(|&c| c != i);
        } else if self.roots.last() == Some(&i) {
            // A row is most often given its parent as it is made: it leaves the roots at once,
            // so that walking them is not a walk of every row.
            self.roots.pop();
        }
        self.rows[i].parent = Some(p);
        self.rows[p].children.push(i);
        self.graph.set_parent(i, p);
        self.structure_version += 1;
    }

    /// Whether row `i` is a custom resource (or a component), in the row and in the graph.
    pub(super) fn set_custom(&mut self, i: usize, custom: bool) {
        self.rows[i].custom = custom;
        self.graph.set_custom(i, custom);
    }

    /// Sets a row's dependencies (distinct, as events carry them) and their rows; the same list
    /// again (a step repeats its registration's) costs no allocation and leaves the structure
    /// as it is.
    pub(super) fn set_dependencies(&mut self, i: usize, urns: &Arc<[Urn]>) {
        if self.rows[i].dependencies == *urns {
            return;
        }
        let mut rows = std::mem::take(&mut self.scratch_rows);
        rows.clear();
        for d in urns.iter() {
            match self.index_of(d) {
                Some(j) => rows.push(j),
                None => self
                    .awaiting_dependency
                    .entry(d.clone())
                    .or_default()
                    .push(i),
            }
        }
        self.rows[i].dependencies = Arc::clone(urns);
        self.graph.set_deps(i, &rows);
        self.scratch_rows = rows;
        self.structure_version += 1;
    }

    /// Whether row `i` is `ancestor` or under it: a parent link that would close a cycle is
    /// refused, so every row stays reachable from a root (the tree counts on it).
    fn is_within(&self, i: usize, ancestor: usize) -> bool {
        let mut cur = Some(i);
        while let Some(c) = cur {
            if c == ancestor {
                return true;
            }
            cur = self.rows[c].parent;
        }
        false
    }

    /// Row `i` has a step running, or no longer.
    pub(super) fn set_running(&mut self, i: usize, running: bool) {
        if running {
            self.running.insert(i);
        } else {
            self.running.remove(&i);
        }
    }

    /// How many rows have a step running now.
    pub(super) fn running_count(&self) -> usize {
        self.running.len()
    }

    /// The rows that were running, now that the run stopped: they are running no more.
    pub(super) fn take_running(&mut self) -> Vec<usize> {
        self.running.drain().collect()
    }

    /// Rows of `status` now among `rows` (indexes of this table), in their order.
    pub(super) fn with_status<'a>(
        &'a self,
        rows: impl Iterator<Item = usize> + 'a,
        status: Status,
    ) -> impl Iterator<Item = &'a Resource> + 'a {
        rows.map(|i| &*self.rows[i])
            .filter(move |r| r.status == status)
    }
}
