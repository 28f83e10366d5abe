//! `pulumi:pulumi:getResource`: the state of a resource this deployment registered or read,
//! as Pulumi's builtin provider answers it from the deployment's new and read states (the SDKs
//! call it to rehydrate a resource reference).

use std::sync::Arc;

use parking_lot::Mutex;

use super::property::{PropertyMap, PropertyValue};
use super::registration::{RegisterError, Registered};
use super::urn::{Urn, UrnMap};

/// The function's token.
pub(super) const GET_RESOURCE: &str = "pulumi:pulumi:getResource";

#[derive(Clone, Debug)]
struct Known {
    id: Option<String>,
    provider: Option<String>,
    outputs: PropertyMap,
}

/// The resources registered or read so far in this deployment; cheap to clone.
#[derive(Clone, Default)]
pub(crate) struct ResourceLookup {
    known: Arc<Mutex<UrnMap<Known>>>,
}

impl ResourceLookup {
    /// Remembers a finished registration or read and the provider reference it used.
    pub(super) fn record(&self, reg: &Registered, provider: Option<String>) {
        let known = Known {
            id: reg.id.clone(),
            provider,
            outputs: reg.outputs.clone(),
        };
        self.lock().insert(reg.urn.clone(), known);
    }

    /// A component's (or the stack's) outputs, registered after the component itself.
    pub(super) fn record_outputs(&self, urn: &Urn, outputs: &PropertyMap) {
        if let Some(k) = self.lock().get_mut(urn) {
            k.outputs = outputs.clone();
        }
    }

    /// `{urn, id, provider, state}` for `args.urn`, or Pulumi's "unknown resource" error.
    pub(super) fn get_resource(&self, args: &PropertyMap) -> Result<PropertyMap, RegisterError> {
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
            .and_then(|u| self.lock().get(&u).cloned())
            .ok_or_else(|| RegisterError::UnknownResource(urn.clone()))?;
        Ok(PropertyMap::from([
            ("urn".to_string(), PropertyValue::String(urn)),
            (
                "id".to_string(),
                PropertyValue::String(found.id.unwrap_or_default()),
            ),
            (
                "provider".to_string(),
                PropertyValue::String(found.provider.unwrap_or_default()),
            ),
            ("state".to_string(), PropertyValue::Object(found.outputs)),
        ]))
    }

    fn lock(&self) -> parking_lot::MutexGuard<'_, UrnMap<Known>> {
        self.known.lock()
    }
}
