//! `pulumi:pulumi:getResource`: the state of a resource this deployment registered or read,
//! as Pulumi's builtin provider answers it from the deployment's new and read states (the SDKs
//! call it to rehydrate a resource reference).

use std::sync::Arc;

use parking_lot::Mutex;

use super::registration::{RegisterError, Registered};
use crate::engine::model::property::{PropertyMap, PropertyValue};
use crate::engine::model::provider_ref::ProviderRef;
use crate::engine::model::urn::{Urn, UrnMap};

/// Provider references, each kept once: a deployment's resources use a handful of providers,
/// and a slot of one word per resource is a third of what a reference of its own would take.
type ProviderRefs = std::collections::HashSet<Arc<ProviderRef>, foldhash::fast::RandomState>;

/// The function's token.
pub(in crate::engine) const GET_RESOURCE: &str = "pulumi:pulumi:getResource";

#[derive(Clone, Debug)]
struct Known {
    id: Option<String>,
    provider: Option<Arc<ProviderRef>>,
    outputs: PropertyMap,
}

/// What the lookup holds behind its lock.
#[derive(Default)]
struct Table {
    /// Boxed: a table of a million entries has two million slots, and a slot is 24 bytes
    /// instead of 80.
    known: UrnMap<Box<Known>>,
    providers: ProviderRefs,
}

/// Tables of at least this many resources are freed on a thread of their own.
const FREED_APART: usize = 10_000;

impl Drop for Table {
    /// Freeing a million entries (and the outputs only they still hold) took a tenth of a
    /// preview's CPU, on the path to its end, where nothing waits for them.
    fn drop(&mut self) {
        if self.known.len() >= FREED_APART {
            crate::memory::free_in_background(std::mem::take(&mut self.known));
        }
    }
}

impl Table {
    /// The shared copy of `reference`, made on its first use.
    fn provider(&mut self, reference: ProviderRef) -> Arc<ProviderRef> {
        match self.providers.get(&reference) {
            Some(shared) => shared.clone(),
            None => {
                let shared = Arc::new(reference);
                self.providers.insert(shared.clone());
                shared
            }
        }
    }
}

/// The resources registered or read so far in this deployment; cheap to clone.
#[derive(Clone, Default)]
pub(crate) struct ResourceLookup {
    table: Arc<Mutex<Table>>,
}

impl ResourceLookup {
    /// Remembers a finished registration or read and the provider reference it used.
    pub(in crate::engine) fn record(&self, reg: &Registered, provider: Option<ProviderRef>) {
        let mut table = self.lock();
        let known = Known {
            id: reg.id.clone(),
            provider: provider.map(|p| table.provider(p)),
            outputs: reg.outputs.clone(),
        };
        table.known.insert(reg.urn.clone(), Box::new(known));
    }

    /// Whether the deployment registered or read `urn` (default providers aside: they are
    /// registered without a record here).
    pub(in crate::engine) fn contains(&self, urn: &Urn) -> bool {
        self.lock().known.contains_key(urn)
    }

    /// A component's (or the stack's) outputs, registered after the component itself.
    pub(in crate::engine) fn record_outputs(&self, urn: &Urn, outputs: &PropertyMap) {
        if let Some(k) = self.lock().known.get_mut(urn) {
            k.outputs = outputs.clone();
        }
    }

    /// `{urn, id, provider, state}` for `args.urn`, or Pulumi's "unknown resource" error.
    pub(in crate::engine) fn get_resource(
        &self,
        args: &PropertyMap,
    ) -> Result<PropertyMap, RegisterError> {
        let urn = match args.get("urn").map(PropertyValue::reveal) {
            Some(PropertyValue::String(s)) => s,
            _ => {
                return Err(RegisterError::MissingArgument {
                    function: GET_RESOURCE,
                    argument: "urn",
                });
            }
        };
        let found = Urn::parse(&urn)
            .ok()
            .and_then(|u| self.lock().known.get(&u).map(|k| Known::clone(k)))
            .ok_or_else(|| RegisterError::UnknownResource(urn.clone()))?;
        Ok(PropertyMap::from([
            ("urn".to_string(), PropertyValue::String(urn)),
            (
                "id".to_string(),
                PropertyValue::String(found.id.unwrap_or_default()),
            ),
            (
                "provider".to_string(),
                PropertyValue::String(
                    found
                        .provider
                        .as_ref()
                        .map(|p| p.to_string())
                        .unwrap_or_default(),
                ),
            ),
            ("state".to_string(), PropertyValue::Object(found.outputs)),
        ]))
    }

    fn lock(&self) -> parking_lot::MutexGuard<'_, Table> {
        self.table.lock()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::program::registration::RegisterStatus;

    fn registered(name: &str) -> Registered {
        Registered {
            urn: Urn::parse(&format!("urn:pulumi:s::p::sim:index:Resource::{name}")).unwrap(),
            id: Some(format!("{name}-1")),
            outputs: PropertyMap::new(),
            status: RegisterStatus::Success,
            unknown: false,
        }
    }

    #[test]
    fn resources_of_one_provider_share_its_reference_and_answer_with_it() {
        let lookup = ResourceLookup::default();
        let provider = "urn:pulumi:s::p::pulumi:providers:sim::default::a1";
        for name in ["a", "b"] {
            lookup.record(
                &registered(name),
                Some(ProviderRef::parse(provider).unwrap()),
            );
        }
        {
            let table = lookup.lock();
            let refs: Vec<&Arc<ProviderRef>> = table
                .known
                .values()
                .filter_map(|k| k.provider.as_ref())
                .collect();
            assert_eq!(refs.len(), 2);
            assert!(Arc::ptr_eq(refs[0], refs[1]));
        }
        let args = PropertyMap::from([(
            "urn".to_string(),
            PropertyValue::string("urn:pulumi:s::p::sim:index:Resource::b"),
        )]);
        let found = lookup.get_resource(&args).unwrap();
        assert_eq!(found["provider"], PropertyValue::string(provider));
        assert_eq!(found["id"], PropertyValue::string("b-1"));
    }
}
