//! The program of an import deployment: it registers the stack, the existing parents and
//! providers the imported resources name (kept as they are: they are not targeted), then
//! every resource to import with its ID, adopting what the provider's read returns.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use async_trait::async_trait;
use stepdeck::engine::model::resource::is_provider_type;
use stepdeck::engine::model::urn::ROOT_STACK_TYPE;
use stepdeck::engine::{
    Goal, Program, ProgramError, ProviderRef, ResourceMonitor, ResourceState, Urn,
};

use super::spec::Resolved;

/// What an import deployment registers.
#[derive(Debug)]
pub(in crate::cli) struct ImportPlan {
    pub resolved: Resolved,
    /// The stack's resources before the import.
    pub existing: Vec<ResourceState>,
    /// `--protect`: the imported resources are protected.
    pub protect: bool,
    /// Resources of the import the stack holds already under the same ID: left as they are.
    pub present: Vec<Urn>,
}

impl ImportPlan {
    /// The URNs the import targets: every resource it imports (what exists stays as it is).
    pub(in crate::cli) fn targets(&self) -> Vec<String> {
        self.importing().map(|e| e.urn.to_string()).collect()
    }

    /// The resources the deployment imports.
    fn importing(&self) -> impl Iterator<Item = &super::spec::Entry> {
        self.resolved
            .entries
            .iter()
            .filter(|e| !self.present.contains(&e.urn))
    }
}

/// Runs an [`ImportPlan`] as the deployment's program.
pub(in crate::cli) struct ImportProgram(pub Arc<ImportPlan>);

fn failed(what: &str, e: impl std::fmt::Display) -> ProgramError {
    ProgramError(format!("{what}: {e}"))
}

#[async_trait]
impl Program for ImportProgram {
    async fn run(self: Box<Self>, monitor: ResourceMonitor) -> Result<(), ProgramError> {
        let plan = &self.0;
        let info = monitor.info().clone();
        let root_name = format!("{}-{}", info.project, info.stack);
        let root = monitor
            .register(Goal::component(ROOT_STACK_TYPE, &root_name))
            .await
            .map_err(|e| failed("registering the stack failed", e))?;
        // The stack's outputs stay what they were.
        let old_root = plan
            .existing
            .iter()
            .find(|r| r.urn == root.urn && !r.delete);
        monitor
            .register_outputs(
                &root.urn,
                old_root.map(|r| r.outputs.clone()).unwrap_or_default(),
            )
            .await
            .map_err(|e| failed("registering the stack's outputs failed", e))?;
        let mut refs: HashMap<Urn, ProviderRef> = HashMap::new();
        for r in needed_existing(plan, &root.urn) {
            let mut goal = Goal {
                type_: r.type_.clone(),
                name: r.urn.name().to_string(),
                custom: r.custom,
                parent: r.parent.clone(),
                properties: r.inputs.clone(),
                protect: Some(r.protect),
                ..Goal::default()
            };
            if !is_provider_type(&r.type_) {
                goal.provider = r.provider.clone();
            }
            let reg = monitor
                .register(goal)
                .await
                .map_err(|e| failed(&format!("registering {}", r.urn), e))?;
            if is_provider_type(&r.type_) {
                refs.insert(
                    reg.urn.clone(),
                    ProviderRef::new(reg.urn, reg.id.unwrap_or_default()),
                );
            }
        }
        for e in plan.importing() {
            let mut goal = match &e.id {
                None => Goal::component(&e.type_, &e.name),
                Some(id) => Goal {
                    import_id: Some(id.clone()),
                    adopt_read: Some(e.properties.clone()),
                    protect: Some(plan.protect),
                    version: e.version.clone(),
                    ..Goal::custom(&e.type_, &e.name, Default::default())
                },
            };
            goal.parent = e.parent.clone();
            goal.provider = e.provider.as_ref().and_then(|p| refs.get(p).cloned());
            monitor
                .register(goal)
                .await
                .map_err(|err| failed(&format!("importing {}", e.urn), err))?;
        }
        Ok(())
    }
}

/// The existing resources the imports name as parents or providers, with their own parents
/// and providers, in the state's order (which has every resource after those it names).
fn needed_existing<'a>(plan: &'a ImportPlan, root: &Urn) -> Vec<&'a ResourceState> {
    let live: HashMap<&Urn, &ResourceState> = plan
        .existing
        .iter()
        .filter(|r| !r.delete)
        .map(|r| (&r.urn, r))
        .collect();
    let mut needed: HashSet<&Urn> = HashSet::new();
    let mut queue: Vec<&Urn> = plan
        .importing()
        .flat_map(|e| e.parent.iter().chain(e.provider.iter()))
        .collect();
    while let Some(urn) = queue.pop() {
        if urn == root || !needed.insert(urn) {
            continue;
        }
        if let Some(r) = live.get(urn) {
            queue.extend(r.parent.iter());
            if let Some(p) = &r.provider
                && let Some((k, _)) = live.get_key_value(&p.urn)
            {
                queue.push(k);
            }
        }
    }
    plan.existing
        .iter()
        .filter(|r| !r.delete && needed.contains(&r.urn))
        .collect()
}
