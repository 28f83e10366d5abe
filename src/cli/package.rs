//! `package get-schema|add|gen-sdk`: a provider's schema, read from a schema file or asked of
//! the plugin (parameterized with the arguments after the source), and the SDK generated from
//! it for the project's language, linked into the project and recorded in its `packages:`, as
//! Pulumi's `packagecmd` does; a YAML project gets pulumi-yaml's package declaration file.

mod install_packages;
mod plugin_dependencies;
mod source;
pub(super) mod target;
mod yaml_lock;

use std::path::{Component, Path, PathBuf};

use anyhow::{Result, anyhow};
use serde_json::Value;
use stepdeck::project::Runtime;
use stepdeck::project::packages::record_package;
use stepdeck::sdkgen::{self, SdkLanguage, SdkOptions};

use super::args::{PackageCommand, PackageSource};
use super::errors::usage;
use super::stdout::outln;
use source::{FetchedSchema, fetch_schema};

pub(super) use install_packages::install_packages;

pub(super) async fn run(wd: &Path, command: PackageCommand) -> Result<()> {
    match command {
        PackageCommand::GetSchema(PackageSource { source, args }) => {
            let fetched = fetch_schema(wd, &source, &args).await?;
            let text = serde_json::to_string_pretty(&fetched.schema)?;
            outln!("{text}")?;
            Ok(())
        }
        PackageCommand::Add { source, language } => add(wd, source, language).await,
        PackageCommand::GenSdk {
            source,
            language,
            out,
            local,
            version,
        } => {
            let mut fetched = fetch_schema(wd, &source.source, &source.args).await?;
            if let Some(version) = version {
                if let Some(old) = fetched.schema.get("version").and_then(Value::as_str) {
                    eprintln!("overriding package version {old} with {version}");
                }
                fetched.schema["version"] = Value::String(version);
            }
            let languages = match language.as_str() {
                "all" => vec![SdkLanguage::Nodejs, SdkLanguage::Python],
                one => vec![language_named(one)?],
            };
            // Shown as given, without `./` (Go's `filepath.Join` cleans it away).
            let shown: PathBuf = out
                .components()
                .filter(|c| *c != Component::CurDir)
                .collect();
            for &lang in &languages {
                sdkgen::generate(
                    &fetched.schema,
                    lang,
                    &wd.join(&shown).join(lang.name()),
                    &SdkOptions { local },
                )?;
            }
            match languages.as_slice() {
                [one] => eprintln!(
                    "SDK has been written to {}",
                    shown.join(one.name()).display()
                ),
                _ => eprintln!("SDKs have been written to {}", shown.display()),
            }
            Ok(())
        }
    }
}

/// `package add`: into the enclosing project or plugin, or (`--language`) outside one.
async fn add(wd: &Path, source: PackageSource, language: Option<String>) -> Result<()> {
    let enclosing = target::enclosing(wd)?;
    let (root, runtime, file) = match (enclosing, language) {
        (Some(t), Some(_)) => {
            return Err(usage(format!(
                "--language is for use outside a Pulumi project or plugin, but {} was found; remove the flag, or run from a directory outside the project",
                t.file.display()
            )));
        }
        (None, None) => {
            return Err(usage(
                "no project file found and no plugin file found; pass --language LANG to run outside a Pulumi project or plugin",
            ));
        }
        (Some(t), None) => (t.root, t.runtime, Some(t.file)),
        (None, Some(language)) => {
            let runtime = Runtime {
                name: language_named(&language)?.name().to_string(),
                options: Default::default(),
            };
            (wd.to_path_buf(), runtime, None)
        }
    };
    let fetched = fetch_schema(wd, &source.source, &source.args).await?;
    install_sdk(&root, &runtime, &fetched)?;
    if let (Some(mut spec), Some(file)) = (fetched.spec.clone(), file) {
        if spec.is_local() && wd != root {
            let canonical = |p: &Path| p.canonicalize().unwrap_or_else(|_| p.to_path_buf());
            spec.source = source::relative(&canonical(&root), &canonical(&wd.join(&spec.source)))
                .display()
                .to_string();
        }
        record_package(&file, fetched.name()?, &spec).map_err(|e| usage(e.to_string()))?;
    }
    eprintln!("Added package {}", fetched.display_name());
    Ok(())
}

/// Generates the package's SDK into `<root>/sdks/`, links it into the project and prints how
/// to import it; a YAML project gets the package's declaration file there instead.
fn install_sdk(root: &Path, runtime: &Runtime, fetched: &FetchedSchema) -> Result<()> {
    let name = fetched.name()?;
    let sdks = root.join("sdks");
    let out = sdks.join(fetched.sdk_dir_name()?);
    let Some(language) = SdkLanguage::of_runtime(&runtime.name) else {
        if runtime.name == "yaml" {
            yaml_lock::write_package_decl(&fetched.schema, &out)?;
            outln!(
                "Successfully generated an SDK for the {name} package at {}",
                sdks.display()
            )?;
            return Ok(());
        }
        return Err(usage(format!(
            "cannot generate an SDK for the `{}` runtime: stepdeck generates Node.js and Python SDKs",
            runtime.name
        )));
    };
    let sdk = sdkgen::generate(&fetched.schema, language, &out, &SdkOptions { local: true })
        .map_err(|e| anyhow!("failed to generate SDK: {e}"))?;
    outln!(
        "Successfully generated an SDK for the {name} package at {}",
        sdks.display()
    )?;
    sdkgen::link(root, runtime, &sdk).map_err(|e| anyhow!("linking package: {e}"))?;
    outln!("{}", sdkgen::usage(&sdk, name, root, runtime))?;
    Ok(())
}

/// `--language`'s value as Pulumi normalizes it (`typescript` and `javascript` are `nodejs`).
fn language_named(language: &str) -> Result<SdkLanguage> {
    match language {
        "nodejs" | "typescript" | "javascript" => Ok(SdkLanguage::Nodejs),
        "python" => Ok(SdkLanguage::Python),
        other => Err(usage(format!(
            "cannot generate an SDK for {other}: stepdeck generates nodejs and python SDKs"
        ))),
    }
}
