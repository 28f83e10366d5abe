//! Resource and error hooks whose code is in the program: the engine's hook calls become
//! `ResourceHookRequest`/`ErrorHookRequest` invocations of the program's callback server.

use std::sync::Arc;

use async_trait::async_trait;

use super::Callbacks;
use crate::engine::hooks::{
    ErrorHookCall, ErrorHookFn, HookCall, HookCallError, HookKind, ResourceHookFn,
};
use crate::engine::{PropertyMap, Urn};
use crate::rpc::marshal::{MarshalOptions, map_to_struct};
use crate::rpc::pulumirpc::{
    Callback, ErrorHookRequest, ErrorHookResponse, ResourceHookRequest, ResourceHookResponse,
};

/// A hook registered by the program, run through its callback server.
pub struct CallbackHook {
    callbacks: Arc<Callbacks>,
    callback: Callback,
}

impl CallbackHook {
    pub fn new(callbacks: Arc<Callbacks>, callback: Callback) -> CallbackHook {
        CallbackHook {
            callbacks,
            callback,
        }
    }

    /// Invokes the hook; an unreachable or raising callback is the hook's failure.
    async fn ask<R: prost::Message + Default>(
        &self,
        request: &impl prost::Message,
    ) -> Result<R, HookCallError> {
        self.callbacks
            .invoke(&self.callback, request)
            .await
            .map_err(|e| HookCallError::NotRun(e.to_string()))
    }
}

fn encoded(m: Option<&PropertyMap>) -> Option<prost_types::Struct> {
    m.map(|m| map_to_struct(m, MarshalOptions::ALL))
}

/// The URN's parts the SDKs are given beside it: name and type.
fn parts(urn: Option<&Urn>) -> (String, String, String) {
    urn.map_or_else(Default::default, |u| {
        (u.to_string(), u.name().to_string(), u.type_().to_string())
    })
}

#[async_trait]
impl ResourceHookFn for CallbackHook {
    async fn call(&self, _kind: HookKind, call: &HookCall) -> Result<(), HookCallError> {
        let (urn, name, r#type) = parts(call.urn.as_ref());
        let request = ResourceHookRequest {
            urn,
            id: call.id.clone(),
            name,
            r#type,
            new_inputs: encoded(call.new_inputs.as_ref()),
            old_inputs: encoded(call.old_inputs.as_ref()),
            new_outputs: encoded(call.new_outputs.as_ref()),
            old_outputs: encoded(call.old_outputs.as_ref()),
        };
        let response: ResourceHookResponse = self.ask(&request).await?;
        if response.error.is_empty() {
            Ok(())
        } else {
            Err(HookCallError::Answered(response.error))
        }
    }
}

#[async_trait]
impl ErrorHookFn for CallbackHook {
    async fn call(&self, call: &ErrorHookCall) -> Result<bool, HookCallError> {
        let (urn, name, r#type) = parts(call.urn.as_ref());
        let request = ErrorHookRequest {
            urn,
            id: call.id.clone(),
            name,
            r#type,
            new_inputs: encoded(call.new_inputs.as_ref()),
            old_inputs: encoded(call.old_inputs.as_ref()),
            old_outputs: encoded(call.old_outputs.as_ref()),
            failed_operation: call.failed_operation.clone(),
            errors: call.errors.clone(),
        };
        let response: ErrorHookResponse = self.ask(&request).await?;
        if response.error.is_empty() {
            Ok(response.retry)
        } else {
            Err(HookCallError::Answered(response.error))
        }
    }
}
