//! `--policy-pack` and `--policy-pack-config` on preview and up: the flags paired as Pulumi
//! pairs them, and the packs loaded for one deployment of the stack (before its lock is
//! taken, so a pack that does not load leaves the stack untouched).

use std::path::PathBuf;

use anyhow::Result;
use stepdeck::engine::{EventSink, Operation, Options};
use stepdeck::policy::{LoadedPacks, PackRequest, load};
use stepdeck::project::policy_packs::stack_policy_packs;
use stepdeck::rpc::monitor::DEFAULT_ORGANIZATION;
use stepdeck::rpc::policy::launch::StackIdentity;

use super::args::DeployArgs;
use super::errors::usage;
use super::stack_tag::stack_tags;
use super::workspace::{Stack, Workspace};

/// Checks the flags: refused where Pulumi has no such flags (refresh, destroy), and when the
/// config files do not pair up with the packs.
pub(super) fn check(operation: Operation, args: &DeployArgs) -> Result<()> {
    let (packs, configs) = (&args.policy_packs, &args.policy_pack_configs);
    if !matches!(operation, Operation::Preview | Operation::Update) {
        for (given, flag) in [
            (!packs.is_empty(), "--policy-pack"),
            (!configs.is_empty(), "--policy-pack-config"),
        ] {
            if given {
                return Err(usage(format!(
                    "unknown flag: {flag} ({} runs no policy packs; preview and up do)",
                    operation.as_str()
                )));
            }
        }
    }
    if !configs.is_empty() {
        if packs.is_empty() {
            return Err(usage(
                r#""--policy-pack-config" must be specified with "--policy-pack""#,
            ));
        }
        if configs.len() != packs.len() {
            return Err(usage(
                r#"the number of "--policy-pack-config" flags must match the number of "--policy-pack" flags"#,
            ));
        }
    }
    Ok(())
}

/// Each `--policy-pack` with the `--policy-pack-config` in its place, if any.
pub(super) fn pairs(args: &DeployArgs) -> Vec<PackRequest> {
    args.policy_packs
        .iter()
        .enumerate()
        .map(|(i, path)| PackRequest {
            path: path.clone(),
            config: args.policy_pack_configs.get(i).cloned(),
        })
        .collect()
}

/// Loads the packs for a deployment with `opts`: those the flags name, then, in a preview or
/// up, those the stack's `stepdeck:policyPacks` setting lists (their `PolicyLoad` events go to
/// `sink`).
pub(super) async fn load_for(
    ws: &Workspace,
    stack: &Stack,
    opts: &Options,
    requests: &[PackRequest],
    sink: &EventSink,
) -> Result<LoadedPacks> {
    let mut requests = requests.to_vec();
    if matches!(opts.operation, Operation::Preview | Operation::Update) {
        let listed = stack_policy_packs(&stack.settings, &ws.project.name)?;
        requests.extend(listed.into_iter().map(|p| PackRequest {
            path: p.path,
            config: p.config.map(PathBuf::from),
        }));
    }
    if requests.is_empty() {
        return Ok(LoadedPacks::default());
    }
    let identity = StackIdentity {
        organization: DEFAULT_ORGANIZATION.to_string(),
        project: opts.project.clone(),
        stack: opts.stack.clone(),
        dry_run: opts.is_preview(),
        config: opts.config.clone(),
        secret_keys: opts.secret_keys.clone(),
        tags: stack_tags(ws, stack)?,
    };
    load(&requests, &identity, sink).await.map_err(|e| {
        if e.is_input_error() {
            usage(e.to_string())
        } else {
            anyhow::Error::new(e)
        }
    })
}
