//! Pulumi's `construct_component_unknown` (`TestConstructUnknown{Node,Python}`: preview only, no
//! export/import, no empty update, no refresh): a remote component's inputs depend on a
//! resource's id, unknown in preview, and the component provider's applies on them must not
//! run (its provider exits if they do, which fails the preview).

use super::local_components::{Provider, with_component};
use super::program_test::Options;

fn unknown(program: &str, provider: Provider) {
    let t = with_component("construct_component_unknown", program, provider);
    let opts = Options {
        skip_refresh: true,
        skip_update: true,
        skip_export_import: true,
        skip_empty_preview_update: true,
        ..Options::default()
    };
    t.lifecycle(&opts, |_| {});
}

#[test]
fn js_node_provider() {
    unknown("nodejs", Provider::Node);
}

#[test]
fn js_python_provider() {
    unknown("nodejs", Provider::Python);
}

#[test]
fn py_node_provider() {
    unknown("python", Provider::Node);
}

#[test]
fn py_python_provider() {
    unknown("python", Provider::Python);
}
