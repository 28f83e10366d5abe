//! SDKs generated from a package schema, as `pulumi package add` and `pulumi package gen-sdk`
//! make them: a program imports a component provider's or a parameterized package's resources
//! through a TypeScript or Python package written here, then linked into the project.

pub mod nodejs;
pub mod python;

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::project::runtime::Runtime;

/// The languages an SDK is generated for (Pulumi's `--language`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SdkLanguage {
    Nodejs,
    Python,
}

impl SdkLanguage {
    /// The language a project's runtime writes its programs in (`None`: YAML needs no SDK).
    pub fn of_runtime(runtime: &str) -> Option<SdkLanguage> {
        match runtime {
            "nodejs" => Some(SdkLanguage::Nodejs),
            "python" => Some(SdkLanguage::Python),
            _ => None,
        }
    }

    /// The name Pulumi's `--language` takes and `sdk/<language>` directories carry.
    pub fn name(self) -> &'static str {
        match self {
            SdkLanguage::Nodejs => "nodejs",
            SdkLanguage::Python => "python",
        }
    }
}

/// How the SDK is meant to be used.
#[derive(Clone, Debug, Default)]
pub struct SdkOptions {
    /// Linked into a project from its directory (`package add`, `gen-sdk --local`), not
    /// published: Pulumi then compiles a Node SDK on install and leaves versions out.
    pub local: bool,
}

/// An SDK written to disk: where, and the names its language's tooling knows it by.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GeneratedSdk {
    pub language: SdkLanguage,
    pub dir: PathBuf,
    /// The distribution's name: `@pulumi/random`, `pulumi_random`'s `pulumi-random`.
    pub package: String,
    /// What a program imports: `@pulumi/random`, `pulumi_random`.
    pub import: String,
}

/// A schema an SDK cannot be written from, or a file that could not be written or linked.
#[derive(Debug, thiserror::Error)]
pub enum SdkGenError {
    #[error("schema: {field}: {message}")]
    Schema { field: String, message: String },
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("linking the SDK into {}: {message}", project.display())]
    Link { project: PathBuf, message: String },
}

/// Writes the SDK of `schema` for `language` into `out` (created, its old content replaced).
pub fn generate(
    schema: &Value,
    language: SdkLanguage,
    out: &Path,
    options: &SdkOptions,
) -> Result<GeneratedSdk, SdkGenError> {
    match language {
        SdkLanguage::Nodejs => nodejs::generate(schema, out, options),
        SdkLanguage::Python => python::generate(schema, out, options),
    }
}

/// Makes the project at `root` depend on `sdk` and installs it, with the package manager or
/// toolchain its runtime options name.
pub fn link(root: &Path, runtime: &Runtime, sdk: &GeneratedSdk) -> Result<(), SdkGenError> {
    match sdk.language {
        SdkLanguage::Nodejs => nodejs::link(root, runtime, sdk),
        SdkLanguage::Python => python::link(root, runtime, sdk),
    }
}

/// What `package add` prints after linking: how the program at `root` imports the SDK.
pub fn usage(sdk: &GeneratedSdk, schema_name: &str, root: &Path, runtime: &Runtime) -> String {
    match sdk.language {
        SdkLanguage::Nodejs => nodejs::usage(sdk, schema_name, root, runtime),
        SdkLanguage::Python => python::usage(sdk, schema_name),
    }
}

/// The schema's `name`, which every generated SDK is named after; a schema without one is
/// refused.
fn package_name(schema: &Value) -> Result<String, SdkGenError> {
    schema
        .get("name")
        .and_then(Value::as_str)
        .filter(|n| !n.is_empty())
        .map(str::to_string)
        .ok_or_else(|| SdkGenError::Schema {
            field: "name".into(),
            message: "a package schema needs a name".into(),
        })
}

/// Replaces `out` with `files` (paths relative to it), as each language's generator leaves
/// an SDK: nothing of an older generation stays behind.
fn write_tree<P: AsRef<Path>>(
    out: &Path,
    files: impl IntoIterator<Item = (P, String)>,
) -> Result<(), SdkGenError> {
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| SdkGenError::Io { path, source }
    };
    if out.exists() {
        std::fs::remove_dir_all(out).map_err(io(out))?;
    }
    for (rel, text) in files {
        let path = out.join(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(io(parent))?;
        }
        std::fs::write(&path, text).map_err(io(&path))?;
    }
    Ok(())
}
