//! A journal entry as one line of text, the same on both backends (a file's line, a row's
//! column): secrets encrypted before it is written. Reading lines back is `journal_reader`.

use crate::engine::JournalEntry;
use crate::state::passphrase::Crypter;
use crate::state::secrets::{encrypt_secrets, map_may_hold_secrets, state_may_hold_secrets};

/// Serializes an entry as one journal line (newline included), secrets encrypted. Only an
/// entry whose states may hold a secret goes through a JSON tree to be encrypted; the others
/// (most entries) are written straight from their fields, the same bytes at a fraction of
/// the cost (the line is encoded under the deployment's journal lock).
pub(crate) fn encode_entry(
    entry: &JournalEntry,
    crypter: Option<&Crypter>,
    out: &mut Vec<u8>,
) -> Result<(), String> {
    out.clear();
    if entry_may_hold_secrets(entry) {
        let mut value = serde_json::to_value(entry).map_err(|e| e.to_string())?;
        encrypt_secrets(&mut value, crypter).map_err(|e| e.to_string())?;
        serde_json::to_writer(&mut *out, &value).map_err(|e| e.to_string())?;
    } else {
        serde_json::to_writer(&mut *out, entry).map_err(|e| e.to_string())?;
    }
    out.push(b'\n');
    Ok(())
}

fn entry_may_hold_secrets(entry: &JournalEntry) -> bool {
    match entry {
        JournalEntry::Begin { state, .. } => state_may_hold_secrets(state),
        JournalEntry::Success { new, .. } => new.as_ref().is_some_and(state_may_hold_secrets),
        JournalEntry::Failure { .. } => false,
        JournalEntry::Outputs { outputs, .. } => map_may_hold_secrets(outputs),
        JournalEntry::Refresh { state, .. } | JournalEntry::Resolve { state, .. } => {
            state.as_ref().is_some_and(state_may_hold_secrets)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_entry_without_secrets_is_written_straight_and_one_with_them_is_encrypted() {
        use crate::engine::model::resource::OperationType;
        use crate::engine::{PropertyMap, PropertyValue, ResourceState, Urn};
        let mut inputs = PropertyMap::new();
        inputs.insert("size".into(), PropertyValue::Number(3.5));
        inputs.insert(
            "tags".into(),
            PropertyValue::Array(vec![
                PropertyValue::string("a\"b"),
                PropertyValue::Bool(true),
            ]),
        );
        let mut state = ResourceState {
            urn: Urn::new("s", "p", None, "t:i:R", "r"),
            type_: "t:i:R".into(),
            custom: true,
            outputs: inputs.clone(),
            inputs,
            ..ResourceState::default()
        };
        let begin = |state: &ResourceState| JournalEntry::Begin {
            op: 7,
            operation: OperationType::Creating,
            state: state.clone(),
        };
        let mut line = Vec::new();
        encode_entry(&begin(&state), None, &mut line).unwrap();
        let mut tree = serde_json::to_vec(&serde_json::to_value(begin(&state)).unwrap()).unwrap();
        tree.push(b'\n');
        assert_eq!(
            String::from_utf8(line.clone()).unwrap(),
            String::from_utf8(tree).unwrap(),
            "the same bytes as through a JSON tree"
        );

        state.outputs.insert(
            "password".into(),
            PropertyValue::Secret(Box::new(PropertyValue::string("hunter2"))),
        );
        assert!(encode_entry(&begin(&state), None, &mut line).is_err());
        let crypter = Crypter::new_salt("passphrase");
        encode_entry(&begin(&state), Some(&crypter), &mut line).unwrap();
        let text = String::from_utf8(line.clone()).unwrap();
        assert!(
            !text.contains("hunter2") && text.contains("ciphertext"),
            "{text}"
        );
        let outputs = JournalEntry::Outputs {
            new: 0,
            outputs: state.outputs.clone(),
        };
        encode_entry(&outputs, Some(&crypter), &mut line).unwrap();
        assert!(!String::from_utf8(line).unwrap().contains("hunter2"));
    }
}
