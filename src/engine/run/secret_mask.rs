//! Secret values kept out of messages. Every plaintext a deployment handles as a secret
//! (secret config, secret inputs and outputs) is registered with the deployment's
//! [`SecretMask`]; diagnostics, step errors and the outcome are masked with `[secret]` before
//! any display sees them, because providers and programs quote the values they reject.

use std::sync::Arc;

use parking_lot::RwLock;

use crate::engine::model::property::{PropertyMap, PropertyValue};

/// What a secret value is replaced with in messages.
pub(crate) const MASKED: &str = "[secret]";

/// Values shorter than this, and `true`/`false`, are not masked: they would blank out
/// ordinary words (Pulumi's log filter draws the same lines).
const MIN_MASKED_LEN: usize = 3;

/// The secret plaintexts of one deployment, longest first so that a secret containing
/// another is masked whole. Cheap to clone; clones share the set.
#[derive(Clone, Debug, Default)]
pub struct SecretMask(Arc<RwLock<Vec<String>>>);

impl SecretMask {
    /// Registers one plaintext (and its JSON-escaped form, as messages may quote it so).
    pub fn add_text(&self, text: &str) {
        let escaped = serde_json::to_string(text).unwrap_or_default();
        let escaped = &escaped[1..escaped.len().saturating_sub(1).max(1)];
        for s in [text, escaped] {
            if s.len() < MIN_MASKED_LEN
                || s.eq_ignore_ascii_case("true")
                || s.eq_ignore_ascii_case("false")
            {
                continue;
            }
            let known = self.0.read().iter().any(|k| k == s);
            if !known {
                let mut set = self.0.write();
                set.push(s.to_string());
                set.sort_by_key(|k| std::cmp::Reverse(k.len()));
            }
        }
    }

    /// Registers the plaintext of every secret inside `props`.
    pub fn add_secrets_of(&self, props: &PropertyMap) {
        for v in props.values() {
            self.add_value(v, false);
        }
    }

    fn add_value(&self, v: &PropertyValue, secret: bool) {
        match v {
            PropertyValue::Secret(inner) => self.add_value(inner, true),
            PropertyValue::String(s) if secret => self.add_text(s),
            PropertyValue::Number(n) if secret => self.add_text(&n.to_string()),
            PropertyValue::Array(items) => items.iter().for_each(|i| self.add_value(i, secret)),
            PropertyValue::Object(m) => m.values().for_each(|i| self.add_value(i, secret)),
            _ => {}
        }
    }

    /// `text` with every registered secret replaced by [`MASKED`].
    pub fn mask(&self, text: &str) -> String {
        let set = self.0.read();
        let mut out = text.to_string();
        for s in set.iter() {
            if out.contains(s.as_str()) {
                out = out.replace(s.as_str(), MASKED);
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_nested_anywhere_are_masked_and_plain_values_are_not() {
        let mask = SecretMask::default();
        let mut props = PropertyMap::new();
        props.insert(
            "a".into(),
            PropertyValue::Secret(Box::new(PropertyValue::Object(PropertyMap::from([(
                "k".into(),
                PropertyValue::Array(vec![
                    PropertyValue::string("hunter2"),
                    PropertyValue::string("say \"hi\""),
                    PropertyValue::Number(12345.0),
                ]),
            )])))),
        );
        props.insert("b".into(), PropertyValue::string("visible"));
        props.insert(
            "c".into(),
            PropertyValue::Secret(Box::new(PropertyValue::Array(vec![
                PropertyValue::string("no"),
                PropertyValue::string("True"),
            ]))),
        );
        mask.add_secrets_of(&props);
        mask.add_text("hunter2-longer");
        assert_eq!(
            mask.mask(r#"got hunter2-longer, hunter2, say \"hi\", 12345, visible, no, True"#),
            r#"got [secret], [secret], [secret], [secret], visible, no, True"#
        );
    }
}
