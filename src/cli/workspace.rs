//! Where a command runs: the project, the backend, the stack, its settings and secrets.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{Context, Result, anyhow};
use stepdeck::engine::{EventSink, ProviderFactory, Severity};
use stepdeck::project::{
    ConfigCrypter, CryptError, Project, ProjectError, ResolvedConfig, StackSettings,
};
use stepdeck::providers::BuiltinProviders;
use stepdeck::state::{
    Backend, BackendStacks, BackendUrl, Crypter, StackLock, StackRef, open_backend,
    passphrase_from_env,
};

use super::errors::usage;
use super::held_notices;

/// Bridges the state's passphrase crypter to the project's config encryption.
pub(super) struct ConfigSecrets(pub Crypter);

impl ConfigCrypter for ConfigSecrets {
    fn encrypt(&self, plain: &str) -> Result<String, CryptError> {
        Ok(self.0.encrypt(plain))
    }

    fn decrypt(&self, ciphertext: &str) -> Result<String, CryptError> {
        self.0
            .decrypt(ciphertext)
            .map_err(|e| CryptError(e.to_string()))
    }
}

/// The project and backend a command works with.
pub(super) struct Workspace {
    pub project: Project,
    pub backend: Arc<dyn Backend>,
}

/// One stack of the workspace, with its settings and (when a passphrase is set) its crypter.
pub(super) struct Stack {
    pub name: String,
    pub reference: StackRef,
    pub settings: StackSettings,
    pub crypter: Option<Crypter>,
    /// The backend whose lock guards the settings' salt.
    backend: Arc<dyn Backend>,
}

impl Workspace {
    /// Loads the project in `dir` and opens the backend.
    pub(super) fn open(dir: &Path, backend: Option<&str>) -> Result<Workspace> {
        let project = Project::load(dir).map_err(|e| usage(e.to_string()))?;
        let url = BackendUrl::resolve(backend).map_err(|e| usage(e.to_string()))?;
        let backend = open_backend(&url)?;
        Ok(Workspace { project, backend })
    }

    pub(super) fn dir(&self) -> &Path {
        &self.project.dir
    }

    /// The stack named on the command line, else the selected one.
    pub(super) fn stack_name(&self, explicit: Option<&str>) -> Result<String> {
        if let Some(s) = explicit {
            return Ok(s.to_string());
        }
        self.backend
            .current_stack(&self.project.name)?
            .ok_or_else(|| usage("no stack is selected: pass --stack NAME, or run `stepdeck stack select NAME` (or `stepdeck stack init NAME`)"))
    }

    pub(super) fn reference(&self, name: &str) -> Result<StackRef> {
        StackRef::new(&self.project.name, name).map_err(|e| usage(e.to_string()))
    }

    /// Opens a stack, creating it on first use (with a notice on standard error). The stack
    /// and its secrets settings are created under the stack's lock: of concurrent first uses,
    /// one creates both and the others use them (or are told who holds the lock).
    pub(super) fn stack(&self, explicit: Option<&str>, create: bool) -> Result<Stack> {
        self.open_stack(explicit, create, StackSettings::load)
    }

    /// [`Workspace::stack`] for `config rm`: settings holding a value that nests too deep
    /// still open, so that the value can be removed (saving checks the limit again).
    pub(super) fn stack_to_trim(&self, explicit: Option<&str>) -> Result<Stack> {
        self.open_stack(explicit, false, StackSettings::load_to_trim)
    }

    fn open_stack(
        &self,
        explicit: Option<&str>,
        create: bool,
        load: fn(&Path, &str, &str) -> Result<StackSettings, ProjectError>,
    ) -> Result<Stack> {
        let name = self.stack_name(explicit)?;
        let reference = self.reference(&name)?;
        let settings = |stack: &str| {
            load(self.dir(), stack, &self.project.name).map_err(|e| usage(e.to_string()))
        };
        let stack = if self.backend.check_exists(&reference)? {
            let settings = settings(&name)?;
            let crypter = match settings.encryption_salt {
                Some(_) => crypter_for(&settings)?,
                None => self.recorded_crypter(&reference, &settings)?,
            };
            Stack {
                name,
                reference,
                settings,
                crypter,
                backend: self.backend.clone(),
            }
        } else if create {
            let (lock, created) = self.backend.lock_or_create(&reference, "create")?;
            warn_if_broke_stale(&lock);
            let settings = settings(&name)?;
            let crypter = crypter_for(&settings)?;
            let mut stack = Stack {
                name,
                reference,
                settings,
                crypter,
                backend: self.backend.clone(),
            };
            stack.save_salt(self.dir())?;
            drop(lock);
            if created {
                if self.backend.current_stack(&self.project.name)?.is_none() {
                    self.backend.select_stack(&stack.reference)?;
                }
                held_notices::notice(Severity::Info, format!("Created stack '{}'", stack.name));
            }
            stack
        } else {
            return Err(usage(format!(
                "no stack named '{name}' exists in project '{}'",
                self.project.name
            )));
        };
        Ok(stack)
    }

    /// For a stack whose settings name no salt: the crypter of the salt its state records, so
    /// that it keeps reading and writing under that salt (and `remember_salt` records it), as
    /// Pulumi falls back to the state's secrets manager; a fresh salt when it records none, or
    /// when that salt cannot be had (a command that needs the state then says why, while one
    /// that does not, such as `stack unlock`, still works).
    fn recorded_crypter(
        &self,
        reference: &StackRef,
        settings: &StackSettings,
    ) -> Result<Option<Crypter>> {
        let Some(passphrase) = passphrase_from_env()? else {
            return Ok(None);
        };
        let recorded = self.backend.recorded_salt(reference).ok().flatten();
        match recorded.and_then(|salt| Crypter::from_salt(&passphrase, &salt).ok()) {
            Some(crypter) => Ok(Some(crypter)),
            None => crypter_for(settings),
        }
    }
}

/// Tells the operator that taking `lock` broke a stale one (a holder whose lease expired or
/// whose process is gone).
pub(super) fn warn_if_broke_stale(lock: &StackLock) {
    if let Some(stale) = lock.broke_stale() {
        held_notices::notice(
            Severity::Warning,
            format!(
                "removed a stale lock left by pid {} on {} ({} since {}, lease until {})",
                stale.pid,
                stale.hostname,
                stale.operation,
                stale.time,
                stale.expires.as_deref().unwrap_or("unknown")
            ),
        );
    }
}

/// Gives the warnings the backend left on `lock` while it wrote under it (a stale journal
/// removed, …).
pub(super) fn report_notices(lock: &StackLock) {
    for message in lock.take_notices() {
        held_notices::notice(Severity::Warning, message);
    }
}

/// The passphrase crypter for a stack whose settings carry a salt (and a passphrase is set).
fn crypter_for(settings: &StackSettings) -> Result<Option<Crypter>> {
    let Some(salt) = settings.encryption_salt.as_deref() else {
        return Ok(passphrase_from_env()?.map(|p| Crypter::new_salt(&p)));
    };
    match passphrase_from_env()? {
        Some(p) => Ok(Some(
            Crypter::from_salt(&p, salt).map_err(|e| usage(e.to_string()))?,
        )),
        None => Ok(None),
    }
}

impl Stack {
    /// A crypter, or the error Pulumi gives when secrets need a passphrase.
    pub(super) fn require_crypter(&self) -> Result<&Crypter> {
        self.crypter.as_ref().ok_or_else(|| {
            usage("this stack's secrets need a passphrase: set PULUMI_CONFIG_PASSPHRASE (or PULUMI_CONFIG_PASSPHRASE_FILE)")
        })
    }

    /// Records the salt of a newly made crypter in the settings, so the next run derives the
    /// same key. Done under the stack's lock: a salt another process recorded meanwhile is
    /// adopted, never overwritten (its secrets could no longer be decrypted).
    pub(super) fn remember_salt(&mut self, dir: &Path) -> Result<()> {
        if self.crypter.is_some() && self.settings.encryption_salt.is_none() {
            let lock = self.backend.lock(&self.reference, "create")?;
            warn_if_broke_stale(&lock);
            self.save_salt(dir)?;
            drop(lock);
        }
        Ok(())
    }

    /// Under the stack's lock: rereads the settings and records our salt unless one is there,
    /// in which case the crypter becomes that salt's.
    fn save_salt(&mut self, dir: &Path) -> Result<()> {
        let fresh = StackSettings::load(dir, &self.name, self.reference.project())
            .map_err(|e| usage(e.to_string()))?;
        if fresh.encryption_salt.is_some() {
            if fresh.encryption_salt != self.settings.encryption_salt {
                self.crypter = crypter_for(&fresh)?;
            }
            self.settings = fresh;
            return Ok(());
        }
        if let Some(c) = &self.crypter {
            self.settings = fresh;
            self.settings.encryption_salt = Some(c.salt_state().to_string());
            self.settings
                .save(dir, &self.name)
                .map_err(|e| anyhow!(e.to_string()))?;
        }
        Ok(())
    }

    /// The configuration as the engine takes it.
    pub(super) fn resolve_config(&self, project: &Project) -> Result<ResolvedConfig> {
        let secrets = self.crypter.clone().map(ConfigSecrets);
        self.settings
            .resolve(project, secrets.as_ref().map(|s| s as &dyn ConfigCrypter))
            .map_err(|e| usage(e.to_string()))
    }
}

/// Where the sim provider keeps its world: `STEPDECK_SIM_WORLD`, else beside the state (in
/// the project directory for a database backend).
pub(super) fn sim_world_path(ws: &Workspace) -> PathBuf {
    std::env::var_os("STEPDECK_SIM_WORLD")
        .map(PathBuf::from)
        .unwrap_or_else(|| match ws.backend.url().dir() {
            Some(dir) => dir.join(".stepdeck").join("sim-world.json"),
            None => ws.dir().join(".stepdeck-sim-world.json"),
        })
}

/// The providers a deployment can load: the built-in ones, the `pulumi` provider reading the
/// other stacks of the workspace's backend, showing their output on `events`.
pub(super) fn provider_factory(ws: &Workspace, events: EventSink) -> Arc<dyn ProviderFactory> {
    let stacks = BackendStacks::new(ws.backend.clone(), &ws.project.name);
    Arc::new(
        BuiltinProviders::new(sim_world_path(ws))
            .with_stacks(Arc::new(stacks))
            .with_events(events),
    )
}

/// Resolves `--cwd` to the project directory.
pub(super) fn project_dir(cwd: Option<&Path>) -> Result<PathBuf> {
    let dir = match cwd {
        Some(d) => d.to_path_buf(),
        None => std::env::current_dir().context("reading the current directory")?,
    };
    if !dir.join("Pulumi.yaml").exists() && !dir.join("Pulumi.yml").exists() {
        return Err(usage(format!(
            "no Pulumi.yaml project file found in {}; pass --cwd DIR or run from a project directory",
            dir.display()
        )));
    }
    Ok(dir)
}
