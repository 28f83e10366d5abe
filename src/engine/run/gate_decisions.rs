//! Decisions written down before the run (`--decisions FILE`): URN globs to approve or decline,
//! so a gate is answered without an operator. A gate no rule answers, in a run nobody watches,
//! is declined rather than left waiting.

use crate::engine::model::targets::UrnGlob;
use crate::engine::model::urn::Urn;

/// A decision word that is neither `approve` nor `decline`; keeps the word for the message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown decision {0:?}: expected approve or decline")]
pub struct UnknownDecision(pub String);

/// One `glob: approve|decline` line.
#[derive(Clone, Debug)]
struct DecisionRule {
    glob: UrnGlob,
    approve: bool,
}

/// The decisions of one file, in the order written; the first matching glob decides.
#[derive(Clone, Debug, Default)]
pub struct GateDecisions {
    /// The file they came from, recorded as the decider.
    pub source: String,
    rules: Vec<DecisionRule>,
}

impl GateDecisions {
    pub fn new(source: impl Into<String>) -> GateDecisions {
        GateDecisions {
            source: source.into(),
            rules: Vec::new(),
        }
    }

    /// Adds a rule; `decision` must be `approve` or `decline`.
    pub fn push(&mut self, glob: &str, decision: &str) -> Result<(), UnknownDecision> {
        let approve = match decision.trim() {
            "approve" => true,
            "decline" => false,
            other => return Err(UnknownDecision(other.to_string())),
        };
        self.rules.push(DecisionRule {
            glob: UrnGlob::new(glob),
            approve,
        });
        Ok(())
    }

    /// Whether the file approves (`Some(true)`) or declines a gate on `urn`.
    pub fn decide(&self, urn: &Urn) -> Option<bool> {
        self.rules
            .iter()
            .find(|r| r.glob.matches(urn.as_str()))
            .map(|r| r.approve)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_matching_glob_decides() {
        let mut d = GateDecisions::new("d.yaml");
        d.push("**::keep-*", "decline").unwrap();
        d.push("**", "approve").unwrap();
        let urn = |n: &str| Urn::new("dev", "p", None, "t:m:R", n);
        assert_eq!(d.decide(&urn("keep-db")), Some(false));
        assert_eq!(d.decide(&urn("web")), Some(true));
        assert_eq!(GateDecisions::new("x").decide(&urn("web")), None);
        let e = d.push("**", "later").unwrap_err();
        assert_eq!(e, UnknownDecision("later".into()));
        assert_eq!(
            e.to_string(),
            "unknown decision \"later\": expected approve or decline"
        );
    }
}
