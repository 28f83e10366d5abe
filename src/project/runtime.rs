//! A `runtime:` section, as `Pulumi.yaml`, `PulumiPlugin.yaml` and `PulumiPolicy.yaml` write
//! it: a language name, or `{name, options}`.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::located_yaml::{Node, NodeKind, SourceError};

/// How the program runs: `yaml` in-process, or a language host with its options.
#[derive(Clone, Debug, PartialEq)]
pub struct Runtime {
    pub name: String,
    pub options: BTreeMap<String, Value>,
}

/// A `runtime:` node: a name, or `{name, options}` (a policy pack's `PulumiPolicy.yaml` writes
/// it the same way).
pub fn parse_runtime(file: &str, rt: &Node) -> Result<Runtime, SourceError> {
    match &rt.kind {
        NodeKind::String(s) => Ok(Runtime {
            name: s.clone(),
            options: BTreeMap::new(),
        }),
        NodeKind::Map(_) => {
            let name = rt
                .get("name")
                .and_then(Node::as_str)
                .ok_or_else(|| rt.error(file, "`runtime` needs a `name`"))?;
            let options = match rt.get("options") {
                None => BTreeMap::new(),
                Some(o) => match o.to_json() {
                    Value::Object(m) => m.into_iter().collect(),
                    _ => return Err(o.error(file, "`runtime.options` must be a mapping")),
                },
            };
            Ok(Runtime {
                name: name.to_string(),
                options,
            })
        }
        _ => Err(rt.error(
            file,
            format!(
                "`runtime` must be a string or {{name, options}}, found {}",
                rt.kind_name()
            ),
        )),
    }
}
