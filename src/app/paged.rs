//! A value per resource index, kept in pages allocated on their first write. A view that
//! places fifty rows of a million writes a few pages, where a plain vector would fault in and
//! zero megabytes before the first frame.

/// Values per index; an index never written reads as `T::default()`.
#[derive(Clone, Debug)]
pub struct Paged<T> {
    len: usize,
    pages: Vec<Option<Box<[T; PAGE]>>>,
}

const PAGE: usize = 1024;

impl<T> Default for Paged<T> {
    fn default() -> Self {
        Paged {
            len: 0,
            pages: Vec::new(),
        }
    }
}

impl<T: Copy + Default> Paged<T> {
    /// `len` indexes, none written.
    pub fn new(len: usize) -> Self {
        let mut paged = Paged::default();
        paged.resize(len);
        paged
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The value at `i`; the default when never written or past the end.
    pub fn get(&self, i: usize) -> T {
        match self.pages.get(i / PAGE) {
            Some(Some(page)) if i < self.len => page[i % PAGE],
            _ => T::default(),
        }
    }

    /// Writes the value at `i` (below `len`).
    pub fn set(&mut self, i: usize, value: T) {
        assert!(i < self.len, "index {i} past {} values", self.len);
        let page = self.pages[i / PAGE].get_or_insert_with(|| Box::new([T::default(); PAGE]));
        page[i % PAGE] = value;
    }

    /// Grows or shrinks to `len` indexes, keeping the values below both lengths.
    pub fn resize(&mut self, len: usize) {
        if len < self.len {
            let keep = len.div_ceil(PAGE);
            self.pages.truncate(keep);
            if let Some(Some(last)) = self.pages.last_mut() {
                last[len - (keep - 1) * PAGE..].fill(T::default());
            }
        }
        self.pages.resize(len.div_ceil(PAGE), None);
        self.len = len;
    }

    /// Forgets every value, keeping the length.
    pub fn clear(&mut self) {
        self.pages.fill(None);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_read_back_and_unwritten_ones_read_as_the_default() {
        let mut p: Paged<u32> = Paged::new(3 * PAGE + 5);
        assert_eq!(p.get(2 * PAGE + 7), 0);
        p.set(0, 1);
        p.set(2 * PAGE + 7, 2);
        p.set(3 * PAGE + 4, 3);
        assert_eq!(
            (p.get(0), p.get(2 * PAGE + 7), p.get(3 * PAGE + 4)),
            (1, 2, 3)
        );
        assert_eq!(
            p.pages.iter().flatten().count(),
            3,
            "one page per page written"
        );
        assert_eq!(p.get(3 * PAGE + 5), 0, "past the end");

        p.resize(2 * PAGE + 7);
        assert_eq!(
            (p.len(), p.get(0), p.get(2 * PAGE + 7)),
            (2 * PAGE + 7, 1, 0)
        );
        p.resize(3 * PAGE);
        assert_eq!(
            p.get(2 * PAGE + 7),
            0,
            "a value cut off by a shrink stays gone"
        );
        p.set(3 * PAGE - 1, 4);
        assert_eq!(p.get(3 * PAGE - 1), 4);

        p.clear();
        assert_eq!((p.len(), p.get(0), p.get(3 * PAGE - 1)), (3 * PAGE, 0, 0));
    }

    #[test]
    #[should_panic(expected = "past")]
    fn a_write_past_the_end_is_refused() {
        Paged::<u32>::new(10).set(10, 1);
    }
}
