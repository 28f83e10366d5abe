//! One scrolling position, the same for every view that scrolls: where its rows start on
//! screen (and, in a list, the row under the cursor), clamped to how many rows there are and
//! how many fit, learned each time the view is drawn. Keys move it by rows, pages, or to
//! either end; a log-like view follows its end as rows arrive until scrolled back.

use std::ops::Range;

/// A move the operator asks of the focused view (keys and the mouse wheel).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Move {
    /// Rows up (negative) or down.
    Rows(isize),
    /// Pages up (negative) or down.
    Pages(isize),
    Home,
    End,
}

impl Move {
    /// Where position `at` goes among `len` positions, `page` positions to a page move.
    pub fn from(self, at: usize, len: usize, page: usize) -> usize {
        let last = len.saturating_sub(1);
        let by = |delta: isize| at.saturating_add_signed(delta).min(last);
        match self {
            Move::Rows(n) => by(n),
            Move::Pages(n) => by(n.saturating_mul(isize::try_from(page).unwrap_or(isize::MAX))),
            Move::Home => 0,
            Move::End => last,
        }
    }
}

/// How a view moves through its rows.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Kind {
    /// Moves move the first row shown (the summary, help, details, diffs).
    #[default]
    Pager,
    /// Moves move a cursor over the rows; the rows shown follow it (chains, pending).
    List,
    /// A pager that stays at its end as rows arrive until scrolled back, and follows again
    /// once back at the end (the log).
    Tail,
}

/// A view's scrolling position; see the module documentation.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Scroll {
    kind: Kind,
    /// The first row shown.
    offset: usize,
    /// The row under the cursor (lists only).
    cursor: usize,
    /// Rows in all, as last learned.
    len: usize,
    /// Rows in view at the last draw (0 before the first).
    page: usize,
    /// A tail at its end, following new rows.
    following: bool,
}

impl Scroll {
    /// A pager: moves move the first row shown.
    pub fn pager() -> Scroll {
        Scroll::default()
    }

    /// A list: moves move the cursor, and the rows shown follow it.
    pub fn list() -> Scroll {
        Scroll {
            kind: Kind::List,
            ..Scroll::default()
        }
    }

    /// A pager that follows its end as rows arrive (until scrolled back).
    pub fn tail() -> Scroll {
        Scroll {
            kind: Kind::Tail,
            following: true,
            ..Scroll::default()
        }
    }

    /// The first row shown.
    pub fn offset(&self) -> usize {
        self.offset
    }

    /// The row under the cursor (0 for a pager).
    pub fn cursor(&self) -> usize {
        self.cursor
    }

    /// Whether a tail is at its end, following new rows.
    pub fn following(&self) -> bool {
        self.following
    }

    /// Rows a page move goes: a page less one row, kept in view for context.
    pub fn page_step(&self) -> usize {
        self.page.saturating_sub(1).max(1)
    }

    /// Learns, as the view is drawn, how many rows there are and how many fit; clamps.
    pub fn fit(&mut self, len: usize, page: usize) {
        self.page = page;
        self.set_len(len);
    }

    /// Learns how many rows there are now (rows came or went); clamps: the cursor onto a
    /// row and into view, no page past the last row, a following tail at the end.
    pub fn set_len(&mut self, len: usize) {
        self.len = len;
        self.cursor = self.cursor.min(len.saturating_sub(1));
        if self.following {
            self.offset = self.last_offset();
        }
        match self.kind {
            Kind::List => self.reveal(self.cursor..self.cursor + 1),
            Kind::Pager | Kind::Tail => self.offset = self.offset.min(self.last_offset()),
        }
    }

    /// Scrolls as little as needed for `rows` (no more than a page) to be in view.
    pub fn reveal(&mut self, rows: Range<usize>) {
        let page = self.page.max(1);
        if rows.start < self.offset {
            self.offset = rows.start;
        } else if rows.end > self.offset + page {
            self.offset = rows.end - page;
        }
        self.offset = self.offset.min(self.last_offset());
    }

    /// Moves as the operator asked: the cursor of a list, the first row of a pager. A tail
    /// moved to its end follows again; moved back, it stays where it was put.
    pub fn go(&mut self, to: Move) {
        let page = self.page_step();
        match self.kind {
            Kind::List => {
                self.cursor = to.from(self.cursor, self.len, page);
                self.reveal(self.cursor..self.cursor + 1);
            }
            Kind::Pager | Kind::Tail => {
                let last = self.last_offset();
                self.offset = to.from(self.offset, last + 1, page);
                self.following = self.kind == Kind::Tail && self.offset == last;
            }
        }
    }

    /// A tail follows its newest rows from its end, or holds the rows shown where they are.
    pub fn set_following(&mut self, follow: bool) {
        if follow {
            self.go(Move::End);
        } else {
            self.following = false;
        }
    }

    /// Holds a tail (or pager) with `row` first in view, as far as the rows after it allow.
    pub fn hold_at(&mut self, row: usize) {
        self.following = false;
        self.offset = row.min(self.last_offset());
    }

    /// The furthest the first row goes: the last page ends at the last row.
    fn last_offset(&self) -> usize {
        self.len.saturating_sub(self.page.max(1))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fitted(mut s: Scroll, len: usize, page: usize) -> Scroll {
        s.fit(len, page);
        s
    }

    #[test]
    fn a_pager_stops_with_its_last_row_at_the_bottom() {
        let mut s = fitted(Scroll::pager(), 30, 10);
        s.go(Move::End);
        assert_eq!(s.offset(), 20, "rows 20 to 29 fill the page");
        s.go(Move::Rows(5));
        assert_eq!(s.offset(), 20);
        s.go(Move::Home);
        s.go(Move::Rows(-1));
        assert_eq!(s.offset(), 0);
        let mut short = fitted(Scroll::pager(), 4, 10);
        short.go(Move::End);
        assert_eq!(short.offset(), 0, "what fits does not scroll");
    }

    #[test]
    fn a_page_move_keeps_one_row_of_context() {
        let mut s = fitted(Scroll::pager(), 100, 10);
        s.go(Move::Pages(1));
        assert_eq!(s.offset(), 9);
        s.go(Move::Pages(2));
        assert_eq!(s.offset(), 27);
        s.go(Move::Pages(-1));
        assert_eq!(s.offset(), 18);
        s.go(Move::Pages(-5));
        assert_eq!(s.offset(), 0);
        let mut unseen = Scroll::list();
        unseen.set_len(5);
        unseen.go(Move::Pages(1));
        assert_eq!(unseen.cursor(), 1, "before the first draw a page is a row");
    }

    #[test]
    fn a_list_cursor_stays_on_a_row_and_in_view() {
        let mut s = fitted(Scroll::list(), 50, 10);
        s.go(Move::Rows(12));
        assert_eq!(
            (s.cursor(), s.offset()),
            (12, 3),
            "the cursor on the bottom row"
        );
        s.go(Move::Rows(-5));
        assert_eq!(
            (s.cursor(), s.offset()),
            (7, 3),
            "inside the page: no scroll"
        );
        s.go(Move::Rows(-5));
        assert_eq!((s.cursor(), s.offset()), (2, 2), "on the top row");
        s.go(Move::End);
        assert_eq!((s.cursor(), s.offset()), (49, 40));
        s.go(Move::Rows(3));
        assert_eq!(s.cursor(), 49);
        s.go(Move::Home);
        assert_eq!((s.cursor(), s.offset()), (0, 0));
        let mut empty = fitted(Scroll::list(), 0, 10);
        empty.go(Move::Rows(1));
        assert_eq!((empty.cursor(), empty.offset()), (0, 0));
    }

    #[test]
    fn rows_going_away_under_the_cursor_leave_it_on_the_last_one() {
        let mut list = fitted(Scroll::list(), 50, 10);
        list.go(Move::Rows(45));
        list.set_len(20);
        assert_eq!((list.cursor(), list.offset()), (19, 10));
        list.set_len(0);
        assert_eq!((list.cursor(), list.offset()), (0, 0));

        let mut pager = fitted(Scroll::pager(), 50, 10);
        pager.go(Move::End);
        pager.fit(15, 10);
        assert_eq!(pager.offset(), 5, "no page past the last row");
        pager.fit(15, 20);
        assert_eq!(pager.offset(), 0, "a taller view shows them all");
    }

    #[test]
    fn a_tail_follows_new_rows_until_scrolled_back_and_again_from_its_end() {
        let mut s = fitted(Scroll::tail(), 5, 10);
        assert!(s.following());
        s.fit(25, 10);
        assert_eq!(s.offset(), 15, "the newest rows in view");
        s.go(Move::Rows(-3));
        assert!(!s.following());
        s.fit(40, 10);
        assert_eq!(s.offset(), 12, "scrolled back, the rows shown stay put");
        s.go(Move::Home);
        assert_eq!(s.offset(), 0, "the oldest rows, not an empty page");
        s.go(Move::Pages(1));
        assert_eq!(s.offset(), 9);
        s.go(Move::End);
        assert!(s.following());
        s.fit(50, 10);
        assert_eq!(s.offset(), 40);
    }

    #[test]
    fn a_tail_held_stays_put_and_following_again_goes_to_its_end() {
        let mut s = fitted(Scroll::tail(), 30, 10);
        s.set_following(false);
        assert!(!s.following());
        s.fit(50, 10);
        assert_eq!(s.offset(), 20, "held where the newest rows were");
        s.set_following(true);
        assert_eq!((s.following(), s.offset()), (true, 40));
        s.hold_at(5);
        assert_eq!((s.following(), s.offset()), (false, 5));
        s.hold_at(48);
        assert_eq!(s.offset(), 40, "no page past the last row");
    }

    #[test]
    fn reveal_scrolls_only_as_far_as_needed() {
        let mut s = fitted(Scroll::pager(), 100, 10);
        s.reveal(30..32);
        assert_eq!(s.offset(), 22, "the rows at the bottom");
        s.reveal(25..27);
        assert_eq!(s.offset(), 22, "already in view");
        s.reveal(5..6);
        assert_eq!(s.offset(), 5, "at the top");
        s.reveal(99..100);
        assert_eq!(s.offset(), 90);
    }

    #[test]
    fn a_move_lands_on_a_position_that_exists() {
        assert_eq!(Move::Rows(-3).from(1, 10, 5), 0);
        assert_eq!(Move::Rows(isize::MAX).from(1, 10, 5), 9);
        assert_eq!(Move::Pages(isize::MIN).from(8, 10, 5), 0);
        assert_eq!(Move::Pages(2).from(0, 10, 3), 6);
        assert_eq!(Move::End.from(0, 0, 5), 0);
    }
}
