//! The Python SDK of a package schema, as Pulumi's Python codegen writes it: the distribution
//! `pulumi-<name>` holding the module `pulumi_<name>`, one module per resource and function,
//! the package's types in `_inputs.py`, `outputs.py` and `_enums.py`, and `__init__.py`
//! registering resource modules so references the engine sends back become resources.

mod functions;
mod link;
mod names;
mod object_types;
mod package;
mod package_files;
mod resources;
mod type_hints;

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use serde_json::{Value, json};

use super::{GeneratedSdk, SdkGenError, SdkLanguage, SdkOptions, write_tree};
use names::{class_name, snake_case, token_module};
use package::Package;
use package_files::InitFile;
use resources::{Kind, ResourceSpec};

pub use link::{link, usage};

/// Writes the SDK into `out` (its old content replaced): `pyproject.toml` beside the module.
pub fn generate(
    schema: &Value,
    out: &Path,
    options: &SdkOptions,
) -> Result<GeneratedSdk, SdkGenError> {
    let pkg = Package::read(schema)?;
    let mut files: BTreeMap<String, String> = BTreeMap::new();
    let root = pkg.module.clone();
    let mut modules: BTreeMap<Option<String>, Vec<String>> = BTreeMap::new();
    modules.insert(None, Vec::new());
    let mut registrations: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();

    let mut specs = vec![(
        None,
        ResourceSpec {
            token: pkg.name.clone(),
            class: "Provider".into(),
            kind: Kind::Provider,
            def: schema.get("provider").unwrap_or(&Value::Null),
        },
    )];
    for (token, def) in pkg.section("resources") {
        let kind = if def.get("isComponent").and_then(Value::as_bool) == Some(true) {
            Kind::Component
        } else {
            Kind::Custom
        };
        let spec = ResourceSpec {
            token: token.to_string(),
            class: class_name(token),
            kind,
            def,
        };
        let module = token_module(token);
        let middle = token.split(':').nth(1).unwrap_or("").to_string();
        registrations
            .entry(middle)
            .or_default()
            .insert(token.to_string(), spec.class.clone());
        specs.push((module, spec));
    }
    for (module, spec) in &specs {
        let stem = snake_case(&spec.class);
        let text = resources::module(&pkg, spec, rel(module));
        files.insert(module_path(&root, module, &format!("{stem}.py")), text);
        modules.entry(module.clone()).or_default().push(stem);
    }

    let methods: BTreeSet<&str> = pkg
        .section("resources")
        .iter()
        .filter_map(|(_, def)| def.get("methods").and_then(Value::as_object))
        .flat_map(|m| m.values().filter_map(Value::as_str))
        .collect();
    for (token, def) in pkg.section("functions") {
        if methods.contains(token) {
            continue;
        }
        let module = token_module(token);
        let stem = functions::function_name(token);
        let text = functions::module(&pkg, token, def, rel(&module));
        files.insert(module_path(&root, &module, &format!("{stem}.py")), text);
        modules.entry(module).or_default().push(stem);
    }

    let submodules: Vec<String> = modules.keys().flatten().cloned().collect();
    let register: Vec<Value> = registrations
        .iter()
        .map(|(middle, classes)| {
            let fqn = match token_module(&format!("{}:{middle}:", pkg.name)) {
                Some(m) => format!("{root}.{m}"),
                None => root.clone(),
            };
            json!({"pkg": pkg.name, "mod": middle, "fqn": fqn, "classes": classes})
        })
        .collect();
    let register = Value::Array(register);
    for (module, stems) in &modules {
        let init = InitFile {
            files: stems.clone(),
            submodules: if module.is_none() {
                submodules.clone()
            } else {
                Vec::new()
            },
            registrations: module.is_none().then_some((&pkg, register.clone())),
        };
        files.insert(module_path(&root, module, "__init__.py"), init.render());
    }
    files.insert(format!("{root}/_enums.py"), object_types::enums(&pkg));
    files.insert(format!("{root}/_inputs.py"), object_types::inputs(&pkg));
    files.insert(format!("{root}/outputs.py"), object_types::outputs(&pkg));
    files.insert(
        format!("{root}/_utilities.py"),
        package_files::utilities(&pkg),
    );
    files.insert(
        format!("{root}/pulumi-plugin.json"),
        package_files::plugin_json(&pkg),
    );
    files.insert(format!("{root}/py.typed"), String::new());
    files.insert(
        "pyproject.toml".into(),
        package_files::pyproject(&pkg, options),
    );
    files.insert("README.md".into(), package_files::readme(&pkg));

    write_tree(out, files)?;
    Ok(GeneratedSdk {
        language: SdkLanguage::Python,
        dir: out.to_path_buf(),
        package: pkg.distribution,
        import: pkg.module,
    })
}

/// The relative import of the package root from a module.
fn rel(module: &Option<String>) -> &'static str {
    if module.is_some() { ".." } else { "." }
}

/// A file's path in the SDK: `pulumi_x/file` or `pulumi_x/<module>/file`.
fn module_path(root: &str, module: &Option<String>, file: &str) -> String {
    match module {
        Some(m) => format!("{root}/{m}/{file}"),
        None => format!("{root}/{file}"),
    }
}
