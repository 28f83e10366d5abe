//! ProgramTest's `LocalProviders`, as Pulumi's `construct_component*` tests use them: one program
//! of a family (`programs/<family>/{nodejs,python}`) run against one of the family's component
//! providers (`programs/<family>/testcomponent`, written with the Node.js SDK and started by its
//! `pulumi-resource-testcomponent`, or `testcomponent-python`, a `PulumiPlugin.yaml` directory of
//! the Python SDK). The provider's directory is copied beside the program (so it finds the SDKs
//! linked there) and named by absolute path in Pulumi.yaml's `plugins: providers:`, which is
//! what ProgramTest writes for each local provider.

use std::path::Path;

use super::harness::{ProgramTest, copy_files};

/// `programs/<family>/<program>` as a project whose `testcomponent` package is served by the
/// family's `provider` directory.
pub(crate) fn with_local_provider(family: &str, program: &str, provider: &str) -> ProgramTest {
    let t = ProgramTest::new(&format!("{family}/{program}"));
    let source = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/pulumi_conformance/programs")
        .join(family)
        .join(provider);
    let copy = t.env.project().join(provider);
    std::fs::create_dir_all(&copy).unwrap();
    copy_files(&source, &copy);
    let project = t.env.project().join("Pulumi.yaml");
    let mut text = std::fs::read_to_string(&project).unwrap();
    assert!(
        !text.contains("plugins:"),
        "{family}/{program}: ProgramTest adds the plugins section"
    );
    text.push_str(&format!(
        "plugins:\n  providers:\n    - name: testcomponent\n      path: {}\n",
        copy.display()
    ));
    std::fs::write(&project, text).unwrap();
    t
}
