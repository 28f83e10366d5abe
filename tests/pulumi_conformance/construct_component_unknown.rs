//! Pulumi's `construct_component_unknown` (`TestConstructUnknown{Node,Python}`: preview only, no
//! export/import, no empty update, no refresh): a remote component's inputs depend on a
//! resource's id, unknown in preview, and the component provider's applies on them must not
//! run (its provider exits if they do, which fails the preview).

use super::local_components::{Provider, previews_only};

fn unknown(lang: &str, provider: Provider) {
    previews_only("construct_component_unknown", lang, provider);
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
