//! One file per resource: the class a program constructs. A component (`isComponent`) is
//! constructed remotely by its provider (`remote: true`) and its outputs come back as the
//! class's properties; a custom resource also gets `get` (read by id) and `isInstance`.

use serde_json::Value;

use super::names::{doc, member, quoted};
use super::package::{Package, required};
use super::types::{Side, TypeWriter};

/// Which resource class is written.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    Custom,
    Component,
    Provider,
}

/// The TypeScript file of the resource `token` named `class` in `module`.
pub(super) fn resource_file(
    pkg: &Package,
    module: &str,
    token: &str,
    class: &str,
    spec: &Value,
    kind: Kind,
) -> String {
    let tw = TypeWriter::new(pkg, module, 0);
    let inputs = pkg.properties(spec, "inputProperties");
    let outputs = pkg.properties(spec, "properties");
    let required_inputs = required(spec, "requiredInputs");
    let required_outputs = required(spec, "required");
    let (base, opts_type) = match kind {
        Kind::Custom => ("pulumi.CustomResource", "pulumi.CustomResourceOptions"),
        Kind::Component => (
            "pulumi.ComponentResource",
            "pulumi.ComponentResourceOptions",
        ),
        Kind::Provider => ("pulumi.ProviderResource", "pulumi.ResourceOptions"),
    };
    let parameterized = pkg.parameterization().is_some();

    let mut body = String::new();
    body.push_str(&doc(spec.get("description").and_then(Value::as_str), ""));
    body.push_str(&format!("export class {class} extends {base} {{\n"));
    if kind == Kind::Custom {
        body.push_str(&format!(
            "    /**\n     * Reads an existing {class} by its provider id.\n     */\n    public static get(name: string, id: pulumi.Input<pulumi.ID>, opts?: pulumi.CustomResourceOptions): {class} {{\n        return new {class}(name, undefined as any, {{ ...opts, id: id }});\n    }}\n\n"
        ));
    }
    body.push_str(&format!(
        "    /** @internal */\n    public static readonly __pulumiType = {};\n\n",
        quoted(token)
    ));
    body.push_str(&format!(
        "    /**\n     * Whether `obj` is a {class}, even one made by another copy of this SDK.\n     */\n    public static isInstance(obj: any): obj is {class} {{\n        if (obj === undefined || obj === null) {{\n            return false;\n        }}\n        return obj['__pulumiType'] === {prefix}{class}.__pulumiType;\n    }}\n\n",
        prefix = if kind == Kind::Provider { "\"pulumi:providers:\" + " } else { "" }
    ));
    for (name, prop) in outputs {
        body.push_str(&doc(
            prop.get("description").and_then(Value::as_str),
            "    ",
        ));
        let mut ty = tw.property(prop, Side::Output);
        if !required_outputs.contains(name) {
            ty = format!("{ty} | undefined");
        }
        body.push_str(&format!(
            "    declare public readonly {}: pulumi.Output<{ty}>;\n",
            member(name)
        ));
    }
    if !outputs.is_empty() {
        body.push('\n');
    }

    let args_optional = required_inputs.is_empty();
    body.push_str(&format!(
        "    /**\n     * Creates a {class} named `name` with `args`.\n     */\n    constructor(name: string, args{} {class}Args, opts?: {opts_type}) {{\n",
        if args_optional { "?:" } else { ":" }
    ));
    body.push_str("        let resourceInputs: pulumi.Inputs = {};\n        opts = opts || {};\n");
    let gate = match kind {
        Kind::Component => "!opts.urn",
        _ => "!opts.id",
    };
    body.push_str(&format!("        if ({gate}) {{\n"));
    for name in &required_inputs {
        if inputs.contains_key(name) {
            body.push_str(&format!(
                "            if ({} === undefined{urn_check}) {{\n                throw new Error({});\n            }}\n",
                access("args?", name),
                quoted(&format!("Missing required property '{name}'")),
                urn_check = if kind == Kind::Component { "" } else { " && !opts.urn" },
            ));
        }
    }
    for (name, prop) in inputs {
        let mut value = format!("args ? {} : undefined", access("args", name));
        if let Some(default) = prop.get("default") {
            value = format!("({value}) ?? {default}");
        }
        if prop.get("secret").and_then(Value::as_bool) == Some(true) {
            value = format!(
                "{} ? pulumi.secret({}) : undefined",
                access("args?", name),
                access("args", name)
            );
        }
        if kind == Kind::Provider && !is_string(pkg, prop) {
            // A provider's configuration travels as strings: anything else as its JSON.
            value = format!("pulumi.output({value}).apply(JSON.stringify)");
        }
        if let Some(constant) = prop.get("const") {
            value = constant.to_string();
        }
        body.push_str(&format!(
            "            resourceInputs[{}] = {value};\n",
            quoted(name)
        ));
    }
    for name in outputs.keys().filter(|n| !inputs.contains_key(*n)) {
        body.push_str(&format!(
            "            resourceInputs[{}] = undefined /*out*/;\n",
            quoted(name)
        ));
    }
    body.push_str("        } else {\n");
    for name in outputs.keys() {
        body.push_str(&format!(
            "            resourceInputs[{}] = undefined /*out*/;\n",
            quoted(name)
        ));
    }
    body.push_str("        }\n");
    body.push_str("        opts = pulumi.mergeOptions(utilities.resourceOptsDefaults(), opts);\n");
    let secrets: Vec<String> = outputs
        .iter()
        .filter(|(_, p)| p.get("secret").and_then(Value::as_bool) == Some(true))
        .map(|(n, _)| quoted(n))
        .collect();
    if !secrets.is_empty() {
        body.push_str(&format!(
            "        opts = pulumi.mergeOptions(opts, {{ additionalSecretOutputs: [{}] }});\n",
            secrets.join(", ")
        ));
    }
    let replace: Vec<String> = inputs
        .iter()
        .chain(outputs.iter())
        .filter(|(_, p)| p.get("replaceOnChanges").and_then(Value::as_bool) == Some(true))
        .map(|(n, _)| quoted(n))
        .collect();
    if !replace.is_empty() {
        body.push_str(&format!(
            "        opts = pulumi.mergeOptions(opts, {{ replaceOnChanges: [{}] }});\n",
            replace.join(", ")
        ));
    }
    let package_ref = if parameterized {
        ", utilities.getPackage()"
    } else {
        ""
    };
    let extra = match kind {
        Kind::Component => format!(", true /*remote*/{package_ref}"),
        _ if parameterized => format!(", false /*dependency*/{package_ref}"),
        _ => String::new(),
    };
    body.push_str(&format!(
        "        super({class}.__pulumiType, name, resourceInputs, opts{extra});\n    }}\n}}\n\n"
    ));

    body.push_str(&format!(
        "/**\n * The arguments a {class} is constructed with.\n */\nexport interface {class}Args {{\n"
    ));
    body.push_str(&tw.members(inputs, &required_inputs, Side::Input, false));
    body.push_str("}\n");

    format!("{}{}\n{body}", super::HEADER, tw.imports())
}

/// Whether a property holds a string: `type: string`, or an enum of this package whose
/// values are strings.
fn is_string(pkg: &Package, prop: &Value) -> bool {
    let token = prop
        .get("$ref")
        .and_then(Value::as_str)
        .and_then(|r| r.strip_prefix("#/types/"));
    let spec = match token {
        Some(t) => pkg.type_spec(t).unwrap_or(&Value::Null),
        None => prop,
    };
    spec.get("type").and_then(Value::as_str) == Some("string")
}

/// `obj.name` or `obj["na-me"]` (`args?` gives the optional chain `args?.name`).
pub(super) fn access(obj: &str, name: &str) -> String {
    let m = member(name);
    match (m.starts_with('"'), obj.ends_with('?')) {
        (true, true) => format!("{obj}.[{m}]"),
        (true, false) => format!("{obj}[{m}]"),
        (false, _) => format!("{obj}.{m}"),
    }
}
