//! Pulumi's `transforms` tests (`tests/integration/transforms/{python,nodejs}/simple`, and
//! Node.js's `single` and `async`) and `transformations/{python,nodejs}/simple` as programs of
//! our own: stack transforms rewrite every registration (a tag in `keepers`), a
//! component's transform reaches its child, a transform's alias keeps a renamed resource's
//! identity, an invoke transform rewrites the invoke's arguments, and a transform that throws
//! fails the registration with its message.

use serde_json::json;

use super::harness::{ProgramTest, live, managed};
use super::program_test::Options;

/// The checks both SDKs' programs share; `throws` also runs the step whose transform raises.
fn transforms(case: &str, throws: bool) {
    let t = ProgramTest::new(case);
    let state = t.up();
    let db = live(&state, "db");
    assert_eq!(
        db["inputs"]["keepers"],
        json!({"owner": "platform", "order": ">stack"})
    );
    let inner = live(&state, "box-inner");
    assert_eq!(inner["inputs"]["length"], 12, "the component's transform");
    // A resource's ancestors' transforms run before the stack's (Pulumi's order: own, parent
    // chain from the nearest, then stack).
    assert_eq!(
        inner["inputs"]["keepers"],
        json!({"owner": "platform", "order": ">component>stack"})
    );
    let outputs = t.outputs();
    assert_eq!(outputs["innerLength"], 12);
    assert_eq!(outputs["ran"], "transformed", "the invoke transform");
    let id = db["id"].clone();

    t.ok(&["config", "set", "renamed", "true"]);
    let state = t.up();
    assert_eq!(managed(&state), ["box-inner", "db-renamed"]);
    assert_eq!(
        live(&state, "db-renamed")["id"],
        id,
        "the alias a transform added kept the pet"
    );

    if throws {
        t.ok(&["config", "set", "fail", "true"]);
        let out = t.up_fails();
        assert!(
            out.contains("transform of random:index/randomPet:RandomPet \"late\" failed")
                && out.contains("late resources are not allowed here"),
            "{out}"
        );
        assert_eq!(managed(&t.checked_export()), ["box-inner", "db-renamed"]);
    }
    t.destroy();
}

#[test]
fn py_transforms() {
    transforms("py_transforms", true);
}

/// Node's program failure path costs tens of seconds (its error stays in flight until the
/// process gives up), so the throwing step runs for Python only.
#[test]
fn js_transforms() {
    transforms("js_transforms", false);
}

/// Pulumi's `TestPythonTransformations` (`transformations/python/simple`, Quick; sim resources
/// for the testprovider's Random): the legacy `transformations` option of a resource, of a
/// component reaching its children, stacked, after a stack transformation (which wins), and
/// one making a child wait for its sibling.
#[test]
fn py_transformations() {
    let t = ProgramTest::new("py_transformations");
    let opts = Options {
        quick: true,
        ..Options::default()
    };
    t.lifecycle(&opts, |run| {
        let secret_outputs = |name| live(&run.state, name)["additionalSecretOutputs"].clone();
        let parent_type = |name: &str| {
            let parent = live(&run.state, name)["parent"]
                .as_str()
                .unwrap()
                .to_string();
            parent.rsplit("::").nth(1).unwrap().to_string()
        };
        assert!(
            secret_outputs("solo")
                .as_array()
                .unwrap()
                .contains(&json!("result"))
        );
        let kid = secret_outputs("paired-kid");
        assert!(kid.as_array().unwrap().contains(&json!("result")), "{kid}");
        assert!(kid.as_array().unwrap().contains(&json!("length")), "{kid}");
        assert_eq!(parent_type("paired-kid"), "my:component:Pair");
        assert_eq!(live(&run.state, "late")["inputs"]["prefix"], "fromStack");
        assert_eq!(
            live(&run.state, "layered-kid")["inputs"]["prefix"],
            "fromStack"
        );
        assert_eq!(parent_type("twins-one"), "my:component:Twins");
        assert_eq!(live(&run.state, "twins-one")["inputs"]["length"], 5);
    });
}

fn quick() -> Options {
    Options {
        quick: true,
        ..Options::default()
    }
}

/// `TestNodejsSingleTransforms` (Quick; testprovider, `sim` standing in): a stack transform
/// that returns nothing leaves a resource with a secret input as it was.
#[test]
fn js_transforms_single() {
    let t = ProgramTest::new("js_transforms_single");
    t.lifecycle(&quick(), |run| {
        let res = live(&run.state, "res1");
        assert!(res["inputs"]["length"]["ciphertext"].is_string(), "{res}");
        assert!(run.output.contains("stack transform"), "{}", run.output);
    });
}

/// `TestNodejsTransformsAsyncResource` (Quick; testprovider, `sim` standing in): a resource
/// registered after the program returned still gets its transform (`length` 10 made 12), and
/// is the third resource of the state.
#[test]
fn js_transforms_async() {
    let t = ProgramTest::new("js_transforms_async");
    t.lifecycle(&quick(), |run| {
        let all = super::harness::resources(&run.state);
        let res = &all[2];
        assert!(res["urn"].as_str().unwrap().ends_with("::res"), "{res}");
        assert_eq!(res["inputs"]["length"], 12, "{res}");
    });
}

/// `TestNodejsTransformations` (`transformations/nodejs/simple`, Quick; testprovider, `sim`
/// standing in): Pulumi's `Validator`, resource by resource.
#[test]
fn js_transformations() {
    let t = ProgramTest::new("js_transformations");
    t.lifecycle(&quick(), |run| {
        let res = |name| live(&run.state, name);
        let secret = |name, key: &str| {
            res(name)["additionalSecretOutputs"]
                .as_array()
                .unwrap()
                .contains(&json!(key))
        };
        let parent_type = |name| {
            let parent = res(name)["parent"].as_str().unwrap().to_string();
            parent.rsplit("::").nth(1).unwrap().to_string()
        };
        assert!(secret("res1", "result"), "{}", res("res1"));
        assert!(secret("res2-child", "result") && secret("res2-child", "length"));
        assert_eq!(parent_type("res2-child"), "my:component:MyComponent");
        assert_eq!(res("res3")["inputs"]["prefix"], "stackDefault");
        assert_eq!(res("res4-child")["inputs"]["prefix"], "stackDefault");
        assert_eq!(parent_type("res4-child"), "my:component:MyComponent");
        assert_eq!(parent_type("res5-child1"), "my:component:MyOtherComponent");
        assert_eq!(res("res5-child1")["inputs"]["length"], 5);
    });
}
