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

/// A virtualenv of its own at `venv` (no pip) where the installed SDKs import, as a project's
/// installed dependencies would: its site-packages names the shared one. Returns its
/// site-packages, for more `.pth` lines.
pub(crate) fn venv_on_shared_sdks(venv: &std::path::Path) -> PathBuf {
    let made = std::process::Command::new(sdk_env().python)
        .args(["-m", "venv", "--without-pip"])
        .arg(venv)
        .status()
        .unwrap();
    assert!(made.success(), "python -m venv {}", venv.display());
    let site = |root: &std::path::Path| {
        std::fs::read_dir(root.join("lib"))
            .unwrap()
            .map(|e| e.unwrap().path().join("site-packages"))
            .find(|p| p.is_dir())
            .unwrap()
    };
    let own = site(venv);
    let pth = format!(
        "import site; site.addsitedir({:?})\n",
        site(&sdk_env().root.join("venv"))
    );
    std::fs::write(own.join("sdk-env.pth"), pth).unwrap();
    own
}
