//! What `import` imports: one resource from the command line or the resources of an import
//! file (Pulumi's `{"nameTable", "resources"}` shape), checked and resolved to URNs as Pulumi
//! resolves them: a resource's URN takes its logical name (its `name` when it has none), its
//! `parent` and `provider` are names from `nameTable` or (for parents) of the file.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use anyhow::{Context, Result, anyhow};
use serde::Deserialize;
use stepdeck::engine::Urn;
use stepdeck::engine::model::resource::is_provider_type;

use crate::cli::errors::usage;

/// Pulumi's import file.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct ImportFile {
    #[serde(default)]
    pub name_table: Option<BTreeMap<String, String>>,
    #[serde(default)]
    pub resources: Option<Vec<ImportSpec>>,
}

/// One resource of an import file (Pulumi's `importSpec`).
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct ImportSpec {
    #[serde(default, rename = "type")]
    pub type_: String,
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub id: Option<String>,
    #[serde(default)]
    pub parent: Option<String>,
    #[serde(default)]
    pub provider: Option<String>,
    #[serde(default)]
    pub version: Option<String>,
    #[serde(default, alias = "pluginDownloadURL")]
    pub plugin_download_url: Option<String>,
    #[serde(default)]
    pub properties: Option<Vec<String>>,
    #[serde(default)]
    pub component: bool,
    #[serde(default)]
    pub remote: bool,
    #[serde(default)]
    pub logical_name: Option<String>,
    #[serde(default)]
    pub inputs: Option<serde_json::Value>,
    #[serde(default)]
    pub outputs: Option<serde_json::Value>,
}

/// A resource to import, resolved: its URN, the names code refers to it and its parent and
/// provider by, and what the import registers.
#[derive(Debug, Clone)]
pub(in crate::cli) struct Entry {
    pub urn: Urn,
    pub type_: String,
    /// The URN's name (the logical name).
    pub name: String,
    /// The name generated code declares it under.
    pub variable: String,
    /// `None` for a component.
    pub id: Option<String>,
    pub parent: Option<Urn>,
    /// The explicit provider's URN.
    pub provider: Option<Urn>,
    pub version: Option<String>,
    /// The inputs to keep of those the read returns (none named: all of them).
    pub properties: Vec<String>,
}

/// The resolved import: the resources in an order where parents come first, and the names
/// of the URNs code refers to (`nameTable` and the file's own).
#[derive(Debug, Default)]
pub(in crate::cli) struct Resolved {
    pub entries: Vec<Entry>,
    pub names: HashMap<Urn, String>,
    /// What the file asks for that stepdeck does not do, said before the import runs.
    pub warnings: Vec<String>,
}

/// Reads an import file.
pub(super) fn read_file(path: &Path) -> Result<ImportFile> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("could not read import file: {}", path.display()))?;
    serde_json::from_str(&text).map_err(|e| {
        usage(format!(
            "could not read import file: {}: {e}",
            path.display()
        ))
    })
}

/// The import file of `import TYPE NAME ID [--parent NAME=URN] [--provider NAME=URN]`.
pub(super) fn single(
    args: &[String],
    parent: Option<&str>,
    provider: Option<&str>,
    properties: &[String],
) -> Result<ImportFile> {
    let missing =
        "an inline resource must be specified if no converter or import file is used, missing ";
    let (type_, name, id) = match args {
        [] => return Err(usage(format!("{missing}type, name, and id"))),
        [_] => return Err(usage(format!("{missing}name and id"))),
        [_, _] => return Err(usage(format!("{missing}id"))),
        [t, n, i] => (t, n, i),
        _ => return Err(usage("only expected at most three arguments")),
    };
    let mut table = BTreeMap::new();
    let mut spec = ImportSpec {
        type_: type_.clone(),
        name: name.clone(),
        id: Some(id.clone()),
        properties: (!properties.is_empty()).then(|| properties.to_vec()),
        ..ImportSpec::default()
    };
    if let Some(p) = parent {
        let (name, urn) = match name_and_urn(p) {
            Some(pair) => pair,
            None => {
                Urn::parse(p).map_err(|_| usage(format!("invalid parent URN: '{p}'")))?;
                ("parent".to_string(), p.to_string())
            }
        };
        table.insert(name.clone(), urn);
        spec.parent = Some(name);
    }
    if let Some(p) = provider {
        let (name, urn) =
            name_and_urn(p).unwrap_or_else(|| ("provider".to_string(), p.to_string()));
        if table.contains_key(&name) {
            return Err(usage(format!(
                "provider and parent must have distinct names, both were '{name}'"
            )));
        }
        table.insert(name.clone(), urn);
        spec.provider = Some(name);
    }
    Ok(ImportFile {
        name_table: Some(table),
        resources: Some(vec![spec]),
    })
}

/// `NAME=URN`, as `--parent` and `--provider` take it.
fn name_and_urn(spec: &str) -> Option<(String, String)> {
    let (name, urn) = spec.split_once('=')?;
    (!name.is_empty() && Urn::parse(urn).is_ok()).then(|| (name.to_string(), urn.to_string()))
}

/// How Pulumi describes a resource of the file in its errors.
fn describe(i: usize, spec: &ImportSpec) -> String {
    let mut s = match (&spec.name, &spec.id) {
        (n, _) if !n.is_empty() => format!("resource '{n}'"),
        (_, Some(id)) if !id.is_empty() => format!("resource '{id}'"),
        _ => format!("resource {i}"),
    };
    if !spec.type_.is_empty() {
        s.push_str(&format!(" of type '{}'", spec.type_));
    }
    s
}

/// Checks the file and resolves every resource's URN; every problem is reported at once.
pub(super) fn resolve(file: ImportFile, stack: &str, project: &str) -> Result<Resolved> {
    let table = file.name_table.unwrap_or_default();
    let mut specs = file.resources.unwrap_or_default();
    let mut errors = Vec::new();
    let mut warnings = Vec::new();
    for s in &mut specs {
        let logical = s.logical_name.clone().filter(|l| !l.is_empty());
        if s.name.is_empty()
            && let Some(l) = &logical
        {
            s.name = l.clone();
        }
        s.logical_name = Some(logical.unwrap_or_else(|| s.name.clone()));
        s.id = s.id.take().filter(|id| !id.is_empty());
    }
    for (i, s) in specs.iter().enumerate() {
        let d = describe(i, s);
        if s.type_.is_empty() {
            errors.push(format!("{d} has no type"));
        }
        if s.name.is_empty() {
            errors.push(format!("{d} has no name"));
        }
        if is_provider_type(&s.type_) {
            errors.push(format!(
                "{d} is a provider: declaring providers in an import file is not supported; import into a stack that has the provider and name it in 'nameTable'"
            ));
        } else if !s.component && s.id.is_none() {
            errors.push(format!("{d} has no ID"));
        } else if s.component && s.id.is_some() {
            errors.push(format!("{d} has an ID, but is marked as a component"));
        }
        if s.remote && !s.component {
            errors.push(format!("{d} is marked as remote, but not as a component"));
        } else if s.remote {
            errors.push(format!(
                "{d} is a remote component, which stepdeck cannot import"
            ));
        }
        if s.plugin_download_url
            .as_ref()
            .is_some_and(|u| !u.is_empty())
        {
            warnings.push(format!(
                "{d}: 'pluginDownloadUrl' is not used: plugins are not downloaded (install them with `plugin install --file`)"
            ));
        }
        if s.inputs.is_some() {
            warnings.push(format!(
                "{d}: 'inputs' are not used: the inputs are those the provider's read returns"
            ));
        }
        if s.outputs.is_some() {
            errors.push(format!(
                "{d} supplies outputs: importing from given outputs is not supported"
            ));
        }
    }
    let mut table_urns = BTreeMap::new();
    for (name, urn) in &table {
        match Urn::parse(urn) {
            Ok(u) => {
                table_urns.insert(name.clone(), u);
            }
            Err(_) => errors.push(format!("nameTable entry '{name}' is not a URN: '{urn}'")),
        }
    }
    if !errors.is_empty() {
        return Err(usage(errors.join("\n")));
    }
    let ambiguous = |name: &str| specs.iter().filter(|s| s.name == name).count() > 1;
    let mut names: HashMap<Urn, String> = table_urns
        .iter()
        .map(|(n, u)| (u.clone(), n.clone()))
        .collect();
    let mut own: HashMap<String, Urn> = HashMap::new();
    let mut taken: HashMap<Urn, ()> = names.keys().map(|u| (u.clone(), ())).collect();
    let mut done = vec![false; specs.len()];
    let mut entries = Vec::new();
    while done.iter().any(|d| !d) {
        let mut progressed = false;
        for (i, s) in specs.iter().enumerate() {
            if done[i] {
                continue;
            }
            let d = describe(i, s);
            let parent = match s.parent.as_deref().filter(|p| !p.is_empty()) {
                None => None,
                Some(p) if ambiguous(p) => {
                    errors.push(format!("{d} has an ambiguous parent"));
                    None
                }
                Some(p) => match (table_urns.get(p), own.get(p)) {
                    (Some(u), _) | (None, Some(u)) => Some(u.clone()),
                    (None, None) if specs.iter().any(|o| o.name == p) => continue,
                    (None, None) => {
                        errors.push(format!(
                            "the parent '{p}' for {d} has no entry in 'nameTable'"
                        ));
                        None
                    }
                },
            };
            let provider = match s.provider.as_deref().filter(|p| !p.is_empty()) {
                None => None,
                Some(p) => match table_urns.get(p) {
                    Some(u) if is_provider_type(u.type_()) => Some(u.clone()),
                    Some(u) => {
                        errors.push(format!("the provider '{p}' for {d} is not a provider: {u}"));
                        None
                    }
                    None => {
                        errors.push(format!(
                            "the provider '{p}' for {d} has no entry in 'nameTable'"
                        ));
                        None
                    }
                },
            };
            let logical = s.logical_name.clone().unwrap_or_default();
            let urn = Urn::new(stack, project, parent.as_ref(), &s.type_, &logical);
            if taken.insert(urn.clone(), ()).is_some() {
                errors.push(format!(
                    "{d} has an ambiguous URN, set name (or logical name) to be unique"
                ));
            }
            own.insert(s.name.clone(), urn.clone());
            let variable = unique_variable(&s.name, &s.type_, &names);
            names.insert(urn.clone(), variable.clone());
            entries.push(Entry {
                urn,
                type_: s.type_.clone(),
                name: logical,
                variable,
                id: s.id.clone(),
                parent,
                provider,
                version: s.version.clone().filter(|v| !v.is_empty()),
                properties: s.properties.clone().unwrap_or_default(),
            });
            done[i] = true;
            progressed = true;
        }
        if !progressed {
            // Only parents on a cycle are left unresolved.
            errors.push("the resources' parents form a cycle".to_string());
            break;
        }
    }
    if !errors.is_empty() {
        return Err(usage(errors.join("\n")));
    }
    if entries.is_empty() {
        return Err(anyhow!("no resources to import"));
    }
    Ok(Resolved {
        entries,
        names,
        warnings,
    })
}

/// The name code declares a resource under: its own, or when that is taken already its name
/// with its type's name (`bucketBucket`, then `bucketBucket2`), as Pulumi names them.
fn unique_variable(name: &str, type_: &str, names: &HashMap<Urn, String>) -> String {
    let taken = |n: &str| names.values().any(|v| v == n);
    if !taken(name) {
        return name.to_string();
    }
    let short = type_.rsplit(':').next().unwrap_or(type_);
    let mut chars = short.chars();
    let titled: String = chars
        .next()
        .map(|c| c.to_uppercase().chain(chars).collect())
        .unwrap_or_default();
    let base = format!("{name}{titled}");
    let mut candidate = base.clone();
    let mut n = 2;
    while taken(&candidate) {
        candidate = format!("{base}{n}");
        n += 1;
    }
    candidate
}
