//! `preview --save-plan` and `up --plan`: writing the plan a preview recorded, and reading one
//! back for an update after checking it was made for this stack, project and configuration.

use std::path::Path;

use anyhow::Result;
use serde_json::{Map, Value, json};
use stepdeck::engine::run::plan::Plan;
use stepdeck::project::ConfigValue;
use stepdeck::project::config::value_text;
use stepdeck::state::plan_file::PlanFile;

use super::errors::usage;
use super::workspace::{Stack, Workspace};

/// The stack's configuration as a plan records it (Pulumi's `config.Map`: secrets keep their
/// ciphertext as `{"secure": …}`).
fn plan_config(stack: &Stack) -> Map<String, Value> {
    stack
        .settings
        .config
        .iter()
        .map(|(key, value)| {
            let v = match value {
                ConfigValue::Secure(ct) => json!({ "secure": ct }),
                ConfigValue::Plain(v) => Value::String(value_text(v)),
            };
            (key.to_string(), v)
        })
        .collect()
}

/// Writes the plan a preview recorded to `path`.
pub(super) fn save(path: &Path, ws: &Workspace, stack: &Stack, plan: Plan) -> Result<()> {
    let file = PlanFile {
        plan,
        stack: stack.name.clone(),
        project: ws.project.name.clone(),
        config: plan_config(stack),
    };
    file.write(path, stack.crypter.as_ref())?;
    Ok(())
}

/// Reads the plan at `path` for an update of `stack`: a plan of another stack or project, or
/// made with other configuration, is refused naming the field (exit code 2).
pub(super) fn load(path: &Path, ws: &Workspace, stack: &Stack) -> Result<Plan> {
    let file = PlanFile::read(path, &stack.name, &ws.project.name, stack.crypter.as_ref())
        .map_err(|e| usage(e.to_string()))?;
    let at = path.display();
    let current = plan_config(stack);
    let keys: std::collections::BTreeSet<&String> =
        file.config.keys().chain(current.keys()).collect();
    if let Some(key) = keys
        .into_iter()
        .find(|k| file.config.get(*k) != current.get(*k))
    {
        return Err(usage(format!(
            "{at}: `plan.config.{key}`: the stack's configuration changed since the plan was made"
        )));
    }
    Ok(file.plan)
}
