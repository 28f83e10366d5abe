//! Typed reads of provider inputs, so that a wrong input is reported by name (as a Check
//! failure, or as the error of the operation) instead of being silently defaulted.

use crate::engine::provider::{CheckFailure, ProviderError};
use crate::engine::{PropertyMap, PropertyValue};

/// An input of the wrong shape.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid input `{field}`: {reason}")]
pub(crate) struct FieldError {
    pub field: String,
    pub reason: String,
}

impl FieldError {
    pub(crate) fn new(field: &str, reason: impl Into<String>) -> FieldError {
        FieldError {
            field: field.to_string(),
            reason: reason.into(),
        }
    }

    pub(crate) fn into_check_failure(self) -> CheckFailure {
        CheckFailure {
            property: self.field,
            reason: self.reason,
        }
    }
}

impl From<FieldError> for ProviderError {
    fn from(e: FieldError) -> ProviderError {
        ProviderError::Failed(e.to_string())
    }
}

/// The value of an input with secrets unwrapped; absent and null are both `None`.
fn present<'a>(inputs: &'a PropertyMap, field: &str) -> Option<&'a PropertyValue> {
    match inputs.get(field) {
        None | Some(PropertyValue::Null) => None,
        Some(PropertyValue::Secret(v)) => Some(v),
        Some(v) => Some(v),
    }
}

/// Whether the input is unknown (checks of it wait until it is known).
pub(crate) fn is_unknown(inputs: &PropertyMap, field: &str) -> bool {
    inputs
        .get(field)
        .is_some_and(PropertyValue::contains_unknowns)
}

pub(crate) fn opt_str(inputs: &PropertyMap, field: &str) -> Result<Option<String>, FieldError> {
    match present(inputs, field) {
        None => Ok(None),
        Some(PropertyValue::String(s)) => Ok(Some(s.clone())),
        Some(other) => Err(FieldError::new(
            field,
            format!("expected a string, got {other}"),
        )),
    }
}

pub(crate) fn opt_bool(inputs: &PropertyMap, field: &str) -> Result<Option<bool>, FieldError> {
    match present(inputs, field) {
        None => Ok(None),
        Some(PropertyValue::Bool(b)) => Ok(Some(*b)),
        Some(PropertyValue::String(s)) if s == "true" || s == "false" => Ok(Some(s == "true")),
        Some(other) => Err(FieldError::new(
            field,
            format!("expected a boolean, got {other}"),
        )),
    }
}

/// An integer, given as a whole number or a string of digits (config values arrive as strings).
pub(crate) fn opt_int(inputs: &PropertyMap, field: &str) -> Result<Option<i64>, FieldError> {
    match present(inputs, field) {
        None => Ok(None),
        Some(PropertyValue::Number(n)) if n.fract() == 0.0 && n.abs() < 9.0e15 => {
            Ok(Some(*n as i64))
        }
        Some(PropertyValue::String(s)) => s
            .trim()
            .parse()
            .map(Some)
            .map_err(|_| FieldError::new(field, format!("expected an integer, got {s:?}"))),
        Some(other) => Err(FieldError::new(
            field,
            format!("expected an integer, got {other}"),
        )),
    }
}

/// A non-negative integer that fits in `usize`.
pub(crate) fn opt_count(inputs: &PropertyMap, field: &str) -> Result<Option<usize>, FieldError> {
    match opt_int(inputs, field)? {
        None => Ok(None),
        Some(n) => usize::try_from(n)
            .map(Some)
            .map_err(|_| FieldError::new(field, format!("must not be negative, got {n}"))),
    }
}

pub(crate) fn opt_str_list(
    inputs: &PropertyMap,
    field: &str,
) -> Result<Option<Vec<String>>, FieldError> {
    match present(inputs, field) {
        None => Ok(None),
        Some(PropertyValue::Array(items)) => items
            .iter()
            .enumerate()
            .map(|(i, v)| match v.as_str() {
                Some(s) => Ok(s.to_string()),
                None => Err(FieldError::new(
                    &format!("{field}[{i}]"),
                    format!("expected a string, got {v}"),
                )),
            })
            .collect::<Result<Vec<_>, _>>()
            .map(Some),
        Some(other) => Err(FieldError::new(
            field,
            format!("expected a list of strings, got {other}"),
        )),
    }
}

/// A map of strings (environment variables); numbers and booleans are taken as their text.
pub(crate) fn opt_str_map(
    inputs: &PropertyMap,
    field: &str,
) -> Result<Option<Vec<(String, String)>>, FieldError> {
    match present(inputs, field) {
        None => Ok(None),
        Some(PropertyValue::Object(m)) => m
            .iter()
            .map(|(k, v)| match v.reveal() {
                PropertyValue::String(s) => Ok((k.clone(), s)),
                PropertyValue::Number(_) | PropertyValue::Bool(_) => {
                    Ok((k.clone(), v.to_json().to_string()))
                }
                other => Err(FieldError::new(
                    &format!("{field}.{k}"),
                    format!("expected a string, got {other}"),
                )),
            })
            .collect::<Result<Vec<_>, _>>()
            .map(Some),
        Some(other) => Err(FieldError::new(
            field,
            format!("expected a map of strings, got {other}"),
        )),
    }
}

/// Runs a validation unless the input is still unknown, collecting its failure.
pub(crate) fn check_known<T>(
    inputs: &PropertyMap,
    field: &str,
    failures: &mut Vec<CheckFailure>,
    read: impl FnOnce(&PropertyMap, &str) -> Result<T, FieldError>,
) -> Option<T> {
    if is_unknown(inputs, field) {
        return None;
    }
    match read(inputs, field) {
        Ok(v) => Some(v),
        Err(e) => {
            failures.push(e.into_check_failure());
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::model::property::props;

    #[test]
    fn reads_name_the_field_on_error() {
        let m = props([("n", PropertyValue::from(3.0)), ("s", "12".into())]);
        assert_eq!(opt_int(&m, "n").unwrap(), Some(3));
        assert_eq!(opt_int(&m, "s").unwrap(), Some(12));
        assert_eq!(opt_int(&m, "missing").unwrap(), None);
        let e = opt_bool(&m, "n").unwrap_err();
        assert_eq!(
            e.to_string(),
            "invalid input `n`: expected a boolean, got 3"
        );
        let m = props([("l", PropertyValue::Array(vec!["a".into(), 1.0.into()]))]);
        assert_eq!(opt_str_list(&m, "l").unwrap_err().field, "l[1]");
        let m = props([("c", PropertyValue::from(-2.0))]);
        assert!(opt_count(&m, "c").is_err());
    }
}
