//! `pulumi:index:Stash` (Pulumi's `builtins.go`): a resource that keeps the first value it was
//! given as `output` while `input` follows the program, so a program can remember a value
//! across updates. It lives in the builtin `pulumi` provider.

use crate::engine::provider::{
    CheckFailure, CheckResult, CreateResult, DiffChanges, DiffResult, ProviderError, ReadResult,
};
use crate::engine::{PropertyMap, PropertyValue};

/// The stash's type token.
pub const STASH_TYPE: &str = "pulumi:index:Stash";

const INPUT: &str = "input";
const OUTPUT: &str = "output";

/// `input` is required and the only input.
pub fn check(news: PropertyMap) -> CheckResult {
    let failure = |property: &str, reason: String| CheckResult {
        inputs: PropertyMap::new(),
        failures: vec![CheckFailure {
            property: property.to_string(),
            reason,
        }],
    };
    if let Some(k) = news.keys().find(|k| *k != INPUT) {
        return failure(k, format!("unknown property \"{k}\""));
    }
    if !news.contains_key(INPUT) {
        return failure(INPUT, "missing required property \"input\"".to_string());
    }
    CheckResult {
        inputs: news,
        failures: Vec::new(),
    }
}

/// A changed `input` is an update (which keeps `output`), never a replacement.
pub fn diff(old_inputs: &PropertyMap, new_inputs: &PropertyMap) -> DiffResult {
    if old_inputs.get(INPUT) == new_inputs.get(INPUT) {
        return DiffResult::none();
    }
    DiffResult {
        changes: DiffChanges::Some,
        changed_keys: vec![INPUT.to_string()],
        ..DiffResult::default()
    }
}

/// The first value is both `input` and `output`.
pub fn create(inputs: &PropertyMap, preview: bool) -> CreateResult {
    let value = inputs.get(INPUT).cloned().unwrap_or(PropertyValue::Null);
    CreateResult {
        id: if preview {
            String::new()
        } else {
            uuid::Uuid::new_v4().to_string()
        },
        outputs: PropertyMap::from([
            (INPUT.to_string(), value.clone()),
            (OUTPUT.to_string(), value),
        ]),
    }
}

/// `input` takes the new value; `output` keeps the stashed one.
pub fn update(new_inputs: &PropertyMap, old_outputs: &PropertyMap) -> PropertyMap {
    PropertyMap::from([
        (
            INPUT.to_string(),
            new_inputs
                .get(INPUT)
                .cloned()
                .unwrap_or(PropertyValue::Null),
        ),
        (
            OUTPUT.to_string(),
            old_outputs
                .get(OUTPUT)
                .cloned()
                .unwrap_or(PropertyValue::Null),
        ),
    ])
}

/// A refresh keeps what is recorded; a stash has nothing outside the state to import.
pub fn read(
    id: String,
    inputs: PropertyMap,
    state: PropertyMap,
) -> Result<ReadResult, ProviderError> {
    if inputs.is_empty() {
        return Err(ProviderError::Failed(
            "stash can not be imported".to_string(),
        ));
    }
    Ok(ReadResult {
        id,
        inputs,
        outputs: state,
    })
}
