//! Policy packs as a run consults them (Pulumi's analyzers): the seam between the engine and
//! whatever runs a pack (a process over gRPC, or a test's script). The engine asks each pack to
//! remediate and then analyze a resource before its step is chosen, and to analyze the whole
//! stack once at the end; what a pack answers is typed here, and what it means for the run is
//! decided in `steps::policy`.

pub mod info;
pub mod level;
pub mod resource;
pub mod verdict;

use async_trait::async_trait;

pub use info::{AnalyzerInfo, PolicyInfo, PolicyType};
pub use level::{EnforcementLevel, PolicySeverity};
pub use resource::{AnalyzerProvider, AnalyzerResource, AnalyzerStackResource, ResourceOptions};
pub use verdict::{
    AnalyzeDiagnostic, AnalyzeResponse, NotApplicable, RemediateResponse, Remediation,
};

/// A pack's call that failed: its message (the pack's own words, or why the call did not reach
/// it). The engine reports it on the resource and fails the run, as Pulumi does.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct AnalyzerError(pub String);

/// A pack's call that failed, as the run reports it (Pulumi's words).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PolicyError {
    #[error("failed to run remediation: {0}")]
    Remediate(AnalyzerError),
    #[error("failed to run policy: {0}")]
    Analyze(AnalyzerError),
    #[error("failed to analyze resources: {0}")]
    AnalyzeStack(AnalyzerError),
}

/// One loaded policy pack. Remediate is called pack after pack (each sees the inputs the one
/// before rewrote), Analyze for every pack at once, AnalyzeStack once when the run's steps are
/// done; the info is what the pack said about itself when it was loaded and configured.
#[async_trait]
pub trait Analyzer: Send + Sync {
    /// The pack's name, version and policies (levels as configured for this run).
    fn info(&self) -> &AnalyzerInfo;

    /// How the run's summary names the pack (Pulumi's `<name>|local|<path>` for a local pack).
    fn event_name(&self) -> String;

    async fn remediate(&self, r: &AnalyzerResource) -> Result<RemediateResponse, AnalyzerError>;

    async fn analyze(&self, r: &AnalyzerResource) -> Result<AnalyzeResponse, AnalyzerError>;

    async fn analyze_stack(
        &self,
        resources: &[AnalyzerStackResource],
    ) -> Result<AnalyzeResponse, AnalyzerError>;

    /// The run is over (Pulumi's `Cancel` on shutdown): the pack may stop; the engine drops it
    /// right after.
    async fn cancel(&self) {}
}
