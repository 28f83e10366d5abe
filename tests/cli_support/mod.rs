//! Runs the real `stepdeck` binary against a temporary project, backend and sim world.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

pub(crate) mod debugger_clients;
#[path = "../rpc_support/mod.rs"]
pub(crate) mod sdk;
use std::process::{Child, Command, Output, Stdio};

use serde_json::Value;

pub(crate) struct Env {
    pub root: tempfile::TempDir,
    /// Whether commands get `PULUMI_CONFIG_PASSPHRASE` (deriving its key costs ~0.7 s of CPU).
    pub passphrase: bool,
    /// The backend URL commands get; `None`: `file://` in the temporary directory.
    pub backend: Option<String>,
    /// A directory put first on commands' `PATH` (provider plugins of a test).
    pub plugins: Option<PathBuf>,
}

pub(crate) const PASSPHRASE: &str = "correct horse battery staple";

/// A `resources:` section opening with a network and a database of the given engine (a YAML
/// value) in it.
macro_rules! net_and_db {
    ($engine:literal) => {
        concat!(
            "\nresources:\n  net:\n    type: sim:index:Network\n    properties:\n      cidr: 10.0.0.0/16\n",
            "  db:\n    type: sim:index:Database\n    properties:\n      engine: ",
            $engine,
            "\n      networkId: ${net.networkId}\n"
        )
    };
}

/// A `resources:` section opening with a network and a database in it (more may follow).
pub(crate) const NET_AND_DB: &str = net_and_db!("pg15");

/// A `resources:` section (more may follow) with a network, a database whose engine is the
/// `engine` config (declared by the program) and a server reading the database's endpoint:
/// changing the engine replaces the database delete-before-replace, which cascades to the server.
pub(crate) const NET_DB_APP: &str = concat!(
    net_and_db!("${engine}"),
    "  app:\n    type: sim:index:Server\n    properties:\n      image: img-1\n",
    "      subnetId: ${net.networkId}\n      dbEndpoint: ${db.endpoint}\n"
);

/// The `engine` config [`NET_DB_APP`] reads, defaulting to `pg15`.
pub(crate) const ENGINE_CONFIG: &str = "config:\n  engine:\n    type: string\n    default: pg15\n";

impl Env {
    /// A project named `e2e` whose `Pulumi.yaml` is `program` (after the name/runtime lines).
    pub(crate) fn new(program: &str) -> Env {
        let root = tempfile::tempdir().expect("temp dir");
        std::fs::create_dir_all(root.path().join("project")).unwrap();
        std::fs::create_dir_all(root.path().join("state")).unwrap();
        let env = Env {
            root,
            passphrase: false,
            backend: None,
            plugins: None,
        };
        env.write(
            "Pulumi.yaml",
            &format!("name: e2e\nruntime: yaml\n{program}"),
        );
        env
    }

    /// [`Env::new`] with `PULUMI_CONFIG_PASSPHRASE` given to every command.
    pub(crate) fn with_passphrase(program: &str) -> Env {
        Env {
            passphrase: true,
            ..Env::new(program)
        }
    }

    /// The backend every command of this environment uses.
    pub(crate) fn backend_url(&self) -> String {
        self.backend
            .clone()
            .unwrap_or_else(|| format!("file://{}", self.root.path().join("state").display()))
    }

    /// `config set --secret KEY VALUE` on the stack `dev`.
    pub(crate) fn set_secret(&self, key: &str, value: &str) {
        self.ok(&["config", "set", "--secret", key, value, "--stack", "dev"]);
    }

    pub(crate) fn project(&self) -> PathBuf {
        self.root.path().join("project")
    }

    pub(crate) fn world_path(&self) -> PathBuf {
        self.root.path().join("world.json")
    }

    pub(crate) fn write(&self, file: &str, text: &str) {
        std::fs::write(self.project().join(file), text).unwrap();
    }

    pub(crate) fn command(&self, args: &[&str]) -> Command {
        self.command_in(&self.project(), args)
    }

    /// A command for another project directory sharing this backend (stack references).
    pub(crate) fn command_in(&self, dir: &Path, args: &[&str]) -> Command {
        let mut c = self.binary();
        c.args(args).arg("--cwd").arg(dir);
        c
    }

    /// The binary with this environment's backend, sim world, passphrase and plugins.
    fn binary(&self) -> Command {
        let mut c = Command::new(env!("CARGO_BIN_EXE_stepdeck"));
        c.env("STEPDECK_BACKEND_URL", self.backend_url())
            .env("STEPDECK_SIM_WORLD", self.world_path())
            .env_remove("PULUMI_CONFIG_PASSPHRASE")
            .env_remove("PULUMI_CONFIG_PASSPHRASE_FILE")
            .stdin(Stdio::null());
        if self.passphrase {
            c.env("PULUMI_CONFIG_PASSPHRASE", PASSPHRASE);
        }
        if let Some(dir) = &self.plugins {
            let path = std::env::var_os("PATH").unwrap_or_default();
            let paths = std::iter::once(dir.clone()).chain(std::env::split_paths(&path));
            c.env("PATH", std::env::join_paths(paths).expect("PATH entries"));
        }
        c
    }

    /// Runs `args` exactly as given after `--cwd DIR` (a root flag, accepted first), so that a
    /// `--` in them ends the flags as it does when the Automation API runs `pulumi`.
    pub(crate) fn run_exact(&self, args: &[&str]) -> Output {
        self.binary()
            .arg("--cwd")
            .arg(self.project())
            .args(args)
            .output()
            .expect("run stepdeck")
    }

    /// Runs to the end; returns the output.
    pub(crate) fn run(&self, args: &[&str]) -> Output {
        self.command(args).output().expect("run stepdeck")
    }

    /// `up --stack dev --yes --non-interactive --event-log LOG`: a real run and its event log.
    pub(crate) fn up_with_event_log(&self, log: &Path) -> Output {
        let log = log.display().to_string();
        let args = ["--yes", "--non-interactive", "--event-log", &log];
        self.run(&[&["up", "--stack", "dev"][..], &args].concat())
    }

    /// Runs and insists on success.
    pub(crate) fn ok(&self, args: &[&str]) -> String {
        let out = self.run(args);
        assert!(
            out.status.success(),
            "stepdeck {args:?} failed ({:?}):\n{}\n{}",
            out.status.code(),
            stdout(&out),
            stderr(&out)
        );
        stdout(&out)
    }

    /// Runs in another project directory of this backend and insists on success.
    pub(crate) fn ok_in(&self, dir: &Path, args: &[&str]) -> String {
        let out = self.command_in(dir, args).output().expect("run stepdeck");
        assert!(
            out.status.success(),
            "stepdeck {args:?} in {} failed ({:?}):\n{}\n{}",
            dir.display(),
            out.status.code(),
            stdout(&out),
            stderr(&out)
        );
        stdout(&out)
    }

    /// A second project `name` beside this one, on the same backend, whose `Pulumi.yaml` is
    /// `program` after the name/runtime lines.
    pub(crate) fn sibling(&self, name: &str, program: &str) -> PathBuf {
        let dir = self.root.path().join(name);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join("Pulumi.yaml"),
            format!("name: {name}\nruntime: yaml\n{program}"),
        )
        .unwrap();
        dir
    }

    /// A stack's checkpoint as written on disk.
    pub(crate) fn checkpoint_text(&self, project: &str, stack: &str) -> String {
        let path = self
            .root
            .path()
            .join("state/.pulumi/stacks")
            .join(project)
            .join(format!("{stack}.json"));
        std::fs::read_to_string(path).unwrap()
    }

    pub(crate) fn spawn(&self, args: &[&str]) -> Child {
        self.command(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn stepdeck")
    }

    /// The sim world's resources, by ID.
    pub(crate) fn world(&self) -> serde_json::Map<String, Value> {
        match std::fs::read_to_string(self.world_path()) {
            Ok(t) => serde_json::from_str::<Value>(&t).unwrap()["resources"]
                .as_object()
                .cloned()
                .unwrap_or_default(),
            Err(_) => Default::default(),
        }
    }

    /// The stack's exported deployment.
    pub(crate) fn export(&self, stack: &str) -> Value {
        serde_json::from_str(&self.ok(&["stack", "export", "--stack", stack]))
            .expect("export is JSON")
    }

    /// Custom, non-provider resources in the exported state: (name, id).
    pub(crate) fn managed(&self, stack: &str) -> Vec<(String, String)> {
        let mut v: Vec<(String, String)> = self
            .recorded(stack)
            .into_iter()
            .map(|(name, id, _)| (name, id))
            .collect();
        v.sort();
        v
    }

    /// Custom, non-provider resources in the exported state, in its order: (name, id, whether
    /// the copy is waiting for its delete).
    pub(crate) fn recorded(&self, stack: &str) -> Vec<(String, String, bool)> {
        let doc = self.export(stack);
        doc["deployment"]["resources"]
            .as_array()
            .cloned()
            .unwrap_or_default()
            .iter()
            .filter(|r| {
                r["custom"] == true
                    && !r["type"]
                        .as_str()
                        .unwrap_or("")
                        .starts_with("pulumi:providers:")
            })
            .map(|r| {
                (
                    r["urn"]
                        .as_str()
                        .unwrap()
                        .rsplit("::")
                        .next()
                        .unwrap()
                        .to_string(),
                    r["id"].as_str().unwrap_or("").to_string(),
                    r["delete"] == true,
                )
            })
            .collect()
    }

    /// Asserts that the world holds exactly the resources the state manages.
    pub(crate) fn assert_no_leaks(&self, stack: &str) {
        let mut in_state: Vec<String> = self.managed(stack).into_iter().map(|(_, id)| id).collect();
        let mut in_world: Vec<String> = self.world().keys().cloned().collect();
        in_state.sort();
        in_world.sort();
        assert_eq!(in_world, in_state, "the world and the state disagree");
    }
}

pub(crate) fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub(crate) fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

pub(crate) fn exists(p: &Path) -> bool {
    p.exists()
}

impl Env {
    /// A stack's bookkeeping directory (journals, lock files) on this environment's
    /// `file://` backend.
    pub(crate) fn stack_dir(&self, stack: &str) -> PathBuf {
        self.root
            .path()
            .join("state/.pulumi/.stepdeck/stacks/e2e")
            .join(stack)
    }

    /// A stack's checkpoint (Pulumi's stack file) on this environment's `file://` backend.
    pub(crate) fn checkpoint_path(&self, stack: &str) -> PathBuf {
        self.root
            .path()
            .join("state/.pulumi/stacks/e2e")
            .join(format!("{stack}.json"))
    }
}

/// The current lock file of the stack directory `dir` (the highest `lock.<generation>.json`):
/// its generation and content, if there is one.
pub(crate) fn current_lock(dir: &Path) -> Option<(u64, Value)> {
    let generation = std::fs::read_dir(dir)
        .ok()?
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_str()?.to_string();
            name.strip_prefix("lock.")?
                .strip_suffix(".json")?
                .parse::<u64>()
                .ok()
        })
        .max()?;
    let text = std::fs::read_to_string(dir.join(format!("lock.{generation}.json"))).ok()?;
    Some((
        generation,
        serde_json::from_str(&text).unwrap_or(Value::Null),
    ))
}

/// Plants `holder` (a lock record) as the lock of the stack directory `dir`, one generation
/// past the current one, as another process taking the lock would; returns its file.
pub(crate) fn plant_lock(dir: &Path, mut holder: Value) -> PathBuf {
    let generation = current_lock(dir).map_or(1, |(g, _)| g + 1);
    holder["generation"] = generation.into();
    let path = dir.join(format!("lock.{generation}.json"));
    std::fs::write(&path, holder.to_string()).unwrap();
    path
}

/// The `net` project stack references read: a pet name, a secret and a plain `extra`.
pub(crate) fn net_program(secret: &str, extra: &str) -> String {
    format!(
        r#"
resources:
  pet:
    type: random:RandomPet
outputs:
  petName: ${{pet.id}}
  token:
    fn::secret: {secret}
  extra: {extra}
"#
    )
}

/// Links the installed SDKs into a project (`venv` for Python, `node_modules` for Node.js), as
/// a user's project holds them.
pub(crate) fn link_sdks(project: &Path) {
    let sdks = sdk::sdk_env().root;
    std::os::unix::fs::symlink(sdks.join("venv"), project.join("venv")).unwrap();
    std::os::unix::fs::symlink(sdks.join("node_modules"), project.join("node_modules")).unwrap();
}

impl Env {
    /// An Automation API script of `tests/automation_api` run with `interpreter`, `pulumi` on
    /// PATH being stepdeck and nothing else set but what a Pulumi user sets (this environment's
    /// backend, sim world and passphrase); its arguments are the caller's.
    pub(crate) fn automation_script(
        &self,
        interpreter: &std::path::Path,
        script: &str,
    ) -> std::process::Command {
        let bin = self.root.path().join("bin");
        if !bin.join("pulumi").exists() {
            std::fs::create_dir_all(&bin).unwrap();
            std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_stepdeck"), bin.join("pulumi")).unwrap();
        }
        let path = std::env::var_os("PATH").unwrap_or_default();
        let paths = std::iter::once(bin).chain(std::env::split_paths(&path));
        let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/automation_api")
            .join(script);
        let mut c = std::process::Command::new(interpreter);
        c.arg(script)
            .env("PATH", std::env::join_paths(paths).unwrap())
            .env("NODE_PATH", sdk::sdk_env().root.join("node_modules"))
            .env("STEPDECK_BACKEND_URL", self.backend_url())
            .env("STEPDECK_SIM_WORLD", self.world_path())
            .env("PULUMI_CONFIG_PASSPHRASE", PASSPHRASE)
            .env_remove("PULUMI_CONFIG_PASSPHRASE_FILE")
            .env_remove("PULUMI_BACKEND_URL")
            .stdin(std::process::Stdio::null());
        c
    }
}

/// Asserts an Automation API script succeeded and printed `ok` last.
pub(crate) fn assert_script_ok(out: &Output) {
    assert!(
        out.status.success() && stdout(out).trim_end().ends_with("ok"),
        "{}\n{}",
        stdout(out),
        stderr(out)
    );
}

/// Runs an Automation API script in a fresh environment, its working directory the argument.
pub(crate) fn run_automation_script(interpreter: &std::path::Path, script: &str) {
    let env = Env::new("");
    let work = env.root.path().join("work");
    std::fs::create_dir_all(&work).unwrap();
    let out = env
        .automation_script(interpreter, script)
        .arg(&work)
        .output()
        .unwrap();
    assert_script_ok(&out);
}
