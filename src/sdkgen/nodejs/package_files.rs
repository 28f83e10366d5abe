//! The files around the code: `package.json` (the npm package, its dependencies, the local
//! SDK's `postinstall` compiling it into `bin/`), `tsconfig.json`, `scripts/postinstall.js`,
//! `.gitignore` and `utilities.ts` (option defaults, and the package reference a
//! parameterized package registers).

use serde_json::{Map, Value, json};

use super::names::quoted;
use super::package::Package;
use crate::sdkgen::SdkOptions;

/// The `@pulumi/pulumi` a generated SDK needs (package references need a newer one).
const PULUMI_SDK: &str = "^3.142.0";
const PULUMI_SDK_PARAMETERIZED: &str = "^3.238.0";
/// The compiler a local SDK's `postinstall` runs, and the Node types it compiles against.
const TYPESCRIPT: &str = "^4.7.0";
const NODE_TYPES: &str = "^20";

/// Whether resources ask the engine for the schema's version of the plugin (Pulumi's
/// `respectSchemaVersion`, always true for a parameterized package).
pub(super) fn respects_version(pkg: &Package) -> bool {
    pkg.version.is_some()
        && (pkg.parameterization().is_some()
            || pkg
                .schema
                .pointer("/language/nodejs/respectSchemaVersion")
                .and_then(Value::as_bool)
                == Some(true))
}

/// `package.json`.
pub(super) fn package_json(pkg: &Package, options: &SdkOptions) -> String {
    let nodejs = pkg.schema.pointer("/language/nodejs");
    let section = |key: &str| -> Map<String, Value> {
        nodejs
            .and_then(|n| n.get(key))
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default()
    };
    let mut dependencies = section("dependencies");
    let mut dev_dependencies = section("devDependencies");
    let compiler = if options.local {
        &mut dependencies
    } else {
        &mut dev_dependencies
    };
    compiler.insert("typescript".into(), json!(TYPESCRIPT));
    compiler.insert("@types/node".into(), json!(NODE_TYPES));
    for dep in pkg
        .schema
        .get("dependencies")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        if let Some(name) = dep.get("name").and_then(Value::as_str) {
            let version = dep.get("version").and_then(Value::as_str).unwrap_or("*");
            dependencies.insert(format!("@pulumi/{name}"), json!(version));
        }
    }
    if !dependencies.contains_key("@pulumi/pulumi")
        && !dev_dependencies.contains_key("@pulumi/pulumi")
    {
        let sdk = if pkg.parameterization().is_some() {
            PULUMI_SDK_PARAMETERIZED
        } else {
            PULUMI_SDK
        };
        dependencies.insert("@pulumi/pulumi".into(), json!(sdk));
    }
    let version = pkg.version.clone().unwrap_or_else(|| "0.0.0".into());
    let mut plugin = Map::new();
    plugin.insert("resource".into(), json!(true));
    match pkg.parameterization() {
        Some(p) => {
            plugin.insert("name".into(), json!(p.base_name));
            plugin.insert("version".into(), json!(p.base_version));
            plugin.insert(
                "parameterization".into(),
                json!({"name": pkg.name, "version": version, "value": p.parameter}),
            );
        }
        None => {
            plugin.insert("name".into(), json!(pkg.name));
            if respects_version(pkg) {
                plugin.insert("version".into(), json!(version));
            }
        }
    }
    if !pkg.download_url().is_empty() {
        plugin.insert("server".into(), json!(pkg.download_url()));
    }
    let mut scripts = Map::new();
    scripts.insert("build".into(), json!("tsc"));
    let mut out = Map::new();
    out.insert("name".into(), json!(pkg.npm_name));
    out.insert("version".into(), json!(version));
    for key in ["description", "homepage", "repository", "license"] {
        if let Some(v) = pkg.schema.get(key).and_then(Value::as_str) {
            out.insert(key.into(), json!(v));
        }
    }
    if options.local {
        out.insert("main".into(), json!("bin/index.js"));
        out.insert("types".into(), json!("bin/index.d.ts"));
        scripts.insert("postinstall".into(), json!("node ./scripts/postinstall.js"));
    }
    out.insert("scripts".into(), Value::Object(scripts));
    out.insert("dependencies".into(), Value::Object(dependencies));
    if !dev_dependencies.is_empty() {
        out.insert("devDependencies".into(), Value::Object(dev_dependencies));
    }
    out.insert("pulumi".into(), Value::Object(plugin));
    let mut text = serde_json::to_string_pretty(&Value::Object(out)).unwrap_or_default();
    text.push('\n');
    text
}

/// `tsconfig.json`: every `.ts` file of the SDK compiled into `bin/` with declarations.
pub(super) fn tsconfig(ts_files: &[String]) -> String {
    let files: Vec<String> = ts_files
        .iter()
        .map(|f| format!("        {}", quoted(f)))
        .collect();
    format!(
        r#"{{
    "compilerOptions": {{
        "outDir": "bin",
        "declaration": true,
        "declarationMap": true,
        "sourceMap": true,
        "stripInternal": true,
        "target": "ES2022",
        "module": "nodenext",
        "moduleResolution": "nodenext",
        "moduleDetection": "force",
        "types": ["node"],
        "strict": true,
        "noFallthroughCasesInSwitch": true,
        "noImplicitReturns": true,
        "skipLibCheck": true
    }},
    "files": [
{}
    ]
}}
"#,
        files.join(",\n")
    )
}

/// `scripts/postinstall.js`: a local SDK is compiled where it is installed, by the TypeScript
/// its own dependencies bring (resolved from the SDK's directory, so neither another `tsc` on
/// PATH nor a package manager that hoists it elsewhere changes which one runs), against the
/// `@types` packages it depends on only; `bin/package.json` lets `getVersion` read the version.
pub(super) const POSTINSTALL: &str = r#"// Compiles this SDK into ./bin when a package manager installs it.
const fs = require("node:fs");
const path = require("node:path");
const { execFileSync } = require("node:child_process");

const root = path.join(__dirname, "..");
const manifest = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8"));
const declared = Object.keys(manifest.dependencies || {}).concat(Object.keys(manifest.devDependencies || {}));
const types = declared.filter((d) => d.startsWith("@types/")).map((d) => d.slice("@types/".length));
const tsc = require.resolve("typescript/bin/tsc", { paths: [root] });
const args = [tsc].concat(types.length > 0 ? ["--types", types.join(",")] : []);
try {
    execFileSync(process.execPath, args, { cwd: root, stdio: "pipe" });
} catch (error) {
    console.error("Compiling the SDK with " + tsc + " failed", {
        stdout: String(error.stdout || ""),
        stderr: String(error.stderr || ""),
    });
    process.exit(1);
}
fs.copyFileSync(path.join(root, "package.json"), path.join(root, "bin", "package.json"));
"#;

/// `.gitignore`: what installing the SDK leaves beside its sources.
pub(super) const GITIGNORE: &str = "node_modules/\nbin/\n";

/// `utilities.ts`.
pub(super) fn utilities(pkg: &Package) -> String {
    let mut defaults = Vec::new();
    if respects_version(pkg) {
        defaults.push("version: getVersion()".to_string());
    }
    if !pkg.download_url().is_empty() {
        defaults.push(format!("pluginDownloadURL: {}", quoted(pkg.download_url())));
    }
    let mut out = format!(
        r#"{}{}
/**
 * The package's version, as its package.json says.
 */
export function getVersion(): string {{
    let version: string = require("./package.json").version;
    if (version.startsWith("v")) {{
        version = version.slice(1);
    }}
    return version;
}}

/** @internal */
export function resourceOptsDefaults(): any {{
    return {{ {} }};
}}
"#,
        super::HEADER,
        if pkg.parameterization().is_some() {
            "import * as pulumi from \"@pulumi/pulumi\";\n"
        } else {
            ""
        },
        defaults.join(", ")
    );
    if let Some(p) = pkg.parameterization() {
        out.push_str(&format!(
            r#"
/**
 * The reference the engine gives this parameterized package once it is registered: its
 * resources and invokes carry it, so the engine knows which parameterization serves them.
 */
export async function getPackage(): Promise<string | undefined> {{
    return pulumi.runtime.registerPackage({{
        baseProviderName: {},
        baseProviderVersion: {},
        baseProviderDownloadUrl: {},
        packageName: {},
        packageVersion: {},
        base64Parameter: {},
    }});
}}
"#,
            quoted(&p.base_name),
            quoted(&p.base_version),
            quoted(pkg.download_url()),
            quoted(&pkg.name),
            quoted(pkg.version.as_deref().unwrap_or("")),
            quoted(&p.parameter),
        ));
    }
    out
}
