//! One file per function (invoke): `getFoo` answering a promise and `getFooOutput` answering
//! an output, with their argument and result interfaces.

use serde_json::Value;

use super::names::{doc, pascal, quoted};
use super::package::{Package, required};
use super::resources::access;
use super::types::{Side, TypeWriter};

/// The TypeScript file of the function `token` named `name` in `module`.
pub(super) fn function_file(
    pkg: &Package,
    module: &str,
    token: &str,
    name: &str,
    spec: &Value,
) -> String {
    let tw = TypeWriter::new(pkg, module, 0);
    let class = pascal(name);
    let empty = Value::Null;
    let inputs_spec = spec.get("inputs").unwrap_or(&empty);
    let inputs = pkg.properties(inputs_spec, "properties");
    let required_inputs = required(inputs_spec, "required");
    let outputs_spec = spec.get("outputs").unwrap_or(&empty);
    let has_result = outputs_spec.get("properties").is_some();
    let result = if has_result {
        format!("{class}Result")
    } else if outputs_spec.is_null() {
        "void".to_string()
    } else {
        tw.property(outputs_spec, Side::Output)
    };
    let args_opt = if required_inputs.is_empty() { "?" } else { "" };
    let package_ref = if pkg.parameterization().is_some() {
        ", utilities.getPackage()"
    } else {
        ""
    };
    let default_args = if args_opt.is_empty() {
        ""
    } else {
        "    args = args || {};\n"
    };
    let call_args: Vec<String> = inputs
        .keys()
        .map(|k| format!("        {}: {},\n", quoted(k), access("args", k)))
        .collect();
    let call_args = call_args.concat();
    let description = doc(spec.get("description").and_then(Value::as_str), "");

    let mut body = String::new();
    for (suffix, args_type, opts, ret, invoke, side) in [
        (
            "",
            format!("{class}Args"),
            "pulumi.InvokeOptions",
            format!("Promise<{result}>"),
            "invoke",
            Side::Output,
        ),
        (
            "Output",
            format!("{class}OutputArgs"),
            "pulumi.InvokeOutputOptions",
            format!("pulumi.Output<{result}>"),
            "invokeOutput",
            Side::Input,
        ),
    ] {
        body.push_str(&description);
        body.push_str(&format!(
            "export function {name}{suffix}(args{args_opt}: {args_type}, opts?: {opts}): {ret} {{\n{default_args}    opts = pulumi.mergeOptions(utilities.resourceOptsDefaults(), opts || {{}});\n    return pulumi.runtime.{invoke}({}, {{\n{call_args}    }}, opts{package_ref});\n}}\n\n",
            quoted(token)
        ));
        body.push_str(&format!(
            "/**\n * The arguments of {name}{suffix}.\n */\nexport interface {args_type} {{\n"
        ));
        body.push_str(&tw.members(inputs, &required_inputs, side, false));
        body.push_str("}\n\n");
    }
    if has_result {
        let required_outputs = required(outputs_spec, "required");
        body.push_str(&format!(
            "/**\n * What {name} answers.\n */\nexport interface {class}Result {{\n"
        ));
        body.push_str(&tw.members(
            pkg.properties(outputs_spec, "properties"),
            &required_outputs,
            Side::Output,
            true,
        ));
        body.push_str("}\n");
    }
    format!("{}{}\n{body}", super::HEADER, tw.imports())
}
