//! Decisions written down before the run (`--decisions FILE`): URN globs to approve or decline,
//! so a gate is answered without an operator. A gate no rule answers, in a run nobody watches,
//! is declined rather than left waiting.

use super::targets::UrnGlob;
use super::urn::Urn;

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
    pub fn push(&mut self, glob: &str, decision: &str) -> Result<(), String> {
        let approve = match decision.trim() {
            "approve" => true,
            "decline" => false,
            other => {
                return Err(format!(
                    "unknown decision {other:?}: expected approve or decline"
                ));
            }
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
        assert!(d.push("**", "later").unwrap_err().contains("later"));
    }
}
