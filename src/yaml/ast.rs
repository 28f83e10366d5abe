//! The program AST: Pulumi YAML's `config`, `variables`, `resources` and `outputs`, built from
//! the node tree with every shape checked and every position kept.

use crate::engine::model::resource::{CustomTimeouts, is_provider_type, provider_type_package};
use crate::project::{ConfigDecl, ConfigKey};

use super::builtin::Builtin;
use super::error::{Pos, SourceError, no_such_field};
use super::interpolate::{Access, Part, parse_interpolation};
use super::node::{Key, Node, NodeKind};

/// An expression with the position it was written at.
#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    pub pos: Pos,
    pub kind: ExprKind,
}

/// What an expression computes.
#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind {
    Null,
    Bool(bool),
    Number(f64),
    String(String),
    /// A string that is exactly one `${…}`: the referenced value itself.
    Symbol(Access),
    /// Text mixed with expressions: always a string.
    Interpolate(Vec<Part>),
    List(Vec<Expr>),
    Object(Vec<(String, Expr)>),
    /// A built-in function over its arguments (two for join, split and select, else one).
    Call(Builtin, Vec<Expr>),
    /// `fn::assetArchive`: named assets and archives.
    AssetArchive(Vec<(String, Expr)>),
    /// `fn::invoke`: a provider function call.
    Invoke(Box<Invoke>),
    /// `fn::stackReference: [stack, property]`: one output of another stack.
    StackReference {
        stack: String,
        property: Box<Expr>,
    },
}

/// `fn::invoke` as written: the function's token, its arguments, options and `return`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Invoke {
    pub token: String,
    pub arguments: Vec<(String, Expr)>,
    /// The one output field to return instead of the whole result.
    pub ret: Option<String>,
    pub provider: Option<Expr>,
    pub parent: Option<Expr>,
    pub depends_on: Vec<Expr>,
    pub version: Option<String>,
    pub plugin_download_url: Option<String>,
}

impl Expr {
    /// Every reference in the expression, in the order written.
    pub fn references(&self) -> Vec<&Access> {
        let mut out = Vec::new();
        self.collect(&mut out);
        out
    }

    fn collect<'a>(&'a self, out: &mut Vec<&'a Access>) {
        match &self.kind {
            ExprKind::Symbol(a) => out.push(a),
            ExprKind::Interpolate(parts) => out.extend(parts.iter().filter_map(|p| match p {
                Part::Expr(a) => Some(a),
                Part::Text(_) => None,
            })),
            ExprKind::List(items) => items.iter().for_each(|i| i.collect(out)),
            ExprKind::Object(m) => m.iter().for_each(|(_, v)| v.collect(out)),
            ExprKind::Call(_, args) => args.iter().for_each(|a| a.collect(out)),
            ExprKind::AssetArchive(m) => m.iter().for_each(|(_, v)| v.collect(out)),
            ExprKind::Invoke(i) => {
                i.arguments.iter().for_each(|(_, v)| v.collect(out));
                i.provider.iter().for_each(|v| v.collect(out));
                i.parent.iter().for_each(|v| v.collect(out));
                i.depends_on.iter().for_each(|v| v.collect(out));
            }
            ExprKind::StackReference { property, .. } => property.collect(out),
            ExprKind::Null | ExprKind::Bool(_) | ExprKind::Number(_) | ExprKind::String(_) => {}
        }
    }
}

/// A reference to another resource in a resource option (`parent: ${vpc}`).
#[derive(Clone, Debug, PartialEq)]
pub struct ResourceRef {
    pub name: String,
    pub pos: Pos,
}

/// An alias as written: a URN string or the parts of an old identity.
#[derive(Clone, Debug, PartialEq)]
pub enum AliasDecl {
    Urn(String),
    Spec {
        name: Option<String>,
        type_: Option<String>,
        parent: Option<ResourceRef>,
        no_parent: bool,
        project: Option<String>,
        stack: Option<String>,
    },
}

/// A resource's `options:`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ResourceOptions {
    pub depends_on: Vec<ResourceRef>,
    pub parent: Option<ResourceRef>,
    pub provider: Option<ResourceRef>,
    /// Explicit providers by package, for this resource and its children.
    pub providers: Vec<ResourceRef>,
    pub deleted_with: Option<ResourceRef>,
    /// Resources whose replacement replaces this one too.
    pub replace_with: Vec<ResourceRef>,
    /// Any value; a change from the recorded one replaces the resource.
    pub replacement_trigger: Option<Expr>,
    /// A boolean, or an expression that evaluates to one (`${isProduction}`).
    pub protect: Option<Expr>,
    pub delete_before_replace: Option<bool>,
    pub retain_on_delete: Option<bool>,
    pub ignore_changes: Vec<String>,
    pub hide_diffs: Vec<String>,
    pub replace_on_changes: Vec<String>,
    pub additional_secret_outputs: Vec<String>,
    pub aliases: Vec<AliasDecl>,
    pub import: Option<Expr>,
    pub custom_timeouts: Option<CustomTimeouts>,
    pub version: Option<String>,
    pub plugin_download_url: Option<String>,
}

impl ResourceOptions {
    /// Every resource the options name, with where.
    pub fn references(&self) -> Vec<&ResourceRef> {
        let mut out: Vec<&ResourceRef> = self.depends_on.iter().collect();
        out.extend(self.parent.iter());
        out.extend(self.provider.iter());
        out.extend(self.providers.iter());
        out.extend(self.deleted_with.iter());
        out.extend(self.replace_with.iter());
        for a in &self.aliases {
            if let AliasDecl::Spec {
                parent: Some(p), ..
            } = a
            {
                out.push(p);
            }
        }
        out
    }
}

/// `get:` — read an existing resource instead of managing one.
#[derive(Clone, Debug, PartialEq)]
pub struct GetDecl {
    pub id: Expr,
    pub state: Vec<(String, Expr)>,
}

/// One entry of `resources:`.
#[derive(Clone, Debug, PartialEq)]
pub struct ResourceDecl {
    /// The key in `resources:`, used in references.
    pub key: String,
    pub pos: Pos,
    pub type_: String,
    /// The resource's name in its URN (`name:`), defaulting to the key.
    pub name: String,
    pub properties: Properties,
    pub options: ResourceOptions,
    pub get: Option<GetDecl>,
    /// `defaultProvider: true` on a provider resource: the provider of every resource and
    /// invoke of its package that names none.
    pub default_provider: bool,
    /// stepdeck's extension `if:`: a boolean over config; when false the resource is not part
    /// of the program (Pulumi YAML has no conditionals, and demos need deletes).
    pub condition: Option<Expr>,
}

/// A resource's `properties:`: a map of expressions, or (as pulumi-yaml allows) one expression
/// whose value is the object of properties, such as a config object.
#[derive(Clone, Debug, PartialEq)]
pub enum Properties {
    Map(Vec<(String, Expr)>),
    Expr(Expr),
}

impl Properties {
    /// Every expression the properties are made of, for reference analysis.
    pub fn exprs(&self) -> Box<dyn Iterator<Item = &Expr> + '_> {
        match self {
            Properties::Map(entries) => Box::new(entries.iter().map(|(_, e)| e)),
            Properties::Expr(e) => Box::new(std::iter::once(e)),
        }
    }

    fn is_empty(&self) -> bool {
        matches!(self, Properties::Map(entries) if entries.is_empty())
    }
}

/// A named expression in `variables:` or `outputs:`.
#[derive(Clone, Debug, PartialEq)]
pub struct Named {
    pub name: String,
    pub pos: Pos,
    pub value: Expr,
}

/// A config declaration with where it was written.
#[derive(Clone, Debug, PartialEq)]
pub struct ConfigParam {
    /// The name programs reference (`${size}`, `${aws:region}`).
    pub name: String,
    pub pos: Pos,
    pub decl: ConfigDecl,
}

/// A parsed program.
#[derive(Clone, Debug, PartialEq)]
pub struct ProgramAst {
    /// The file name used in messages (`Pulumi.yaml`, `Main.yaml`).
    pub file: String,
    pub config: Vec<ConfigParam>,
    pub variables: Vec<Named>,
    pub resources: Vec<ResourceDecl>,
    pub outputs: Vec<Named>,
}

const TOP_LEVEL: &[&str] = &[
    "name",
    "runtime",
    "description",
    "config",
    "configuration",
    "variables",
    "resources",
    "outputs",
    "main",
    "backend",
    "options",
    "template",
    "plugins",
    "stackConfigDir",
    "requiredPulumiVersion",
    "packages",
    "pulumi",
    "components",
];

/// Builds the AST of a program document; `project` namespaces bare config keys.
pub fn build(file: &str, doc: &Node, project: &str) -> Result<ProgramAst, SourceError> {
    build_with(file, doc, project, None)
}

/// Builds the body of a YAML component named `name` of `package`: its `inputs` are its config.
pub fn build_component(
    file: &str,
    name: &str,
    body: &Node,
    package: &str,
) -> Result<ProgramAst, SourceError> {
    build_with(file, body, package, Some(name))
}

fn build_with(
    file: &str,
    doc: &Node,
    project: &str,
    component: Option<&str>,
) -> Result<ProgramAst, SourceError> {
    let b = Builder { file };
    let top = doc.as_map().ok_or_else(|| match component {
        Some(name) => doc.error(file, format!("components.{name} must be an object")),
        None => doc.error(file, "a program must be a mapping"),
    })?;
    let mut ast = ProgramAst {
        file: file.to_string(),
        config: Vec::new(),
        variables: Vec::new(),
        resources: Vec::new(),
        outputs: Vec::new(),
    };
    for (k, v) in top {
        match k.name.as_str() {
            // A program's config, a component's inputs.
            "config" | "configuration" | "inputs"
                if (k.name == "inputs") == component.is_some() =>
            {
                for (ck, cv) in b.map(v, &k.name)? {
                    let key = ConfigKey::parse(&ck.name, project)
                        .map_err(|e| SourceError::new(file, ck.pos, e.to_string()))?;
                    ast.config.push(ConfigParam {
                        name: ck.name.clone(),
                        pos: ck.pos,
                        decl: ConfigDecl::from_node(file, key, cv)?,
                    });
                }
            }
            "variables" => {
                for (vk, vv) in b.map(v, "variables")? {
                    ast.variables.push(Named {
                        name: vk.name.clone(),
                        pos: vk.pos,
                        value: b.expr(vv)?,
                    });
                }
            }
            "outputs" => {
                for (ok, ov) in b.map(v, "outputs")? {
                    ast.outputs.push(Named {
                        name: ok.name.clone(),
                        pos: ok.pos,
                        value: b.expr(ov)?,
                    });
                }
            }
            "resources" => {
                for (rk, rv) in b.map(v, "resources")? {
                    ast.resources.push(b.resource(rk, rv)?);
                }
            }
            other if TOP_LEVEL.contains(&other) => {}
            other => {
                return Err(SourceError::new(
                    file,
                    k.pos,
                    format!(
                        "unknown top-level section {other:?} (expected config, variables, resources or outputs)"
                    ),
                ));
            }
        }
    }
    apply_default_providers(file, &mut ast)?;
    Ok(ast)
}

/// Pulumi YAML's `defaultProvider: true`: every resource of the provider's package without a
/// `provider` option (and every invoke of it without one) uses that provider.
fn apply_default_providers(file: &str, ast: &mut ProgramAst) -> Result<(), SourceError> {
    let mut defaults: Vec<(String, ResourceRef, Option<String>)> = Vec::new();
    for r in &ast.resources {
        match provider_type_package(&r.type_) {
            Some(pkg) if r.default_provider => defaults.push((
                pkg.to_string(),
                ResourceRef {
                    name: r.key.clone(),
                    pos: r.pos,
                },
                r.options.version.clone(),
            )),
            None if r.default_provider => {
                return Err(SourceError::new(
                    file,
                    r.pos,
                    "cannot set defaultProvider on non-provider resource",
                ));
            }
            _ => {}
        }
    }
    for r in &mut ast.resources {
        if is_provider_type(&r.type_) || r.options.provider.is_some() {
            continue;
        }
        let pkg = r.type_.split(':').next().unwrap_or_default();
        if let Some((_, p, version)) = defaults.iter().find(|(d, _, _)| d == pkg) {
            if r.options.version.is_some() && r.options.version != *version {
                return Err(SourceError::new(
                    file,
                    r.pos,
                    format!(
                        "Version conflicts with the default provider version; Try removing this option on resource {:?}",
                        r.key
                    ),
                ));
            }
            r.options.provider = Some(p.clone());
        }
    }
    for v in &mut ast.variables {
        if let ExprKind::Invoke(inv) = &mut v.value.kind
            && inv.provider.is_none()
        {
            let pkg = inv.token.split(':').next().unwrap_or_default();
            if let Some((_, p, _)) = defaults.iter().find(|(d, _, _)| d == pkg) {
                inv.provider = Some(Expr {
                    pos: p.pos,
                    kind: ExprKind::Symbol(Access {
                        root: p.name.clone(),
                        path: Vec::new(),
                        offset: 0,
                    }),
                });
            }
        }
    }
    Ok(())
}

/// Builds AST nodes from located YAML nodes, naming `file` in errors.
pub(super) struct Builder<'a> {
    pub(super) file: &'a str,
}

impl Builder<'_> {
    pub(super) fn err(&self, pos: Pos, message: impl Into<String>) -> SourceError {
        SourceError::new(self.file, pos, message)
    }

    fn map<'n>(&self, n: &'n Node, what: &str) -> Result<&'n [(Key, Node)], SourceError> {
        match &n.kind {
            NodeKind::Map(m) => Ok(m),
            NodeKind::Null => Ok(&[]),
            _ => Err(n.error(self.file, format!("{what} must be an object"))),
        }
    }

    pub(super) fn expr(&self, n: &Node) -> Result<Expr, SourceError> {
        let kind = match &n.kind {
            NodeKind::Null => ExprKind::Null,
            NodeKind::Bool(b) => ExprKind::Bool(*b),
            NodeKind::Number(x) => ExprKind::Number(*x),
            NodeKind::String(s) => self.string(n.pos, s)?,
            NodeKind::Seq(items) => ExprKind::List(
                items
                    .iter()
                    .map(|i| self.expr(i))
                    .collect::<Result<_, _>>()?,
            ),
            NodeKind::Map(m) => {
                if let [(k, v)] = m.as_slice()
                    && k.name.to_ascii_lowercase().starts_with("fn::")
                {
                    return self.builtin(k, v);
                }
                if let Some((k, _)) = m.iter().find(|(k, _)| {
                    Builtin::lookup(&k.name.to_ascii_lowercase())
                        .is_some_and(Builtin::is_asset_or_archive)
                }) {
                    return Err(n.error(self.file, format!("{} must have it's own object", k.name)));
                }
                ExprKind::Object(
                    m.iter()
                        .map(|(k, v)| Ok((k.name.clone(), self.expr(v)?)))
                        .collect::<Result<_, SourceError>>()?,
                )
            }
        };
        Ok(Expr { pos: n.pos, kind })
    }

    fn string(&self, pos: Pos, s: &str) -> Result<ExprKind, SourceError> {
        let mut parts = parse_interpolation(s).map_err(|e| {
            self.err(
                Pos {
                    line: pos.line,
                    col: pos.col + e.offset as u32,
                },
                e.message,
            )
        })?;
        Ok(match parts.as_slice() {
            [Part::Text(_)] => match parts.pop() {
                Some(Part::Text(t)) => ExprKind::String(t),
                _ => ExprKind::String(String::new()),
            },
            [Part::Expr(_)] => match parts.pop() {
                Some(Part::Expr(a)) => ExprKind::Symbol(a),
                _ => ExprKind::String(String::new()),
            },
            _ => ExprKind::Interpolate(parts),
        })
    }

    fn resource(&self, k: &Key, n: &Node) -> Result<ResourceDecl, SourceError> {
        let entries = n
            .as_map()
            .ok_or_else(|| n.error(self.file, format!("resources.{} must be an object", k.name)))?;
        let mut decl = ResourceDecl {
            key: k.name.clone(),
            pos: k.pos,
            type_: String::new(),
            name: k.name.clone(),
            properties: Properties::Map(Vec::new()),
            options: ResourceOptions::default(),
            get: None,
            default_provider: false,
            condition: None,
        };
        let mut has_type = false;
        for (fk, fv) in entries {
            match fk.name.as_str() {
                "type" => {
                    let t = fv.as_str().ok_or_else(|| {
                        fv.error(
                            self.file,
                            format!("resources.{}.type must be a string", k.name),
                        )
                    })?;
                    decl.type_ = canonical_type(t).ok_or_else(|| {
                        fv.error(
                            self.file,
                            format!(
                                "error resolving type of resource {}: invalid type token {t:?}",
                                k.name
                            ),
                        )
                    })?;
                    has_type = true;
                }
                "name" => {
                    decl.name = fv.scalar_text().ok_or_else(|| {
                        fv.error(
                            self.file,
                            format!("resource {:?}: `name` must be a string", k.name),
                        )
                    })?;
                }
                "properties" => {
                    decl.properties = match fv.as_map() {
                        Some(entries) => Properties::Map(
                            entries
                                .iter()
                                .map(|(pk, pv)| Ok((pk.name.clone(), self.expr(pv)?)))
                                .collect::<Result<_, SourceError>>()?,
                        ),
                        None => {
                            let e = self.expr(fv)?;
                            match e.kind {
                                ExprKind::Null => Properties::Map(Vec::new()),
                                ExprKind::Symbol(_)
                                | ExprKind::Call(..)
                                | ExprKind::Invoke(_)
                                | ExprKind::StackReference { .. } => Properties::Expr(e),
                                _ => {
                                    return Err(fv.error(
                                        self.file,
                                        format!(
                                            "resources.{}.properties must be an object",
                                            k.name
                                        ),
                                    ));
                                }
                            }
                        }
                    };
                }
                "options" => decl.options = self.options(&k.name, fv)?,
                "get" => {
                    let id = fv.get("id").ok_or_else(|| {
                        fv.error(
                            self.file,
                            format!("resource {:?}: `get` needs an `id`", k.name),
                        )
                    })?;
                    let mut state = Vec::new();
                    if let Some(s) = fv.get("state") {
                        for (sk, sv) in self.map(s, &format!("resources.{}.get.state", k.name))? {
                            state.push((sk.name.clone(), self.expr(sv)?));
                        }
                    }
                    for (gk, _) in self.map(fv, &format!("resources.{}.get", k.name))? {
                        if gk.name != "id" && gk.name != "state" {
                            return Err(self.err(
                                gk.pos,
                                format!(
                                    "resource {:?}: unknown `get` field {:?} (expected id, state)",
                                    k.name, gk.name
                                ),
                            ));
                        }
                    }
                    decl.get = Some(GetDecl {
                        id: self.expr(id)?,
                        state,
                    });
                }
                "if" => decl.condition = Some(self.expr(fv)?),
                "defaultProvider" => {
                    decl.default_provider = match fv.kind {
                        NodeKind::Bool(b) => b,
                        _ => {
                            return Err(fv.error(
                                self.file,
                                format!("resources.{}.defaultProvider must be a boolean", k.name),
                            ));
                        }
                    };
                }
                other => {
                    return Err(self.err(
                        fk.pos,
                        no_such_field(
                            &format!("Field '{other}'"),
                            &format!("Object 'resources.{}'", k.name),
                            other,
                            &[
                                "'type'",
                                "'name'",
                                "'defaultProvider'",
                                "'properties'",
                                "'options'",
                                "'get'",
                                "'if'",
                            ],
                            "fields",
                        ),
                    ));
                }
            }
        }
        if !has_type {
            return Err(self.err(
                k.pos,
                format!("Required field 'type' is missing on resource {:?}", k.name),
            ));
        }
        if decl.get.is_some() && !decl.properties.is_empty() {
            return Err(self.err(
                k.pos,
                format!(
                    "resource {:?}: `get` and `properties` cannot be used together",
                    k.name
                ),
            ));
        }
        Ok(decl)
    }

    fn options(&self, res: &str, n: &Node) -> Result<ResourceOptions, SourceError> {
        let mut o = ResourceOptions::default();
        for (k, v) in self.map(n, &format!("resources.{res}.options"))? {
            let opt = k.name.as_str();
            match opt {
                "dependsOn" => o.depends_on = self.refs(res, opt, v)?,
                "parent" => o.parent = Some(self.one_ref(res, opt, v)?),
                "provider" => o.provider = Some(self.one_ref(res, opt, v)?),
                "providers" => o.providers = self.refs(res, opt, v)?,
                "deletedWith" => o.deleted_with = Some(self.one_ref(res, opt, v)?),
                "protect" => {
                    let e = match v.kind {
                        NodeKind::String(_) => self.expr(v)?,
                        _ => Expr {
                            pos: v.pos,
                            kind: ExprKind::Bool(self.bool(res, opt, v)?),
                        },
                    };
                    if !matches!(e.kind, ExprKind::Bool(_) | ExprKind::Symbol(_)) {
                        return Err(self.wrong_type(res, opt, "true or false", v));
                    }
                    o.protect = Some(e);
                }
                "deleteBeforeReplace" => o.delete_before_replace = Some(self.bool(res, opt, v)?),
                "retainOnDelete" => o.retain_on_delete = Some(self.bool(res, opt, v)?),
                "ignoreChanges" => o.ignore_changes = self.strings(res, opt, v)?,
                "replaceOnChanges" => o.replace_on_changes = self.strings(res, opt, v)?,
                "additionalSecretOutputs" => {
                    o.additional_secret_outputs = self.strings(res, opt, v)?
                }
                "version" => {
                    o.version = Some(
                        v.scalar_text()
                            .ok_or_else(|| self.wrong_type(res, opt, "a string", v))?,
                    )
                }
                "import" => o.import = Some(self.expr(v)?),
                "customTimeouts" => o.custom_timeouts = Some(self.timeouts(res, v)?),
                "aliases" => o.aliases = self.aliases(res, v)?,
                // Where plugins are downloaded from: recorded, though only installed ones load.
                "pluginDownloadURL" => {
                    o.plugin_download_url = Some(
                        v.scalar_text()
                            .ok_or_else(|| self.wrong_type(res, opt, "a string", v))?,
                    )
                }
                "hideDiffs" => o.hide_diffs = self.strings(res, opt, v)?,
                "replaceWith" => o.replace_with = self.refs(res, opt, v)?,
                "replacementTrigger" => o.replacement_trigger = Some(self.expr(v)?),
                other => {
                    return Err(self.err(
                        k.pos,
                        no_such_field(
                            &format!("Field '{other}'"),
                            &format!("Object 'resources.{res}.options'"),
                            other,
                            RESOURCE_OPTIONS,
                            "fields",
                        ),
                    ));
                }
            }
        }
        Ok(o)
    }

    fn wrong_type(&self, res: &str, opt: &str, want: &str, v: &Node) -> SourceError {
        v.error(
            self.file,
            format!(
                "resource {res:?}: option `{opt}` must be {want}, found {}",
                v.kind_name()
            ),
        )
    }

    fn bool(&self, res: &str, opt: &str, v: &Node) -> Result<bool, SourceError> {
        match v.kind {
            NodeKind::Bool(b) => Ok(b),
            _ => Err(self.wrong_type(res, opt, "true or false", v)),
        }
    }

    fn strings(&self, res: &str, opt: &str, v: &Node) -> Result<Vec<String>, SourceError> {
        match &v.kind {
            NodeKind::Seq(items) => items
                .iter()
                .map(|i| {
                    i.as_str()
                        .map(str::to_string)
                        .ok_or_else(|| self.wrong_type(res, opt, "a list of strings", i))
                })
                .collect(),
            _ => Err(self.wrong_type(res, opt, "a list of strings", v)),
        }
    }

    /// `${name}` exactly: a reference to a whole resource.
    fn one_ref(&self, res: &str, opt: &str, v: &Node) -> Result<ResourceRef, SourceError> {
        let text = v
            .as_str()
            .ok_or_else(|| self.wrong_type(res, opt, "a resource reference like ${name}", v))?;
        match parse_interpolation(text).ok().as_deref() {
            Some([Part::Expr(a)]) if a.path.is_empty() => Ok(ResourceRef {
                name: a.root.clone(),
                pos: v.pos,
            }),
            _ => Err(v.error(
                self.file,
                format!(
                    "resource {res:?}: option `{opt}` must be a resource reference like ${{name}}, found {text:?}"
                ),
            )),
        }
    }

    fn refs(&self, res: &str, opt: &str, v: &Node) -> Result<Vec<ResourceRef>, SourceError> {
        match &v.kind {
            NodeKind::Seq(items) => items.iter().map(|i| self.one_ref(res, opt, i)).collect(),
            NodeKind::String(_) => Ok(vec![self.one_ref(res, opt, v)?]),
            _ => Err(self.wrong_type(res, opt, "a list of resource references", v)),
        }
    }

    fn timeouts(&self, res: &str, v: &Node) -> Result<CustomTimeouts, SourceError> {
        let mut t = CustomTimeouts::default();
        for (k, d) in self.map(v, &format!("resources.{res}.options.customTimeouts"))? {
            let text = d.scalar_text().ok_or_else(|| {
                self.wrong_type(res, "customTimeouts", "durations like \"5m\"", d)
            })?;
            let secs = parse_duration(&text).ok_or_else(|| {
                d.error(
                    self.file,
                    format!("resource {res:?}: invalid duration {text:?} (use e.g. 30s, 5m, 1h)"),
                )
            })?;
            match k.name.as_str() {
                "create" => t.create = secs,
                "update" => t.update = secs,
                "delete" => t.delete = secs,
                other => {
                    return Err(self.err(
                        k.pos,
                        format!("resource {res:?}: unknown custom timeout {other:?} (expected create, update, delete)"),
                    ));
                }
            }
        }
        Ok(t)
    }

    fn aliases(&self, res: &str, v: &Node) -> Result<Vec<AliasDecl>, SourceError> {
        let NodeKind::Seq(items) = &v.kind else {
            return Err(self.wrong_type(res, "aliases", "a list", v));
        };
        items
            .iter()
            .map(|i| match &i.kind {
                NodeKind::String(s) => Ok(AliasDecl::Urn(s.clone())),
                NodeKind::Map(m) => {
                    let text = |f: &str| i.get(f).and_then(Node::scalar_text);
                    for (k, _) in m {
                        if !["name", "type", "parent", "noParent", "project", "stack"]
                            .contains(&k.name.as_str())
                        {
                            return Err(self.err(
                                k.pos,
                                format!("resource {res:?}: unknown alias field {:?}", k.name),
                            ));
                        }
                    }
                    Ok(AliasDecl::Spec {
                        name: text("name"),
                        type_: text("type"),
                        parent: i
                            .get("parent")
                            .map(|p| self.one_ref(res, "aliases.parent", p))
                            .transpose()?,
                        no_parent: matches!(
                            i.get("noParent").map(|n| &n.kind),
                            Some(NodeKind::Bool(true))
                        ),
                        project: text("project"),
                        stack: text("stack"),
                    })
                }
                _ => Err(self.wrong_type(res, "aliases", "URN strings or {name, type, parent}", i)),
            })
            .collect()
    }
}

/// Pulumi YAML's resource options, as its messages list them.
const RESOURCE_OPTIONS: &[&str] = &[
    "'additionalSecretOutputs'",
    "'aliases'",
    "'customTimeouts'",
    "'deleteBeforeReplace'",
    "'deletedWith'",
    "'dependsOn'",
    "'hideDiffs'",
    "'ignoreChanges'",
    "'import'",
    "'parent'",
    "'pluginDownloadURL'",
    "'protect'",
    "'provider'",
    "'providers'",
    "'replaceOnChanges'",
    "'replaceWith'",
    "'replacementTrigger'",
    "'retainOnDelete'",
    "'version'",
];

/// A resource type token as Pulumi YAML resolves it without a schema: `pkg:module:Type` as is,
/// `pkg:Type` as `pkg:index:Type`; anything else is invalid.
pub fn canonical_type(t: &str) -> Option<String> {
    let parts: Vec<&str> = t.split(':').collect();
    if parts.iter().any(|p| p.is_empty()) {
        return None;
    }
    match parts.as_slice() {
        [pkg, ty] => Some(format!("{pkg}:index:{ty}")),
        [_, _, _] => Some(t.to_string()),
        _ => None,
    }
}

/// A type token as the provider's schema names it (Pulumi YAML's `resolveToken`): the token
/// itself, ignoring case, or the classic `pkg:module/type:Type` form of `pkg:module:Type`; as
/// written when `declared` (the provider's types) has neither.
pub fn resolve_type(token: &str, declared: &[String]) -> String {
    let find = |t: &str| declared.iter().find(|d| d.eq_ignore_ascii_case(t)).cloned();
    if let Some(t) = find(token) {
        return t;
    }
    if let [pkg, module, ty] = token.split(':').collect::<Vec<_>>().as_slice()
        && !module.contains('/')
        && let Some(t) = find(&format!("{pkg}:{module}/{}:{ty}", ty.to_lowercase()))
    {
        return t;
    }
    token.to_string()
}

/// Seconds in a Go-style duration (`90s`, `5m`, `1h30m`, `1.5h`).
pub fn parse_duration(text: &str) -> Option<f64> {
    let mut total = 0.0;
    let mut num = String::new();
    let mut any = false;
    let mut chars = text.trim().chars().peekable();
    while let Some(c) = chars.next() {
        if c.is_ascii_digit() || c == '.' {
            num.push(c);
            continue;
        }
        let n: f64 = num.parse().ok()?;
        num.clear();
        let unit = match c {
            'h' => 3600.0,
            'm' if chars.peek() == Some(&'s') => {
                chars.next();
                0.001
            }
            'm' => 60.0,
            's' => 1.0,
            _ => return None,
        };
        total += n * unit;
        any = true;
    }
    (num.is_empty() && any).then_some(total)
}
