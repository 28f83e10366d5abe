//! `org get-default` / `org set-default`: stepdeck's backends are Pulumi's DIY backends, which
//! have no organizations but `organization`; both commands fail as Pulumi's do on them, naming
//! the backend by the host's name as Pulumi does.

use anyhow::{Result, anyhow};
use stepdeck::state::lock_info::hostname;

use super::args::OrgCommand;
use super::workspace::backend_url;

pub(super) fn run(cmd: OrgCommand, backend: Option<&str>) -> Result<()> {
    backend_url(None, backend)?;
    let name = hostname();
    Err(match cmd {
        OrgCommand::GetDefault => {
            anyhow!("backends of this type \"{name}\" do not support organizations")
        }
        OrgCommand::SetDefault { name: _ } => {
            anyhow!("unable to set a default organization for backend type: {name}")
        }
    })
}
