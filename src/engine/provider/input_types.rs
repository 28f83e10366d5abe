//! The types a package's schema gives a resource's inputs, so that a program language that sees
//! its values as written (YAML) can refuse a misplaced one before anything registers, as
//! pulumi-yaml's type checker does.

use std::fmt;

/// The type of a value as a package schema declares it (or as a program writes it).
#[derive(Clone, Debug, PartialEq)]
pub enum InputType {
    /// Anything goes: `pulumi.json#/Any`, or a value whose type is not known before it runs.
    Any,
    String,
    Number,
    Integer,
    Boolean,
    Asset,
    Archive,
    Array(Box<InputType>),
    Map(Box<InputType>),
    Object(ObjectType),
    /// One of several types (`oneOf`, or a list whose elements differ).
    Union(Vec<InputType>),
}

/// An object's properties in declaration order; a resource's inputs are one.
#[derive(Clone, Debug, PartialEq)]
pub struct ObjectType {
    /// The schema token (`random:index/randomString:RandomString`); none for an object a program
    /// writes inline, which is shown by its properties instead.
    pub token: Option<String>,
    pub properties: Vec<InputProperty>,
}

/// One property of an object type.
#[derive(Clone, Debug, PartialEq)]
pub struct InputProperty {
    pub name: String,
    pub type_: InputType,
    pub required: bool,
}

impl InputType {
    /// Whether the type is a scalar (pulumi-yaml then says "type 'string'" rather than "'…'").
    pub fn is_primitive(&self) -> bool {
        matches!(
            self,
            InputType::Any
                | InputType::String
                | InputType::Number
                | InputType::Integer
                | InputType::Boolean
                | InputType::Asset
                | InputType::Archive
        )
    }
}

impl ObjectType {
    /// The property of that name, if the object has it.
    pub fn property(&self, name: &str) -> Option<&InputProperty> {
        self.properties.iter().find(|p| p.name == name)
    }
}

/// pulumi-yaml's display of a type (`List<string>`, `{length: string}`, a token).
impl fmt::Display for InputType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InputType::Any => f.write_str("any"),
            InputType::String => f.write_str("string"),
            InputType::Number => f.write_str("number"),
            InputType::Integer => f.write_str("integer"),
            InputType::Boolean => f.write_str("boolean"),
            InputType::Asset => f.write_str("asset"),
            InputType::Archive => f.write_str("archive"),
            InputType::Array(e) => write!(f, "List<{e}>"),
            InputType::Map(e) => write!(f, "Map<{e}>"),
            InputType::Union(ts) => {
                let inner: Vec<String> = ts.iter().map(ToString::to_string).collect();
                write!(f, "Union<{}>", inner.join(", "))
            }
            InputType::Object(o) => match &o.token {
                Some(token) => f.write_str(token),
                None => {
                    let props: Vec<String> = o
                        .properties
                        .iter()
                        .map(|p| format!("{}: {}", p.name, p.type_))
                        .collect();
                    write!(f, "{{{}}}", props.join(", "))
                }
            },
        }
    }
}
