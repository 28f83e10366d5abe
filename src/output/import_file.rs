//! `preview --import-file`: an import file (Pulumi's `import --file` shape) declaring every
//! resource the previewed update would create, built from the preview's planned steps as
//! Pulumi builds it: one entry per created resource (not the stack, not default providers),
//! named after its URN (clashing names suffixed with the type, then a counter), parents and
//! providers outside the file in `nameTable`, custom resources with the ID `<PLACEHOLDER>` to
//! fill in, explicit providers with their known inputs instead of an ID.

use std::collections::{BTreeMap, HashMap, HashSet};

use serde_json::{Map, Value, json};

use crate::engine::PropertyMap;
use crate::engine::model::resource::{is_default_provider, is_provider_type};
use crate::engine::model::urn::ROOT_STACK_TYPE;
use crate::engine::run::events::StepInfo;
use crate::engine::{EngineEvent, StepOp, Urn};

/// What the file says of a custom resource's ID: the user fills it in.
pub const PLACEHOLDER_ID: &str = "<PLACEHOLDER>";

/// One resource of the file (Pulumi's `importSpec`).
#[derive(Clone, Debug, Default, PartialEq)]
struct Spec {
    type_: String,
    name: String,
    id: Option<String>,
    parent: Option<String>,
    provider: Option<String>,
    version: Option<String>,
    plugin_download_url: Option<String>,
    component: bool,
    remote: bool,
    inputs: Option<Map<String, Value>>,
    logical_name: Option<String>,
}

/// Collects a preview's creates into an import file.
#[derive(Debug, Default)]
pub struct ImportFileBuilder {
    /// The file name given to every URN seen.
    names: HashMap<Urn, String>,
    /// Each name taken: the URN name and type it was first given for.
    taken: HashMap<String, (String, String)>,
    /// URNs the file declares.
    imported: HashSet<Urn>,
    /// Every provider's inputs, for the version and download URL of its resources.
    provider_inputs: HashMap<Urn, PropertyMap>,
    name_table: BTreeMap<String, String>,
    resources: Vec<Spec>,
    /// Provider inputs not known in the preview, left out (a warning names them).
    omitted: Vec<String>,
}

impl ImportFileBuilder {
    pub fn new() -> ImportFileBuilder {
        ImportFileBuilder::default()
    }

    /// Takes in one engine event; only planned steps matter.
    pub fn event(&mut self, e: &EngineEvent) {
        if let EngineEvent::StepPlanned(info) = e {
            self.step(info);
        }
    }

    fn unique_name(&self, name: &str, type_: &str) -> String {
        let short = type_.rsplit(':').next().unwrap_or(type_);
        let mut chars = short.chars();
        let titled: String = chars
            .next()
            .map(|c| c.to_uppercase().chain(chars).collect())
            .unwrap_or_default();
        let base = format!("{name}{titled}");
        let mut candidate = base.clone();
        let mut counter = 2;
        while self.taken.contains_key(&candidate) {
            candidate = format!("{base}{counter}");
            counter += 1;
        }
        candidate
    }

    /// Gives the URN a name of its own in the file, renaming an earlier holder of its name
    /// that had been renamed itself.
    fn name_for(&mut self, urn: &Urn) -> String {
        let mut name = urn.name().to_string();
        if let Some((first, first_type)) = self.taken.get(&name).cloned() {
            if first != name {
                let renamed = self.unique_name(&first, &first_type);
                if let Some(u) = self.name_table.remove(&name) {
                    self.name_table.insert(renamed.clone(), u);
                }
                for r in &mut self.resources {
                    for field in [&mut r.name]
                        .into_iter()
                        .chain([&mut r.parent, &mut r.provider].into_iter().flatten())
                    {
                        if *field == name {
                            field.clone_from(&renamed);
                        }
                    }
                }
                for n in self.names.values_mut() {
                    if *n == name {
                        n.clone_from(&renamed);
                    }
                }
                let entry = self.taken.remove(&name).unwrap_or_default();
                self.taken.insert(renamed, entry);
            } else {
                name = self.unique_name(&name, urn.type_());
            }
        }
        self.names.insert(urn.clone(), name.clone());
        self.taken.insert(
            name.clone(),
            (urn.name().to_string(), urn.type_().to_string()),
        );
        name
    }

    fn step(&mut self, info: &StepInfo) {
        let urn = &info.urn;
        let name = self.name_for(urn);
        let inputs = info.new_inputs.as_ref().or(info.old_inputs.as_ref());
        if is_provider_type(urn.type_())
            && let Some(i) = inputs
        {
            self.provider_inputs.insert(urn.clone(), i.clone());
        }
        if info.op != StepOp::Create || info.type_ == ROOT_STACK_TYPE {
            return;
        }
        self.imported.insert(urn.clone());
        if is_default_provider(urn) {
            return;
        }
        let parent = info
            .parent
            .as_ref()
            .filter(|p| p.type_() != ROOT_STACK_TYPE)
            .and_then(|p| {
                let n = self.names.get(p)?.clone();
                if !self.imported.contains(p) {
                    self.name_table.insert(n.clone(), p.as_str().to_string());
                }
                Some(n)
            });
        let mut spec = Spec {
            type_: info.type_.clone(),
            name: name.clone(),
            parent,
            component: !info.custom,
            remote: !info.custom && info.provider.is_some(),
            logical_name: (name != urn.name()).then(|| urn.name().to_string()),
            ..Spec::default()
        };
        if let Some(provider) = info.provider.as_ref().map(|p| p.urn.clone()) {
            if !is_default_provider(&provider)
                && let Some(n) = self.names.get(&provider).cloned()
            {
                if !self.imported.contains(&provider) {
                    self.name_table
                        .insert(n.clone(), provider.as_str().to_string());
                }
                spec.provider = Some(n);
            }
            if let Some(inputs) = self.provider_inputs.get(&provider) {
                let text = |key: &str| inputs.get(key).and_then(|v| v.as_str()).map(str::to_string);
                spec.version = text("version").filter(|v| !v.is_empty());
                spec.plugin_download_url = text("pluginDownloadURL").filter(|v| !v.is_empty());
            }
        }
        if info.custom {
            if is_provider_type(urn.type_()) {
                spec.inputs = inputs
                    .map(|i| self.known_inputs(urn, i))
                    .filter(|m| !m.is_empty());
            } else {
                spec.id = Some(PLACEHOLDER_ID.to_string());
            }
        }
        self.resources.push(spec);
    }

    /// A provider's inputs known in the preview; the others are named in a warning.
    fn known_inputs(&mut self, urn: &Urn, inputs: &PropertyMap) -> Map<String, Value> {
        let mut unknown = Vec::new();
        let mut known = Map::new();
        for (k, v) in inputs.iter() {
            if v.contains_unknowns() {
                unknown.push(k.clone());
            } else {
                known.insert(k.clone(), v.to_json());
            }
        }
        if !unknown.is_empty() {
            self.omitted.push(format!(
                "configuration of provider {urn} is not known during the preview and has been \
                 omitted from the import file, fill it in before importing: {}",
                unknown.join(", ")
            ));
        }
        known
    }

    /// Warnings to show: provider inputs left out because the preview did not know them.
    pub fn warnings(&self) -> &[String] {
        &self.omitted
    }

    /// The file as Pulumi writes it (before secrets are encrypted: secret inputs carry their
    /// plaintext, for the caller's secrets manager).
    pub fn to_json(&self) -> Value {
        let mut file = Map::new();
        if !self.name_table.is_empty() {
            file.insert("nameTable".into(), json!(self.name_table));
        }
        if !self.resources.is_empty() {
            let list = self.resources.iter().map(spec_json).collect();
            file.insert("resources".into(), Value::Array(list));
        }
        Value::Object(file)
    }
}

fn spec_json(s: &Spec) -> Value {
    let mut o = Map::new();
    o.insert("type".into(), s.type_.clone().into());
    o.insert("name".into(), s.name.clone().into());
    let text = |o: &mut Map<String, Value>, key: &str, v: &Option<String>| {
        if let Some(v) = v {
            o.insert(key.into(), v.clone().into());
        }
    };
    text(&mut o, "id", &s.id);
    text(&mut o, "parent", &s.parent);
    text(&mut o, "provider", &s.provider);
    text(&mut o, "version", &s.version);
    text(&mut o, "pluginDownloadUrl", &s.plugin_download_url);
    if s.component {
        o.insert("component".into(), true.into());
    }
    if s.remote {
        o.insert("remote".into(), true.into());
    }
    if let Some(inputs) = &s.inputs {
        o.insert("inputs".into(), sorted(&Value::Object(inputs.clone())));
    }
    text(&mut o, "logicalName", &s.logical_name);
    Value::Object(o)
}

/// Keys in order at every depth, as Go writes its maps.
fn sorted(v: &Value) -> Value {
    match v {
        Value::Object(m) => {
            let mut entries: Vec<(&String, &Value)> = m.iter().collect();
            entries.sort_by(|a, b| a.0.cmp(b.0));
            Value::Object(
                entries
                    .into_iter()
                    .map(|(k, v)| (k.clone(), sorted(v)))
                    .collect(),
            )
        }
        Value::Array(a) => Value::Array(a.iter().map(sorted).collect()),
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::engine::model::property::props;
    use crate::engine::{PropertyValue, ProviderRef};

    fn urn(ty: &str, name: &str, parent: Option<&Urn>) -> Urn {
        Urn::new("dev", "p", parent, ty, name)
    }

    fn planned(op: StepOp, urn: &Urn, custom: bool, parent: Option<&Urn>) -> StepInfo {
        StepInfo {
            op,
            urn: urn.clone(),
            type_: urn.type_().to_string(),
            parent: parent.cloned(),
            custom,
            chain: None,
            diffs: Vec::new(),
            replace_keys: Vec::new(),
            detailed_diff: BTreeMap::new(),
            old_inputs: None,
            old_outputs: None,
            old_id: None,
            new_inputs: Some(PropertyMap::default()),
            provider: None,
            delete_before_replace: false,
            dependencies: Arc::from(Vec::new()),
            protect: false,
            retain_on_delete: false,
            hide_diffs: Vec::new(),
        }
    }

    #[test]
    fn declares_each_create_with_placeholders_parents_and_providers() {
        let stack = urn(ROOT_STACK_TYPE, "p-dev", None);
        let provider = urn("pulumi:providers:random", "prov", Some(&stack));
        let comp = urn("my:index:Comp", "web", Some(&stack));
        let pet = urn("random:index/randomPet:RandomPet", "web", Some(&comp));
        let kept = urn("sim:index:Resource", "old", Some(&stack));
        let mut b = ImportFileBuilder::new();
        let mut p = planned(StepOp::Create, &provider, true, Some(&stack));
        p.new_inputs = Some(props([
            ("version", PropertyValue::string("4.16.3")),
            (
                "token",
                PropertyValue::Secret(Box::new(PropertyValue::string("t"))),
            ),
            ("region", PropertyValue::Unknown),
        ]));
        for info in [
            planned(StepOp::Create, &stack, false, None),
            p,
            planned(StepOp::Same, &kept, true, Some(&stack)),
            planned(StepOp::Create, &comp, false, Some(&stack)),
            {
                let mut i = planned(StepOp::Create, &pet, true, Some(&comp));
                i.provider = Some(ProviderRef::new(provider.clone(), "id-1"));
                i
            },
        ] {
            b.event(&EngineEvent::StepPlanned(Box::new(info)));
        }
        let file = b.to_json();
        assert!(file.get("nameTable").is_none(), "{file:#}");
        let r = file["resources"].as_array().unwrap();
        assert_eq!(r.len(), 3, "{file:#}");
        assert_eq!(r[0]["type"], "pulumi:providers:random");
        assert_eq!(r[0]["inputs"]["version"], "4.16.3");
        assert!(r[0]["inputs"]["token"]["plaintext"].is_string(), "{file:#}");
        assert!(r[0]["inputs"].get("region").is_none());
        assert!(r[0].get("id").is_none());
        assert_eq!(
            r[1],
            json!({"type": "my:index:Comp", "name": "web", "component": true})
        );
        assert_eq!(
            r[2],
            json!({
                "type": "random:index/randomPet:RandomPet",
                "name": "webRandomPet",
                "id": PLACEHOLDER_ID,
                "parent": "web",
                "provider": "prov",
                "version": "4.16.3",
                "logicalName": "web",
            })
        );
        assert_eq!(b.warnings().len(), 1);
        assert!(b.warnings()[0].ends_with(": region"), "{:?}", b.warnings());
    }

    #[test]
    fn parents_not_created_go_to_the_name_table() {
        let stack = urn(ROOT_STACK_TYPE, "p-dev", None);
        let comp = urn("my:index:Comp", "web", Some(&stack));
        let child = urn("sim:index:Resource", "a", Some(&comp));
        let mut b = ImportFileBuilder::new();
        b.event(&EngineEvent::StepPlanned(Box::new(planned(
            StepOp::Same,
            &comp,
            false,
            Some(&stack),
        ))));
        b.event(&EngineEvent::StepPlanned(Box::new(planned(
            StepOp::Create,
            &child,
            true,
            Some(&comp),
        ))));
        let file = b.to_json();
        assert_eq!(file["nameTable"], json!({"web": comp.as_str()}));
        assert_eq!(file["resources"][0]["parent"], "web");
    }
}
