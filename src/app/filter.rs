//! The `/` filter: free words match a resource's name or type, `op:<op>` keeps resources whose
//! planned op is one of those given (`op:replace`, `op:create,delete`), `type:`, `status:` and
//! `urn:` match the type, the status (`status:failed,skipped`) and the URN.

use crate::engine::StepOp;

use super::model::{Resource, Status};

/// Why a filter text cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FilterError {
    #[error(
        "unknown op {0:?} in filter: expected one of create, update, delete, replace, same, read, import, refresh, …"
    )]
    UnknownOp(String),
    #[error(
        "unknown status {0:?} in filter: expected one of planned, running, done, failed, skipped, waiting, interrupted, declined"
    )]
    UnknownStatus(String),
}

/// A parsed filter; the empty filter keeps everything.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Filter {
    text: String,
    ops: Vec<StepOp>,
    words: Vec<String>,
    types: Vec<String>,
    statuses: Vec<Status>,
    urns: Vec<String>,
}

/// The comma-separated values of a `key:` term, lowercased.
fn values(list: &str) -> impl Iterator<Item = String> + '_ {
    list.split(',')
        .filter(|s| !s.is_empty())
        .map(str::to_lowercase)
}

impl Filter {
    pub fn parse(text: &str) -> Result<Filter, FilterError> {
        let mut f = Filter {
            text: text.trim().to_string(),
            ..Filter::default()
        };
        for part in text.split_whitespace() {
            if let Some(list) = part.strip_prefix("op:") {
                for name in values(list) {
                    let op = StepOp::parse(&name).ok_or(FilterError::UnknownOp(name))?;
                    f.ops.push(op);
                }
            } else if let Some(list) = part.strip_prefix("status:") {
                for name in values(list) {
                    let s = Status::parse(&name).ok_or(FilterError::UnknownStatus(name))?;
                    f.statuses.push(s);
                }
            } else if let Some(list) = part.strip_prefix("type:") {
                f.types.extend(values(list));
            } else if let Some(list) = part.strip_prefix("urn:") {
                f.urns.extend(values(list));
            } else {
                f.words.push(part.to_lowercase());
            }
        }
        Ok(f)
    }

    /// The text the filter was parsed from (shown in the Resources title).
    pub fn text(&self) -> &str {
        &self.text
    }

    /// An empty filter keeps every resource.
    pub fn is_empty(&self) -> bool {
        self.ops.is_empty()
            && self.words.is_empty()
            && self.types.is_empty()
            && self.statuses.is_empty()
            && self.urns.is_empty()
    }

    /// Whether the filter looks at statuses, which change without the tree's structure.
    pub fn by_status(&self) -> bool {
        !self.statuses.is_empty()
    }

    /// Whether `r` passes: its op is among `op:` ops and every word is in its name, type or op.
    pub fn matches(&self, r: &Resource) -> bool {
        if !self.ops.is_empty() && !r.op.is_some_and(|op| self.ops.contains(&op)) {
            return false;
        }
        if !self.statuses.is_empty() && !self.statuses.contains(&r.status) {
            return false;
        }
        let any_in = |wanted: &[String], text: &str| {
            let text = text.to_lowercase();
            wanted.is_empty() || wanted.iter().any(|w| text.contains(w.as_str()))
        };
        if !any_in(&self.types, r.type_()) || !any_in(&self.urns, r.urn.as_str()) {
            return false;
        }
        if self.words.is_empty() {
            return true;
        }
        let name = r.name().to_lowercase();
        let type_ = r.type_().to_lowercase();
        let op = r.op.map_or("", StepOp::as_str);
        self.words
            .iter()
            .all(|w| name.contains(w.as_str()) || type_.contains(w.as_str()) || op == w)
    }
}
