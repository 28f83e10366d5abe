//! The `sim` provider through the `Provider` trait, loaded by the built-in factory, with the
//! world file read back from disk after every change.

#![allow(clippy::unwrap_used, clippy::panic)]

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use tokio::time::Instant;

use stepdeck::engine::model::property::props;
use stepdeck::engine::provider::{
    AutonamingMode, AutonamingOptions, CheckRequest, CreateRequest, DeleteRequest, DiffChanges,
    DiffKind, DiffRequest, ReadRequest, UpdateRequest,
};
use stepdeck::engine::{PropertyMap, PropertyValue, Provider, ProviderFactory, Urn};
use stepdeck::providers::{BuiltinProviders, WorldResources, load_world_file};

fn urn(ty: &str, name: &str) -> Urn {
    Urn::new("dev", "demo", None, ty, name)
}

fn list(items: &[&str]) -> PropertyValue {
    PropertyValue::Array(items.iter().map(|s| PropertyValue::from(*s)).collect())
}

struct Sim {
    _dir: tempfile::TempDir,
    factory: BuiltinProviders,
    provider: Arc<dyn Provider>,
}

impl Sim {
    fn new() -> Sim {
        let dir = tempfile::tempdir().unwrap();
        let factory = BuiltinProviders::new(dir.path().join("world.json"));
        let provider = factory.load("sim", None).unwrap();
        Sim {
            _dir: dir,
            factory,
            provider,
        }
    }

    fn world(&self) -> WorldResources {
        load_world_file(self.factory.sim_world_path()).unwrap()
    }

    async fn create(&self, urn: &Urn, inputs: PropertyMap) -> (String, PropertyMap) {
        let r = self
            .provider
            .create(CreateRequest {
                urn: urn.clone(),
                inputs,
                timeout: 0.0,
                preview: false,
            })
            .await
            .unwrap();
        (r.id, r.outputs)
    }

    async fn diff(
        &self,
        urn: &Urn,
        old: &PropertyMap,
        new: &PropertyMap,
    ) -> stepdeck::engine::provider::DiffResult {
        self.provider
            .diff(DiffRequest {
                urn: urn.clone(),
                id: "x".into(),
                old_inputs: old.clone(),
                old_outputs: PropertyMap::new(),
                new_inputs: new.clone(),
                ignore_changes: Vec::new(),
            })
            .await
            .unwrap()
    }

    fn update_req(
        &self,
        urn: &Urn,
        id: &str,
        old_in: &PropertyMap,
        old_out: &PropertyMap,
        new: &PropertyMap,
        preview: bool,
    ) -> UpdateRequest {
        UpdateRequest {
            urn: urn.clone(),
            id: id.into(),
            old_inputs: old_in.clone(),
            old_outputs: old_out.clone(),
            new_inputs: new.clone(),
            timeout: 0.0,
            ignore_changes: Vec::new(),
            preview,
        }
    }

    fn delete_req(urn: &Urn, id: &str, outputs: &PropertyMap) -> DeleteRequest {
        DeleteRequest {
            urn: urn.clone(),
            id: id.into(),
            inputs: PropertyMap::new(),
            outputs: outputs.clone(),
            timeout: 0.0,
        }
    }
}

#[tokio::test]
async fn create_update_delete_round_trip_through_the_world_file() {
    let sim = Sim::new();
    let u = urn("sim:index:Resource", "web");
    let inputs = props([("size", "small"), ("color", "blue")]);
    let (id, outputs) = sim.create(&u, inputs.clone()).await;
    assert!(id.starts_with("web-"), "{id}");
    assert_eq!(outputs["size"], PropertyValue::from("small"));
    let uid = outputs["uid"].as_str().unwrap().to_string();
    assert!(!uid.is_empty());

    let world = sim.world();
    assert_eq!(world.len(), 1);
    assert_eq!(world[&id].type_, "sim:index:Resource");
    assert_eq!(world[&id].name, "web");
    assert_eq!(world[&id].properties, outputs);

    let new = props([("size", "large"), ("color", "blue")]);
    let diff = sim.diff(&u, &inputs, &new).await;
    assert_eq!(diff.changes, DiffChanges::Some);
    assert_eq!(diff.changed_keys, vec!["size"]);
    assert!(diff.replace_keys.is_empty());
    assert_eq!(diff.detailed_diff["size"].kind, DiffKind::Update);
    assert_eq!(diff.stables, vec!["uid"]);

    let updated = sim
        .provider
        .update(sim.update_req(&u, &id, &inputs, &outputs, &new, false))
        .await
        .unwrap();
    assert_eq!(updated["size"], PropertyValue::from("large"));
    assert_eq!(
        updated["uid"].as_str(),
        Some(uid.as_str()),
        "update keeps uid"
    );
    assert_eq!(sim.world()[&id].properties, updated);

    assert_eq!(sim.diff(&u, &new, &new).await.changes, DiffChanges::None);

    let found = sim.provider.lookup(&u).await.unwrap();
    assert_eq!(
        found.iter().map(|r| r.id.as_str()).collect::<Vec<_>>(),
        [id.as_str()],
        "the URN finds what it created"
    );

    sim.provider
        .delete(Sim::delete_req(&u, &id, &updated))
        .await
        .unwrap();
    assert!(sim.world().is_empty(), "nothing leaked");
    assert_eq!(sim.provider.lookup(&u).await, Ok(Vec::new()));
    // Deleting what is gone succeeds, as Pulumi's providers treat NotFound on Delete.
    let again = sim
        .provider
        .delete(Sim::delete_req(&u, &id, &updated))
        .await;
    assert_eq!(again, Ok(()));
}

#[tokio::test]
async fn replace_on_and_delete_before_replace_shape_the_diff() {
    let sim = Sim::new();
    let u = urn("sim:index:Resource", "r");
    let mut old = props([("zone", "a"), ("tier", "1")]);
    old.insert("replaceOn".into(), list(&["zone"]));
    let mut new = old.clone();
    new.insert("zone".into(), "b".into());
    new.insert("tier".into(), "2".into());
    let d = sim.diff(&u, &old, &new).await;
    assert_eq!(d.replace_keys, vec!["zone"]);
    assert_eq!(d.detailed_diff["zone"].kind, DiffKind::UpdateReplace);
    assert_eq!(d.detailed_diff["tier"].kind, DiffKind::Update);
    assert!(!d.delete_before_replace);

    new.insert("deleteBeforeReplace".into(), PropertyValue::Bool(true));
    let d = sim.diff(&u, &old, &new).await;
    assert!(d.delete_before_replace);
    assert!(d.detailed_diff["deleteBeforeReplace"].kind == DiffKind::Add);

    // A change to unknown counts as a change and, on a replaceOn key, as a replacement.
    let mut unknown = old.clone();
    unknown.insert("zone".into(), PropertyValue::Unknown);
    assert_eq!(
        sim.diff(&u, &old, &unknown).await.replace_keys,
        vec!["zone"]
    );

    // ignore_changes hides a change from the provider's diff.
    let d = sim
        .provider
        .diff(DiffRequest {
            urn: u.clone(),
            id: "x".into(),
            old_inputs: old.clone(),
            old_outputs: PropertyMap::new(),
            new_inputs: new.clone(),
            ignore_changes: vec!["zone".into(), "tier".into(), "deleteBeforeReplace".into()],
        })
        .await
        .unwrap();
    assert_eq!(d.changes, DiffChanges::None);
}

#[tokio::test]
async fn typed_resources_replace_and_compute_outputs() {
    let sim = Sim::new();
    let db = urn("sim:index:Database", "db");
    let inputs = props([
        ("engine", "postgres"),
        ("size", "small"),
        ("networkId", "net-1"),
    ]);
    let (id, outputs) = sim.create(&db, inputs.clone()).await;
    let endpoint = outputs["endpoint"].as_str().unwrap();
    assert!(endpoint.starts_with("db-") && endpoint.ends_with(".sim"));
    assert_eq!(outputs["port"], PropertyValue::Number(5432.0));

    let mut bigger = inputs.clone();
    bigger.insert("size".into(), "large".into());
    let d = sim.diff(&db, &inputs, &bigger).await;
    assert!(d.replace_keys.is_empty() && !d.delete_before_replace);

    let mut mysql = inputs.clone();
    mysql.insert("engine".into(), "mysql".into());
    let d = sim.diff(&db, &inputs, &mysql).await;
    assert_eq!(d.replace_keys, vec!["engine"]);
    assert!(
        d.delete_before_replace,
        "databases ask for delete-before-replace"
    );

    let net = urn("sim:index:Network", "vpc");
    let (net_id, net_out) = sim.create(&net, props([("cidr", "10.0.0.0/16")])).await;
    assert!(net_out["networkId"].as_str().unwrap().starts_with("net-"));
    let d = sim
        .diff(
            &net,
            &props([("cidr", "10.0.0.0/16")]),
            &props([("cidr", "10.1.0.0/16")]),
        )
        .await;
    assert_eq!(d.replace_keys, vec!["cidr"]);
    assert!(!d.delete_before_replace);

    let q = urn("sim:index:Queue", "jobs");
    let d = sim
        .diff(
            &q,
            &props([("fifo", PropertyValue::Bool(false))]),
            &props([("fifo", PropertyValue::Bool(true))]),
        )
        .await;
    assert!(d.delete_before_replace && d.replace_keys == vec!["fifo"]);

    let world = sim.world();
    assert_eq!(world.len(), 2);
    assert_eq!(world[&id].type_, "sim:index:Database");
    assert_eq!(world[&net_id].name, "vpc");
}

#[tokio::test]
async fn preview_reports_unknowns_only_for_what_changes() {
    let sim = Sim::new();
    let u = urn("sim:index:Database", "db");
    let mut inputs = props([("engine", "postgres")]);
    inputs.insert("networkId".into(), PropertyValue::Unknown);
    let r = sim
        .provider
        .create(CreateRequest {
            urn: u.clone(),
            inputs: inputs.clone(),
            timeout: 0.0,
            preview: true,
        })
        .await
        .unwrap();
    assert_eq!(r.outputs["engine"], PropertyValue::from("postgres"));
    assert_eq!(r.outputs["networkId"], PropertyValue::Unknown);
    assert_eq!(r.outputs["endpoint"], PropertyValue::Unknown);
    assert_eq!(r.outputs["port"], PropertyValue::Number(5432.0));
    assert!(sim.world().is_empty(), "preview changes nothing");

    let g = urn("sim:index:Resource", "g");
    let (id, outputs) = sim.create(&g, props([("a", "1")])).await;
    let before = sim.world();
    let new = props([("a", "2")]);
    let out = sim
        .provider
        .update(sim.update_req(&g, &id, &props([("a", "1")]), &outputs, &new, true))
        .await
        .unwrap();
    assert_eq!(
        out["uid"], outputs["uid"],
        "an update keeps uid, known in preview"
    );
    assert_eq!(out["a"], PropertyValue::from("2"));
    assert_eq!(sim.world(), before);
}

#[tokio::test]
async fn fail_on_fails_the_named_operations() {
    let sim = Sim::new();
    let u = urn("sim:index:Resource", "flaky");
    let mut inputs = props([("k", "v")]);
    inputs.insert("failOn".into(), list(&["create"]));
    let err = sim
        .provider
        .create(CreateRequest {
            urn: u.clone(),
            inputs,
            timeout: 0.0,
            preview: false,
        })
        .await
        .unwrap_err();
    assert!(err.to_string().contains("create of flaky"), "{err}");
    assert!(sim.world().is_empty());

    let mut inputs = props([("k", "v")]);
    inputs.insert("failOn".into(), list(&["delete"]));
    let (id, outputs) = sim.create(&u, inputs).await;
    let mut upd = outputs.clone();
    upd.remove("uid");
    upd.insert("failOn".into(), list(&["update", "delete"]));
    let err = sim
        .provider
        .update(sim.update_req(&u, &id, &outputs, &outputs, &upd, false))
        .await
        .unwrap_err();
    assert!(err.to_string().contains("update of flaky"), "{err}");
    let err = sim
        .provider
        .delete(Sim::delete_req(&u, &id, &outputs))
        .await
        .unwrap_err();
    assert!(err.to_string().contains("delete of flaky"), "{err}");
    assert_eq!(sim.world().len(), 1, "a failed delete leaves the resource");
}

#[tokio::test]
async fn check_rejects_malformed_reserved_inputs() {
    let sim = Sim::new();
    let mut news = props([("replaceOn", "zone")]);
    news.insert("failOn".into(), list(&["create", "explode"]));
    news.insert("latencyMs".into(), PropertyValue::from("soon"));
    news.insert("initFailOn".into(), list(&["update", "delete"]));
    let r = sim
        .provider
        .check(CheckRequest {
            urn: urn("sim:index:Resource", "r"),
            olds: PropertyMap::new(),
            news,
            random_seed: Vec::new(),
            autonaming: None,
        })
        .await
        .unwrap();
    let props: Vec<_> = r.failures.iter().map(|f| f.property.as_str()).collect();
    assert_eq!(
        props,
        vec!["replaceOn", "latencyMs", "failOn[1]", "initFailOn[1]"]
    );

    let r = sim
        .provider
        .check(CheckRequest {
            urn: urn("sim:index:Network", "n"),
            olds: PropertyMap::new(),
            news: PropertyMap::new(),
            random_seed: Vec::new(),
            autonaming: None,
        })
        .await
        .unwrap();
    assert_eq!(r.failures[0].property, "cidr");

    let err = sim
        .provider
        .check(CheckRequest {
            urn: urn("sim:index:Teleporter", "t"),
            olds: PropertyMap::new(),
            news: PropertyMap::new(),
            random_seed: Vec::new(),
            autonaming: None,
        })
        .await
        .unwrap_err();
    assert!(err.to_string().contains("sim:index:Teleporter"), "{err}");
}

/// On tokio's paused clock: the waits are the provider's own, measured exactly.
#[tokio::test(start_paused = true)]
async fn latency_comes_from_the_resource_or_the_provider_config() {
    let sim = Sim::new();
    let u = urn("sim:index:Resource", "slow");
    let t = Instant::now();
    sim.create(&u, props([("latencyMs", PropertyValue::Number(150.0))]))
        .await;
    assert_eq!(t.elapsed(), Duration::from_millis(150));

    sim.provider
        .configure(&props([("latencyMs", "120")]))
        .await
        .unwrap();
    let t = Instant::now();
    sim.create(&u, PropertyMap::new()).await;
    assert_eq!(t.elapsed(), Duration::from_millis(120));

    let t = Instant::now();
    let slow = props([("latencyMs", PropertyValue::Number(400.0))]);
    sim.diff(&u, &slow, &slow).await;
    assert_eq!(
        t.elapsed(),
        Duration::from_millis(100),
        "a diff takes a quarter"
    );

    let bad = sim
        .provider
        .configure(&props([("latencyMs", "fast")]))
        .await;
    assert!(bad.unwrap_err().to_string().contains("sim:latencyMs"));
}

#[tokio::test]
async fn read_sees_drift_and_deletion_in_the_world_file() {
    let sim = Sim::new();
    let u = urn("sim:index:Server", "api");
    let (id, outputs) = sim
        .create(&u, props([("image", "ubuntu"), ("size", "s")]))
        .await;
    let path = sim.factory.sim_world_path().to_path_buf();
    edit_world(&path, |w| {
        w["resources"][&id]["properties"]["size"] = "xl".into();
    });
    let read = |id: String| ReadRequest {
        urn: u.clone(),
        id,
        inputs: props([("image", "ubuntu"), ("size", "s")]),
        state: outputs.clone(),
    };
    let r = sim.provider.read(read(id.clone())).await.unwrap();
    assert_eq!(r.id, id);
    assert_eq!(r.outputs["size"], PropertyValue::from("xl"));
    assert_eq!(r.inputs["size"], PropertyValue::from("xl"));
    assert!(
        !r.inputs.contains_key("ip"),
        "computed outputs are not inputs"
    );

    edit_world(&path, |w| {
        w["resources"].as_object_mut().unwrap().remove(&id);
    });
    let r = sim.provider.read(read(id.clone())).await.unwrap();
    assert_eq!(r.id, "");
}

fn edit_world(path: &Path, f: impl FnOnce(&mut serde_json::Value)) {
    let mut w: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    f(&mut w);
    // Make sure the edit is seen even on file systems with coarse timestamps.
    std::thread::sleep(Duration::from_millis(20));
    std::fs::write(path, serde_json::to_string_pretty(&w).unwrap() + "\n\n").unwrap();
}

#[tokio::test]
async fn parallel_operations_from_several_instances_lose_nothing() {
    let sim = Sim::new();
    let other = sim.factory.load("sim", None).unwrap();
    let mut tasks = Vec::new();
    for i in 0..24 {
        let p = if i % 2 == 0 {
            sim.provider.clone()
        } else {
            other.clone()
        };
        tasks.push(tokio::spawn(async move {
            let u = urn("sim:index:Resource", &format!("r{i}"));
            let r = p
                .create(CreateRequest {
                    urn: u.clone(),
                    inputs: props([("latencyMs", PropertyValue::Number(5.0))]),
                    timeout: 0.0,
                    preview: false,
                })
                .await
                .unwrap();
            if i % 3 == 0 {
                p.delete(Sim::delete_req(&u, &r.id, &r.outputs))
                    .await
                    .unwrap();
            }
            r.id
        }));
    }
    for t in tasks {
        t.await.unwrap();
    }
    let world = sim.world();
    assert_eq!(world.len(), 16);
    assert!(world.values().all(|r| r.name.starts_with('r')));
}

#[test]
fn unknown_packages_are_refused_by_name() {
    let factory = BuiltinProviders::new("unused.json".into());
    let err = factory.load("aws", Some("6.0.0")).err().unwrap();
    assert!(
        err.to_string().contains("no provider for package `aws`"),
        "{err}"
    );
    assert!(factory.load("random", None).is_ok());
    assert!(factory.load("command", None).is_ok());
}

#[tokio::test(start_paused = true)]
async fn each_load_is_a_fresh_instance_sharing_one_world() {
    let sim = Sim::new();
    let slow = sim.factory.load("sim", None).unwrap();
    slow.configure(&props([("latencyMs", PropertyValue::Number(400.0))]))
        .await
        .unwrap();
    let t = Instant::now();
    let (id, _) = sim
        .create(&urn("sim:index:Bucket", "logs"), PropertyMap::new())
        .await;
    assert_eq!(t.elapsed(), Duration::ZERO, "config leaked");
    let r = slow
        .read(ReadRequest {
            urn: urn("sim:index:Bucket", "logs"),
            id: id.clone(),
            inputs: PropertyMap::new(),
            state: PropertyMap::new(),
        })
        .await
        .unwrap();
    assert_eq!(r.id, id, "both instances see the same world");
    assert!(
        r.outputs["arn"]
            .as_str()
            .unwrap()
            .starts_with("arn:sim:bucket:::logs-")
    );
}

/// `sim:index:Named` names itself as Pulumi's testprovider's `Named` does: its default, or
/// what Check's autonaming options say (a proposal lower-cased, nothing when disabled), and
/// keeps a name it already has; sim tells Configure it supports autonaming configuration.
#[tokio::test]
async fn named_takes_its_name_from_autonaming() {
    let sim = Sim::new();
    let configured = sim.provider.configure(&PropertyMap::new()).await.unwrap();
    assert!(configured.supports_autonaming_configuration);
    let name_of = |olds: PropertyMap, naming: Option<(&'static str, AutonamingMode)>| {
        let provider = sim.provider.clone();
        async move {
            let r = provider
                .check(CheckRequest {
                    urn: urn("sim:index:Named", "Thing"),
                    olds,
                    news: PropertyMap::new(),
                    random_seed: Vec::new(),
                    autonaming: naming.map(|(n, mode)| AutonamingOptions {
                        proposed_name: n.into(),
                        mode,
                        warn_if_no_support: false,
                    }),
                })
                .await
                .unwrap();
            r.inputs.get("name").cloned()
        }
    };
    let s = |v: &str| Some(PropertyValue::from(v));
    assert_eq!(name_of(PropertyMap::new(), None).await, s("default-name"));
    let propose = Some(("Dev-Thing", AutonamingMode::Propose));
    assert_eq!(name_of(PropertyMap::new(), propose).await, s("dev-thing"));
    let enforce = Some(("Dev-Thing", AutonamingMode::Enforce));
    assert_eq!(name_of(PropertyMap::new(), enforce).await, s("Dev-Thing"));
    let disable = Some(("", AutonamingMode::Disable));
    assert_eq!(name_of(PropertyMap::new(), disable).await, None);
    let kept = props([("name", "old-name")]);
    assert_eq!(name_of(kept, propose).await, s("old-name"));
}
