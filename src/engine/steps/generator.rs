//! The step generator: turns each registration into a chain of steps, as Pulumi's engine does
//! (check, diff, create / same / update / replace, delete-before-replace cascades).

use std::collections::HashSet;
use std::sync::Arc;

use super::deletions::Deletions;
use super::diff_job::{DiffContext, DiffJob, DiffTarget, PendingDiff};
use super::policy::Policies;
use super::run_error::RunError;
use super::run_state::RunState;
use super::targeting::Targeting;
use crate::engine::model::goal::{Goal, ReadGoal};
use crate::engine::model::graph::DependencyGraph;
use crate::engine::model::property::{PropertyMap, PropertyValue};
use crate::engine::model::property_path::{PropertyPath, apply_ignore_changes};
use crate::engine::model::resource::{ResourceState, is_provider_type};
use crate::engine::model::snapshot::BaseStates;
use crate::engine::model::urn::{Urn, UrnMap, UrnSet, distinct};
use crate::engine::program::register_error::{
    ImportReplaceRefusal, ProviderRefError, UntargetedCreate, UrnConflict,
};
use crate::engine::program::source::{RegisterError, RegisterStatus, Registered};
use crate::engine::provider::registry::{LoadedProvider, ProviderRegistry};
use crate::engine::provider::{
    AutonamingOptions, CheckRequest, DiffChanges, DiffRequest, DiffResult,
};
use crate::engine::run::deployment::Options;
use crate::engine::run::events::{CascadeId, EngineEvent, EventSink, Operation, Severity};
use crate::engine::run::plan::Plan;
use crate::engine::step::{Changes, OldState, ReplaceOrder, Step, StepOp, Superseded};

mod aliases;
mod plan_check;
mod policy_check;
mod replacement;

pub(crate) use replacement::Cascade;

/// A chain the generator produced for one registration.
pub(crate) struct PlannedChain {
    pub steps: Vec<Step>,
    pub cascade: Option<Cascade>,
}

/// What generating steps for a registration produced.
pub(crate) enum Generated {
    Chain(PlannedChain),
    Diff(Box<PendingDiff>),
    /// Answered without running anything (skipped under continue-on-error).
    Done(Registered),
    /// An import; generation continues with a diff against the imported state.
    Import(PlannedChain, Box<Goal>),
}

/// Owns the bookkeeping of one deployment's step generation; runs on the deployment loop.
pub(crate) struct StepGenerator {
    opts: Arc<Options>,
    registry: Arc<ProviderRegistry>,
    events: EventSink,
    base: BaseStates,
    graph: DependencyGraph,
    /// Live base states by URN (not `delete: true` copies).
    olds: UrnMap<usize>,
    /// URNs registered in this deployment.
    registered: UrnSet,
    /// URNs already stepped on; they cannot be DBR dependents any more.
    operated: UrnSet,
    /// What the run deletes: planned here, its effects recorded by the loop.
    deletions: Deletions,
    dependent_replace_keys: UrnMap<Vec<String>>,
    /// URNs of declined cascades: they keep their old state.
    declined: UrnSet,
    /// Provider resources registered in this deployment, by URN and by the old URN they aliased.
    providers: UrnMap<ResourceState>,
    /// Old URNs claimed through an alias, to the new URN that claimed them.
    aliased: UrnMap<Urn>,
    /// New URNs registered through an alias, to the old URN they took over.
    aliases: UrnMap<Urn>,
    /// URNs replaced in this deployment (a deletedWith dependent is replaced with them).
    replaced: UrnSet,
    targeting: Targeting,
    /// New resources not created because they are outside the targets.
    skipped_creates: UrnSet,
    /// Base positions a refresh before the update found gone.
    vanished: HashSet<usize>,
    next_cascade: CascadeId,
    /// The plan a preview records (`Options::record_plan`).
    recording: Option<Plan>,
    /// The policy packs every registration goes to after Check.
    policies: Arc<Policies>,
}

fn state_from_goal(urn: &Urn, goal: &Goal) -> ResourceState {
    ResourceState {
        urn: urn.clone(),
        custom: goal.custom,
        type_: goal.type_.clone(),
        inputs: goal.properties.clone(),
        parent: goal.parent.clone(),
        protect: goal.protect.unwrap_or(false),
        dependencies: goal.dependencies.clone(),
        provider: if goal.custom {
            goal.provider.clone()
        } else {
            None
        },
        property_dependencies: goal.property_dependencies.clone(),
        additional_secret_outputs: goal.additional_secret_outputs.clone(),
        custom_timeouts: goal.custom_timeouts.clone(),
        import_id: goal.import_id.clone(),
        retain_on_delete: goal.retain_on_delete.unwrap_or(false),
        deleted_with: goal.deleted_with.clone(),
        replace_with: goal.replace_with.clone(),
        replacement_trigger: goal.replacement_trigger.clone(),
        source_position: goal.source_position.clone(),
        ignore_changes: goal.ignore_changes.clone(),
        replace_on_changes: goal.replace_on_changes.clone(),
        hide_diffs: goal.hide_diffs.clone(),
        resource_hooks: goal.hooks.clone(),
        ..ResourceState::default()
    }
}

/// Pulumi's refusal to replace a resource whose program still names an import ID (its
/// `continueStepsFromImport` and later runs alike), each key forcing the replacement as
/// `key: old => new`, strings bare and secrets blinded as Pulumi's `RedactSecrets` prints them.
fn import_replace_refusal(
    keys: &[String],
    old: &PropertyMap,
    new: &PropertyMap,
) -> ImportReplaceRefusal {
    let shown = |v: Option<&PropertyValue>| match v {
        Some(PropertyValue::Secret(_)) => "[secret]".to_string(),
        Some(PropertyValue::String(s)) => s.clone(),
        Some(v) => v.to_string(),
        None => "null".to_string(),
    };
    ImportReplaceRefusal {
        changes: keys
            .iter()
            .map(|k| (k.clone(), shown(old.get(k)), shown(new.get(k))))
            .collect(),
    }
}

fn parse_paths(
    urn: &Urn,
    option: &'static str,
    paths: &[String],
) -> Result<Vec<PropertyPath>, RegisterError> {
    paths
        .iter()
        .map(|p| {
            PropertyPath::parse(p).map_err(|source| RegisterError::OptionPath {
                urn: urn.clone(),
                option,
                source,
            })
        })
        .collect()
}

impl StepGenerator {
    pub(in crate::engine) fn new(
        opts: Arc<Options>,
        registry: Arc<ProviderRegistry>,
        events: EventSink,
        base: BaseStates,
        policies: Arc<Policies>,
    ) -> StepGenerator {
        let graph = DependencyGraph::new(&base);
        let olds = base
            .iter()
            .enumerate()
            .filter(|(_, r)| !r.delete)
            .map(|(i, r)| (r.urn.clone(), i))
            .collect();
        let recording = (opts.record_plan && opts.is_preview()).then(Plan::default);
        StepGenerator {
            targeting: Targeting::new(&opts),
            skipped_creates: UrnSet::default(),
            vanished: HashSet::new(),
            opts,
            registry,
            events,
            base,
            graph,
            olds,
            registered: UrnSet::default(),
            operated: UrnSet::default(),
            deletions: Deletions::default(),
            dependent_replace_keys: UrnMap::default(),
            declined: UrnSet::default(),
            providers: UrnMap::default(),
            aliased: UrnMap::default(),
            aliases: UrnMap::default(),
            replaced: UrnSet::default(),
            next_cascade: 1,
            recording,
            policies,
        }
    }

    pub(in crate::engine) fn base(&self) -> &BaseStates {
        &self.base
    }

    /// Takes what a refresh before the update found (`up --refresh`): refreshed states replace
    /// their old states in place (positions do not change, as in the journal); a resource found
    /// gone has no old state any more, so a registration creates it again and no delete runs.
    pub(in crate::engine) fn rebase(&mut self, refreshed: Vec<(usize, Option<ResourceState>)>) {
        let base = Arc::make_mut(&mut self.base);
        for (i, state) in refreshed {
            match state {
                Some(s) => base[i] = Arc::new(s),
                None => {
                    if self.olds.get(&base[i].urn) == Some(&i) {
                        self.olds.remove(&base[i].urn);
                    }
                    self.vanished.insert(i);
                    self.deletions.found_gone(i);
                }
            }
        }
    }

    /// What the run deletes.
    pub(in crate::engine) fn deletions(&self) -> &Deletions {
        &self.deletions
    }

    /// What the run deletes, for the loop to record what its steps did.
    pub(in crate::engine) fn deletions_mut(&mut self) -> &mut Deletions {
        &mut self.deletions
    }

    /// A fresh gate number; cascades and step gates share them, so one decision names either.
    pub(in crate::engine) fn next_gate(&mut self) -> CascadeId {
        self.next_cascade += 1;
        self.next_cascade - 1
    }

    /// Whether `urn` belongs to a declined cascade (it keeps its old state).
    pub(in crate::engine) fn is_declined(&self, urn: &Urn) -> bool {
        self.declined.contains(urn)
    }

    /// A cascade the operator (or the policy) declined: its members keep their old state, and
    /// the old copies its chain would have deleted are no longer pending deletes.
    pub(in crate::engine) fn decline(&mut self, cascade: &Cascade, steps: &[Step]) {
        self.deletions.decline(
            steps.iter().filter_map(Step::old).map(|o| o.index),
            cascade.members.iter().map(|m| &m.urn),
        );
        for m in &cascade.members {
            self.declined.insert(m.urn.clone());
        }
    }

    pub(in crate::engine) fn graph(&self) -> &DependencyGraph {
        &self.graph
    }

    /// Whether an old URN lives on in this deployment: registered, or claimed by an alias.
    pub(in crate::engine) fn is_live(&self, urn: &Urn) -> bool {
        self.registered.contains(urn) || self.aliased.contains_key(urn)
    }

    fn old(&self, i: usize) -> OldState {
        OldState {
            index: i,
            state: self.base[i].clone(),
        }
    }

    /// What the operation may touch.
    pub(in crate::engine) fn targeting(&self) -> &Targeting {
        &self.targeting
    }

    /// Literal targets (no glob) naming nothing in the old state nor registered in this run
    /// (Pulumi's `checkTargets`).
    pub(in crate::engine) fn unknown_targets(&self, globs: &[String]) -> Vec<String> {
        globs
            .iter()
            .filter(|g| !g.contains('*'))
            .filter(|g| {
                Urn::parse(g).map_or(true, |u| {
                    !self.olds.contains_key(&u) && !self.registered.contains(&u)
                })
            })
            .cloned()
            .collect()
    }

    /// A targeted step may not depend on a create skipped for being outside the targets.
    /// In a preview every such dependency is reported and generation goes on (the run fails
    /// at the end); in an update the first one stops the run.
    fn check_skipped_dependencies(
        &mut self,
        state: &ResourceState,
        run: &mut RunState,
    ) -> Result<(), RegisterError> {
        if !self.targeting.constrains() {
            return Ok(());
        }
        let skipped: Vec<Urn> = state
            .dependency_urns()
            .filter(|d| self.skipped_creates.contains(d))
            .collect();
        for dep in skipped {
            let error = UntargetedCreate {
                urn: state.urn.clone(),
                dependency: dep.clone(),
            };
            if !self.opts.is_preview() {
                return Err(error.into());
            }
            self.events
                .diag(Some(state.urn.clone()), Severity::Error, error.to_string());
            run.record_error(RunError::UntargetedCreate(error));
            self.skipped_creates.remove(&dep);
        }
        Ok(())
    }

    /// The URN of a registration, refused when this deployment already registered it.
    fn claim_urn(
        &mut self,
        parent: Option<&Urn>,
        ty: &str,
        name: &str,
    ) -> Result<Urn, RegisterError> {
        let urn = Urn::new(&self.opts.stack, &self.opts.project, parent, ty, name);
        if !self.registered.insert(urn.clone()) {
            return Err(UrnConflict::Duplicate(urn).into());
        }
        Ok(urn)
    }

    /// Generates the steps for one registration (Pulumi's `generateSteps`).
    /// `run` says which resources failed or were skipped, and takes the skips and the errors a
    /// preview reports without stopping.
    pub(in crate::engine) async fn generate(
        &mut self,
        mut goal: Goal,
        run: &mut RunState,
    ) -> Result<Generated, RegisterError> {
        let urn = self.claim_urn(goal.parent.as_ref(), &goal.type_, &goal.name)?;
        let mut new = state_from_goal(&urn, &goal);
        let dependencies = new.distinct_dependency_urns();
        self.events.send(EngineEvent::RegistrationReceived {
            urn: urn.clone(),
            type_: goal.type_.clone(),
            parent: goal.parent.clone(),
            custom: goal.custom,
            dependencies: Arc::clone(&dependencies),
        });
        if let Some(bad) = dependencies.iter().find(|u| run.is_failed_or_skipped(u)) {
            return Ok(self.skip(urn, bad, run));
        }
        // Providers are planned as in an update (Pulumi's destroy and refresh modes): what the
        // program configures them with is what the deletes and refreshes then use.
        if matches!(self.opts.operation, Operation::Destroy | Operation::Refresh)
            && !new.is_provider()
        {
            let old_index = self.lookup_old(&urn, &goal)?;
            return Ok(Generated::Done(self.answer_from_state(urn, old_index)));
        }
        let old_index = self.lookup_old(&urn, &goal)?;
        let old = old_index.map(|i| self.old(i));
        if let Some(alias) = self.aliases.get(&urn) {
            new.aliases = vec![alias.clone()];
        }
        if let Some(old) = &old
            && !goal.ignore_changes.is_empty()
        {
            let paths = parse_paths(&urn, "ignoreChanges", &goal.ignore_changes)?;
            let (inputs, unignorable) =
                apply_ignore_changes(&old.state.inputs, &new.inputs, &paths);
            for p in unignorable {
                self.events.diag(
                    Some(urn.clone()),
                    Severity::Info,
                    format!("cannot ignore changes to {p}: it is in an added or removed element"),
                );
            }
            new.inputs = inputs;
        }
        let targeted = self.targeting.targeted_for_update(&new);
        // A recreation runs even when untargeted, so it may not need a skipped create either
        // (Pulumi's `validateSteps` checks every step).
        if targeted || self.deletions.deleted_by_chain(&urn) {
            self.check_skipped_dependencies(&new, run)?;
        }
        let untargeted_same = old.is_some() && !targeted;
        // A goal adopting what the read finds has no inputs of its own to check.
        if !untargeted_same && !self.declined.contains(&urn) && goal.adopt_read.is_none() {
            // Old inputs describe nothing that exists when the old copy was deleted by an
            // earlier DBR in this run, was not ours (external), or is replaced on request:
            // Check gets none then (Pulumi's `generateSteps`).
            let fresh = self.deletions.deleted_by_chain(&urn)
                || self.targeting.replaces(&urn)
                || old.as_ref().is_some_and(|o| o.state.external);
            if fresh {
                new.inputs = goal.properties.clone();
            }
            let olds = old.as_ref().map(|o| &*o.state).filter(|_| !fresh);
            self.refuse_unplanned(&urn, old.is_some())?;
            let seed = self.seed_for(&urn);
            let naming = self.autonaming_for(&urn, &mut goal, &seed);
            new.inputs = self
                .check(&urn, &goal, olds, &new, seed.clone(), naming)
                .await?;
            let old_state = old.as_ref().map(|o| &*o.state);
            self.check_goal(&urn, &goal, old_state, &new)?;
            self.record_goal(&goal, old_state, &new, seed);
        }
        if !self.policies.is_empty() {
            // A resource kept as it was is analyzed as it was (Pulumi checks it against its
            // old inputs); its remediations change nothing.
            let kept = untargeted_same || self.declined.contains(&urn);
            match old.as_ref().filter(|_| kept) {
                Some(o) => {
                    let mut seen = new.clone();
                    seen.inputs = o.state.inputs.clone();
                    self.consult_policies(&goal, &mut seen, false, run).await?;
                }
                None => self.consult_policies(&goal, &mut new, true, run).await?,
            }
        }
        if new.is_provider() {
            for u in std::iter::once(&urn).chain(self.aliases.get(&urn)) {
                self.providers.insert(u.clone(), new.clone());
            }
        }
        self.operated.insert(urn.clone());

        if self.deletions.deleted_by_chain(&urn)
            && let Some(old) = old
        {
            return Ok(Generated::Chain(self.recreate(old, new)));
        }
        let Some(old) = old else {
            return Ok(self.first_registration(goal, new, targeted));
        };
        if let Some(id) = goal.import_id.clone().filter(|_| targeted && goal.custom) {
            let old_import_id = old.state.import_id.as_ref().or(old.state.id.as_ref());
            if old.state.external || old_import_id != Some(&id) {
                // A different resource adopted under this URN: `import-replacement`, and the
                // old copy is deleted at the end (Pulumi's ImportReplacementStep).
                let import = Step::ImportReplacement {
                    old: old.clone(),
                    new: new.clone(),
                    id,
                };
                let replace = Step::Replace {
                    old,
                    new,
                    changes: Changes::replacing(vec!["id".into()]),
                    order: ReplaceOrder::CreateBeforeDelete,
                };
                let chain = PlannedChain {
                    steps: vec![import, replace],
                    cascade: None,
                };
                return Ok(Generated::Import(chain, Box::new(goal)));
            }
        }
        if old.state.external {
            let steps = Step::replacement(
                old,
                new,
                Changes::replacing(vec!["id".into()]),
                ReplaceOrder::CreateBeforeDelete,
            );
            return Ok(Generated::Chain(PlannedChain {
                steps: steps.into(),
                cascade: None,
            }));
        }
        if untargeted_same || self.declined.contains(&urn) {
            return Ok(self.kept_as_it_was(urn, old, untargeted_same, run));
        }
        if new.replacement_trigger.contains_unknowns() && !self.opts.is_preview() {
            return Err(RegisterError::UnknownReplacementTrigger(urn));
        }
        if trigger_replaces(&new.replacement_trigger, &old.state.replacement_trigger) {
            // A changed trigger replaces without asking the provider (Pulumi's `triggerReplace`).
            let diff = DiffResult {
                changes: DiffChanges::Some,
                ..DiffResult::default()
            };
            let ctx = DiffContext { goal, old, new };
            return self
                .continue_replacing(ctx, diff, true)
                .await
                .map(Generated::Chain);
        }
        let provider_changed = self.provider_changed(&old.state, &new).await?;
        let mut job = self.diff_job(&goal, &old.state, &new)?;
        if provider_changed && job.forced.is_none() {
            job.forced = Some("provider");
        }
        let ctx = DiffContext { goal, old, new };
        if self.opts.parallel_diff {
            return Ok(Generated::Diff(Box::new(PendingDiff { ctx, run: job })));
        }
        let diff = job.run().await?;
        self.continue_from_diff(ctx, diff)
            .await
            .map(Generated::Chain)
    }

    /// A resource the stack does not hold yet: created, imported when the goal names an ID, or
    /// a skipped create when the targets leave it out.
    fn first_registration(&mut self, goal: Goal, new: ResourceState, targeted: bool) -> Generated {
        let urn = new.urn.clone();
        if let Some(id) = goal.import_id.clone().filter(|_| targeted) {
            let chain = PlannedChain {
                steps: vec![Step::Import {
                    new,
                    id,
                    only: goal.adopt_read.clone().filter(|keys| !keys.is_empty()),
                }],
                cascade: None,
            };
            return Generated::Import(chain, Box::new(goal));
        }
        let step = if targeted {
            Step::Create { new }
        } else {
            self.skipped_creates.insert(urn.clone());
            Step::SkippedCreate { new }
        };
        Generated::Chain(PlannedChain {
            steps: vec![step],
            cascade: None,
        })
    }

    /// A resource kept as it was: left out by the targets (with the old resources only it
    /// still needs) or declined at its gate.
    fn kept_as_it_was(
        &mut self,
        urn: Urn,
        old: OldState,
        untargeted_same: bool,
        run: &mut RunState,
    ) -> Generated {
        let mut steps = Vec::new();
        if untargeted_same {
            let mut kept = Vec::new();
            self.untargeted_dependencies(&old.state, &mut kept);
            // What is kept as it was may not need a resource that failed or was skipped
            // (continue-on-error): its old state would precede that one's.
            let bad = std::iter::once(&*old.state)
                .chain(kept.iter().map(|&i| &*self.base[i]))
                .flat_map(ResourceState::dependency_urns)
                .find(|u| run.is_failed_or_skipped(u));
            if let Some(bad) = bad {
                return self.skip(urn, &bad, run);
            }
            for i in kept {
                let dep = self.old(i);
                self.registered.insert(dep.state.urn.clone());
                self.operated.insert(dep.state.urn.clone());
                let state = ResourceState::clone(&dep.state);
                steps.push(Step::same(dep, state));
            }
        }
        let kept = ResourceState::clone(&old.state);
        steps.push(Step::same(old, kept));
        Generated::Chain(PlannedChain {
            steps,
            cascade: None,
        })
    }

    /// An untargeted resource keeps its old state, which may depend on old resources nothing
    /// registered (the program dropped them, and the targets spare them): those are kept too,
    /// before it, depth first, so the snapshot stays in dependency order (Pulumi's
    /// `getDependencySteps`). Collects their base positions into `kept`; once kept they count
    /// as registered, and a later registration of one is a duplicate, as in Pulumi.
    fn untargeted_dependencies(&self, state: &ResourceState, kept: &mut Vec<usize>) {
        for dep in state.dependency_urns() {
            if self.registered.contains(&dep) || self.aliased.contains_key(&dep) {
                continue;
            }
            let Some(&i) = self.olds.get(&dep) else {
                continue;
            };
            if kept.contains(&i) {
                continue;
            }
            self.untargeted_dependencies(&self.base[i], kept);
            kept.push(i);
        }
    }

    /// Answers a registration that depends on a failed or skipped resource without running
    /// anything (continue-on-error).
    /// A registration other than a provider's during `destroy --run-program` or
    /// `refresh --run-program` (Pulumi's destroy and refresh modes): nothing is created or
    /// updated, the program gets the recorded
    /// state back, and a resource the stack does not hold is a skipped create (outputs unknown).
    fn answer_from_state(&mut self, urn: Urn, old_index: Option<usize>) -> Registered {
        self.operated.insert(urn.clone());
        let old = old_index.map(|i| &self.base[i]);
        if old.is_none() {
            self.skipped_creates.insert(urn.clone());
        }
        Registered {
            urn,
            id: old.and_then(|o| o.id.clone()),
            outputs: old.map(|o| o.outputs.clone()).unwrap_or_default(),
            status: RegisterStatus::Success,
            unknown: old.is_none(),
        }
    }

    fn skip(&mut self, urn: Urn, bad: &Urn, run: &mut RunState) -> Generated {
        run.mark_skipped(&urn);
        self.operated.insert(urn.clone());
        self.events.send(EngineEvent::StepSkipped {
            op: if self.olds.contains_key(&urn) {
                StepOp::Update
            } else {
                StepOp::Create
            },
            urn: urn.clone(),
            reason: format!("it depends on {bad}, which failed or was skipped"),
        });
        Generated::Done(Registered {
            urn,
            id: None,
            outputs: Default::default(),
            status: RegisterStatus::Skipped,
            unknown: true,
        })
    }

    /// Plans a read of an existing resource (`read`, or `read-replacement` when the program
    /// managed a different resource under this URN).
    pub(in crate::engine) fn generate_read(
        &mut self,
        goal: ReadGoal,
    ) -> Result<PlannedChain, RegisterError> {
        let urn = self.claim_urn(goal.parent.as_ref(), &goal.type_, &goal.name)?;
        self.events.send(EngineEvent::RegistrationReceived {
            urn: urn.clone(),
            type_: goal.type_.clone(),
            parent: goal.parent.clone(),
            custom: true,
            dependencies: distinct(goal.dependencies.clone()),
        });
        self.operated.insert(urn.clone());
        let new = ResourceState {
            urn: urn.clone(),
            custom: true,
            external: true,
            id: Some(goal.id.clone()),
            type_: goal.type_.clone(),
            inputs: goal.properties.clone(),
            parent: goal.parent.clone(),
            provider: goal.provider.clone(),
            dependencies: goal.dependencies.clone(),
            additional_secret_outputs: goal.additional_secret_outputs.clone(),
            ..ResourceState::default()
        };
        let old = self.olds.get(&urn).map(|&i| self.old(i));
        match old {
            Some(old)
                if !old.state.external && old.state.id.as_deref() != Some(goal.id.as_str()) =>
            {
                // A read-replacement replaces the managed copy (Pulumi marks it in `replaces`).
                self.replaced.insert(urn.clone());
                let read = Step::ReadReplacement {
                    old: old.clone(),
                    new: new.clone(),
                };
                let replace = Step::Replace {
                    old,
                    new,
                    changes: Changes::default(),
                    order: ReplaceOrder::CreateBeforeDelete,
                };
                Ok(PlannedChain {
                    steps: vec![read, replace],
                    cascade: None,
                })
            }
            Some(old) => Ok(PlannedChain {
                steps: vec![Step::Reread { old, new }],
                cascade: None,
            }),
            None => Ok(PlannedChain {
                steps: vec![Step::Read { new }],
                cascade: None,
            }),
        }
    }

    async fn check(
        &self,
        urn: &Urn,
        goal: &Goal,
        old: Option<&ResourceState>,
        new: &ResourceState,
        random_seed: Vec<u8>,
        autonaming: Option<AutonamingOptions>,
    ) -> Result<crate::engine::model::property::PropertyMap, RegisterError> {
        let olds = old.map(|o| o.inputs.clone()).unwrap_or_default();
        // A provider may quote what it rejects: its messages are masked with these.
        let secrets = self.events.secrets();
        secrets.add_secrets_of(&new.inputs);
        if let Some(o) = old {
            secrets.add_secrets_of(&o.inputs);
            secrets.add_secrets_of(&o.outputs);
        }
        let result = if !goal.custom {
            return Ok(new.inputs.clone());
        } else if is_provider_type(&goal.type_) {
            self.registry.check(urn, &olds, &new.inputs).await
        } else {
            let loaded = self.loaded_provider_for(urn, new)?;
            // Only a provider that said it supports autonaming configuration is sent it
            // (Pulumi's provider plugin); a specific or enforced setting it cannot honour is
            // worth a warning.
            let supported = loaded.configure.supports_autonaming_configuration;
            if autonaming
                .as_ref()
                .is_some_and(|a| a.warn_if_no_support && !supported)
            {
                self.events.diag(
                    Some(urn.clone()),
                    Severity::Warning,
                    format!(
                        "{urn} resource has a custom autonaming setting but the provider does not \
                         support autonaming configuration, consider upgrading to a newer version"
                    ),
                );
            }
            loaded
                .provider
                .check(CheckRequest {
                    urn: urn.clone(),
                    olds,
                    news: new.inputs.clone(),
                    random_seed,
                    autonaming: autonaming.filter(|_| supported),
                })
                .await
        };
        let result = result.map_err(|e| RegisterError::Check {
            urn: urn.clone(),
            message: secrets.mask(&e.to_string()),
        })?;
        if !result.failures.is_empty() {
            let reasons: Vec<String> = result
                .failures
                .iter()
                .map(|f| {
                    if f.property.is_empty() {
                        f.reason.clone()
                    } else {
                        format!("{}: {}", f.property, f.reason)
                    }
                })
                .collect();
            for r in &reasons {
                self.events
                    .diag(Some(urn.clone()), Severity::Error, r.clone());
            }
            return Err(RegisterError::InvalidInputs {
                urn: urn.clone(),
                reasons: reasons.iter().map(|r| secrets.mask(r)).collect(),
            });
        }
        Ok(result.inputs)
    }

    /// The name the stack's autonaming strategy proposes for a custom resource (Pulumi's
    /// `generateSteps`); a name with no random part makes a replacement delete first.
    fn autonaming_for(
        &self,
        urn: &Urn,
        goal: &mut Goal,
        random_seed: &[u8],
    ) -> Option<AutonamingOptions> {
        let (options, delete_first) = self.autonaming_of(urn, goal, random_seed)?;
        if delete_first {
            goal.delete_before_replace = Some(true);
        }
        Some(options)
    }

    /// The proposed name, and whether it has no random part.
    pub(super) fn autonaming_of(
        &self,
        urn: &Urn,
        goal: &Goal,
        random_seed: &[u8],
    ) -> Option<(AutonamingOptions, bool)> {
        let strategy = self.opts.autonaming.as_ref().filter(|_| goal.custom)?;
        strategy.for_resource(urn, random_seed)
    }

    fn loaded_provider_for(
        &self,
        urn: &Urn,
        state: &ResourceState,
    ) -> Result<LoadedProvider, RegisterError> {
        let reference = state
            .provider
            .as_ref()
            .ok_or_else(|| ProviderRefError::Missing(urn.clone()))?;
        let loaded =
            self.registry
                .get_loaded(reference)
                .ok_or_else(|| ProviderRefError::NotRegistered {
                    reference: reference.to_string(),
                    urn: urn.clone(),
                })?;
        Ok(loaded)
    }

    /// Whether a change of provider reference replaces the resource (Pulumi's
    /// `providerChanged`): the new provider's DiffConfig over the old provider's config decides;
    /// a provider renamed through an alias is the same provider.
    async fn provider_changed(
        &self,
        old: &ResourceState,
        new: &ResourceState,
    ) -> Result<bool, RegisterError> {
        if !new.custom || new.is_provider() || old.provider == new.provider {
            return Ok(false);
        }
        let (Some(old_ref), Some(new_ref)) = (&old.provider, &new.provider) else {
            return Ok(true);
        };
        if self.aliased.get(&old_ref.urn) == Some(&new_ref.urn) {
            return Ok(false);
        }
        let (Some(old_provider), Some(new_provider)) = (
            self.olds.get(&old_ref.urn).map(|&i| &self.base[i]),
            self.providers.get(&new_ref.urn),
        ) else {
            return Err(RegisterError::UnresolvedProvider {
                reference: old_ref.to_string(),
                urn: new.urn.clone(),
            });
        };
        let diff = self
            .registry
            .diff(DiffRequest {
                urn: new_ref.urn.clone(),
                id: new_ref.id.to_string(),
                old_inputs: old_provider.inputs.clone(),
                old_outputs: old_provider.outputs.clone(),
                new_inputs: new_provider.inputs.clone(),
                ignore_changes: Vec::new(),
            })
            .await
            .map_err(|source| RegisterError::ProviderDiff {
                urn: new.urn.clone(),
                source,
            })?;
        Ok(diff.replaces())
    }

    fn diff_job(
        &self,
        goal: &Goal,
        old: &ResourceState,
        new: &ResourceState,
    ) -> Result<DiffJob, RegisterError> {
        let urn = new.urn.clone();
        let forced = if self.targeting.replaces(&urn) || old.taint {
            Some("id")
        } else if new
            .replace_with
            .iter()
            .any(|r| self.deletions.deleted_by_chain(r) || self.replaced.contains(r))
        {
            Some("replaceWith")
        } else if new
            .deleted_with
            .as_ref()
            .is_some_and(|d| self.deletions.deleted_by_chain(d) || self.replaced.contains(d))
        {
            Some("deletedWith")
        } else {
            None
        };
        let target = if !goal.custom {
            DiffTarget::Component
        } else if is_provider_type(&goal.type_) {
            DiffTarget::ProviderResource(self.registry.clone())
        } else {
            let loaded = self.loaded_provider_for(&urn, new)?;
            if loaded.configured {
                DiffTarget::Custom(loaded.provider)
            } else {
                self.events.diag(
                    Some(urn.clone()),
                    Severity::Warning,
                    "The provider for this resource has inputs that are not known during preview.\nThis preview may not correctly represent the changes that will be applied during an update.",
                );
                DiffTarget::Unavailable
            }
        };
        Ok(DiffJob {
            urn: urn.clone(),
            target,
            request: DiffRequest {
                urn,
                id: old.id.clone().unwrap_or_default(),
                old_inputs: old.inputs.clone(),
                old_outputs: old.outputs.clone(),
                new_inputs: new.inputs.clone(),
                ignore_changes: goal.ignore_changes.clone(),
            },
            replace_on_changes: parse_paths(
                &new.urn,
                "replaceOnChanges",
                &goal.replace_on_changes,
            )?,
            forced,
            init_errors: !old.init_errors.is_empty(),
        })
    }

    /// Continues after a diff (Pulumi's `continueStepsFromDiff`).
    pub(in crate::engine) async fn continue_from_diff(
        &mut self,
        ctx: DiffContext,
        diff: DiffResult,
    ) -> Result<PlannedChain, RegisterError> {
        self.continue_replacing(ctx, diff, false).await
    }

    /// `continue_from_diff`, with `triggered` set when a changed replacement trigger forces
    /// the replacement whatever the diff says.
    async fn continue_replacing(
        &mut self,
        ctx: DiffContext,
        diff: DiffResult,
        triggered: bool,
    ) -> Result<PlannedChain, RegisterError> {
        let DiffContext { goal, old, mut new } = ctx;
        let urn = new.urn.clone();
        if self.deletions.deleted_by_chain(&urn) {
            return Ok(self.recreate(old, new));
        }
        let single = |step: Step| PlannedChain {
            steps: vec![step],
            cascade: None,
        };
        // An old copy a delete-before-replace already deleted is replaced whatever the diff
        // says (Pulumi's `old.PendingReplacement`), without deleting it again.
        let pending = old.state.pending_replacement;
        if diff.changes != DiffChanges::Some && !pending && !old.state.init_errors.is_empty() {
            // A resource that did not initialise is updated again even without changes, to
            // "continue" awaiting its initialisation (Pulumi's empty update).
            return Ok(single(Step::update(
                Superseded::Base(old),
                new,
                Changes::default(),
            )));
        }
        if diff.changes != DiffChanges::Some && !pending {
            new.id = old.state.id.clone();
            new.outputs = old.state.outputs.clone();
            new.created = old.state.created.clone();
            new.modified = old.state.modified.clone();
            return Ok(single(Step::same(old, new)));
        }
        if !diff.replaces() && !triggered && !pending {
            let changes = Changes {
                diffs: diff.changed_keys,
                detailed_diff: diff.detailed_diff,
                ..Changes::default()
            };
            return Ok(single(Step::update(Superseded::Base(old), new, changes)));
        }
        if old.state.protect && new.protect && !self.opts.ignore_protect {
            return Err(RegisterError::ProtectedReplace(urn));
        }
        if goal.import_id.is_some() {
            // The replacement would change the ID the program still asks to import.
            let refusal =
                import_replace_refusal(&diff.replace_keys, &old.state.inputs, &new.inputs);
            if !self.opts.is_preview() {
                return Err(RegisterError::ImportReplace { urn, refusal });
            }
            self.events
                .diag(Some(urn.clone()), Severity::Warning, refusal.to_string());
        }
        self.replaced.insert(urn.clone());
        let dbr = pending
            || goal
                .delete_before_replace
                .unwrap_or(diff.delete_before_replace);
        let changes = Changes {
            replace_keys: diff.replace_keys.clone(),
            diffs: diff.changed_keys.clone(),
            detailed_diff: diff.detailed_diff.clone(),
        };
        if !dbr {
            let steps = Step::replacement(old, new, changes, ReplaceOrder::CreateBeforeDelete);
            return Ok(PlannedChain {
                steps: steps.into(),
                cascade: None,
            });
        }
        self.delete_before_replace(&goal, old, new, diff.replace_keys, changes)
            .await
    }

    /// Continues after an import (Pulumi's `continueStepsFromImport`): the program's inputs are
    /// diffed against the imported state; a difference is an update of the imported resource.
    /// A goal that adopts what the read found (`pulumi import`) is done as imported.
    pub(in crate::engine) async fn continue_from_import(
        &mut self,
        mut goal: Goal,
        imported: ResourceState,
    ) -> Result<Generated, RegisterError> {
        let urn = imported.urn.clone();
        if goal.adopt_read.is_some() {
            return Ok(Generated::Done(Registered {
                urn,
                id: imported.id.clone(),
                outputs: imported.outputs,
                status: RegisterStatus::Success,
                unknown: false,
            }));
        }
        let mut new = state_from_goal(&urn, &goal);
        new.import_id = imported.import_id.clone();
        let seed = self.seed_for(&urn);
        let naming = self.autonaming_for(&urn, &mut goal, &seed);
        new.inputs = self
            .check(&urn, &goal, Some(&imported), &new, seed, naming)
            .await?;
        let diff = self.diff_job(&goal, &imported, &new)?.run().await?;
        if diff.changes != DiffChanges::Some {
            return Ok(Generated::Done(Registered {
                urn,
                id: imported.id.clone(),
                outputs: imported.outputs,
                status: RegisterStatus::Success,
                unknown: false,
            }));
        }
        if diff.replaces() {
            let refusal = import_replace_refusal(&diff.replace_keys, &imported.inputs, &new.inputs);
            if !self.opts.is_preview() {
                return Err(RegisterError::ImportReplace { urn, refusal });
            }
            self.events
                .diag(Some(urn.clone()), Severity::Warning, refusal.to_string());
            return Ok(Generated::Done(Registered {
                urn,
                id: imported.id.clone(),
                outputs: imported.outputs,
                status: RegisterStatus::Success,
                unknown: true,
            }));
        }
        let changes = Changes {
            diffs: diff.changed_keys,
            detailed_diff: diff.detailed_diff,
            ..Changes::default()
        };
        let step = Step::update(Superseded::Imported(Box::new(imported)), new, changes);
        Ok(Generated::Chain(PlannedChain {
            steps: vec![step],
            cascade: None,
        }))
    }
}

/// Whether a replacement trigger changed from the recorded one (Pulumi's
/// `shouldTriggerReplace`): secrets are compared by their values, an unknown always counts as
/// a change, and a trigger missing on either side never does.
fn trigger_replaces(new: &PropertyValue, old: &PropertyValue) -> bool {
    let (new, old) = (new.reveal(), old.reveal());
    if new.contains_unknowns() || old.contains_unknowns() {
        return true;
    }
    new != PropertyValue::Null && old != PropertyValue::Null && new != old
}
