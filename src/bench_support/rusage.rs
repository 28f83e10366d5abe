//! Process and thread resource usage from `/proc` (Linux), for the harness's figures: peak
//! resident memory and CPU time, without a libc dependency.

use std::time::Duration;

/// CPU time and peak memory of this process so far.
#[derive(Clone, Copy, Debug, Default)]
pub struct Usage {
    pub user: Duration,
    pub system: Duration,
    /// CPU time (user + system) of children that have exited and been waited for: an SDK
    /// program's interpreter once its run is over.
    pub children: Duration,
    pub peak_rss_bytes: u64,
}

impl Usage {
    /// This process's usage now; zeros where `/proc` is unavailable.
    pub fn now() -> Usage {
        let [user, system, c_user, c_system] = cpu_times("/proc/self/stat").unwrap_or_default();
        Usage {
            user,
            system,
            children: c_user + c_system,
            peak_rss_bytes: peak_rss_bytes(),
        }
    }

    /// User plus system time.
    pub fn cpu(&self) -> Duration {
        self.user + self.system
    }
}

/// `VmHWM` of this process: its peak resident set size.
pub fn peak_rss_bytes() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map_or(0, |kb| kb * 1024)
}

/// CPU time (user + system) of the calling thread.
pub fn thread_cpu_time() -> Duration {
    cpu_times("/proc/thread-self/stat")
        .map(|[u, s, ..]| u + s)
        .unwrap_or_default()
}

/// utime, stime, cutime and cstime (fields 14 to 17) of a `stat` file, in clock ticks of
/// 1/100 s.
fn cpu_times(path: &str) -> Option<[Duration; 4]> {
    let stat = std::fs::read_to_string(path).ok()?;
    // The command name (field 2) may hold spaces; fields after it follow its `)`.
    let rest = &stat[stat.rfind(')')? + 2..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let tick = |i: usize| -> Option<Duration> {
        let t: u64 = fields.get(i)?.parse().ok()?;
        Some(Duration::from_millis(t * 10))
    };
    Some([tick(11)?, tick(12)?, tick(13)?, tick(14)?])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_this_process() {
        let u = Usage::now();
        assert!(u.peak_rss_bytes > 1024 * 1024, "{u:?}");
        let spin = std::time::Instant::now();
        while spin.elapsed() < Duration::from_millis(60) {}
        assert!(Usage::now().cpu() > Duration::ZERO);
    }
}
