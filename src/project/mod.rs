//! Projects (`Pulumi.yaml`), stack settings (`Pulumi.<stack>.yaml`) and stack configuration.

pub mod approval_files;
pub mod config;
pub mod config_path;
pub mod config_resolve;
pub mod error;
pub mod local_plugins;
pub mod packages;
pub mod policy_packs;
pub mod project_file;
pub mod runtime;
pub mod stack_settings;
pub mod version_range;
mod yaml_text;

pub use config::{
    ConfigCrypter, ConfigDecl, ConfigKey, ConfigType, ConfigValue, NewConfigValue, ScalarType,
};
pub use config_resolve::{ConfigEntry, ResolvedConfig};
pub use error::{CryptError, ProjectError};
pub use local_plugins::LocalPlugin;
pub use project_file::{PROJECT_FILE, Project};
pub use runtime::Runtime;
pub use stack_settings::{StackSettings, settings_file_name};
pub use version_range::{VersionRangeError, check_version_range};

#[cfg(test)]
mod tests;
