//! The resource types of the simulated cloud as data: which inputs force a replacement, which
//! must be deleted before they are replaced, what they require and what they compute.

use rand::Rng;

use crate::engine::{PropertyMap, PropertyValue};

/// How a computed output gets its value on create.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Computed {
    /// Short random hex, new on every create (the generic resource's `uid`).
    Hex,
    /// `<prefix><8 hex>`, an ID-like value such as `net-1a2b3c4d`.
    PrefixedHex(&'static str),
    /// A private IPv4 address.
    Ip,
    /// `db-<hex>.sim`.
    DbEndpoint,
    /// A constant number, known even in preview.
    Number(u32),
    /// `arn:sim:bucket:::<namePrefix or name>-<hex>`.
    BucketArn,
    /// `https://queue.sim/<name>-<hex>`, with `.fifo` for FIFO queues.
    QueueUrl,
}

fn hex(rng: &mut impl Rng, bytes: usize) -> String {
    let mut buf = vec![0u8; bytes];
    rng.fill(&mut buf[..]);
    hex::encode(buf)
}

impl Computed {
    /// The value a create produces; `name` is the resource's name in the program.
    pub(crate) fn generate(self, name: &str, inputs: &PropertyMap) -> PropertyValue {
        let rng = &mut rand::rng();
        let s = match self {
            Computed::Hex => hex(rng, 4),
            Computed::PrefixedHex(prefix) => format!("{prefix}{}", hex(rng, 4)),
            Computed::Ip => format!(
                "10.{}.{}.{}",
                rng.random_range(0..=255u8),
                rng.random_range(0..=255u8),
                rng.random_range(1..=254u8)
            ),
            Computed::DbEndpoint => format!("db-{}.sim", hex(rng, 4)),
            Computed::Number(n) => return PropertyValue::Number(f64::from(n)),
            Computed::BucketArn => {
                let base = inputs
                    .get("namePrefix")
                    .and_then(PropertyValue::as_str)
                    .unwrap_or(name);
                format!("arn:sim:bucket:::{base}-{}", hex(rng, 4))
            }
            Computed::QueueUrl => {
                let fifo = inputs.get("fifo").and_then(PropertyValue::as_bool) == Some(true);
                let suffix = if fifo { ".fifo" } else { "" };
                format!("https://queue.sim/{name}-{}{suffix}", hex(rng, 3))
            }
        };
        PropertyValue::String(s)
    }

    /// What preview shows for a resource not created yet: constants, or unknown.
    pub(crate) fn preview(self) -> PropertyValue {
        match self {
            Computed::Number(n) => PropertyValue::Number(f64::from(n)),
            _ => PropertyValue::Unknown,
        }
    }
}

/// One resource type of the simulated cloud.
#[derive(Debug)]
pub(crate) struct SimType {
    pub token: &'static str,
    /// Inputs whose change forces a replacement (in addition to the `replaceOn` input).
    pub replace_on: &'static [&'static str],
    /// Whether replacing it must delete the old one first.
    pub delete_before_replace: bool,
    pub required: &'static [&'static str],
    pub computed: &'static [(&'static str, Computed)],
}

/// The generic resource: free-form inputs, a `uid` new on every create.
pub(crate) const GENERIC: &str = "sim:index:Resource";

/// A resource that names itself (its `name` output) unless the program names it: by the
/// stack's autonaming config when set, as Pulumi's testprovider's `Named` does.
pub(crate) const NAMED: &str = "sim:index:Named";

pub(crate) static SIM_TYPES: &[SimType] = &[
    SimType {
        token: GENERIC,
        replace_on: &[],
        delete_before_replace: false,
        required: &[],
        computed: &[("uid", Computed::Hex)],
    },
    SimType {
        token: "sim:index:Network",
        replace_on: &["cidr"],
        delete_before_replace: false,
        required: &["cidr"],
        computed: &[("networkId", Computed::PrefixedHex("net-"))],
    },
    SimType {
        token: "sim:index:Subnet",
        replace_on: &["networkId", "cidr"],
        delete_before_replace: false,
        required: &["networkId", "cidr"],
        computed: &[("subnetId", Computed::PrefixedHex("subnet-"))],
    },
    SimType {
        token: "sim:index:Database",
        replace_on: &["engine"],
        delete_before_replace: true,
        required: &["engine"],
        computed: &[
            ("endpoint", Computed::DbEndpoint),
            ("port", Computed::Number(5432)),
        ],
    },
    SimType {
        token: "sim:index:Server",
        replace_on: &["image", "subnetId", "dbEndpoint"],
        delete_before_replace: false,
        required: &["image"],
        computed: &[("ip", Computed::Ip)],
    },
    SimType {
        token: "sim:index:Bucket",
        replace_on: &["namePrefix"],
        delete_before_replace: false,
        required: &[],
        computed: &[("arn", Computed::BucketArn)],
    },
    SimType {
        token: "sim:index:Queue",
        replace_on: &["fifo"],
        delete_before_replace: true,
        required: &[],
        computed: &[("url", Computed::QueueUrl)],
    },
    SimType {
        token: NAMED,
        replace_on: &[],
        delete_before_replace: false,
        required: &[],
        computed: &[],
    },
];

pub(crate) fn sim_type(token: &str) -> Option<&'static SimType> {
    SIM_TYPES.iter().find(|t| t.token == token)
}

/// The known type tokens, for error messages.
pub(crate) fn known_tokens() -> String {
    SIM_TYPES
        .iter()
        .map(|t| t.token)
        .collect::<Vec<_>>()
        .join(", ")
}

impl SimType {
    pub(crate) fn is_computed(&self, key: &str) -> bool {
        self.computed.iter().any(|(k, _)| *k == key)
    }

    pub(crate) fn computed_keys(&self) -> Vec<String> {
        self.computed.iter().map(|(k, _)| k.to_string()).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::model::property::props;

    #[test]
    fn computed_values_have_their_documented_shapes() {
        let inputs = props([("fifo", PropertyValue::Bool(true))]);
        let url = Computed::QueueUrl.generate("jobs", &inputs);
        assert!(url.as_str().unwrap().starts_with("https://queue.sim/jobs-"));
        assert!(url.as_str().unwrap().ends_with(".fifo"));
        let ep = Computed::DbEndpoint.generate("db", &PropertyMap::new());
        let ep = ep.as_str().unwrap();
        assert!(
            ep.starts_with("db-") && ep.ends_with(".sim") && ep.len() == 15,
            "{ep}"
        );
        assert_eq!(
            Computed::Number(5432).preview(),
            PropertyValue::Number(5432.0)
        );
        assert_eq!(Computed::Ip.preview(), PropertyValue::Unknown);
        let arn = Computed::BucketArn.generate("b", &props([("namePrefix", "logs")]));
        assert!(arn.as_str().unwrap().starts_with("arn:sim:bucket:::logs-"));
        assert_ne!(
            Computed::Hex.generate("x", &PropertyMap::new()),
            Computed::Hex.generate("x", &PropertyMap::new())
        );
    }

    #[test]
    fn table_lookups() {
        let db = sim_type("sim:index:Database").unwrap();
        assert!(db.delete_before_replace);
        assert!(db.is_computed("port"));
        assert!(sim_type("sim:index:Nope").is_none());
        assert!(known_tokens().contains("sim:index:Queue"));
    }
}
