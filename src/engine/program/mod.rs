//! What a program talks to: the resource monitor it registers resources with (`source`), the
//! checks of what it sends, what a registration answers or why it was refused, and
//! `pulumi:pulumi:getResource`.

pub(super) mod register_error;
pub(super) mod registration;
pub mod registration_check;
mod resource_lookup;
pub mod source;
