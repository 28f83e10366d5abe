//! The builtin `pulumi` provider: `pulumi:pulumi:StackReference` and the functions that read
//! other stacks of the same backend, as Pulumi's engine serves them itself, and
//! `pulumi:index:Stash` (in `stash`).

use std::sync::Arc;

use async_trait::async_trait;

use crate::engine::model::urn::ROOT_STACK_TYPE;
use crate::engine::provider::stack_outputs::STACK_REFERENCE_TYPE;
use crate::engine::provider::{
    CheckFailure, CheckRequest, CheckResult, CreateRequest, CreateResult, DeleteRequest,
    DiffRequest, DiffResult, ProviderError, ReadRequest, ReadResult, UpdateRequest,
};
use crate::engine::{PropertyMap, PropertyValue, Provider, Snapshot, StackOutputsSource};

use super::stash::{self, STASH_TYPE};

const READ_STACK_OUTPUTS: &str = "pulumi:pulumi:readStackOutputs";
const READ_STACK_RESOURCE_OUTPUTS: &str = "pulumi:pulumi:readStackResourceOutputs";

/// Serves the `pulumi` package; without a stack source (a deployment with no backend) every
/// stack read fails with a clear error.
pub struct PulumiProvider {
    stacks: Option<Arc<dyn StackOutputsSource>>,
}

impl PulumiProvider {
    pub fn new(stacks: Option<Arc<dyn StackOutputsSource>>) -> PulumiProvider {
        PulumiProvider { stacks }
    }

    fn snapshot(&self, name: &str) -> Result<Snapshot, ProviderError> {
        let stacks = self.stacks.as_ref().ok_or_else(|| {
            ProviderError::Failed("no backend is available to read stacks from".to_string())
        })?;
        stacks
            .snapshot(name)
            .map_err(|e| ProviderError::Failed(e.to_string()))
    }

    /// `{name, outputs, secretOutputNames}` of the stack named by `inputs.name`: the outputs
    /// keep their secrets, and the names of those holding one are listed, sorted.
    fn read_stack_reference(&self, inputs: &PropertyMap) -> Result<PropertyMap, ProviderError> {
        let name = string_arg(inputs, "name")?;
        let snapshot = self.snapshot(&name)?;
        let outputs = snapshot
            .resources
            .iter()
            .find(|r| r.type_ == ROOT_STACK_TYPE && r.parent.is_none() && !r.delete)
            .map(|r| r.outputs.clone())
            .unwrap_or_default();
        let secret_names = outputs
            .iter()
            .filter(|(_, v)| v.contains_secrets())
            .map(|(k, _)| PropertyValue::String(k.clone()))
            .collect();
        Ok(PropertyMap::from([
            ("name".to_string(), PropertyValue::String(name)),
            ("outputs".to_string(), PropertyValue::Object(outputs)),
            (
                "secretOutputNames".to_string(),
                PropertyValue::Array(secret_names),
            ),
        ]))
    }

    /// `{name, outputs}`, the outputs keyed by URN, each `{type, outputs}`; resources pending
    /// deletion are left out, as Pulumi leaves them out.
    fn read_stack_resource_outputs(
        &self,
        args: &PropertyMap,
    ) -> Result<PropertyMap, ProviderError> {
        let name = string_arg(args, "stackName")?;
        let outputs = self
            .snapshot(&name)?
            .resources
            .into_iter()
            .filter(|r| !r.delete)
            .map(|r| {
                let entry = PropertyMap::from([
                    ("type".to_string(), PropertyValue::String(r.type_)),
                    ("outputs".to_string(), PropertyValue::Object(r.outputs)),
                ]);
                (r.urn.as_str().to_string(), PropertyValue::Object(entry))
            })
            .collect();
        Ok(PropertyMap::from([
            ("name".to_string(), PropertyValue::String(name)),
            ("outputs".to_string(), PropertyValue::Object(outputs)),
        ]))
    }
}

/// A string argument the caller must pass.
fn string_arg(args: &PropertyMap, key: &str) -> Result<String, ProviderError> {
    match args.get(key).map(PropertyValue::reveal) {
        Some(PropertyValue::String(s)) => Ok(s),
        Some(_) => Err(ProviderError::Failed(format!(
            "property \"{key}\" must be a string"
        ))),
        None => Err(ProviderError::Failed(format!(
            "missing required property \"{key}\""
        ))),
    }
}

fn unrecognized(type_: &str) -> ProviderError {
    ProviderError::Failed(format!("unrecognized resource type '{type_}'"))
}

#[async_trait]
impl Provider for PulumiProvider {
    async fn check(&self, req: CheckRequest) -> Result<CheckResult, ProviderError> {
        if req.urn.type_() == STASH_TYPE {
            return Ok(stash::check(req.news));
        }
        if req.urn.type_() != STACK_REFERENCE_TYPE {
            return Err(unrecognized(req.urn.type_()));
        }
        let failure = |property: &str, reason: String| CheckResult {
            inputs: PropertyMap::new(),
            failures: vec![CheckFailure {
                property: property.to_string(),
                reason,
            }],
        };
        if let Some(k) = req.news.keys().find(|k| *k != "name") {
            return Ok(failure(k, format!("unknown property \"{k}\"")));
        }
        match req.news.get("name").map(PropertyValue::reveal) {
            None => Ok(failure(
                "name",
                "missing required property \"name\"".to_string(),
            )),
            Some(PropertyValue::String(_) | PropertyValue::Unknown) => Ok(CheckResult {
                inputs: req.news,
                failures: Vec::new(),
            }),
            Some(_) => Ok(failure(
                "name",
                "property \"name\" must be a string".to_string(),
            )),
        }
    }

    async fn diff(&self, req: DiffRequest) -> Result<DiffResult, ProviderError> {
        if req.urn.type_() == STASH_TYPE {
            return Ok(stash::diff(&req.old_inputs, &req.new_inputs));
        }
        if req.urn.type_() != STACK_REFERENCE_TYPE {
            return Err(unrecognized(req.urn.type_()));
        }
        if req.new_inputs.get("name") == req.old_inputs.get("name") {
            return Ok(DiffResult::none());
        }
        Ok(DiffResult {
            changes: crate::engine::provider::DiffChanges::Some,
            replace_keys: vec!["name".to_string()],
            changed_keys: vec!["name".to_string()],
            ..DiffResult::default()
        })
    }

    async fn create(&self, req: CreateRequest) -> Result<CreateResult, ProviderError> {
        if req.urn.type_() == STASH_TYPE {
            return Ok(stash::create(&req.inputs, req.preview));
        }
        if req.urn.type_() != STACK_REFERENCE_TYPE {
            return Err(unrecognized(req.urn.type_()));
        }
        let outputs = self.read_stack_reference(&req.inputs)?;
        let id = if req.preview {
            String::new()
        } else {
            uuid::Uuid::new_v4().to_string()
        };
        Ok(CreateResult { id, outputs })
    }

    /// A stack reference is read every run, so that it follows the stack it names.
    async fn read(&self, req: ReadRequest) -> Result<ReadResult, ProviderError> {
        if req.urn.type_() == STASH_TYPE {
            return stash::read(req.id, req.inputs, req.state);
        }
        if req.urn.type_() != STACK_REFERENCE_TYPE {
            return Err(unrecognized(req.urn.type_()));
        }
        if let Some(k) = req.inputs.keys().find(|k| *k != "name") {
            return Err(ProviderError::Failed(format!("unknown property \"{k}\"")));
        }
        if !req.inputs.contains_key("name") {
            return Err(ProviderError::Failed(
                "stack reference can not be imported".to_string(),
            ));
        }
        let outputs = self.read_stack_reference(&req.inputs)?;
        Ok(ReadResult {
            id: req.id,
            inputs: req.inputs,
            outputs,
        })
    }

    async fn update(&self, req: UpdateRequest) -> Result<PropertyMap, ProviderError> {
        if req.urn.type_() == STASH_TYPE {
            return Ok(stash::update(&req.new_inputs, &req.old_outputs));
        }
        Err(unrecognized(req.urn.type_()))
    }

    async fn delete(&self, _req: DeleteRequest) -> Result<(), ProviderError> {
        Ok(())
    }

    async fn invoke(&self, token: &str, args: &PropertyMap) -> Result<PropertyMap, ProviderError> {
        match token {
            READ_STACK_OUTPUTS => self.read_stack_reference(args),
            READ_STACK_RESOURCE_OUTPUTS => self.read_stack_resource_outputs(args),
            other => Err(ProviderError::Failed(format!(
                "unrecognized function name: '{other}'"
            ))),
        }
    }

    fn resource_types(&self) -> Vec<String> {
        vec![STACK_REFERENCE_TYPE.to_string(), STASH_TYPE.to_string()]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Urn;

    fn urn() -> Urn {
        Urn::new("dev", "p", None, STACK_REFERENCE_TYPE, "ref")
    }

    fn name(n: &str) -> PropertyMap {
        PropertyMap::from([("name".to_string(), PropertyValue::string(n))])
    }

    async fn check(news: PropertyMap) -> Vec<String> {
        PulumiProvider::new(None)
            .check(CheckRequest {
                urn: urn(),
                olds: PropertyMap::new(),
                news,
                random_seed: Vec::new(),
                autonaming: None,
            })
            .await
            .unwrap()
            .failures
            .into_iter()
            .map(|f| format!("{}: {}", f.property, f.reason))
            .collect()
    }

    #[tokio::test]
    async fn check_wants_only_a_string_name() {
        assert!(check(name("organization/p/s")).await.is_empty());
        assert_eq!(
            check(PropertyMap::new()).await,
            ["name: missing required property \"name\""]
        );
        let mut extra = name("s");
        extra.insert("other".into(), PropertyValue::Bool(true));
        assert_eq!(check(extra).await, ["other: unknown property \"other\""]);
        let number = PropertyMap::from([("name".to_string(), PropertyValue::Number(1.0))]);
        assert_eq!(
            check(number).await,
            ["name: property \"name\" must be a string"]
        );
    }

    #[tokio::test]
    async fn a_new_name_replaces_the_reference() {
        let diff = |old: &str, new: &str| DiffRequest {
            urn: urn(),
            id: "x".into(),
            old_inputs: name(old),
            old_outputs: PropertyMap::new(),
            new_inputs: name(new),
            ignore_changes: Vec::new(),
        };
        let p = PulumiProvider::new(None);
        assert_eq!(p.diff(diff("a", "a")).await.unwrap(), DiffResult::none());
        assert_eq!(p.diff(diff("a", "b")).await.unwrap().replace_keys, ["name"]);
    }

    #[tokio::test]
    async fn without_a_backend_or_with_an_unknown_function_it_says_so() {
        let p = PulumiProvider::new(None);
        let e = p
            .invoke(READ_STACK_OUTPUTS, &name("s"))
            .await
            .unwrap_err()
            .to_string();
        assert_eq!(e, "no backend is available to read stacks from");
        let e = p
            .invoke("pulumi:pulumi:nothing", &name("s"))
            .await
            .unwrap_err()
            .to_string();
        assert_eq!(e, "unrecognized function name: 'pulumi:pulumi:nothing'");
        let e = p
            .invoke(READ_STACK_RESOURCE_OUTPUTS, &PropertyMap::new())
            .await
            .unwrap_err()
            .to_string();
        assert_eq!(e, "missing required property \"stackName\"");
    }
}
