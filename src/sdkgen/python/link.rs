//! Linking a generated SDK into a Python project as Pulumi's Python language host does: pip
//! projects list its path in `requirements.txt` (once), uv and poetry projects name it as a
//! path source in `pyproject.toml`; then the project's virtualenv gets it on its path.

use std::path::{Path, PathBuf};

use crate::project::runtime::Runtime;
use crate::sdkgen::{GeneratedSdk, SdkGenError};

/// Makes the project at `root` depend on `sdk` and installs it in the project's virtualenv.
pub fn link(root: &Path, runtime: &Runtime, sdk: &GeneratedSdk) -> Result<(), SdkGenError> {
    let fail = |message: String| SdkGenError::Link {
        project: root.to_path_buf(),
        message,
    };
    let option = |key: &str| runtime.options.get(key).and_then(|v| v.as_str());
    let toolchain = option("toolchain").unwrap_or("pip");
    let sdk_path = relative_path(root, &sdk.dir);
    let pyproject = root.join("pyproject.toml");
    let requirements = root.join("requirements.txt");
    // Like Pulumi: a uv or poetry project not yet installed still lists its requirements in
    // requirements.txt, and the SDK goes there.
    let use_requirements = toolchain == "pip" || !pyproject.exists();
    if use_requirements {
        let text = read(&requirements).map_err(|e| {
            fail(format!(
                "no requirements.txt to add the SDK to ({e}); create one with `pulumi` in it"
            ))
        })?;
        write(&requirements, &add_requirement(&text, sdk, &sdk_path))?;
    } else {
        let text = read(&pyproject).map_err(|e| fail(format!("reading pyproject.toml: {e}")))?;
        let table = match toolchain {
            "uv" => "tool.uv.sources",
            "poetry" => "tool.poetry.dependencies",
            other => {
                return Err(fail(format!(
                    "runtime.options.toolchain: unknown toolchain `{other}` (pip, uv or poetry)"
                )));
            }
        };
        let mut text = upsert_table_entry(
            &text,
            table,
            &sdk.package,
            &format!("{{ path = \"{sdk_path}\" }}"),
        );
        if toolchain == "uv" {
            text = add_project_dependency(&text, &sdk.package);
        }
        write(&pyproject, &text)?;
    }
    let virtualenv = match (option("virtualenv"), toolchain) {
        (Some(v), _) => Some(root.join(v)),
        (None, "uv") => Some(root.join(".venv")),
        (None, _) => ["venv", ".venv"]
            .iter()
            .map(|v| root.join(v))
            .find(|v| v.join("bin").join("python").exists()),
    };
    if let Some(venv) = virtualenv {
        install(root, &venv, sdk)?;
    }
    Ok(())
}

/// What `package add` prints: how the program imports the SDK.
pub fn usage(sdk: &GeneratedSdk, schema_name: &str) -> String {
    format!(
        "You can import the SDK in your Python code with:\n\n  import {} as {}\n",
        sdk.import,
        schema_name.replace('-', "_")
    )
}

/// Puts the SDK on the virtualenv's path (as an editable install does, with a `.pth` file in
/// its site-packages), so the program imports the generated files themselves. A virtualenv
/// outside the project, or not created yet, is left alone: `pulumi install` installs the
/// requirements there.
fn install(root: &Path, venv: &Path, sdk: &GeneratedSdk) -> Result<(), SdkGenError> {
    let (Ok(venv), Ok(root)) = (venv.canonicalize(), root.canonicalize()) else {
        return Ok(());
    };
    if !venv.starts_with(&root) {
        return Ok(());
    }
    let lib = venv.join("lib");
    let Ok(entries) = std::fs::read_dir(&lib) else {
        return Ok(());
    };
    let sdk_dir = sdk.dir.canonicalize().map_err(|source| SdkGenError::Io {
        path: sdk.dir.clone(),
        source,
    })?;
    for entry in entries.flatten() {
        let site = entry.path().join("site-packages");
        if entry.file_name().to_string_lossy().starts_with("python") && site.is_dir() {
            let pth = site.join(format!("{}.pth", sdk.import));
            write(&pth, &format!("{}\n", sdk_dir.display()))?;
        }
    }
    Ok(())
}

/// `requirements.txt` with the SDK's path added once: a line naming the package or its path
/// is replaced, and the file's line endings kept.
fn add_requirement(text: &str, sdk: &GeneratedSdk, sdk_path: &str) -> String {
    let ending = if text.contains("\r\n") { "\r\n" } else { "\n" };
    let normalized = |s: &str| s.replace('-', "_").to_lowercase();
    let names = [normalized(&sdk.package), normalized(&sdk.import)];
    let mut lines: Vec<&str> = text.lines().collect();
    let trailing = text.ends_with('\n') || text.is_empty();
    lines.retain(|line| {
        let trimmed = line.trim();
        if trimmed.is_empty() {
            return true;
        }
        let name: String = normalized(trimmed)
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        !(names.contains(&name) || trimmed == sdk_path)
    });
    lines.push(sdk_path);
    let mut out = lines.join(ending);
    if trailing {
        out.push_str(ending);
    }
    out
}

/// A TOML document with `key = value` set in `[table]` (the table appended when missing).
fn upsert_table_entry(text: &str, table: &str, key: &str, value: &str) -> String {
    let header = format!("[{table}]");
    let entry = format!("{key} = {value}");
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    match lines.iter().position(|l| l.trim() == header) {
        Some(start) => {
            let end = lines[start + 1..]
                .iter()
                .position(|l| l.trim_start().starts_with('['))
                .map_or(lines.len(), |i| start + 1 + i);
            let existing = (start + 1..end).find(|&i| {
                let l = lines[i].trim_start();
                l.split('=')
                    .next()
                    .is_some_and(|k| k.trim().trim_matches('"') == key)
            });
            match existing {
                Some(i) => lines[i] = entry,
                None => lines.insert(start + 1, entry),
            }
        }
        None => {
            if lines.last().is_some_and(|l| !l.trim().is_empty()) {
                lines.push(String::new());
            }
            lines.push(header);
            lines.push(entry);
        }
    }
    let mut out = lines.join("\n");
    out.push('\n');
    out
}

/// A `pyproject.toml` whose `[project] dependencies` names `package` (added when missing).
fn add_project_dependency(text: &str, package: &str) -> String {
    let Some(project) = text.find("[project]") else {
        return format!("[project]\ndependencies = [\"{package}\"]\n\n{text}");
    };
    let section_end = text[project + 9..]
        .find("\n[")
        .map_or(text.len(), |i| project + 9 + i);
    let section = &text[project..section_end];
    let Some(deps) = section.find("dependencies") else {
        let at = project + "[project]".len();
        return format!(
            "{}\ndependencies = [\"{package}\"]{}",
            &text[..at],
            &text[at..]
        );
    };
    let Some(open) = section[deps..].find('[').map(|i| project + deps + i) else {
        return text.to_string();
    };
    let Some(close) = closing_bracket(text, open) else {
        return text.to_string();
    };
    let inner = &text[open + 1..close];
    let wanted = package.replace('-', "_").to_lowercase();
    let present = inner.split(',').any(|d| {
        let name: String = d
            .trim()
            .trim_matches('"')
            .trim_matches('\'')
            .replace('-', "_")
            .to_lowercase()
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        name == wanted
    });
    if present {
        return text.to_string();
    }
    let trimmed = inner.trim_end();
    let insertion = if trimmed.trim().is_empty() {
        format!("\"{package}\"")
    } else if inner.contains('\n') {
        let comma = if trimmed.ends_with(',') { "" } else { "," };
        format!("{trimmed}{comma}\n    \"{package}\",\n")
    } else {
        let comma = if trimmed.ends_with(',') { " " } else { ", " };
        format!("{trimmed}{comma}\"{package}\"")
    };
    format!("{}{insertion}{}", &text[..open + 1], &text[close..])
}

/// The `]` closing the `[` at `open`, skipping brackets inside quoted strings.
fn closing_bracket(text: &str, open: usize) -> Option<usize> {
    let mut depth = 0;
    let mut quote: Option<char> = None;
    for (i, c) in text[open..].char_indices() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '"' | '\'') => quote = Some(c),
            (None, '[') => depth += 1,
            (None, ']') => {
                depth -= 1;
                if depth == 0 {
                    return Some(open + i);
                }
            }
            _ => {}
        }
    }
    None
}

/// `sdk` relative to the project (`sdks/random`), or absolute when outside it.
fn relative_path(root: &Path, sdk: &Path) -> String {
    let absolute = |p: &Path| p.canonicalize().unwrap_or_else(|_| p.to_path_buf());
    let (root, sdk) = (absolute(root), absolute(sdk));
    sdk.strip_prefix(&root)
        .map(PathBuf::from)
        .unwrap_or(sdk)
        .to_string_lossy()
        .into_owned()
}

fn read(path: &Path) -> Result<String, std::io::Error> {
    std::fs::read_to_string(path)
}

fn write(path: &Path, text: &str) -> Result<(), SdkGenError> {
    std::fs::write(path, text).map_err(|source| SdkGenError::Io {
        path: path.to_path_buf(),
        source,
    })
}
