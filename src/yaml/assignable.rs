//! Whether a value as written can be assigned to a type its package's schema declares, in
//! pulumi-yaml's rules and words (`isAssignable` in its `analyser.go`): numbers and booleans
//! coerce to strings, integers and numbers to each other, an object needs every required
//! property and no unknown one; a reference's type is not known and passes.

use crate::engine::provider::input_types::{InputProperty, InputType, ObjectType};

use super::ast::{Expr, ExprKind};
use super::builtin::Builtin;
use super::error::{Pos, no_such_field};

/// Why a value cannot be assigned, with the reasons of its parts beneath it.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct NotAssignable {
    reason: String,
    property: Option<String>,
    /// Where the offending value was written, when known.
    pub(super) pos: Option<Pos>,
    because: Vec<NotAssignable>,
    /// A one-line statement that replaces the generic one when this is the only reason.
    summary: Option<String>,
}

impl NotAssignable {
    fn new(reason: String) -> NotAssignable {
        NotAssignable {
            reason,
            property: None,
            pos: None,
            because: Vec::new(),
            summary: None,
        }
    }

    fn because(mut self, because: Vec<NotAssignable>) -> NotAssignable {
        self.because = because;
        self
    }

    fn property(mut self, name: &str) -> NotAssignable {
        self.property = Some(name.to_string());
        self
    }

    /// The first place a reason was written at, this one's or a part's.
    pub(super) fn first_pos(&self) -> Option<Pos> {
        self.pos
            .or_else(|| self.because.iter().find_map(NotAssignable::first_pos))
    }

    /// The one-line summary pulumi-yaml hoists from a single reason, if any.
    pub(super) fn summary(&self) -> Option<String> {
        match (&self.summary, self.because.as_slice()) {
            (Some(s), _) => Some(s.clone()),
            (None, [only]) => only.summary(),
            _ => None,
        }
    }

    /// The chain of reasons, each part indented under its whole and set apart by a blank line,
    /// as Pulumi shows pulumi-yaml's diagnostic.
    pub(super) fn render(&self) -> String {
        let mut lines = Vec::new();
        self.lines(0, &mut lines);
        lines.join("\n\n")
    }

    fn lines(&self, indent: usize, out: &mut Vec<String>) {
        let prop = self
            .property
            .as_ref()
            .map_or(String::new(), |p| format!("{p}: "));
        let colon = if self.because.is_empty() { "" } else { ":" };
        out.push(format!(
            "{}{prop}{}{colon}",
            "  ".repeat(indent),
            self.reason
        ));
        for b in &self.because {
            b.lines(indent + 1, out);
        }
    }
}

/// The type of a value as written, before it runs: literals by their kind, objects and lists
/// by their parts, the built-ins pulumi-yaml types by their result, anything else `any`.
pub(super) fn expr_type(e: &Expr) -> InputType {
    match &e.kind {
        ExprKind::Bool(_) => InputType::Boolean,
        ExprKind::Number(_) => InputType::Number,
        ExprKind::String(_) | ExprKind::Interpolate(_) => InputType::String,
        ExprKind::List(items) => InputType::Array(Box::new(union_of(items.iter().map(expr_type)))),
        ExprKind::Object(entries) => InputType::Object(ObjectType {
            token: None,
            properties: entries
                .iter()
                .map(|(name, v)| InputProperty {
                    name: name.clone(),
                    type_: expr_type(v),
                    required: false,
                })
                .collect(),
        }),
        ExprKind::AssetArchive(_) => InputType::Archive,
        ExprKind::Call(builtin, args) => match builtin {
            Builtin::Join | Builtin::ToJson => InputType::String,
            Builtin::Split => InputType::Array(Box::new(InputType::String)),
            Builtin::Secret | Builtin::Unsecret => args.first().map_or(InputType::Any, expr_type),
            Builtin::StringAsset | Builtin::FileAsset | Builtin::RemoteAsset => InputType::Asset,
            Builtin::FileArchive | Builtin::RemoteArchive => InputType::Archive,
            _ => InputType::Any,
        },
        ExprKind::Null
        | ExprKind::Symbol(_)
        | ExprKind::Invoke(_)
        | ExprKind::StackReference { .. } => InputType::Any,
    }
}

/// One type for a list's elements: the single one, or their union in first-seen order.
fn union_of(types: impl Iterator<Item = InputType>) -> InputType {
    let mut seen: Vec<InputType> = Vec::new();
    for t in types {
        if !seen.contains(&t) {
            seen.push(t);
        }
    }
    match seen.len() {
        0 => InputType::Any,
        1 => seen.remove(0),
        _ => InputType::Union(seen),
    }
}

/// Why a resource's properties as written (name, type, where) cannot be its inputs, or `None`;
/// its summary is pulumi-yaml's (one reason's own, else "… is not assignable from …").
pub(super) fn check_properties(
    written: &[(String, InputType, Option<Pos>)],
    to: &ObjectType,
) -> Option<NotAssignable> {
    let from = InputType::Object(ObjectType {
        token: None,
        properties: written
            .iter()
            .map(|(name, t, _)| InputProperty {
                name: name.clone(),
                type_: t.clone(),
                required: false,
            })
            .collect(),
    });
    let to_type = InputType::Object(to.clone());
    let failures = object_failures(written, to);
    if failures.is_empty() {
        return None;
    }
    let mut why = fail(&from, &to_type).because(failures);
    why.summary = why
        .summary()
        .or_else(|| Some(format!("{to_type} is not assignable from {from}")));
    Some(why)
}

/// The generic "cannot assign" of one pair of types.
fn fail(from: &InputType, to: &InputType) -> NotAssignable {
    let shown = |t: &InputType| {
        if from.is_primitive() {
            format!("type '{t}'")
        } else {
            format!("'{t}'")
        }
    };
    NotAssignable::new(format!("Cannot assign {} to {}", shown(from), shown(to)))
}

/// Each property that keeps an object from being assigned: a required one missing, one of
/// the wrong type, one the target does not have.
fn object_failures(
    written: &[(String, InputType, Option<Pos>)],
    to: &ObjectType,
) -> Vec<NotAssignable> {
    let mut failures = Vec::new();
    for prop in &to.properties {
        match written.iter().find(|(name, _, _)| *name == prop.name) {
            None if prop.required => failures.push(
                NotAssignable::new(format!("Missing required property '{}'", prop.name))
                    .property(&prop.name),
            ),
            None => {}
            Some((_, from, pos)) => {
                if let Some(mut why) = assignable(from, &prop.type_) {
                    why.pos = *pos;
                    failures.push(why.property(&prop.name));
                }
            }
        }
    }
    let target = InputType::Object(to.clone()).to_string();
    let existing: Vec<&str> = to.properties.iter().map(|p| p.name.as_str()).collect();
    for (name, _, pos) in written {
        if to.property(name).is_none() {
            let message = no_such_field(
                &format!("Property {name}"),
                &format!("'{target}'"),
                name,
                &existing,
                "properties",
            );
            let mut why = NotAssignable::new(message.clone());
            why.summary = message.split("; ").next().map(str::to_string);
            why.pos = *pos;
            failures.push(why);
        }
    }
    failures
}

/// Why a value of type `from` cannot be assigned to `to`, or `None` when it can.
fn assignable(from: &InputType, to: &InputType) -> Option<NotAssignable> {
    if *from == InputType::Any || *to == InputType::Any {
        return None;
    }
    let ok_if = |cond: bool| (!cond).then(|| fail(from, to));
    if let InputType::Union(members) = from {
        let reasons: Vec<NotAssignable> =
            members.iter().filter_map(|m| assignable(m, to)).collect();
        return (!reasons.is_empty()).then(|| fail(from, to).because(reasons));
    }
    match to {
        InputType::Number | InputType::Integer => {
            ok_if(matches!(from, InputType::Number | InputType::Integer))
        }
        InputType::String => ok_if(matches!(
            from,
            InputType::String | InputType::Number | InputType::Integer | InputType::Boolean
        )),
        InputType::Asset => ok_if(matches!(from, InputType::Asset | InputType::Archive)),
        InputType::Boolean | InputType::Archive => ok_if(from == to),
        InputType::Any => None,
        InputType::Union(members) => {
            let mut reasons = Vec::new();
            for m in members {
                match assignable(from, m) {
                    None => return None,
                    Some(r) => reasons.push(r),
                }
            }
            Some(fail(from, to).because(reasons))
        }
        InputType::Array(to_elem) => match from {
            InputType::Array(from_elem) => {
                assignable(from_elem, to_elem).map(|r| fail(from, to).because(vec![r]))
            }
            _ => Some(fail(from, to)),
        },
        InputType::Map(to_elem) => match from {
            InputType::Map(from_elem) => {
                assignable(from_elem, to_elem).map(|r| fail(from, to).because(vec![r]))
            }
            InputType::Object(o) => o.properties.iter().find_map(|p| {
                assignable(&p.type_, to_elem)
                    .map(|r| fail(from, to).because(vec![r.property(&p.name)]))
            }),
            _ => Some(fail(from, to)),
        },
        InputType::Object(to_obj) => match from {
            InputType::Object(o) => {
                let written: Vec<(String, InputType, Option<Pos>)> = o
                    .properties
                    .iter()
                    .map(|p| (p.name.clone(), p.type_.clone(), None))
                    .collect();
                let failures = object_failures(&written, to_obj);
                (!failures.is_empty()).then(|| fail(from, to).because(failures))
            }
            InputType::Map(elem) => {
                let failures: Vec<NotAssignable> = to_obj
                    .properties
                    .iter()
                    .filter_map(|p| assignable(elem, &p.type_).map(|r| r.property(&p.name)))
                    .collect();
                (!failures.is_empty()).then(|| fail(from, to).because(failures))
            }
            _ => Some(fail(from, to)),
        },
    }
}
