//! Pulumi's compressed DIY files: with `PULUMI_DIY_BACKEND_GZIP` set, `pulumi` writes the stack
//! file as `<stack>.json.gz` and its history and backups gzipped too, and reads whichever of
//! `.json`, `.json.gz`, `.json.zst` is newest, telling the compression by the first bytes. Both
//! backends read and write through here, so a stack stays readable by either program.

use std::io::{Read, Write};
use std::path::Path;

use crate::state::error::StateError;

/// The suffix `pulumi` adds to a gzip-compressed file.
pub const GZIP_EXT: &str = ".gz";
/// The suffix `pulumi` adds to a zstd-compressed file, which stepdeck does not read.
pub const ZSTD_EXT: &str = ".zst";
/// The stack file's variants in the order Pulumi lists them (a later one wins a tie of times).
pub const STACK_EXTS: [&str; 3] = ["", GZIP_EXT, ZSTD_EXT];

/// The first bytes of a gzip stream, by which Pulumi tells a compressed file.
const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];

/// How the files of a write are compressed, chosen as `pulumi` chooses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Compression {
    None,
    Gzip,
}

impl Compression {
    /// From Pulumi's switches: `PULUMI_DIY_BACKEND_GZIP` compresses; with
    /// `PULUMI_DIY_BACKEND_ZSTD`, which stepdeck cannot write, the files stay plain JSON
    /// (`pulumi` reads those as well); both set is refused, as Pulumi refuses it.
    pub fn from_env() -> Result<Compression, StateError> {
        let gzip = super::pulumi_flag(&["PULUMI_DIY_BACKEND_GZIP"]);
        let zstd = super::pulumi_flag(&["PULUMI_DIY_BACKEND_ZSTD"]);
        match (gzip, zstd) {
            (true, true) => Err(StateError::BadEnvironment {
                message: "PULUMI_DIY_BACKEND_GZIP and PULUMI_DIY_BACKEND_ZSTD cannot both be set"
                    .into(),
            }),
            (true, false) => Ok(Compression::Gzip),
            _ => Ok(Compression::None),
        }
    }

    /// What the compression adds to a file's name.
    pub fn ext(self) -> &'static str {
        match self {
            Compression::None => "",
            Compression::Gzip => GZIP_EXT,
        }
    }

    /// `bytes`, compressed.
    pub fn encode(self, bytes: Vec<u8>) -> Vec<u8> {
        match self {
            Compression::None => bytes,
            Compression::Gzip => {
                let mut gz =
                    flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
                gz.write_all(&bytes)
                    .and_then(|()| gz.finish())
                    .expect("gzip into memory does not fail")
            }
        }
    }
}

/// The JSON of a file read from `path`: gunzipped when it is a gzip stream, up to the limit of
/// a state document.
pub fn decode(path: &Path, bytes: Vec<u8>) -> Result<Vec<u8>, StateError> {
    if !bytes.starts_with(&GZIP_MAGIC) {
        return Ok(bytes);
    }
    let corrupt = |message: String| StateError::Corrupt {
        path: path.to_path_buf(),
        line: None,
        message,
    };
    let limit = crate::file_limits::STATE_DOCUMENT;
    let mut out = Vec::new();
    flate2::read::GzDecoder::new(&bytes[..])
        .take(limit.bytes + 1)
        .read_to_end(&mut out)
        .map_err(|e| corrupt(format!("not a gzip stream: {e}")))?;
    if out.len() as u64 > limit.bytes {
        return Err(corrupt(format!(
            "decompresses to more than {limit}, the most stepdeck reads"
        )));
    }
    Ok(out)
}

/// The refusal of a zstd-compressed stack file at `path`.
pub fn zstd_refused(path: &Path) -> StateError {
    StateError::Corrupt {
        path: path.to_path_buf(),
        line: None,
        message: "a zstd-compressed stack file, which stepdeck does not read: unset \
                  PULUMI_DIY_BACKEND_ZSTD and let `pulumi` write the stack again \
                  (`pulumi stack export | pulumi stack import`)"
            .into(),
    }
}
