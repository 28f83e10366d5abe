//! Python names for schema names, as Pulumi's Python codegen spells them: snake_case
//! properties and files, classes kept as the token writes them, keywords escaped.

/// Python's reserved words, which a generated name must not be.
const KEYWORDS: &[&str] = &[
    "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue",
    "def", "del", "elif", "else", "except", "finally", "for", "from", "global", "if", "import",
    "in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try", "while",
    "with", "yield",
];

/// `aNumber` → `a_number`, `URLPath` → `url_path`, `do-echo` → `do_echo` (Pulumi's `PyName`).
pub(super) fn snake_case(name: &str) -> String {
    let chars: Vec<char> = name.chars().collect();
    let mut out = String::new();
    for (i, &c) in chars.iter().enumerate() {
        if c == '-' || c == '.' || c == ' ' {
            out.push('_');
            continue;
        }
        if c.is_uppercase() && i > 0 {
            let prev = chars[i - 1];
            let next_lower = chars.get(i + 1).is_some_and(|n| n.is_lowercase());
            let starts_word =
                prev.is_lowercase() || prev.is_ascii_digit() || (prev.is_uppercase() && next_lower);
            if starts_word && !out.ends_with('_') {
                out.push('_');
            }
        }
        out.extend(c.to_lowercase());
    }
    keyword_safe(out)
}

/// A name with `_` appended when it is a Python keyword.
pub(super) fn keyword_safe(name: String) -> String {
    if KEYWORDS.contains(&name.as_str()) {
        format!("{name}_")
    } else {
        name
    }
}

/// A resource constructor's parameter for a property: the two names `__init__` takes itself
/// (`resource_name`, `opts`) get a trailing `_`.
pub(super) fn init_param(name: &str) -> String {
    let py = snake_case(name);
    match py.as_str() {
        "resource_name" | "opts" => format!("{py}_"),
        _ => py,
    }
}

/// The class a token names: its last segment (`pkg:index:MyComponent` → `MyComponent`).
pub(super) fn class_name(token: &str) -> String {
    let last = token.rsplit(':').next().unwrap_or(token);
    let mut chars = last.chars();
    let capitalized = match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    };
    keyword_safe(capitalized)
}

/// The module part of a token, as Pulumi's default module format reads it: `index/randomPet`
/// is `index`; `index` (and an empty module) is the package's root.
pub(super) fn token_module(token: &str) -> Option<String> {
    let module = token.split(':').nth(1).unwrap_or("");
    let first = module.split('/').next().unwrap_or("");
    match first {
        "" | "index" => None,
        m => Some(snake_case(m)),
    }
}

/// The enum member for a value, as Pulumi's `makeSafeEnumName` spells it: its schema `name`,
/// else the value, snake_cased and upper-cased (`b` → `B`, `lightBlue` → `LIGHT_BLUE`); a
/// member that would start with `_` or a digit is prefixed with the enum's name.
pub(super) fn enum_member(
    name: Option<&str>,
    value: &serde_json::Value,
    enum_class: &str,
) -> String {
    let raw = match (name, value) {
        (Some(n), _) => n.to_string(),
        (None, serde_json::Value::String(s)) => s.clone(),
        (None, other) => other.to_string(),
    };
    let upper: String = snake_case(&raw)
        .to_uppercase()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    let prefixed = if upper.starts_with(|c: char| c.is_ascii_digit()) {
        format!("{}_{upper}", snake_case(enum_class).to_uppercase())
    } else if upper.starts_with('_') || upper.is_empty() {
        format!("{}{upper}", snake_case(enum_class).to_uppercase())
    } else {
        upper
    };
    let mut out = String::new();
    for c in prefixed.chars() {
        if !(c == '_' && out.ends_with('_')) {
            out.push(c);
        }
    }
    out
}

/// The import name of a package (`pulumi_random`, `my_namespace_mypkg`): Pulumi's `PyPack`.
pub(super) fn module_of(namespace: Option<&str>, name: &str) -> String {
    let ns = namespace.map_or("pulumi".to_string(), |n| n.replace('-', "_"));
    format!("{ns}_{}", name.replace('-', "_"))
}

/// A Python string literal of `s`.
pub(super) fn py_str(s: &str) -> String {
    serde_json::Value::String(s.to_string()).to_string()
}

/// A docstring body indented by `indent`, or nothing for an empty description.
pub(super) fn docstring(indent: &str, text: Option<&str>) -> String {
    let Some(text) = text.map(str::trim).filter(|t| !t.is_empty()) else {
        return String::new();
    };
    let escaped = text.replace('\\', "\\\\").replace("\"\"\"", "\\\"\\\"\\\"");
    let body: Vec<String> = escaped
        .lines()
        .map(|l| {
            if l.is_empty() {
                String::new()
            } else {
                format!("{indent}{l}")
            }
        })
        .collect();
    format!("{indent}\"\"\"\n{}\n{indent}\"\"\"\n", body.join("\n"))
}
