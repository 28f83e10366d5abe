//! The step generator: turns each registration into a chain of steps, as Pulumi's engine does
//! (check, diff, create / same / update / replace, delete-before-replace cascades).

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use super::analyzer::Analyzer;
use super::deployment::Options;
use super::diff::{apply_replace_on_changes, diff_inputs};
use super::events::{
    CascadeId, CascadeMember, CascadeReason, EngineEvent, EventSink, Operation, Severity,
};
use super::exec_state::ExecState;
use super::goal::{Alias, Goal, ReadGoal};
use super::graph::DependencyGraph;
use super::property::PropertyValue;
use super::property_path::{PropertyPath, apply_ignore_changes};
use super::provider::{CheckRequest, DiffChanges, DiffRequest, DiffResult, Provider};
use super::provider_registry::{LoadedProvider, ProviderRegistry};
use super::resource::{ResourceState, is_provider_type, provider_urn};
use super::source::{RegisterError, RegisterStatus, Registered};
use super::step::{OldState, Step, StepOp};
use super::targets::UrnGlobs;
use super::urn::{ROOT_STACK_TYPE, Urn};

/// A DBR cascade: the root being replaced and every dependent replaced with it.
#[derive(Clone, Debug)]
pub(crate) struct Cascade {
    pub id: CascadeId,
    pub root: Urn,
    pub members: Vec<CascadeMember>,
}

/// A chain the generator produced for one registration.
pub(crate) struct PlannedChain {
    pub steps: Vec<Step>,
    pub cascade: Option<Cascade>,
}

/// A diff to run on a worker before generation can continue (parallel diff).
pub(crate) struct PendingDiff {
    pub ctx: DiffContext,
    pub run: DiffJob,
}

/// What the generator needs to continue once a diff is known.
pub(crate) struct DiffContext {
    pub goal: Goal,
    pub old: OldState,
    pub new: ResourceState,
}

/// Everything a diff needs, detached from the generator so it can run on a worker.
pub(crate) struct DiffJob {
    pub urn: Urn,
    target: DiffTarget,
    request: DiffRequest,
    replace_on_changes: Vec<PropertyPath>,
    forced: Option<&'static str>,
    /// The old state has init errors (a partial failure): `#initerror` in replaceOnChanges
    /// replaces it.
    init_errors: bool,
}

/// The replaceOnChanges path that replaces a resource whose old state has init errors.
const INIT_ERROR_KEY: &str = "#initerror";

enum DiffTarget {
    Component,
    /// The provider is not configured (unknown config in a preview): assume an update.
    Unavailable,
    ProviderResource(Arc<ProviderRegistry>),
    Custom(Arc<dyn Provider>),
}

impl DiffJob {
    /// Runs the provider's Diff (or the engine's) and applies replaceOnChanges.
    pub async fn run(self) -> Result<DiffResult, RegisterError> {
        if let Some(key) = self.forced {
            let mut d = DiffResult {
                changes: DiffChanges::Some,
                replace_keys: vec![key.to_string()],
                ..DiffResult::default()
            };
            d.changed_keys = d.replace_keys.clone();
            return Ok(d);
        }
        let r = &self.request;
        let diff = match &self.target {
            DiffTarget::Component => diff_inputs(&r.old_inputs, &r.new_inputs),
            DiffTarget::Unavailable => {
                let mut d = diff_inputs(&r.old_inputs, &r.new_inputs);
                d.changes = DiffChanges::Some;
                d
            }
            DiffTarget::ProviderResource(reg) => reg
                .diff(self.request.clone())
                .await
                .map_err(|e| RegisterError::Failed(format!("diffing {}: {e}", r.urn)))?,
            DiffTarget::Custom(p) => p
                .diff(self.request.clone())
                .await
                .map_err(|e| RegisterError::Failed(format!("diffing {}: {e}", r.urn)))?,
        };
        let diff = if diff.changes == DiffChanges::Unknown {
            let mut engine = diff_inputs(&r.old_inputs, &r.new_inputs);
            engine.replace_keys = diff.replace_keys;
            engine.delete_before_replace = diff.delete_before_replace;
            if !engine.replace_keys.is_empty() {
                engine.changes = DiffChanges::Some;
            }
            engine
        } else {
            diff
        };
        let mut diff = apply_replace_on_changes(diff, &self.replace_on_changes);
        if self.init_errors && self.replace_on_changes.iter().any(covers_init_errors) {
            diff.changes = DiffChanges::Some;
            diff.replace_keys.push(INIT_ERROR_KEY.to_string());
            if !diff.detailed_diff.is_empty() {
                diff.detailed_diff.insert(
                    INIT_ERROR_KEY.to_string(),
                    super::provider::PropertyDiff {
                        kind: super::provider::DiffKind::UpdateReplace,
                        input_diff: false,
                    },
                );
            }
        }
        Ok(diff)
    }
}

fn covers_init_errors(path: &PropertyPath) -> bool {
    PropertyPath::parse(INIT_ERROR_KEY).is_ok_and(|p| path.contains(&p))
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
    exec: Arc<ExecState>,
    base: Arc<Vec<ResourceState>>,
    graph: DependencyGraph,
    /// Live base states by URN (not `delete: true` copies).
    olds: HashMap<Urn, usize>,
    /// URNs registered in this deployment.
    registered: HashSet<Urn>,
    /// URNs already stepped on; they cannot be DBR dependents any more.
    operated: HashSet<Urn>,
    /// URNs whose old copy a DBR chain deletes in this deployment.
    pub deleted: HashSet<Urn>,
    /// Base positions deleted by DBR chains (their later delete steps are skipped).
    pub pending_deletes: HashSet<usize>,
    dependent_replace_keys: HashMap<Urn, Vec<String>>,
    /// URNs of declined cascades: they keep their old state.
    pub declined: HashSet<Urn>,
    /// Provider resources registered in this deployment, by URN and by the old URN they aliased.
    providers: HashMap<Urn, ResourceState>,
    /// Old URNs claimed through an alias, to the new URN that claimed them.
    aliased: HashMap<Urn, Urn>,
    /// New URNs registered through an alias, to the old URN they took over.
    aliases: HashMap<Urn, Urn>,
    /// URNs replaced in this deployment (a deletedWith dependent is replaced with them).
    replaced: HashSet<Urn>,
    targets: UrnGlobs,
    replace_targets: UrnGlobs,
    excludes: UrnGlobs,
    /// Targets explicit or reached through `target_dependents`, as registrations arrive.
    targets_actual: HashSet<Urn>,
    /// Exclusions explicit or reached through `exclude_dependents`, as registrations arrive.
    excludes_actual: HashSet<Urn>,
    /// New resources not created because they are outside the targets.
    skipped_creates: HashSet<Urn>,
    /// Base positions a refresh before the update found gone.
    vanished: HashSet<usize>,
    next_cascade: CascadeId,
    analyzers: Vec<Arc<dyn Analyzer>>,
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
        resource_hooks: goal.hooks.clone(),
        ..ResourceState::default()
    }
}

fn parse_paths(
    urn: &Urn,
    what: &str,
    paths: &[String],
) -> Result<Vec<PropertyPath>, RegisterError> {
    paths
        .iter()
        .map(|p| {
            PropertyPath::parse(p)
                .map_err(|e| RegisterError::Invalid(format!("{urn}: {what}: {e}")))
        })
        .collect()
}

impl StepGenerator {
    pub fn new(
        opts: Arc<Options>,
        registry: Arc<ProviderRegistry>,
        events: EventSink,
        exec: Arc<ExecState>,
        base: Arc<Vec<ResourceState>>,
        analyzers: Vec<Arc<dyn Analyzer>>,
    ) -> StepGenerator {
        let graph = DependencyGraph::new(&base);
        let olds = base
            .iter()
            .enumerate()
            .filter(|(_, r)| !r.delete)
            .map(|(i, r)| (r.urn.clone(), i))
            .collect();
        StepGenerator {
            targets: UrnGlobs::new(&opts.targets),
            replace_targets: UrnGlobs::new(&opts.replace),
            excludes: UrnGlobs::new(&opts.excludes),
            targets_actual: HashSet::new(),
            excludes_actual: HashSet::new(),
            skipped_creates: HashSet::new(),
            vanished: HashSet::new(),
            opts,
            registry,
            events,
            exec,
            base,
            graph,
            olds,
            registered: HashSet::new(),
            operated: HashSet::new(),
            deleted: HashSet::new(),
            pending_deletes: HashSet::new(),
            dependent_replace_keys: HashMap::new(),
            declined: HashSet::new(),
            providers: HashMap::new(),
            aliased: HashMap::new(),
            aliases: HashMap::new(),
            replaced: HashSet::new(),
            next_cascade: 1,
            analyzers,
        }
    }

    pub fn base(&self) -> &Arc<Vec<ResourceState>> {
        &self.base
    }

    /// Takes what a refresh before the update found (`up --refresh`): refreshed states replace
    /// their old states in place (positions do not change, as in the journal); a resource found
    /// gone has no old state any more, so a registration creates it again and no delete runs.
    pub fn rebase(&mut self, refreshed: Vec<(usize, Option<ResourceState>)>) {
        let base = Arc::make_mut(&mut self.base);
        for (i, state) in refreshed {
            match state {
                Some(s) => base[i] = s,
                None => {
                    if self.olds.get(&base[i].urn) == Some(&i) {
                        self.olds.remove(&base[i].urn);
                    }
                    self.vanished.insert(i);
                    self.pending_deletes.insert(i);
                }
            }
        }
    }

    pub fn graph(&self) -> &DependencyGraph {
        &self.graph
    }

    /// Whether an old URN lives on in this deployment: registered, or claimed by an alias.
    pub fn is_live(&self, urn: &Urn) -> bool {
        self.registered.contains(urn) || self.aliased.contains_key(urn)
    }

    fn old(&self, i: usize) -> OldState {
        OldState {
            index: i,
            state: self.base[i].clone(),
        }
    }

    /// Providers and the root stack are always targeted and never excluded.
    pub fn is_targeted(&self, urn: &Urn) -> bool {
        if is_provider_type(urn.type_()) || urn.type_() == ROOT_STACK_TYPE {
            return true;
        }
        if self.excludes.matches(urn) {
            return false;
        }
        self.targets.is_empty() || self.targets.matches(urn)
    }

    /// Whether the delete phase may delete `urn`: with targets, only what they name (Pulumi's
    /// `determineAllowedResourcesToDeleteFromTargets`); providers and the root stack are not
    /// implicitly included there, or a targeted destroy would take everything they serve.
    pub fn may_delete(&self, urn: &Urn) -> bool {
        if self.targets.is_empty() {
            self.is_targeted(urn)
        } else {
            self.targets.matches(urn)
        }
    }

    /// Whether the operation is constrained to targets (`--target` or `--replace`).
    pub fn has_targets(&self) -> bool {
        !self.targets.is_empty()
    }

    /// Whether a registration is targeted: explicitly, or (with `target_dependents`) because
    /// its provider or a dependency is (Pulumi's `isTargetedForUpdate`); and not excluded,
    /// explicitly or (with `exclude_dependents`) through its provider or a dependency.
    fn targeted_for_update(&mut self, state: &ResourceState) -> bool {
        let urn = &state.urn;
        if is_provider_type(urn.type_()) || urn.type_() == ROOT_STACK_TYPE {
            if self.targets.matches(urn) {
                self.targets_actual.insert(urn.clone());
            }
            return true;
        }
        let excluded = self.excludes.matches(urn)
            || (self.opts.exclude_dependents
                && state
                    .dependency_urns()
                    .any(|d| self.excludes_actual.contains(&d)));
        if excluded {
            self.excludes_actual.insert(urn.clone());
            return false;
        }
        if self.targets.is_empty() {
            return true;
        }
        let targeted = self.targets.matches(urn)
            || (self.opts.target_dependents
                && state
                    .dependency_urns()
                    .any(|d| self.targets_actual.contains(&d)));
        if targeted {
            self.targets_actual.insert(urn.clone());
        }
        targeted
    }

    /// URNs excluded so far, explicitly or as dependents of excluded ones.
    pub fn excluded(&self) -> &HashSet<Urn> {
        &self.excludes_actual
    }

    /// Literal targets (no glob) naming nothing in the old state nor registered in this run
    /// (Pulumi's `checkTargets`).
    pub fn unknown_targets(&self, globs: &[String]) -> Vec<String> {
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
    fn check_skipped_dependencies(&mut self, state: &ResourceState) -> Result<(), RegisterError> {
        if self.targets.is_empty() && self.replace_targets.is_empty() {
            return Ok(());
        }
        let skipped: Vec<Urn> = state
            .dependency_urns()
            .filter(|d| self.skipped_creates.contains(d))
            .collect();
        for dep in skipped {
            let msg = format!(
                "resource '{}' depends on '{dep}', which will be created but was not specified in --target list; add it to the targets or pass --target-dependents",
                state.urn
            );
            if !self.opts.is_preview() {
                return Err(RegisterError::Invalid(msg));
            }
            self.exec.record_error(&msg);
            self.events
                .diag(Some(state.urn.clone()), Severity::Error, msg);
            self.skipped_creates.remove(&dep);
        }
        Ok(())
    }

    /// Collapses an alias to the URN it names (Pulumi's `collapseAliasToUrn`): missing parts
    /// default to the resource's own; an aliased parent stands for its old URN.
    fn collapse_alias(&self, goal: &Goal, alias: &Alias) -> Urn {
        let Alias::Spec {
            name,
            type_,
            parent,
            no_parent,
            project,
            stack,
        } = alias
        else {
            let Alias::Urn(u) = alias else {
                unreachable!("an alias is a URN or a spec")
            };
            return u.clone();
        };
        let parent = match parent {
            None => goal.parent.clone(),
            Some(p) => Some(self.aliases.get(p).unwrap_or(p).clone()),
        };
        let parent = parent.filter(|p| !*no_parent && p.type_() != ROOT_STACK_TYPE);
        Urn::new(
            stack.as_deref().unwrap_or(&self.opts.stack),
            project.as_deref().unwrap_or(&self.opts.project),
            parent.as_ref(),
            type_.as_deref().unwrap_or(&goal.type_),
            name.as_deref().unwrap_or(&goal.name),
        )
    }

    /// The alias a child gets from its parent's old URN: same type under the old parent, the
    /// parent's name prefix swapped for the old one (Pulumi's `inheritedChildAlias`).
    fn inherited_alias(&self, ty: &str, name: &str, parent: &Urn, parent_old: &Urn) -> Urn {
        let name = match name.strip_prefix(parent.name()) {
            Some(rest) => format!("{}{rest}", parent_old.name()),
            None => name.to_string(),
        };
        Urn::new(
            &self.opts.stack,
            &self.opts.project,
            Some(parent_old),
            ty,
            &name,
        )
    }

    /// Every URN the resource may have had (Pulumi's `generateAliases`): its own aliases, then
    /// the ones its parent's alias multiplies into it.
    fn generate_aliases(&self, goal: &Goal) -> Vec<Urn> {
        let mut out: Vec<Urn> = Vec::new();
        let mut add = |u: Urn| {
            if !out.contains(&u) {
                out.push(u);
            }
        };
        let own: Vec<Urn> = goal
            .aliases
            .iter()
            .map(|a| self.collapse_alias(goal, a))
            .collect();
        for u in &own {
            add(u.clone());
        }
        if let Some(parent) = &goal.parent
            && let Some(parent_old) = self.aliases.get(parent)
        {
            add(self.inherited_alias(&goal.type_, &goal.name, parent, parent_old));
            for u in &own {
                add(self.inherited_alias(u.type_(), u.name(), parent, parent_old));
            }
        }
        out
    }

    /// Finds the old state of a registration: by its URN first, then by its aliases in order.
    /// A match through an alias is recorded so the old URN is not deleted.
    fn lookup_old(&mut self, urn: &Urn, goal: &Goal) -> Result<Option<usize>, RegisterError> {
        if let Some(prev) = self.aliased.get(urn) {
            return Err(RegisterError::Invalid(format!(
                "duplicate resource URN '{urn}': resource '{prev}' already claimed it as an alias"
            )));
        }
        if let Some(&i) = self.olds.get(urn) {
            return Ok(Some(i));
        }
        for alias in self.generate_aliases(goal) {
            let Some(&i) = self.olds.get(&alias) else {
                continue;
            };
            if self.registered.contains(&alias) {
                return Err(RegisterError::Invalid(format!(
                    "resource '{urn}' has an alias '{alias}' that is registered in this deployment as another resource"
                )));
            }
            if let Some(prev) = self.aliased.get(&alias) {
                return Err(RegisterError::Invalid(format!(
                    "resources '{urn}' and '{prev}' both claim the old resource '{alias}' through aliases"
                )));
            }
            self.aliased.insert(alias.clone(), urn.clone());
            self.aliases.insert(urn.clone(), alias);
            return Ok(Some(i));
        }
        Ok(None)
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
            return Err(RegisterError::Invalid(format!(
                "duplicate resource URN '{urn}'; try giving it a unique name"
            )));
        }
        Ok(urn)
    }

    /// Generates the steps for one registration (Pulumi's `generateSteps`).
    pub async fn generate(&mut self, goal: Goal) -> Result<Generated, RegisterError> {
        let urn = self.claim_urn(goal.parent.as_ref(), &goal.type_, &goal.name)?;
        let mut new = state_from_goal(&urn, &goal);
        self.events.send(EngineEvent::RegistrationReceived {
            urn: urn.clone(),
            type_: goal.type_.clone(),
            parent: goal.parent.clone(),
            custom: goal.custom,
            dependencies: new.dependency_urns().collect(),
        });
        if let Some(bad) = new
            .dependency_urns()
            .find(|u| self.exec.is_failed_or_skipped(u))
        {
            return Ok(self.skip(urn, &bad));
        }
        if matches!(self.opts.operation, Operation::Destroy | Operation::Refresh) {
            let old_index = self.lookup_old(&urn, &goal)?;
            return Ok(Generated::Done(self.answer_from_state(urn, old_index)));
        }
        self.check_provider_reference(&urn, &new)?;
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
        let targeted = self.targeted_for_update(&new);
        // A recreation runs even when untargeted, so it may not need a skipped create either
        // (Pulumi's `validateSteps` checks every step).
        if targeted || self.deleted.contains(&urn) {
            self.check_skipped_dependencies(&new)?;
        }
        let untargeted_same = old.is_some() && !targeted;
        if !untargeted_same && !self.declined.contains(&urn) {
            // Old inputs describe nothing that exists when the old copy was deleted by an
            // earlier DBR in this run, was not ours (external), or is replaced on request:
            // Check gets none then (Pulumi's `generateSteps`).
            let fresh = self.deleted.contains(&urn)
                || self.replace_targets.matches(&urn)
                || old.as_ref().is_some_and(|o| o.state.external);
            if fresh {
                new.inputs = goal.properties.clone();
            }
            let olds = old.as_ref().map(|o| &o.state).filter(|_| !fresh);
            new.inputs = self.check(&urn, &goal, olds, &new).await?;
            self.analyze(&new)?;
        }
        if new.is_provider() {
            for u in std::iter::once(&urn).chain(self.aliases.get(&urn)) {
                self.providers.insert(u.clone(), new.clone());
            }
        }
        self.operated.insert(urn.clone());

        if self.deleted.contains(&urn)
            && let Some(old) = old
        {
            return Ok(Generated::Chain(self.recreate(old, new)));
        }
        let Some(old) = old else {
            if let Some(id) = goal.import_id.clone().filter(|_| targeted) {
                let mut step = Step::new(StepOp::Import, urn.clone()).with_new(new);
                step.keys = vec![id];
                let chain = PlannedChain {
                    steps: vec![step],
                    cascade: None,
                };
                return Ok(Generated::Import(chain, Box::new(goal)));
            }
            let mut step = Step::new(StepOp::Create, urn.clone()).with_new(new);
            if !targeted {
                step.op = StepOp::Same;
                step.skipped_create = true;
                self.skipped_creates.insert(urn.clone());
            }
            return Ok(Generated::Chain(PlannedChain {
                steps: vec![step],
                cascade: None,
            }));
        };
        if let Some(id) = goal.import_id.clone().filter(|_| targeted && goal.custom) {
            let old_import_id = old.state.import_id.as_ref().or(old.state.id.as_ref());
            if old.state.external || old_import_id != Some(&id) {
                // A different resource adopted under this URN: `import-replacement`, and the
                // old copy is deleted at the end (Pulumi's ImportReplacementStep).
                let mut import = Step::new(StepOp::ImportReplacement, urn.clone())
                    .with_old(old.clone())
                    .with_new(new.clone());
                import.keys = vec![id];
                let mut replace = Step::new(StepOp::Replace, urn).with_old(old).with_new(new);
                replace.keys = vec!["id".into()];
                let chain = PlannedChain {
                    steps: vec![import, replace],
                    cascade: None,
                };
                return Ok(Generated::Import(chain, Box::new(goal)));
            }
        }
        if old.state.external {
            let mut create = Step::new(StepOp::CreateReplacement, urn.clone())
                .with_old(old.clone())
                .with_new(new.clone());
            create.keys = vec!["id".into()];
            let mut replace = Step::new(StepOp::Replace, urn).with_old(old).with_new(new);
            replace.keys = vec!["id".into()];
            return Ok(Generated::Chain(PlannedChain {
                steps: vec![create, replace],
                cascade: None,
            }));
        }
        if untargeted_same || self.declined.contains(&urn) {
            let mut steps = Vec::new();
            if untargeted_same {
                let mut kept = Vec::new();
                self.untargeted_dependencies(&old.state, &mut kept);
                // What is kept as it was may not need a resource that failed or was skipped
                // (continue-on-error): its old state would precede that one's.
                let bad = std::iter::once(&old.state)
                    .chain(kept.iter().map(|&i| &self.base[i]))
                    .flat_map(ResourceState::dependency_urns)
                    .find(|u| self.exec.is_failed_or_skipped(u));
                if let Some(bad) = bad {
                    return Ok(self.skip(urn, &bad));
                }
                for i in kept {
                    let dep = self.old(i);
                    self.registered.insert(dep.state.urn.clone());
                    self.operated.insert(dep.state.urn.clone());
                    let state = dep.state.clone();
                    steps.push(
                        Step::new(StepOp::Same, state.urn.clone())
                            .with_old(dep)
                            .with_new(state),
                    );
                }
            }
            let kept = old.state.clone();
            steps.push(Step::new(StepOp::Same, urn).with_old(old).with_new(kept));
            return Ok(Generated::Chain(PlannedChain {
                steps,
                cascade: None,
            }));
        }
        if new.replacement_trigger.contains_unknowns() && !self.opts.is_preview() {
            return Err(RegisterError::Failed(format!(
                "replacement trigger contains unknowns for {urn}"
            )));
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
        let mut job = self.diff_job(&goal, &old, &new)?;
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
    /// A registration during `destroy --run-program` or `refresh --run-program` (Pulumi's
    /// destroy and refresh modes): nothing is created or updated, the program gets the recorded
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

    fn skip(&mut self, urn: Urn, bad: &Urn) -> Generated {
        self.exec.mark_skipped(&urn);
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

    /// Runs every analyzer over a checked resource; a mandatory violation refuses it.
    fn analyze(&self, state: &ResourceState) -> Result<(), RegisterError> {
        let mut mandatory = Vec::new();
        for a in &self.analyzers {
            for v in a.analyze(state) {
                let severity = if v.mandatory {
                    Severity::Error
                } else {
                    Severity::Warning
                };
                self.events.diag(
                    Some(state.urn.clone()),
                    severity,
                    format!("[{}] {}: {}", a.name(), v.policy, v.message),
                );
                if v.mandatory {
                    mandatory.push(format!("{}: {}", v.policy, v.message));
                }
            }
        }
        if mandatory.is_empty() {
            Ok(())
        } else {
            Err(RegisterError::Failed(format!(
                "{} violates mandatory policies: {}",
                state.urn,
                mandatory.join("; ")
            )))
        }
    }

    /// Plans a read of an existing resource (`read`, or `read-replacement` when the program
    /// managed a different resource under this URN).
    pub fn generate_read(&mut self, goal: ReadGoal) -> Result<PlannedChain, RegisterError> {
        let urn = self.claim_urn(goal.parent.as_ref(), &goal.type_, &goal.name)?;
        self.events.send(EngineEvent::RegistrationReceived {
            urn: urn.clone(),
            type_: goal.type_.clone(),
            parent: goal.parent.clone(),
            custom: true,
            dependencies: goal.dependencies.clone(),
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
                let read = Step::new(StepOp::ReadReplacement, urn.clone())
                    .with_old(old.clone())
                    .with_new(new.clone());
                let replace = Step::new(StepOp::Replace, urn).with_old(old).with_new(new);
                Ok(PlannedChain {
                    steps: vec![read, replace],
                    cascade: None,
                })
            }
            Some(old) => Ok(PlannedChain {
                steps: vec![Step::new(StepOp::Read, urn).with_old(old).with_new(new)],
                cascade: None,
            }),
            None => Ok(PlannedChain {
                steps: vec![Step::new(StepOp::Read, urn).with_new(new)],
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
    ) -> Result<super::property::PropertyMap, RegisterError> {
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
            let provider = self.provider_for(urn, new)?;
            provider
                .check(CheckRequest {
                    urn: urn.clone(),
                    olds,
                    news: new.inputs.clone(),
                    random_seed: Vec::new(),
                })
                .await
        };
        let result = result
            .map_err(|e| RegisterError::Failed(secrets.mask(&format!("checking {urn}: {e}"))))?;
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
            return Err(RegisterError::Failed(secrets.mask(&format!(
                "{urn} has invalid inputs: {}",
                reasons.join("; ")
            ))));
        }
        Ok(result.inputs)
    }

    fn provider_for(
        &self,
        urn: &Urn,
        state: &ResourceState,
    ) -> Result<Arc<dyn Provider>, RegisterError> {
        self.loaded_provider_for(urn, state).map(|l| l.provider)
    }

    fn loaded_provider_for(
        &self,
        urn: &Urn,
        state: &ResourceState,
    ) -> Result<LoadedProvider, RegisterError> {
        let reference = state.provider.as_deref().ok_or_else(|| {
            RegisterError::Invalid(format!("{urn} is a custom resource without a provider"))
        })?;
        self.registry.get_loaded(reference).ok_or_else(|| {
            RegisterError::Invalid(format!(
                "unknown provider '{reference}' for resource '{urn}': it is not registered in this deployment"
            ))
        })
    }

    /// A provider reference must read `<provider URN>::<provider ID>` and name a provider.
    fn check_provider_reference(
        &self,
        urn: &Urn,
        state: &ResourceState,
    ) -> Result<(), RegisterError> {
        let Some(reference) = state.provider.as_deref() else {
            return Ok(());
        };
        let bad = |why: &str| {
            RegisterError::Invalid(format!(
                "bad provider reference '{reference}' for resource '{urn}': {why}"
            ))
        };
        let purn = provider_urn(reference)
            .ok_or_else(|| bad("expected '<provider URN>::<provider ID>'"))?;
        if !is_provider_type(purn.type_()) {
            return Err(bad("the URN does not name a provider resource"));
        }
        if reference.ends_with("::") {
            return Err(bad("the provider ID is empty"));
        }
        Ok(())
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
        let (Some(old_ref), Some(new_ref)) = (old.provider.as_deref(), new.provider.as_deref())
        else {
            return Ok(true);
        };
        let bad = |r: &str| {
            RegisterError::Invalid(format!(
                "bad provider reference '{r}' for resource '{}'",
                new.urn
            ))
        };
        let old_urn = provider_urn(old_ref).ok_or_else(|| bad(old_ref))?;
        let new_urn = provider_urn(new_ref).ok_or_else(|| bad(new_ref))?;
        if self.aliased.get(&old_urn) == Some(&new_urn) {
            return Ok(false);
        }
        let (Some(old_provider), Some(new_provider)) = (
            self.olds.get(&old_urn).map(|&i| &self.base[i]),
            self.providers.get(&new_urn),
        ) else {
            return Err(RegisterError::Failed(format!(
                "failed to resolve provider reference '{old_ref}' of resource '{}'",
                new.urn
            )));
        };
        let diff = self
            .registry
            .diff(DiffRequest {
                urn: new_urn,
                id: new_ref
                    .rsplit_once("::")
                    .map(|(_, id)| id.to_string())
                    .unwrap_or_default(),
                old_inputs: old_provider.inputs.clone(),
                old_outputs: old_provider.outputs.clone(),
                new_inputs: new_provider.inputs.clone(),
                ignore_changes: Vec::new(),
            })
            .await
            .map_err(|e| {
                RegisterError::Failed(format!("diffing the provider of {}: {e}", new.urn))
            })?;
        Ok(diff.replaces())
    }

    fn diff_job(
        &self,
        goal: &Goal,
        old: &OldState,
        new: &ResourceState,
    ) -> Result<DiffJob, RegisterError> {
        let urn = new.urn.clone();
        let forced = if self.replace_targets.matches(&urn) || old.state.taint {
            Some("id")
        } else if new
            .replace_with
            .iter()
            .any(|r| self.deleted.contains(r) || self.replaced.contains(r))
        {
            Some("replaceWith")
        } else if new
            .deleted_with
            .as_ref()
            .is_some_and(|d| self.deleted.contains(d) || self.replaced.contains(d))
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
                id: old.state.id.clone().unwrap_or_default(),
                old_inputs: old.state.inputs.clone(),
                old_outputs: old.state.outputs.clone(),
                new_inputs: new.inputs.clone(),
                ignore_changes: goal.ignore_changes.clone(),
            },
            replace_on_changes: parse_paths(
                &new.urn,
                "replaceOnChanges",
                &goal.replace_on_changes,
            )?,
            forced,
            init_errors: !old.state.init_errors.is_empty(),
        })
    }

    /// Continues after a diff (Pulumi's `continueStepsFromDiff`).
    pub async fn continue_from_diff(
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
        if self.deleted.contains(&urn) {
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
            return Ok(single(
                Step::new(StepOp::Update, urn).with_old(old).with_new(new),
            ));
        }
        if diff.changes != DiffChanges::Some && !pending {
            new.id = old.state.id.clone();
            new.outputs = old.state.outputs.clone();
            new.created = old.state.created.clone();
            new.modified = old.state.modified.clone();
            return Ok(single(
                Step::new(StepOp::Same, urn).with_old(old).with_new(new),
            ));
        }
        if !diff.replaces() && !triggered && !pending {
            let mut step = Step::new(StepOp::Update, urn).with_old(old).with_new(new);
            step.diffs = diff.changed_keys;
            step.detailed_diff = diff.detailed_diff;
            return Ok(single(step));
        }
        if old.state.protect && new.protect && !self.opts.ignore_protect {
            return Err(RegisterError::Failed(format!(
                "unable to replace resource \"{urn}\" as it is currently marked for protection. To unprotect the resource, remove the `protect` flag from the resource in your program and run `stepdeck up`, or use the command: `stepdeck state unprotect '{urn}'`"
            )));
        }
        if goal.import_id.is_some() {
            // The replacement would change the ID the program still asks to import.
            let msg = "previously-imported resources that still specify an ID may not be replaced; remove the import ID from the program";
            if !self.opts.is_preview() {
                return Err(RegisterError::Failed(format!("{urn}: {msg}")));
            }
            self.events
                .diag(Some(urn.clone()), Severity::Warning, msg.to_string());
        }
        self.replaced.insert(urn.clone());
        let dbr = pending
            || goal
                .delete_before_replace
                .unwrap_or(diff.delete_before_replace);
        let decorate = |mut s: Step, diff: &DiffResult| {
            s.keys = diff.replace_keys.clone();
            s.diffs = diff.changed_keys.clone();
            s.detailed_diff = diff.detailed_diff.clone();
            s.delete_before_replace = dbr;
            s
        };
        if !dbr {
            let create = decorate(
                Step::new(StepOp::CreateReplacement, urn.clone())
                    .with_old(old.clone())
                    .with_new(new.clone()),
                &diff,
            );
            let replace = decorate(
                Step::new(StepOp::Replace, urn).with_old(old).with_new(new),
                &diff,
            );
            return Ok(PlannedChain {
                steps: vec![create, replace],
                cascade: None,
            });
        }
        // Delete-before-replace: the replacement is checked again without old inputs.
        let fresh = ResourceState {
            inputs: goal.properties.clone(),
            ..new.clone()
        };
        new.inputs = self.check(&urn, &goal, None, &fresh).await?;
        let dependents = self.dependent_replacements(old.index).await?;
        let mut steps = Vec::new();
        let mut members = vec![CascadeMember {
            urn: urn.clone(),
            type_: new.type_.clone(),
            reason: CascadeReason::Root {
                keys: diff.replace_keys.clone(),
            },
        }];
        for (i, reason, keys) in dependents.iter().rev() {
            let dep = self.old(*i);
            members.push(CascadeMember {
                urn: dep.state.urn.clone(),
                type_: dep.state.type_.clone(),
                reason: reason.clone(),
            });
            self.dependent_replace_keys
                .insert(dep.state.urn.clone(), keys.clone());
            self.deleted.insert(dep.state.urn.clone());
            if self.pending_deletes.insert(*i) && !dep.state.pending_replacement {
                let mut del =
                    Step::new(StepOp::DeleteReplaced, dep.state.urn.clone()).with_old(dep);
                del.pending_replace = true;
                del.delete_before_replace = true;
                del.keys = keys.clone();
                steps.push(del);
            }
        }
        members[1..].reverse();
        self.deleted.insert(urn.clone());
        if self.pending_deletes.insert(old.index) && !old.state.pending_replacement {
            let mut del = decorate(
                Step::new(StepOp::DeleteReplaced, urn.clone()).with_old(old.clone()),
                &diff,
            );
            del.pending_replace = true;
            steps.push(del);
        }
        steps.push(decorate(
            Step::new(StepOp::Replace, urn.clone())
                .with_old(old.clone())
                .with_new(new.clone()),
            &diff,
        ));
        steps.push(decorate(
            Step::new(StepOp::CreateReplacement, urn.clone())
                .with_old(old)
                .with_new(new),
            &diff,
        ));
        let cascade = Cascade {
            id: self.next_cascade,
            root: urn,
            members,
        };
        self.next_cascade += 1;
        Ok(PlannedChain {
            steps,
            cascade: Some(cascade),
        })
    }

    /// Continues after an import (Pulumi's `continueStepsFromImport`): the program's inputs are
    /// diffed against the imported state; a difference is an update of the imported resource.
    pub async fn continue_from_import(
        &mut self,
        goal: Goal,
        imported: ResourceState,
    ) -> Result<Generated, RegisterError> {
        let urn = imported.urn.clone();
        let old = OldState {
            index: usize::MAX,
            state: imported.clone(),
        };
        let mut new = state_from_goal(&urn, &goal);
        new.import_id = imported.import_id.clone();
        new.inputs = self.check(&urn, &goal, Some(&imported), &new).await?;
        let diff = self.diff_job(&goal, &old, &new)?.run().await?;
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
            let msg = format!(
                "{urn} was imported, but its inputs differ in ways that force a replacement ({}); change the program to match the imported resource or remove the import ID",
                diff.replace_keys.join(", ")
            );
            if !self.opts.is_preview() {
                return Err(RegisterError::Failed(msg));
            }
            self.events.diag(Some(urn.clone()), Severity::Warning, msg);
            return Ok(Generated::Done(Registered {
                urn,
                id: imported.id.clone(),
                outputs: imported.outputs,
                status: RegisterStatus::Success,
                unknown: true,
            }));
        }
        let mut step = Step::new(StepOp::Update, urn).with_old(old).with_new(new);
        step.old_is_new = true;
        step.diffs = diff.changed_keys;
        step.detailed_diff = diff.detailed_diff;
        Ok(Generated::Chain(PlannedChain {
            steps: vec![step],
            cascade: None,
        }))
    }

    /// A resource an earlier DBR chain deleted, registered again: `[replace, create-replacement]`.
    fn recreate(&self, old: OldState, new: ResourceState) -> PlannedChain {
        let keys = self
            .dependent_replace_keys
            .get(&new.urn)
            .cloned()
            .unwrap_or_default();
        let urn = new.urn.clone();
        let mut replace = Step::new(StepOp::Replace, urn.clone())
            .with_old(old.clone())
            .with_new(new.clone());
        let mut create = Step::new(StepOp::CreateReplacement, urn)
            .with_old(old)
            .with_new(new);
        for s in [&mut replace, &mut create] {
            s.keys = keys.clone();
            s.delete_before_replace = true;
        }
        PlannedChain {
            steps: vec![replace, create],
            cascade: None,
        }
    }

    /// The dependents a delete-before-replace of base resource `root` must replace too
    /// (Pulumi's `calculateDependentReplacements`), in dependency order.
    async fn dependent_replacements(
        &self,
        root: usize,
    ) -> Result<Vec<(usize, CascadeReason, Vec<String>)>, RegisterError> {
        let mut set: HashSet<Urn> = [self.base[root].urn.clone()].into();
        let mut out = Vec::new();
        for i in self
            .graph
            .depending_on(root, &self.base, &self.operated, false)
        {
            let r = &self.base[i];
            if !r.custom || r.external || r.delete || self.vanished.contains(&i) {
                continue;
            }
            let provider_urn = r
                .provider
                .as_deref()
                .and_then(super::resource::provider_urn);
            let reason = if let Some(p) = provider_urn.filter(|p| set.contains(p)) {
                Some((
                    CascadeReason::Provider { provider: p },
                    vec!["provider".to_string()],
                ))
            } else if let Some(t) = r.deleted_with.as_ref().filter(|t| set.contains(*t)) {
                Some((
                    CascadeReason::DeletedWith { target: t.clone() },
                    vec!["deletedWith".to_string()],
                ))
            } else {
                self.replaced_through_inputs(r, &set).await?
            };
            if let Some((reason, keys)) = reason {
                set.insert(r.urn.clone());
                out.push((i, reason, keys));
            }
        }
        Ok(out)
    }

    /// Substitutes unknowns for the inputs that depend on the replace set and asks the
    /// dependent's provider whether that forces a replacement.
    async fn replaced_through_inputs(
        &self,
        r: &ResourceState,
        set: &HashSet<Urn>,
    ) -> Result<Option<(CascadeReason, Vec<String>)>, RegisterError> {
        let mut inputs = Vec::new();
        let mut on = None;
        for (k, deps) in &r.property_dependencies {
            if let Some(d) = deps.iter().find(|d| set.contains(*d)) {
                inputs.push(k.clone());
                on.get_or_insert_with(|| d.clone());
            }
        }
        let Some(on) = on else {
            return Ok(None);
        };
        let mut news = r.inputs.clone();
        for k in &inputs {
            news.insert(k.clone(), PropertyValue::Unknown);
        }
        let target = if r.is_provider() {
            DiffTarget::ProviderResource(self.registry.clone())
        } else {
            let reference = r.provider.as_deref().unwrap_or_default();
            let loaded = self.registry.ensure(reference).await.map_err(|e| {
                RegisterError::Failed(format!("loading the provider of {}: {e}", r.urn))
            })?;
            DiffTarget::Custom(loaded.provider)
        };
        let job = DiffJob {
            urn: r.urn.clone(),
            target,
            request: DiffRequest {
                urn: r.urn.clone(),
                id: r.id.clone().unwrap_or_default(),
                old_inputs: r.inputs.clone(),
                old_outputs: r.outputs.clone(),
                new_inputs: news,
                ignore_changes: r.ignore_changes.clone(),
            },
            replace_on_changes: parse_paths(&r.urn, "replaceOnChanges", &r.replace_on_changes)?,
            forced: None,
            init_errors: !r.init_errors.is_empty(),
        };
        let diff = job.run().await?;
        if r.protect && diff.replaces() && !self.opts.ignore_protect {
            return Err(RegisterError::Failed(format!(
                "unable to replace resource \"{}\" as part of replacing {on}: it is protected. To unprotect the resource, remove the `protect` flag from the resource in your program and run `stepdeck up`, or use the command: `stepdeck state unprotect '{}'`",
                r.urn, r.urn
            )));
        }
        Ok(diff.replaces().then(|| {
            (
                CascadeReason::Input {
                    inputs,
                    on,
                    keys: diff.replace_keys.clone(),
                },
                diff.replace_keys,
            )
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
