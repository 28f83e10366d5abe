//! The engine events of a run as the history keeps them for `stack history --open`: every event
//! goes through a tee that writes it as the engine-event stream (`--event-log`'s lines, with
//! their timestamps), compressed as it goes, before the display gets it, so the record holds
//! what the display showed.

use std::sync::Arc;

use parking_lot::Mutex;
use stepdeck::engine::EngineEvent;
use stepdeck::output::event_stream::EventWriter;
use stepdeck::state::codec::update_events::{Compressed, Compressor};
use tokio::sync::mpsc::{self, UnboundedReceiver};

/// What a run's tee has written so far.
#[derive(Clone)]
pub(super) struct Recording(Arc<Mutex<Recorder>>);

struct Recorder {
    writer: EventWriter,
    /// Taken when the run's record is written.
    stream: Option<Compressor>,
}

impl Recorder {
    fn write(&mut self, value: &serde_json::Value) {
        if let Some(stream) = &mut self.stream {
            stream.line(&serde_json::to_vec(value).expect("JSON to memory"));
        }
    }

    /// Whether more events would still be kept (a full stream keeps its first part only).
    fn keeps_more(&self) -> bool {
        self.stream.as_ref().is_some_and(|s| !s.is_full())
    }
}

/// Records every event of `events` and passes it on, in order, to the stream returned. A
/// preview keeps no history record, so it is passed on untouched and nothing is recorded.
pub(super) fn tee(
    mut events: UnboundedReceiver<EngineEvent>,
    preview: bool,
) -> (UnboundedReceiver<EngineEvent>, Recording) {
    let recording = Recording(Arc::new(Mutex::new(Recorder {
        writer: EventWriter::recording(Default::default()),
        stream: (!preview).then(Compressor::default),
    })));
    if preview {
        return (events, recording);
    }
    let (tx, rx) = mpsc::unbounded_channel();
    let kept = recording.clone();
    tokio::spawn(async move {
        while let Some(e) = events.recv().await {
            {
                let mut r = kept.0.lock();
                if r.keeps_more() {
                    for v in r.writer.event(&e) {
                        r.write(&v.value);
                    }
                }
            }
            if tx.send(e).is_err() {
                break;
            }
        }
    });
    (rx, recording)
}

impl Recording {
    /// The stream so far, ended as every stream ends (a `cancelEvent`), compressed; later
    /// events are no longer kept.
    pub(super) fn finish(&self) -> Compressed {
        let mut r = self.0.lock();
        let end = r.writer.finish();
        r.write(&end);
        r.stream.take().unwrap_or_default().finish()
    }
}
