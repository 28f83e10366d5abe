//! A package source resolved and asked for its schema, as Pulumi's `SchemaFromSchemaSource`
//! does: a schema file is read; a YAML component package is read from its files; a plugin
//! directory (`PulumiPlugin.yaml`, or holding `pulumi-resource-<dir>`), a plugin executable or
//! an installed plugin (`NAME[@VERSION]`) is started (a Node.js source directory's
//! dependencies installed first when missing), parameterized with the arguments when there are
//! any, and asked `GetSchema`. What the plugin prints goes to stderr.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, Result, anyhow};
use serde_json::Value;
use stepdeck::engine::EngineEvent;
use stepdeck::engine::EventSink;
use stepdeck::located_yaml::parse_document;
use stepdeck::project::LocalPlugin;
use stepdeck::project::packages::{PackageSpec, is_local_source, split_version};
use stepdeck::rpc::monitor::engine_service::serve_engine;
use stepdeck::rpc::plugin::plugin_paths::PluginPath;
use stepdeck::rpc::plugin::provider_client::{PluginProvider, SharedEngine};
use stepdeck::rpc::plugin::{PluginContext, resolve};
use stepdeck::rpc::program::language_host::python_interpreter;
use stepdeck::yaml::component_schema::component_package_schema;
use tokio::sync::OnceCell;

use super::plugin_dependencies::install_plugin_dependencies;
use crate::cli::errors::usage;

/// How long the plugin's last output may take to be printed once it is done with.
const DRAIN: Duration = Duration::from_secs(5);

/// A schema and where it came from.
pub(super) struct FetchedSchema {
    pub schema: Value,
    /// What `package add` records in `packages:`; `None` for a schema file, which has no
    /// provider behind it.
    pub spec: Option<PackageSpec>,
}

impl FetchedSchema {
    /// The package's name (`name` of the schema).
    pub(super) fn name(&self) -> Result<&str> {
        self.schema
            .get("name")
            .and_then(Value::as_str)
            .filter(|n| !n.is_empty())
            .ok_or_else(|| anyhow!("the package's schema has no `name`"))
    }

    /// Pulumi's display name: `displayName` or `name`, after `namespace/`.
    pub(super) fn display_name(&self) -> String {
        let field = |k: &str| self.schema.get(k).and_then(Value::as_str).unwrap_or("");
        let name = match field("displayName") {
            "" => field("name"),
            d => d,
        };
        match field("namespace") {
            "" => name.to_string(),
            ns => format!("{ns}/{name}"),
        }
    }

    /// The SDK directory's name under `sdks/`: `<namespace>-<name>`, or the name.
    pub(super) fn sdk_dir_name(&self) -> Result<String> {
        let name = self.name()?;
        Ok(match self.schema.get("namespace").and_then(Value::as_str) {
            Some(ns) if !ns.is_empty() => format!("{ns}-{name}"),
            _ => name.to_string(),
        })
    }
}

/// Reads or asks for the schema of `source` (relative to `wd`), parameterized by `args`.
pub(super) async fn fetch_schema(
    wd: &Path,
    source: &str,
    args: &[String],
) -> Result<FetchedSchema> {
    if let Some(kind) = schema_file_kind(source) {
        if !args.is_empty() {
            return Err(usage(format!(
                "parameterization arguments are not supported for {kind} files"
            )));
        }
        let path = wd.join(source);
        let text = std::fs::read_to_string(&path)
            .with_context(|| format!("reading {}", path.display()))?;
        let schema = if kind == "json" {
            serde_json::from_str(&text)
                .map_err(|e| usage(format!("{}: not a JSON schema: {e}", path.display())))?
        } else {
            parse_document(&path.display().to_string(), &text)
                .map_err(|e| usage(e.to_string()))?
                .to_json()
        };
        return Ok(FetchedSchema { schema, spec: None });
    }
    // A bare name is a plugin's even where a directory of that name exists, as in Pulumi.
    let local = is_local_source(source) || (source.contains('/') && wd.join(source).exists());
    let (name, version, plugin_path) = if local {
        // `../provider@0.0.0`: the version is split off a path too, as Pulumi splits it.
        let source = match split_version(source) {
            (path, Some(_)) if !wd.join(source).exists() => path,
            _ => source,
        };
        let path = match source.strip_prefix("~/") {
            Some(rest) => std::env::home_dir().unwrap_or_default().join(rest),
            None => wd.join(source),
        };
        if !path.exists() {
            return Err(usage(format!(
                "unable to install {source}: {} does not exist",
                path.display()
            )));
        }
        let name = plugin_name(&path);
        let runtime = LocalPlugin {
            name: name.clone(),
            path: path.clone(),
            version: None,
        }
        .source_runtime()
        .map_err(|e| usage(e.to_string()))?;
        if let Some(runtime) = &runtime {
            install_plugin_dependencies(&path, runtime)?;
        }
        if runtime.as_ref().is_some_and(|r| r.name == "yaml") {
            let schema = component_package_schema(&path).map_err(|e| usage(e.to_string()))?;
            let spec = PackageSpec {
                source: source.to_string(),
                ..PackageSpec::default()
            };
            return Ok(FetchedSchema {
                schema,
                spec: Some(spec),
            });
        }
        let plugin = PluginPath {
            package: name.clone(),
            path,
            version: None,
            runtime: runtime.map(|r| (r.name, r.options.into_iter().collect())),
        };
        (name, None, Some(plugin))
    } else {
        match source.split_once('@') {
            Some((name, version)) => (name.to_string(), Some(version.to_string()), None),
            None => (source.to_string(), None, None),
        }
    };
    let (events, printed) = stderr_sink();
    let result = ask_plugin(
        wd,
        &name,
        version.as_deref(),
        plugin_path.clone(),
        args,
        events,
    )
    .await;
    // The plugin's own words (why it would not start, say) are printed before ours.
    let _ = tokio::time::timeout(DRAIN, printed).await;
    let schema = result?;
    let spec = plugin_spec(source, &name, version, plugin_path.as_ref(), &schema);
    Ok(FetchedSchema {
        schema,
        spec: Some(PackageSpec {
            parameters: args.to_vec(),
            ..spec
        }),
    })
}

/// What Pulumi records for a plugin: a directory's path as given; an executable's (or an
/// installed plugin's) name and version, those of the base plugin when parameterized.
fn plugin_spec(
    source: &str,
    name: &str,
    version: Option<String>,
    plugin_path: Option<&PluginPath>,
    schema: &Value,
) -> PackageSpec {
    if plugin_path.is_some_and(|p| p.path.is_dir()) {
        return PackageSpec {
            source: source.to_string(),
            ..PackageSpec::default()
        };
    }
    let field = |v: &Value, k: &str| v.get(k).and_then(Value::as_str).map(str::to_string);
    if let Some(base) = schema
        .get("parameterization")
        .and_then(|p| p.get("baseProvider"))
    {
        return PackageSpec {
            source: field(base, "name").unwrap_or_else(|| name.to_string()),
            version: field(base, "version"),
            parameters: Vec::new(),
        };
    }
    if plugin_path.is_some() {
        return PackageSpec {
            source: field(schema, "name").unwrap_or_else(|| name.to_string()),
            version: field(schema, "version"),
            parameters: Vec::new(),
        };
    }
    PackageSpec {
        source: name.to_string(),
        version,
        parameters: Vec::new(),
    }
}

/// `json` or `yaml` for a schema file's name.
fn schema_file_kind(source: &str) -> Option<&'static str> {
    match Path::new(source).extension().and_then(|e| e.to_str()) {
        Some("json") => Some("json"),
        Some("yaml" | "yml") => Some("yaml"),
        _ => None,
    }
}

/// The package a plugin at a path serves, as far as the path tells: an executable's name
/// without `pulumi-resource-`, a directory's name.
fn plugin_name(path: &Path) -> String {
    let canonical = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
    let base = canonical
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    base.strip_prefix("pulumi-resource-")
        .map(str::to_string)
        .unwrap_or(base)
}

/// Starts the plugin, parameterizes it when there are arguments, and asks for the schema.
async fn ask_plugin(
    wd: &Path,
    name: &str,
    version: Option<&str>,
    plugin_path: Option<PluginPath>,
    args: &[String],
    events: EventSink,
) -> Result<Value> {
    let mut ctx = PluginContext::new(wd, "", python_interpreter(wd, None), events);
    ctx.local = plugin_path.into_iter().collect();
    let cmd = resolve(name, version, &ctx).map_err(|e| anyhow!("unable to install {name}: {e}"))?;
    // The plugins' engine logs nowhere: its sink would outlive the plugin, and the drain of
    // what the plugin printed would wait for it.
    let engine = serve_engine(EventSink::none())
        .await
        .context("serving the engine for the plugin")?;
    let engine: SharedEngine = Arc::new(OnceCell::new_with(Some((engine.0.to_string(), engine.1))));
    let provider = PluginProvider::launch(name, cmd, Arc::new(ctx), engine);
    let subpackage = if args.is_empty() {
        None
    } else {
        let (package, version) = provider
            .parameterize_with_args(args.to_vec())
            .await
            .map_err(|e| anyhow!("parameterize: {e}"))?;
        Some((package, version))
    };
    let expected = subpackage.as_ref().map(|(n, _)| n.clone());
    let schema = provider
        .package_schema(subpackage)
        .await
        .map_err(|e| anyhow!("{e}"))?;
    if let Some(expected) = expected {
        let got = schema.get("name").and_then(Value::as_str).unwrap_or("");
        if got != expected {
            return Err(anyhow!(
                "provider returned schema parameterized as {got:?} but parameterize identified the package as {expected:?}; the provider must emit a schema whose parameterization name matches its parameterize response"
            ));
        }
    }
    Ok(schema)
}

/// A sink whose diagnostics (a plugin's output lines) are printed to stderr, and a future that
/// ends once every sender is gone and all is printed.
fn stderr_sink() -> (EventSink, impl Future<Output = ()>) {
    let (events, mut rx) = EventSink::channel();
    let printed = tokio::spawn(async move {
        while let Some(event) = rx.recv().await {
            if let EngineEvent::Diagnostic { message, .. } = event {
                eprintln!("{message}");
            }
        }
    });
    (events, async move {
        let _ = printed.await;
    })
}

/// `to` relative to `from`, for messages (`.` when they are the same).
pub(super) fn relative(from: &Path, to: &Path) -> PathBuf {
    let from: Vec<_> = from.components().collect();
    let to_parts: Vec<_> = to.components().collect();
    let common = from
        .iter()
        .zip(&to_parts)
        .take_while(|(a, b)| a == b)
        .count();
    if common == 0 {
        return to.to_path_buf();
    }
    if common == from.len() && common == to_parts.len() {
        return PathBuf::from(".");
    }
    let mut out = PathBuf::new();
    for _ in common..from.len() {
        out.push("..");
    }
    for part in &to_parts[common..] {
        out.push(part);
    }
    out
}
