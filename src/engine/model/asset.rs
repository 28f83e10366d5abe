//! Assets and archives as Pulumi values, made by YAML programs (`fn::fileAsset`,
//! `fn::stringAsset`, `fn::remoteAsset`, `fn::fileArchive`, `fn::remoteArchive`,
//! `fn::assetArchive`) and by built-in providers (the `command` provider's `assets` and
//! `archive`): the signature object with the source (`text`, `path`, `uri`, `assets`) and the
//! SHA-256 `hash` of the contents that providers compare, computed as Pulumi's `resource/asset`
//! does for text, files and archive files.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

use super::property::{ARCHIVE_SIG, ASSET_SIG, PropertyValue, SIG_KEY};

fn object(sig: &str, hash: Option<String>, field: &str, value: Value) -> Box<Map<String, Value>> {
    let mut m = Map::new();
    m.insert(SIG_KEY.into(), sig.into());
    if let Some(h) = hash {
        m.insert("hash".into(), h.into());
    }
    m.insert(field.into(), value);
    Box::new(m)
}

fn sha256_hex(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

/// Why an asset or archive could not be made: the file, directory or URI at fault.
#[derive(Debug, thiserror::Error)]
pub enum AssetError {
    /// A file named by the program (the path as written).
    #[error("Error reading file at path {path}: {source}")]
    ReadFile {
        path: String,
        source: std::io::Error,
    },
    /// A directory of an archive.
    #[error("Error reading directory {}: {source}", dir.display())]
    ReadDir {
        dir: PathBuf,
        source: std::io::Error,
    },
    /// A file inside an archive's directory.
    #[error("Error reading file {}: {source}", file.display())]
    ReadArchived {
        file: PathBuf,
        source: std::io::Error,
    },
    #[error("remote asset URI {0:?} must use http, https or file")]
    UnsupportedUri(String),
}

fn read(dir: &Path, path: &str) -> Result<Vec<u8>, AssetError> {
    std::fs::read(dir.join(path)).map_err(|source| AssetError::ReadFile {
        path: path.to_string(),
        source,
    })
}

/// An asset holding `text`; its hash is the SHA-256 of the text.
pub fn string_asset(text: &str) -> PropertyValue {
    PropertyValue::Asset(object(
        ASSET_SIG,
        Some(sha256_hex(text.as_bytes())),
        "text",
        text.into(),
    ))
}

/// An asset read from a file (relative to `dir`); the path is kept as written.
pub fn file_asset(dir: &Path, path: &str) -> Result<PropertyValue, AssetError> {
    let hash = sha256_hex(&read(dir, path)?);
    Ok(PropertyValue::Asset(object(
        ASSET_SIG,
        Some(hash),
        "path",
        path.into(),
    )))
}

/// The contents behind a `file://` URI; `None` for `http(s)://`, which the provider fetches.
fn remote_contents(dir: &Path, uri: &str) -> Result<Option<Vec<u8>>, AssetError> {
    if let Some(path) = uri.strip_prefix("file://") {
        return read(dir, path).map(Some);
    }
    if uri.starts_with("http://") || uri.starts_with("https://") {
        return Ok(None);
    }
    Err(AssetError::UnsupportedUri(uri.to_string()))
}

/// An asset (or with `archive`, an archive) at a URI; hashed when it is a local `file://` URI.
pub fn remote(dir: &Path, uri: &str, archive: bool) -> Result<PropertyValue, AssetError> {
    let hash = remote_contents(dir, uri)?.map(|b| sha256_hex(&b));
    Ok(if archive {
        PropertyValue::Archive(object(ARCHIVE_SIG, hash, "uri", uri.into()))
    } else {
        PropertyValue::Asset(object(ASSET_SIG, hash, "uri", uri.into()))
    })
}

/// An archive from a file (`.zip`, `.tar`, `.tgz`: hashed as bytes) or a directory (hashed over
/// its files in name order).
pub fn file_archive(dir: &Path, path: &str) -> Result<PropertyValue, AssetError> {
    let full = dir.join(path);
    let hash = if full.is_dir() {
        let mut hasher = Sha256::new();
        hash_dir(&full, &full, &mut hasher)?;
        hex::encode(hasher.finalize())
    } else {
        sha256_hex(&read(dir, path)?)
    };
    Ok(PropertyValue::Archive(object(
        ARCHIVE_SIG,
        Some(hash),
        "path",
        path.into(),
    )))
}

fn hash_dir(root: &Path, dir: &Path, hasher: &mut Sha256) -> Result<(), AssetError> {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .map_err(|source| AssetError::ReadDir {
            dir: dir.to_path_buf(),
            source,
        })?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            hash_dir(root, &p, hasher)?;
        } else {
            let rel = p.strip_prefix(root).unwrap_or(&p).to_string_lossy();
            let bytes = std::fs::read(&p).map_err(|source| AssetError::ReadArchived {
                file: p.clone(),
                source,
            })?;
            hasher.update((rel.len() as u64).to_be_bytes());
            hasher.update(rel.as_bytes());
            hasher.update((bytes.len() as u64).to_be_bytes());
            hasher.update(&bytes);
        }
    }
    Ok(())
}

/// An archive of named assets and archives; its hash covers every name and member hash.
pub fn asset_archive(members: Vec<(String, PropertyValue)>) -> PropertyValue {
    let mut members = members;
    members.sort_by(|a, b| a.0.cmp(&b.0));
    let mut hasher = Sha256::new();
    let mut assets = Map::new();
    for (name, value) in members {
        let encoded = value.to_json();
        let hash = encoded.get("hash").and_then(Value::as_str).unwrap_or("");
        hasher.update((name.len() as u64).to_be_bytes());
        hasher.update(name.as_bytes());
        hasher.update(hash.as_bytes());
        assets.insert(name, encoded);
    }
    PropertyValue::Archive(object(
        ARCHIVE_SIG,
        Some(hex::encode(hasher.finalize())),
        "assets",
        Value::Object(assets),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn field<'a>(v: &'a PropertyValue, k: &str) -> &'a Value {
        match v {
            PropertyValue::Asset(m) | PropertyValue::Archive(m) => &m[k],
            other => panic!("not an asset: {other:?}"),
        }
    }

    #[test]
    fn string_and_file_assets_carry_pulumis_hash() {
        let a = string_asset("hello");
        assert_eq!(field(&a, SIG_KEY), ASSET_SIG);
        // sha256("hello"), as Pulumi's Asset.EnsureHash computes it.
        assert_eq!(
            field(&a, "hash"),
            "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824"
        );
        assert_eq!(field(&a, "text"), "hello");

        let temp = tempfile::tempdir().unwrap();
        let dir = temp.path().to_path_buf();
        std::fs::create_dir_all(dir.join("site/sub")).unwrap();
        std::fs::write(dir.join("site/index.html"), "hello").unwrap();
        std::fs::write(dir.join("site/sub/a.txt"), "a").unwrap();
        let f = file_asset(&dir, "site/index.html").unwrap();
        assert_eq!(field(&f, "hash"), field(&a, "hash"));
        assert_eq!(field(&f, "path"), "site/index.html");
        let r = remote(&dir, "file://site/index.html", false).unwrap();
        assert_eq!(field(&r, "hash"), field(&a, "hash"));
        assert_eq!(field(&r, "uri"), "file://site/index.html");
        let web = remote(&dir, "https://example.com/x", false).unwrap();
        assert!(matches!(&web, PropertyValue::Asset(m) if !m.contains_key("hash")));
        assert!(
            remote(&dir, "ftp://x", false)
                .unwrap_err()
                .to_string()
                .contains("http, https or file")
        );

        let d1 = file_archive(&dir, "site").unwrap();
        assert_eq!(field(&d1, SIG_KEY), ARCHIVE_SIG);
        std::fs::write(dir.join("site/sub/a.txt"), "b").unwrap();
        let d2 = file_archive(&dir, "site").unwrap();
        assert_ne!(
            field(&d1, "hash"),
            field(&d2, "hash"),
            "contents change the hash"
        );
        assert!(
            file_asset(&dir, "nope.txt")
                .unwrap_err()
                .to_string()
                .starts_with("Error reading file at path nope.txt: ")
        );

        let arch = asset_archive(vec![
            ("b".into(), string_asset("x")),
            ("a".into(), f.clone()),
        ]);
        let assets = field(&arch, "assets").as_object().unwrap();
        assert_eq!(assets.keys().collect::<Vec<_>>(), ["a", "b"]);
        assert_eq!(assets["a"]["path"], "site/index.html");
        let again = asset_archive(vec![("a".into(), f), ("b".into(), string_asset("x"))]);
        assert_eq!(field(&arch, "hash"), field(&again, "hash"));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
