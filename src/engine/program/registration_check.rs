//! Checks of what a program sends (registrations, reads, invokes, outputs) that need nothing
//! but the request itself. A malformed type, name, version, provider reference, alias or value
//! must be refused before the engine acts on it: once journaled it would make the stack fail
//! its integrity check on every load. The checks against what is registered live in
//! `source.rs`, where the registrations are known.

use crate::engine::model::goal::{Alias, Goal, ReadGoal};
use crate::engine::model::property::{PropertyMap, PropertyValue};
use crate::engine::model::property_path::PropertyPath;
use crate::engine::model::provider_ref::ProviderRef;
use crate::engine::model::resource::{CustomTimeouts, is_provider_type};
use crate::engine::model::urn::ROOT_STACK_TYPE;

/// Deepest nesting of objects and lists accepted in a value: the journal's JSON reader stops at
/// 128 levels and its entries wrap values in a few levels of their own.
pub(crate) const MAX_PROPERTY_DEPTH: usize = 64;
/// Most values (every element of every list and object counts) one request may carry.
pub(crate) const MAX_PROPERTY_VALUES: usize = 1_000_000;

/// A request field that is malformed or names something that does not exist.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{field}: {reason}")]
pub struct InvalidField {
    /// The field as the wire message names it (`parent`, `dependencies[2]`, `object.a.b`).
    pub field: String,
    pub reason: String,
}

impl InvalidField {
    pub fn new(field: impl Into<String>, reason: impl Into<String>) -> InvalidField {
        InvalidField {
            field: field.into(),
            reason: reason.into(),
        }
    }
}

type Checked = Result<(), InvalidField>;

/// Checks a registration's own fields.
pub(crate) fn check_goal(goal: &Goal) -> Checked {
    check_type("type", &goal.type_, goal.custom)?;
    check_name("name", &goal.name)?;
    if goal.type_ == ROOT_STACK_TYPE {
        if goal.custom {
            return Err(InvalidField::new("custom", "the root stack is a component"));
        }
        if let Some(p) = &goal.parent {
            return Err(InvalidField::new(
                "parent",
                format!("the root stack cannot have a parent (got {p})"),
            ));
        }
    }
    if is_provider_type(&goal.type_) && !goal.custom {
        return Err(InvalidField::new(
            "custom",
            "a provider resource must be a custom resource",
        ));
    }
    if let Some(v) = &goal.version {
        check_version("version", v)?;
    }
    for (i, alias) in goal.aliases.iter().enumerate() {
        check_alias(&format!("aliases[{i}]"), alias, goal.custom)?;
    }
    if let Some(t) = &goal.custom_timeouts {
        check_timeouts(t)?;
    }
    for (field, paths) in [
        ("ignoreChanges", &goal.ignore_changes),
        ("replaceOnChanges", &goal.replace_on_changes),
        ("hideDiffs", &goal.hide_diffs),
    ] {
        for (i, p) in paths.iter().enumerate() {
            PropertyPath::parse(p)
                .map_err(|e| InvalidField::new(format!("{field}[{i}]"), e.to_string()))?;
        }
    }
    if goal.import_id.is_some() && !goal.custom {
        return Err(InvalidField::new(
            "importId",
            "only custom resources can be imported",
        ));
    }
    let mut budget = MAX_PROPERTY_VALUES;
    check_value(&goal.replacement_trigger, 1, &mut budget)
        .map_err(|f| f.into_field("replacementTrigger"))?;
    check_properties("object", &goal.properties)
}

/// Checks a read's own fields.
pub(crate) fn check_read_goal(goal: &ReadGoal) -> Checked {
    check_type("type", &goal.type_, true)?;
    check_name("name", &goal.name)?;
    if goal.id.is_empty() {
        return Err(InvalidField::new(
            "id",
            "a read needs the ID of the resource to read",
        ));
    }
    if is_provider_type(&goal.type_) {
        return Err(InvalidField::new("type", "providers cannot be read"));
    }
    if let Some(v) = &goal.version {
        check_version("version", v)?;
    }
    check_properties("properties", &goal.properties)
}

/// Checks an invoke's function token and arguments.
pub(crate) fn check_invoke(token: &str, args: &PropertyMap) -> Checked {
    check_type("tok", token, true)?;
    check_properties("args", args)
}

/// A type token: not empty, no URN separators; a custom resource's (and a function's) has the
/// form `<package>:<module>:<name>`, as Pulumi's `ParseTypeToken` demands.
pub(crate) fn check_type(field: &str, ty: &str, custom: bool) -> Checked {
    let bad =
        |why: &str| InvalidField::new(field, format!("{ty:?} is not a valid type token: {why}"));
    if ty.is_empty() {
        return Err(InvalidField::new(field, "must not be empty"));
    }
    if ty.contains("::") || ty.contains('$') {
        return Err(bad("'::' and '$' separate the parts of a URN"));
    }
    if ty.chars().any(char::is_control) {
        return Err(bad("it contains control characters"));
    }
    if custom {
        let parts: Vec<&str> = ty.split(':').collect();
        if parts.len() != 3 || parts.iter().any(|p| p.is_empty()) {
            return Err(bad("expected <package>:<module>:<name>"));
        }
    }
    Ok(())
}

fn check_name(field: &str, name: &str) -> Checked {
    if name.is_empty() {
        return Err(InvalidField::new(field, "must not be empty"));
    }
    Ok(())
}

/// A package version: semantic versioning 2.0 (an optional leading `v` is tolerated).
pub(crate) fn check_version(field: &str, v: &str) -> Checked {
    semver::Version::parse(v.strip_prefix('v').unwrap_or(v))
        .map(|_| ())
        .map_err(|e| InvalidField::new(field, format!("{v:?} is not a semantic version: {e}")))
}

/// A program's provider reference, parsed where its request is decoded: `<provider URN>::
/// <provider ID>`, the URN of type `pulumi:providers:<package>`, the ID not empty.
pub(crate) fn provider_reference(
    field: &str,
    reference: &str,
) -> Result<ProviderRef, InvalidField> {
    ProviderRef::parse_request(reference).map_err(|e| InvalidField::new(field, e.to_string()))
}

fn check_alias(field: &str, alias: &Alias, custom: bool) -> Checked {
    let Alias::Spec {
        name,
        type_,
        parent,
        no_parent,
        project,
        stack,
    } = alias
    else {
        return Ok(());
    };
    if let Some(t) = type_ {
        check_type(&format!("{field}.type"), t, custom)?;
    }
    if let Some(n) = name {
        check_name(&format!("{field}.name"), n)?;
    }
    for (part, value) in [("project", project), ("stack", stack)] {
        if let Some(v) = value
            && (v.is_empty() || v.contains("::"))
        {
            return Err(InvalidField::new(
                format!("{field}.{part}"),
                format!("{v:?} is not a valid {part} name"),
            ));
        }
    }
    if *no_parent && parent.is_some() {
        return Err(InvalidField::new(
            format!("{field}.noParent"),
            "an alias cannot have both a parent and no parent",
        ));
    }
    Ok(())
}

fn check_timeouts(t: &CustomTimeouts) -> Checked {
    for (name, v) in [
        ("create", t.create),
        ("update", t.update),
        ("delete", t.delete),
        ("read", t.read),
    ] {
        if !v.is_finite() || v < 0.0 {
            return Err(InvalidField::new(
                format!("customTimeouts.{name}"),
                format!("{v} is not a usable number of seconds"),
            ));
        }
    }
    Ok(())
}

/// Checks a property map: nesting depth, number of values, finite numbers (the state is JSON,
/// which has no NaN or infinity). Linear in the values; a path is built only for the culprit.
pub(crate) fn check_properties(field: &str, props: &PropertyMap) -> Checked {
    let mut budget = MAX_PROPERTY_VALUES;
    for (k, v) in props {
        check_value(v, 1, &mut budget).map_err(|f| f.into_field(&format!("{field}.{k}")))?;
    }
    Ok(())
}

/// What is wrong with a value, and the path to it from the innermost segment outward.
struct ValueFault {
    reason: String,
    segments: Vec<String>,
}

impl ValueFault {
    fn new(reason: String) -> ValueFault {
        ValueFault {
            reason,
            segments: Vec::new(),
        }
    }

    fn under(mut self, segment: String) -> ValueFault {
        self.segments.push(segment);
        self
    }

    fn into_field(self, prefix: &str) -> InvalidField {
        let mut path = prefix.to_string();
        path.extend(self.segments.into_iter().rev());
        InvalidField::new(path, self.reason)
    }
}

/// Counts one value at `depth` against the limits.
fn admit(depth: usize, budget: &mut usize) -> Result<(), ValueFault> {
    if depth > MAX_PROPERTY_DEPTH {
        return Err(ValueFault::new(format!(
            "values nest deeper than {MAX_PROPERTY_DEPTH} levels"
        )));
    }
    if *budget == 0 {
        return Err(ValueFault::new(format!(
            "more than {MAX_PROPERTY_VALUES} values in one request"
        )));
    }
    *budget -= 1;
    Ok(())
}

fn check_value(v: &PropertyValue, depth: usize, budget: &mut usize) -> Result<(), ValueFault> {
    admit(depth, budget)?;
    match v {
        PropertyValue::Number(n) if !n.is_finite() => {
            Err(ValueFault::new(format!("{n} is not a finite number")))
        }
        PropertyValue::Array(items) => items.iter().enumerate().try_for_each(|(i, e)| {
            check_value(e, depth + 1, budget).map_err(|f| f.under(format!("[{i}]")))
        }),
        PropertyValue::Object(m) => m.iter().try_for_each(|(k, e)| {
            check_value(e, depth + 1, budget).map_err(|f| f.under(format!(".{k}")))
        }),
        PropertyValue::Secret(inner) => check_value(inner, depth + 1, budget),
        PropertyValue::ResourceReference(r) => match &r.id {
            Some(id) => check_value(id, depth + 1, budget),
            None => Ok(()),
        },
        PropertyValue::Asset(m) | PropertyValue::Archive(m) => m.iter().try_for_each(|(k, e)| {
            check_json(e, depth + 1, budget).map_err(|f| f.under(format!(".{k}")))
        }),
        _ => Ok(()),
    }
}

fn check_json(v: &serde_json::Value, depth: usize, budget: &mut usize) -> Result<(), ValueFault> {
    admit(depth, budget)?;
    match v {
        serde_json::Value::Array(items) => items.iter().enumerate().try_for_each(|(i, e)| {
            check_json(e, depth + 1, budget).map_err(|f| f.under(format!("[{i}]")))
        }),
        serde_json::Value::Object(m) => m.iter().try_for_each(|(k, e)| {
            check_json(e, depth + 1, budget).map_err(|f| f.under(format!(".{k}")))
        }),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn goal(ty: &str, name: &str) -> Goal {
        Goal::custom(ty, name, PropertyMap::new())
    }

    fn field_of(r: Checked) -> String {
        r.unwrap_err().field
    }

    #[test]
    fn types_names_and_versions() {
        assert!(check_goal(&goal("random:index:RandomString", "a")).is_ok());
        assert_eq!(field_of(check_goal(&goal("", "a"))), "type");
        assert_eq!(field_of(check_goal(&goal("random", "a"))), "type");
        assert_eq!(field_of(check_goal(&goal("a::b:c", "a"))), "type");
        assert_eq!(field_of(check_goal(&goal("a:b$c:d", "a"))), "type");
        assert_eq!(field_of(check_goal(&goal("a:b:c", ""))), "name");
        let mut g = goal("a:b:c", "x");
        g.version = Some("1.2".into());
        assert_eq!(field_of(check_goal(&g)), "version");
        g.version = Some("v4.21.4-alpha.1+build".into());
        assert!(check_goal(&g).is_ok());
        let component = Goal::component("my component type", "c");
        assert!(check_goal(&component).is_ok());
    }

    #[test]
    fn a_type_token_is_refused_for_what_is_wrong_with_it() {
        let why = |ty: &str, custom: bool| match check_type("type", ty, custom) {
            Ok(()) => "ok".to_string(),
            Err(e) => e.reason,
        };
        for ok in ["a:b:c", "pkg:index/mod:Type", "x:y:Ωmega"] {
            assert_eq!(why(ok, true), "ok", "{ok}");
        }
        for ok in ["my component type", "a:b", "a:b:c:d"] {
            assert_eq!(why(ok, false), "ok", "{ok}");
        }
        for (ty, reason) in [
            ("", "must not be empty"),
            ("a::b:c", "'::' and '$' separate the parts of a URN"),
            ("a:b:c::", "'::' and '$' separate the parts of a URN"),
            ("a:b$c:d", "'::' and '$' separate the parts of a URN"),
            ("a:b:c\u{7}", "it contains control characters"),
            ("a:b:c\u{85}", "it contains control characters"),
            ("a:b", "expected <package>:<module>:<name>"),
            ("a:b:c:d", "expected <package>:<module>:<name>"),
            (":b:c", "expected <package>:<module>:<name>"),
            ("a:b:", "expected <package>:<module>:<name>"),
        ] {
            assert!(why(ty, true).ends_with(reason), "{ty:?}: {}", why(ty, true));
        }
        assert!(why("a$b", false).ends_with("separate the parts of a URN"));
    }

    #[test]
    fn provider_references_and_aliases() {
        let bad = |r: &str| provider_reference("provider", r).unwrap_err().to_string();
        assert_eq!(
            bad("urn:pulumi:dev::p::a:b:c::x::id"),
            "provider: bad provider reference 'urn:pulumi:dev::p::a:b:c::x::id': the URN does not name a provider resource"
        );
        assert_eq!(
            bad("urn:pulumi:dev::p::pulumi:providers:a::x::"),
            "provider: bad provider reference 'urn:pulumi:dev::p::pulumi:providers:a::x::': the provider ID is empty"
        );
        assert!(
            provider_reference("provider", "urn:pulumi:dev::p::pulumi:providers:a::x::id").is_ok()
        );
        let mut g = goal("a:b:c", "x");
        g.aliases = vec![Alias::Spec {
            name: None,
            type_: Some("bad".into()),
            parent: None,
            no_parent: false,
            project: None,
            stack: None,
        }];
        assert_eq!(field_of(check_goal(&g)), "aliases[0].type");
    }

    #[test]
    fn values_are_bounded_and_finite() {
        let mut v = PropertyValue::Null;
        for _ in 0..MAX_PROPERTY_DEPTH {
            v = PropertyValue::Array(vec![v]);
        }
        let mut g = goal("a:b:c", "x");
        g.properties.insert("deep".into(), v);
        assert!(
            check_goal(&g)
                .unwrap_err()
                .reason
                .contains("deeper than 64")
        );
        g.properties.clear();
        g.properties.insert(
            "n".into(),
            PropertyValue::Array(vec![
                PropertyValue::Null,
                PropertyValue::Object(
                    [("x".to_string(), PropertyValue::Number(f64::NAN))]
                        .into_iter()
                        .collect(),
                ),
            ]),
        );
        assert_eq!(field_of(check_goal(&g)), "object.n[1].x");
        g.properties.clear();
        g.properties.insert(
            "big".into(),
            PropertyValue::Array(vec![PropertyValue::Null; MAX_PROPERTY_VALUES]),
        );
        assert!(check_goal(&g).is_err());
    }
}
