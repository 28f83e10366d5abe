//! Provider resources: loading a provider per `pulumi:providers:<pkg>` resource, configuring it,
//! and finding it again by reference for the resources it manages.

use std::collections::HashMap;
use std::sync::Arc;

use parking_lot::{Mutex, RwLock};

use super::input_types::ObjectType;
use super::parameterization::{PluginRequest, restore_internal, without_internal};
use super::{CheckResult, ConfigureResult, DiffRequest, DiffResult, Provider, ProviderError};
use crate::engine::model::property::PropertyMap;
use crate::engine::model::provider_ref::ProviderRef;
use crate::engine::model::resource::ResourceState;
use crate::engine::model::urn::Urn;

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

/// Every provider of a deployment, by reference.
pub struct ProviderRegistry {
    factory: Arc<dyn ProviderFactory>,
    /// Looked up by every step (a fast hasher: references come from the operator's programs).
    loaded: RwLock<HashMap<ProviderRef, LoadedProvider, foldhash::fast::RandomState>>,
    /// Providers recorded in the base snapshot, configured on first use by an old resource.
    olds: HashMap<ProviderRef, ResourceState>,
    /// Unconfigured instances by plugin (package, version, parameterization), loaded once for
    /// CheckConfig and DiffConfig: for a plugin every load is a process. The first Configure
    /// of that plugin takes the instance over.
    unconfigured: Mutex<HashMap<PluginRequest, Arc<dyn Provider>>>,
}

impl ProviderRegistry {
    pub fn new(factory: Arc<dyn ProviderFactory>, base: &[ResourceState]) -> ProviderRegistry {
        let olds = base
            .iter()
            .filter(|r| r.is_provider() && !r.delete)
            .filter_map(|r| Some((ProviderRef::new(r.urn.clone(), r.id.as_deref()?), r.clone())))
            .collect();
        ProviderRegistry {
            factory,
            loaded: RwLock::new(HashMap::default()),
            olds,
            unconfigured: Mutex::new(HashMap::new()),
        }
    }

    /// The provider behind a reference, if it is configured.
    pub fn get(&self, reference: &ProviderRef) -> Option<Arc<dyn Provider>> {
        self.get_loaded(reference).map(|l| l.provider)
    }

    pub fn get_loaded(&self, reference: &ProviderRef) -> Option<LoadedProvider> {
        self.loaded.read().get(reference).cloned()
    }

    /// The provider for a reference, configuring it from the base snapshot when an old resource
    /// needs a provider the program did not register this time.
    pub async fn ensure(&self, reference: &ProviderRef) -> Result<LoadedProvider, ProviderError> {
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
            .insert(reference.clone(), loaded.clone());
        Ok(loaded)
    }

    /// Check for a provider resource: loads an unconfigured instance and checks its config.
    pub async fn check(
        &self,
        urn: &Urn,
        olds: &PropertyMap,
        news: &PropertyMap,
    ) -> Result<CheckResult, ProviderError> {
        let prov = self
            .unconfigured(&PluginRequest::of(urn.type_(), news)?)
            .await?;
        let checked = prov
            .check_config(urn, &without_internal(olds), &without_internal(news))
            .await?;
        Ok(CheckResult {
            inputs: restore_internal(news, checked.inputs),
            failures: checked.failures,
        })
    }

    /// Diff for a provider resource: DiffConfig.
    pub async fn diff(&self, req: DiffRequest) -> Result<DiffResult, ProviderError> {
        let prov = self
            .unconfigured(&PluginRequest::of(req.urn.type_(), &req.new_inputs)?)
            .await?;
        prov.diff_config(DiffRequest {
            old_inputs: without_internal(&req.old_inputs),
            old_outputs: without_internal(&req.old_outputs),
            new_inputs: without_internal(&req.new_inputs),
            ..req
        })
        .await
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
        self.loaded
            .write()
            .insert(ProviderRef::new(urn.clone(), id), loaded);
        Ok(())
    }

    async fn load_and_configure(
        &self,
        ty: &str,
        inputs: &PropertyMap,
        preview: bool,
    ) -> Result<LoadedProvider, ProviderError> {
        let key = PluginRequest::of(ty, inputs)?;
        let cached = self.unconfigured.lock().remove(&key);
        let provider = match cached {
            Some(p) => p,
            None => self.load(&key).await?,
        };
        let inputs = without_internal(inputs);
        let unknown_config = inputs.values().any(|v| v.contains_unknowns());
        let configured = !(preview && unknown_config);
        let configure = if configured {
            provider.configure(&inputs).await?
        } else {
            ConfigureResult::default()
        };
        Ok(LoadedProvider {
            provider,
            configure,
            configured,
        })
    }

    /// A new instance of a plugin, parameterized (Pulumi's `loadParameterizedProvider`) when
    /// it serves a parameterized package: before anything else is asked of it.
    async fn load(&self, req: &PluginRequest) -> Result<Arc<dyn Provider>, ProviderError> {
        let provider = self.factory.load(&req.name, req.version.as_deref())?;
        let Some(p) = &req.parameterization else {
            return Ok(provider);
        };
        let refused = |reason: String| ProviderError::Parameterize {
            provider: req.name.clone(),
            package: p.name.clone(),
            reason,
        };
        let served = provider.parameterize(p).await.map_err(|e| match e {
            ProviderError::Unsupported(_) => refused("it has no Parameterize".into()),
            other => refused(other.to_string()),
        })?;
        if served != p.name {
            return Err(refused(format!("it answered package {served:?}")));
        }
        Ok(provider)
    }

    /// The cached unconfigured instance of a plugin, loading it once.
    async fn unconfigured(&self, req: &PluginRequest) -> Result<Arc<dyn Provider>, ProviderError> {
        if let Some(p) = self.cached(req) {
            return Ok(p);
        }
        let loaded = self.load(req).await?;
        Ok(self.keep(req, loaded))
    }

    /// The resource types a package's provider declares (empty when it does not say), or why
    /// the provider cannot be loaded.
    pub fn resource_types(
        &self,
        package: &str,
        version: Option<&str>,
    ) -> Result<Vec<String>, ProviderError> {
        let provider = self.unconfigured_plugin(package, version)?;
        Ok(provider.resource_types())
    }

    /// The types a package's provider gives a resource type's inputs (`None` when it does not
    /// say), or why the provider cannot be loaded.
    pub async fn input_types(
        &self,
        package: &str,
        version: Option<&str>,
        token: &str,
    ) -> Result<Option<ObjectType>, ProviderError> {
        let provider = self.unconfigured_plugin(package, version)?;
        provider.input_types(token).await
    }

    /// The component types a package's provider's schema declares, or why it cannot say.
    pub async fn component_types(
        &self,
        package: &str,
        version: Option<&str>,
    ) -> Result<Vec<String>, ProviderError> {
        let provider = self.unconfigured_plugin(package, version)?;
        provider.component_types().await
    }

    /// The package's unconfigured instance, loaded and kept on first use.
    fn unconfigured_plugin(
        &self,
        package: &str,
        version: Option<&str>,
    ) -> Result<Arc<dyn Provider>, ProviderError> {
        let req = PluginRequest::plain(package, version);
        match self.cached(&req) {
            Some(p) => Ok(p),
            None => Ok(self.keep(&req, self.factory.load(package, version)?)),
        }
    }

    fn cached(&self, req: &PluginRequest) -> Option<Arc<dyn Provider>> {
        self.unconfigured.lock().get(req).cloned()
    }

    /// Keeps a freshly loaded instance, unless a concurrent caller kept one first: every
    /// caller then shares the one that was kept.
    fn keep(&self, req: &PluginRequest, loaded: Arc<dyn Provider>) -> Arc<dyn Provider> {
        self.unconfigured
            .lock()
            .entry(req.clone())
            .or_insert(loaded)
            .clone()
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

#[cfg(test)]
mod tests {
    use async_trait::async_trait;

    use super::*;
    use crate::engine::model::property::PropertyValue;
    use crate::engine::provider::parameterization::{
        INTERNAL_KEY, Parameterization, ParameterizedPackage,
    };
    use crate::engine::provider::{CreateRequest, CreateResult, DeleteRequest, UpdateRequest};

    /// What the plugins of one factory were asked, in order.
    #[derive(Default)]
    struct Calls(Mutex<Vec<String>>);

    /// A plugin that becomes whatever package it is parameterized as (or refuses, as built-in
    /// providers do) and records its calls.
    struct Recording {
        calls: Arc<Calls>,
        parameterizable: bool,
    }

    impl Recording {
        fn record(&self, call: String) {
            self.calls.0.lock().push(call);
        }
    }

    fn keys(m: &PropertyMap) -> String {
        m.keys().cloned().collect::<Vec<_>>().join(",")
    }

    #[async_trait]
    impl Provider for Recording {
        async fn parameterize(&self, req: &Parameterization) -> Result<String, ProviderError> {
            if !self.parameterizable {
                return Err(ProviderError::Unsupported("Parameterize"));
            }
            self.record(format!(
                "parameterize {} {}",
                req.name,
                String::from_utf8_lossy(&req.value)
            ));
            Ok(req.name.clone())
        }
        async fn check_config(
            &self,
            _urn: &Urn,
            _olds: &PropertyMap,
            news: &PropertyMap,
        ) -> Result<CheckResult, ProviderError> {
            self.record(format!("check_config {}", keys(news)));
            Ok(CheckResult {
                inputs: news.clone(),
                failures: Vec::new(),
            })
        }
        async fn configure(&self, inputs: &PropertyMap) -> Result<ConfigureResult, ProviderError> {
            self.record(format!("configure {}", keys(inputs)));
            Ok(ConfigureResult::default())
        }
        async fn create(&self, _req: CreateRequest) -> Result<CreateResult, ProviderError> {
            unreachable!("the registry never creates")
        }
        async fn update(&self, _req: UpdateRequest) -> Result<PropertyMap, ProviderError> {
            unreachable!("the registry never updates")
        }
        async fn delete(&self, _req: DeleteRequest) -> Result<(), ProviderError> {
            unreachable!("the registry never deletes")
        }
    }

    struct Factory {
        calls: Arc<Calls>,
        parameterizable: bool,
    }

    impl ProviderFactory for Factory {
        fn load(
            &self,
            package: &str,
            version: Option<&str>,
        ) -> Result<Arc<dyn Provider>, ProviderError> {
            self.calls
                .0
                .lock()
                .push(format!("load {package} {}", version.unwrap_or("-")));
            Ok(Arc::new(Recording {
                calls: self.calls.clone(),
                parameterizable: self.parameterizable,
            }))
        }
    }

    fn gadgets_inputs() -> PropertyMap {
        let package = ParameterizedPackage {
            base_name: "widgets".into(),
            base_version: Some("1.0.0".into()),
            download_url: String::new(),
            parameterization: Parameterization {
                name: "gadgets".into(),
                version: "2.0.0".into(),
                value: b"blue".to_vec(),
            },
        };
        let mut config = PropertyMap::new();
        config.insert("region".into(), PropertyValue::string("north"));
        package.provider_inputs(config)
    }

    fn gadgets_urn() -> Urn {
        Urn::new(
            "dev",
            "p",
            None,
            "pulumi:providers:gadgets",
            "default_2_0_0",
        )
    }

    fn registry(parameterizable: bool, base: &[ResourceState]) -> (ProviderRegistry, Arc<Calls>) {
        let calls = Arc::new(Calls::default());
        let factory = Arc::new(Factory {
            calls: calls.clone(),
            parameterizable,
        });
        (ProviderRegistry::new(factory, base), calls)
    }

    #[tokio::test]
    async fn a_parameterized_provider_loads_its_base_and_never_sees_internal() {
        let (reg, calls) = registry(true, &[]);
        let news = gadgets_inputs();
        let checked = reg
            .check(&gadgets_urn(), &PropertyMap::new(), &news)
            .await
            .unwrap();
        assert_eq!(
            checked.inputs, news,
            "__internal is back in the checked inputs"
        );
        reg.configure(&gadgets_urn(), "id1", &checked.inputs, false)
            .await
            .unwrap();
        assert_eq!(
            *calls.0.lock(),
            [
                "load widgets 1.0.0",
                "parameterize gadgets blue",
                "check_config region,version",
                "configure region,version",
            ],
            "parameterized first, once; the plugin never sees __internal"
        );
    }

    #[tokio::test]
    async fn a_recorded_parameterized_provider_is_parameterized_again() {
        let old = ResourceState {
            urn: gadgets_urn(),
            custom: true,
            id: Some("id1".into()),
            type_: "pulumi:providers:gadgets".into(),
            inputs: gadgets_inputs(),
            ..ResourceState::default()
        };
        let (reg, calls) = registry(true, &[old]);
        reg.ensure(&ProviderRef::new(gadgets_urn(), "id1"))
            .await
            .unwrap();
        assert_eq!(
            *calls.0.lock(),
            [
                "load widgets 1.0.0",
                "parameterize gadgets blue",
                "configure region,version",
            ]
        );
    }

    #[tokio::test]
    async fn a_provider_without_parameterize_refuses_naming_itself_and_the_package() {
        let (reg, _) = registry(false, &[]);
        let e = reg
            .check(&gadgets_urn(), &PropertyMap::new(), &gadgets_inputs())
            .await
            .unwrap_err();
        assert_eq!(
            e,
            ProviderError::Parameterize {
                provider: "widgets".into(),
                package: "gadgets".into(),
                reason: "it has no Parameterize".into(),
            }
        );
        let mut own = gadgets_inputs();
        own.insert(INTERNAL_KEY.into(), PropertyValue::Bool(true));
        let e = reg
            .check(&gadgets_urn(), &PropertyMap::new(), &own)
            .await
            .unwrap_err();
        assert_eq!(e.to_string(), "__internal: must be an object");
    }
}
