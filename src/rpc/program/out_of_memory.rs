//! Node.js dying of an exhausted heap, recognised in its stderr as Pulumi's Node.js language
//! host recognises it (`oomSniffer` of `pulumi-language-nodejs`), so that the failure says what
//! to change rather than only an exit code.

use std::sync::atomic::{AtomicBool, Ordering};

/// What Pulumi's Node.js host appends to a failed exit after an out-of-memory death.
pub(super) const OUT_OF_MEMORY_ADVICE: &str = "Detected a possible out of memory error. Consider increasing the memory available to the nodejs process by setting the `nodeargs` runtime option in Pulumi.yaml to `nodeargs: --max-old-space-size=<size>` where `<size>` is the maximum memory in megabytes that can be allocated to nodejs. See https://www.pulumi.com/docs/concepts/projects/project-file/#runtime-options";

/// The lines V8 prints when it runs out of heap: its usual report, and the debugger assertion
/// that can replace it while an inspector hook is active (pulumi/pulumi#16596).
const MARKERS: [&str; 2] = [
    "<--- Last few GCs --->",
    "Check failed: needs_context && current_scope_ == closure_scope_",
];

/// Watches a Node.js program's stderr lines for an out-of-memory report.
#[derive(Debug, Default)]
pub(super) struct OutOfMemory(AtomicBool);

impl OutOfMemory {
    /// Notes one line of stderr.
    pub(super) fn observe(&self, line: &str) {
        if MARKERS.iter().any(|m| line.contains(m)) {
            self.0.store(true, Ordering::Relaxed);
        }
    }

    /// Whether any line so far reported an exhausted heap.
    pub(super) fn detected(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_heap_report_or_the_debugger_assertion_is_an_out_of_memory_death() {
        for line in [
            "<--- Last few GCs --->",
            "# Check failed: needs_context && current_scope_ == closure_scope_.",
        ] {
            let oom = OutOfMemory::default();
            oom.observe("used: 12.5, limit: 2096");
            assert!(!oom.detected());
            oom.observe(line);
            oom.observe("FATAL ERROR: Reached heap limit");
            assert!(oom.detected(), "{line}");
        }
    }
}
