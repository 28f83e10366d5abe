//! Names in the generated TypeScript: tokens split into module and member, the casing Pulumi's
//! nodejs codegen gives classes, files and functions, and doc comments.

use regex::Regex;

/// `foo_bar`, `foo-bar` or `FooBar` as `fooBar`.
pub(super) fn camel(s: &str) -> String {
    let pascal = pascal(s);
    let mut chars = pascal.chars();
    match chars.next() {
        Some(first) => first.to_lowercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// `foo_bar`, `foo-bar` or `fooBar` as `FooBar`.
pub(super) fn pascal(s: &str) -> String {
    let mut out = String::new();
    let mut upper = true;
    for c in s.chars() {
        if !c.is_ascii_alphanumeric() {
            upper = true;
            continue;
        }
        if upper {
            out.extend(c.to_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    out
}

/// A property name as a TypeScript member: bare when it is an identifier, quoted otherwise.
pub(super) fn member(name: &str) -> String {
    let ident = name
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == '$')
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$');
    if ident {
        name.to_string()
    } else {
        format!("{name:?}")
    }
}

/// The TypeScript string literal of `s`.
pub(super) fn quoted(s: &str) -> String {
    serde_json::Value::String(s.to_string()).to_string()
}

/// A `/** ... */` comment of `description` indented by `indent`, or nothing.
pub(super) fn doc(description: Option<&str>, indent: &str) -> String {
    let Some(text) = description.map(str::trim).filter(|d| !d.is_empty()) else {
        return String::new();
    };
    let mut out = format!("{indent}/**\n");
    for line in text.replace("*/", "*&#47;").lines() {
        out.push_str(&format!("{indent} * {line}\n").replace(" \n", "\n"));
    }
    out.push_str(&format!("{indent} */\n"));
    out
}

/// A schema token `pkg:module:Member`, its module as the package lays out its files.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Token {
    pub(super) package: String,
    /// The module path (`""` for the package's root, Pulumi's `index`).
    pub(super) module: String,
    pub(super) member: String,
}

/// How a package's tokens map to modules: the schema's `meta.moduleFormat`, whose first
/// capture group is the module (Pulumi's default takes the whole middle part).
pub(super) struct ModuleFormat(Option<Regex>);

impl ModuleFormat {
    /// The format of a schema's `meta.moduleFormat`; one that is not a regular expression
    /// falls back to the default.
    pub(super) fn new(format: Option<&str>) -> ModuleFormat {
        ModuleFormat(format.and_then(|f| Regex::new(&format!("^{f}$")).ok()))
    }

    /// The format Pulumi's own packages use (`index/randomPet` is module `index`), for tokens
    /// of another package whose schema is not at hand.
    pub(super) fn foreign() -> ModuleFormat {
        ModuleFormat::new(Some("(.*)(?:/[^/]*)"))
    }

    /// Splits `token`; `None` when it is not `pkg:module:Member`.
    pub(super) fn token(&self, token: &str) -> Option<Token> {
        let mut parts = token.splitn(3, ':');
        let (package, middle, member) = (parts.next()?, parts.next()?, parts.next()?);
        let module = match &self.0 {
            Some(re) => re
                .captures(middle)
                .and_then(|c| c.get(1))
                .map_or(middle, |m| m.as_str()),
            None => middle,
        };
        let module = if module == "index" { "" } else { module };
        Some(Token {
            package: package.to_string(),
            module: module.to_string(),
            member: member.to_string(),
        })
    }
}

/// The file stem (and directory path) a module's files live under, `""` for the root.
pub(super) fn module_dir(module: &str) -> String {
    module
        .split('/')
        .filter(|p| !p.is_empty())
        .map(camel)
        .collect::<Vec<_>>()
        .join("/")
}

/// The `../` that leads from a module's directory back to the package root.
pub(super) fn to_root(module: &str) -> String {
    let depth = module_dir(module)
        .split('/')
        .filter(|p| !p.is_empty())
        .count();
    if depth == 0 {
        "./".to_string()
    } else {
        "../".repeat(depth)
    }
}

/// The dotted path under which a module is exported (`ec2.instances`), `""` for the root.
pub(super) fn module_path(module: &str) -> String {
    module_dir(module).replace('/', ".")
}
