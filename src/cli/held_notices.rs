//! Notices the command line gives before a deployment's display starts ("Created stack", a
//! broken stale lock): printed to standard error, or, when the console will show the run, held
//! for its Log, since the console's first repaint would wipe whatever standard error got.

use parking_lot::Mutex;

use stepdeck::engine::{EventSink, Severity};

/// `Some` once the console is chosen: the notices waiting for its Log.
static HELD: Mutex<Option<Vec<(Severity, String)>>> = Mutex::new(None);

/// From now on notices wait for the console's Log.
pub(super) fn hold() {
    *HELD.lock() = Some(Vec::new());
}

/// Gives a notice: held for the console, else printed (a warning with Pulumi's `warning: `).
pub(super) fn notice(severity: Severity, message: String) {
    let mut held = HELD.lock();
    match held.as_mut() {
        Some(queue) => queue.push((severity, message)),
        None if severity == Severity::Warning => eprintln!("warning: {message}"),
        None => eprintln!("{message}"),
    }
}

/// Sends the held notices to a deployment's events, where the console's Log shows them.
pub(super) fn release(sink: &EventSink) {
    let mut held = HELD.lock();
    if let Some(queue) = held.as_mut() {
        for (severity, message) in queue.drain(..) {
            sink.diag(None, severity, message);
        }
    }
}
