//! The passphrase secrets provider, compatible with Pulumi's: a per-stack salt, a key derived
//! with PBKDF2-HMAC-SHA256 (1,000,000 iterations) and AES-256-GCM, so that secrets written by
//! either tool read in the other. This module knows nothing of YAML or state files.
//!
//! Formats: a ciphertext is `v1:<base64 nonce>:<base64 sealed bytes>`; a stack's salt state
//! (`encryptionsalt:` in `Pulumi.<stack>.yaml`) is `v1:<base64 salt>:<ciphertext of "pulumi">`,
//! the known plaintext telling a wrong passphrase from a right one.

use std::collections::HashMap;
use std::fmt;
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use parking_lot::Mutex;
use std::time::{Duration, Instant};

use aes_gcm::aead::Aead;
use aes_gcm::{Aes256Gcm, KeyInit, Nonce};
use base64::Engine;
use base64::engine::general_purpose::STANDARD as B64;
use rand::RngCore;
use sha2::{Digest, Sha256};

/// PBKDF2 rounds, as in Pulumi's `NewSymmetricCrypterFromPassphrase`.
pub const PBKDF2_ITERATIONS: u32 = 1_000_000;
/// The passphrase itself.
pub const PASSPHRASE_ENV: &str = "PULUMI_CONFIG_PASSPHRASE";
/// A file holding the passphrase (used when `PULUMI_CONFIG_PASSPHRASE` is unset).
pub const PASSPHRASE_FILE_ENV: &str = "PULUMI_CONFIG_PASSPHRASE_FILE";
/// The secrets provider type recorded in state and exports.
pub const PASSPHRASE_PROVIDER: &str = "passphrase";

const SALT_BYTES: usize = 8;
const NONCE_BYTES: usize = 12;
const KEY_BYTES: usize = 32;
const KNOWN_PLAINTEXT: &str = "pulumi";

/// Why a secret could not be encrypted or decrypted.
#[derive(Debug, thiserror::Error)]
pub enum SecretsError {
    #[error(
        "incorrect passphrase: it does not unlock this stack's secrets \
         (set {PASSPHRASE_ENV} or {PASSPHRASE_FILE_ENV} to the stack's passphrase)"
    )]
    WrongPassphrase,
    #[error("malformed encryption salt {state:?}: {reason}")]
    BadSalt { state: String, reason: String },
    #[error("malformed ciphertext {ciphertext:?}: {reason}")]
    BadCiphertext { ciphertext: String, reason: String },
    #[error(
        "a secret could not be decrypted: it was encrypted with another passphrase or salt, or it is corrupted"
    )]
    DecryptFailed,
    #[error(
        "this stack has secrets but no passphrase was given: set {PASSPHRASE_ENV} or {PASSPHRASE_FILE_ENV}"
    )]
    NoPassphrase,
    #[error("reading {PASSPHRASE_FILE_ENV} {}: {source}", path.display())]
    PassphraseFile {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("secret at {path}: {source}")]
    At {
        path: String,
        #[source]
        source: Box<SecretsError>,
    },
}

/// Encrypts and decrypts with one stack's key; cheap to clone (the key is derived once).
/// It keeps the passphrase, so that state written under another salt of the same passphrase
/// can be read with the salt recorded beside it ([`Crypter::for_salt`]).
#[derive(Clone)]
pub struct Crypter {
    cipher: Arc<Aes256Gcm>,
    salt_state: Arc<str>,
    passphrase: Arc<str>,
}

impl fmt::Debug for Crypter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Crypter")
            .field("salt_state", &self.salt_state)
            .finish_non_exhaustive()
    }
}

impl Crypter {
    /// A crypter with a fresh random salt, for a stack that has none yet; store
    /// [`Crypter::salt_state`] as the stack's `encryptionsalt`.
    pub fn new_salt(passphrase: &str) -> Crypter {
        let mut salt = [0u8; SALT_BYTES];
        rand::rng().fill_bytes(&mut salt);
        let cipher = Arc::new(cipher_for(passphrase, &salt));
        let check = seal(&cipher, KNOWN_PLAINTEXT);
        Crypter {
            cipher,
            salt_state: format!("v1:{}:{check}", B64.encode(salt)).into(),
            passphrase: passphrase.into(),
        }
    }

    /// The crypter for a stack's salt state; fails with [`SecretsError::WrongPassphrase`]
    /// when the passphrase does not decrypt the salt's known plaintext.
    pub fn from_salt(passphrase: &str, salt_state: &str) -> Result<Crypter, SecretsError> {
        let bad = |reason: &str| SecretsError::BadSalt {
            state: salt_state.to_string(),
            reason: reason.to_string(),
        };
        let mut parts = salt_state.splitn(3, ':');
        let (Some(version), Some(salt), Some(check)) = (parts.next(), parts.next(), parts.next())
        else {
            return Err(bad("expected v1:<salt>:<check>"));
        };
        if version != "v1" {
            return Err(bad(&format!("unknown version {version:?}")));
        }
        let salt = B64
            .decode(salt)
            .map_err(|e| bad(&format!("the salt is not base64: {e}")))?;
        let crypter = Crypter {
            cipher: Arc::new(cipher_for(passphrase, &salt)),
            salt_state: salt_state.into(),
            passphrase: passphrase.into(),
        };
        match crypter.decrypt(check) {
            Ok(p) if p == KNOWN_PLAINTEXT => Ok(crypter),
            Ok(_) | Err(SecretsError::DecryptFailed) => Err(SecretsError::WrongPassphrase),
            Err(e) => Err(bad(&e.to_string())),
        }
    }

    /// The `encryptionsalt` value for the stack settings and the state's secrets provider.
    pub fn salt_state(&self) -> &str {
        &self.salt_state
    }

    /// The crypter of the same passphrase for `salt_state` (this one when it is the same
    /// salt): what state written under that salt is read with, as Pulumi reads a checkpoint
    /// with the secrets provider recorded in it.
    pub fn for_salt(&self, salt_state: &str) -> Result<Crypter, SecretsError> {
        if salt_state == &*self.salt_state {
            return Ok(self.clone());
        }
        Crypter::from_salt(&self.passphrase, salt_state)
    }

    /// Encrypts a string (a config value, or a secret's JSON text) with a fresh nonce.
    pub fn encrypt(&self, plaintext: &str) -> String {
        seal(&self.cipher, plaintext)
    }

    /// Decrypts a `v1:<nonce>:<ciphertext>` value; a wrong key is [`SecretsError::DecryptFailed`].
    pub fn decrypt(&self, ciphertext: &str) -> Result<String, SecretsError> {
        let bad = |reason: &str| SecretsError::BadCiphertext {
            ciphertext: ciphertext.to_string(),
            reason: reason.to_string(),
        };
        let parts: Vec<&str> = ciphertext.split(':').collect();
        let [version, nonce, sealed] = parts[..] else {
            return Err(bad("expected v1:<nonce>:<ciphertext>"));
        };
        if version != "v1" {
            return Err(bad(&format!("unknown version {version:?}")));
        }
        let nonce = B64
            .decode(nonce)
            .map_err(|e| bad(&format!("the nonce is not base64: {e}")))?;
        if nonce.len() != NONCE_BYTES {
            return Err(bad("the nonce is not 12 bytes"));
        }
        let sealed = B64
            .decode(sealed)
            .map_err(|e| bad(&format!("the ciphertext is not base64: {e}")))?;
        let plain = self
            .cipher
            .decrypt(Nonce::from_slice(&nonce), sealed.as_slice())
            .map_err(|_| SecretsError::DecryptFailed)?;
        String::from_utf8(plain).map_err(|_| bad("the plaintext is not UTF-8"))
    }
}

fn seal(cipher: &Aes256Gcm, plaintext: &str) -> String {
    let mut nonce = [0u8; NONCE_BYTES];
    rand::rng().fill_bytes(&mut nonce);
    let sealed = cipher
        .encrypt(Nonce::from_slice(&nonce), plaintext.as_bytes())
        .expect("AES-GCM encryption of an in-memory buffer cannot fail");
    format!("v1:{}:{}", B64.encode(nonce), B64.encode(sealed))
}

/// Derives the key, remembering it per (passphrase, salt) for the process: a million PBKDF2
/// rounds take a noticeable time and one command may open the same stack several times.
fn cipher_for(passphrase: &str, salt: &[u8]) -> Aes256Gcm {
    static KEYS: OnceLock<Mutex<HashMap<[u8; 32], [u8; KEY_BYTES]>>> = OnceLock::new();
    let mut id = Sha256::new();
    id.update((passphrase.len() as u64).to_le_bytes());
    id.update(passphrase.as_bytes());
    id.update(salt);
    let id: [u8; 32] = id.finalize().into();
    let keys = KEYS.get_or_init(Mutex::default);
    let cached = keys.lock().get(&id).copied();
    let key = cached.unwrap_or_else(|| {
        let mut key = [0u8; KEY_BYTES];
        // The crate's own SHA-256 instance, built with its optimization level (Cargo.toml).
        pbkdf2::pbkdf2_hmac_with_params(
            passphrase.as_bytes(),
            salt,
            pbkdf2::Algorithm::Pbkdf2Sha256,
            pbkdf2::Params::new(PBKDF2_ITERATIONS).expect("a million rounds is a valid count"),
            &mut key,
        );
        keys.lock().insert(id, key);
        key
    });
    Aes256Gcm::new_from_slice(&key).expect("a 32-byte key")
}

/// The passphrase from the environment, as Pulumi reads it: `PULUMI_CONFIG_PASSPHRASE` (even
/// empty), else the trimmed contents of `PULUMI_CONFIG_PASSPHRASE_FILE`, else none.
pub fn passphrase_from_env() -> Result<Option<String>, SecretsError> {
    passphrase_from(|k| std::env::var(k).ok())
}

/// [`passphrase_from_env`] over any variable lookup (tests, or a CLI with its own environment).
pub fn passphrase_from(
    lookup: impl Fn(&str) -> Option<String>,
) -> Result<Option<String>, SecretsError> {
    if let Some(p) = lookup(PASSPHRASE_ENV) {
        return Ok(Some(p));
    }
    match lookup(PASSPHRASE_FILE_ENV).filter(|f| !f.is_empty()) {
        Some(file) => {
            let path = PathBuf::from(file);
            let text = read_passphrase_file(&path)
                .map_err(|source| SecretsError::PassphraseFile { path, source })?;
            Ok(Some(text.trim().to_string()))
        }
        None => Ok(None),
    }
}

/// The most a passphrase file may hold.
const PASSPHRASE_FILE_LIMIT: usize = 64 * 1024;
/// How long a pipe may take to deliver the passphrase once open.
const PASSPHRASE_PIPE_WAIT: Duration = Duration::from_secs(10);

/// Reads a passphrase file with bounds: at most [`PASSPHRASE_FILE_LIMIT`] bytes (`/dev/zero`
/// is refused, not read forever), opened without blocking (a FIFO with no writer is refused
/// rather than waited on for ever), and a pipe that stays silent is given up after
/// [`PASSPHRASE_PIPE_WAIT`]. Pipes such as `<(pass show …)` still work.
fn read_passphrase_file(path: &Path) -> io::Result<String> {
    use std::os::unix::fs::OpenOptionsExt;
    let mut file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)?;
    let regular = file.metadata()?.is_file();
    let deadline = Instant::now() + PASSPHRASE_PIPE_WAIT;
    let mut text = Vec::new();
    let mut chunk = [0u8; 4096];
    loop {
        match file.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => {
                text.extend_from_slice(&chunk[..n]);
                if text.len() > PASSPHRASE_FILE_LIMIT {
                    return Err(io::Error::other(format!(
                        "holds more than {} KiB: not a passphrase file",
                        PASSPHRASE_FILE_LIMIT / 1024
                    )));
                }
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                if Instant::now() >= deadline {
                    return Err(io::Error::new(
                        io::ErrorKind::TimedOut,
                        "nothing was written to it in time",
                    ));
                }
                std::thread::sleep(Duration::from_millis(20));
            }
            Err(e) => return Err(e),
        }
    }
    if !regular && text.is_empty() {
        return Err(io::Error::other(
            "not a regular file, and nothing could be read from it (a FIFO with no writer?)",
        ));
    }
    String::from_utf8(text).map_err(|_| io::Error::new(io::ErrorKind::InvalidData, "not UTF-8"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn salt_state_checks_the_passphrase() {
        let c = Crypter::new_salt("correct horse");
        let state = c.salt_state().to_string();
        assert!(state.starts_with("v1:"), "{state}");
        assert_eq!(state.split(':').count(), 5, "{state}");
        let again = Crypter::from_salt("correct horse", &state).unwrap();
        let ct = c.encrypt("s3cret");
        assert!(ct.starts_with("v1:") && !ct.contains("s3cret"), "{ct}");
        assert_eq!(again.decrypt(&ct).unwrap(), "s3cret");
        assert!(matches!(
            Crypter::from_salt("wrong", &state),
            Err(SecretsError::WrongPassphrase)
        ));
        let other = Crypter::new_salt("correct horse");
        assert_ne!(other.salt_state(), state, "salts are random");
        assert!(matches!(
            other.decrypt(&ct),
            Err(SecretsError::DecryptFailed)
        ));
    }

    /// The salt states of Pulumi's own tests open with their passphrases, and a secret written
    /// by Pulumi under one of them reads back.
    #[test]
    fn pulumis_salt_states_open_with_their_passphrases() {
        let vectors = [
            (
                "password",
                "v1:fozI5u6B030=:v1:F+6ZduKKd8G0/V7L:PGMFeIzwobWRKmEAzUdaQHqC5mMRIQ==",
            ),
            (
                "abc123",
                "v1:4iF78gb0nF0=:v1:Co6IbTWYs/UdrjgY:FSrAWOFZnj9ealCUDdJL7LrUKXX9BA==",
            ),
            (
                "123abc",
                "v1:C7H2a7/Ietk=:v1:yfAd1zOi6iY9DRIB:dumdsr+H89VpHIQWdB01XEFqYaYjAg==",
            ),
            (
                "correct horse battery staple",
                "v1:3ZcVRCMzEbk=:v1:A4wYnaSVLIkK0AhS:2SrOnSDh9wVGmoyZt97KYJN3WfDDHA==",
            ),
            (
                "TestConfigRoundtripComments",
                "v1:ThS5UPxP9qc=:v1:UZYAXF+ylaJ0rGhv:9OTvBnOEDFgxs7btjzSu+LZ470vLpg==",
            ),
        ];
        for (passphrase, state) in vectors {
            assert!(
                Crypter::from_salt(passphrase, state).is_ok(),
                "{passphrase}"
            );
        }
        assert!(matches!(
            Crypter::from_salt("password123", vectors[0].1),
            Err(SecretsError::WrongPassphrase)
        ));
        let roundtrip = Crypter::from_salt(vectors[4].0, vectors[4].1).unwrap();
        assert_eq!(
            roundtrip
                .decrypt("v1:T1ftqhY0hqr+EJK6:+jvd5PMecFx80tcavzuZY4tLatgIfoe/xR72GA==")
                .unwrap(),
            "secret-value"
        );
    }

    #[test]
    fn malformed_values_are_named() {
        let c = Crypter::new_salt("p");
        let e = c.decrypt("v2:a:b").unwrap_err().to_string();
        assert!(e.contains("v2:a:b") && e.contains("unknown version"), "{e}");
        assert!(c.decrypt("v1:AAAA").is_err());
        let e = Crypter::from_salt("p", "nope").unwrap_err().to_string();
        assert!(e.contains("\"nope\""), "{e}");
    }

    #[test]
    fn passphrase_comes_from_variable_then_file() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("pp");
        std::fs::write(&file, "from-file\n").unwrap();
        let f = file.to_str().unwrap().to_string();
        let both = |k: &str| match k {
            PASSPHRASE_ENV => Some(String::new()),
            _ => Some(f.clone()),
        };
        assert_eq!(passphrase_from(both).unwrap(), Some(String::new()));
        let file_only = |k: &str| (k == PASSPHRASE_FILE_ENV).then(|| f.clone());
        assert_eq!(
            passphrase_from(file_only).unwrap().as_deref(),
            Some("from-file")
        );
        assert_eq!(passphrase_from(|_| None).unwrap(), None);
        let missing = |k: &str| (k == PASSPHRASE_FILE_ENV).then(|| "/nonexistent/pp".to_string());
        let e = passphrase_from(missing).unwrap_err().to_string();
        assert!(e.contains("/nonexistent/pp"), "{e}");
    }

    #[test]
    fn passphrase_files_are_read_with_bounds() {
        let from = |path: &Path| {
            let p = path.to_str().unwrap().to_string();
            passphrase_from(move |k: &str| (k == PASSPHRASE_FILE_ENV).then(|| p.clone()))
        };
        let e = from(Path::new("/dev/zero")).unwrap_err().to_string();
        assert!(e.contains("/dev/zero") && e.contains("64 KiB"), "{e}");

        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: `c` is a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let e = from(&fifo).unwrap_err().to_string();
        assert!(e.contains("fifo") && e.contains("no writer"), "{e}");

        let big = dir.path().join("big");
        std::fs::write(&big, "x".repeat(PASSPHRASE_FILE_LIMIT + 1)).unwrap();
        assert!(from(&big).is_err());
        let empty = dir.path().join("empty");
        std::fs::write(&empty, "").unwrap();
        assert_eq!(from(&empty).unwrap().as_deref(), Some(""));
    }
}
