//! The provider factory for SDK programs: built-in providers first, then provider plugins
//! (dynamic providers and `pulumi-resource-<package>` executables).

use std::sync::Arc;

use super::provider_client::{PluginProvider, SharedEngine};
use super::{PluginContext, resolve};
use crate::engine::provider::ProviderError;
use crate::engine::{Provider, ProviderFactory};

/// Loads a package's provider from the fallback (built-in) factory, or else as a plugin; the
/// plugin process starts on the provider's first call.
pub struct PluginProviders {
    fallback: Arc<dyn ProviderFactory>,
    ctx: Arc<PluginContext>,
    engine: SharedEngine,
}

impl PluginProviders {
    /// `fallback` serves the built-in packages; everything else is looked up as a plugin in `ctx`.
    pub fn new(fallback: Arc<dyn ProviderFactory>, ctx: PluginContext) -> PluginProviders {
        PluginProviders {
            fallback,
            ctx: Arc::new(ctx),
            engine: SharedEngine::default(),
        }
    }
}

impl ProviderFactory for PluginProviders {
    fn load(
        &self,
        package: &str,
        version: Option<&str>,
    ) -> Result<Arc<dyn Provider>, ProviderError> {
        let builtin_err = match self.fallback.load(package, version) {
            Ok(p) => return Ok(p),
            Err(e) => e,
        };
        let cmd = resolve(package, version, &self.ctx).map_err(|e| {
            ProviderError::Failed(format!("{e}; no built-in provider either ({builtin_err})"))
        })?;
        Ok(Arc::new(PluginProvider::launch(
            package,
            cmd,
            self.ctx.clone(),
            self.engine.clone(),
        )))
    }
}
