//! `stack ls`: the project's stacks (or every project's), as Pulumi's DIY backends list them:
//! sorted by name, each named as Pulumi prints a reference (bare for this project's), the
//! current one marked; `--json` is Pulumi's `stackSummaryJSON` list.

use anyhow::Result;
use serde_json::{Value, json};
use stepdeck::state::StackSummary;

use super::stack_name::{ORGANIZATION, StackName};
use super::stdout::outln;
use super::time_format::pulumi_time;
use super::workspace::Workspace;

/// Which stacks `stack ls` lists.
pub(super) struct Filter {
    /// Only this project's (`None`: every project's, `--all`).
    pub project: Option<String>,
    /// `--organization`: DIY backends hold only `organization`'s stacks.
    pub organization: Option<String>,
    /// `--tag NAME` or `--tag NAME=VALUE`.
    pub tag: Option<String>,
}

/// One listed stack: its name and what the backend summarised.
struct Row {
    name: StackName,
    summary: StackSummary,
}

pub(super) fn run(ws: &Workspace, filter: &Filter, json: bool) -> Result<()> {
    let mut rows = Vec::new();
    if filter
        .organization
        .as_deref()
        .is_none_or(|o| o == ORGANIZATION)
    {
        let projects = match &filter.project {
            Some(p) => vec![p.clone()],
            None => ws.backend.projects()?,
        };
        for project in projects {
            for summary in ws.backend.list_stacks(&project)? {
                rows.push(Row {
                    name: StackName::new(&project, &summary.name),
                    summary,
                });
            }
        }
    }
    if let Some(tag) = &filter.tag {
        let (key, value) = match tag.split_once('=') {
            Some((k, v)) => (k, Some(v)),
            None => (tag.as_str(), None),
        };
        let mut kept = Vec::new();
        for row in rows {
            let mut tags = ws.backend.user_tags(&ws.reference(&row.name)?)?;
            tags.insert("pulumi:project".into(), row.name.project().to_string());
            let found = tags.get(key);
            if found.is_some() && value.is_none_or(|v| found.map(String::as_str) == Some(v)) {
                kept.push(row);
            }
        }
        rows = kept;
    }
    let shown = |r: &Row| ws.shown(&r.name);
    rows.sort_by_key(|r| shown(r));
    // Only the current project's selected stack is current, as Pulumi's workspace has one.
    let current = |r: &Row| r.summary.current && r.name.project() == ws.project.name;
    if json {
        let list: Vec<Value> = rows
            .iter()
            .map(|r| {
                let mut o = json!({"name": shown(r), "current": current(r)});
                if let Some(t) = r.summary.last_update.as_deref() {
                    o["lastUpdate"] = pulumi_time(t).into();
                    o["resourceCount"] = r.summary.resource_count.into();
                }
                o
            })
            .collect();
        outln!("{}", serde_json::to_string_pretty(&list)?)?;
        return Ok(());
    }
    outln!("{:<24} {:<26} RESOURCE COUNT", "NAME", "LAST UPDATE")?;
    for r in &rows {
        let marker = if current(r) { "*" } else { "" };
        let updated = r.summary.last_update.as_deref().unwrap_or("n/a");
        outln!(
            "{:<24} {updated:<26} {}",
            format!("{}{marker}", shown(r)),
            r.summary.resource_count
        )?;
    }
    Ok(())
}
