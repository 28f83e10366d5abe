//! Pulumi's `credentials.json`, the part a self-managed backend uses: `current` is the backend
//! `login` chose, read below the flag, the environment and the project's `backend.url`; the
//! file is shared with Pulumi, so other keys and other backends' entries are kept as they are.

use std::fs;
use std::io::Write;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::PathBuf;

use anyhow::{Context, Result, anyhow};
use serde_json::{Map, Value, json};
use stepdeck::file_limits::{self, SMALL_FILE};

/// Where Pulumi keeps it: `$PULUMI_CREDENTIALS_PATH`, else `$PULUMI_HOME`, else `~/.pulumi`.
pub(super) fn path() -> Result<PathBuf> {
    let var = |name| std::env::var_os(name).filter(|v| !v.is_empty());
    let dir = var("PULUMI_CREDENTIALS_PATH")
        .or_else(|| var("PULUMI_HOME"))
        .map(PathBuf::from)
        .or_else(|| var("HOME").map(|h| PathBuf::from(h).join(".pulumi")))
        .ok_or_else(|| anyhow!("cannot find Pulumi's credentials: HOME is not set"))?;
    Ok(dir.join("credentials.json"))
}

/// The file's JSON object; a missing or empty file reads as an empty one.
fn read() -> Result<(PathBuf, Map<String, Value>)> {
    let path = path()?;
    let text = match file_limits::read_to_string(&path, SMALL_FILE) {
        Ok(text) => text,
        Err(e) if e.is_not_found() => String::new(),
        Err(e) => return Err(e.into()),
    };
    if text.trim().is_empty() {
        return Ok((path, Map::new()));
    }
    let doc: Map<String, Value> = serde_json::from_str(&text)
        .with_context(|| format!("{}: not Pulumi's credentials", path.display()))?;
    if doc.contains_key("$pulumiSecureStore") {
        return Err(anyhow!(
            "{}: encrypted by Pulumi's OS credential store, which stepdeck cannot read; pass \
             --backend URL or set PULUMI_BACKEND_URL",
            path.display()
        ));
    }
    Ok((path, doc))
}

/// The backend `login` made current, if any, and the file that says so.
pub(super) fn current() -> Result<Option<(String, PathBuf)>> {
    let (path, doc) = read()?;
    Ok(match doc.get("current") {
        Some(Value::String(url)) if !url.is_empty() => Some((url.clone(), path)),
        _ => None,
    })
}

/// Makes `url` current, recording it as a logged-in self-managed backend (no token).
pub(super) fn login(url: &str) -> Result<()> {
    let (path, mut doc) = read()?;
    doc.insert("current".into(), json!(url));
    with_entry(&mut doc, "accessTokens", |m| {
        m.entry(url).or_insert(json!(""));
    });
    with_entry(&mut doc, "accounts", |m| {
        m.entry(url)
            .or_insert(json!({"lastValidatedAt": "0001-01-01T00:00:00Z"}));
    });
    write(&path, &doc)
}

/// Forgets `url` (and no longer makes it current); the file goes when no backend is left.
pub(super) fn logout(url: &str) -> Result<()> {
    let (path, mut doc) = read()?;
    if doc.get("current").and_then(Value::as_str) == Some(url) {
        doc.remove("current");
    }
    with_entry(&mut doc, "accounts", |m| m.remove(url));
    let left = with_entry(&mut doc, "accessTokens", |m| {
        m.remove(url);
        m.len()
    });
    if left == 0 {
        return remove(&path);
    }
    write(&path, &doc)
}

/// Forgets every backend: the file goes.
pub(super) fn forget_all() -> Result<()> {
    remove(&path()?)
}

fn remove(path: &std::path::Path) -> Result<()> {
    match fs::remove_file(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
            Err(e).with_context(|| format!("removing {}", path.display()))
        }
        _ => Ok(()),
    }
}

/// Runs `f` on the object under `key` (an empty one when it is missing or not an object).
fn with_entry<R>(
    doc: &mut Map<String, Value>,
    key: &str,
    f: impl FnOnce(&mut Map<String, Value>) -> R,
) -> R {
    let mut map = match doc.remove(key) {
        Some(Value::Object(map)) => map,
        _ => Map::new(),
    };
    let result = f(&mut map);
    doc.insert(key.into(), Value::Object(map));
    result
}

/// Writes as Pulumi does (4-space indent, mode 0600, its directory 0700), through a temporary
/// file renamed over the old one, so a reader never sees half a file.
fn write(path: &std::path::Path, doc: &Map<String, Value>) -> Result<()> {
    let dir = path
        .parent()
        .ok_or_else(|| anyhow!("{}: no directory", path.display()))?;
    fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
        .with_context(|| format!("creating {}", dir.display()))?;
    let mut text = Vec::new();
    let formatter = serde_json::ser::PrettyFormatter::with_indent(b"    ");
    let mut ser = serde_json::Serializer::with_formatter(&mut text, formatter);
    serde::Serialize::serialize(doc, &mut ser)?;
    let temp = path.with_extension(format!("json.{}.tmp", std::process::id()));
    let mut file = fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(&temp)
        .with_context(|| format!("writing {}", temp.display()))?;
    file.write_all(&text)
        .and_then(|()| file.sync_all())
        .with_context(|| format!("writing {}", temp.display()))?;
    fs::rename(&temp, path).with_context(|| format!("writing {}", path.display()))
}
