//! Stack references in YAML: `fn::stackReference: [stack, property]` reads each named stack once
//! per run through a `pulumi:pulumi:StackReference` read named for the stack, as pulumi-yaml
//! keeps one reference per stack name.

use std::collections::HashMap;
use std::sync::Arc;

use parking_lot::Mutex;

use futures::future::{BoxFuture, FutureExt, Shared};

use crate::engine::provider::stack_outputs::STACK_REFERENCE_TYPE;
use crate::engine::{PropertyMap, PropertyValue, ReadGoal, Registered, ResourceMonitor, Severity};

type SharedRead = Shared<BoxFuture<'static, Result<Registered, String>>>;

/// The stacks this run has referenced, each read once; cheap to clone.
#[derive(Clone, Default)]
pub(super) struct StackReferences {
    reads: Arc<Mutex<HashMap<String, SharedRead>>>,
}

impl StackReferences {
    /// The stack reference for `stack`, read on first use; `at` locates the first use for the
    /// deprecation warning pulumi-yaml gives.
    pub(super) async fn read(
        &self,
        monitor: &ResourceMonitor,
        stack: &str,
        at: String,
    ) -> Result<Registered, String> {
        let fut = {
            let mut reads = self.reads.lock();
            reads
                .entry(stack.to_string())
                .or_insert_with(|| {
                    monitor.log(
                        Severity::Warning,
                        None,
                        format!(
                            "{at}: 'fn::stackReference' is deprecated: use a resource of type `{STACK_REFERENCE_TYPE}`"
                        ),
                    );
                    let monitor = monitor.clone();
                    let goal = reference_goal(stack, PropertyMap::new());
                    async move { monitor.read(goal).await.map_err(|e| e.to_string()) }
                        .boxed()
                        .shared()
                })
                .clone()
        };
        fut.await
    }
}

/// The read of a `pulumi:pulumi:StackReference` named `name` (also its id and its `name`
/// input), with the other `properties` a YAML resource gives it.
pub(super) fn reference_goal(name: &str, mut properties: PropertyMap) -> ReadGoal {
    properties.insert("name".to_string(), PropertyValue::string(name));
    ReadGoal {
        type_: STACK_REFERENCE_TYPE.to_string(),
        name: name.to_string(),
        id: name.to_string(),
        parent: None,
        provider: None,
        properties,
        dependencies: Vec::new(),
        additional_secret_outputs: Vec::new(),
        version: None,
    }
}

/// One output of a read reference: null when the stack has no such output, secret when it is
/// secret there (or listed in `secretOutputNames`), unknown while the reference is.
pub(super) fn output_of(reg: &Registered, property: &str) -> PropertyValue {
    if reg.unknown {
        return PropertyValue::Unknown;
    }
    let outputs = match reg.outputs.get("outputs").map(PropertyValue::reveal) {
        Some(PropertyValue::Object(m)) => m,
        Some(PropertyValue::Unknown) | None => return PropertyValue::Unknown,
        Some(_) => PropertyMap::new(),
    };
    let listed = reg
        .outputs
        .get("secretOutputNames")
        .map(PropertyValue::reveal)
        .and_then(|v| {
            v.as_array()
                .map(|a| a.iter().any(|n| n.as_str() == Some(property)))
        })
        .unwrap_or(false);
    let value = outputs
        .get(property)
        .cloned()
        .unwrap_or(PropertyValue::Null);
    if listed && !value.is_secret() {
        PropertyValue::Secret(Box::new(value))
    } else {
        value
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{RegisterStatus, Urn};

    fn read(outputs: PropertyValue, secret_names: &[&str]) -> Registered {
        Registered {
            urn: Urn::new("dev", "p", None, STACK_REFERENCE_TYPE, "s"),
            id: Some("s".into()),
            outputs: PropertyMap::from([
                ("outputs".to_string(), outputs),
                (
                    "secretOutputNames".to_string(),
                    PropertyValue::Array(
                        secret_names
                            .iter()
                            .map(|n| PropertyValue::string(*n))
                            .collect(),
                    ),
                ),
            ]),
            status: RegisterStatus::Success,
            unknown: false,
        }
    }

    #[test]
    fn outputs_keep_their_secrecy_and_missing_ones_are_null() {
        let secret = PropertyValue::Secret(Box::new(PropertyValue::string("t")));
        let outputs = PropertyValue::Object(PropertyMap::from([
            ("plain".to_string(), PropertyValue::string("p")),
            ("token".to_string(), secret.clone()),
            ("listed".to_string(), PropertyValue::string("l")),
        ]));
        let reg = read(outputs, &["token", "listed"]);
        assert_eq!(output_of(&reg, "plain"), PropertyValue::string("p"));
        assert_eq!(output_of(&reg, "token"), secret);
        assert_eq!(
            output_of(&reg, "listed"),
            PropertyValue::Secret(Box::new(PropertyValue::string("l")))
        );
        assert_eq!(output_of(&reg, "nothing"), PropertyValue::Null);
        assert_eq!(
            output_of(&read(PropertyValue::Unknown, &[]), "plain"),
            PropertyValue::Unknown
        );
    }
}
