//! Which hooks a resource binds, by lifecycle point: what a registration asks for and the state
//! records. A leaf, so that the model (goals, states) names hooks without reaching the code
//! that runs them (`hooks`).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// The points of a resource's lifecycle a hook can be bound to (Pulumi's `HookType`, whose
/// names the state records).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum HookKind {
    BeforeCreate,
    AfterCreate,
    BeforeUpdate,
    AfterUpdate,
    BeforeDelete,
    AfterDelete,
    OnError,
}

impl HookKind {
    /// The name used in messages, as the SDKs spell the binding (`before_create`).
    pub fn label(self) -> &'static str {
        match self {
            HookKind::BeforeCreate => "before_create",
            HookKind::AfterCreate => "after_create",
            HookKind::BeforeUpdate => "before_update",
            HookKind::AfterUpdate => "after_update",
            HookKind::BeforeDelete => "before_delete",
            HookKind::AfterDelete => "after_delete",
            HookKind::OnError => "on_error",
        }
    }

    /// When the hook runs relative to the provider's operation, as Pulumi's messages say it.
    pub fn when(self) -> &'static str {
        match self {
            HookKind::BeforeCreate | HookKind::BeforeUpdate | HookKind::BeforeDelete => "before",
            _ => "after",
        }
    }
}

/// Hook names bound to a resource, by lifecycle point.
pub type HookBindings = BTreeMap<HookKind, Vec<String>>;
