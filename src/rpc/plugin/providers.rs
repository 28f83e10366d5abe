//! The provider factory for SDK programs: plugins the project names by path first, then
//! built-in providers, then provider plugins (dynamic providers and `pulumi-resource-<package>`
//! executables).

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
        // A plugin the project names by path is the one it asked for, even over a built-in.
        let cmd = if self.ctx.local.iter().any(|p| p.package == package) {
            resolve(package, version, &self.ctx)
                .map_err(|e| ProviderError::Failed(e.to_string()))?
        } else {
            let builtin_err = match self.fallback.load(package, version) {
                Ok(p) => return Ok(p),
                Err(e) => e,
            };
            resolve(package, version, &self.ctx).map_err(|e| {
                ProviderError::Failed(format!("{e}; no built-in provider either ({builtin_err})"))
            })?
        };
        Ok(Arc::new(PluginProvider::launch(
            package,
            cmd,
            self.ctx.clone(),
            self.engine.clone(),
        )))
    }
}
