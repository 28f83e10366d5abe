//! Finding the Pulumi SDKs installed by `.ci/install-sdks.sh`: the one place every test that
//! runs a real SDK (the rpc tests, and through `cli_support` the end-to-end ones) asks.

#![allow(dead_code)]

use std::path::PathBuf;

/// The SDK environment: `STEPDECK_SDK_ENV`, else `<repo>/target/sdk-env`.
pub(crate) struct SdkEnv {
    pub root: PathBuf,
    pub python: PathBuf,
}

/// The installed SDKs; fails the test with instructions when any part is missing (never skips).
pub(crate) fn sdk_env() -> SdkEnv {
    let root = std::env::var_os("STEPDECK_SDK_ENV")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/sdk-env"));
    let missing: Vec<&str> = [
        "venv/bin/python",
        "node_modules/@pulumi/pulumi/cmd/run/index.js",
        "node_modules/@pulumi/random",
        "node_modules/@pulumi/command",
        "node_modules/typescript",
    ]
    .into_iter()
    .filter(|p| !root.join(p).exists())
    .collect();
    assert!(
        missing.is_empty(),
        "the Pulumi SDKs are not installed in {} (missing {missing:?}): run `bash .ci/install-sdks.sh` (or set STEPDECK_SDK_ENV)",
        root.display()
    );
    SdkEnv {
        python: root.join("venv/bin/python"),
        root,
    }
}
