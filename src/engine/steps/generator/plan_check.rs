//! The generator's side of update plans: a preview records each registration's goal, seed,
//! steps and outputs; a run under a plan, and the preview before it, checks each against it
//! before any step runs (Pulumi's `checkGoal`, `checkMissingPlan` and its step validation).
//! Outputs are checked only in the run (a preview's are partly unknown).

use rand::Rng;

use super::StepGenerator;
use crate::engine::model::goal::Goal;
use crate::engine::model::property::PropertyMap;
use crate::engine::model::resource::ResourceState;
use crate::engine::model::urn::Urn;
use crate::engine::program::source::RegisterError;
use crate::engine::run::plan::{
    Plan, PlanMismatch, PlanViolation, PlannedGoal, ResourcePlan, first_difference,
};
use crate::engine::step::{Step, StepOp};

/// Bytes of the seed Check gets, as Pulumi sends.
const SEED_BYTES: usize = 32;

fn violation(urn: &Urn, detail: PlanMismatch) -> PlanViolation {
    PlanViolation {
        urn: urn.clone(),
        detail,
    }
}

fn refused(v: PlanViolation) -> RegisterError {
    RegisterError::Plan(v)
}

impl StepGenerator {
    fn enforced(&self) -> Option<&Plan> {
        self.opts.plan.as_deref()
    }

    /// Under a plan, a new resource the preview did not create, or one it only deleted, is
    /// refused before any provider call.
    pub(super) fn refuse_unplanned(&self, urn: &Urn, has_old: bool) -> Result<(), RegisterError> {
        let Some(plan) = self.enforced() else {
            return Ok(());
        };
        match plan.resources.get(urn) {
            None if !has_old => Err(refused(violation(urn, PlanMismatch::NotCreated))),
            Some(rp) if rp.goal.is_none() => {
                Err(refused(violation(urn, PlanMismatch::RegisteredAfterDelete)))
            }
            _ => Ok(()),
        }
    }

    /// The seed Check gets: the plan's for this resource, the one this preview already used,
    /// or a fresh random one.
    pub(super) fn seed_for(&self, urn: &Urn) -> Vec<u8> {
        let planned = self
            .opts
            .plan
            .as_deref()
            .into_iter()
            .chain(self.recording.as_ref())
            .filter_map(|p| p.resources.get(urn))
            .map(|rp| rp.seed.clone())
            .find(|s| !s.is_empty());
        planned.unwrap_or_else(|| {
            let mut seed = vec![0u8; SEED_BYTES];
            rand::rng().fill(&mut seed[..]);
            seed
        })
    }

    /// Checks a checked registration against the plan's goal, or, for a resource the plan
    /// does not name, that its inputs are what the state records.
    pub(super) fn check_goal(
        &self,
        urn: &Urn,
        goal: &Goal,
        old: Option<&ResourceState>,
        new: &ResourceState,
    ) -> Result<(), RegisterError> {
        let Some(plan) = self.enforced() else {
            return Ok(());
        };
        let result = match (plan.resources.get(urn).and_then(|rp| rp.goal.as_ref()), old) {
            (Some(planned), _) => planned.check(new, goal.delete_before_replace),
            (None, Some(old)) => match first_difference(&old.inputs, &new.inputs) {
                Some(path) => Err(PlanMismatch::KeptInputChanged(path)),
                None => Ok(()),
            },
            (None, None) => Ok(()),
        };
        result.map_err(|detail| refused(violation(urn, detail)))
    }

    /// Records a registration's goal and seed in the plan a preview builds.
    pub(super) fn record_goal(
        &mut self,
        goal: &Goal,
        old: Option<&ResourceState>,
        new: &ResourceState,
        seed: Vec<u8>,
    ) {
        if let Some(plan) = &mut self.recording {
            let rp = plan.resources.entry(new.urn.clone()).or_default();
            rp.goal = Some(PlannedGoal::of(new, goal.delete_before_replace, old));
            rp.seed = seed;
        }
    }

    /// A chain (or a layer of deletes) about to be scheduled: under a plan every step must be
    /// one it allows; a preview records the steps.
    pub(crate) fn plan_steps(&mut self, steps: &[Step]) -> Result<(), PlanViolation> {
        if let Some(plan) = self.enforced() {
            // A create left out by targeting does nothing: always within the plan.
            for s in steps
                .iter()
                .filter(|s| !matches!(s, Step::SkippedCreate { .. }))
            {
                let urn = s.urn();
                let op = s.op();
                let allowed = match plan.resources.get(urn) {
                    Some(rp) => rp.allows(op),
                    None => op == StepOp::Same,
                };
                if !allowed {
                    let planned = plan
                        .resources
                        .get(urn)
                        .map(|rp| {
                            rp.ops
                                .iter()
                                .map(|o| o.as_str())
                                .collect::<Vec<_>>()
                                .join(", ")
                        })
                        .filter(|p| !p.is_empty())
                        .unwrap_or_else(|| "nothing".into());
                    return Err(violation(
                        urn,
                        PlanMismatch::StepNotPlanned {
                            op: op.as_str(),
                            planned,
                        },
                    ));
                }
            }
        }
        if let Some(plan) = &mut self.recording {
            for s in steps {
                let rp: &mut ResourcePlan = plan.resources.entry(s.urn().clone()).or_default();
                rp.ops.push(s.op());
            }
        }
        Ok(())
    }

    /// A resource's outputs once its steps ran: a preview records them as expected; under
    /// `--strict` a plan refuses outputs it did not expect.
    pub(crate) fn plan_outputs(
        &mut self,
        urn: &Urn,
        outputs: &PropertyMap,
    ) -> Result<(), PlanViolation> {
        if let Some(plan) = &mut self.recording {
            plan.resources.entry(urn.clone()).or_default().outputs = Some(outputs.clone());
        }
        let Some(plan) = self
            .enforced()
            .filter(|_| self.opts.strict_plan && !self.opts.is_preview())
        else {
            return Ok(());
        };
        match plan.resources.get(urn) {
            Some(rp) => rp.check_outputs(outputs),
            None if outputs.is_empty() => Ok(()),
            None => Err(PlanMismatch::OutputsNotPlanned),
        }
        .map_err(|detail| violation(urn, detail))
    }

    /// The plan this preview recorded.
    pub(crate) fn take_plan(&mut self) -> Option<Plan> {
        self.recording.take()
    }
}
