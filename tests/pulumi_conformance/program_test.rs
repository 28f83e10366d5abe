//! ProgramTest's whole lifecycle with its options, command for command as Pulumi's
//! `pkg/testing/integration/program.go` runs it: config, preview and update (`Quick` skips the
//! preview, the export/import round trip and the empty preview and update), the refresh with
//! `--expect-no-changes` unless `ExpectRefreshChanges`, each edit directory, destroy and
//! `stack rm`. Every update is followed by the snapshot integrity check.

use serde_json::Value;

use super::cli_support::{stderr, stdout};
use super::harness::ProgramTest;

/// The `ProgramTestOptions` our cases use.
#[derive(Default)]
pub(crate) struct Options {
    pub quick: bool,
    pub expect_failure: bool,
    pub skip_refresh: bool,
    pub expect_refresh_changes: bool,
    pub skip_preview: bool,
    pub skip_export_import: bool,
    pub skip_update: bool,
    pub skip_empty_preview_update: bool,
    pub allow_empty_preview_changes: bool,
    pub allow_empty_update_changes: bool,
    pub require_empty_preview_after_refresh: bool,
    /// `Config`, `Secrets` and `OrderedConfig` entries, set in order before the first update.
    pub config: Vec<Config>,
    pub edits: Vec<Edit>,
    pub update_flags: Vec<&'static str>,
    /// `PreviewCommandlineFlags`, `RefreshCommandlineFlags`, `DestroyCommandlineFlags`.
    pub preview_flags: Vec<&'static str>,
    pub refresh_flags: Vec<&'static str>,
    pub destroy_flags: Vec<&'static str>,
    /// `Env`: variables every command gets.
    pub env: Vec<(&'static str, &'static str)>,
}

/// The standard output of each command the lifecycle ran, by its verb (`preview`, `up`,
/// `refresh`, `destroy`), in order: what ProgramTest's `Stdout` writer sees.
pub(crate) type Stdouts = Vec<(&'static str, String)>;

/// One config value as ProgramTest sets it (`config set [--secret] [--path] KEY VALUE`).
pub(crate) struct Config {
    pub key: &'static str,
    pub value: &'static str,
    pub secret: bool,
    pub path: bool,
}

/// An `EditDirs` entry with `Additive: true`: `programs/<case>/<dir>/` copied over the project.
#[derive(Default)]
pub(crate) struct Edit {
    pub dir: &'static str,
    pub expect_failure: bool,
    pub expect_no_changes: bool,
}

/// What the program's run left, handed to a case's `ExtraRuntimeValidation`.
pub(crate) struct Run {
    /// `None` for the initial update, else the index of the edit.
    pub edit: Option<usize>,
    /// The exported state (integrity checked).
    pub state: Value,
    /// The output of the preview and update (stdout and stderr of each).
    pub output: String,
    /// The update's engine events (`--event-log`), as ProgramTest's `Events`.
    pub events: Vec<Value>,
}

impl Config {
    /// A plain value.
    pub(crate) fn plain(key: &'static str, value: &'static str) -> Config {
        Config {
            key,
            value,
            secret: false,
            path: false,
        }
    }

    /// A value set by path (`OrderedConfig` with `Path: true`).
    pub(crate) fn path(key: &'static str, value: &'static str) -> Config {
        Config {
            path: true,
            ..Config::plain(key, value)
        }
    }
}

impl ProgramTest {
    /// Runs the case through ProgramTest's lifecycle; `validate` is its `ExtraRuntimeValidation`
    /// (initial and per edit). Ends with destroy and `stack rm`.
    pub(crate) fn lifecycle(&self, opts: &Options, validate: impl FnMut(&Run)) {
        self.lifecycle_stdouts(opts, validate);
    }

    /// As `lifecycle`; returns the standard output of each command by its verb.
    pub(crate) fn lifecycle_stdouts(
        &self,
        opts: &Options,
        mut validate: impl FnMut(&Run),
    ) -> Stdouts {
        let mut stdouts = Stdouts::new();
        for c in &opts.config {
            let mut args = vec!["config", "set"];
            if c.secret {
                args.push("--secret");
            }
            if c.path {
                args.push("--path");
            }
            args.extend([c.key, c.value]);
            self.env.ok(&args);
        }
        let skip_preview = opts.skip_preview || opts.quick;
        let output = self.preview_and_update(
            opts,
            skip_preview,
            (opts.expect_failure, false, false),
            &mut stdouts,
        );
        if !(opts.quick || opts.skip_export_import) {
            self.env.ok(&["stack", "export", "--file", "stack.json"]);
            self.env.ok(&["stack", "import", "--file", "stack.json"]);
            std::fs::remove_file(self.env.project().join("stack.json")).unwrap();
        }
        if !(opts.skip_empty_preview_update || opts.quick) {
            self.preview_and_update(
                opts,
                skip_preview,
                (
                    opts.expect_failure,
                    !opts.allow_empty_preview_changes,
                    !opts.allow_empty_update_changes,
                ),
                &mut stdouts,
            );
        }
        validate(&Run {
            edit: None,
            state: self.checked_export(),
            output,
            events: self.events(),
        });
        if !opts.skip_refresh {
            let mut refresh = vec!["refresh", "--non-interactive", "--yes", "--skip-preview"];
            if !opts.expect_refresh_changes {
                refresh.push("--expect-no-changes");
            }
            refresh.extend(&opts.refresh_flags);
            stdouts.push(("refresh", self.must(&refresh, &opts.env)));
            self.checked_export();
            if opts.require_empty_preview_after_refresh {
                self.must(
                    &["preview", "--non-interactive", "--expect-no-changes"],
                    &opts.env,
                );
            }
        }
        for (i, edit) in opts.edits.iter().enumerate() {
            self.edit(edit.dir);
            let output = self.preview_and_update(
                opts,
                skip_preview,
                (
                    edit.expect_failure,
                    edit.expect_no_changes,
                    edit.expect_no_changes,
                ),
                &mut stdouts,
            );
            validate(&Run {
                edit: Some(i),
                state: self.checked_export(),
                output,
                events: self.events(),
            });
        }
        let mut destroy = vec!["destroy", "--non-interactive", "--yes", "--skip-preview"];
        destroy.extend(&opts.destroy_flags);
        stdouts.push(("destroy", self.must(&destroy, &opts.env)));
        self.nothing_left();
        self.must(&["stack", "rm", "--yes"], &opts.env);
        stdouts
    }

    /// ProgramTest's `PreviewAndUpdate`: with `fail`, the preview or else the update must fail
    /// (a failed preview skips the update); `nop_preview` and `nop_update` expect no changes.
    fn preview_and_update(
        &self,
        opts: &Options,
        skip_preview: bool,
        (fail, nop_preview, nop_update): (bool, bool, bool),
        stdouts: &mut Stdouts,
    ) -> String {
        let mut text = String::new();
        if !skip_preview {
            let mut preview = vec!["preview", "--non-interactive", "--diff"];
            if nop_preview {
                preview.push("--expect-no-changes");
            }
            preview.extend(&opts.preview_flags);
            let (ok, out, stdout) = self.attempt_stdout(&preview, &opts.env);
            stdouts.push(("preview", stdout));
            text.push_str(&out);
            if fail && !ok {
                self.checked_export();
                return text;
            }
            assert!(ok, "{}: preview failed:\n{out}", self.name());
        }
        if !opts.skip_update {
            let log = self.event_log();
            let log = log.to_str().unwrap();
            let mut update = vec![
                "up",
                "--non-interactive",
                "--yes",
                "--skip-preview",
                "--event-log",
                log,
            ];
            if nop_update {
                update.push("--expect-no-changes");
            }
            update.extend(&opts.update_flags);
            let (ok, out, stdout) = self.attempt_stdout(&update, &opts.env);
            stdouts.push(("up", stdout));
            text.push_str(&out);
            self.checked_export();
            if fail && !ok {
                return text;
            }
            assert!(ok, "{}: update failed:\n{out}", self.name());
        }
        assert!(
            !fail,
            "{}: expected this step to fail, but it succeeded:\n{text}",
            self.name()
        );
        text
    }

    fn event_log(&self) -> std::path::PathBuf {
        self.env.root.path().join("events.jsonl")
    }

    /// The events of the last update, one JSON object a line.
    fn events(&self) -> Vec<Value> {
        std::fs::read_to_string(self.event_log())
            .unwrap_or_default()
            .lines()
            .map(|l| serde_json::from_str(l).expect("an event log line is JSON"))
            .collect()
    }

    /// The messages of the diagnostic events among `events`.
    pub(crate) fn diagnostics(events: &[Value]) -> Vec<String> {
        events
            .iter()
            .filter_map(|e| e["diagnosticEvent"]["message"].as_str())
            .map(str::to_string)
            .collect()
    }

    /// Runs a command: whether it succeeded, its stdout and stderr together, its stdout.
    fn attempt_stdout(&self, args: &[&str], vars: &[(&str, &str)]) -> (bool, String, String) {
        let out = self
            .env
            .command(args)
            .envs(vars.iter().copied())
            .output()
            .expect("run stepdeck");
        (
            out.status.success(),
            format!("{}{}", stdout(&out), stderr(&out)),
            stdout(&out),
        )
    }

    /// A command that must succeed; returns its stdout.
    fn must(&self, args: &[&str], vars: &[(&str, &str)]) -> String {
        let (ok, out, stdout) = self.attempt_stdout(args, vars);
        assert!(ok, "{}: `{}` failed:\n{out}", self.name(), args.join(" "));
        stdout
    }
}
