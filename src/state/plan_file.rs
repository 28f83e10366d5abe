//! Update plan files: Pulumi's `VersionedDeploymentPlan` (`{"version": 1, "plan":
//! DeploymentPlanV1}`) with each goal's checked inputs under `stepdeck.checkedInputs` and the
//! stack and project the plan was made for under `stepdeck.stack` and `stepdeck.project`.
//! Secrets are encrypted as in a checkpoint; a plan names resources by URN only, so it applies
//! to any state of the same stack (an export imported elsewhere included).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use base64::Engine;
use serde_json::{Map, Value, json};

use crate::engine::model::property::{map_from_json, map_to_json};
use crate::engine::model::resource::{CustomTimeouts, PropertyDependencies};
use crate::engine::model::snapshot::Manifest;
use crate::engine::run::plan::{Plan, PlannedGoal, ResourcePlan};
use crate::engine::{PropertyMap, ProviderRef, StepOp, Urn};

use super::passphrase::{Crypter, SecretsError};
use super::secrets::{decrypt_secrets, encrypt_secrets};
use crate::file_limits::{self, ReadLimitError, STATE_DOCUMENT, WriteLimitError, check_write};

/// The plan format version this engine writes and reads.
pub const PLAN_VERSION: u64 = 1;

/// A plan as saved: the resources' plans and what it was made for.
#[derive(Clone, Debug, PartialEq)]
pub struct PlanFile {
    pub plan: Plan,
    pub stack: String,
    pub project: String,
    /// The stack's configuration as its settings file holds it (`{"secure": …}` for secrets).
    pub config: Map<String, Value>,
}

/// A plan file that cannot be written or used; names the file and the field.
#[derive(Debug, thiserror::Error)]
pub enum PlanFileError {
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{}: not a plan file: {source}", path.display())]
    Json {
        path: PathBuf,
        source: serde_json::Error,
    },
    #[error("{}: `{field}`: {message}", path.display())]
    Field {
        path: PathBuf,
        field: String,
        message: String,
    },
    #[error("{}: {source}", path.display())]
    Secrets { path: PathBuf, source: SecretsError },
    #[error(transparent)]
    Read(#[from] ReadLimitError),
    #[error("{}: {source}", path.display())]
    TooLarge {
        path: PathBuf,
        source: WriteLimitError,
    },
}

impl PlanFile {
    /// Writes the plan, its secrets encrypted with `crypter`.
    pub fn write(&self, path: &Path, crypter: Option<&Crypter>) -> Result<(), PlanFileError> {
        let mut value = self.to_json();
        encrypt_secrets(&mut value, crypter).map_err(|source| PlanFileError::Secrets {
            path: path.to_path_buf(),
            source,
        })?;
        let text = serde_json::to_string_pretty(&value).expect("a plan serializes") + "\n";
        check_write("the plan", text.len(), STATE_DOCUMENT).map_err(|source| {
            PlanFileError::TooLarge {
                path: path.to_path_buf(),
                source,
            }
        })?;
        std::fs::write(path, text).map_err(|source| PlanFileError::Io {
            path: path.to_path_buf(),
            source,
        })
    }

    /// Reads a plan file written by [`PlanFile::write`] for `stack` of `project` (at most
    /// [`STATE_DOCUMENT`] bytes). A plan made for another stack or project is refused naming
    /// both before anything in it is decrypted (its secrets are another stack's).
    pub fn read(
        path: &Path,
        stack: &str,
        project: &str,
        crypter: Option<&Crypter>,
    ) -> Result<PlanFile, PlanFileError> {
        let bytes = file_limits::read(path, STATE_DOCUMENT)?;
        let mut value: Value =
            serde_json::from_slice(&bytes).map_err(|source| PlanFileError::Json {
                path: path.to_path_buf(),
                source,
            })?;
        for (key, wanted) in [("project", project), ("stack", stack)] {
            if let Some(made) = value
                .get("plan")
                .and_then(|p| p.get(format!("stepdeck.{key}")))
                .and_then(Value::as_str)
                .filter(|made| *made != wanted)
            {
                return Err(PlanFileError::Field {
                    path: path.to_path_buf(),
                    field: format!("plan.stepdeck.{key}"),
                    message: format!("the plan is for {key} {made:?}, not {wanted:?}"),
                });
            }
        }
        decrypt_secrets(&mut value, crypter).map_err(|source| PlanFileError::Secrets {
            path: path.to_path_buf(),
            source,
        })?;
        PlanFile::from_json(&value).map_err(|(field, message)| PlanFileError::Field {
            path: path.to_path_buf(),
            field,
            message,
        })
    }

    /// The JSON document, secrets in plaintext.
    pub fn to_json(&self) -> Value {
        let resources: Map<String, Value> = self
            .plan
            .resources
            .iter()
            .map(|(urn, rp)| (urn.as_str().to_string(), resource_json(rp)))
            .collect();
        json!({
            "version": PLAN_VERSION,
            "plan": {
                "manifest": Manifest::now(),
                "config": self.config,
                "resourcePlans": resources,
                "stepdeck.stack": self.stack,
                "stepdeck.project": self.project,
            }
        })
    }

    /// Decodes the JSON document; an error names the field (`plan.resourcePlans.<urn>.steps`).
    pub fn from_json(v: &Value) -> Result<PlanFile, (String, String)> {
        let version = v
            .get("version")
            .and_then(Value::as_u64)
            .ok_or_else(|| bad("version", "missing or not a number"))?;
        if version != PLAN_VERSION {
            return Err(bad(
                "version",
                format!(
                    "plan version {version} is not supported (this stepdeck reads version {PLAN_VERSION})"
                ),
            ));
        }
        let plan = v
            .get("plan")
            .and_then(Value::as_object)
            .ok_or_else(|| bad("plan", "missing or not an object"))?;
        let text = |key: &str| -> Result<String, (String, String)> {
            plan.get(key)
                .and_then(Value::as_str)
                .map(str::to_string)
                .ok_or_else(|| bad(&format!("plan.{key}"), "missing or not a string"))
        };
        plan.get("manifest")
            .and_then(Value::as_object)
            .ok_or_else(|| bad("plan.manifest", "missing or not an object"))?;
        let config = match plan.get("config") {
            None => Map::new(),
            Some(Value::Object(m)) => m.clone(),
            Some(_) => return Err(bad("plan.config", "not an object")),
        };
        let mut resources = BTreeMap::new();
        if let Some(rps) = plan.get("resourcePlans") {
            let rps = rps
                .as_object()
                .ok_or_else(|| bad("plan.resourcePlans", "not an object"))?;
            for (urn, rp) in rps {
                let field = format!("plan.resourcePlans.{urn}");
                let parsed = Urn::parse(urn).map_err(|e| bad(&field, e.to_string()))?;
                let rp = resource_from_json(rp).map_err(|(f, m)| bad(&format!("{field}{f}"), m))?;
                resources.insert(parsed, rp);
            }
        }
        Ok(PlanFile {
            plan: Plan { resources },
            stack: text("stepdeck.stack")?,
            project: text("stepdeck.project")?,
            config,
        })
    }
}

fn bad(field: &str, message: impl Into<String>) -> (String, String) {
    (field.to_string(), message.into())
}

fn urns_json(urns: &[Urn]) -> Value {
    Value::Array(urns.iter().map(|u| u.as_str().into()).collect())
}

fn resource_json(rp: &ResourcePlan) -> Value {
    let mut o = Map::new();
    if let Some(goal) = &rp.goal {
        o.insert("goal".into(), goal_json(goal));
    }
    o.insert(
        "steps".into(),
        Value::Array(rp.ops.iter().map(|op| op.as_str().into()).collect()),
    );
    o.insert(
        "state".into(),
        rp.outputs
            .as_ref()
            .map_or(Value::Null, |m| Value::Object(map_to_json(m))),
    );
    if !rp.seed.is_empty() {
        let seed = base64::engine::general_purpose::STANDARD.encode(&rp.seed);
        o.insert("seed".into(), seed.into());
    }
    Value::Object(o)
}

/// Pulumi's `inputDiff`: what the plan adds, updates and deletes relative to the old inputs.
fn input_diff(old: Option<&PropertyMap>, new: &PropertyMap) -> Value {
    let empty = PropertyMap::new();
    let old = old.unwrap_or(&empty);
    let mut adds = Map::new();
    let mut updates = Map::new();
    for (k, v) in new {
        match old.get(k) {
            None => {
                adds.insert(k.clone(), v.to_json());
            }
            Some(o) if o != v => {
                updates.insert(k.clone(), v.to_json());
            }
            Some(_) => {}
        }
    }
    let deletes: Vec<Value> = old
        .keys()
        .filter(|k| !new.contains_key(*k))
        .map(|k| k.as_str().into())
        .collect();
    let mut d = Map::new();
    if !adds.is_empty() {
        d.insert("adds".into(), Value::Object(adds));
    }
    if !updates.is_empty() {
        d.insert("updates".into(), Value::Object(updates));
    }
    if !deletes.is_empty() {
        d.insert("deletes".into(), Value::Array(deletes));
    }
    Value::Object(d)
}

fn goal_json(g: &PlannedGoal) -> Value {
    let mut o = Map::new();
    o.insert("type".into(), g.type_.clone().into());
    o.insert("name".into(), g.name.clone().into());
    o.insert("custom".into(), g.custom.into());
    o.insert(
        "inputDiff".into(),
        input_diff(g.old_inputs.as_ref(), &g.inputs),
    );
    o.insert("outputDiff".into(), Value::Object(Map::new()));
    if let Some(p) = &g.parent {
        o.insert("parent".into(), p.as_str().into());
    }
    o.insert("protect".into(), g.protect.into());
    if !g.dependencies.is_empty() {
        o.insert("dependencies".into(), urns_json(&g.dependencies));
    }
    if let Some(p) = &g.provider {
        o.insert("provider".into(), p.to_string().into());
    }
    if !g.property_dependencies.is_empty() {
        let deps: Map<String, Value> = g
            .property_dependencies
            .iter()
            .map(|(k, v)| (k.clone(), urns_json(v)))
            .collect();
        o.insert("propertyDependencies".into(), Value::Object(deps));
    }
    if let Some(dbr) = g.delete_before_replace {
        o.insert("deleteBeforeReplace".into(), dbr.into());
    }
    if !g.ignore_changes.is_empty() {
        o.insert("ignoreChanges".into(), json!(g.ignore_changes));
    }
    if !g.additional_secret_outputs.is_empty() {
        o.insert(
            "additionalSecretOutputs".into(),
            json!(g.additional_secret_outputs),
        );
    }
    if !g.aliases.is_empty() {
        o.insert("aliases".into(), urns_json(&g.aliases));
    }
    if let Some(t) = &g.custom_timeouts {
        o.insert("customTimeouts".into(), json!(t));
    }
    o.insert(
        "stepdeck.checkedInputs".into(),
        Value::Object(map_to_json(&g.inputs)),
    );
    if let Some(old) = &g.old_inputs {
        o.insert("stepdeck.oldInputs".into(), Value::Object(map_to_json(old)));
    }
    Value::Object(o)
}

type FieldResult<T> = Result<T, (String, String)>;

fn resource_from_json(v: &Value) -> FieldResult<ResourcePlan> {
    let o = v.as_object().ok_or_else(|| bad("", "not an object"))?;
    let goal = o
        .get("goal")
        .map(|g| goal_from_json(g).map_err(|(f, m)| bad(&format!(".goal{f}"), m)))
        .transpose()?;
    let ops = match o.get("steps") {
        None => Vec::new(),
        Some(Value::Array(a)) => a
            .iter()
            .enumerate()
            .map(|(i, s)| {
                s.as_str()
                    .and_then(StepOp::parse)
                    .ok_or_else(|| bad(&format!(".steps[{i}]"), format!("unknown step {s}")))
            })
            .collect::<FieldResult<_>>()?,
        Some(_) => return Err(bad(".steps", "not a list")),
    };
    let outputs = match o.get("state") {
        None | Some(Value::Null) => None,
        Some(s) => Some(map_from_json(s).map_err(|m| bad(".state", m.to_string()))?),
    };
    let seed = match o.get("seed") {
        None => Vec::new(),
        Some(s) => s
            .as_str()
            .and_then(|s| base64::engine::general_purpose::STANDARD.decode(s).ok())
            .ok_or_else(|| bad(".seed", "not base64 text"))?,
    };
    Ok(ResourcePlan {
        goal,
        ops,
        outputs,
        seed,
    })
}

fn urns_from(v: Option<&Value>, field: &str) -> FieldResult<Vec<Urn>> {
    let Some(v) = v else {
        return Ok(Vec::new());
    };
    let a = v.as_array().ok_or_else(|| bad(field, "not a list"))?;
    a.iter()
        .enumerate()
        .map(|(i, u)| {
            u.as_str()
                .ok_or_else(|| "not a string".to_string())
                .and_then(|s| Urn::parse(s).map_err(|e| e.to_string()))
                .map_err(|m| bad(&format!("{field}[{i}]"), m))
        })
        .collect()
}

fn strings_from(v: Option<&Value>, field: &str) -> FieldResult<Vec<String>> {
    match v {
        None => Ok(Vec::new()),
        Some(v) => serde_json::from_value(v.clone()).map_err(|e| bad(field, e.to_string())),
    }
}

fn goal_from_json(v: &Value) -> FieldResult<PlannedGoal> {
    let o = v.as_object().ok_or_else(|| bad("", "not an object"))?;
    let text = |key: &str| -> FieldResult<String> {
        o.get(key)
            .and_then(Value::as_str)
            .map(str::to_string)
            .ok_or_else(|| bad(&format!(".{key}"), "missing or not a string"))
    };
    let inputs = o
        .get("stepdeck.checkedInputs")
        .ok_or_else(|| bad(".stepdeck.checkedInputs", "missing"))
        .and_then(|v| {
            map_from_json(v).map_err(|m| bad(".stepdeck.checkedInputs", m.to_string()))
        })?;
    let old_inputs = o
        .get("stepdeck.oldInputs")
        .map(|v| map_from_json(v).map_err(|m| bad(".stepdeck.oldInputs", m.to_string())))
        .transpose()?;
    let parent = o
        .get("parent")
        .map(|p| {
            p.as_str()
                .ok_or_else(|| "not a string".to_string())
                .and_then(|s| Urn::parse(s).map_err(|e| e.to_string()))
                .map_err(|m| bad(".parent", m))
        })
        .transpose()?;
    let mut property_dependencies = PropertyDependencies::new();
    if let Some(deps) = o.get("propertyDependencies") {
        let deps = deps
            .as_object()
            .ok_or_else(|| bad(".propertyDependencies", "not an object"))?;
        for (k, v) in deps {
            property_dependencies.insert(
                k.clone(),
                urns_from(Some(v), &format!(".propertyDependencies.{k}"))?,
            );
        }
    }
    let custom_timeouts: Option<CustomTimeouts> = o
        .get("customTimeouts")
        .map(|t| {
            serde_json::from_value(t.clone()).map_err(|e| bad(".customTimeouts", e.to_string()))
        })
        .transpose()?;
    Ok(PlannedGoal {
        type_: text("type")?,
        name: text("name")?,
        custom: o.get("custom").and_then(Value::as_bool).unwrap_or(false),
        inputs,
        old_inputs,
        parent,
        protect: o.get("protect").and_then(Value::as_bool).unwrap_or(false),
        dependencies: urns_from(o.get("dependencies"), ".dependencies")?,
        property_dependencies,
        provider: o
            .get("provider")
            .and_then(Value::as_str)
            .filter(|p| !p.is_empty())
            .map(|p| ProviderRef::parse(p).map_err(|e| bad(".provider", e.to_string())))
            .transpose()?,
        delete_before_replace: o.get("deleteBeforeReplace").and_then(Value::as_bool),
        ignore_changes: strings_from(o.get("ignoreChanges"), ".ignoreChanges")?,
        additional_secret_outputs: strings_from(
            o.get("additionalSecretOutputs"),
            ".additionalSecretOutputs",
        )?,
        aliases: urns_from(o.get("aliases"), ".aliases")?,
        custom_timeouts,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::PropertyValue;
    use crate::engine::model::property::props;

    fn sample() -> PlanFile {
        let urn = Urn::parse("urn:pulumi:dev::proj::sim:index:Bucket::b").unwrap();
        let goal = PlannedGoal {
            type_: "sim:index:Bucket".into(),
            name: "b".into(),
            custom: true,
            inputs: props([
                ("size", PropertyValue::Unknown),
                (
                    "key",
                    PropertyValue::Secret(Box::new(PropertyValue::string("k"))),
                ),
            ]),
            protect: true,
            delete_before_replace: Some(true),
            ..PlannedGoal::default()
        };
        let rp = ResourcePlan {
            goal: Some(goal),
            ops: vec![StepOp::Create],
            outputs: Some(props([("id", PropertyValue::Unknown)])),
            seed: vec![1, 2, 3],
        };
        PlanFile {
            plan: Plan {
                resources: BTreeMap::from([(urn, rp)]),
            },
            stack: "dev".into(),
            project: "proj".into(),
            config: Map::new(),
        }
    }

    #[test]
    fn a_plan_reads_back_as_written_with_its_secrets_encrypted() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("plan.json");
        let crypter = Crypter::new_salt("pw");
        let plan = sample();
        plan.write(&path, Some(&crypter)).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(
            text.contains("ciphertext") && !text.contains("\"k\""),
            "{text}"
        );
        assert_eq!(
            PlanFile::read(&path, &plan.stack, &plan.project, Some(&crypter)).unwrap(),
            plan
        );
        assert!(matches!(
            plan.write(&path, None),
            Err(PlanFileError::Secrets { .. })
        ));
    }

    #[test]
    fn a_bad_plan_names_its_field() {
        let mut v = sample().to_json();
        v["version"] = 7.into();
        let (field, message) = PlanFile::from_json(&v).unwrap_err();
        assert_eq!(field, "version");
        assert!(message.contains("version 7"), "{message}");
        let mut v = sample().to_json();
        v["plan"]["resourcePlans"]["urn:pulumi:dev::proj::sim:index:Bucket::b"]["steps"][0] =
            "explode".into();
        let (field, _) = PlanFile::from_json(&v).unwrap_err();
        assert_eq!(
            field,
            "plan.resourcePlans.urn:pulumi:dev::proj::sim:index:Bucket::b.steps[0]"
        );
    }
}
