//! The approval settings of a deployment from its flags, policy file, decision file and the
//! stack's `stepdeck:approve` setting (precedence: flag, then file, then stack, then default).

use anyhow::Result;
use stepdeck::engine::ApprovalPolicy;
use stepdeck::engine::run::approval::{ApprovalRule, Approvals};
use stepdeck::engine::run::gate_decisions::GateDecisions;
use stepdeck::project::approval_files::{read_decisions, read_policy_file, stack_rules};

use super::args::{ApprovalArg, DeployArgs};
use super::display::Display;
use super::errors::usage;
use super::workspace::{Stack, Workspace};

/// What the engine needs to gate steps.
pub(super) struct ApprovalSettings {
    pub approvals: Approvals,
    pub decisions: Option<GateDecisions>,
    /// Neither a console nor a watcher can decide.
    pub unattended: bool,
}

pub(super) fn approval_settings(
    ws: &Workspace,
    stack: &Stack,
    args: &DeployArgs,
    display: Display,
) -> Result<ApprovalSettings> {
    let served = args.serve.serve.is_some();
    let unattended = display != Display::Console && !served;
    // `--approve-replacements` keeps its meaning: the delete-before-replace default.
    let dbr_default = match (args.approve_replacements, display) {
        (Some(ApprovalArg::Ask), Display::Console) | (None, Display::Console) => {
            ApprovalPolicy::Ask
        }
        (Some(ApprovalArg::Ask), _) if served || args.decisions.is_some() => ApprovalPolicy::Ask,
        (Some(ApprovalArg::Ask), _) => {
            return Err(usage(
                "--approve-replacements ask needs the console, --serve or --decisions; use auto or decline with --non-interactive or --json",
            ));
        }
        (Some(ApprovalArg::Decline), _) => ApprovalPolicy::Decline,
        (Some(ApprovalArg::Auto), _) | (None, _) => ApprovalPolicy::Auto,
    };
    let mut rules = stack_rules(&stack.settings, &ws.project.name)?;
    if let Some(path) = &args.approve_file {
        rules.extend(read_policy_file(path).map_err(|e| usage(e.to_string()))?);
    }
    for spec in &args.approve {
        let parsed =
            ApprovalRule::parse_flag(spec).map_err(|e| usage(format!("--approve {spec}: {e}")))?;
        rules.extend(parsed);
    }
    let decisions = match &args.decisions {
        Some(path) => Some(
            read_decisions(path)
                .map_err(|e| usage(format!("reading the decision file {}: {e}", path.display())))?,
        ),
        None => None,
    };
    Ok(ApprovalSettings {
        approvals: Approvals::new(rules, dbr_default),
        decisions,
        unattended,
    })
}
