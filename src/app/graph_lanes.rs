//! Lanes for the graph's edges between two adjacent layers. Each node takes two rows: its label,
//! and below it a row private to its outgoing edges. An edge leaves its source on that row, runs
//! down or up a vertical lane of its own, and reaches its target on the target's label row. Two
//! edges share a lane only when their vertical spans are disjoint, so no vertical segment is
//! shared, and a row carries only one source's or one target's horizontal line: wherever two
//! unrelated edges meet they cross (`┼`), never join.

use std::cmp::Reverse;
use std::collections::{BTreeSet, BinaryHeap};

/// One routed edge in a gutter, rows in the graph's drawing rows (two per node).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RoutedEdge {
    /// Resource index of the dependency (left).
    pub source: usize,
    /// Resource index of the dependent (right).
    pub target: usize,
    /// Drawing row the edge leaves its source on (below the source's label).
    pub out_row: usize,
    /// Drawing row of the target's label, where the edge arrives.
    pub in_row: usize,
    /// Lane in the gutter, 0 nearest the sources.
    pub lane: usize,
}

impl RoutedEdge {
    /// The rows the edge's vertical segment spans, inclusive.
    pub fn span(&self) -> (usize, usize) {
        (self.out_row.min(self.in_row), self.out_row.max(self.in_row))
    }
}

/// The edges between one layer and the next, with as many lanes as overlapping spans need.
#[derive(Clone, Debug, Default)]
pub struct Gutter {
    /// Edges ordered by the top of their span.
    pub edges: Vec<RoutedEdge>,
    /// Lanes used.
    pub lanes: usize,
    /// The longest span, so that a viewport finds its edges by binary search.
    longest: usize,
}

impl Gutter {
    /// Assigns lanes to edges given as (source, source row, target, target row), rows in layout
    /// rows (one per node): the fewest lanes (interval partitioning), each the lowest one free.
    pub fn route(edges: impl IntoIterator<Item = (usize, usize, usize, usize)>) -> Gutter {
        let mut edges: Vec<RoutedEdge> = edges
            .into_iter()
            .map(|(source, rs, target, rt)| RoutedEdge {
                source,
                target,
                out_row: 2 * rs + 1,
                in_row: 2 * rt,
                lane: 0,
            })
            .collect();
        edges.sort_by_key(|e| (e.span(), e.source, e.target));
        let mut busy: BinaryHeap<Reverse<(usize, usize)>> = BinaryHeap::new();
        let mut free: BTreeSet<usize> = BTreeSet::new();
        let mut lanes = 0;
        let mut longest = 0;
        for e in &mut edges {
            let (lo, hi) = e.span();
            while let Some(&Reverse((end, lane))) = busy.peek() {
                if end >= lo {
                    break;
                }
                busy.pop();
                free.insert(lane);
            }
            e.lane = free.pop_first().unwrap_or_else(|| {
                lanes += 1;
                lanes - 1
            });
            busy.push(Reverse((hi, e.lane)));
            longest = longest.max(hi - lo);
        }
        Gutter {
            edges,
            lanes,
            longest,
        }
    }

    /// The edges whose vertical span meets drawing rows `top..bottom`.
    pub fn visible(&self, top: usize, bottom: usize) -> impl Iterator<Item = &RoutedEdge> {
        let first = self
            .edges
            .partition_point(|e| e.span().0 + self.longest < top);
        let last = self.edges.partition_point(|e| e.span().0 < bottom);
        self.edges[first..last.max(first)]
            .iter()
            .filter(move |e| e.span().1 >= top)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overlapping_spans_get_their_own_lanes_and_disjoint_ones_share() {
        // Rows: 0→1 spans 1..2, 1→0 spans 0..3, 3→3 spans 6..7.
        let g = Gutter::route([(10, 0, 11, 1), (12, 1, 13, 0), (14, 3, 15, 3)]);
        assert_eq!(g.lanes, 2);
        let lane = |s| g.edges.iter().find(|e| e.source == s).unwrap().lane;
        assert_ne!(lane(10), lane(12));
        assert_eq!(lane(14), 0);
        let seen: Vec<usize> = g.visible(4, 8).map(|e| e.source).collect();
        assert_eq!(seen, [14]);
        let seen: Vec<usize> = g.visible(3, 4).map(|e| e.source).collect();
        assert_eq!(seen, [12]);
    }
}
