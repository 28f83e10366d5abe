//! A history record exported as an event log (`stack history --export N`): Pulumi's stream as
//! `--event-log` writes it, the record's detail lines (`replay_detail`) dropped and `sequence`
//! numbered again from 0, so that Pulumi's tools read it and `line N` of the update's replay
//! is line N of the file. Each line keeps its time in milliseconds (`unixMs`), which Pulumi's
//! readers ignore and a replay of the file uses.

use serde_json::Value;

use super::event_log_reader::EventLogError;
use super::replay_detail;

/// Pulumi's lines of the record `text`; `source_name` names it in errors.
pub fn pulumi_stream(text: &str, source_name: &str) -> Result<String, EventLogError> {
    let mut out = String::with_capacity(text.len());
    let mut sequence: u64 = 0;
    for (i, raw) in text.lines().enumerate() {
        if raw.trim().is_empty() {
            continue;
        }
        let mut value: Value = serde_json::from_str(raw).map_err(|e| EventLogError {
            source_name: source_name.to_string(),
            line: i + 1,
            reason: format!("not a JSON engine event: {e}"),
        })?;
        let Some(obj) = value.as_object_mut() else {
            return Err(EventLogError {
                source_name: source_name.to_string(),
                line: i + 1,
                reason: "not an engine event (not an object)".into(),
            });
        };
        if replay_detail::KINDS.iter().any(|k| obj.contains_key(*k)) {
            continue;
        }
        obj.insert("sequence".into(), sequence.into());
        sequence += 1;
        out.push_str(&value.to_string());
        out.push('\n');
    }
    Ok(out)
}
