//! What a refresh found, as Pulumi's summary and displays report it (`RefreshStep.ResultOp`
//! with the outputs diff Pulumi uses for external resources): a resource the provider no longer
//! finds is a `delete`, one whose outputs changed out of band an `update` with the property
//! diff, anything else `same`. One function, so the engine's counts and every display agree.

use crate::engine::StepOp;
use crate::engine::model::property::PropertyMap;
use crate::engine::provider::DiffResult;

use super::diff::diff_inputs;

/// The result of a refresh of a resource whose recorded outputs were `old`: `found` is what the
/// provider read (`None` when the resource is gone).
pub fn refresh_result(old: &PropertyMap, found: Option<&PropertyMap>) -> (StepOp, DiffResult) {
    let Some(found) = found else {
        return (StepOp::Delete, DiffResult::none());
    };
    let diff = diff_inputs(old, found);
    let op = if diff.changed_keys.is_empty() {
        StepOp::Same
    } else {
        StepOp::Update
    };
    (op, diff)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::PropertyValue;

    fn props(n: f64) -> PropertyMap {
        PropertyMap::from([("n".to_string(), PropertyValue::Number(n))])
    }

    #[test]
    fn gone_is_a_delete_changed_an_update_else_same() {
        assert_eq!(refresh_result(&props(1.0), None).0, StepOp::Delete);
        assert_eq!(
            refresh_result(&props(1.0), Some(&props(1.0))).0,
            StepOp::Same
        );
        let (op, diff) = refresh_result(&props(1.0), Some(&props(99.0)));
        assert_eq!(op, StepOp::Update);
        assert_eq!(diff.changed_keys, vec!["n".to_string()]);
        assert!(diff.detailed_diff.contains_key("n"));
    }
}
