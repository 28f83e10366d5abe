//! How many file descriptors the process may still open, so that a server of ours stops
//! taking connections well before the deployment it serves would run out (its journal, its
//! plugins' pipes and sockets, its program's connections).

use std::io;

/// The share of the descriptor limit kept for the deployment (a quarter), and the fewest
/// descriptors kept under a small limit: a server holds a new connection only while this many
/// are free.
const KEPT_FREE_SHARE: u64 = 4;
const KEPT_FREE_AT_LEAST: u64 = 32;

/// Whether a quarter of the process's descriptor limit (`RLIMIT_NOFILE`, soft), and at least
/// 32, are free. Counting reads `/proc/self/fd`; where that cannot be read for another reason
/// than running out of descriptors, the answer is yes (the server's own caps still hold).
pub(crate) fn plenty_free() -> bool {
    let Some(limit) = soft_limit() else {
        return true;
    };
    let kept = (limit / KEPT_FREE_SHARE).max(KEPT_FREE_AT_LEAST);
    match open_count() {
        Ok(open) => open.saturating_add(kept) <= limit,
        Err(e) => !out_of_descriptors(&e),
    }
}

/// The soft descriptor limit; `None` when unlimited or unknown.
fn soft_limit() -> Option<u64> {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes one rlimit into the struct we own.
    let got = unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) };
    (got == 0 && limit.rlim_cur != libc::RLIM_INFINITY).then_some(limit.rlim_cur)
}

/// Descriptors open in this process (the one used to count them excluded).
fn open_count() -> io::Result<u64> {
    let entries = std::fs::read_dir("/proc/self/fd")?.count() as u64;
    Ok(entries.saturating_sub(1))
}

/// Whether `e` says the process (or the system) has no descriptor left.
pub(crate) fn out_of_descriptors(e: &io::Error) -> bool {
    matches!(e.raw_os_error(), Some(libc::EMFILE | libc::ENFILE))
}
