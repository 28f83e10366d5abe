//! `stepdeck whoami`, as Pulumi's does on a self-managed backend: the user is the OS user, the
//! backend the one commands in this directory use (opened, so an unusable one is an error).

use std::path::Path;

use anyhow::Result;
use serde_json::json;
use stepdeck::project::Project;
use stepdeck::state::{open_backend, os_user};

use super::errors::usage;
use super::stdout::outln;
use super::workspace::backend_url;

/// `stepdeck whoami [--verbose] [--json]`; `dir` is the project's, when there is one. The URL
/// is shown with its password masked (Pulumi shows it as typed).
pub(super) fn whoami(
    dir: Option<&Path>,
    backend: Option<&str>,
    verbose: bool,
    json: bool,
) -> Result<()> {
    let project = dir
        .map(Project::load)
        .transpose()
        .map_err(|e| usage(e.to_string()))?;
    let url = backend_url(project.as_ref(), backend)?;
    open_backend(&url)?;
    let user = os_user();
    if json {
        let doc = json!({"user": user, "url": url.as_str()});
        outln!("{}", serde_json::to_string_pretty(&doc)?)?;
    } else if verbose {
        outln!("User: {user}\nOrganizations: \nBackend URL: {url}\nToken type: personal")?;
    } else {
        outln!("{user}")?;
    }
    Ok(())
}
