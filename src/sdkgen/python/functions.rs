//! One module per function (invoke): `f(...)` awaiting its result and `f_output(...)` taking
//! inputs and returning an output, both with the result as an output class.

use std::fmt::Write;

use serde_json::Value;

use super::names::{class_name, docstring, py_str, snake_case};
use super::object_types::{description, file_head, quoted, write_output_class_body};
use super::package::{Package, properties};
use super::type_hints::{self, Imports, Side};

/// The function's Python name (`doEcho` → `do_echo`).
pub(super) fn function_name(token: &str) -> String {
    snake_case(token.rsplit(':').next().unwrap_or(token))
}

/// The function's module text; `rel` is the relative import of the package root.
pub(super) fn module(pkg: &Package, token: &str, def: &Value, rel: &str) -> String {
    let mut imports = Imports::new();
    let mut body = String::new();
    let name = function_name(token);
    let result = format!("{}Result", class_name(token));
    let inputs = def
        .get("inputs")
        .map(|i| properties(i, "properties", "required"))
        .unwrap_or_default();
    let outputs = def
        .get("outputs")
        .map(|o| properties(o, "properties", "required"))
        .unwrap_or_default();

    let _ = writeln!(body, "\n@pulumi.output_type\nclass {result}(dict):");
    body.push_str(&docstring("    ", Some(&format!("The result of {name}."))));
    write_output_class_body(&mut body, pkg, &outputs, &mut imports);

    let fields: Vec<String> = outputs
        .iter()
        .map(|(n, _, _)| {
            let py = snake_case(n);
            format!("{py}=self.{py}")
        })
        .collect();
    let _ = writeln!(
        body,
        "\n\nclass Awaitable{result}({result}):\n    def __await__(self):\n        if False:\n            yield self\n        return {result}({})\n",
        fields.join(", ")
    );

    let mut plain_params = Vec::new();
    let mut output_params = Vec::new();
    let mut args = String::new();
    for (wire, prop, required) in &inputs {
        let py = snake_case(wire);
        let t = type_hints::element(pkg, prop, Side::Input, &mut imports);
        let plain_t = type_hints::element(pkg, prop, Side::Output, &mut imports);
        plain_params.push(format!(
            "{py}: {} = None",
            type_hints::plain(&plain_t, *required)
        ));
        output_params.push(format!("{py}: {} = None", type_hints::input(&t, *required)));
        let _ = writeln!(args, "    __args__[{}] = {py}", py_str(wire));
    }
    let fill: String = outputs
        .iter()
        .map(|(n, _, _)| {
            let py = snake_case(n);
            format!("{py}=pulumi.get(__ret__, {})", py_str(&py))
        })
        .collect::<Vec<_>>()
        .join(", ");
    let doc = docstring("    ", description(def));
    let tok = py_str(token);

    plain_params.push("opts: Optional[pulumi.InvokeOptions] = None".into());
    let _ = writeln!(
        body,
        "\ndef {name}({}) -> Awaitable{result}:\n{doc}    __args__ = dict()\n{args}    opts = pulumi.InvokeOptions.merge(_utilities.get_invoke_opts_defaults(), opts)\n    __ret__ = pulumi.runtime.invoke({tok}, __args__, opts=opts, typ={result}, package_ref=_utilities.get_package()).value\n    return Awaitable{result}({fill})\n",
        plain_params.join(", ")
    );
    output_params.push(
        "opts: Optional[Union[pulumi.InvokeOptions, pulumi.InvokeOutputOptions]] = None".into(),
    );
    let _ = writeln!(
        body,
        "\ndef {name}_output({}) -> pulumi.Output[{result}]:\n{doc}    __args__ = dict()\n{args}    opts = pulumi.InvokeOutputOptions.merge(_utilities.get_invoke_opts_defaults(), opts)\n    __ret__ = pulumi.runtime.invoke_output({tok}, __args__, opts=opts, typ={result}, package_ref=_utilities.get_package())\n    return __ret__.apply(lambda __ret__: {result}({fill}))",
        output_params.join(", ")
    );

    format!(
        "{}from {rel} import outputs\nfrom {rel}_enums import *\nfrom {rel}_inputs import *\n\n__all__ = [{}]\n{body}",
        file_head(rel, &imports),
        quoted(&[
            result.clone(),
            format!("Awaitable{result}"),
            name.clone(),
            format!("{name}_output"),
        ]),
    )
}
