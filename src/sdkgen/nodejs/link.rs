//! Linking a local SDK into a Node.js project as Pulumi's Node language host does
//! (`LinkPackage`): the project depends on `file:<sdk dir>`, the SDK's `postinstall` (which
//! compiles it) is allowed to run by the package manager's own allowlist (npm's
//! `allowScripts`, pnpm's `pnpm-workspace.yaml`, bun's `trustedDependencies`), and the
//! package manager installs the project.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Map, Value};

use crate::project::runtime::Runtime;
use crate::sdkgen::{GeneratedSdk, SdkGenError};

/// The package managers a Node.js project names in `runtime.options.packagemanager`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum PackageManager {
    Npm,
    Yarn,
    Pnpm,
    Bun,
}

impl PackageManager {
    /// The runtime option's manager, or (`auto`, unset) the one whose lock file the project
    /// holds, else npm.
    fn of(root: &Path, runtime: &Runtime) -> Result<PackageManager, SdkGenError> {
        let option = runtime
            .options
            .get("packagemanager")
            .and_then(Value::as_str);
        Ok(match option.unwrap_or("auto") {
            "npm" => PackageManager::Npm,
            "yarn" => PackageManager::Yarn,
            "pnpm" => PackageManager::Pnpm,
            "bun" => PackageManager::Bun,
            "auto" => [
                ("yarn.lock", PackageManager::Yarn),
                ("pnpm-lock.yaml", PackageManager::Pnpm),
                ("bun.lockb", PackageManager::Bun),
                ("bun.lock", PackageManager::Bun),
            ]
            .into_iter()
            .find(|(file, _)| root.join(file).exists())
            .map_or(PackageManager::Npm, |(_, pm)| pm),
            other => {
                return Err(link_error(
                    root,
                    format!(
                        "runtime.options.packagemanager {other:?} is not npm, yarn, pnpm, bun or auto"
                    ),
                ));
            }
        })
    }

    fn command(self) -> &'static str {
        match self {
            PackageManager::Npm => "npm",
            PackageManager::Yarn => "yarn",
            PackageManager::Pnpm => "pnpm",
            PackageManager::Bun => "bun",
        }
    }
}

/// Adds the SDK to the project's `package.json` (allowing its install script) and installs.
pub fn link(root: &Path, runtime: &Runtime, sdk: &GeneratedSdk) -> Result<(), SdkGenError> {
    let pm = PackageManager::of(root, runtime)?;
    let spec = format!("file:{}", relative_path(root, &sdk.dir));
    let manifest_path = root.join("package.json");
    let mut manifest = read_manifest(&manifest_path)?;
    object_at(&mut manifest, "dependencies")
        .insert(sdk.package.clone(), Value::String(spec.clone()));
    match pm {
        PackageManager::Npm => {
            object_at(&mut manifest, "allowScripts").insert(spec.clone(), Value::Bool(true));
        }
        PackageManager::Bun => {
            let trusted = manifest
                .entry("trustedDependencies")
                .or_insert_with(|| Value::Array(Vec::new()));
            if !trusted.is_array() {
                *trusted = Value::Array(Vec::new());
            }
            if let Value::Array(list) = trusted
                && !list.iter().any(|v| v.as_str() == Some(&sdk.package))
            {
                list.push(Value::String(sdk.package.clone()));
            }
        }
        PackageManager::Yarn | PackageManager::Pnpm => {}
    }
    let mut text = serde_json::to_string_pretty(&Value::Object(manifest)).unwrap_or_default();
    text.push('\n');
    std::fs::write(&manifest_path, text).map_err(|source| SdkGenError::Io {
        path: manifest_path.clone(),
        source,
    })?;
    if pm == PackageManager::Pnpm {
        allow_pnpm_build(root, &sdk.package, &spec)?;
    }
    run(root, pm.command(), &["install"])
}

/// How the program at `root` imports the SDK, in Pulumi's Node host's words: a TypeScript
/// project (the `typescript` option unless false, a `tsconfig` option or a `tsconfig.json` at or
/// above it) or an ES module package gets `import`, other JavaScript `require`.
pub fn usage(sdk: &GeneratedSdk, schema_name: &str, root: &Path, runtime: &Runtime) -> String {
    let option = |key: &str| runtime.options.get(key);
    let typescript = option("typescript").and_then(Value::as_bool) != Some(false)
        || option("tsconfig").is_some_and(Value::is_string)
        || nearest(root, "tsconfig.json").is_some();
    let module = typescript
        || nearest(root, "package.json")
            .and_then(|p| std::fs::read_to_string(p).ok())
            .and_then(|text| serde_json::from_str::<Value>(&text).ok())
            .is_some_and(|manifest| manifest["type"] == "module");
    let name = super::names::camel(schema_name);
    let language = if typescript {
        "TypeScript"
    } else {
        "JavaScript"
    };
    let import = if module {
        format!("import * as {name} from \"{}\";", sdk.import)
    } else {
        format!("const {name} = require(\"{}\");", sdk.import)
    };
    format!("You can import the SDK in your {language} code with:\n\n  {import}\n")
}

/// `file` in `dir` or the nearest directory above it that has one.
fn nearest(dir: &Path, file: &str) -> Option<PathBuf> {
    dir.ancestors().map(|d| d.join(file)).find(|p| p.is_file())
}

/// pnpm runs a dependency's build scripts only when the project allows them: pnpm 11 under
/// `allowBuilds`, earlier ones under `onlyBuiltDependencies` (keyed `<name>@file:<path>`
/// from 10.34.2, by name before), set in `pnpm-workspace.yaml` by pnpm itself.
fn allow_pnpm_build(root: &Path, package: &str, spec: &str) -> Result<(), SdkGenError> {
    let version = output(root, "pnpm", &["--version"])?;
    let version: Vec<u64> = version
        .trim()
        .split('.')
        .map(|p| p.parse().unwrap_or(0))
        .collect();
    let at_least = |want: [u64; 3]| version.as_slice() >= want.as_slice();
    let dep_path = format!("{package}@{spec}");
    let (setting, value) = if at_least([11, 0, 0]) {
        let current = output(root, "pnpm", &["config", "get", "allowBuilds", "--json"])?;
        let mut builds: Map<String, Value> =
            serde_json::from_str(current.trim()).unwrap_or_default();
        builds.insert(dep_path, Value::Bool(true));
        ("allowBuilds", Value::Object(builds))
    } else {
        let key = if at_least([10, 34, 2]) {
            dep_path
        } else {
            package.to_string()
        };
        let current = output(
            root,
            "pnpm",
            &["config", "get", "onlyBuiltDependencies", "--json"],
        )?;
        let mut deps: Vec<String> = serde_json::from_str(current.trim()).unwrap_or_default();
        if !deps.contains(&key) {
            deps.push(key);
        }
        ("onlyBuiltDependencies", Value::from(deps))
    };
    let value = value.to_string();
    output(
        root,
        "pnpm",
        &[
            "config",
            "set",
            setting,
            &value,
            "--location",
            "project",
            "--json",
        ],
    )
    .map(drop)
}

fn read_manifest(path: &Path) -> Result<Map<String, Value>, SdkGenError> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Map::new()),
        Err(source) => {
            return Err(SdkGenError::Io {
                path: path.to_path_buf(),
                source,
            });
        }
    };
    match serde_json::from_str(&text) {
        Ok(Value::Object(m)) => Ok(m),
        Ok(_) => Err(link_error(path, "package.json is not a JSON object".into())),
        Err(e) => Err(link_error(path, format!("package.json is not JSON: {e}"))),
    }
}

/// The object under `key`, made one if it is missing or not an object.
fn object_at<'m>(manifest: &'m mut Map<String, Value>, key: &str) -> &'m mut Map<String, Value> {
    let entry = manifest
        .entry(key)
        .or_insert_with(|| Value::Object(Map::new()));
    if !entry.is_object() {
        *entry = Value::Object(Map::new());
    }
    match entry {
        Value::Object(m) => m,
        _ => unreachable!("made an object above"),
    }
}

/// `dir` relative to `root` with `/` separators when it is inside it, else absolute.
fn relative_path(root: &Path, dir: &Path) -> String {
    let root = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
    let dir = dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
    match dir.strip_prefix(&root) {
        Ok(rel) => rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect::<Vec<_>>()
            .join("/"),
        Err(_) => dir.display().to_string(),
    }
}

/// Runs a package manager command in the project, its output the user's.
fn run(root: &Path, tool: &str, args: &[&str]) -> Result<(), SdkGenError> {
    let status = Command::new(tool)
        .args(args)
        .current_dir(root)
        .status()
        .map_err(|e| spawn_error(root, tool, &e))?;
    if !status.success() {
        return Err(link_error(
            root,
            format!("`{tool} {}` failed: {status}", args.join(" ")),
        ));
    }
    Ok(())
}

/// Runs a command in the project and answers its stdout.
fn output(root: &Path, tool: &str, args: &[&str]) -> Result<String, SdkGenError> {
    let out = Command::new(tool)
        .args(args)
        .current_dir(root)
        .output()
        .map_err(|e| spawn_error(root, tool, &e))?;
    if !out.status.success() {
        return Err(link_error(
            root,
            format!(
                "`{tool} {}` failed: {}: {}",
                args.join(" "),
                out.status,
                String::from_utf8_lossy(&out.stderr).trim()
            ),
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

fn spawn_error(root: &Path, tool: &str, e: &std::io::Error) -> SdkGenError {
    if e.kind() == std::io::ErrorKind::NotFound {
        link_error(
            root,
            format!(
                "{tool} is not on PATH: install it, or choose another runtime.options.packagemanager"
            ),
        )
    } else {
        link_error(root, format!("running {tool}: {e}"))
    }
}

fn link_error(project: &Path, message: String) -> SdkGenError {
    SdkGenError::Link {
        project: PathBuf::from(project),
        message,
    }
}
