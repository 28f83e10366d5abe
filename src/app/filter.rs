//! The `/` filter: free words match a resource's name or type, `op:<op>` keeps resources whose
//! planned op is one of those given (`op:replace`, `op:create,delete`).

use crate::engine::step::StepOp;

use super::model::Resource;

/// Why a filter text cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FilterError {
    #[error(
        "unknown op {0:?} in filter: expected one of create, update, delete, replace, same, read, import, refresh, …"
    )]
    UnknownOp(String),
}

/// A parsed filter; the empty filter keeps everything.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Filter {
    text: String,
    ops: Vec<StepOp>,
    words: Vec<String>,
}

impl Filter {
    pub fn parse(text: &str) -> Result<Filter, FilterError> {
        let mut ops = Vec::new();
        let mut words = Vec::new();
        for part in text.split_whitespace() {
            match part.strip_prefix("op:") {
                Some(list) => {
                    for name in list.split(',').filter(|s| !s.is_empty()) {
                        let op = StepOp::parse(&name.to_lowercase())
                            .ok_or_else(|| FilterError::UnknownOp(name.to_string()))?;
                        ops.push(op);
                    }
                }
                None => words.push(part.to_lowercase()),
            }
        }
        Ok(Filter {
            text: text.trim().to_string(),
            ops,
            words,
        })
    }

    /// The text the filter was parsed from (shown in the Resources title).
    pub fn text(&self) -> &str {
        &self.text
    }

    /// An empty filter keeps every resource.
    pub fn is_empty(&self) -> bool {
        self.ops.is_empty() && self.words.is_empty()
    }

    /// Whether `r` passes: its op is among `op:` ops and every word is in its name, type or op.
    pub fn matches(&self, r: &Resource) -> bool {
        if !self.ops.is_empty() && !r.op.is_some_and(|op| self.ops.contains(&op)) {
            return false;
        }
        if self.words.is_empty() {
            return true;
        }
        let name = r.name().to_lowercase();
        let type_ = r.type_.to_lowercase();
        let op = r.op.map_or("", StepOp::as_str);
        self.words
            .iter()
            .all(|w| name.contains(w.as_str()) || type_.contains(w.as_str()) || op == w)
    }
}
