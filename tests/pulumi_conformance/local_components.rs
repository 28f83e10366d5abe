//! A remote component's program run as ProgramTest runs it with `LocalProviders`: the program
//! directory (`programs/<family>/{nodejs,python}`) is the project, and the component provider's
//! directory beside it (`testcomponent`, written with the Node.js SDK and started by its
//! `pulumi-resource-testcomponent` script, or `testcomponent-python`, a `PulumiPlugin.yaml`
//! source directory with a `venv`, as `RunComponentSetup` leaves them) is copied in and named in
//! Pulumi.yaml's `plugins: providers:` as the package `testcomponent`.

use std::path::Path;

use super::cli_support::sdk::sdk_env;
use super::harness::{ProgramTest, copy_files};
use super::program_test::Options;

/// Which SDK the component provider is written with (Pulumi's `componentDir`).
#[derive(Clone, Copy, Debug)]
pub(crate) enum Provider {
    /// `testcomponent`.
    Node,
    /// `testcomponent-python`.
    Python,
}

impl Provider {
    fn dir(self) -> &'static str {
        match self {
            Provider::Node => "testcomponent",
            Provider::Python => "testcomponent-python",
        }
    }
}

/// The program `programs/<family>/<lang>` with the family's component provider `provider`
/// as its local provider `testcomponent`.
pub(crate) fn with_component(family: &str, lang: &str, provider: Provider) -> ProgramTest {
    let t = ProgramTest::new(&format!("{family}/{lang}"));
    let source = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/pulumi_conformance/programs")
        .join(family)
        .join(provider.dir());
    let dir = t.env.project().join(provider.dir());
    std::fs::create_dir_all(&dir).unwrap();
    copy_files(&source, &dir);
    if let Provider::Python = provider {
        std::os::unix::fs::symlink(sdk_env().root.join("venv"), dir.join("venv")).unwrap();
    }
    let project = t.env.project().join("Pulumi.yaml");
    let mut text = std::fs::read_to_string(&project).unwrap();
    text.push_str(&format!(
        "plugins:\n  providers:\n    - name: testcomponent\n      path: {}\n",
        dir.display()
    ));
    std::fs::write(&project, text).unwrap();
    t
}

/// Runs the program as the Go tests of failing components do (Quick, `ExpectFailure`) and
/// checks that its output holds each of `expected`.
pub(crate) fn fails_with(family: &str, lang: &str, provider: Provider, expected: &[&str]) {
    let t = with_component(family, lang, provider);
    let opts = Options {
        quick: true,
        expect_failure: true,
        ..Options::default()
    };
    t.lifecycle(&opts, |run| {
        for part in expected {
            assert!(run.output.contains(part), "{part:?} in:\n{}", run.output);
        }
    });
}

/// Runs the program as the Go tests of unknown values do: a preview only (no update, refresh,
/// export/import or empty update), which fails if an apply that must not run runs.
pub(crate) fn previews_only(family: &str, lang: &str, provider: Provider) {
    let t = with_component(family, lang, provider);
    let opts = Options {
        skip_refresh: true,
        skip_update: true,
        skip_export_import: true,
        skip_empty_preview_update: true,
        ..Options::default()
    };
    t.lifecycle(&opts, |_| {});
}
