//! The types at the console's boundary: how the CLI opens it and what the operator chose.

/// Whether the console shows a preview (and may ask to apply it) or a live deployment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConsoleMode {
    /// A preview; with `awaiting_decision` (`up` before its update) `y` applies and `n` aborts.
    Preview { awaiting_decision: bool },
    /// An update, destroy or refresh running live.
    Live,
}

/// What the top bar names before the engine's prelude arrives.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Title {
    /// `up`, `preview`, `destroy`, `refresh`, `demo`.
    pub operation: String,
    pub stack: String,
    pub project: String,
    /// Where this session stands in a longer story (the demo's phases), shown in the top bar.
    pub phase: Option<String>,
}

/// How the console ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConsoleExit {
    /// Preview accepted: run the update.
    Apply,
    /// Preview rejected: do not run it.
    Abort,
    /// The operator changed which cascades the preview declines: preview again with them
    /// declined, so the plan shows what the apply will do.
    Repreview,
    /// The operator quit; `cancelled` when the deployment was still running and was cancelled.
    Quit { cancelled: bool },
    /// The deployment ended and the session was asked to leave by itself.
    Finished,
}

/// Why the console could not run.
#[derive(Debug, thiserror::Error)]
pub enum ConsoleError {
    #[error("terminal error: {0}")]
    Terminal(#[from] std::io::Error),
}

impl From<std::convert::Infallible> for ConsoleError {
    fn from(never: std::convert::Infallible) -> Self {
        match never {}
    }
}
