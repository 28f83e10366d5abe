//! The console end to end: the real binary in a real terminal (tmux), driven by keys, with the
//! state and the sim world checked afterwards. Every test has its own tmux server (`-L`), temp
//! project, backend and world, so the tests run in parallel.

mod cli_support;

use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use cli_support::{Env, PASSPHRASE};

/// How long any one screen may take to appear.
const DEADLINE: Duration = Duration::from_secs(20);

/// A tmux server with one session running a shell command; killed when dropped.
struct Tmux {
    socket: String,
}

/// What the shell prints after the binary exits: its status and whether the tty is cooked.
const AFTER: &str =
    "; echo EXITED $?; stty -a | grep -q -- -icanon && echo TTY-RAW || echo TTY-COOKED; sleep 60";

fn shell_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

impl Tmux {
    /// Runs `stepdeck <args>` in a `width`×`height` terminal with `env`'s backend and world.
    fn start(env: &Env, width: u16, height: u16, args: &[&str]) -> Tmux {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let socket = format!(
            "stepdeck-e2e-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::SeqCst)
        );
        let mut cmd = format!(
            "cd {} && env STEPDECK_BACKEND_URL={} STEPDECK_SIM_WORLD={} PULUMI_CONFIG_PASSPHRASE={} {}",
            shell_quote(&env.project().display().to_string()),
            shell_quote(&format!(
                "file://{}",
                env.root.path().join("state").display()
            )),
            shell_quote(&env.world_path().display().to_string()),
            shell_quote(PASSPHRASE),
            shell_quote(env!("CARGO_BIN_EXE_stepdeck")),
        );
        for a in args {
            cmd.push(' ');
            cmd.push_str(&shell_quote(a));
        }
        cmd.push_str(AFTER);
        let t = Tmux { socket };
        let out = t
            .tmux()
            .args(["new-session", "-d", "-s", "e2e", "-x"])
            .arg(width.to_string())
            .arg("-y")
            .arg(height.to_string())
            .arg(format!("sh -c {}", shell_quote(&cmd)))
            .output()
            .expect("tmux runs");
        assert!(
            out.status.success(),
            "tmux new-session: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        t
    }

    fn tmux(&self) -> Command {
        let mut c = Command::new("tmux");
        c.args(["-L", &self.socket]);
        c
    }

    fn screen(&self) -> String {
        let out = self
            .tmux()
            .args(["capture-pane", "-p", "-t", "e2e"])
            .output()
            .expect("tmux capture-pane");
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// A pane variable such as `alternate_on` or `cursor_flag`.
    fn pane_flag(&self, name: &str) -> String {
        let out = self
            .tmux()
            .args([
                "display-message",
                "-p",
                "-t",
                "e2e",
                &format!("#{{{name}}}"),
            ])
            .output()
            .expect("tmux display-message");
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    }

    fn keys(&self, keys: &[&str]) {
        let ok = self
            .tmux()
            .args(["send-keys", "-t", "e2e"])
            .args(keys)
            .status()
            .expect("tmux send-keys")
            .success();
        assert!(ok, "send-keys {keys:?}");
    }

    /// Polls the screen until `pred` holds; panics with the last screen at the deadline.
    fn wait(&self, what: &str, pred: impl Fn(&str) -> bool) -> String {
        let end = Instant::now() + DEADLINE;
        loop {
            let s = self.screen();
            if pred(&s) {
                return s;
            }
            assert!(
                Instant::now() < end,
                "timed out waiting for {what}; screen:\n{s}"
            );
            std::thread::sleep(Duration::from_millis(25));
        }
    }

    fn wait_for(&self, text: &str) -> String {
        self.wait(text, |s| s.contains(text))
    }

    /// Quits with `q` once the deployment is over and checks the shell got its terminal back.
    fn quit_and_expect_restored(&self, status: i32) {
        self.keys(&["q"]);
        self.expect_restored(status);
    }

    /// The binary exited with `status`; the normal screen, a visible cursor and a cooked tty
    /// are back, and nothing of the console is left on the screen.
    fn expect_restored(&self, status: i32) {
        let s = self.wait_for("TTY-");
        assert!(s.contains(&format!("EXITED {status}")), "{s}");
        assert!(s.contains("TTY-COOKED"), "the tty is left raw:\n{s}");
        assert_eq!(self.pane_flag("alternate_on"), "0", "{s}");
        assert_eq!(self.pane_flag("cursor_flag"), "1", "cursor hidden:\n{s}");
        assert_eq!(
            self.pane_flag("mouse_any_flag"),
            "0",
            "mouse still captured"
        );
        for artefact in ["Resources", "┌", "stepdeck  "] {
            assert!(!s.contains(artefact), "{artefact:?} left on screen:\n{s}");
        }
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = self.tmux().arg("kill-server").output();
    }
}

/// A chain of `n` resources, each waiting for the one before, every operation taking `ms`.
fn chain_project(n: usize, ms: u64) -> Env {
    let mut program = String::from("resources:\n");
    for i in 1..=n {
        program.push_str(&format!(
            "  r{i}:\n    type: sim:index:Resource\n    properties:\n      step: {i}\n"
        ));
        if i > 1 {
            program.push_str(&format!("      after: ${{r{}.id}}\n", i - 1));
        }
    }
    let env = Env::new(&program);
    env.write(
        "Pulumi.dev.yaml",
        &format!("config:\n  sim:latencyMs: {ms}\n"),
    );
    env
}

/// A database and a server that reads its endpoint: changing the engine replaces the database
/// delete-before-replace, which cascades to the server.
const CASCADE: &str = r#"
config:
  engine:
    type: string
    default: pg15
resources:
  net:
    type: sim:index:Network
    properties:
      cidr: 10.0.0.0/16
  db:
    type: sim:index:Database
    properties:
      engine: ${engine}
      networkId: ${net.networkId}
  app:
    type: sim:index:Server
    properties:
      image: img-1
      subnetId: ${net.networkId}
      dbEndpoint: ${db.endpoint}
"#;

fn cascade_project() -> Env {
    let env = Env::new(CASCADE);
    env.write("Pulumi.dev.yaml", "config:\n  sim:latencyMs: 150\n");
    env.ok(&["up", "--stack", "dev", "--yes", "--non-interactive"]);
    env.ok(&["config", "set", "engine", "pg16", "--stack", "dev"]);
    env
}

fn world_engine_of_db(env: &Env) -> (String, String) {
    let world = env.world();
    let (id, db) = world
        .iter()
        .find(|(_, r)| r["name"] == "db")
        .expect("the db is in the world");
    (
        id.clone(),
        db["properties"]["engine"].as_str().unwrap().to_string(),
    )
}

#[test]
fn the_demo_starts_shows_its_resources_and_n_leaves_cleanly() {
    let env = Env::new("resources: {}\n");
    let dir = env.root.path().join("demo");
    let t = Tmux::start(
        &env,
        120,
        40,
        &["demo", "--state-dir", &dir.display().to_string()],
    );
    let s = t.wait("the demo's plan", |s| {
        s.contains("PREVIEW — y apply · n abort") && s.contains("subnet-a") && s.contains("db")
    });
    assert!(s.contains("Resources ("), "{s}");
    t.keys(&["n"]);
    t.expect_restored(0);
}

#[test]
fn the_demo_runs_both_phases_and_its_cascade_waits_for_approval() {
    let env = Env::new("resources: {}\n");
    let dir = env.root.path().join("demo");
    let t = Tmux::start(
        &env,
        200,
        60,
        &["demo", "--state-dir", &dir.display().to_string()],
    );
    t.wait_for("PREVIEW — y apply · n abort");
    t.keys(&["y"]);
    t.wait_for("creating…");
    // Phase 1 leaves by itself when done; phase 2's plan replaces and deletes.
    t.wait("the second phase's plan", |s| {
        s.contains("PREVIEW — y apply · n abort") && s.contains("+-") && s.contains("-4")
    });
    t.keys(&["y"]);
    let s = t.wait_for("AWAITING APPROVAL");
    assert!(s.contains("Pending replacements"), "{s}");
    assert!(s.contains("waiting for approval"), "{s}");
    assert!(s.contains("dbEndpoint"), "the pending panel says why:\n{s}");
    t.keys(&["A"]);
    t.wait_for("DONE");
    t.quit_and_expect_restored(0);
}

#[test]
fn p_pauses_and_no_step_starts_until_it_resumes() {
    let env = chain_project(6, 300);
    let t = Tmux::start(&env, 120, 40, &["up", "--stack", "dev", "--yes"]);
    t.wait_for("creating…");
    t.keys(&["p"]);
    // The step running when the pause came finishes; nothing starts after it.
    t.wait("paused with no worker busy", |s| {
        s.contains("PAUSED") && !s.contains("creating…")
    });
    let world = env.world();
    let resources = |env: &Env| env.export("dev")["deployment"]["resources"].clone();
    let state = resources(&env);
    assert!(
        !world.is_empty() && world.len() < 6,
        "{} resources",
        world.len()
    );
    std::thread::sleep(Duration::from_millis(1200));
    assert_eq!(env.world(), world, "a step ran while paused");
    assert_eq!(resources(&env), state, "the state changed while paused");
    assert!(t.screen().contains("PAUSED"));

    t.keys(&["p"]);
    t.wait_for("DONE");
    assert_eq!(env.world().len(), 6);
    t.quit_and_expect_restored(0);
    env.assert_no_leaks("dev");
}

#[test]
fn approving_the_pending_cascade_replaces_the_database() {
    let env = cascade_project();
    let (old_id, _) = world_engine_of_db(&env);
    let t = Tmux::start(&env, 120, 40, &["up", "--stack", "dev", "--yes"]);
    let s = t.wait_for("AWAITING APPROVAL");
    assert!(s.contains("waiting for approval"), "{s}");
    t.keys(&["a"]);
    t.wait_for("DONE");
    t.quit_and_expect_restored(0);
    let (new_id, engine) = world_engine_of_db(&env);
    assert_eq!(engine, "pg16");
    assert_ne!(new_id, old_id, "the database was replaced");
    env.assert_no_leaks("dev");
}

#[test]
fn declining_the_pending_cascade_keeps_the_old_database() {
    let env = cascade_project();
    let before = env.managed("dev");
    let (old_id, _) = world_engine_of_db(&env);
    let t = Tmux::start(&env, 120, 40, &["up", "--stack", "dev", "--yes"]);
    t.wait_for("AWAITING APPROVAL");
    t.keys(&["x"]);
    let s = t.wait("the end of the run", |s| {
        s.contains("DONE") || s.contains("FAILED")
    });
    assert!(s.contains("declined"), "{s}");
    t.keys(&["q"]);
    let s = t.wait_for("EXITED");
    assert!(!s.contains("Resources ("), "{s}");
    assert_eq!(world_engine_of_db(&env), (old_id, "pg15".to_string()));
    assert_eq!(env.managed("dev"), before);
    env.assert_no_leaks("dev");
}

#[test]
fn cancel_confirmed_ends_with_a_consistent_state() {
    let env = chain_project(8, 400);
    let t = Tmux::start(&env, 100, 30, &["up", "--stack", "dev", "--yes"]);
    t.wait_for("creating…");
    t.keys(&["c"]);
    t.wait_for("Cancel");
    t.keys(&["y"]);
    t.wait("the cancelled run", |s| {
        s.contains("CANCELLED") || s.contains("FAILED")
    });
    t.keys(&["q"]);
    let s = t.wait_for("TTY-");
    assert!(
        !s.contains("EXITED 0"),
        "a cancelled update reports failure:\n{s}"
    );
    let doc = env.export("dev");
    let pending = doc["deployment"]["pending_operations"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert!(pending.is_empty(), "cancel lets steps finish: {pending:?}");
    let created = env.managed("dev").len();
    assert!(
        created < 8,
        "the cancel stopped the chain ({created} created)"
    );
    env.assert_no_leaks("dev");
}

#[test]
fn ctrl_c_twice_terminates_and_restores_the_terminal() {
    let env = chain_project(6, 1500);
    let t = Tmux::start(&env, 100, 30, &["up", "--stack", "dev", "--yes"]);
    t.wait_for("creating…");
    t.keys(&["C-c"]);
    t.wait_for("CANCELLING");
    t.keys(&["C-c"]);
    let s = t.wait_for("TTY-");
    assert!(!s.contains("EXITED 0"), "{s}");
    assert_eq!(t.pane_flag("alternate_on"), "0", "{s}");
    assert!(s.contains("TTY-COOKED"), "{s}");
    assert!(!s.contains("Resources"), "{s}");
    // A terminated step stays a pending operation; the state still loads.
    let doc = env.export("dev");
    assert!(doc["deployment"]["resources"].is_array(), "{doc}");
}

#[test]
fn a_failed_step_ends_failed_and_q_restores_the_terminal() {
    let env = Env::new(
        "resources:\n  bad:\n    type: sim:index:Resource\n    properties:\n      failOn: [create]\n",
    );
    let t = Tmux::start(&env, 100, 30, &["up", "--stack", "dev", "--yes"]);
    t.wait_for("FAILED");
    t.quit_and_expect_restored(1);
}

#[test]
fn skip_preview_runs_the_update_without_previewing_first() {
    let env = chain_project(2, 50);
    let t = Tmux::start(&env, 120, 40, &["up", "--stack", "dev", "--skip-preview"]);
    let s = t.wait("the update's end or a preview", |s| {
        s.contains("DONE") || s.contains("PREVIEW")
    });
    assert!(!s.contains("PREVIEW"), "{s}");
    assert_eq!(env.world().len(), 2);
    t.quit_and_expect_restored(0);
    env.assert_no_leaks("dev");
}
