//! How a plugin at a project's path is started: which program, with which arguments, or why
//! not, naming the path.

use std::path::PathBuf;

use super::plugin_paths::PluginPath;
use super::{PluginContext, PluginError, resolve};
use crate::engine::EventSink;

fn ctx(dir: &std::path::Path, local: PluginPath) -> PluginContext {
    let mut ctx = PluginContext::new(
        dir,
        "proj",
        "/usr/bin/python-of-the-program",
        EventSink::none(),
    );
    ctx.local = vec![local];
    ctx
}

fn python_plugin(dir: &std::path::Path) -> PluginPath {
    PluginPath {
        package: "greet".into(),
        path: dir.to_path_buf(),
        version: None,
        runtime: Some(("python".into(), serde_json::Map::new())),
    }
}

#[test]
fn a_python_plugin_runs_its_main_or_the_package_its_pyproject_names() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("pyproject.toml"),
        "[tool.other]\nname = \"not-this\"\n\n[project]\nversion = \"1\"\nname = 'greet-pkg'\n",
    )
    .unwrap();
    let cmd = resolve("greet", None, &ctx(dir.path(), python_plugin(dir.path()))).unwrap();
    assert_eq!(cmd.program, PathBuf::from("/usr/bin/python-of-the-program"));
    assert_eq!(cmd.args, ["-u", "-m", "pulumi.run.plugin", "greet-pkg"]);
    assert_eq!(cmd.name, "pulumi-resource-greet");

    std::fs::write(dir.path().join("__main__.py"), "").unwrap();
    std::fs::create_dir_all(dir.path().join("venv/bin")).unwrap();
    std::fs::write(dir.path().join("venv/bin/python"), "").unwrap();
    let cmd = resolve("greet", None, &ctx(dir.path(), python_plugin(dir.path()))).unwrap();
    assert_eq!(
        cmd.program,
        dir.path().join("venv/bin/python"),
        "its own venv"
    );
    assert_eq!(cmd.args, ["-u".into(), dir.path().as_os_str().to_owned()]);
}

#[test]
fn a_plugin_path_that_serves_nothing_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let err = resolve("greet", None, &ctx(dir.path(), python_plugin(dir.path()))).unwrap_err();
    assert!(
        matches!(&err, PluginError::NotFound { detail, .. } if detail.contains("neither a __main__.py nor a pyproject.toml")),
        "{err}"
    );
    let mut bare = python_plugin(dir.path());
    bare.runtime = None;
    let err = resolve("greet", None, &ctx(dir.path(), bare)).unwrap_err();
    assert!(
        err.to_string()
            .contains("holds neither an executable pulumi-resource-greet nor a PulumiPlugin.yaml"),
        "{err}"
    );
    let mut ruby = python_plugin(dir.path());
    ruby.runtime = Some(("ruby".into(), serde_json::Map::new()));
    let err = resolve("greet", None, &ctx(dir.path(), ruby)).unwrap_err();
    assert!(err.to_string().contains("the plugin's runtime"), "{err}");
}
