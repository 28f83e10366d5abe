//! A layered random DAG: resources in layers, each depending (through a property) on a few
//! resources of earlier layers, grouped under component resources, with a few
//! delete-before-replace resources among them. Deterministic for a given seed.

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// The shape of a generated program.
#[derive(Clone, Debug)]
pub struct DagSpec {
    /// Custom resources (components and providers come on top).
    pub resources: usize,
    /// Resources per layer; dependencies only point to earlier layers.
    pub layer_width: usize,
    /// Custom resources per component resource (their parent).
    pub group_size: usize,
    /// At most this many property dependencies per resource (outside the first layer).
    pub max_deps: usize,
    /// One resource in this many is a `sim:index:Queue` (delete-before-replace).
    pub dbr_every: usize,
    /// Inputs' `latencyMs` (every sim operation waits it, Diff included when the harness
    /// adds a latency to the provider); 0 for none.
    pub latency_ms: u64,
    pub seed: u64,
}

impl DagSpec {
    /// The default shape for `n` resources: layers of 100, groups of 50, up to 3 dependencies,
    /// 1% DBR resources.
    pub fn new(n: usize) -> DagSpec {
        DagSpec {
            resources: n,
            layer_width: 100,
            group_size: 50,
            max_deps: 3,
            dbr_every: 100,
            latency_ms: 0,
            seed: 7,
        }
    }
}

/// One generated custom resource.
#[derive(Clone, Debug)]
pub struct GenResource {
    pub name: String,
    pub type_: &'static str,
    /// Index of its component in [`GeneratedDag::groups`].
    pub group: usize,
    /// Indices of earlier resources whose `uid`/`url` output it takes as an input.
    pub deps: Vec<usize>,
}

/// A generated program: components, then custom resources in dependency order.
#[derive(Clone, Debug)]
pub struct GeneratedDag {
    pub spec: DagSpec,
    /// Component names; component `i` is the parent of resources whose `group` is `i`.
    pub groups: Vec<String>,
    pub resources: Vec<GenResource>,
}

/// The generic sim type (computed output `uid`) and the DBR queue type (computed `url`).
pub(crate) const GENERIC: &str = "sim:index:Resource";
pub(crate) const QUEUE: &str = "sim:index:Queue";
/// The component type every group is registered as.
pub(crate) const GROUP: &str = "bench:index:Group";

impl GeneratedDag {
    /// Generates the DAG described by `spec`.
    pub fn generate(spec: &DagSpec) -> GeneratedDag {
        let mut rng = StdRng::seed_from_u64(spec.seed);
        let width = spec.layer_width.max(1);
        let groups = spec.resources.div_ceil(spec.group_size.max(1));
        let resources = (0..spec.resources)
            .map(|i| {
                let layer = i / width;
                let deps = if layer == 0 {
                    Vec::new()
                } else {
                    // Mostly the previous layer, sometimes anything earlier.
                    let k = rng.random_range(1..=spec.max_deps.max(1));
                    let mut deps: Vec<usize> = (0..k)
                        .map(|_| {
                            let lo = if rng.random_bool(0.8) {
                                (layer - 1) * width
                            } else {
                                0
                            };
                            rng.random_range(lo..layer * width)
                        })
                        .collect();
                    deps.sort_unstable();
                    deps.dedup();
                    deps
                };
                let dbr = spec.dbr_every > 0 && i % spec.dbr_every == spec.dbr_every - 1;
                GenResource {
                    name: format!("r{i}"),
                    type_: if dbr { QUEUE } else { GENERIC },
                    group: i / spec.group_size.max(1),
                    deps,
                }
            })
            .collect();
        GeneratedDag {
            spec: spec.clone(),
            groups: (0..groups).map(|g| format!("g{g}")).collect(),
            resources,
        }
    }

    /// The output a dependent reads from resource `i`.
    pub(crate) fn output_key(&self, i: usize) -> &'static str {
        if self.resources[i].type_ == QUEUE {
            "url"
        } else {
            "uid"
        }
    }

    /// The same program as a Pulumi YAML document (for `yaml::YamlProgram` and the CLI).
    pub fn to_yaml(&self, project: &str) -> String {
        let mut out = format!("name: {project}\nruntime: yaml\nresources:\n");
        for g in &self.groups {
            out.push_str(&format!("  {g}:\n    type: {GROUP}\n"));
        }
        for (i, r) in self.resources.iter().enumerate() {
            out.push_str(&format!(
                "  {}:\n    type: {}\n    options:\n      parent: ${{{}}}\n    properties:\n      seq: {i}\n",
                r.name, r.type_, self.groups[r.group]
            ));
            if self.spec.latency_ms > 0 {
                out.push_str(&format!("      latencyMs: {}\n", self.spec.latency_ms));
            }
            if !r.deps.is_empty() {
                out.push_str("      inputs:\n");
                for d in &r.deps {
                    let dep = &self.resources[*d].name;
                    out.push_str(&format!("        - ${{{dep}.{}}}\n", self.output_key(*d)));
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dependencies_point_backwards_and_some_are_dbr() {
        let dag = GeneratedDag::generate(&DagSpec::new(1_000));
        assert_eq!(dag.resources.len(), 1_000);
        assert_eq!(dag.groups.len(), 20);
        for (i, r) in dag.resources.iter().enumerate() {
            assert!(r.deps.iter().all(|d| *d < i), "{i}: {:?}", r.deps);
            assert_eq!(r.deps.is_empty(), i < 100);
        }
        assert_eq!(
            dag.resources.iter().filter(|r| r.type_ == QUEUE).count(),
            10
        );
        let again = GeneratedDag::generate(&DagSpec::new(1_000));
        assert_eq!(again.resources[500].deps, dag.resources[500].deps);
    }

    #[test]
    fn yaml_names_every_resource_and_dependency() {
        let dag = GeneratedDag::generate(&DagSpec::new(150));
        let yaml = dag.to_yaml("p");
        assert!(yaml.contains("  r149:\n    type: "));
        assert!(yaml.contains("parent: ${g2}"));
        let dep = &dag.resources[120].deps[0];
        assert!(yaml.contains(&format!("${{r{dep}.")));
    }
}
