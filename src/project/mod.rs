//! Projects (`Pulumi.yaml`), stack settings (`Pulumi.<stack>.yaml`) and stack configuration.

pub mod config;
pub mod error;
pub mod project_file;
pub mod stack_settings;

pub use config::{
    ConfigCrypter, ConfigDecl, ConfigEntry, ConfigKey, ConfigType, ConfigValue, ResolvedConfig,
};
pub use error::{CryptError, ProjectError};
pub use project_file::{PROJECT_FILE, Project, Runtime};
pub use stack_settings::{StackSettings, settings_file_name};

#[cfg(test)]
mod tests;
