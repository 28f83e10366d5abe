//! The client side of `pulumirpc.Callbacks`: a language host hands the engine a `Callback`
//! (its server's address and a token) for code the engine must run later (transforms, hooks);
//! the engine dials that address once and invokes the token with an encoded request.

pub mod hooks;
pub mod transforms;

use std::collections::HashMap;

use prost::Message;
use tokio::sync::Mutex;

use super::MAX_MESSAGE_SIZE;
use super::pulumirpc::callbacks_client::CallbacksClient;
use super::pulumirpc::{Callback, CallbackInvokeRequest};
use super::transport::unary_channel::UnaryChannel;

/// Why a callback did not answer.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum CallbackError {
    /// The callback had no server address.
    #[error("callback {token:?} names no target")]
    NoTarget { token: String },
    #[error("cannot reach the callback server at {target}: {reason}")]
    Unreachable { target: String, reason: String },
    /// The program's code raised; the message is the SDK's (its error and stack).
    #[error("{0}")]
    Raised(String),
    #[error("callback {token:?} answered with a malformed response: {reason}")]
    Malformed { token: String, reason: String },
}

/// One connection per callback server (a program has one), shared by every callback it gave.
#[derive(Default)]
pub struct Callbacks {
    clients: Mutex<HashMap<String, CallbacksClient<UnaryChannel>>>,
}

impl Callbacks {
    /// Checks a callback as the monitor receives it, so a bad one is refused at registration
    /// rather than when it is first needed.
    pub fn check(callback: &Callback) -> Result<(), CallbackError> {
        if callback.target.is_empty() {
            return Err(CallbackError::NoTarget {
                token: callback.token.clone(),
            });
        }
        Ok(())
    }

    async fn client(&self, target: &str) -> Result<CallbacksClient<UnaryChannel>, CallbackError> {
        let mut clients = self.clients.lock().await;
        if let Some(client) = clients.get(target) {
            return Ok(client.clone());
        }
        let channel =
            UnaryChannel::connect(target)
                .await
                .map_err(|e| CallbackError::Unreachable {
                    target: target.to_string(),
                    reason: e.to_string(),
                })?;
        let client = CallbacksClient::new(channel)
            .max_decoding_message_size(MAX_MESSAGE_SIZE)
            .max_encoding_message_size(MAX_MESSAGE_SIZE);
        clients.insert(target.to_string(), client.clone());
        Ok(client)
    }

    /// Runs the program's code behind `callback` with `request`, decoding its answer as `R`.
    pub async fn invoke<R: Message + Default>(
        &self,
        callback: &Callback,
        request: &impl Message,
    ) -> Result<R, CallbackError> {
        Callbacks::check(callback)?;
        let mut client = self.client(&callback.target).await?;
        let response = client
            .invoke(CallbackInvokeRequest {
                token: callback.token.clone(),
                request: request.encode_to_vec(),
            })
            .await
            .map_err(|status| match status.code() {
                tonic::Code::Unavailable => CallbackError::Unreachable {
                    target: callback.target.clone(),
                    reason: status.message().to_string(),
                },
                _ => CallbackError::Raised(status.message().to_string()),
            })?;
        R::decode(response.into_inner().response.as_slice()).map_err(|e| CallbackError::Malformed {
            token: callback.token.clone(),
            reason: e.to_string(),
        })
    }
}
