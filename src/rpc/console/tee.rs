//! The served side's place in the event flow: every engine event goes to the watchers (the
//! `EventHub`) and on to the local display, so serving is one more consumer of the stream.
//! With an approval timeout it also declines, through `Control`, a cascade that no one
//! decided in time.

use std::collections::HashSet;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use tokio::sync::mpsc::{UnboundedReceiver, unbounded_channel};

use crate::engine::run::events::{APPROVAL_TIMEOUT_NOTE, CascadeId};
use crate::engine::{Control, EngineEvent, EventSink, Severity, Urn};

use super::hub::announced_gate;
use super::server::{Briefing, Served};

/// Most events the tee takes from the engine at once: the hub encodes them and wakes its
/// watchers once per batch, not once per event.
const TEE_BATCH: usize = 256;

/// Serves the deployment behind `control` and `notes` (its event sink), telling each watcher
/// `briefing` first: every event from `events` goes to the watchers, then on to the returned
/// receiver, which ends after the deployment's summary.
pub fn tee(
    served: &Arc<Served>,
    (control, notes): (Control, EventSink),
    briefing: Briefing,
    mut events: UnboundedReceiver<EngineEvent>,
    approval_timeout: Option<Duration>,
) -> UnboundedReceiver<EngineEvent> {
    served.begin(control.clone(), notes.clone(), briefing);
    let hub = served.hub.clone();
    let (tx, rx) = unbounded_channel();
    tokio::spawn(async move {
        let decided: Arc<Mutex<HashSet<CascadeId>>> = Arc::default();
        let mut batch = Vec::with_capacity(TEE_BATCH);
        let mut preview = false;
        while events.recv_many(&mut batch, TEE_BATCH).await > 0 {
            // The control handles (ours and the engine's) keep the engine's channel open: the
            // summary is the end.
            let end = batch
                .iter()
                .position(|e| matches!(e, EngineEvent::Summary { .. }));
            if let Some(end) = end {
                batch.truncate(end + 1);
            }
            hub.push_all(&batch);
            for e in batch.drain(..) {
                match &e {
                    EngineEvent::Decision { cascade, .. } => {
                        decided
                            .lock()
                            .unwrap_or_else(PoisonError::into_inner)
                            .insert(*cascade);
                    }
                    EngineEvent::Prelude { preview: p, .. } => preview = *p,
                    // A gate the `decline` policy closes at once waits for no one, nor does
                    // one a preview announces.
                    EngineEvent::GateOpened { asked: false, .. } => {}
                    _ if preview => {}
                    _ => {
                        if let (Some(after), Some((cascade, root))) =
                            (approval_timeout, announced_gate(&e))
                        {
                            // Ephemeral: displays that count down read it, logs do not.
                            notes.send(EngineEvent::Diagnostic {
                                urn: gate_urn(&e),
                                severity: Severity::Info,
                                message: format!("{APPROVAL_TIMEOUT_NOTE}{}s", after.as_secs()),
                                ephemeral: true,
                            });
                            let undecided = Undecided {
                                cascade,
                                root,
                                decided: decided.clone(),
                                control: control.clone(),
                                notes: notes.clone(),
                            };
                            tokio::spawn(undecided.decline_after(after));
                        }
                    }
                }
                let _ = tx.send(e);
            }
            if end.is_some() {
                break;
            }
        }
        hub.close();
    });
    rx
}

/// The resource a gate announcement holds: the cascade's root, or the gated step's.
fn gate_urn(e: &EngineEvent) -> Option<Urn> {
    match e {
        EngineEvent::PendingReplacement { root, .. } => Some(root.clone()),
        EngineEvent::GateOpened { urn, .. } => Some(urn.clone()),
        _ => None,
    }
}

/// A cascade waiting for a decision that the approval timeout will decline.
struct Undecided {
    cascade: CascadeId,
    root: String,
    decided: Arc<Mutex<HashSet<CascadeId>>>,
    control: Control,
    notes: EventSink,
}

impl Undecided {
    async fn decline_after(self, after: Duration) {
        tokio::time::sleep(after).await;
        let decided = self
            .decided
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .contains(&self.cascade);
        if !decided {
            self.notes.diag(
                None,
                Severity::Warning,
                format!(
                    "{} declined: no decision within {}s",
                    self.root,
                    after.as_secs()
                ),
            );
            self.control.decline(self.cascade);
        }
    }
}
