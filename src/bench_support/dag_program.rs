//! A [`Program`] that registers a [`GeneratedDag`] the way an SDK does: every resource waits
//! for the outputs of its dependencies, and at most `concurrency` registrations are in flight.

use std::sync::Arc;

use async_trait::async_trait;
use tokio::sync::{Semaphore, SetOnce};
use tokio::task::JoinSet;

use super::dag::{GROUP, GeneratedDag};
use crate::engine::model::urn::ROOT_STACK_TYPE;
use crate::engine::{
    Goal, Program, ProgramError, PropertyMap, PropertyValue, Registered, ResourceMonitor, Urn,
};

/// What a dependent needs of a registered resource: its URN and the output it reads, or
/// `None` if its registration failed. Set once, awaited by every dependent; a table of these
/// holds no allocation per resource (a shared future and its channel were 190 bytes each).
type Done = SetOnce<Option<(Urn, PropertyValue)>>;

/// Registers a generated DAG with bounded concurrency (a real SDK's registrations are bounded
/// by its event loop and gRPC channel; unbounded, 100,000 waiting tasks only measure tokio).
pub struct DagProgram {
    dag: Arc<GeneratedDag>,
    concurrency: usize,
}

impl DagProgram {
    /// A program for `dag` with at most `concurrency` registrations in flight.
    pub fn new(dag: Arc<GeneratedDag>, concurrency: usize) -> DagProgram {
        DagProgram {
            dag,
            concurrency: concurrency.max(1),
        }
    }
}

fn failed(e: impl std::fmt::Display) -> ProgramError {
    ProgramError(e.to_string())
}

#[async_trait]
impl Program for DagProgram {
    async fn run(self: Box<Self>, monitor: ResourceMonitor) -> Result<(), ProgramError> {
        let info = monitor.info().clone();
        let stack_name = format!("{}-{}", info.project, info.stack);
        let root = monitor
            .register(Goal::component(ROOT_STACK_TYPE, &stack_name))
            .await
            .map_err(failed)?;
        let mut groups = Vec::with_capacity(self.dag.groups.len());
        for g in &self.dag.groups {
            let mut goal = Goal::component(GROUP, g);
            goal.parent = Some(root.urn.clone());
            groups.push(monitor.register(goal).await.map_err(failed)?.urn);
        }
        let permits = Arc::new(Semaphore::new(self.concurrency));
        let done: Arc<[Done]> = self.dag.resources.iter().map(|_| Done::new()).collect();
        // Finished registrations are reaped as the loop goes: a million join handles held to
        // the end would keep every task's memory until then.
        let mut tasks = JoinSet::new();
        for i in 0..self.dag.resources.len() {
            // Permits are taken in dependency order, so a task only ever waits for tasks
            // that already hold or held one: no deadlock.
            let permit = permits.clone().acquire_owned().await.map_err(failed)?;
            let done = done.clone();
            let dag = self.dag.clone();
            let monitor = monitor.clone();
            let parent = groups[dag.resources[i].group].clone();
            // Boxed before it first runs, the task's state is built in place on the heap;
            // unboxed, spawning copied its few kilobytes three times.
            tasks.spawn(Box::pin(async move {
                let answer = register(&dag, i, parent, &done, &monitor).await;
                drop(permit);
                // Dependents wait for this slot whatever happened: `None` fails them too.
                let _ = done[i].set(answer.as_ref().ok().cloned());
                answer.map(drop)
            }));
            while let Some(finished) = tasks.try_join_next() {
                finished.map_err(failed)??;
            }
        }
        drop(done);
        while let Some(finished) = tasks.join_next().await {
            finished.map_err(failed)??;
        }
        Ok(())
    }
}

/// Registers resource `i` of `dag` once its dependencies answered; returns what its dependents
/// read.
async fn register(
    dag: &GeneratedDag,
    i: usize,
    parent: Urn,
    done: &[Done],
    monitor: &ResourceMonitor,
) -> Result<(Urn, PropertyValue), ProgramError> {
    let r = &dag.resources[i];
    let mut goal = Goal::custom(r.type_, &r.name, PropertyMap::new());
    goal.parent = Some(parent);
    goal.properties
        .insert("seq".into(), PropertyValue::Number(i as f64));
    if dag.spec.latency_ms > 0 {
        goal.properties.insert(
            "latencyMs".into(),
            PropertyValue::Number(dag.spec.latency_ms as f64),
        );
    }
    let mut inputs = Vec::with_capacity(r.deps.len());
    for d in &r.deps {
        let (urn, value) = done[*d]
            .wait()
            .await
            .clone()
            .ok_or_else(|| failed(format!("a dependency of {} failed", r.name)))?;
        goal.dependencies.push(urn);
        inputs.push(value);
    }
    if !inputs.is_empty() {
        goal.property_dependencies
            .insert("inputs".into(), goal.dependencies.clone());
        goal.properties
            .insert("inputs".into(), PropertyValue::Array(inputs));
    }
    let reg: Registered = monitor.register(goal).await.map_err(failed)?;
    let out = reg
        .outputs
        .get(dag.output_key(i))
        .cloned()
        .unwrap_or(PropertyValue::Unknown);
    Ok((reg.urn, out))
}
