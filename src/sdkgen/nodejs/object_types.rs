//! The package's object types and enums: `types/input.ts` (`<Name>Args` interfaces of
//! inputs), `types/output.ts` (the plain shapes outputs resolve to), `types/enums/index.ts`
//! (each enum a constant object and the union of its values) and `types/index.ts`.

use std::collections::BTreeMap;

use serde_json::Value;

use super::names::{Token, doc, module_path, pascal, quoted};
use super::package::{Package, bad, required};
use super::types::{Side, TypeWriter};
use crate::sdkgen::SdkGenError;

/// The files under `types/`, by path relative to the SDK's root.
pub(super) fn type_files(pkg: &Package) -> Result<Vec<(String, String)>, SdkGenError> {
    let members = pkg.members("types")?;
    let tw_in = TypeWriter::new(pkg, "", 1);
    let tw_out = TypeWriter::new(pkg, "", 1);
    let mut input: BTreeMap<String, String> = BTreeMap::new();
    let mut output: BTreeMap<String, String> = BTreeMap::new();
    let mut enums: BTreeMap<String, String> = BTreeMap::new();
    for (_, token, spec) in &members {
        let path = module_path(&token.module);
        if spec.get("enum").is_some() {
            enums
                .entry(path)
                .or_default()
                .push_str(&enum_decl(token, spec)?);
        } else {
            input
                .entry(path.clone())
                .or_default()
                .push_str(&object_decl(&tw_in, token, spec, Side::Input));
            output.entry(path).or_default().push_str(&object_decl(
                &tw_out,
                token,
                spec,
                Side::Output,
            ));
        }
    }
    let header = super::HEADER;
    Ok(vec![
        (
            "types/input.ts".into(),
            format!("{header}{}\n{}", tw_in.imports(), namespaces(&input)),
        ),
        (
            "types/output.ts".into(),
            format!("{header}{}\n{}", tw_out.imports(), namespaces(&output)),
        ),
        (
            "types/enums/index.ts".into(),
            format!("{header}{}", namespaces(&enums)).replace("\n\n\n", "\n\n"),
        ),
        (
            "types/index.ts".into(),
            format!(
                "{header}import * as enums from \"./enums\";\nimport * as input from \"./input\";\nimport * as output from \"./output\";\n\nexport {{ enums, input, output }};\n"
            ),
        ),
    ])
}

/// Declarations grouped by module: the root's at top level, a module's in its namespace.
fn namespaces(by_module: &BTreeMap<String, String>) -> String {
    let mut out = String::new();
    for (path, decls) in by_module {
        if path.is_empty() {
            out.push_str(decls);
        } else {
            out.push_str(&format!("export namespace {path} {{\n"));
            for line in decls.lines() {
                if line.is_empty() {
                    out.push('\n');
                } else {
                    out.push_str(&format!("    {line}\n"));
                }
            }
            out.push_str("}\n\n");
        }
    }
    if out.is_empty() {
        out.push_str("export {};\n");
    }
    out
}

fn object_decl(tw: &TypeWriter, token: &Token, spec: &Value, side: Side) -> String {
    let name = match side {
        Side::Input => format!("{}Args", pascal(&token.member)),
        Side::Output => pascal(&token.member),
    };
    let required = required(spec, "required");
    let mut out = doc(spec.get("description").and_then(Value::as_str), "");
    out.push_str(&format!("export interface {name} {{\n"));
    out.push_str(&tw.members(
        tw.pkg.properties(spec, "properties"),
        &required,
        side,
        side == Side::Output,
    ));
    out.push_str("}\n\n");
    out
}

/// An enum as a constant object (`MyEnum.A`) and a type of the same name (the union of its
/// values).
fn enum_decl(token: &Token, spec: &Value) -> Result<String, SdkGenError> {
    let name = pascal(&token.member);
    let field = |m: &str| bad(&format!("types.{}", token.member), m);
    let cases = spec
        .get("enum")
        .and_then(Value::as_array)
        .ok_or_else(|| field("enum must be a list of {name, value}"))?;
    let mut out = doc(spec.get("description").and_then(Value::as_str), "");
    out.push_str(&format!("export const {name} = {{\n"));
    for case in cases {
        let value = case
            .get("value")
            .ok_or_else(|| field("an enum case needs a value"))?;
        let case_name = match case.get("name").and_then(Value::as_str) {
            Some(n) => pascal(n),
            None => match value {
                Value::String(s) => pascal(s),
                other => format!("Value{}", pascal(&other.to_string())),
            },
        };
        let case_name =
            if case_name.starts_with(|c: char| c.is_ascii_digit()) || case_name.is_empty() {
                format!("_{case_name}")
            } else {
                case_name
            };
        out.push_str(&doc(
            case.get("description").and_then(Value::as_str),
            "    ",
        ));
        let literal = match value {
            Value::String(s) => quoted(s),
            other => other.to_string(),
        };
        out.push_str(&format!("    {case_name}: {literal},\n"));
    }
    out.push_str("} as const;\n\n");
    out.push_str(&doc(spec.get("description").and_then(Value::as_str), ""));
    out.push_str(&format!(
        "export type {name} = (typeof {name})[keyof typeof {name}];\n\n"
    ));
    Ok(out)
}
