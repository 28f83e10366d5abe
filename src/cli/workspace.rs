//! Where a command runs: the project, the backend, the stack, its settings and secrets.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{Context, Result};
use stepdeck::engine::{EventSink, ProviderFactory, Severity};
use stepdeck::policy::pack_file::PACK_FILE;
use stepdeck::project::{
    ConfigCrypter, CryptError, PROJECT_FILE, Project, ProjectError, ResolvedConfig, StackSettings,
    settings_file_name,
};
use stepdeck::providers::BuiltinProviders;
use stepdeck::state::{
    Backend, BackendStacks, BackendUrl, Crypter, DEFAULT_BACKEND_URL, StackLock, StackRef,
    open_backend, passphrase_from_env,
};

use super::credentials;
use super::errors::{StackNotFound, usage};
use super::held_notices;
use super::stack_name::StackName;

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
    /// `--config-file`: the stack's settings file instead of `Pulumi.<stack>.yaml`.
    config_file: Option<PathBuf>,
}

/// One stack of the workspace, with its settings and (when a passphrase is set) its crypter.
pub(super) struct Stack {
    /// The bare stack name (the URN's stack part).
    pub name: String,
    pub reference: StackRef,
    pub settings: StackSettings,
    /// Where the settings are read from and saved to.
    pub settings_path: PathBuf,
    pub crypter: Option<Crypter>,
    /// The backend whose lock guards the settings' salt.
    backend: Arc<dyn Backend>,
}

impl Workspace {
    /// Loads the project in `dir` and opens the backend.
    pub(super) fn open(dir: &Path, backend: Option<&str>) -> Result<Workspace> {
        let project = Project::load(dir).map_err(|e| usage(e.to_string()))?;
        let backend = open_backend(&backend_url(Some(&project), backend)?)?;
        Ok(Workspace {
            project,
            backend,
            config_file: None,
        })
    }

    /// Stacks opened from now on keep their settings in `file` (`--config-file`).
    pub(super) fn with_config_file(mut self, file: Option<PathBuf>) -> Workspace {
        self.config_file = file;
        self
    }

    pub(super) fn dir(&self) -> &Path {
        &self.project.dir
    }

    /// The stack named on the command line (read as Pulumi's DIY backends read names), else
    /// the selected one.
    pub(super) fn stack_name(&self, explicit: Option<&str>) -> Result<StackName> {
        if let Some(s) = explicit {
            return StackName::parse(s, Some(&self.project.name)).map_err(usage);
        }
        self.backend
            .current_stack(&self.project.name)?
            .map(|s| StackName::new(&self.project.name, &s))
            .ok_or_else(|| usage("no stack is selected: pass --stack NAME, or run `stack select NAME` (or `stack init NAME`)"))
    }

    /// Where the backend keeps a named stack.
    pub(super) fn reference(&self, name: &StackName) -> Result<StackRef> {
        StackRef::new(name.project(), name.stack()).map_err(|e| usage(e.to_string()))
    }

    /// How a stack's name is printed: bare for this project's stacks, as Pulumi prints it.
    pub(super) fn shown(&self, name: &StackName) -> String {
        name.shown(&self.project.name)
    }

    /// Opens a stack, creating it on first use (with a notice on standard error). The stack
    /// and its secrets settings are created under the stack's lock: of concurrent first uses,
    /// one creates both and the others use them (or are told who holds the lock). The stack
    /// must be of this project: its settings are this project's.
    pub(super) fn stack(&self, explicit: Option<&str>, create: bool) -> Result<Stack> {
        self.open_stack(explicit, create, StackSettings::load_file)
    }

    /// [`Workspace::stack`] for `config rm`: settings holding a value that nests too deep
    /// still open, so that the value can be removed (saving checks the limit again).
    pub(super) fn stack_to_trim(&self, explicit: Option<&str>) -> Result<Stack> {
        self.open_stack(explicit, false, StackSettings::load_file_to_trim)
    }

    fn open_stack(
        &self,
        explicit: Option<&str>,
        create: bool,
        load: fn(&Path, &str) -> Result<StackSettings, ProjectError>,
    ) -> Result<Stack> {
        let full = self.stack_name(explicit)?;
        if full.project() != self.project.name {
            return Err(usage(format!(
                "provided project name \"{}\" doesn't match Pulumi.yaml",
                full.project()
            )));
        }
        let name = full.stack().to_string();
        let reference = self.reference(&full)?;
        let settings_path = self.settings_path(&name);
        let settings =
            || load(&settings_path, &self.project.name).map_err(|e| usage(e.to_string()));
        let stack = if self.backend.check_exists(&reference)? {
            let settings = settings()?;
            let crypter = match settings.encryption_salt {
                Some(_) => crypter_for(&settings)?,
                None => self.recorded_crypter(&reference, &settings)?,
            };
            Stack {
                name,
                reference,
                settings,
                settings_path,
                crypter,
                backend: self.backend.clone(),
            }
        } else if create {
            let (lock, created) = self.backend.lock_or_create(&reference, "create")?;
            warn_if_broke_stale(&lock);
            let settings = settings()?;
            let crypter = crypter_for(&settings)?;
            let mut stack = Stack {
                name,
                reference,
                settings,
                settings_path,
                crypter,
                backend: self.backend.clone(),
            };
            stack.save_salt()?;
            drop(lock);
            if created {
                if self.backend.current_stack(&self.project.name)?.is_none() {
                    self.backend.select_stack(&stack.reference)?;
                }
                held_notices::notice(
                    Severity::Info,
                    format!("Created stack '{}'", self.shown(&full)),
                );
            }
            stack
        } else {
            return Err(StackNotFound(explicit.unwrap_or(full.stack()).to_string()).into());
        };
        Ok(stack)
    }

    /// The settings file of a stack: `--config-file`, else `Pulumi.<stack>.yaml`.
    pub(super) fn settings_path(&self, stack: &str) -> PathBuf {
        self.config_file
            .clone()
            .unwrap_or_else(|| self.dir().join(settings_file_name(stack)))
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
    pub(super) fn remember_salt(&mut self) -> Result<()> {
        if self.crypter.is_some() && self.settings.encryption_salt.is_none() {
            let lock = self.backend.lock(&self.reference, "create")?;
            warn_if_broke_stale(&lock);
            self.save_salt()?;
            drop(lock);
        }
        Ok(())
    }

    /// Writes the settings back to their file.
    pub(super) fn save_settings(&self) -> Result<()> {
        self.settings
            .save_file(&self.settings_path)
            .map_err(|e| usage(e.to_string()))
    }

    /// Under the stack's lock: rereads the settings and records our salt unless one is there,
    /// in which case the crypter becomes that salt's.
    fn save_salt(&mut self) -> Result<()> {
        let fresh = StackSettings::load_file(&self.settings_path, self.reference.project())
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
            self.save_settings()?;
        }
        Ok(())
    }

    /// The configuration as the engine takes it; with `validate`, checked against the
    /// project's declarations first (failing in Pulumi's words, `validating stack config: …`).
    pub(super) fn resolve_config(
        &self,
        project: &Project,
        validate: bool,
    ) -> Result<ResolvedConfig> {
        let secrets = self.crypter.clone().map(ConfigSecrets);
        let crypter = secrets.as_ref().map(|s| s as &dyn ConfigCrypter);
        if validate {
            self.settings
                .resolve(project, crypter)
                .map_err(|e| usage(format!("validating stack config: {e}")))
        } else {
            self.settings
                .resolve_unvalidated(project, crypter)
                .map_err(|e| usage(e.to_string()))
        }
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
/// The backend commands use, in Pulumi's order: the flag's (or `STEPDECK_BACKEND_URL`'s) URL,
/// else `PULUMI_BACKEND_URL`, else the project's `backend.url`, else the one `login` made
/// current, else the default.
pub(super) fn backend_url(project: Option<&Project>, backend: Option<&str>) -> Result<BackendUrl> {
    match chosen_backend(project, backend)? {
        Some(url) => Ok(url),
        None => BackendUrl::parse(DEFAULT_BACKEND_URL).map_err(|e| usage(e.to_string())),
    }
}

/// [`backend_url`] without the default: `None` when nothing names a backend.
pub(super) fn chosen_backend(
    project: Option<&Project>,
    backend: Option<&str>,
) -> Result<Option<BackendUrl>> {
    let parsed = if let Some(url) = BackendUrl::named_by_flag_or_env(backend) {
        BackendUrl::parse(&url)
    } else if let Some((p, url)) = project.and_then(|p| Some((p, p.backend_url.as_deref()?))) {
        let file = p.dir.join(PROJECT_FILE);
        BackendUrl::parse_from(url, &format!("backend.url in {}", file.display()))
    } else if let Some((url, file)) = credentials::current()? {
        BackendUrl::parse_from(
            &url,
            &format!("the backend logged in to, in {}", file.display()),
        )
    } else {
        return Ok(None);
    };
    parsed.map(Some).map_err(|e| usage(e.to_string()))
}

/// Where `install` works, as Pulumi's `install` chooses: the nearest policy pack
/// (`PulumiPolicy.yaml` from the working directory up) unless it holds the nearest project,
/// else a plugin's directory (`PulumiPlugin.yaml`) where there is no project, else the project.
pub(super) fn install_dir(cwd: Option<&Path>) -> Result<PathBuf> {
    let dir = match cwd {
        Some(d) => d.to_path_buf(),
        None => std::env::current_dir().context("reading the current directory")?,
    };
    let project = project_dir(Some(&dir)).ok();
    let pack = dir
        .ancestors()
        .find(|d| d.join(PACK_FILE).is_file())
        .filter(|pack| project.as_ref().is_none_or(|p| pack.starts_with(p)));
    if let Some(pack) = pack {
        return Ok(pack.to_path_buf());
    }
    if dir.join("PulumiPlugin.yaml").is_file() && !dir.join("Pulumi.yaml").exists() {
        return Ok(dir);
    }
    project_dir(Some(&dir))
}

/// The project a command works on: the nearest `Pulumi.yaml` from the working directory up.
pub(super) fn project_dir(cwd: Option<&Path>) -> Result<PathBuf> {
    let dir = match cwd {
        Some(d) => d.to_path_buf(),
        None => std::env::current_dir().context("reading the current directory")?,
    };
    // As Pulumi's `DetectProjectPathFrom`, the nearest project from the directory upward.
    dir.ancestors()
        .find(|d| d.join("Pulumi.yaml").exists() || d.join("Pulumi.yml").exists())
        .map(Path::to_path_buf)
        .ok_or_else(|| {
            usage(format!(
                "no Pulumi.yaml project file found in {} or above it; pass --cwd DIR or run from a project directory",
                dir.display()
            ))
        })
}
