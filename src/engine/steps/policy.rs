//! Policy packs in a run (Pulumi's analyzers in its step generator and deployment executor):
//! for each resource the program registers, remediations pack after pack and then analysis by
//! every pack at once; once the steps are done, analysis of the whole stack. Each answer goes
//! out as events, and its enforcement level decides what the run does: advisory reports,
//! mandatory stops the resource's step in an update (a preview reports and fails at its end),
//! remediate rewrites the inputs, disabled never reaches the engine.

use std::sync::Arc;

use crate::engine::model::property::PropertyMap;
use crate::engine::model::urn::Urn;
use crate::engine::run::events::{
    EngineEvent, EventSink, Operation, PolicyCall, PolicyRemediation, PolicySummary,
    PolicyViolation,
};
use crate::engine::run::policy::{
    AnalyzeDiagnostic, AnalyzeResponse, Analyzer, AnalyzerInfo, AnalyzerResource,
    AnalyzerStackResource, EnforcementLevel, NotApplicable, PolicyError, PolicySeverity,
    PolicyType,
};

/// What the packs made of one resource.
#[derive(Debug, Default)]
pub(crate) struct ResourceVerdict {
    /// The inputs the last remediation wrote, to use instead of the checked ones.
    pub inputs: Option<PropertyMap>,
    /// Some pack reported a mandatory violation.
    pub mandatory: bool,
    /// Some pack reported an advisory violation.
    pub advisory: bool,
}

/// The packs a run consults, and where their answers are reported.
pub(crate) struct Policies {
    analyzers: Vec<Arc<dyn Analyzer>>,
    events: EventSink,
}

impl Policies {
    /// The packs of a run of `operation`: only previews and updates consult packs (Pulumi's
    /// refresh, import and destroy never run local packs).
    pub(in crate::engine) fn new(
        analyzers: Vec<Arc<dyn Analyzer>>,
        operation: Operation,
        events: EventSink,
    ) -> Policies {
        let consulted = matches!(operation, Operation::Preview | Operation::Update);
        Policies {
            analyzers: if consulted { analyzers } else { Vec::new() },
            events,
        }
    }

    pub(in crate::engine) fn is_empty(&self) -> bool {
        self.analyzers.is_empty()
    }

    /// The summary's `PolicyPacks`: each pack's event name to its version.
    pub(in crate::engine) fn packs(&self) -> std::collections::BTreeMap<String, String> {
        self.analyzers
            .iter()
            .map(|a| (a.event_name(), a.info().version.clone()))
            .collect()
    }

    /// Tells every pack the run is over.
    pub(in crate::engine) async fn cancel(&self) {
        futures::future::join_all(self.analyzers.iter().map(|a| a.cancel())).await;
    }

    /// Remediates a resource pack after pack (each sees what the one before wrote), then has
    /// every pack analyze the result at once. `r.properties` are the checked inputs.
    pub(in crate::engine) async fn resource(
        &self,
        mut r: AnalyzerResource,
    ) -> Result<ResourceVerdict, PolicyError> {
        let mut verdict = ResourceVerdict::default();
        for analyzer in &self.analyzers {
            let response = analyzer
                .remediate(&r)
                .await
                .map_err(PolicyError::Remediate)?;
            for t in &response.remediations {
                if !t.diagnostic.is_empty() {
                    verdict.advisory = true;
                    self.violation(
                        r.urn.clone(),
                        AnalyzeDiagnostic {
                            policy_name: t.policy_name.clone(),
                            pack_name: t.pack_name.clone(),
                            pack_version: t.pack_version.clone(),
                            description: t.description.clone(),
                            message: t.diagnostic.clone(),
                            level: EnforcementLevel::Advisory,
                            urn: Some(r.urn.clone()),
                            severity: PolicySeverity::Unspecified,
                        },
                    );
                    continue;
                }
                self.events.send(EngineEvent::PolicyRemediation(Box::new(
                    PolicyRemediation {
                        urn: r.urn.clone(),
                        policy_name: t.policy_name.clone(),
                        pack_name: t.pack_name.clone(),
                        pack_version: t.pack_version.clone(),
                        before: r.properties.clone(),
                        after: t.properties.clone(),
                    },
                )));
                r.properties = t.properties.clone();
                verdict.inputs = Some(t.properties.clone());
            }
            let failed = response.remediations.iter().map(|t| t.policy_name.as_str());
            self.summary(
                PolicyCall::Remediate,
                Some(&r.urn),
                analyzer.info(),
                failed,
                &response.not_applicable,
            );
        }
        let calls = self.analyzers.iter().map(|a| a.analyze(&r));
        let answers = futures::future::join_all(calls).await;
        for (analyzer, answer) in self.analyzers.iter().zip(answers) {
            let response = answer.map_err(PolicyError::Analyze)?;
            let (mandatory, advisory) = self.report(analyzer.info(), &response, |_| r.urn.clone());
            verdict.mandatory |= mandatory;
            verdict.advisory |= advisory;
            self.summary(
                PolicyCall::Analyze,
                Some(&r.urn),
                analyzer.info(),
                response.diagnostics.iter().map(|d| d.policy_name.as_str()),
                &response.not_applicable,
            );
        }
        Ok(verdict)
    }

    /// Has every pack analyze the stack's resources at once; a violation names its resource
    /// when that is in the stack, else `root`. True when one was mandatory.
    pub(in crate::engine) async fn stack(
        &self,
        resources: &[AnalyzerStackResource],
        root: &Urn,
    ) -> Result<bool, PolicyError> {
        let in_stack = |u: &Urn| resources.iter().any(|r| &r.resource.urn == u);
        let calls = self.analyzers.iter().map(|a| a.analyze_stack(resources));
        let answers = futures::future::join_all(calls).await;
        let mut mandatory = false;
        for (analyzer, answer) in self.analyzers.iter().zip(answers) {
            let response = answer.map_err(PolicyError::AnalyzeStack)?;
            let (m, _) = self.report(analyzer.info(), &response, |d| {
                d.urn
                    .clone()
                    .filter(|u| in_stack(u))
                    .unwrap_or_else(|| root.clone())
            });
            mandatory |= m;
            self.summary(
                PolicyCall::AnalyzeStack,
                None,
                analyzer.info(),
                response.diagnostics.iter().map(|d| d.policy_name.as_str()),
                &response.not_applicable,
            );
        }
        Ok(mandatory)
    }

    /// Sends a response's violations, each on the resource `urn_of` names; says whether any
    /// was mandatory and whether any was advisory. A violation of a remediate-level policy is
    /// mandatory: the remediation ran and the resource still fails it.
    fn report(
        &self,
        info: &AnalyzerInfo,
        response: &AnalyzeResponse,
        urn_of: impl Fn(&AnalyzeDiagnostic) -> Urn,
    ) -> (bool, bool) {
        let (mut mandatory, mut advisory) = (false, false);
        for d in &response.diagnostics {
            let mut d = d.clone();
            if d.level == EnforcementLevel::Remediate {
                d.level = EnforcementLevel::Mandatory;
            }
            match d.level {
                EnforcementLevel::Mandatory => mandatory = true,
                EnforcementLevel::Advisory => advisory = true,
                _ => continue,
            }
            if d.severity == PolicySeverity::Unspecified {
                d.severity = info.severity_of(&d.policy_name);
            }
            self.violation(urn_of(&d), d);
        }
        (mandatory, advisory)
    }

    fn violation(&self, urn: Urn, d: AnalyzeDiagnostic) {
        self.events
            .send(EngineEvent::PolicyViolation(Box::new(PolicyViolation {
                urn,
                policy_name: d.policy_name,
                pack_name: d.pack_name,
                pack_version: d.pack_version,
                message: d.message,
                level: d.level,
                severity: d.severity,
            })));
    }

    /// Sends Pulumi's summary of one call: the policies of the call's kind that ran and found
    /// nothing (not disabled, not failed, not inapplicable), and those that failed, sorted.
    fn summary<'a>(
        &self,
        call: PolicyCall,
        urn: Option<&Urn>,
        info: &AnalyzerInfo,
        failed: impl Iterator<Item = &'a str>,
        not_applicable: &[NotApplicable],
    ) {
        let mut failed: Vec<String> = failed.map(str::to_string).collect();
        failed.sort();
        failed.dedup();
        let kind = if call == PolicyCall::AnalyzeStack {
            PolicyType::Stack
        } else {
            PolicyType::Resource
        };
        let passed: Vec<String> = info
            .policies
            .iter()
            .filter(|p| p.policy_type == kind || p.policy_type == PolicyType::Unknown)
            .filter(|p| p.level != EnforcementLevel::Disabled)
            .filter(|p| !failed.contains(&p.name))
            .filter(|p| !not_applicable.iter().any(|n| n.policy_name == p.name))
            .map(|p| p.name.clone())
            .collect();
        self.events
            .send(EngineEvent::PolicySummary(Box::new(PolicySummary {
                call,
                urn: urn.cloned(),
                pack_name: info.name.clone(),
                pack_version: info.version.clone(),
                passed,
                failed,
            })));
    }
}
