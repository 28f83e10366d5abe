//! The served deployment's events, kept in order for every watcher: each reads from its own
//! position at its own pace, so a late joiner replays everything and the deployment never
//! waits for any of them.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use prost::Message;
use prost::bytes::Bytes;
use tokio::sync::watch;

use crate::engine::events::{CascadeId, EngineEvent};

use super::console_wire::to_wire;

/// The log of one deployment's events, each encoded once as the protocol carries it.
pub struct EventHub {
    log: Mutex<Log>,
    /// How many events the log holds, and whether the deployment ended.
    length: watch::Sender<(usize, bool)>,
    watchers: AtomicUsize,
}

#[derive(Default)]
struct Log {
    events: Vec<Bytes>,
    /// Each announced gate (cascade or step) by name, for who-did-what notes.
    roots: HashMap<CascadeId, String>,
}

impl EventHub {
    /// An empty log, shared by the tee that fills it and the watchers that read it.
    pub fn new() -> Arc<EventHub> {
        Arc::new(EventHub {
            log: Mutex::new(Log::default()),
            length: watch::channel((0, false)).0,
            watchers: AtomicUsize::new(0),
        })
    }

    fn log(&self) -> std::sync::MutexGuard<'_, Log> {
        self.log.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Appends one event (the served side calls this for every engine event it consumes).
    pub fn push(&self, e: &EngineEvent) {
        let wire = Bytes::from(to_wire(e).encode_to_vec());
        let len = {
            let mut log = self.log();
            match e {
                EngineEvent::PendingReplacement { cascade, root, .. } => {
                    log.roots
                        .insert(*cascade, format!("{} cascade", root.name()));
                }
                EngineEvent::GateOpened { gate, op, urn, .. } => {
                    log.roots
                        .insert(*gate, format!("{} of {}", op.as_str(), urn.name()));
                }
                _ => {}
            }
            log.events.push(wire);
            log.events.len()
        };
        self.length.send_replace((len, false));
    }

    /// The deployment ended: watchers get what is left and their streams close.
    pub fn close(&self) {
        let len = self.log().events.len();
        self.length.send_replace((len, true));
    }

    /// How an announced gate is named in notes: `db cascade`, `delete of db`.
    pub fn cascade_root(&self, cascade: CascadeId) -> Option<String> {
        self.log().roots.get(&cascade).cloned()
    }

    /// Up to `max` events from `from` on, waiting until there is one; `None` once the
    /// deployment ended and everything was read.
    pub async fn read(&self, from: usize, max: usize) -> Option<Vec<Bytes>> {
        let mut rx = self.length.subscribe();
        let (len, _) = *rx
            .wait_for(|(len, closed)| *len > from || *closed)
            .await
            .ok()?;
        if len <= from {
            return None;
        }
        let log = self.log();
        Some(log.events[from..len.min(from + max)].to_vec())
    }

    /// Waits until the first event was pushed (or the log closed empty).
    pub async fn started(&self) {
        let mut rx = self.length.subscribe();
        let _ = rx.wait_for(|(len, closed)| *len > 0 || *closed).await;
    }

    /// How many events the log holds.
    pub fn len(&self) -> usize {
        self.length.borrow().0
    }

    /// Whether nothing was pushed yet.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Counts a watcher in, unless `limit` are already watching.
    pub fn join(self: &Arc<Self>, limit: usize) -> Option<WatcherSlot> {
        self.watchers
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| {
                (n < limit).then_some(n + 1)
            })
            .ok()?;
        Some(WatcherSlot(self.clone()))
    }

    /// Watchers connected now.
    pub fn watchers(&self) -> usize {
        self.watchers.load(Ordering::SeqCst)
    }

    /// Waits (at most `grace`) until every watcher has read to the end and left, so the
    /// summary reaches them before the process exits.
    pub async fn drained(&self, grace: Duration) {
        let _ = tokio::time::timeout(grace, async {
            while self.watchers() > 0 {
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
        })
        .await;
    }
}

/// One watcher's place; leaving frees it.
pub struct WatcherSlot(Arc<EventHub>);

impl Drop for WatcherSlot {
    fn drop(&mut self) {
        self.0.watchers.fetch_sub(1, Ordering::SeqCst);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::events::EngineEvent;

    #[tokio::test]
    async fn a_reader_gets_what_was_pushed_before_and_after_it_came_and_the_end() {
        let hub = EventHub::new();
        hub.push(&EngineEvent::Paused);
        let reader = {
            let hub = hub.clone();
            tokio::spawn(async move {
                let mut got = 0;
                while let Some(batch) = hub.read(got, 2).await {
                    assert!(batch.len() <= 2);
                    got += batch.len();
                }
                got
            })
        };
        hub.push(&EngineEvent::Resumed);
        hub.push(&EngineEvent::Paused);
        hub.close();
        assert_eq!(reader.await.unwrap(), 3);
    }

    #[test]
    fn watchers_beyond_the_limit_are_refused_and_a_leaving_one_frees_its_place() {
        let hub = EventHub::new();
        let first = hub.join(1).expect("room for one");
        assert!(hub.join(1).is_none());
        drop(first);
        assert!(hub.join(1).is_some());
    }
}
