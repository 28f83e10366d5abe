//! Finding the Pulumi SDKs installed by `.ci/install-sdks.sh` for the rpc tests.

use std::path::PathBuf;

/// The SDK environment: `STEPDECK_SDK_ENV`, else `<repo>/target/sdk-env`.
pub struct SdkEnv {
    pub root: PathBuf,
    pub python: PathBuf,
}

/// The installed SDKs; fails the test with instructions when they are missing (never skips).
pub fn sdk_env() -> SdkEnv {
    let root = std::env::var_os("STEPDECK_SDK_ENV")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/sdk-env"));
    let python = root.join("venv/bin/python");
    assert!(
        python.exists(),
        "the Pulumi SDKs are not installed in {}: run .ci/install-sdks.sh (or set STEPDECK_SDK_ENV)",
        root.display()
    );
    SdkEnv { root, python }
}
