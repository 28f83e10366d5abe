//! Provider resources: loading a provider per `pulumi:providers:<pkg>` resource, configuring it,
//! and finding it again by reference for the resources it manages.

use std::collections::HashMap;
use std::sync::Arc;

use parking_lot::{Mutex, RwLock};

use super::property::PropertyMap;
use super::provider::{
    CheckResult, ConfigureResult, DiffRequest, DiffResult, Provider, ProviderError,
};
use super::resource::ResourceState;
use super::urn::Urn;

/// Makes provider instances for a package: the built-in ones, or plugins.
pub trait ProviderFactory: Send + Sync {
    fn load(
        &self,
        package: &str,
        version: Option<&str>,
    ) -> Result<Arc<dyn Provider>, ProviderError>;
}

/// A configured provider and what it told the engine about itself.
#[derive(Clone)]
pub struct LoadedProvider {
    pub provider: Arc<dyn Provider>,
    pub configure: ConfigureResult,
    /// False in a preview whose provider config has unknowns: the provider cannot diff or
    /// plan, so the engine reports "diff unavailable" and previews with unknown outputs.
    pub configured: bool,
}

/// Every provider of a deployment, by reference `<URN>::<ID>`.
pub struct ProviderRegistry {
    factory: Arc<dyn ProviderFactory>,
    loaded: RwLock<HashMap<String, LoadedProvider>>,
    /// Providers recorded in the base snapshot, configured on first use by an old resource.
    olds: HashMap<String, ResourceState>,
    /// Unconfigured instances by (package, version), loaded once for CheckConfig and
    /// DiffConfig: for a plugin every load is a process. The first Configure of that
    /// (package, version) takes the instance over.
    unconfigured: Mutex<HashMap<PluginKey, Arc<dyn Provider>>>,
}

type PluginKey = (String, Option<String>);

/// The package a provider type manages: `sim` for `pulumi:providers:sim`.
pub fn provider_package(ty: &str) -> &str {
    super::resource::provider_type_package(ty).unwrap_or(ty)
}

fn plugin_key(package: &str, version: Option<&str>) -> PluginKey {
    (package.to_string(), version.map(str::to_string))
}

fn version_of(inputs: &PropertyMap) -> Option<&str> {
    inputs.get("version").and_then(|v| v.as_str())
}

impl ProviderRegistry {
    pub fn new(factory: Arc<dyn ProviderFactory>, base: &[ResourceState]) -> ProviderRegistry {
        let olds = base
            .iter()
            .filter(|r| r.is_provider() && !r.delete)
            .filter_map(|r| Some((format!("{}::{}", r.urn, r.id.as_deref()?), r.clone())))
            .collect();
        ProviderRegistry {
            factory,
            loaded: RwLock::new(HashMap::new()),
            olds,
            unconfigured: Mutex::new(HashMap::new()),
        }
    }

    /// The provider behind a reference, if it is configured.
    pub fn get(&self, reference: &str) -> Option<Arc<dyn Provider>> {
        self.get_loaded(reference).map(|l| l.provider)
    }

    pub fn get_loaded(&self, reference: &str) -> Option<LoadedProvider> {
        self.loaded.read().get(reference).cloned()
    }

    /// The provider for a reference, configuring it from the base snapshot when an old resource
    /// needs a provider the program did not register this time.
    pub async fn ensure(&self, reference: &str) -> Result<LoadedProvider, ProviderError> {
        if let Some(p) = self.get_loaded(reference) {
            return Ok(p);
        }
        let old = self
            .olds
            .get(reference)
            .ok_or_else(|| ProviderError::UnknownReference(reference.to_string()))?;
        let loaded = self
            .load_and_configure(&old.type_, &old.inputs, false)
            .await?;
        self.loaded
            .write()
            .insert(reference.to_string(), loaded.clone());
        Ok(loaded)
    }

    /// Check for a provider resource: loads an unconfigured instance and checks its config.
    pub async fn check(
        &self,
        urn: &Urn,
        olds: &PropertyMap,
        news: &PropertyMap,
    ) -> Result<CheckResult, ProviderError> {
        let prov = self.unconfigured(provider_package(urn.type_()), version_of(news))?;
        prov.check_config(urn, olds, news).await
    }

    /// Diff for a provider resource: DiffConfig.
    pub async fn diff(&self, req: DiffRequest) -> Result<DiffResult, ProviderError> {
        let prov = self.unconfigured(
            provider_package(req.urn.type_()),
            version_of(&req.new_inputs),
        )?;
        prov.diff_config(req).await
    }

    /// Create, update or same of a provider resource: configure it and make it referenceable.
    pub async fn configure(
        &self,
        urn: &Urn,
        id: &str,
        inputs: &PropertyMap,
        preview: bool,
    ) -> Result<(), ProviderError> {
        let loaded = self
            .load_and_configure(urn.type_(), inputs, preview)
            .await?;
        self.loaded.write().insert(format!("{urn}::{id}"), loaded);
        Ok(())
    }

    async fn load_and_configure(
        &self,
        ty: &str,
        inputs: &PropertyMap,
        preview: bool,
    ) -> Result<LoadedProvider, ProviderError> {
        let key = plugin_key(provider_package(ty), version_of(inputs));
        let cached = self.unconfigured.lock().remove(&key);
        let provider = match cached {
            Some(p) => p,
            None => self.factory.load(&key.0, key.1.as_deref())?,
        };
        let unknown_config = inputs.values().any(|v| v.contains_unknowns());
        let configured = !(preview && unknown_config);
        let configure = if configured {
            provider.configure(inputs).await?
        } else {
            ConfigureResult::default()
        };
        Ok(LoadedProvider {
            provider,
            configure,
            configured,
        })
    }

    /// The cached unconfigured instance for a (package, version), loading it once.
    fn unconfigured(
        &self,
        package: &str,
        version: Option<&str>,
    ) -> Result<Arc<dyn Provider>, ProviderError> {
        let key = plugin_key(package, version);
        let mut cache = self.unconfigured.lock();
        if let Some(p) = cache.get(&key) {
            return Ok(p.clone());
        }
        let p = self.factory.load(package, version)?;
        cache.insert(key, p.clone());
        Ok(p)
    }

    /// The resource types a package's provider declares (empty when it does not say), or why
    /// the provider cannot be loaded.
    pub fn resource_types(
        &self,
        package: &str,
        version: Option<&str>,
    ) -> Result<Vec<String>, ProviderError> {
        self.unconfigured(package, version)
            .map(|p| p.resource_types())
    }

    /// Sends Cancel to every configured provider.
    pub async fn cancel_all(&self) {
        let all: Vec<_> = self
            .loaded
            .read()
            .values()
            .map(|l| l.provider.clone())
            .collect();
        for p in all {
            let _ = p.cancel().await;
        }
    }
}
