//! Projects (`Pulumi.yaml`), stack settings (`Pulumi.<stack>.yaml`) and stack configuration.

pub mod approval_files;
pub mod config;
pub mod config_path;
pub mod error;
pub mod project_file;
pub mod stack_settings;
mod yaml_text;

pub use config::{
    ConfigCrypter, ConfigDecl, ConfigEntry, ConfigKey, ConfigType, ConfigValue, NewConfigValue,
    ResolvedConfig, ScalarType,
};
pub use error::{CryptError, ProjectError};
pub use project_file::{PROJECT_FILE, Project, Runtime};
pub use stack_settings::{StackSettings, settings_file_name};

#[cfg(test)]
mod tests;
