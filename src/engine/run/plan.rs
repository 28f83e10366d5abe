//! Update plans (Pulumi's `Plan`): what a preview decided for every resource, so an update run
//! under it does exactly that or refuses. Unknown planned inputs accept any value; a `same`
//! may stand in for a planned update or replacement, and an update for a replacement, as in
//! Pulumi's `checkGoal` and step validation.

use std::collections::BTreeMap;

use crate::engine::model::property::{PropertyMap, PropertyValue};
use crate::engine::model::provider_ref::ProviderRef;
use crate::engine::model::resource::{CustomTimeouts, PropertyDependencies, ResourceState};
use crate::engine::model::urn::Urn;
use crate::engine::step::StepOp;

/// A whole deployment's plan, by URN.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Plan {
    pub resources: BTreeMap<Urn, ResourcePlan>,
}

/// What the preview decided for one resource.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ResourcePlan {
    /// The registration the preview saw; none for a resource the preview only deleted.
    pub goal: Option<PlannedGoal>,
    pub ops: Vec<StepOp>,
    /// The outputs the preview expected (unknowns where the provider could not tell).
    pub outputs: Option<PropertyMap>,
    /// The seed Check got, so providers that derive names from it derive the same ones.
    pub seed: Vec<u8>,
}

/// A registration as the preview saw it: the checked inputs and every option a plan pins.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PlannedGoal {
    pub type_: String,
    pub name: String,
    pub custom: bool,
    /// The inputs after the provider's Check.
    pub inputs: PropertyMap,
    /// The inputs recorded before the preview (to write Pulumi's `inputDiff`); none for a create.
    pub old_inputs: Option<PropertyMap>,
    pub parent: Option<Urn>,
    pub protect: bool,
    pub dependencies: Vec<Urn>,
    pub property_dependencies: PropertyDependencies,
    pub provider: Option<ProviderRef>,
    pub delete_before_replace: Option<bool>,
    pub ignore_changes: Vec<String>,
    pub additional_secret_outputs: Vec<String>,
    pub aliases: Vec<Urn>,
    pub custom_timeouts: Option<CustomTimeouts>,
}

/// A registration or step the plan does not allow; names the resource and what differs.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("resource {urn} violates the plan: {detail}")]
pub struct PlanViolation {
    pub urn: Urn,
    pub detail: PlanMismatch,
}

/// What about a resource differs from its plan.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PlanMismatch {
    /// The program registers a resource the preview did not see.
    #[error(
        "the plan does not create it (the program registers a resource the preview did not see)"
    )]
    NotCreated,
    /// The plan deletes a resource the program still registers.
    #[error("the plan deletes it, but the program registers it")]
    RegisteredAfterDelete,
    /// An input's value differs from the planned one (values shown, secrets hidden).
    #[error("input `{path}` was planned as {planned} but is {actual}")]
    Input {
        path: String,
        planned: String,
        actual: String,
    },
    /// A resource option differs from the planned one.
    #[error("option `{0}` differs from the plan")]
    Option(&'static str),
    /// The plan keeps the resource as it is, yet an input changed.
    #[error("the plan keeps it as it is, but input `{0}` changed")]
    KeptInputChanged(String),
    /// A step of this operation is not among the planned ones.
    #[error("a {op} step is not planned (planned: {planned})")]
    StepNotPlanned { op: &'static str, planned: String },
    /// An output key the plan does not have.
    #[error("output `{0}` was not planned")]
    OutputNotPlanned(String),
    /// An output's value differs from the planned one.
    #[error("output `{0}` differs from the plan")]
    OutputDiffers(String),
    /// Outputs of a resource the plan has no entry for.
    #[error("its outputs were not planned")]
    OutputsNotPlanned,
}

impl PlannedGoal {
    /// The goal of a checked registration (`new` holds the checked inputs).
    pub fn of(
        new: &ResourceState,
        delete_before_replace: Option<bool>,
        old: Option<&ResourceState>,
    ) -> PlannedGoal {
        PlannedGoal {
            type_: new.type_.clone(),
            name: new.urn.name().to_string(),
            custom: new.custom,
            inputs: new.inputs.clone(),
            old_inputs: old.map(|o| o.inputs.clone()),
            parent: new.parent.clone(),
            protect: new.protect,
            dependencies: new.dependencies.clone(),
            property_dependencies: new.property_dependencies.clone(),
            provider: new.provider.clone(),
            delete_before_replace,
            ignore_changes: new.ignore_changes.clone(),
            additional_secret_outputs: new.additional_secret_outputs.clone(),
            aliases: new.aliases.clone(),
            custom_timeouts: new.custom_timeouts.clone(),
        }
    }

    /// Checks a registration against this goal: the first input (by property path) or option
    /// that differs.
    pub fn check(
        &self,
        new: &ResourceState,
        delete_before_replace: Option<bool>,
    ) -> Result<(), PlanMismatch> {
        if let Some(path) = first_difference(&self.inputs, &new.inputs) {
            let planned = shown(lookup(&self.inputs, &path));
            let actual = shown(lookup(&new.inputs, &path));
            return Err(PlanMismatch::Input {
                path,
                planned,
                actual,
            });
        }
        let options: [(&str, bool); 9] = [
            ("parent", self.parent == new.parent),
            ("protect", self.protect == new.protect),
            (
                "provider",
                self.provider.as_ref().map(|p| &p.urn) == new.provider.as_ref().map(|p| &p.urn),
            ),
            (
                "dependencies",
                sorted(&self.dependencies) == sorted(&new.dependencies),
            ),
            (
                "propertyDependencies",
                self.property_dependencies == new.property_dependencies,
            ),
            (
                "deleteBeforeReplace",
                self.delete_before_replace == delete_before_replace,
            ),
            ("ignoreChanges", self.ignore_changes == new.ignore_changes),
            (
                "additionalSecretOutputs",
                self.additional_secret_outputs == new.additional_secret_outputs,
            ),
            (
                "customTimeouts",
                self.custom_timeouts == new.custom_timeouts,
            ),
        ];
        match options.iter().find(|(_, same)| !same) {
            Some((option, _)) => Err(PlanMismatch::Option(option)),
            None => Ok(()),
        }
    }
}

impl ResourcePlan {
    /// Whether a step of `op` may run under this plan: planned, or a lesser change than
    /// planned (a same for an update or replacement, an update for a replacement).
    pub fn allows(&self, op: StepOp) -> bool {
        let replaces = self.ops.iter().any(|o| {
            matches!(
                o,
                StepOp::Replace | StepOp::CreateReplacement | StepOp::DeleteReplaced
            )
        });
        self.ops.contains(&op)
            || (op == StepOp::Same && (replaces || self.ops.contains(&StepOp::Update)))
            || (op == StepOp::Update && replaces)
    }

    /// Checks outputs against the expected ones (`--strict`): every key must be planned, and
    /// a planned known value must be the value.
    pub fn check_outputs(&self, outputs: &PropertyMap) -> Result<(), PlanMismatch> {
        let Some(planned) = &self.outputs else {
            return match outputs.keys().next() {
                Some(k) => Err(PlanMismatch::OutputNotPlanned(k.clone())),
                None => Ok(()),
            };
        };
        for (k, v) in outputs {
            match planned.get(k) {
                None => return Err(PlanMismatch::OutputNotPlanned(k.clone())),
                Some(p) => {
                    if let Some(rest) = first_value_difference(p, v) {
                        return Err(PlanMismatch::OutputDiffers(join_path(k, &rest)));
                    }
                }
            }
        }
        Ok(())
    }
}

fn sorted(urns: &[Urn]) -> Vec<&Urn> {
    let mut v: Vec<&Urn> = urns.iter().collect();
    v.sort();
    v.dedup();
    v
}

/// The first path (`a.b[2]`) where `actual` differs from `planned`; an unknown planned value
/// accepts anything, even no value.
pub fn first_difference(planned: &PropertyMap, actual: &PropertyMap) -> Option<String> {
    let keys: std::collections::BTreeSet<&String> = planned.keys().chain(actual.keys()).collect();
    for k in keys {
        let diff = match (planned.get(k), actual.get(k)) {
            (Some(PropertyValue::Unknown), _) => None,
            (Some(p), Some(a)) => first_value_difference(p, a),
            _ => Some(String::new()),
        };
        if let Some(rest) = diff {
            return Some(join_path(k, &rest));
        }
    }
    None
}

fn first_value_difference(planned: &PropertyValue, actual: &PropertyValue) -> Option<String> {
    match (planned, actual) {
        (PropertyValue::Unknown, _) => None,
        (PropertyValue::Secret(p), PropertyValue::Secret(a)) => first_value_difference(p, a),
        (PropertyValue::Object(p), PropertyValue::Object(a)) => first_difference(p, a),
        (PropertyValue::Array(p), PropertyValue::Array(a)) => {
            if p.len() != a.len() {
                return Some(String::new());
            }
            p.iter()
                .zip(a)
                .enumerate()
                .find_map(|(i, (p, a))| first_value_difference(p, a).map(|r| format!("[{i}]{r}")))
        }
        (p, a) => (p != a).then(String::new),
    }
}

fn join_path(key: &str, rest: &str) -> String {
    if rest.is_empty() || rest.starts_with('[') {
        format!("{key}{rest}")
    } else {
        format!("{key}.{rest}")
    }
}

/// The value at a path [`first_difference`] returned.
fn lookup<'a>(map: &'a PropertyMap, path: &str) -> Option<&'a PropertyValue> {
    let mut value: Option<&PropertyValue> = None;
    let mut current = Some(map);
    for part in path.split('.') {
        let (key, indexes) = match part.find('[') {
            Some(i) => (&part[..i], &part[i..]),
            None => (part, ""),
        };
        value = current.and_then(|m| m.get(key));
        for index in indexes.split(['[', ']']).filter(|s| !s.is_empty()) {
            let i: usize = index.parse().ok()?;
            value = unwrap_secret(value?).as_array().and_then(|a| a.get(i));
        }
        current = value.map(unwrap_secret).and_then(PropertyValue::as_object);
    }
    value
}

fn unwrap_secret(v: &PropertyValue) -> &PropertyValue {
    match v {
        PropertyValue::Secret(inner) => inner,
        other => other,
    }
}

fn shown(v: Option<&PropertyValue>) -> String {
    match v {
        None => "absent".into(),
        Some(PropertyValue::Secret(_)) => "[secret]".into(),
        Some(v) => v.to_display_json().to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::model::property::props;

    #[test]
    fn unknown_planned_inputs_accept_any_value_and_paths_name_the_difference() {
        let planned = props([
            ("size", PropertyValue::Unknown),
            (
                "tags",
                PropertyValue::Object(props([("env", PropertyValue::string("dev"))])),
            ),
        ]);
        let same = props([
            ("size", PropertyValue::Number(3.0)),
            (
                "tags",
                PropertyValue::Object(props([("env", PropertyValue::string("dev"))])),
            ),
        ]);
        assert_eq!(first_difference(&planned, &same), None);
        let edited = props([(
            "tags",
            PropertyValue::Object(props([("env", PropertyValue::string("prod"))])),
        )]);
        assert_eq!(
            first_difference(&planned, &edited).as_deref(),
            Some("tags.env")
        );
        assert_eq!(
            lookup(&edited, "tags.env"),
            Some(&PropertyValue::string("prod"))
        );
        let list = props([(
            "l",
            PropertyValue::Array(vec![PropertyValue::Null, PropertyValue::Bool(true)]),
        )]);
        let other = props([(
            "l",
            PropertyValue::Array(vec![PropertyValue::Null, PropertyValue::Bool(false)]),
        )]);
        assert_eq!(first_difference(&list, &other).as_deref(), Some("l[1]"));
        assert_eq!(lookup(&other, "l[1]"), Some(&PropertyValue::Bool(false)));
    }

    #[test]
    fn a_lesser_change_than_planned_is_allowed() {
        let replace = ResourcePlan {
            ops: vec![
                StepOp::CreateReplacement,
                StepOp::Replace,
                StepOp::DeleteReplaced,
            ],
            ..ResourcePlan::default()
        };
        assert!(replace.allows(StepOp::Same));
        assert!(replace.allows(StepOp::Update));
        let same = ResourcePlan {
            ops: vec![StepOp::Same],
            ..ResourcePlan::default()
        };
        assert!(!same.allows(StepOp::Update));
        assert!(!same.allows(StepOp::Create));
        assert!(!same.allows(StepOp::Delete));
    }
}
