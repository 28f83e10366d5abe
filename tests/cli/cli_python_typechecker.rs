//! A Python project's `runtime.options.typechecker`: the checker runs over the program in its
//! virtualenv before every run, as Pulumi's Python language host runs it; its report is in the
//! run's diagnostics and a failed check (or a checker not installed) fails the run before the
//! program starts. An unknown checker is refused.

use std::path::Path;
use std::process::Command;

use crate::cli_support::sdk::{sdk_env, venv_on_shared_sdks};
use crate::cli_support::{Env, stderr, stdout};

/// A program whose stack output name is a number, which mypy refuses (line 4); it prints a
/// marker when it runs.
const ILL_TYPED: &str = "import pulumi\n\nprint(\"the program ran\")\npulumi.export(42, \"bar\")\n";

fn python_project(typechecker: &str) -> Env {
    let env = Env::new("");
    env.write(
        "Pulumi.yaml",
        &format!(
            "name: checked\nruntime:\n  name: python\n  options:\n    virtualenv: venv\n    typechecker: {typechecker}\n"
        ),
    );
    env.write("__main__.py", ILL_TYPED);
    env.ok(&["stack", "init", "dev"]);
    env
}

/// Diagnostic messages of an event log.
fn diagnostics(log: &Path) -> Vec<String> {
    std::fs::read_to_string(log)
        .unwrap()
        .lines()
        .filter_map(|l| {
            let event: serde_json::Value = serde_json::from_str(l).unwrap();
            event["diagnosticEvent"]["message"]
                .as_str()
                .map(str::to_string)
        })
        .collect()
}

#[test]
fn a_typechecker_that_is_not_installed_fails_the_run_before_the_program_starts() {
    let env = python_project("pyright");
    venv_on_shared_sdks(&env.project().join("venv"));
    let out = env.run(&["up", "--stack", "dev", "--yes", "--non-interactive"]);
    let text = format!("{}{}", stdout(&out), stderr(&out));
    assert!(!out.status.success(), "{text}");
    assert!(
        text.contains(
            "The typechecker option is set to pyright, but pyright is not installed. Please add an \
             entry for pyright to requirements.txt and run `venv/bin/pip install -r requirements.txt`"
        ),
        "{text}"
    );
    assert!(!text.contains("the program ran"), "{text}");
}

#[test]
fn mypy_refusing_the_program_fails_the_run_with_its_report_and_a_program_it_accepts_runs() {
    let env = python_project("mypy");
    let venv = env.project().join("venv");
    venv_on_shared_sdks(&venv);
    let installed = Command::new(sdk_env().root.join("tools/bin/uv"))
        .args(["pip", "install", "--quiet", "--python"])
        .arg(venv.join("bin/python"))
        .arg("mypy")
        .output()
        .unwrap();
    assert!(installed.status.success(), "{}", stderr(&installed));
    let log = env.root.path().join("events.jsonl");
    let out = env.up_with_event_log(&log);
    let text = format!("{}{}", stdout(&out), stderr(&out));
    assert!(!out.status.success(), "{text}");
    assert!(!text.contains("the program ran"), "{text}");
    let said = diagnostics(&log);
    let report = "__main__.py:4: error: Argument 1 to \"export\" has incompatible type \"int\"; \
                  expected \"str\"  [arg-type]";
    assert!(
        said.iter().any(|m| m == &format!("{report}\n\n")),
        "{said:#?}"
    );
    assert!(
        said.iter()
            .any(|m| m.contains("mypy failed: exit status 1\n") && m.contains(report)),
        "{said:#?}"
    );
    env.write(
        "__main__.py",
        "import pulumi\n\nprint(\"the program ran\")\npulumi.export(\"answer\", 42)\n",
    );
    let out = env.up_with_event_log(&log);
    let text = format!("{}{}", stdout(&out), stderr(&out));
    assert!(out.status.success(), "{text}");
    assert!(text.contains("the program ran"), "{text}");
    assert!(
        diagnostics(&log)
            .iter()
            .any(|m| m.starts_with("Success: no issues found")),
        "{text}"
    );
}

#[test]
fn an_unknown_typechecker_is_a_usage_error_naming_it() {
    let env = python_project("black");
    let out = env.run(&["preview", "--stack", "dev", "--non-interactive"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("unsupported typechecker option: black"),
        "{}",
        stderr(&out)
    );
}
