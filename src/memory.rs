//! How this process takes memory from the kernel.

/// Turns transparent huge pages off for this process (and the processes it starts, which
/// inherit the flag). The allocator asks for huge pages on its large regions; each first touch
/// of one then has the kernel zero 2 MiB at once, which measured slower here than pages of 4 KiB:
/// the checkpoint's load in a no-op up of 100,000 took 0.49–0.57 s without them against
/// 0.73–0.95 s with, and a preview of a million spent 2 s less in the kernel (BENCHMARKS.md).
/// Called first thing by the binary and the scale harness, so their figures agree.
pub fn without_huge_pages() {
    // SAFETY: `PR_SET_THP_DISABLE` only sets a flag of this process; no memory is passed.
    let _ = unsafe { libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0) };
}

/// Frees `value` on a thread of its own, so nobody waits for it: freeing the 100,000 states of
/// a final snapshot takes about 0.17 s here, at the end of a run that has nothing left to do
/// with them. If the process exits first, the kernel takes the memory back all the same.
pub fn free_in_background<T: Send + 'static>(value: T) {
    // Should no thread start, the closure is dropped here, and the value with it.
    let _ = std::thread::Builder::new()
        .name("free".into())
        .spawn(move || drop(value));
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Says on which thread it was dropped.
    struct Tell(std::sync::mpsc::Sender<std::thread::ThreadId>);

    impl Drop for Tell {
        fn drop(&mut self) {
            let _ = self.0.send(std::thread::current().id());
        }
    }

    #[test]
    fn a_value_freed_in_the_background_is_dropped_on_another_thread() {
        let (tx, rx) = std::sync::mpsc::channel();
        free_in_background(Tell(tx));
        let on = rx
            .recv_timeout(std::time::Duration::from_secs(10))
            .expect("dropped");
        assert_ne!(on, std::thread::current().id());
    }

    #[test]
    fn the_kernel_reports_huge_pages_off() {
        without_huge_pages();
        // SAFETY: `PR_GET_THP_DISABLE` only reads a flag of this process.
        let disabled = unsafe { libc::prctl(libc::PR_GET_THP_DISABLE, 0, 0, 0, 0) };
        assert_eq!(disabled, 1);
    }
}
