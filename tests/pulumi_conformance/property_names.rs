//! Pulumi's `valid-property-names` (`TestPropertyNameDiffs`): property names that look like
//! property paths (`.`, `[`, `foo.[0].bar`, `.["Hello, World!"]` …) are kept as written and
//! do not break the diff of an update.

use super::harness::{ProgramTest, live};
use super::program_test::{Config, Edit, Options};

/// The names of Pulumi's table, as the JSON config value it passes.
const NAMES: &str = r#"["foo", "example.com", ".", ".[0]", "foo.[0].bar", ".[\"Hello, World!\"]", "[", ".[]", "[]", ".[Hello, Unquoted World!]", ".H[ello, World!\"]"]"#;

/// Quick, with the names as the config value `propertyNames` (JSON); an additive edit
/// replaces every state bag, and every resource is still there.
#[test]
fn js_property_names() {
    let t = ProgramTest::new("js_property_names");
    let names: Vec<String> = serde_json::from_str(NAMES).unwrap();
    let opts = Options {
        quick: true,
        config: vec![Config::plain("propertyNames", NAMES)],
        edits: vec![Edit {
            dir: "step1",
            ..Edit::default()
        }],
        ..Options::default()
    };
    t.lifecycle(&opts, |run| {
        for (i, name) in names.iter().enumerate() {
            let r = live(&run.state, &format!("a{i}"));
            if run.edit.is_none() {
                assert_eq!(r["outputs"]["state"][name.as_str()], "foo", "{name}: {r}");
            } else {
                assert!(r["outputs"]["state"]["template"].is_object(), "{r}");
            }
        }
    });
}
