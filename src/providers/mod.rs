//! The built-in, in-process providers (`sim`, `random`, `command`, and `pulumi` for stack
//! references) and the factory that makes a fresh instance of one for each provider resource of
//! a deployment.

pub mod command;
mod command_assets;
mod command_log;
mod input_diff;
mod input_fields;
mod pet_words;
pub mod pulumi;
pub mod random;
mod random_values;
pub mod sim;
mod sim_types;
pub mod sim_world;
pub mod stash;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use parking_lot::Mutex;

use crate::engine::provider::ProviderError;
use crate::engine::{EventSink, Provider, ProviderFactory, StackOutputsSource};

pub use command::CommandProvider;
pub use pulumi::PulumiProvider;
pub use random::RandomProvider;
pub use sim::SimProvider;
pub use sim_world::{
    SimWorld, SimWorldError, WorldResource, WorldResources, load_world_file, world_log_path,
};

/// The packages this factory serves.
pub const BUILTIN_PACKAGES: &[&str] = &["sim", "random", "command", "pulumi"];

/// Makes built-in providers. Every `sim` instance it makes shares one world, so that concurrent
/// steps of different provider resources never overwrite each other's changes to the file.
pub struct BuiltinProviders {
    sim_world_path: PathBuf,
    sim_world: Mutex<Option<Arc<SimWorld>>>,
    stacks: Option<Arc<dyn StackOutputsSource>>,
    /// The deployment's events, where the `command` provider shows its commands' output.
    events: EventSink,
}

impl BuiltinProviders {
    /// `sim_world` is the JSON file of the simulated cloud; it is read on the first `sim` load.
    pub fn new(sim_world: PathBuf) -> BuiltinProviders {
        BuiltinProviders {
            sim_world_path: sim_world,
            sim_world: Mutex::new(None),
            stacks: None,
            events: EventSink::none(),
        }
    }

    /// Lets providers show what they do on the deployment's events (the `command` provider's
    /// `logging`); without it, that output is only kept in the outputs.
    pub fn with_events(mut self, events: EventSink) -> BuiltinProviders {
        self.events = events;
        self
    }

    /// Lets the `pulumi` provider read the other stacks of the deployment's backend (stack
    /// references); without it, reading a stack is an error.
    pub fn with_stacks(mut self, stacks: Arc<dyn StackOutputsSource>) -> BuiltinProviders {
        self.stacks = Some(stacks);
        self
    }

    /// Where the world lives, so that callers (and tests) can check it after a deployment.
    pub fn sim_world_path(&self) -> &Path {
        &self.sim_world_path
    }

    /// The shared world, loaded from disk the first time it is needed.
    pub fn sim_world(&self) -> Result<Arc<SimWorld>, SimWorldError> {
        let mut slot = self.sim_world.lock();
        if let Some(w) = slot.as_ref() {
            return Ok(w.clone());
        }
        let world = Arc::new(SimWorld::open(self.sim_world_path.clone())?);
        *slot = Some(world.clone());
        Ok(world)
    }
}

impl ProviderFactory for BuiltinProviders {
    fn load(
        &self,
        package: &str,
        _version: Option<&str>,
    ) -> Result<Arc<dyn Provider>, ProviderError> {
        match package {
            "sim" => Ok(Arc::new(SimProvider::new(self.sim_world()?))),
            "random" => Ok(Arc::new(RandomProvider::new())),
            "command" => Ok(Arc::new(CommandProvider::with_events(self.events.clone()))),
            "pulumi" => Ok(Arc::new(PulumiProvider::new(self.stacks.clone()))),
            other => Err(ProviderError::Failed(format!(
                "no provider for package `{other}`: the built-in providers are {}",
                BUILTIN_PACKAGES.join(", ")
            ))),
        }
    }
}
