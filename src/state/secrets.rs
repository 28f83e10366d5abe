//! Secrets in state JSON: before anything is written, every secret object's `plaintext`
//! becomes a `ciphertext`; on load the reverse. Works on the JSON encoding so that it covers
//! checkpoints, journal lines and exports alike, at any depth.

use serde_json::{Map, Value};

use crate::engine::model::property::{SECRET_SIG, SIG_KEY};
use crate::engine::{PropertyMap, PropertyValue, ResourceState};

use super::passphrase::{Crypter, SecretsError};

/// Whether a state's encoding may hold a secret object (assets and archives are raw JSON
/// and are checked by the JSON walk): only such a state goes through a JSON tree to be
/// encrypted, the others are written straight from their fields.
pub(crate) fn state_may_hold_secrets(r: &ResourceState) -> bool {
    map_may_hold_secrets(&r.inputs)
        || map_may_hold_secrets(&r.outputs)
        || value_may_hold_secrets(&r.replacement_trigger)
}

/// [`state_may_hold_secrets`] for one property map (a journal's outputs entry).
pub(crate) fn map_may_hold_secrets(m: &PropertyMap) -> bool {
    m.values().any(value_may_hold_secrets)
}

fn value_may_hold_secrets(v: &PropertyValue) -> bool {
    match v {
        PropertyValue::Secret(_) | PropertyValue::Asset(_) | PropertyValue::Archive(_) => true,
        PropertyValue::Array(a) => a.iter().any(value_may_hold_secrets),
        PropertyValue::Object(m) => m.values().any(value_may_hold_secrets),
        PropertyValue::ResourceReference(r) => r.id.as_ref().is_some_and(value_may_hold_secrets),
        _ => false,
    }
}

/// Replaces each secret's plaintext with its ciphertext; without a crypter any secret is an
/// error, so that plaintext never reaches disk.
pub fn encrypt_secrets(value: &mut Value, crypter: Option<&Crypter>) -> Result<(), SecretsError> {
    walk(value, &mut |secret| {
        let plain = match (secret.remove("plaintext"), secret.remove("value")) {
            (Some(Value::String(p)), _) => p,
            (_, Some(v)) => v.to_string(),
            (Some(other), None) => {
                secret.insert("plaintext".into(), other);
                return Ok(());
            }
            (None, None) => return Ok(()),
        };
        let crypter = crypter.ok_or(SecretsError::NoPassphrase)?;
        secret.insert("ciphertext".into(), Value::String(crypter.encrypt(&plain)));
        Ok(())
    })
    .map_err(at)
}

/// Replaces each secret's ciphertext with its plaintext; secrets already in plaintext (an
/// export made with `--show-secrets`) are left as they are.
pub fn decrypt_secrets(value: &mut Value, crypter: Option<&Crypter>) -> Result<(), SecretsError> {
    walk(value, &mut |secret| {
        let Some(Value::String(ct)) = secret.get("ciphertext") else {
            return Ok(());
        };
        let crypter = crypter.ok_or(SecretsError::NoPassphrase)?;
        let plain = crypter.decrypt(ct)?;
        secret.remove("ciphertext");
        secret.insert("plaintext".into(), Value::String(plain));
        Ok(())
    })
    .map_err(at)
}

/// Whether the JSON holds any encrypted secret (a load without a passphrase would fail).
pub fn has_ciphertext(value: &Value) -> bool {
    match value {
        Value::Object(m) if is_secret(m) => m.contains_key("ciphertext"),
        Value::Object(m) => m.values().any(has_ciphertext),
        Value::Array(a) => a.iter().any(has_ciphertext),
        _ => false,
    }
}

fn is_secret(m: &Map<String, Value>) -> bool {
    m.get(SIG_KEY).and_then(Value::as_str) == Some(SECRET_SIG)
}

fn at((mut path, source): PathError) -> SecretsError {
    path.reverse();
    SecretsError::At {
        path: if path.is_empty() {
            "(top)".to_string()
        } else {
            path.concat().trim_start_matches('.').to_string()
        },
        source: Box::new(source),
    }
}

/// What to do with one secret object.
type OnSecret<'a> = dyn FnMut(&mut Map<String, Value>) -> Result<(), SecretsError> + 'a;

/// A failure with the path to it, innermost segment first.
type PathError = (Vec<String>, SecretsError);

/// Calls `f` on every secret object.
fn walk(value: &mut Value, f: &mut OnSecret<'_>) -> Result<(), PathError> {
    match value {
        Value::Object(m) if is_secret(m) => f(m).map_err(|e| (Vec::new(), e)),
        Value::Object(m) => m.iter_mut().try_for_each(|(k, v)| {
            walk(v, f).map_err(|(mut p, e)| {
                p.push(format!(".{k}"));
                (p, e)
            })
        }),
        Value::Array(a) => a.iter_mut().enumerate().try_for_each(|(i, v)| {
            walk(v, f).map_err(|(mut p, e)| {
                p.push(format!("[{i}]"));
                (p, e)
            })
        }),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::model::property::{map_from_json, map_to_json};
    use crate::engine::{PropertyMap, PropertyValue};

    #[test]
    fn secrets_round_trip_through_ciphertext() {
        let c = Crypter::new_salt("pw");
        let mut m = PropertyMap::new();
        m.insert(
            "db".into(),
            PropertyValue::Object(
                [(
                    "password".to_string(),
                    PropertyValue::Secret(Box::new("hunter2".into())),
                )]
                .into(),
            ),
        );
        m.insert("plain".into(), "visible".into());
        let mut v = Value::Object(map_to_json(&m));
        encrypt_secrets(&mut v, Some(&c)).unwrap();
        let text = v.to_string();
        assert!(
            !text.contains("hunter2") && text.contains("ciphertext"),
            "{text}"
        );
        assert!(text.contains("visible"));
        assert!(has_ciphertext(&v));
        let e = decrypt_secrets(&mut v.clone(), None)
            .unwrap_err()
            .to_string();
        assert!(e.contains("db.password"), "{e}");
        decrypt_secrets(&mut v, Some(&c)).unwrap();
        assert_eq!(map_from_json(&v).unwrap(), m);
    }

    #[test]
    fn plaintext_is_never_written_without_a_crypter() {
        let mut v = serde_json::json!({"a": [1, {SIG_KEY: SECRET_SIG, "plaintext": "\"x\""}]});
        let e = encrypt_secrets(&mut v, None).unwrap_err().to_string();
        assert!(
            e.contains("a[1]") && e.contains("PULUMI_CONFIG_PASSPHRASE"),
            "{e}"
        );
        let mut none = serde_json::json!({"a": "b"});
        encrypt_secrets(&mut none, None).unwrap();
    }
}
