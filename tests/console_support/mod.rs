//! The console in a real terminal: a tmux server per test running the real binary, and the
//! projects the console tests deploy.

#![allow(dead_code)]

use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use crate::cli_support::{ENGINE_CONFIG, Env, NET_DB_APP, PASSPHRASE};

/// The login name every console run sees, so what it records of its operator is known here
/// (short, so that the Log line naming it fits the pane unwrapped).
pub(crate) const OPERATOR: &str = "e2e";
/// How long any one screen may take to appear.
const DEADLINE: Duration = Duration::from_secs(90);

/// A tmux server with one session running a shell command; killed when dropped.
pub(crate) struct Tmux {
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
    pub(crate) fn start(env: &Env, width: u16, height: u16, args: &[&str]) -> Tmux {
        Tmux::start_with(env, width, height, &[], args)
    }

    /// [`Tmux::start`] with more environment variables (`NAME`, value) for the binary.
    pub(crate) fn start_with(
        env: &Env,
        width: u16,
        height: u16,
        vars: &[(&str, &str)],
        args: &[&str],
    ) -> Tmux {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let socket = format!(
            "stepdeck-e2e-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::SeqCst)
        );
        let mut cmd = format!(
            "cd {} && env USER={OPERATOR} STEPDECK_BACKEND_URL={} STEPDECK_SIM_WORLD={} PULUMI_CONFIG_PASSPHRASE={} {}{}",
            shell_quote(&env.project().display().to_string()),
            shell_quote(&format!(
                "file://{}",
                env.root.path().join("state").display()
            )),
            shell_quote(&env.world_path().display().to_string()),
            shell_quote(PASSPHRASE),
            vars.iter()
                .map(|(k, v)| format!("{k}={} ", shell_quote(v)))
                .collect::<String>(),
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

    pub(crate) fn tmux(&self) -> Command {
        let mut c = Command::new("tmux");
        c.args(["-L", &self.socket]);
        c
    }

    pub(crate) fn screen(&self) -> String {
        let out = self
            .tmux()
            .args(["capture-pane", "-p", "-t", "e2e"])
            .output()
            .expect("tmux capture-pane");
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// A pane variable such as `alternate_on` or `cursor_flag`.
    pub(crate) fn pane_flag(&self, name: &str) -> String {
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

    pub(crate) fn keys(&self, keys: &[&str]) {
        let ok = self
            .tmux()
            .args(["send-keys", "-t", "e2e"])
            .args(keys)
            .status()
            .expect("tmux send-keys")
            .success();
        assert!(ok, "send-keys {keys:?}");
    }

    /// Polls the screen until `pred` holds on two captures in a row that show the same screen
    /// (a capture can land while a frame is being written, half old and half new, and a test
    /// must read whole frames); panics with the last screen at the deadline.
    pub(crate) fn wait(&self, what: &str, pred: impl Fn(&str) -> bool) -> String {
        let end = Instant::now() + DEADLINE;
        let mut matched: Option<String> = None;
        loop {
            let s = self.screen();
            if pred(&s) {
                if matched.as_deref() == Some(s.as_str()) {
                    return s;
                }
                matched = Some(s.clone());
            } else {
                matched = None;
            }
            assert!(
                Instant::now() < end,
                "timed out waiting for {what}; screen:\n{s}"
            );
            std::thread::sleep(Duration::from_millis(25));
        }
    }

    pub(crate) fn wait_for(&self, text: &str) -> String {
        self.wait(text, |s| s.contains(text))
    }

    /// Quits with `q` once the deployment is over and checks the shell got its terminal back.
    pub(crate) fn quit_and_expect_restored(&self, status: i32) {
        self.keys(&["q"]);
        self.expect_restored(status);
    }

    /// The binary exited with `status`; the normal screen, a visible cursor and a cooked tty
    /// are back, and nothing of the console is left on the screen.
    pub(crate) fn expect_restored(&self, status: i32) {
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
        for artefact in ["Resources (", "┌", "stepdeck  "] {
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
pub(crate) fn chain_project(n: usize, ms: u64) -> Env {
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
pub(crate) fn cascade() -> String {
    format!("{ENGINE_CONFIG}{NET_DB_APP}")
}

pub(crate) fn cascade_project() -> Env {
    let env = Env::new(&cascade());
    env.write("Pulumi.dev.yaml", "config:\n  sim:latencyMs: 150\n");
    env.ok(&["up", "--stack", "dev", "--yes", "--non-interactive"]);
    env.ok(&["config", "set", "engine", "pg16", "--stack", "dev"]);
    env
}

pub(crate) fn world_engine_of_db(env: &Env) -> (String, String) {
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

/// [`cascade_project`] with two resources that read the database's outputs without being in
/// its cascade (their preview updates only because the replacement's outputs are unknown), and
/// stack outputs from the database: deployed, then the engine changed to `pg16`.
pub(crate) fn followers_project() -> Env {
    let env = Env::new(&format!(
        "{}{}",
        cascade(),
        concat!(
            "  backup:\n    type: sim:index:Resource\n    properties:\n      database: ${db.id}\n",
            "  report:\n    type: sim:index:Resource\n    properties:\n      endpoint: ${db.endpoint}\n",
            "outputs:\n  dbEngine: ${db.engine}\n  dbId: ${db.id}\n",
        )
    ));
    env.write("Pulumi.dev.yaml", "config:\n  sim:latencyMs: 150\n");
    env.ok(&["up", "--stack", "dev", "--yes", "--non-interactive"]);
    env.ok(&["config", "set", "engine", "pg16", "--stack", "dev"]);
    env
}
