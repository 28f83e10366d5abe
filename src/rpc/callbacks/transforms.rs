//! Transforms as Pulumi's resource monitor runs them (`source_eval.go`): a registration is
//! rewritten by its own transforms, then those of each ancestor from the nearest up, then the
//! stack's, each in the order they were registered; an invoke by the stack's invoke transforms.
//! Properties and options go to the program's callback server and what comes back replaces
//! them before the engine sees the registration, so transformed options (aliases, protect,
//! provider, dependsOn...) reach step generation like options the program set itself.

use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;

use parking_lot::Mutex;

use super::{CallbackError, Callbacks};
use crate::engine::model::goal::package_of;
use crate::rpc::pulumirpc::{
    Alias as WireAlias, Callback, RegisterResourceRequest, ResourceInvokeRequest,
    TransformInvokeOptions, TransformInvokeRequest, TransformInvokeResponse, TransformRequest,
    TransformResourceOptions, TransformResponse, alias,
};

/// A transform that failed: the program's error, naming what was being transformed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("transform of {subject} failed: {source}")]
pub struct TransformError {
    subject: String,
    source: CallbackError,
}

/// The transforms a program registered: the stack's, the invoke transforms, and those each
/// resource declared for itself and its descendants.
#[derive(Default)]
pub struct Transforms {
    callbacks: Arc<Callbacks>,
    stack: Mutex<Vec<Callback>>,
    invoke: Mutex<Vec<Callback>>,
    /// A resource's own transforms, by URN, run for its descendants too.
    by_resource: Mutex<HashMap<String, Vec<Callback>>>,
    /// Every registered resource's parent, to walk a registration's ancestors.
    parents: Mutex<HashMap<String, String>>,
    /// A remote component's own transforms, kept (by `parent::type::name`) for the registration
    /// of the component its provider makes while constructing it.
    pending: Mutex<HashMap<String, Vec<Callback>>>,
}

impl Transforms {
    /// Transforms invoked through `callbacks` (shared with the hooks of the same program).
    pub fn new(callbacks: Arc<Callbacks>) -> Transforms {
        Transforms {
            callbacks,
            ..Transforms::default()
        }
    }

    /// Adds a stack transform, run for every later registration.
    pub fn add_stack(&self, callback: Callback) -> Result<(), CallbackError> {
        Callbacks::check(&callback)?;
        self.stack.lock().push(callback);
        Ok(())
    }

    /// Adds a stack invoke transform, run for every later invoke.
    pub fn add_invoke(&self, callback: Callback) -> Result<(), CallbackError> {
        Callbacks::check(&callback)?;
        self.invoke.lock().push(callback);
        Ok(())
    }

    /// Pulumi's pending transforms (`source_eval.go`): the registration a component provider
    /// makes of a remote component takes the transforms the program gave that component as its
    /// own, so they run on it too and reach the children the provider registers under it.
    pub fn adopt_pending(&self, req: &mut RegisterResourceRequest) {
        let key = format!("{}::{}::{}", req.parent, req.r#type, req.name);
        let mut pending = self.pending.lock();
        if let Some(own) = pending.remove(&key) {
            req.transforms = own;
        } else if req.remote && !req.transforms.is_empty() {
            pending.insert(key, req.transforms.clone());
        }
    }

    /// The callbacks that apply to `req`, in the order they run.
    fn chain_for(&self, req: &RegisterResourceRequest) -> Vec<Callback> {
        let mut chain = req.transforms.clone();
        {
            let parents = self.parents.lock();
            let by_resource = self.by_resource.lock();
            let mut seen = BTreeSet::new();
            let mut current = req.parent.clone();
            while !current.is_empty() && seen.insert(current.clone()) {
                if let Some(own) = by_resource.get(&current) {
                    chain.extend(own.iter().cloned());
                }
                current = parents.get(&current).cloned().unwrap_or_default();
            }
        }
        chain.extend(self.stack.lock().iter().cloned());
        chain
    }

    /// Rewrites `req` through every transform that applies to it.
    pub async fn apply(&self, req: &mut RegisterResourceRequest) -> Result<(), TransformError> {
        let chain = self.chain_for(req);
        if chain.is_empty() {
            return Ok(());
        }
        for cb in &req.transforms {
            Callbacks::check(cb).map_err(|source| TransformError {
                subject: format!("{} {:?}", req.r#type, req.name),
                source,
            })?;
        }
        let mut properties = req.object.take().unwrap_or_default();
        let mut options = options_of(req);
        for cb in &chain {
            let request = TransformRequest {
                r#type: req.r#type.clone(),
                name: req.name.clone(),
                custom: req.custom,
                parent: req.parent.clone(),
                properties: Some(properties.clone()),
                options: Some(options.clone()),
            };
            let response: TransformResponse =
                self.callbacks
                    .invoke(cb, &request)
                    .await
                    .map_err(|source| TransformError {
                        subject: format!("{} {:?}", req.r#type, req.name),
                        source,
                    })?;
            if let Some(p) = response.properties {
                properties = p;
            }
            if let Some(o) = response.options {
                options = o;
            }
        }
        req.object = Some(properties);
        set_options(req, options);
        Ok(())
    }

    /// Remembers a registered resource's parent and own transforms for its descendants.
    pub fn record(&self, urn: &str, parent: &str, own: Vec<Callback>) {
        if !parent.is_empty() {
            self.parents
                .lock()
                .insert(urn.to_string(), parent.to_string());
        }
        if !own.is_empty() {
            self.by_resource.lock().insert(urn.to_string(), own);
        }
    }

    /// Rewrites an invoke's arguments and options through the stack's invoke transforms.
    pub async fn apply_invoke(
        &self,
        req: &mut ResourceInvokeRequest,
    ) -> Result<(), TransformError> {
        let chain = self.invoke.lock().clone();
        if chain.is_empty() {
            return Ok(());
        }
        let mut args = req.args.take().unwrap_or_default();
        let mut options = TransformInvokeOptions {
            provider: req.provider.clone(),
            plugin_download_url: req.plugin_download_url.clone(),
            version: req.version.clone(),
            plugin_checksums: req.plugin_checksums.clone(),
        };
        for cb in &chain {
            let request = TransformInvokeRequest {
                token: req.tok.clone(),
                args: Some(args.clone()),
                options: Some(options.clone()),
            };
            let response: TransformInvokeResponse = self
                .callbacks
                .invoke(cb, &request)
                .await
                .map_err(|source| TransformError {
                    subject: format!("the invoke of {}", req.tok),
                    source,
                })?;
            if let Some(a) = response.args {
                args = a;
            }
            if let Some(o) = response.options {
                options = o;
            }
        }
        req.args = Some(args);
        req.provider = options.provider;
        req.plugin_download_url = options.plugin_download_url;
        req.version = options.version;
        req.plugin_checksums = options.plugin_checksums;
        Ok(())
    }
}

/// A registration's options as a transform sees them (the provider resolved from `providers`
/// when the request names none, aliases given as URNs and specs alike).
fn options_of(req: &RegisterResourceRequest) -> TransformResourceOptions {
    let provider = if req.provider.is_empty() && req.custom {
        req.providers
            .get(package_of(&req.r#type))
            .cloned()
            .unwrap_or_default()
    } else {
        req.provider.clone()
    };
    let aliases = req
        .alias_ur_ns
        .iter()
        .map(|u| WireAlias {
            alias: Some(alias::Alias::Urn(u.clone())),
        })
        .chain(req.aliases.iter().cloned())
        .collect();
    TransformResourceOptions {
        depends_on: req.dependencies.clone(),
        protect: req.protect,
        ignore_changes: req.ignore_changes.clone(),
        replace_on_changes: req.replace_on_changes.clone(),
        version: req.version.clone(),
        aliases,
        provider,
        custom_timeouts: req.custom_timeouts.clone(),
        plugin_download_url: req.plugin_download_url.clone(),
        retain_on_delete: req.retain_on_delete,
        deleted_with: req.deleted_with.clone(),
        delete_before_replace: (req.delete_before_replace_defined || req.delete_before_replace)
            .then_some(req.delete_before_replace),
        additional_secret_outputs: req.additional_secret_outputs.clone(),
        providers: req.providers.clone(),
        plugin_checksums: req.plugin_checksums.clone(),
        hooks: req.hooks.clone(),
        import: req.import_id.clone(),
        hide_diff: req.hide_diffs.clone(),
        replace_with: req.replace_with.clone(),
        replacement_trigger: req.replacement_trigger.clone(),
    }
}

/// Writes transformed options back. The explicit dependencies become the transform's
/// `dependsOn` plus what the remaining properties depend on; the dependencies of properties
/// the transform removed go with them.
fn set_options(req: &mut RegisterResourceRequest, o: TransformResourceOptions) {
    let kept: Vec<String> = req
        .object
        .as_ref()
        .map_or_else(Vec::new, |s| s.fields.keys().cloned().collect::<Vec<_>>());
    req.property_dependencies.retain(|k, _| kept.contains(k));
    let mut dependencies = o.depends_on;
    for deps in req.property_dependencies.values() {
        for urn in &deps.urns {
            if !dependencies.contains(urn) {
                dependencies.push(urn.clone());
            }
        }
    }
    req.dependencies = dependencies;
    req.protect = o.protect;
    req.ignore_changes = o.ignore_changes;
    req.replace_on_changes = o.replace_on_changes;
    req.version = o.version;
    req.alias_ur_ns.clear();
    req.aliases = o.aliases;
    req.alias_specs = true;
    req.provider = o.provider;
    req.custom_timeouts = o.custom_timeouts;
    req.plugin_download_url = o.plugin_download_url;
    req.retain_on_delete = o.retain_on_delete;
    req.deleted_with = o.deleted_with;
    req.delete_before_replace_defined = o.delete_before_replace.is_some();
    req.delete_before_replace = o.delete_before_replace.unwrap_or(false);
    req.additional_secret_outputs = o.additional_secret_outputs;
    req.providers = o.providers;
    req.plugin_checksums = o.plugin_checksums;
    req.hooks = o.hooks;
    req.import_id = o.import;
    req.hide_diffs = o.hide_diff;
    req.replace_with = o.replace_with;
    req.replacement_trigger = o.replacement_trigger;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rpc::pulumirpc::register_resource_request::PropertyDependencies;

    fn urn(name: &str) -> String {
        format!("urn:pulumi:dev::p::t:m:R::{name}")
    }

    fn request() -> RegisterResourceRequest {
        let field = |v: &str| prost_types::Value {
            kind: Some(prost_types::value::Kind::StringValue(v.into())),
        };
        RegisterResourceRequest {
            r#type: "random:index/randomPet:RandomPet".into(),
            name: "pet".into(),
            custom: true,
            object: Some(prost_types::Struct {
                fields: [("a".to_string(), field("x")), ("b".to_string(), field("y"))].into(),
            }),
            dependencies: vec![urn("explicit"), urn("feeds-a"), urn("feeds-b")],
            property_dependencies: [
                (
                    "a".to_string(),
                    PropertyDependencies {
                        urns: vec![urn("feeds-a")],
                    },
                ),
                (
                    "b".to_string(),
                    PropertyDependencies {
                        urns: vec![urn("feeds-b")],
                    },
                ),
            ]
            .into(),
            alias_ur_ns: vec![urn("old")],
            providers: [("random".to_string(), format!("{}::id", urn("prov")))].into(),
            ..RegisterResourceRequest::default()
        }
    }

    #[test]
    fn a_remote_components_transforms_pass_to_its_providers_registration_of_it() {
        let transforms = Transforms::default();
        let callback = Callback {
            target: "127.0.0.1:1".into(),
            token: "t".into(),
            accepts_byte_string: false,
        };
        let mut remote = RegisterResourceRequest {
            r#type: "pkg:index:Component".into(),
            name: "comp".into(),
            parent: urn("stack"),
            remote: true,
            transforms: vec![callback.clone()],
            ..RegisterResourceRequest::default()
        };
        transforms.adopt_pending(&mut remote);
        assert_eq!(remote.transforms, std::slice::from_ref(&callback));
        let mut from_provider = RegisterResourceRequest {
            remote: false,
            transforms: Vec::new(),
            ..remote.clone()
        };
        transforms.adopt_pending(&mut from_provider);
        assert_eq!(from_provider.transforms, [callback]);
        let mut again = RegisterResourceRequest {
            transforms: Vec::new(),
            ..from_provider
        };
        transforms.adopt_pending(&mut again);
        assert!(again.transforms.is_empty(), "taken once only");
    }

    #[test]
    fn a_transform_sees_every_option_and_urn_aliases_as_aliases() {
        let o = options_of(&request());
        assert_eq!(
            o.provider,
            format!("{}::id", urn("prov")),
            "from `providers`"
        );
        assert_eq!(o.aliases.len(), 1);
        assert_eq!(o.depends_on.len(), 3);
        assert_eq!(o.delete_before_replace, None);
    }

    #[test]
    fn transformed_dependencies_keep_what_the_remaining_properties_need() {
        let mut req = request();
        let mut o = options_of(&req);
        o.depends_on = vec![urn("added")];
        o.protect = Some(true);
        req.object.as_mut().unwrap().fields.remove("b");
        set_options(&mut req, o);
        assert_eq!(req.dependencies, [urn("added"), urn("feeds-a")]);
        assert!(req.property_dependencies.contains_key("a"));
        assert!(!req.property_dependencies.contains_key("b"));
        assert_eq!(req.protect, Some(true));
        assert!(req.alias_ur_ns.is_empty() && req.aliases.len() == 1 && req.alias_specs);
    }
}
