//! The served deployment's events, kept in order for every watcher: each reads from its own
//! position at its own pace, so a late joiner replays the run and the deployment never waits
//! for any of them.
//!
//! Events are kept as the protocol carries them, each encoded once and preceded by its
//! length, one after another in a few large buffers: a watcher's reply copies a stretch of the
//! log (a run) at once instead of gathering thousands of small buffers, whose reading and
//! reference counting were most of what serving cost.
//!
//! The hub keeps what a console's model keeps, not every event: an ephemeral note (a status
//! line that the model shows only until the next message on the same resource) is dropped
//! once a later event overwrites it, so a chatty program does not grow the log. Everything
//! else changes the model and stays, so a late joiner rebuilds exactly the local console's
//! model.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::time::{Duration, Instant};

use prost::Message;
use prost::bytes::{Bytes, BytesMut};
use tokio::sync::watch;

use crate::engine::model::urn::{UrnMap, UrnSet};
use crate::engine::run::events::CascadeId;
use crate::engine::{EngineEvent, Urn};

use super::names::NameTable;
use super::wire::to_wire;

/// The log of one deployment's events, each encoded once as the protocol carries it.
pub struct EventHub {
    log: Mutex<Log>,
    /// The names events refer to, numbered as first pushed; held by the pusher from encoding
    /// to the log, so that the log's names and its events stay in the same order.
    names: Mutex<NameTable>,
    /// The position after the last event pushed, and whether the deployment ended.
    length: watch::Sender<(u64, bool)>,
    watchers: AtomicUsize,
    /// When the first event was pushed: each event is stamped with the time since, so that a
    /// late watcher counts what was running from when it began.
    origin: OnceLock<Instant>,
}

/// Consecutive live events read from the hub.
pub struct Batch {
    /// The position of the first.
    pub first: u64,
    /// The position to read from next (events superseded in between are left out).
    pub next: u64,
    /// The events in runs: each run holds events one after another, each preceded by its
    /// length (a varint), as `console_wire::frames` reads them.
    pub runs: Vec<Bytes>,
    /// How many events the runs hold.
    pub count: usize,
    /// The number of the first name in `names`.
    pub names_first: u64,
    /// The names numbered since the reader's last batch, which its events may refer to.
    pub names: Vec<Arc<str>>,
}

/// Buffers the log's frames are appended to are at least this large.
const SEGMENT: usize = 64 * 1024;

/// Where an event's frame is.
enum Frame {
    /// In the log's buffers, at this offset (counted from the first byte ever appended).
    Kept { offset: u64, len: usize },
    /// An ephemeral note, in a buffer of its own so that it is freed once superseded (emptied
    /// then); chatty programs send thousands of them.
    Note(Bytes),
}

#[derive(Default)]
struct Log {
    /// Live events with their positions, ascending; a superseded one is emptied, and the
    /// emptied ones are removed once they are half of the log.
    events: Vec<(u64, Frame)>,
    /// The frames of every kept event, in order: frozen segments (with the offset of each
    /// one's first byte) and the tail still being appended to, frozen when a watcher reads.
    segments: Vec<(u64, Bytes)>,
    tail: BytesMut,
    tail_offset: u64,
    /// The position the next event gets.
    next: u64,
    /// Every name the events refer to, in the order they are numbered.
    names: Vec<Arc<str>>,
    emptied: usize,
    /// Resources that have a row in every model (registered or planned).
    rows: UrnSet,
    /// The position of the latest ephemeral note per resource (`None`: on no resource) that
    /// a later message may supersede.
    notes: HashMap<Option<Urn>, u64>,
    /// Each failed resource's error: a note repeating it changes nothing in a model.
    errors: UrnMap<String>,
    /// Each announced gate (cascade or step) by name, for who-did-what notes.
    roots: HashMap<CascadeId, String>,
}

/// The gate `e` announces and how notes name it (`db cascade`, `delete of db`): one naming
/// for the hub's who-did-what notes and the tee's approval timeout.
pub(crate) fn announced_gate(e: &EngineEvent) -> Option<(CascadeId, String)> {
    match e {
        EngineEvent::PendingReplacement { cascade, root, .. } => {
            Some((*cascade, format!("{} cascade", root.name())))
        }
        EngineEvent::GateOpened { gate, op, urn, .. } => {
            Some((*gate, format!("{} of {}", op.as_str(), urn.name())))
        }
        _ => None,
    }
}

impl Log {
    /// Records what `e` supersedes and whether `e` itself may be superseded later.
    fn account(&mut self, e: &EngineEvent, at: u64) {
        match e {
            EngineEvent::RegistrationReceived { urn, .. } => {
                self.rows.insert(urn.clone());
            }
            EngineEvent::StepPlanned(info) => {
                self.rows.insert(info.urn.clone());
            }
            EngineEvent::PendingReplacement { .. } | EngineEvent::GateOpened { .. } => {
                if let Some((gate, name)) = announced_gate(e) {
                    self.roots.insert(gate, name);
                }
            }
            EngineEvent::Diagnostic {
                urn,
                message,
                ephemeral,
                ..
            } => {
                // A note repeating a step's error leaves the row's message as it was.
                let repeat = urn
                    .as_ref()
                    .is_some_and(|u| self.errors.get(u) == Some(message));
                if repeat {
                    return;
                }
                let overwritten = self.notes.remove(urn);
                // A note on a row that may not exist yet creates it: it must stay.
                let supersedable = urn.as_ref().is_none_or(|u| self.rows.contains(u));
                if *ephemeral && supersedable {
                    self.notes.insert(urn.clone(), at);
                }
                if let Some(p) = overwritten {
                    self.empty(p);
                }
            }
            EngineEvent::StepFailed { urn, error, .. } => {
                self.errors.insert(urn.clone(), error.clone());
                self.overwrite(urn);
            }
            EngineEvent::StepSkipped { urn, .. } => self.overwrite(urn),
            _ => {}
        }
    }

    /// A later event set `urn`'s message: its pending note no longer shows anywhere.
    fn overwrite(&mut self, urn: &Urn) {
        if let Some(p) = self.notes.remove(&Some(urn.clone())) {
            self.empty(p);
        }
    }

    fn empty(&mut self, at: u64) {
        if let Ok(i) = self.events.binary_search_by_key(&at, |(p, _)| *p)
            && let Frame::Note(note) = &mut self.events[i].1
        {
            *note = Bytes::new();
            self.emptied += 1;
        }
        if self.emptied > 64 && self.emptied * 2 > self.events.len() {
            self.events
                .retain(|(_, f)| !matches!(f, Frame::Note(n) if n.is_empty()));
            self.emptied = 0;
        }
    }

    /// Appends `e`, whose frame (its length, then its encoding) is `frame`.
    fn push(&mut self, e: &EngineEvent, frame: &[u8]) {
        let at = self.next;
        self.next += 1;
        let stored = if matches!(
            e,
            EngineEvent::Diagnostic {
                ephemeral: true,
                ..
            }
        ) {
            Frame::Note(Bytes::copy_from_slice(frame))
        } else {
            if self.tail.capacity() - self.tail.len() < frame.len() {
                self.tail.reserve(frame.len().max(SEGMENT));
            }
            let offset = self.tail_offset + self.tail.len() as u64;
            self.tail.extend_from_slice(frame);
            Frame::Kept {
                offset,
                len: frame.len(),
            }
        };
        self.events.push((at, stored));
        self.account(e, at);
    }

    /// The segment holding the frozen byte at `offset`: its first byte's offset and it.
    fn segment(&self, offset: u64) -> &(u64, Bytes) {
        &self.segments[self.segments.partition_point(|(start, _)| *start <= offset) - 1]
    }

    /// Makes what was appended so far readable.
    fn freeze(&mut self) {
        if !self.tail.is_empty() {
            let segment = self.tail.split().freeze();
            let len = segment.len() as u64;
            self.segments.push((self.tail_offset, segment));
            self.tail_offset += len;
        }
    }

    /// Live events from `from` on, at most `max` of them or about `max_bytes`, with the names
    /// from number `named` on.
    fn read(&mut self, from: u64, max: usize, max_bytes: usize, named: usize) -> Batch {
        self.freeze();
        let start = self.events.partition_point(|(p, _)| *p < from);
        let mut batch = Batch {
            first: from,
            next: from,
            runs: Vec::new(),
            count: 0,
            names_first: named as u64,
            names: self.names.get(named..).unwrap_or_default().to_vec(),
        };
        let mut bytes = 0;
        let mut run = Run::default();
        for (p, frame) in &self.events[start..] {
            if batch.count >= max || (bytes >= max_bytes && batch.count > 0) {
                break;
            }
            batch.next = p + 1;
            let len = match frame {
                Frame::Note(note) if note.is_empty() => continue,
                Frame::Note(note) => {
                    run.close(&mut batch.runs);
                    batch.runs.push(note.clone());
                    note.len()
                }
                Frame::Kept { offset, len } => {
                    let (offset, len) = (*offset, *len);
                    if !run.extends_to(offset, len) {
                        run.close(&mut batch.runs);
                        run = Run::at(self.segment(offset), offset, len);
                    }
                    len
                }
            };
            if batch.count == 0 {
                batch.first = *p;
            }
            batch.count += 1;
            bytes += len;
        }
        run.close(&mut batch.runs);
        batch
    }
}

/// Kept frames one after another in one segment, gathered into one run of a batch.
#[derive(Default)]
struct Run {
    segment: Bytes,
    /// The offsets of the segment's first byte, of the run's first byte and of the byte after
    /// its last.
    segment_start: u64,
    start: u64,
    end: u64,
}

impl Run {
    fn at((segment_start, segment): &(u64, Bytes), offset: u64, len: usize) -> Run {
        Run {
            segment: segment.clone(),
            segment_start: *segment_start,
            start: offset,
            end: offset + len as u64,
        }
    }

    /// Takes the frame at `offset` in if it follows the run in the same segment.
    fn extends_to(&mut self, offset: u64, len: usize) -> bool {
        let end = offset + len as u64;
        let fits = !self.segment.is_empty()
            && offset == self.end
            && end <= self.segment_start + self.segment.len() as u64;
        if fits {
            self.end = end;
        }
        fits
    }

    fn close(&mut self, runs: &mut Vec<Bytes>) {
        let run = std::mem::take(self);
        if run.end > run.start {
            let at = (run.start - run.segment_start) as usize;
            runs.push(run.segment.slice(at..at + (run.end - run.start) as usize));
        }
    }
}

impl EventHub {
    /// An empty log, shared by the tee that fills it and the watchers that read it.
    pub fn new() -> Arc<EventHub> {
        Arc::new(EventHub {
            log: Mutex::new(Log::default()),
            names: Mutex::new(NameTable::default()),
            length: watch::channel((0, false)).0,
            watchers: AtomicUsize::new(0),
            origin: OnceLock::new(),
        })
    }

    fn log(&self) -> std::sync::MutexGuard<'_, Log> {
        self.log.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Appends one event (the served side calls this for every engine event it consumes).
    pub fn push(&self, e: &EngineEvent) {
        self.push_all(std::slice::from_ref(e));
    }

    /// Appends events in order, encoding each once outside the log's lock and waking the
    /// watchers once for all of them.
    pub fn push_all(&self, events: &[EngineEvent]) {
        let mut names = self.names.lock().unwrap_or_else(PoisonError::into_inner);
        let named = names.len();
        let mut frames = Vec::with_capacity(events.len() * 64);
        let mut ends = Vec::with_capacity(events.len());
        let at_ms = self.origin.get_or_init(Instant::now).elapsed().as_millis();
        for e in events {
            let mut wire = to_wire(e, &mut names);
            wire.at_ms = u64::try_from(at_ms).unwrap_or(u64::MAX);
            // A `Vec` grows as needed: encoding into it cannot fail.
            let _ = wire.encode_length_delimited(&mut frames);
            ends.push(frames.len());
        }
        let next = {
            let mut log = self.log();
            log.names.extend_from_slice(names.since(named));
            let mut start = 0;
            for (e, end) in events.iter().zip(ends) {
                log.push(e, &frames[start..end]);
                start = end;
            }
            log.next
        };
        drop(names);
        self.length.send_replace((next, false));
    }

    /// The deployment ended: watchers get what is left and their streams close.
    pub fn close(&self) {
        let next = self.log().next;
        self.length.send_replace((next, true));
    }

    /// How an announced gate is named in notes: `db cascade`, `delete of db`.
    pub fn cascade_root(&self, cascade: CascadeId) -> Option<String> {
        self.log().roots.get(&cascade).cloned()
    }

    /// Live events from `from` on (at most `max`, or about `max_bytes` unless one is larger),
    /// with the names numbered from `named` on, waiting until there is one; `None` once the
    /// deployment ended and everything was read.
    pub async fn read(
        &self,
        mut from: u64,
        max: usize,
        max_bytes: usize,
        named: usize,
    ) -> Option<Batch> {
        let mut rx = self.length.subscribe();
        loop {
            let (end, _) = *rx
                .wait_for(|(end, closed)| *end > from || *closed)
                .await
                .ok()?;
            if end <= from {
                return None;
            }
            let batch = self.log().read(from, max, max_bytes, named);
            if batch.count > 0 {
                return Some(batch);
            }
            // Everything up to `end` was superseded.
            from = batch.next.max(from);
        }
    }

    /// Waits until the first event was pushed (or the log closed empty).
    pub async fn started(&self) {
        let mut rx = self.length.subscribe();
        let _ = rx.wait_for(|(end, closed)| *end > 0 || *closed).await;
    }

    /// Time since the first event was pushed: the clock events are stamped on.
    pub fn elapsed(&self) -> Duration {
        self.origin.get().map_or(Duration::ZERO, Instant::elapsed)
    }

    /// The position after the last event pushed.
    pub fn end(&self) -> u64 {
        self.length.borrow().0
    }

    /// How many events the log holds now (superseded notes left out).
    pub fn held(&self) -> usize {
        let log = self.log();
        log.events.len() - log.emptied
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
    use crate::engine::EngineEvent;
    use crate::rpc::console::names::KnownNames;
    use crate::rpc::console::wire::frames;

    #[tokio::test]
    async fn a_reader_gets_what_was_pushed_before_and_after_it_came_and_the_end() {
        let hub = EventHub::new();
        hub.push(&EngineEvent::Paused);
        let reader = {
            let hub = hub.clone();
            tokio::spawn(async move {
                let (mut got, mut from) = (0, 0);
                while let Some(batch) = hub.read(from, 2, 1 << 20, 0).await {
                    assert!(batch.count <= 2);
                    got += batch.count;
                    from = batch.next;
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

    fn note(urn: Option<&Urn>, message: &str, ephemeral: bool) -> EngineEvent {
        EngineEvent::Diagnostic {
            urn: urn.cloned(),
            severity: crate::engine::Severity::Info,
            message: message.into(),
            ephemeral,
        }
    }

    fn registered(urn: &Urn) -> EngineEvent {
        EngineEvent::RegistrationReceived {
            urn: urn.clone(),
            type_: urn.type_().to_string(),
            parent: None,
            custom: true,
            dependencies: Arc::default(),
        }
    }

    /// What a watcher knows after reading `batch` from the start.
    fn known(batch: &Batch) -> KnownNames {
        let mut known = KnownNames::default();
        learn(&mut known, batch);
        known
    }

    fn learn(known: &mut KnownNames, batch: &Batch) {
        let names: Vec<String> = batch.names.iter().map(|u| u.to_string()).collect();
        known.learn(batch.names_first, &names).unwrap();
    }

    fn urns_of(known: &KnownNames, batch: &Batch) -> Vec<Urn> {
        frames(&batch.runs)
            .filter_map(|b| {
                let e = crate::rpc::console_proto::Event::decode(b.unwrap()).unwrap();
                match super::super::wire::from_wire(&e, known).unwrap() {
                    EngineEvent::RegistrationReceived { urn, .. }
                    | EngineEvent::DiffQueued { urn } => Some(urn),
                    _ => None,
                }
            })
            .collect()
    }

    #[tokio::test]
    async fn each_reader_learns_every_name_it_needs_once_a_late_joiner_all_at_once() {
        let hub = EventHub::new();
        let urn =
            |n: &str| Urn::parse(&format!("urn:pulumi:dev::p::sim:index:Thing::{n}")).unwrap();
        let (a, b, c) = (urn("a"), urn("b"), urn("c"));
        let texts = |urns: &[&Urn]| -> Vec<Arc<str>> {
            urns.iter()
                .map(|u| Arc::from(u.as_str()))
                .chain(std::iter::once(Arc::from("sim:index:Thing")))
                .collect()
        };
        hub.push_all(&[registered(&a), registered(&b)]);
        let mut early = KnownNames::default();
        let first = hub.read(0, 10, 1 << 20, 0).await.unwrap();
        let [name_a, ty, name_b]: [Arc<str>; 3] = first.names.clone().try_into().unwrap();
        assert_eq!([name_a, name_b, ty].to_vec(), texts(&[&a, &b]));
        learn(&mut early, &first);
        assert_eq!(urns_of(&early, &first), [a.clone(), b.clone()]);
        hub.push_all(&[EngineEvent::DiffQueued { urn: b.clone() }, registered(&c)]);
        let second = hub.read(first.next, 10, 1 << 20, 3).await.unwrap();
        assert_eq!(
            (second.names_first, second.names.clone()),
            (3, vec![Arc::from(c.as_str())]),
            "the type is named once"
        );
        learn(&mut early, &second);
        assert_eq!(urns_of(&early, &second), [b.clone(), c.clone()]);
        // A watcher that joins (or resumes) mid-run reads from the middle knowing nothing.
        let late = hub.read(2, 10, 1 << 20, 0).await.unwrap();
        assert_eq!(late.names.len(), 4);
        assert_eq!(urns_of(&known(&late), &late), [b, c]);
    }

    fn messages(hub: &EventHub) -> Vec<String> {
        let batch = hub.log().read(0, usize::MAX, usize::MAX, 0);
        let known = known(&batch);
        frames(&batch.runs)
            .map(|b| {
                let e = crate::rpc::console_proto::Event::decode(b.unwrap()).unwrap();
                match super::super::wire::from_wire(&e, &known).unwrap() {
                    EngineEvent::Diagnostic { message, .. } => message,
                    other => format!("{other:?}").chars().take(12).collect(),
                }
            })
            .collect()
    }

    #[test]
    fn an_ephemeral_note_is_dropped_once_a_later_message_on_its_row_overwrites_it() {
        let hub = EventHub::new();
        let a = Urn::parse("urn:pulumi:dev::p::sim:index:Thing::a").unwrap();
        let b = Urn::parse("urn:pulumi:dev::p::sim:index:Thing::b").unwrap();
        hub.push(&note(Some(&b), "b before its row exists", true));
        hub.push(&registered(&a));
        hub.push(&registered(&b));
        hub.push(&note(Some(&a), "a 1", true));
        hub.push(&note(Some(&a), "a 2", true));
        hub.push(&note(Some(&b), "b 1", true));
        hub.push(&note(None, "run 1", true));
        hub.push(&note(None, "run 2", true));
        hub.push(&note(Some(&a), "a kept in the log", false));
        hub.push(&note(Some(&b), "b 2", true));
        assert_eq!(hub.end(), 10);
        assert_eq!(
            messages(&hub),
            [
                "b before its row exists",
                "Registration",
                "Registration",
                "run 2",
                "a kept in the log",
                "b 2"
            ]
        );
        assert_eq!(hub.held(), 6);
    }

    #[test]
    fn a_note_repeating_a_failed_steps_error_supersedes_nothing() {
        let hub = EventHub::new();
        let a = Urn::parse("urn:pulumi:dev::p::sim:index:Thing::a").unwrap();
        hub.push(&registered(&a));
        hub.push(&EngineEvent::StepFailed {
            chain: 1,
            op: crate::engine::StepOp::Create,
            urn: a.clone(),
            error: "boom".into(),
            duration: Duration::ZERO,
        });
        hub.push(&note(Some(&a), "retrying", true));
        hub.push(&note(Some(&a), "boom", true));
        assert_eq!(hub.held(), 4);
        hub.push(&note(Some(&a), "given up", true));
        assert_eq!(hub.held(), 4);
        assert_eq!(messages(&hub)[2..], ["boom", "given up"]);
    }

    #[tokio::test]
    async fn a_reader_skips_what_was_superseded_and_resumes_after_it() {
        let hub = EventHub::new();
        let a = Urn::parse("urn:pulumi:dev::p::sim:index:Thing::a").unwrap();
        hub.push(&registered(&a));
        for i in 0..200 {
            hub.push(&note(Some(&a), &format!("step {i}"), true));
        }
        hub.close();
        let batch = hub.read(1, 10, 1 << 20, 0).await.expect("the last note");
        assert_eq!((batch.first, batch.next, batch.count), (200, 201, 1));
        assert!(hub.read(201, 10, 1 << 20, 0).await.is_none());
        assert!(hub.log().events.len() < 100, "superseded notes are removed");
    }

    #[test]
    fn kept_events_go_out_in_runs_that_a_note_or_a_later_segment_breaks_in_order() {
        let hub = EventHub::new();
        let urn =
            |n: &str| Urn::parse(&format!("urn:pulumi:dev::p::sim:index:Thing::{n}")).unwrap();
        hub.push_all(&[registered(&urn("a")), registered(&urn("b"))]);
        hub.push(&note(Some(&urn("a")), "a is on its way", true));
        hub.push(&registered(&urn("c")));
        let batch = hub.log().read(0, usize::MAX, usize::MAX, 0);
        let lens = |b: &Batch| {
            b.runs
                .iter()
                .map(|r| frames(std::slice::from_ref(r)).count())
                .collect::<Vec<_>>()
        };
        assert_eq!((batch.count, lens(&batch)), (4, vec![2, 1, 1]));
        // What arrives after a read is appended after the frozen part, in a segment of its own.
        hub.push(&registered(&urn("d")));
        let batch = hub.log().read(0, usize::MAX, usize::MAX, 0);
        assert_eq!((batch.count, lens(&batch)), (5, vec![2, 1, 1, 1]));
        assert_eq!(
            messages(&hub),
            [
                "Registration",
                "Registration",
                "a is on its way",
                "Registration",
                "Registration"
            ]
        );
        assert_eq!(
            urns_of(&known(&batch), &batch),
            ["a", "b", "c", "d"].map(urn)
        );
        // A reader from the middle of a run gets the rest of it.
        let tail = hub.log().read(1, 2, usize::MAX, 0);
        assert_eq!((tail.first, tail.next, lens(&tail)), (1, 3, vec![1, 1]));
    }
}
