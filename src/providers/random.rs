//! The `random` provider: the resources of the `pulumi-random` package with its type tokens,
//! inputs and outputs. Every input (including `keepers`) forces a replacement, as there.

use async_trait::async_trait;
use base64::Engine as _;
use rand::Rng;

use super::input_diff::{changed_inputs, diff_result};
use super::input_fields::{
    FieldError, check_known, is_unknown, opt_bool, opt_count, opt_int, opt_str, opt_str_list,
};
use super::random_values::{IdEncodings, StringSpec, id_encodings, pet_name, seeded, shuffle};
use crate::engine::provider::input_types::{InputProperty, InputType, ObjectType};
use crate::engine::provider::{
    CheckFailure, CheckRequest, CheckResult, CreateRequest, CreateResult, DeleteRequest,
    DiffRequest, DiffResult, ProviderError, ReadRequest, ReadResult, UpdateRequest,
};
use crate::engine::{PropertyMap, PropertyValue, Provider, Urn};

/// The cost `pulumi-random` uses for `bcryptHash`.
const BCRYPT_COST: u32 = 10;

/// One resource type of the package.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    String,
    Password,
    Integer,
    Id,
    Pet,
    Uuid(UuidVersion),
    Bytes,
    Shuffle,
}

/// Which UUID a `RandomUuid*` makes: random (v4; `RandomUuid` and `RandomUuid4`) or
/// time-ordered (v7; `RandomUuid7`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum UuidVersion {
    V4,
    V7,
}

const STRING_INPUTS: &[&str] = &[
    "keepers",
    "length",
    "lower",
    "minLower",
    "minNumeric",
    "minSpecial",
    "minUpper",
    "number",
    "numeric",
    "overrideSpecial",
    "special",
    "upper",
];

/// Every resource type of the package with its kind, as pulumi-random's schema names them.
const TYPES: [(&str, Kind); 10] = [
    ("random:index/randomString:RandomString", Kind::String),
    ("random:index/randomPassword:RandomPassword", Kind::Password),
    ("random:index/randomInteger:RandomInteger", Kind::Integer),
    ("random:index/randomId:RandomId", Kind::Id),
    ("random:index/randomPet:RandomPet", Kind::Pet),
    (
        "random:index/randomUuid:RandomUuid",
        Kind::Uuid(UuidVersion::V4),
    ),
    (
        "random:index/randomUuid4:RandomUuid4",
        Kind::Uuid(UuidVersion::V4),
    ),
    (
        "random:index/randomUuid7:RandomUuid7",
        Kind::Uuid(UuidVersion::V7),
    ),
    ("random:index/randomShuffle:RandomShuffle", Kind::Shuffle),
    ("random:index/randomBytes:RandomBytes", Kind::Bytes),
];

impl Kind {
    fn of(token: &str) -> Option<Kind> {
        TYPES.iter().find(|(t, _)| *t == token).map(|(_, k)| *k)
    }

    /// The type token (`RandomUuid` for every v4 UUID kind).
    fn token(self) -> &'static str {
        TYPES
            .iter()
            .find(|(_, k)| *k == self)
            .map_or("random", |(t, _)| *t)
    }

    fn inputs(self) -> &'static [&'static str] {
        match self {
            Kind::String | Kind::Password => STRING_INPUTS,
            Kind::Integer => &["keepers", "max", "min", "seed"],
            Kind::Id => &["byteLength", "keepers", "prefix"],
            Kind::Pet => &["keepers", "length", "prefix", "separator"],
            Kind::Uuid(_) => &["keepers"],
            Kind::Bytes => &["keepers", "length"],
            Kind::Shuffle => &["inputs", "keepers", "resultCount", "seed"],
        }
    }

    fn required(self) -> &'static [&'static str] {
        match self {
            Kind::String | Kind::Password => &["length"],
            Kind::Integer => &["max", "min"],
            Kind::Id => &["byteLength"],
            Kind::Bytes => &["length"],
            Kind::Shuffle => &["inputs"],
            Kind::Pet | Kind::Uuid(_) => &[],
        }
    }

    /// Outputs only known once the resource is created.
    fn generated(self) -> &'static [&'static str] {
        match self {
            Kind::String | Kind::Integer | Kind::Uuid(_) => &["result"],
            Kind::Password => &["result", "bcryptHash"],
            Kind::Id => &["b64Std", "b64Url", "dec", "hex"],
            Kind::Bytes => &["base64", "hex"],
            Kind::Shuffle => &["results"],
            Kind::Pet => &[],
        }
    }

    fn secret_outputs(self) -> bool {
        matches!(self, Kind::Password | Kind::Bytes)
    }

    /// The kind's inputs typed as pulumi-random's schema types them, under the given token.
    fn input_types(self, token: &str) -> ObjectType {
        let properties = self
            .inputs()
            .iter()
            .map(|name| InputProperty {
                name: name.to_string(),
                type_: input_type(name),
                required: self.required().contains(name),
            })
            .collect();
        ObjectType {
            token: Some(token.to_string()),
            properties,
        }
    }
}

/// The schema's type of an input of any kind (each name has one type across the package).
fn input_type(name: &str) -> InputType {
    match name {
        "keepers" => InputType::Map(Box::new(InputType::Any)),
        "inputs" => InputType::Array(Box::new(InputType::String)),
        "lower" | "upper" | "number" | "numeric" | "special" => InputType::Boolean,
        "overrideSpecial" | "prefix" | "separator" | "seed" => InputType::String,
        _ => InputType::Integer,
    }
}

fn kind_of(urn: &Urn) -> Result<Kind, ProviderError> {
    Kind::of(urn.type_()).ok_or_else(|| {
        ProviderError::Failed(format!(
            "unknown random resource type `{}` (for {})",
            urn.type_(),
            urn.name()
        ))
    })
}

fn string_spec(inputs: &PropertyMap) -> Result<StringSpec, FieldError> {
    let numeric = match opt_bool(inputs, "numeric")? {
        Some(n) => n,
        None => opt_bool(inputs, "number")?.unwrap_or(true),
    };
    Ok(StringSpec {
        length: opt_count(inputs, "length")?
            .ok_or_else(|| FieldError::new("length", "missing required input"))?,
        upper: opt_bool(inputs, "upper")?.unwrap_or(true),
        lower: opt_bool(inputs, "lower")?.unwrap_or(true),
        numeric,
        special: opt_bool(inputs, "special")?.unwrap_or(true),
        min_upper: opt_count(inputs, "minUpper")?.unwrap_or(0),
        min_lower: opt_count(inputs, "minLower")?.unwrap_or(0),
        min_numeric: opt_count(inputs, "minNumeric")?.unwrap_or(0),
        min_special: opt_count(inputs, "minSpecial")?.unwrap_or(0),
        override_special: opt_str(inputs, "overrideSpecial")?,
    })
}

fn num(n: usize) -> PropertyValue {
    PropertyValue::Number(n as f64)
}

/// The inputs as outputs, with the package's defaults filled in where they are known.
fn echoed(kind: Kind, inputs: &PropertyMap) -> Result<PropertyMap, FieldError> {
    let mut out = inputs.clone();
    let mut default = |k: &str, v: PropertyValue| {
        out.entry_or_insert_with(k.to_string(), || v);
    };
    match kind {
        Kind::String | Kind::Password => {
            if STRING_INPUTS.iter().any(|k| is_unknown(inputs, k)) {
                return Ok(out);
            }
            let s = string_spec(inputs)?;
            for (k, v) in [
                ("upper", s.upper),
                ("lower", s.lower),
                ("special", s.special),
            ] {
                default(k, PropertyValue::Bool(v));
            }
            default("numeric", PropertyValue::Bool(s.numeric));
            default("number", PropertyValue::Bool(s.numeric));
            for (k, v) in [
                ("minUpper", s.min_upper),
                ("minLower", s.min_lower),
                ("minNumeric", s.min_numeric),
                ("minSpecial", s.min_special),
            ] {
                default(k, num(v));
            }
        }
        Kind::Pet => {
            default("length", num(2));
            default("separator", PropertyValue::string("-"));
        }
        Kind::Integer | Kind::Id | Kind::Uuid(_) | Kind::Shuffle | Kind::Bytes => {}
    }
    Ok(out)
}

fn bad(e: FieldError) -> ProviderError {
    ProviderError::Failed(e.to_string())
}

/// Makes the values of a new resource: its ID and the generated outputs.
async fn generate(
    kind: Kind,
    inputs: &PropertyMap,
) -> Result<(String, PropertyMap), ProviderError> {
    let mut out = PropertyMap::new();
    let id = match kind {
        Kind::String | Kind::Password => {
            let spec = string_spec(inputs).map_err(bad)?;
            let result = spec
                .generate(&mut rand::rng())
                .map_err(|e| ProviderError::Failed(format!("cannot generate the string: {e}")))?;
            if kind == Kind::Password {
                out.insert("bcryptHash".into(), bcrypt_hash(result.clone()).await?);
            }
            out.insert("result".into(), PropertyValue::string(result.clone()));
            // pulumi-random: a string's id is the string itself, a password's is "none".
            if kind == Kind::Password {
                "none".to_string()
            } else {
                result
            }
        }
        Kind::Integer => {
            let min = opt_int(inputs, "min").map_err(bad)?.unwrap_or(0);
            let max = opt_int(inputs, "max").map_err(bad)?.unwrap_or(0);
            if max < min {
                return Err(ProviderError::Failed(format!(
                    "`min` ({min}) must not be greater than `max` ({max})"
                )));
            }
            let seed = opt_str(inputs, "seed").map_err(bad)?;
            let n = seeded(seed.as_deref()).random_range(min..=max);
            out.insert("result".into(), PropertyValue::Number(n as f64));
            n.to_string()
        }
        Kind::Id => {
            let len = opt_count(inputs, "byteLength").map_err(bad)?.unwrap_or(0);
            if len < 1 {
                return Err(ProviderError::Failed(
                    "`byteLength` must be at least 1".into(),
                ));
            }
            let mut bytes = vec![0u8; len];
            rand::rng().fill(&mut bytes[..]);
            let prefix = opt_str(inputs, "prefix").map_err(bad)?.unwrap_or_default();
            let e = id_encodings(&bytes, &prefix);
            let id = e.id.clone();
            insert_id_encodings(&mut out, e);
            id
        }
        Kind::Pet => {
            let length = opt_count(inputs, "length").map_err(bad)?.unwrap_or(2);
            let sep = opt_str(inputs, "separator")
                .map_err(bad)?
                .unwrap_or_else(|| "-".into());
            let prefix = opt_str(inputs, "prefix").map_err(bad)?;
            pet_name(length, &sep, prefix.as_deref(), &mut rand::rng())
        }
        Kind::Bytes => {
            let len = opt_count(inputs, "length").map_err(bad)?.unwrap_or(0);
            if len < 1 {
                return Err(ProviderError::Failed("`length` must be at least 1".into()));
            }
            let mut bytes = vec![0u8; len];
            rand::rng().fill(&mut bytes[..]);
            let b64 = base64::engine::general_purpose::STANDARD.encode(&bytes);
            out.insert("base64".into(), PropertyValue::string(b64.clone()));
            out.insert("hex".into(), PropertyValue::string(hex::encode(&bytes)));
            b64
        }
        Kind::Uuid(version) => {
            let u = match version {
                UuidVersion::V4 => uuid::Uuid::new_v4(),
                UuidVersion::V7 => uuid::Uuid::now_v7(),
            }
            .to_string();
            out.insert("result".into(), PropertyValue::string(u.clone()));
            u
        }
        Kind::Shuffle => {
            let items = opt_str_list(inputs, "inputs")
                .map_err(bad)?
                .unwrap_or_default();
            let count = opt_count(inputs, "resultCount")
                .map_err(bad)?
                .unwrap_or(items.len());
            let seed = opt_str(inputs, "seed").map_err(bad)?;
            let results = shuffle(&items, count, &mut seeded(seed.as_deref()));
            out.insert(
                "results".into(),
                PropertyValue::Array(results.into_iter().map(PropertyValue::String).collect()),
            );
            "-".to_string()
        }
    };
    hide_secret_outputs(kind, &mut out);
    Ok((id, out))
}

/// The inputs and generated outputs of a resource imported by ID, in pulumi-random's import
/// formats: a string or password is its value; an integer `result,min,max[,seed]`; an id its
/// `b64Url`, after `prefix,` if it has one; a UUID itself; bytes their base64. Pets and
/// shuffles cannot be imported, as in pulumi-random.
async fn imported(kind: Kind, id: &str) -> Result<(PropertyMap, PropertyMap), ProviderError> {
    let refused = |why: String| {
        ProviderError::Failed(format!("cannot import {} {id:?}: {why}", kind.token()))
    };
    let mut inputs = PropertyMap::new();
    let mut out = PropertyMap::new();
    match kind {
        Kind::String | Kind::Password => {
            inputs.insert("length".into(), num(id.chars().count()));
            out.insert("result".into(), PropertyValue::string(id));
            if kind == Kind::Password {
                out.insert("bcryptHash".into(), bcrypt_hash(id.to_string()).await?);
            }
        }
        Kind::Integer => {
            let parts: Vec<&str> = id.split(',').collect();
            let [result, min, max, seed @ ..] = parts.as_slice() else {
                return Err(refused("expected result,min,max[,seed]".into()));
            };
            let int = |what: &str, s: &str| {
                s.parse::<i64>()
                    .map_err(|_| refused(format!("{what} {s:?} is not an integer")))
            };
            let (result, min, max) = (int("result", result)?, int("min", min)?, int("max", max)?);
            inputs.insert("min".into(), PropertyValue::Number(min as f64));
            inputs.insert("max".into(), PropertyValue::Number(max as f64));
            if let [seed] = seed {
                inputs.insert("seed".into(), PropertyValue::string(*seed));
            }
            out.insert("result".into(), PropertyValue::Number(result as f64));
        }
        Kind::Id => {
            let (prefix, value) = id.split_once(',').unwrap_or(("", id));
            let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
                .decode(value)
                .map_err(|e| refused(format!("{value:?} is not base64url: {e}")))?;
            inputs.insert("byteLength".into(), num(bytes.len()));
            if !prefix.is_empty() {
                inputs.insert("prefix".into(), PropertyValue::string(prefix));
            }
            insert_id_encodings(&mut out, id_encodings(&bytes, prefix));
        }
        Kind::Uuid(_) => {
            uuid::Uuid::parse_str(id).map_err(|e| refused(format!("not a UUID: {e}")))?;
            out.insert("result".into(), PropertyValue::string(id));
        }
        Kind::Bytes => {
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(id)
                .map_err(|e| refused(format!("not base64: {e}")))?;
            inputs.insert("length".into(), num(bytes.len()));
            out.insert("base64".into(), PropertyValue::string(id));
            out.insert("hex".into(), PropertyValue::string(hex::encode(&bytes)));
        }
        Kind::Pet | Kind::Shuffle => {
            return Err(refused("pulumi-random cannot import this type".into()));
        }
    }
    hide_secret_outputs(kind, &mut out);
    Ok((inputs, out))
}

/// The bcrypt hash `pulumi-random` gives a password (`bcryptHash`), computed off the runtime.
async fn bcrypt_hash(plain: String) -> Result<PropertyValue, ProviderError> {
    let hash = tokio::task::spawn_blocking(move || bcrypt::hash(plain, BCRYPT_COST))
        .await
        .map_err(|e| ProviderError::Failed(format!("bcrypt task failed: {e}")))?
        .map_err(|e| ProviderError::Failed(format!("bcrypt failed: {e}")))?;
    Ok(PropertyValue::string(hash))
}

/// A `RandomId`'s encodings as its outputs.
fn insert_id_encodings(out: &mut PropertyMap, e: IdEncodings) {
    for (k, v) in [
        ("b64Std", e.b64_std),
        ("b64Url", e.b64_url),
        ("hex", e.hex),
        ("dec", e.dec),
    ] {
        out.insert(k.into(), PropertyValue::string(v));
    }
}

/// Marks the generated outputs secret for the kinds whose schema says so.
fn hide_secret_outputs(kind: Kind, out: &mut PropertyMap) {
    if kind.secret_outputs() {
        for v in out.values_mut() {
            *v = PropertyValue::Secret(Box::new(std::mem::take(v)));
        }
    }
}

/// The `random` provider; stateless, so one instance serves any number of resources.
#[derive(Debug, Default)]
pub struct RandomProvider;

impl RandomProvider {
    /// The provider keeps no state: every value lives in the resource's outputs.
    pub fn new() -> RandomProvider {
        RandomProvider
    }
}

fn check_inputs(kind: Kind, news: &PropertyMap) -> Vec<CheckFailure> {
    let mut failures = Vec::new();
    for key in news.keys() {
        if !kind.inputs().contains(&key.as_str()) {
            failures.push(CheckFailure {
                property: key.clone(),
                reason: format!(
                    "unknown input; expected one of {}",
                    kind.inputs().join(", ")
                ),
            });
        }
    }
    for key in kind.required() {
        if matches!(news.get(*key), None | Some(PropertyValue::Null)) {
            failures.push(CheckFailure {
                property: key.to_string(),
                reason: "missing required input".into(),
            });
        }
    }
    if news.get("keepers").is_some_and(|k| {
        !k.contains_unknowns() && k.as_object().is_none() && *k != PropertyValue::Null
    }) {
        failures.push(CheckFailure {
            property: "keepers".into(),
            reason: "expected a map".into(),
        });
    }
    let f = &mut failures;
    match kind {
        Kind::String | Kind::Password => {
            for k in ["lower", "upper", "numeric", "number", "special"] {
                check_known(news, k, f, opt_bool);
            }
            for k in ["length", "minLower", "minUpper", "minNumeric", "minSpecial"] {
                check_known(news, k, f, opt_count);
            }
            check_known(news, "overrideSpecial", f, opt_str);
            let all_known = !STRING_INPUTS.iter().any(|k| is_unknown(news, k));
            if f.is_empty()
                && all_known
                && let Some(problem) = string_spec(news).ok().and_then(|s| s.problem())
            {
                f.push(CheckFailure {
                    property: "length".into(),
                    reason: problem,
                });
            }
        }
        Kind::Integer => {
            let min = check_known(news, "min", f, opt_int).flatten();
            let max = check_known(news, "max", f, opt_int).flatten();
            check_known(news, "seed", f, opt_str);
            if let (Some(min), Some(max)) = (min, max)
                && min > max
            {
                f.push(CheckFailure {
                    property: "min".into(),
                    reason: format!("`min` ({min}) must not be greater than `max` ({max})"),
                });
            }
        }
        Kind::Id => {
            if let Some(Some(0)) = check_known(news, "byteLength", f, opt_count) {
                f.push(CheckFailure {
                    property: "byteLength".into(),
                    reason: "must be at least 1".into(),
                });
            }
            check_known(news, "prefix", f, opt_str);
        }
        Kind::Pet => {
            if let Some(Some(0)) = check_known(news, "length", f, opt_count) {
                f.push(CheckFailure {
                    property: "length".into(),
                    reason: "must be at least 1".into(),
                });
            }
            check_known(news, "prefix", f, opt_str);
            check_known(news, "separator", f, opt_str);
        }
        Kind::Uuid(_) => {}
        Kind::Bytes => {
            if let Some(Some(0)) = check_known(news, "length", f, opt_count) {
                f.push(CheckFailure {
                    property: "length".into(),
                    reason: "must be at least 1".into(),
                });
            }
        }
        Kind::Shuffle => {
            check_known(news, "inputs", f, opt_str_list);
            check_known(news, "resultCount", f, opt_count);
            check_known(news, "seed", f, opt_str);
        }
    }
    failures
}

#[async_trait]
impl Provider for RandomProvider {
    fn resource_types(&self) -> Vec<String> {
        TYPES.iter().map(|(t, _)| t.to_string()).collect()
    }

    async fn input_types(&self, token: &str) -> Result<Option<ObjectType>, ProviderError> {
        Ok(Kind::of(token).map(|k| k.input_types(token)))
    }

    async fn check(&self, req: CheckRequest) -> Result<CheckResult, ProviderError> {
        let kind = kind_of(&req.urn)?;
        let failures = check_inputs(kind, &req.news);
        Ok(CheckResult {
            inputs: req.news,
            failures,
        })
    }

    async fn diff(&self, req: DiffRequest) -> Result<DiffResult, ProviderError> {
        kind_of(&req.urn)?;
        let changes = changed_inputs(&req.old_inputs, &req.new_inputs, &req.ignore_changes);
        Ok(diff_result(changes, |_| true, false, Vec::new()))
    }

    async fn create(&self, req: CreateRequest) -> Result<CreateResult, ProviderError> {
        let kind = kind_of(&req.urn)?;
        let mut outputs = echoed(kind, &req.inputs).map_err(bad)?;
        if req.preview {
            for k in kind.generated() {
                let unknown = if kind.secret_outputs() {
                    PropertyValue::Secret(Box::new(PropertyValue::Unknown))
                } else {
                    PropertyValue::Unknown
                };
                outputs.insert(k.to_string(), unknown);
            }
            return Ok(CreateResult {
                id: String::new(),
                outputs,
            });
        }
        let (id, generated) = generate(kind, &req.inputs).await?;
        outputs.extend(generated);
        Ok(CreateResult { id, outputs })
    }

    /// A refresh keeps what the state holds; an import (no state yet) rebuilds the resource
    /// from its ID as pulumi-random does (`imported`).
    async fn read(&self, req: ReadRequest) -> Result<ReadResult, ProviderError> {
        let kind = kind_of(&req.urn)?;
        if !req.state.is_empty() {
            return Ok(ReadResult {
                id: req.id,
                inputs: req.inputs,
                outputs: req.state,
            });
        }
        let (inputs, generated) = imported(kind, &req.id).await?;
        let mut outputs = echoed(kind, &inputs).map_err(bad)?;
        outputs.extend(generated);
        Ok(ReadResult {
            id: req.id,
            inputs,
            outputs,
        })
    }

    /// A random value lives only in the state: an interrupted create left nothing behind.
    async fn lookup(&self, urn: &Urn) -> Result<Vec<ReadResult>, ProviderError> {
        kind_of(urn)?;
        Ok(Vec::new())
    }

    /// Only reached when nothing forces a replacement, i.e. nothing changed: the values stay.
    async fn update(&self, req: UpdateRequest) -> Result<PropertyMap, ProviderError> {
        let kind = kind_of(&req.urn)?;
        let mut outputs = echoed(kind, &req.new_inputs).map_err(bad)?;
        for k in kind.generated() {
            if let Some(v) = req.old_outputs.get(*k) {
                outputs.insert(k.to_string(), v.clone());
            }
        }
        Ok(outputs)
    }

    async fn delete(&self, req: DeleteRequest) -> Result<(), ProviderError> {
        kind_of(&req.urn)?;
        Ok(())
    }
}
