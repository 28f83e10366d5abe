//! Test-only stand-in for the deployment loop, which is not on this branch: it answers the
//! resource monitor's requests (echoing inputs as outputs, recording goals and the order of
//! events, making provider resources invocable) so evaluation can be unit-tested against the real `ResourceMonitor`. Only unit tests
//! use it; integration tests run programs through the real `Deployment`.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use tokio::sync::mpsc;

use crate::engine::program::source::{DeploymentInfo, SourceEvent};
use crate::engine::provider::{
    CreateRequest, CreateResult, DeleteRequest, ProviderError, UpdateRequest,
};
use crate::engine::{
    EventSink, Goal, Program, ProgramError, PropertyMap, PropertyValue, Provider, ProviderFactory,
    ProviderRegistry, ReadGoal, RegisterStatus, Registered, ResourceMonitor, Urn,
};

use super::YamlProgram;

/// Providers that only answer invokes: `<pkg>:index:echo` returns its arguments with the
/// token and the provider's version; `<pkg>:index:fail` fails.
struct FunctionProviders;

impl ProviderFactory for FunctionProviders {
    fn load(&self, _: &str, version: Option<&str>) -> Result<Arc<dyn Provider>, ProviderError> {
        Ok(Arc::new(FunctionProvider {
            version: version.unwrap_or("").to_string(),
        }))
    }
}

struct FunctionProvider {
    version: String,
}

#[async_trait]
impl Provider for FunctionProvider {
    async fn create(&self, _: CreateRequest) -> Result<CreateResult, ProviderError> {
        Err(ProviderError::Unsupported("Create in the test monitor"))
    }

    async fn update(&self, _: UpdateRequest) -> Result<PropertyMap, ProviderError> {
        Err(ProviderError::Unsupported("Update in the test monitor"))
    }

    async fn delete(&self, _: DeleteRequest) -> Result<(), ProviderError> {
        Err(ProviderError::Unsupported("Delete in the test monitor"))
    }

    async fn invoke(&self, token: &str, args: &PropertyMap) -> Result<PropertyMap, ProviderError> {
        if token.ends_with(":fail") {
            return Err(ProviderError::Failed(format!("{token} refused")));
        }
        let mut out = args.clone();
        out.insert("token".into(), PropertyValue::string(token));
        out.insert("version".into(), PropertyValue::string(&self.version));
        Ok(out)
    }
}

/// How the stand-in answers: per resource name, a delay and whether the step "fails".
#[derive(Default)]
pub(crate) struct Script {
    pub latency_ms: HashMap<String, u64>,
    pub failed: Vec<String>,
}

/// What the program asked for.
#[derive(Default, Debug)]
pub(crate) struct Recorded {
    pub goals: Vec<Goal>,
    pub reads: Vec<ReadGoal>,
    pub outputs: Option<(Urn, PropertyMap)>,
    /// `start <name>` when a registration arrived, `done <name>` when it was answered.
    pub log: Vec<String>,
}

impl Recorded {
    pub(super) fn goal(&self, name: &str) -> &Goal {
        self.goals
            .iter()
            .find(|g| g.name == name)
            .unwrap_or_else(|| panic!("no goal named {name}"))
    }

    pub(super) fn index(&self, entry: &str) -> usize {
        self.log
            .iter()
            .position(|l| l == entry)
            .unwrap_or_else(|| panic!("{entry} not in {:?}", self.log))
    }
}

/// Parses a program as `Pulumi.yaml` of project `proj`, panicking on errors.
pub(crate) fn parse(text: &str) -> YamlProgram {
    YamlProgram::parse("Pulumi.yaml", text, "proj").unwrap_or_else(|e| panic!("{e}"))
}

/// The load error of a program, or "" when it loads.
pub(crate) fn parse_err(text: &str) -> String {
    YamlProgram::parse("Pulumi.yaml", text, "proj")
        .map(|_| String::new())
        .unwrap_or_else(|e| e.to_string())
}

pub(crate) fn info(config: &[(&str, &str)], secret_keys: &[&str]) -> DeploymentInfo {
    DeploymentInfo {
        stack: "dev".into(),
        project: "proj".into(),
        dry_run: false,
        parallel: 8,
        config: config
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect::<BTreeMap<_, _>>(),
        secret_keys: secret_keys.iter().map(|s| s.to_string()).collect(),
    }
}

/// Runs a program against the stand-in and returns its result and what it recorded.
pub(crate) async fn run(
    program: Box<dyn Program>,
    info: DeploymentInfo,
    script: Script,
) -> (Result<(), ProgramError>, Recorded) {
    let (tx, mut rx) = mpsc::unbounded_channel();
    let registry = Arc::new(ProviderRegistry::new(Arc::new(FunctionProviders), &[]));
    let (stack, project) = (info.stack.clone(), info.project.clone());
    let monitor = ResourceMonitor::new(tx, Arc::new(info), registry.clone(), EventSink::none());
    let rec = Arc::new(Mutex::new(Recorded::default()));
    let script = Arc::new(script);
    let program = tokio::spawn(program.run(monitor));
    while let Some(ev) = rx.recv().await {
        match ev {
            SourceEvent::Register { goal, reply } => {
                let urn = Urn::new(
                    &stack,
                    &project,
                    goal.parent.as_ref(),
                    &goal.type_,
                    &goal.name,
                );
                if crate::engine::model::resource::is_provider_type(&goal.type_) {
                    let id = format!("{}-id", goal.name);
                    registry
                        .configure(&urn, &id, &goal.properties, false)
                        .await
                        .expect("test providers configure");
                }
                let delay = script.latency_ms.get(&goal.name).copied().unwrap_or(0);
                let failed = script.failed.contains(&goal.name);
                {
                    let mut r = rec.lock().unwrap();
                    r.log.push(format!("start {}", goal.name));
                    r.goals.push((*goal).clone());
                }
                let rec = rec.clone();
                tokio::spawn(async move {
                    tokio::time::sleep(Duration::from_millis(delay)).await;
                    rec.lock().unwrap().log.push(format!("done {}", goal.name));
                    let _ = reply.send(Ok(Registered {
                        urn,
                        id: goal.custom.then(|| format!("{}-id", goal.name)),
                        outputs: if failed {
                            PropertyMap::new()
                        } else {
                            goal.properties.clone()
                        },
                        status: if failed {
                            RegisterStatus::Failed
                        } else {
                            RegisterStatus::Success
                        },
                        unknown: failed,
                    }));
                });
            }
            SourceEvent::Read { goal, reply } => {
                let urn = Urn::new(
                    &stack,
                    &project,
                    goal.parent.as_ref(),
                    &goal.type_,
                    &goal.name,
                );
                let mut outputs = goal.properties.clone();
                outputs.insert("readId".into(), PropertyValue::String(goal.id.clone()));
                rec.lock().unwrap().reads.push(goal.clone());
                let _ = reply.send(Ok(Registered {
                    urn,
                    id: Some(goal.id.clone()),
                    outputs,
                    status: RegisterStatus::Success,
                    unknown: false,
                }));
            }
            SourceEvent::RegisterOutputs {
                urn,
                outputs,
                reply,
            } => {
                rec.lock().unwrap().outputs = Some((urn, outputs));
                let _ = reply.send(Ok(()));
            }
            SourceEvent::Shutdown { reply } => {
                let _ = reply.send(Ok(()));
            }
        }
    }
    let result = program.await.expect("program task");
    let rec = std::mem::take(&mut *rec.lock().unwrap());
    (result, rec)
}
