//! The stack's `pulumi:autonaming` config as a typed strategy (Pulumi's
//! `resource/autonaming` and `cmd/pulumi/autonaming`): parsed once before a run, asked per
//! custom resource for the name to propose in Check.

use std::collections::BTreeMap;
use std::sync::LazyLock;

use regex::Regex;
use serde_json::{Map, Value};

use super::autoname_random::generate_name;
use crate::engine::model::urn::Urn;
use crate::engine::provider::{AutonamingMode, AutonamingOptions};

/// The config key the strategy is read from.
pub const AUTONAMING_KEY: &str = "pulumi:autonaming";

/// One naming rule, at the root, for a package or for a resource type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Naming {
    /// The provider names resources its own way (nothing is sent).
    Default,
    /// The logical name is the physical name, enforced.
    Verbatim,
    /// The provider must not name resources: the program names each one.
    Disabled,
    /// A name from a pattern whose stack-level parts (`${stack}`, `${config.*}`, …) are
    /// resolved; `${name}` and the random parts are filled in per resource.
    Pattern { pattern: String, enforce: bool },
}

/// A package's rule and the rules of its resource types (`type token` to rule).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PackageNaming {
    pub default: Naming,
    pub resources: BTreeMap<String, Naming>,
}

/// The whole strategy: the root rule and the packages' own.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Autonaming {
    pub default: Naming,
    pub providers: BTreeMap<String, PackageNaming>,
}

/// What the patterns' stack-level parts resolve to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StackContext {
    pub organization: String,
    pub project: String,
    pub stack: String,
}

/// A bad `pulumi:autonaming` config, worded as Pulumi words it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AutonamingError {
    #[error("failed to parse autonaming config: invalid autonaming config structure: {0}")]
    Structure(String),
    #[error("failed to resolve root naming config: {0}")]
    Root(NamingError),
    #[error("failed to resolve naming config for provider {provider:?}: {error}")]
    Provider {
        provider: String,
        error: NamingError,
    },
    #[error("failed to resolve naming config for resource {resource:?}: {error}")]
    Resource {
        resource: String,
        error: NamingError,
    },
    #[error("mode or pattern must be specified for resource {0:?}")]
    ResourceWithoutRule(String),
}

/// What is wrong with one rule.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NamingError {
    #[error("cannot specify both mode and pattern/enforce")]
    ModeAndPattern,
    #[error("pattern must be specified when enforce is true")]
    EnforceWithoutPattern,
    #[error("invalid naming mode: {0}")]
    InvalidMode(String),
    #[error("no value found for key {0:?}")]
    MissingConfig(String),
}

impl Naming {
    /// The options for one resource and whether a replacement must delete first (a name
    /// with no random part cannot exist twice); `None` leaves naming to the provider.
    fn options(&self, urn: &Urn, random_seed: &[u8]) -> Option<(AutonamingOptions, bool)> {
        let (proposed_name, mode, warn, dbr) = match self {
            Naming::Default => return None,
            Naming::Verbatim => (urn.name().to_string(), AutonamingMode::Enforce, false, true),
            Naming::Disabled => (String::new(), AutonamingMode::Disable, false, true),
            Naming::Pattern { pattern, enforce } => {
                let (name, random) = generate_name(pattern, urn.name(), random_seed);
                let mode = if *enforce {
                    AutonamingMode::Enforce
                } else {
                    AutonamingMode::Propose
                };
                (name, mode, *enforce, !random)
            }
        };
        Some((
            AutonamingOptions {
                proposed_name,
                mode,
                warn_if_no_support: warn,
            },
            dbr,
        ))
    }
}

impl Autonaming {
    /// The strategy the stack's config asks for; `None` when it sets no `pulumi:autonaming`.
    /// `config` maps `<namespace>:<key>` to plaintext, objects as JSON (path config).
    pub fn from_config(
        config: &BTreeMap<String, String>,
        ctx: &StackContext,
    ) -> Result<Option<Autonaming>, AutonamingError> {
        let Some(text) = config.get(AUTONAMING_KEY) else {
            return Ok(None);
        };
        let value: Value = serde_json::from_str(text).map_err(|_| {
            AutonamingError::Structure(format!("{AUTONAMING_KEY} is not an object"))
        })?;
        let root = object(&value, AUTONAMING_KEY)?;
        fields(
            root,
            AUTONAMING_KEY,
            &["mode", "pattern", "enforce", "providers"],
        )?;
        let eval = Resolver { config, ctx };
        let (default, _) = eval
            .rule(root, AUTONAMING_KEY)?
            .map_err(AutonamingError::Root)?;
        let mut providers = BTreeMap::new();
        for (package, section) in members(root, "providers", AUTONAMING_KEY)? {
            let at = format!("{AUTONAMING_KEY}.providers.{package}");
            let section = object(section, &at)?;
            fields(section, &at, &["mode", "pattern", "enforce", "resources"])?;
            let (naming, has) =
                eval.rule(section, &at)?
                    .map_err(|error| AutonamingError::Provider {
                        provider: package.clone(),
                        error,
                    })?;
            let mut resources = BTreeMap::new();
            for (token, rule) in members(section, "resources", &at)? {
                let at = format!("{at}.resources.{token}");
                let rule = object(rule, &at)?;
                fields(rule, &at, &["mode", "pattern", "enforce"])?;
                let (naming, has) =
                    eval.rule(rule, &at)?
                        .map_err(|error| AutonamingError::Resource {
                            resource: token.clone(),
                            error,
                        })?;
                if !has {
                    return Err(AutonamingError::ResourceWithoutRule(token.clone()));
                }
                resources.insert(token.clone(), naming);
            }
            let default = if has { naming } else { default.clone() };
            providers.insert(package.clone(), PackageNaming { default, resources });
        }
        Ok(Some(Autonaming { default, providers }))
    }

    /// The options Check sends for `urn`, and whether a replacement must delete first
    /// (Pulumi's `AutonamingForResource`): the type's rule, else its package's, else the
    /// root's. A rule for the package or type warns when the provider cannot honour it.
    pub fn for_resource(&self, urn: &Urn, random_seed: &[u8]) -> Option<(AutonamingOptions, bool)> {
        let token = urn.type_();
        let package = token.split(':').next().unwrap_or(token);
        let specific = self
            .providers
            .get(package)
            .map(|p| p.resources.get(token).unwrap_or(&p.default));
        let naming = specific.unwrap_or(&self.default);
        let (mut options, dbr) = naming.options(urn, random_seed)?;
        options.warn_if_no_support |= specific.is_some();
        Some((options, dbr))
    }
}

static CONFIG_REF: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\$\{config\.([^}]+)\}").expect("a fixed, valid regex"));

/// A rule and whether the section set one, or what is wrong with it.
type Rule = Result<(Naming, bool), NamingError>;

/// Resolves a rule's stack-level parts.
struct Resolver<'a> {
    config: &'a BTreeMap<String, String>,
    ctx: &'a StackContext,
}

impl Resolver<'_> {
    /// One rule and whether it was set at all; a structural fault is the outer error.
    fn rule(&self, section: &Map<String, Value>, at: &str) -> Result<Rule, AutonamingError> {
        let text = |key: &str| match section.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(_) => Err(AutonamingError::Structure(format!(
                "{at}.{key} must be a string"
            ))),
        };
        let mode = text("mode")?;
        let pattern = text("pattern")?;
        let enforce = match section.get("enforce") {
            None | Some(Value::Null) => None,
            Some(Value::Bool(b)) => Some(*b),
            Some(Value::String(s)) if s == "true" || s == "false" => Some(s == "true"),
            Some(_) => {
                return Err(AutonamingError::Structure(format!(
                    "{at}.enforce must be a boolean"
                )));
            }
        };
        Ok(self.resolve(mode, pattern, enforce))
    }

    fn resolve(
        &self,
        mode: Option<String>,
        pattern: Option<String>,
        enforce: Option<bool>,
    ) -> Rule {
        if mode.is_some() && (pattern.is_some() || enforce.is_some()) {
            return Err(NamingError::ModeAndPattern);
        }
        if let Some(pattern) = pattern {
            let pattern = self.stack_parts(&pattern)?;
            let enforce = enforce == Some(true);
            return Ok((Naming::Pattern { pattern, enforce }, true));
        }
        if enforce.is_some() {
            return Err(NamingError::EnforceWithoutPattern);
        }
        match mode.as_deref() {
            None => Ok((Naming::Default, false)),
            Some("default") => Ok((Naming::Default, true)),
            Some("verbatim") => Ok((Naming::Verbatim, true)),
            Some("disabled") => Ok((Naming::Disabled, true)),
            Some(other) => Err(NamingError::InvalidMode(other.to_string())),
        }
    }

    /// `${organization}`, `${project}`, `${stack}` and `${config.<key>}` (a key of the
    /// project's namespace), known before any resource is.
    fn stack_parts(&self, pattern: &str) -> Result<String, NamingError> {
        let pattern = pattern
            .replace("${organization}", &self.ctx.organization)
            .replace("${project}", &self.ctx.project)
            .replace("${stack}", &self.ctx.stack);
        let mut missing = None;
        let resolved = CONFIG_REF.replace_all(&pattern, |c: &regex::Captures<'_>| {
            let key = &c[1];
            match self.config.get(&format!("{}:{key}", self.ctx.project)) {
                Some(v) => v.clone(),
                None => {
                    missing.get_or_insert_with(|| key.to_string());
                    String::new()
                }
            }
        });
        match missing {
            Some(key) => Err(NamingError::MissingConfig(key)),
            None => Ok(resolved.into_owned()),
        }
    }
}

fn object<'v>(value: &'v Value, at: &str) -> Result<&'v Map<String, Value>, AutonamingError> {
    value
        .as_object()
        .ok_or_else(|| AutonamingError::Structure(format!("{at} must be an object")))
}

/// Refuses a field the section does not have (Pulumi decodes with `DisallowUnknownFields`).
fn fields(section: &Map<String, Value>, at: &str, known: &[&str]) -> Result<(), AutonamingError> {
    match section.keys().find(|k| !known.contains(&k.as_str())) {
        Some(k) => Err(AutonamingError::Structure(format!(
            "unknown field {k:?} in {at}"
        ))),
        None => Ok(()),
    }
}

fn members<'v>(
    section: &'v Map<String, Value>,
    key: &str,
    at: &str,
) -> Result<Vec<(&'v String, &'v Value)>, AutonamingError> {
    match section.get(key) {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(v) => Ok(object(v, &format!("{at}.{key}"))?.iter().collect()),
    }
}
