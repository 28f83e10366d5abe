//! One module per resource: its `XArgs` input class and the resource class, which takes
//! either call form (`X(name, args, opts)` or `X(name, opts=..., **kwargs)`), registers
//! components remotely, reads custom resources with `get`, and calls the resource's methods.

use std::fmt::Write;

use serde_json::Value;

use super::names::{class_name, docstring, init_param, py_str, snake_case};
use super::object_types::{
    description, file_head, quoted, write_accessors, write_init, write_output_class_body,
};
use super::package::{Package, properties};
use super::type_hints::{self, Imports, Side};

/// How the engine registers the resource.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    Custom,
    /// A component the provider constructs (`isComponent`): registered with `remote=True`.
    Component,
    /// The package's provider resource (`pulumi:providers:<name>`).
    Provider,
}

/// A resource to write: its token (or the package name, for the provider), its class and
/// its schema.
pub(super) struct ResourceSpec<'a> {
    pub(super) token: String,
    pub(super) class: String,
    pub(super) kind: Kind,
    pub(super) def: &'a Value,
}

/// The resource's module text; `rel` is the relative import of the package root (`.` or `..`).
pub(super) fn module(pkg: &Package, spec: &ResourceSpec, rel: &str) -> String {
    let mut imports = Imports::new();
    let mut body = String::new();
    let class = &spec.class;
    let inputs = properties(spec.def, "inputProperties", "requiredInputs");
    let outputs = properties(spec.def, "properties", "required");
    let doc = description(spec.def);

    let _ = writeln!(body, "\n@pulumi.input_type\nclass {class}Args:");
    let args_doc = format!("The set of arguments for constructing a {class} resource.");
    write_init(&mut body, pkg, &inputs, &mut imports, Some(&args_doc));
    for (name, prop, required) in &inputs {
        let t = type_hints::element(pkg, prop, Side::Input, &mut imports);
        let hint = type_hints::input(&t, *required);
        write_accessors(&mut body, name, &hint, description(prop), true);
    }

    let base = match spec.kind {
        Kind::Custom => "pulumi.CustomResource",
        Kind::Component => "pulumi.ComponentResource",
        Kind::Provider => "pulumi.ProviderResource",
    };
    let _ = writeln!(body, "\n\nclass {class}({base}):");
    let params: Vec<(String, String, &str)> = inputs
        .iter()
        .map(|(name, prop, _)| {
            let t = type_hints::element(pkg, prop, Side::Input, &mut imports);
            (init_param(name), type_hints::input(&t, false), *name)
        })
        .collect();
    write_constructors(&mut body, class, &params, &inputs, doc);
    write_internal_init(&mut body, spec, &params, &inputs, &outputs);
    if spec.kind == Kind::Custom {
        write_get(&mut body, class, &outputs);
    }
    for (name, prop, required) in &outputs {
        if matches!(*name, "id" | "urn") {
            continue;
        }
        let t = type_hints::element(pkg, prop, Side::Output, &mut imports);
        let hint = format!("pulumi.Output[{}]", type_hints::plain(&t, *required));
        write_accessors(&mut body, name, &hint, description(prop), false);
    }
    if let Some(methods) = spec.def.get("methods").and_then(Value::as_object) {
        for (name, token) in methods {
            if let Some(token) = token.as_str() {
                write_method(&mut body, pkg, class, name, token, &mut imports);
            }
        }
    }

    format!(
        "{}from {rel} import outputs\nfrom {rel}_enums import *\nfrom {rel}_inputs import *\n\n__all__ = [{}]\n{body}",
        file_head(rel, &imports),
        quoted(&[format!("{class}Args"), class.clone()]),
        rel = rel,
    )
}

/// The two typed overloads and the `__init__` that tells them apart.
fn write_constructors(
    body: &mut String,
    class: &str,
    params: &[(String, String, &str)],
    inputs: &[(&str, &Value, bool)],
    doc: Option<&str>,
) {
    let kwargs: String = params
        .iter()
        .map(|(py, hint, _)| format!(",\n                 {py}: {hint} = None"))
        .collect();
    let _ = writeln!(
        body,
        "    @overload\n    def __init__(__self__,\n                 resource_name: str,\n                 opts: Optional[pulumi.ResourceOptions] = None{kwargs}) -> None:"
    );
    body.push_str(&docstring("        ", doc));
    body.push_str("        ...\n\n");
    let args_hint = if inputs.iter().any(|(_, _, required)| *required) {
        format!("{class}Args")
    } else {
        format!("Optional[{class}Args] = None")
    };
    let _ = writeln!(
        body,
        "    @overload\n    def __init__(__self__,\n                 resource_name: str,\n                 args: {args_hint},\n                 opts: Optional[pulumi.ResourceOptions] = None) -> None:"
    );
    body.push_str(&docstring("        ", doc));
    body.push_str("        ...\n\n");
    let _ = writeln!(
        body,
        "    def __init__(__self__, resource_name: str, *args, **kwargs):\n        resource_args, opts = _utilities.get_resource_args_opts({class}Args, pulumi.ResourceOptions, *args, **kwargs)\n        if resource_args is not None:\n            __self__._internal_init(resource_name, opts, **resource_args.__dict__)\n        else:\n            __self__._internal_init(resource_name, *args, **kwargs)\n"
    );
}

/// `_internal_init`: fills the args object (required inputs checked unless the resource is
/// being rehydrated from a URN, outputs left unset) and registers the resource.
fn write_internal_init(
    body: &mut String,
    spec: &ResourceSpec,
    params: &[(String, String, &str)],
    inputs: &[(&str, &Value, bool)],
    outputs: &[(&str, &Value, bool)],
) {
    let class = &spec.class;
    let kwargs: String = params
        .iter()
        .map(|(py, _, _)| format!(",\n                 {py}=None"))
        .collect();
    let _ = writeln!(
        body,
        "    def _internal_init(__self__,\n                 resource_name: str,\n                 opts: Optional[pulumi.ResourceOptions] = None{kwargs},\n                 __props__=None):\n        opts = pulumi.ResourceOptions.merge(_utilities.get_resource_opts_defaults(), opts)\n        if not isinstance(opts, pulumi.ResourceOptions):\n            raise TypeError('Expected resource options to be a ResourceOptions instance')"
    );
    let mut fill = String::new();
    let _ = writeln!(
        fill,
        "if __props__ is not None:\n    raise TypeError('__props__ is only valid when passed in combination with a valid opts.id to get an existing resource')\n__props__ = {class}Args.__new__({class}Args)"
    );
    for ((py, _, wire), (_, prop, required)) in params.iter().zip(inputs) {
        if *required {
            let _ = writeln!(
                fill,
                "if {py} is None and not opts.urn:\n    raise TypeError(\"Missing required property '{wire}'\")"
            );
        }
        // A provider's configuration reaches it as strings: other values as their JSON.
        let plain_string = prop.get("type").and_then(Value::as_str) == Some("string");
        let value = if spec.kind == Kind::Provider && !plain_string {
            format!(
                "pulumi.Output.from_input({py}).apply(pulumi.runtime.to_json) if {py} is not None else None"
            )
        } else if is_secret(prop) {
            format!("None if {py} is None else pulumi.Output.secret({py})")
        } else {
            py.clone()
        };
        let _ = writeln!(
            fill,
            "__props__.__dict__[{}] = {value}",
            py_str(&snake_case(wire))
        );
    }
    for (name, _, _) in outputs {
        if inputs.iter().any(|(i, _, _)| i == name) || matches!(*name, "id" | "urn") {
            continue;
        }
        let _ = writeln!(
            fill,
            "__props__.__dict__[{}] = None",
            py_str(&snake_case(name))
        );
    }
    let (indent, register) = match spec.kind {
        Kind::Component => {
            body.push_str("        if opts.id is not None:\n            raise ValueError('ComponentResource classes do not support opts.id')\n");
            (
                "        ",
                format!(
                    "super({class}, __self__).__init__(\n            {}, resource_name, __props__, opts, remote=True,\n            package_ref=_utilities.get_package())",
                    py_str(&spec.token)
                ),
            )
        }
        Kind::Custom | Kind::Provider => {
            body.push_str("        if opts.id is None:\n");
            (
                "            ",
                format!(
                    "super({class}, __self__).__init__(\n            {}, resource_name, __props__, opts,\n            package_ref=_utilities.get_package())",
                    py_str(&spec.token)
                ),
            )
        }
    };
    for line in fill.lines() {
        let _ = writeln!(body, "{indent}{line}");
    }
    write_option_merges(body, inputs, outputs);
    let _ = writeln!(body, "        {register}\n");
}

/// The options a schema asks for every instance: its secret properties kept secret in the
/// state (`additional_secret_outputs`), and the properties whose change replaces it.
fn write_option_merges(
    body: &mut String,
    inputs: &[(&str, &Value, bool)],
    outputs: &[(&str, &Value, bool)],
) {
    let names = |keep: &dyn Fn(&Value) -> bool| -> Vec<String> {
        let mut names: Vec<String> = outputs
            .iter()
            .chain(inputs)
            .filter(|(_, prop, _)| keep(prop))
            .map(|(name, _, _)| name.to_string())
            .collect();
        names.sort();
        names.dedup();
        names
    };
    let secrets = names(&is_secret);
    if !secrets.is_empty() {
        let _ = writeln!(
            body,
            "        opts = pulumi.ResourceOptions.merge(opts, pulumi.ResourceOptions(additional_secret_outputs=[{}]))",
            quoted(&secrets)
        );
    }
    let replaces =
        names(&|p: &Value| p.get("replaceOnChanges").and_then(Value::as_bool) == Some(true));
    if !replaces.is_empty() {
        let _ = writeln!(
            body,
            "        opts = pulumi.ResourceOptions.merge(opts, pulumi.ResourceOptions(replace_on_changes=[{}]))",
            quoted(&replaces)
        );
    }
}

/// Whether the schema marks a property secret.
fn is_secret(prop: &Value) -> bool {
    prop.get("secret").and_then(Value::as_bool) == Some(true)
}

/// `X.get(name, id, opts)`: reads an existing resource of this type.
fn write_get(body: &mut String, class: &str, outputs: &[(&str, &Value, bool)]) {
    let _ = writeln!(
        body,
        "    @staticmethod\n    def get(resource_name: str,\n            id: pulumi.Input[str],\n            opts: Optional[pulumi.ResourceOptions] = None) -> '{class}':\n        \"\"\"\n        Reads the existing {class} resource with the given name and provider id.\n        \"\"\"\n        opts = pulumi.ResourceOptions.merge(opts, pulumi.ResourceOptions(id=id))\n        __props__ = {class}Args.__new__({class}Args)"
    );
    for (name, _, _) in outputs {
        if matches!(*name, "id" | "urn") {
            continue;
        }
        let _ = writeln!(
            body,
            "        __props__.__dict__[{}] = None",
            py_str(&snake_case(name))
        );
    }
    let _ = writeln!(
        body,
        "        return {class}(resource_name, opts=opts, __props__=__props__)\n"
    );
}

/// A method: a `call` of its function with the resource as `__self__`, its result an output
/// class nested in the resource class.
fn write_method(
    body: &mut String,
    pkg: &Package,
    class: &str,
    name: &str,
    token: &str,
    imports: &mut Imports,
) {
    let Some(function) = pkg.schema.get("functions").and_then(|f| f.get(token)) else {
        return;
    };
    let inputs: Vec<(&str, &Value, bool)> = properties(
        function.get("inputs").unwrap_or(&Value::Null),
        "properties",
        "required",
    )
    .into_iter()
    .filter(|(n, _, _)| *n != "__self__")
    .collect();
    let outputs = function
        .get("outputs")
        .map(|o| properties(o, "properties", "required"))
        .filter(|o| !o.is_empty());
    let py = snake_case(name);
    let result = format!("{}Result", class_name(name));
    if let Some(outputs) = &outputs {
        let mut nested = String::new();
        let _ = writeln!(nested, "\n@pulumi.output_type\nclass {result}(dict):");
        write_output_class_body(&mut nested, pkg, outputs, imports);
        for line in nested.lines() {
            if line.is_empty() {
                body.push('\n');
            } else {
                let _ = writeln!(body, "    {line}");
            }
        }
    }
    body.push('\n');
    let mut params = vec!["__self__".to_string()];
    if !inputs.is_empty() {
        params.push("*".into());
    }
    let mut args = String::new();
    for (wire, prop, required) in &inputs {
        let p = snake_case(wire);
        let t = type_hints::element(pkg, prop, Side::Input, imports);
        params.push(format!("{p}: {} = None", type_hints::input(&t, *required)));
        let _ = writeln!(args, "        __args__[{}] = {p}", py_str(wire));
    }
    let returns = match &outputs {
        Some(_) => format!("pulumi.Output['{class}.{result}']"),
        None => "None".into(),
    };
    let _ = writeln!(body, "    def {py}({}) -> {returns}:", params.join(", "));
    body.push_str(&docstring("        ", description(function)));
    let _ = writeln!(
        body,
        "        __args__ = dict()\n        __args__['__self__'] = __self__\n{args}        __result__ = pulumi.runtime.call({}, __args__, res=__self__, typ={}, package_ref=_utilities.get_package())",
        py_str(token),
        if outputs.is_some() {
            format!("{class}.{result}")
        } else {
            "None".into()
        },
    );
    if outputs.is_some() {
        body.push_str("        return __result__\n");
    }
}
