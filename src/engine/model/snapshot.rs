//! Snapshots: the recorded state of a stack, and the integrity rules every saved snapshot obeys.

use std::collections::HashSet;
use std::sync::Arc;

use foldhash::fast::RandomState as FastHash;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::property::PropertyMap;
use super::resource::{PendingOperation, ResourceState};
use super::urn::{ROOT_STACK_TYPE, Urn};

/// URNs borrowed from the snapshot being checked.
type UrnRefs<'a> = HashSet<&'a Urn, FastHash>;

/// The engine version written into manifests.
pub const ENGINE_VERSION: &str = concat!("stepdeck-", env!("CARGO_PKG_VERSION"));

/// Who wrote a snapshot and when; `magic` lets a reader detect a manifest edited by hand.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    pub time: String,
    pub magic: String,
    pub version: String,
}

impl Manifest {
    pub fn now() -> Manifest {
        Manifest {
            time: chrono::Utc::now().to_rfc3339(),
            magic: magic_for(ENGINE_VERSION),
            version: ENGINE_VERSION.to_string(),
        }
    }
}

/// Hex SHA-256 of the version string, as Pulumi computes a manifest's magic.
pub fn magic_for(version: &str) -> String {
    hex::encode(Sha256::digest(version.as_bytes()))
}

impl Default for Manifest {
    fn default() -> Self {
        Manifest::now()
    }
}

/// A stack's resources in dependency order, plus what was in flight.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Snapshot {
    pub manifest: Manifest,
    pub resources: Vec<ResourceState>,
    pub pending_operations: Vec<PendingOperation>,
}

/// A base snapshot's states as a deployment shares them: the step generator, the steps (each
/// holds its old state by pointer) and the journal's replayer read the same states, so an
/// unchanged resource is never copied.
pub type BaseStates = Arc<Vec<Arc<ResourceState>>>;

/// Shares states (moved, not copied) as a deployment's base.
pub fn share_states(resources: Vec<ResourceState>) -> BaseStates {
    Arc::new(resources.into_iter().map(Arc::new).collect())
}

/// A broken rule found in a snapshot.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum IntegrityError {
    #[error("manifest magic {found:?} does not match version {version:?}")]
    Magic { found: String, version: String },
    #[error("resource #{index} has no URN or no type")]
    MissingIdentity { index: usize },
    #[error("component {urn} has an ID")]
    ComponentWithId { urn: Urn },
    #[error("provider {urn} has no ID and cannot be referenced")]
    ProviderWithoutId { urn: Urn },
    #[error("resource {urn}'s {field} {target} comes after it")]
    ComesAfter {
        urn: Urn,
        field: &'static str,
        target: String,
    },
    #[error("resource {urn}'s {field} {target} is missing from the snapshot")]
    Missing {
        urn: Urn,
        field: &'static str,
        target: String,
    },
    #[error("resource {urn} appears more than once without being marked for deletion")]
    Duplicate { urn: Urn },
}

impl Snapshot {
    /// The stack's outputs: those of its live root stack resource (none without one).
    pub fn stack_outputs(&self) -> PropertyMap {
        self.resources
            .iter()
            .find(|r| r.type_ == ROOT_STACK_TYPE && !r.delete)
            .map(|r| r.outputs.clone())
            .unwrap_or_default()
    }

    /// Checks the rules of Pulumi's `VerifyIntegrity`: identity, provider references, and every
    /// parent, provider, dependency, deletedWith and replaceWith target appearing earlier than its
    /// dependent.
    pub fn verify_integrity(&self) -> Result<(), IntegrityError> {
        if self.manifest.magic != magic_for(&self.manifest.version) {
            return Err(IntegrityError::Magic {
                found: self.manifest.magic.clone(),
                version: self.manifest.version.clone(),
            });
        }
        // Whether a reference that is not among the states before it is anywhere at all; only
        // asked once a check has failed, to name the fault.
        let anywhere = |target: &Urn| self.resources.iter().any(|r| &r.urn == target);
        let mut seen = UrnRefs::with_capacity_and_hasher(self.resources.len(), Default::default());
        let mut providers: HashSet<(&Urn, &str), FastHash> = HashSet::default();
        let mut live = UrnRefs::with_capacity_and_hasher(self.resources.len(), Default::default());
        for (index, r) in self.resources.iter().enumerate() {
            if r.urn.as_str().is_empty() || r.type_.is_empty() {
                return Err(IntegrityError::MissingIdentity { index });
            }
            if !r.custom && r.id.as_deref().is_some_and(|id| !id.is_empty()) {
                return Err(IntegrityError::ComponentWithId { urn: r.urn.clone() });
            }
            if let Some(p) = &r.provider
                && !r.pending_replacement
                && !providers.contains(&(&p.urn, &*p.id))
            {
                let field = "provider";
                return Err(if anywhere(&p.urn) {
                    IntegrityError::ComesAfter {
                        urn: r.urn.clone(),
                        field,
                        target: p.to_string(),
                    }
                } else {
                    IntegrityError::Missing {
                        urn: r.urn.clone(),
                        field,
                        target: p.to_string(),
                    }
                });
            }
            let check = |field: &'static str, target: &Urn| -> Result<(), IntegrityError> {
                if seen.contains(target) {
                    Ok(())
                } else if anywhere(target) {
                    Err(IntegrityError::ComesAfter {
                        urn: r.urn.clone(),
                        field,
                        target: target.to_string(),
                    })
                } else {
                    Err(IntegrityError::Missing {
                        urn: r.urn.clone(),
                        field,
                        target: target.to_string(),
                    })
                }
            };
            if let Some(p) = &r.parent {
                check("parent", p)?;
            }
            for d in &r.dependencies {
                check("dependency", d)?;
            }
            for d in r.property_dependencies.values().flatten() {
                check("property dependency", d)?;
            }
            if let Some(d) = &r.deleted_with {
                check("deletedWith", d)?;
            }
            for d in &r.replace_with {
                check("replaceWith", d)?;
            }
            if r.is_provider() {
                match &r.id {
                    Some(id) if !id.is_empty() => {
                        providers.insert((&r.urn, id.as_str()));
                    }
                    _ => return Err(IntegrityError::ProviderWithoutId { urn: r.urn.clone() }),
                }
            }
            if !r.delete && !live.insert(&r.urn) {
                return Err(IntegrityError::Duplicate { urn: r.urn.clone() });
            }
            seen.insert(&r.urn);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn res(name: &str, deps: &[&Urn]) -> ResourceState {
        ResourceState {
            urn: Urn::new("s", "p", None, "t:index:R", name),
            custom: true,
            id: Some(format!("id-{name}")),
            type_: "t:index:R".into(),
            dependencies: deps.iter().map(|u| (*u).clone()).collect(),
            ..Default::default()
        }
    }

    #[test]
    fn order_and_duplicates_are_checked() {
        let a = res("a", &[]);
        let b = res("b", &[&a.urn]);
        let mut snap = Snapshot {
            resources: vec![a.clone(), b.clone()],
            ..Default::default()
        };
        assert_eq!(snap.verify_integrity(), Ok(()));
        snap.resources.reverse();
        assert!(matches!(
            snap.verify_integrity(),
            Err(IntegrityError::ComesAfter { .. })
        ));
        snap.resources = vec![b.clone()];
        assert!(matches!(
            snap.verify_integrity(),
            Err(IntegrityError::Missing { .. })
        ));
        snap.resources = vec![a.clone(), a.clone()];
        assert!(matches!(
            snap.verify_integrity(),
            Err(IntegrityError::Duplicate { .. })
        ));
        let mut old = a.clone();
        old.delete = true;
        snap.resources = vec![old, a];
        assert_eq!(snap.verify_integrity(), Ok(()));
    }

    #[test]
    fn replace_with_targets_must_come_first() {
        let a = res("a", &[]);
        let mut b = res("b", &[]);
        b.replace_with = vec![a.urn.clone()];
        let mut snap = Snapshot {
            resources: vec![a.clone(), b.clone()],
            ..Default::default()
        };
        assert_eq!(snap.verify_integrity(), Ok(()));
        snap.resources.reverse();
        assert_eq!(
            snap.verify_integrity().unwrap_err().to_string(),
            format!("resource {}'s replaceWith {} comes after it", b.urn, a.urn)
        );
        snap.resources = vec![b.clone()];
        assert_eq!(
            snap.verify_integrity().unwrap_err().to_string(),
            format!(
                "resource {}'s replaceWith {} is missing from the snapshot",
                b.urn, a.urn
            )
        );
    }

    #[test]
    fn tampered_magic_is_rejected() {
        let mut snap = Snapshot::default();
        snap.manifest.magic = "00".into();
        assert!(matches!(
            snap.verify_integrity(),
            Err(IntegrityError::Magic { .. })
        ));
    }
}
