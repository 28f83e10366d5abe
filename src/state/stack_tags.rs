//! Stack tags (`stack tag`): the user's, which each backend keeps, and Pulumi's built-in
//! `pulumi:` tags, derived from the project and read-only.

/// The prefix of the tags the backend derives itself; users may not set or remove them.
pub const BUILTIN_TAG_PREFIX: &str = "pulumi:";
