//! `stepdeck login` and `logout`, as Pulumi's are for a self-managed backend: the backend is
//! opened (so a wrong URL is refused at once) and recorded as current in Pulumi's
//! `credentials.json`, or forgotten there; the state itself is never touched.

use std::path::Path;

use anyhow::{Result, anyhow};
use stepdeck::project::Project;
use stepdeck::state::lock_info::hostname;
use stepdeck::state::{BackendUrl, open_backend, os_user};

use super::credentials;
use super::errors::usage;
use super::stdout::outln;

/// `--local`'s URL, as Pulumi's.
const LOCAL: &str = "file://~";

/// The URL a command names: the argument, `--local`, else the backend commands here use now
/// (as typed, which is what `credentials.json` keys on).
fn named(
    dir: Option<&Path>,
    backend: Option<&str>,
    url: Option<String>,
    local: bool,
) -> Result<Option<String>> {
    if let Some(url) = url.or_else(|| local.then(|| LOCAL.to_string())) {
        return Ok(Some(url));
    }
    if let Some(url) = BackendUrl::named_by_flag_or_env(backend) {
        return Ok(Some(url));
    }
    let project = dir
        .map(Project::load)
        .transpose()
        .map_err(|e| usage(e.to_string()))?;
    if let Some(url) = project.and_then(|p| p.backend_url) {
        return Ok(Some(url));
    }
    Ok(credentials::current()?.map(|(url, _)| url))
}

/// `stepdeck login [URL] [--local]`.
pub(super) fn login(
    dir: Option<&Path>,
    backend: Option<&str>,
    url: Option<String>,
    local: bool,
) -> Result<()> {
    let url = named(dir, backend, url, local)?.ok_or_else(|| {
        usage("name a backend: stepdeck login file://DIR, postgres://… or --local (Pulumi Cloud is not supported)")
    })?;
    let parsed = BackendUrl::parse(&url).map_err(|e| usage(e.to_string()))?;
    open_backend(&parsed)?;
    credentials::login(&url)?;
    outln!("Logged in to {} as {} ({parsed})", hostname(), os_user())?;
    Ok(())
}

/// `stepdeck logout [URL] [--local] [--all]`.
pub(super) fn logout(
    dir: Option<&Path>,
    backend: Option<&str>,
    url: Option<String>,
    local: bool,
    all: bool,
) -> Result<()> {
    if all {
        credentials::forget_all()?;
        outln!("Logged out of everything")?;
        return Ok(());
    }
    let url =
        named(dir, backend, url, local)?.ok_or_else(|| anyhow!("not logged in to any backend"))?;
    credentials::logout(&url)?;
    let shown = BackendUrl::parse(&url).map_or(url, |u| u.to_string());
    outln!("Logged out of {shown}")?;
    Ok(())
}
