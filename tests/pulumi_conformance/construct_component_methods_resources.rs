//! Pulumi's `construct_component_methods_resources` (`TestConstructMethodsResources{Node,Python}`,
//! Quick): a method makes `myrandom` under the component (a `random` RandomString standing in
//! for the Go testprovider's `Random`), whose ten-character result is the stack's output. The
//! Go test counts six resources; stepdeck's state holds five (the stack, the component,
//! `myrandom` and the two default providers), checked here by type.

use super::harness::{live, resources, stack_outputs};
use super::local_components::{Provider, with_component};
use super::program_test::Options;

fn methods_resources(program: &str, provider: Provider) {
    let t = with_component("construct_component_methods_resources", program, provider);
    let opts = Options {
        quick: true,
        ..Options::default()
    };
    t.lifecycle(&opts, |run| {
        let types: Vec<String> = resources(&run.state)
            .iter()
            .map(|r| r["type"].as_str().unwrap().to_string())
            .collect();
        assert_eq!(
            types,
            [
                "pulumi:pulumi:Stack",
                "pulumi:providers:testcomponent",
                "testcomponent:index:Component",
                "pulumi:providers:random",
                "random:index/randomString:RandomString",
            ],
            "the stack's resources"
        );
        let random = live(&run.state, "myrandom");
        assert_eq!(random["inputs"]["length"], 10);
        let result = random["outputs"]["result"].as_str().unwrap();
        assert_eq!(result.chars().count(), 10);
        assert_eq!(stack_outputs(&run.state)["result"], result);
    });
}

#[test]
fn js_node_provider() {
    methods_resources("nodejs", Provider::Node);
}

#[test]
fn js_python_provider() {
    methods_resources("nodejs", Provider::Python);
}

#[test]
fn py_node_provider() {
    methods_resources("python", Provider::Node);
}

#[test]
fn py_python_provider() {
    methods_resources("python", Provider::Python);
}
