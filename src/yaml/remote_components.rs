//! Components served by provider plugins (multi-language components, e.g. one written with
//! Python's `component_provider_host`): a YAML program cannot tell them from custom resources
//! by their type, so, as Pulumi YAML reads the package schema, the schema of each package the
//! project serves from a path (`packages:`, `plugins.providers`) says which types are
//! components. Those are constructed by their provider instead of registered.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Arc;

use tokio::sync::Mutex;

use crate::engine::model::goal::package_of;
use crate::engine::provider::{ConstructRequest, ProgramInfo};
use crate::engine::{Goal, ProviderRef, RegisterError, Registered, ResourceMonitor};

/// The packages whose schemas may declare components, and what each schema declared.
#[derive(Debug, Default)]
pub struct RemoteComponents {
    packages: HashSet<String>,
    known: Mutex<HashMap<String, Arc<HashSet<String>>>>,
}

impl RemoteComponents {
    /// Components may come from these packages' providers.
    pub fn new(packages: impl IntoIterator<Item = String>) -> RemoteComponents {
        RemoteComponents {
            packages: packages.into_iter().collect(),
            known: Mutex::default(),
        }
    }

    /// Whether `type_` is a component its package's provider constructs; the schema is read
    /// once per package.
    pub async fn is_remote(
        &self,
        type_: &str,
        version: Option<&str>,
        monitor: &ResourceMonitor,
    ) -> Result<bool, String> {
        let package = package_of(type_);
        if !self.packages.contains(package) {
            return Ok(false);
        }
        let mut known = self.known.lock().await;
        let types = match known.get(package) {
            Some(types) => types.clone(),
            None => {
                let types = monitor
                    .component_types(package, version)
                    .await
                    .map_err(|e| format!("cannot read the schema of package {package:?}: {e}"))?;
                let types = Arc::new(types.into_iter().collect::<HashSet<_>>());
                known.insert(package.to_string(), types.clone());
                types
            }
        };
        Ok(types.contains(type_))
    }
}

/// Constructs the component `goal` describes through its package's provider (`provider`, an
/// explicit provider reference, or the default one); `providers` go to its children.
pub async fn construct(
    monitor: &ResourceMonitor,
    goal: Goal,
    provider: Option<ProviderRef>,
    providers: BTreeMap<String, ProviderRef>,
) -> Result<Registered, RegisterError> {
    let req = ConstructRequest {
        type_: goal.type_,
        name: goal.name,
        parent: goal.parent,
        inputs: goal.properties,
        input_dependencies: goal.property_dependencies,
        dependencies: goal.dependencies,
        protect: goal.protect,
        providers,
        additional_secret_outputs: goal.additional_secret_outputs,
        deleted_with: goal.deleted_with,
        ignore_changes: goal.ignore_changes,
        replace_on_changes: goal.replace_on_changes,
        retain_on_delete: goal.retain_on_delete,
        hooks: goal.hooks,
        info: ProgramInfo {
            organization: "organization".to_string(),
            ..ProgramInfo::default()
        },
    };
    monitor.construct(req, provider, goal.version).await
}
