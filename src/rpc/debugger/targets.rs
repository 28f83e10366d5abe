//! What `--attach-debugger` asks for: Pulumi's values `program`, `plugins`, `plugin:<name>` and
//! `all`, the flag repeatable.

/// The programs and plugins a run starts under a debugger; empty when the flag is not given.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DebugTargets(Vec<String>);

/// A `--attach-debugger` value Pulumi does not know (its words).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid --attach-debugger flag value: {0}")]
pub struct BadDebugTarget(pub String);

impl DebugTargets {
    /// The flag's values, each checked as Pulumi's `validateAttachDebuggerFlag` checks them.
    pub fn parse(values: &[String]) -> Result<DebugTargets, BadDebugTarget> {
        for value in values {
            let known = ["program", "plugins", "all"].contains(&value.as_str())
                || value.starts_with("plugin:");
            if !known {
                return Err(BadDebugTarget(value.clone()));
            }
        }
        Ok(DebugTargets(values.to_vec()))
    }

    /// Whether the project's program waits for a debugger (`program`, `all`).
    pub fn program(&self) -> bool {
        self.has("program") || self.has("all")
    }

    /// Whether the plugin of `package` waits for a debugger (`plugins`, `plugin:<package>`,
    /// `all`).
    pub fn plugin(&self, package: &str) -> bool {
        self.has("plugins")
            || self.has("all")
            || self
                .0
                .iter()
                .any(|v| v.strip_prefix("plugin:") == Some(package))
    }

    fn has(&self, value: &str) -> bool {
        self.0.iter().any(|v| v == value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn targets(values: &[&str]) -> DebugTargets {
        DebugTargets::parse(&values.iter().map(|v| v.to_string()).collect::<Vec<_>>()).unwrap()
    }

    #[test]
    fn each_value_selects_what_pulumi_selects() {
        assert!(!targets(&[]).program() && !targets(&[]).plugin("p"));
        assert!(targets(&["program"]).program() && !targets(&["program"]).plugin("p"));
        assert!(!targets(&["plugins"]).program() && targets(&["plugins"]).plugin("p"));
        assert!(targets(&["all"]).program() && targets(&["all"]).plugin("p"));
        let named = targets(&["plugin:p"]);
        assert!(named.plugin("p") && !named.plugin("q") && !named.program());
        assert_eq!(
            DebugTargets::parse(&["plugin".to_string()]),
            Err(BadDebugTarget("plugin".into()))
        );
    }
}
