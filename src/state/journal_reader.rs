//! Reading a journal back, one line at a time: each complete line is decoded, its operation
//! checked against those begun before it and, on load, replayed onto the base at once, so that
//! a large journal's entries are never all in memory. A last line without its newline is the
//! torn write of a killed process and ends the journal, as do the zeros a file journal writes
//! ahead of its lines (they hold no newline).

use std::collections::HashSet;
use std::io::BufRead;
use std::path::Path;

use serde_json::Value;

use crate::engine::journal::{OpId, Replayer};
use crate::engine::model::property::SECRET_SIG;
use crate::engine::model::snapshot::share_states;
use crate::engine::{JournalEntry, JournalError, Snapshot};

use super::error::StateError;
use super::passphrase::Crypter;
use super::secrets::decrypt_secrets;

/// A journal's lines (a file, or a database's rows joined by newlines) as entries; `path`
/// names them in errors, with the line.
pub(crate) struct JournalReader<'a, R> {
    path: &'a Path,
    input: R,
    crypter: Option<Crypter>,
    line: Vec<u8>,
    /// Complete lines read so far: the number of the last one.
    lines: usize,
    /// Operations begun and not yet ended.
    open: HashSet<OpId>,
}

/// What a journal replayed onto its base held.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct JournalSummary {
    /// Entries replayed: none means the checkpoint alone is the state.
    pub(crate) entries: usize,
    /// Every entry only kept a base state as it was (also true of no entries).
    pub(crate) keeps_only: bool,
}

impl JournalSummary {
    const EMPTY: JournalSummary = JournalSummary {
        entries: 0,
        keeps_only: true,
    };
}

impl<'a, R: BufRead> JournalReader<'a, R> {
    /// A reader of `input`'s lines; `crypter` decrypts the secrets of those that hold any.
    pub(crate) fn new(path: &'a Path, input: R, crypter: Option<Crypter>) -> Self {
        JournalReader {
            path,
            input,
            crypter,
            line: Vec::new(),
            lines: 0,
            open: HashSet::new(),
        }
    }

    /// The next line's entry, its secrets decrypted, not checked against the operations
    /// begun before it; `None` at the end.
    pub(crate) fn next_decoded(&mut self) -> Result<Option<JournalEntry>, StateError> {
        self.line.clear();
        self.input
            .read_until(b'\n', &mut self.line)
            .map_err(StateError::io(self.path))?;
        if self.line.last() != Some(&b'\n') {
            return Ok(None);
        }
        self.lines += 1;
        decode_line(self.path, self.lines, &self.line, self.crypter.as_ref()).map(Some)
    }

    /// The next entry, refused if it ends an operation that has not begun (or already ended)
    /// or begins one twice: our journal writes `Begin` before calling the provider, so such a
    /// journal was not written by it and cannot be replayed.
    pub(crate) fn next_entry(&mut self) -> Result<Option<JournalEntry>, StateError> {
        let Some(entry) = self.next_decoded()? else {
            return Ok(None);
        };
        let (op, what) = match &entry {
            JournalEntry::Begin { op, .. } => {
                if !self.open.insert(*op) {
                    return Err(self.corrupt(format!("operation {op} begins twice")));
                }
                return Ok(Some(entry));
            }
            JournalEntry::Success { op: Some(op), .. } => (*op, "success"),
            JournalEntry::Failure { op } => (*op, "failure"),
            _ => return Ok(Some(entry)),
        };
        if !self.open.remove(&op) {
            return Err(self.corrupt(format!(
                "{what} of operation {op}, which has not begun (or already ended)"
            )));
        }
        Ok(Some(entry))
    }

    /// Where the lines come from, as errors name it.
    pub(crate) fn path(&self) -> &'a Path {
        self.path
    }

    /// Replays every entry onto `base` as it is read; a journal without entries leaves `base`
    /// exactly as it was. A fault is named by the journal's line.
    pub(crate) fn replay_onto(
        mut self,
        base: Snapshot,
    ) -> Result<(Snapshot, JournalSummary), StateError> {
        let Some(first) = self.next_entry()? else {
            return Ok((base, JournalSummary::EMPTY));
        };
        let mut replayer = Replayer::shared(share_states(base.resources), base.pending_operations);
        let mut summary = JournalSummary::EMPTY;
        let mut next = Some(first);
        while let Some(entry) = next {
            summary.entries += 1;
            summary.keeps_only &= entry.keeps_only();
            replayer
                .apply_owned(entry)
                .map_err(|e| self.replay_error(e))?;
            next = self.next_entry()?;
        }
        Ok((replayer.into_snapshot(), summary))
    }

    fn replay_error(&self, e: JournalError) -> StateError {
        match e {
            JournalError::Replay { entry, reason } => StateError::Corrupt {
                path: self.path.to_path_buf(),
                line: Some(entry + 1),
                message: reason,
            },
            other => StateError::Corrupt {
                path: self.path.to_path_buf(),
                line: None,
                message: other.to_string(),
            },
        }
    }

    fn corrupt(&self, message: String) -> StateError {
        StateError::Corrupt {
            path: self.path.to_path_buf(),
            line: Some(self.lines),
            message,
        }
    }
}

/// Line `n` of a journal as an entry. A line that cannot hold an encrypted secret (neither
/// the secret signature nor a `\u` escape, which could spell it, is in its bytes) is decoded
/// straight into the entry; any other line, or one that does not decode that way, goes
/// through a JSON tree, which decrypts secrets and words every error as loading always has.
fn decode_line(
    path: &Path,
    n: usize,
    line: &[u8],
    crypter: Option<&Crypter>,
) -> Result<JournalEntry, StateError> {
    if !may_hold_secret(line)
        && let Ok(entry) = serde_json::from_slice(line)
    {
        return Ok(entry);
    }
    decode_line_as_tree(path, n, line, crypter)
}

fn may_hold_secret(line: &[u8]) -> bool {
    match std::str::from_utf8(line) {
        Ok(text) => text.contains(SECRET_SIG) || text.contains("\\u"),
        Err(_) => true,
    }
}

/// [`decode_line`] through a JSON tree: parsed, secrets decrypted, then the entry.
fn decode_line_as_tree(
    path: &Path,
    n: usize,
    line: &[u8],
    crypter: Option<&Crypter>,
) -> Result<JournalEntry, StateError> {
    let corrupt = |message: String| StateError::Corrupt {
        path: path.to_path_buf(),
        line: Some(n),
        message,
    };
    let mut value: Value = serde_json::from_slice(line)
        .map_err(|e| corrupt(format!("not a JSON journal entry: {e}")))?;
    decrypt_secrets(&mut value, crypter).map_err(|e| corrupt(e.to_string()))?;
    serde_json::from_value(value).map_err(|e| corrupt(format!("not a journal entry: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::model::resource::OperationType;
    use crate::engine::{PropertyMap, PropertyValue, ResourceState, Urn};
    use crate::state::file_journal::encode_entry;

    fn created(name: &str, op: OpId, outputs: PropertyMap) -> [JournalEntry; 2] {
        let state = ResourceState {
            urn: Urn::new("s", "p", None, "t:i:R", name),
            type_: "t:i:R".into(),
            custom: true,
            id: Some(name.into()),
            outputs,
            ..ResourceState::default()
        };
        [
            JournalEntry::Begin {
                op,
                operation: OperationType::Creating,
                state: state.clone(),
            },
            JournalEntry::Success {
                op: Some(op),
                new: Some(state),
                keep_old: None,
                remove_old: None,
                mark_delete_old: None,
                pending_replacement_old: None,
                supersede_new: None,
            },
        ]
    }

    fn secret_outputs() -> PropertyMap {
        let mut outputs = PropertyMap::new();
        outputs.insert(
            "password".into(),
            PropertyValue::Secret(Box::new("hunter2".into())),
        );
        outputs.insert("plain".into(), "visible".into());
        outputs
    }

    fn encode(entries: &[JournalEntry], crypter: Option<&Crypter>) -> Vec<u8> {
        let mut text = Vec::new();
        let mut line = Vec::new();
        for e in entries {
            encode_entry(e, crypter, &mut line).unwrap();
            text.extend_from_slice(&line);
        }
        text
    }

    fn read_all(text: &[u8], crypter: Option<&Crypter>) -> Result<Vec<JournalEntry>, StateError> {
        let path = Path::new("journal.1.jsonl");
        let mut reader = JournalReader::new(path, text, crypter.cloned());
        std::iter::from_fn(|| reader.next_entry().transpose()).collect()
    }

    #[test]
    fn secret_bearing_and_plain_lines_decode_the_same_through_both_paths() {
        let crypter = Crypter::new_salt("pw");
        let mut outputs = PropertyMap::new();
        outputs.insert("size".into(), PropertyValue::Number(3.0));
        let entries: Vec<JournalEntry> = created("a", 1, secret_outputs())
            .into_iter()
            .chain(created("b", 2, outputs))
            .collect();
        let text = encode(&entries, Some(&crypter));
        let path = Path::new("journal.1.jsonl");
        let lines: Vec<&[u8]> = text.split_inclusive(|b| *b == b'\n').collect();
        assert_eq!(
            lines.iter().map(|l| may_hold_secret(l)).collect::<Vec<_>>(),
            [true, true, false, false],
            "only the lines of the secret take the tree"
        );
        for (i, line) in lines.iter().enumerate() {
            let tree = decode_line_as_tree(path, i + 1, line, Some(&crypter)).unwrap();
            assert_eq!(
                decode_line(path, i + 1, line, Some(&crypter)).unwrap(),
                tree
            );
            assert_eq!(tree, entries[i]);
        }
        assert_eq!(read_all(&text, Some(&crypter)).unwrap(), entries);
    }

    #[test]
    fn a_secret_signature_spelled_with_escapes_is_still_decrypted() {
        let crypter = Crypter::new_salt("pw");
        let entries = created("a", 1, secret_outputs());
        let text = String::from_utf8(encode(&entries, Some(&crypter))).unwrap();
        // `\u0030` is `0`, the signature's last character: the JSON is the same.
        let (head, last) = SECRET_SIG.split_at(SECRET_SIG.len() - 1);
        assert_eq!(last, "0");
        let escaped = text.replace(SECRET_SIG, &format!("{head}\\u0030"));
        // A plaintext next to the ciphertext is overwritten by decryption, as loading always
        // did; only the tree decrypts, so the escaped line must take it.
        let escaped = escaped.replace(
            "\"ciphertext\":",
            "\"plaintext\":\"\\\"forged\\\"\",\"ciphertext\":",
        );
        assert!(!escaped.contains(SECRET_SIG) && escaped.contains("forged"));
        assert_eq!(
            read_all(escaped.as_bytes(), Some(&crypter)).unwrap(),
            entries
        );
    }

    #[test]
    fn a_line_that_does_not_decode_is_named_by_its_line_as_before() {
        let entries = created("a", 1, PropertyMap::new());
        let good = String::from_utf8(encode(&entries, None)).unwrap();
        let cases = [
            ("{\"kind\":\"success\",\n", "not a JSON journal entry: "),
            (
                "{\"kind\":\"bogus\"}\n",
                "not a journal entry: unknown variant `bogus`",
            ),
            (
                "{\"kind\":\"failure\"}\n",
                "not a journal entry: missing field `op`",
            ),
        ];
        for (bad, message) in cases {
            let text = format!("{good}{bad}{good}");
            let e = read_all(text.as_bytes(), None).unwrap_err();
            let msg = e.to_string();
            assert!(
                matches!(e, StateError::Corrupt { line: Some(3), .. }),
                "{msg}"
            );
            assert!(
                msg.starts_with(&format!("journal.1.jsonl:3: {message}")),
                "{msg}"
            );
        }
        // A key given twice is refused by the typed decoder, taken by the tree (the last
        // wins), as loading always did.
        let begun = encode(&created("b", 2, PropertyMap::new())[..1], None);
        let text = format!(
            "{good}{}{{\"kind\":\"failure\",\"op\":2,\"op\":2}}\n",
            String::from_utf8(begun).unwrap()
        );
        let read = read_all(text.as_bytes(), None).unwrap();
        assert_eq!(read.last(), Some(&JournalEntry::Failure { op: 2 }));
    }

    #[test]
    fn replay_reads_line_by_line_and_names_the_line_at_fault() {
        let entries: Vec<JournalEntry> = created("a", 1, PropertyMap::new())
            .into_iter()
            .chain(created("b", 2, PropertyMap::new()))
            .collect();
        let text = encode(&entries, None);
        let path = Path::new("journal.1.jsonl");
        let (snapshot, summary) = JournalReader::new(path, &text[..], None)
            .replay_onto(Snapshot::default())
            .unwrap();
        assert_eq!(snapshot.resources.len(), 2);
        assert_eq!(
            summary,
            JournalSummary {
                entries: 4,
                keeps_only: false
            }
        );
        // A torn last line ends the journal.
        let mut torn = text.clone();
        torn.extend_from_slice(b"{\"kind\":\"begin\",\"op\":3");
        let (_, summary) = JournalReader::new(path, &torn[..], None)
            .replay_onto(Snapshot::default())
            .unwrap();
        assert_eq!(summary.entries, 4);
        // Nothing to replay: the base as it was, pending operations of every kind included.
        let base = Snapshot {
            pending_operations: vec![crate::engine::model::resource::PendingOperation {
                resource: ResourceState::default(),
                kind: OperationType::Updating,
            }],
            ..Snapshot::default()
        };
        let (same, summary) = JournalReader::new(path, &b""[..], None)
            .replay_onto(base.clone())
            .unwrap();
        assert_eq!((same, summary), (base, JournalSummary::EMPTY));
        // An entry that does not fit the base, after good ones.
        let mut bad = text.clone();
        bad.extend_from_slice(b"{\"kind\":\"success\",\"removeOld\":7}\n");
        let e = JournalReader::new(path, &bad[..], None)
            .replay_onto(Snapshot::default())
            .unwrap_err();
        assert!(
            matches!(&e, StateError::Corrupt { line: Some(5), message, .. } if message.contains("out of range")),
            "{e}"
        );
    }
}
