//! A built-in function call as the parser sees it: a one-key mapping `fn::name: args` checked
//! for its shape, with Pulumi YAML's wording for misuse.

use super::ast::{Builder, Expr, ExprKind, Invoke, canonical_type};
use super::builtin::Builtin;
use super::error::SourceError;
use super::node::{Key, Node, NodeKind};

impl Builder<'_> {
    /// Parses `fn::…: args` (the key `k`, the value `v`).
    pub(super) fn builtin(&self, k: &Key, v: &Node) -> Result<Expr, SourceError> {
        let lower = k.name.to_ascii_lowercase();
        let kind = if let Some(b) = Builtin::lookup(&lower) {
            if b.takes_pair() {
                match &v.kind {
                    NodeKind::Seq(items) if items.len() == 2 => {
                        ExprKind::Call(b, vec![self.expr(&items[0])?, self.expr(&items[1])?])
                    }
                    _ => {
                        let message = match b {
                            Builtin::Split => {
                                "The argument to fn::split must be a two-values list".to_string()
                            }
                            _ => format!("the argument to {} must be a two-valued list", b.name()),
                        };
                        return Err(v.error(self.file, message));
                    }
                }
            } else {
                ExprKind::Call(b, vec![self.expr(v)?])
            }
        } else {
            match lower.as_str() {
                "fn::invoke" => ExprKind::Invoke(Box::new(self.invoke(v, None)?)),
                "fn::assetarchive" => self.asset_archive(v)?,
                "fn::stackreference" => {
                    let NodeKind::Seq(items) = &v.kind else {
                        return Err(v.error(
                            self.file,
                            "the argument to fn::stackReference must be a two-valued list",
                        ));
                    };
                    if items.len() != 2 {
                        return Err(v.error(
                            self.file,
                            "the argument to fn::stackReference must be a two-valued list",
                        ));
                    }
                    let Some(stack) = items[0].as_str() else {
                        return Err(v.error(
                            self.file,
                            "the first argument to fn::stackReference must be a string literal",
                        ));
                    };
                    ExprKind::StackReference {
                        stack: stack.to_string(),
                        property: Box::new(self.expr(&items[1])?),
                    }
                }
                other => match invoke_shorthand(other) {
                    Some(_) => {
                        let token = k.name[4..].to_string();
                        ExprKind::Invoke(Box::new(self.invoke(v, Some(token))?))
                    }
                    None => {
                        return Err(self.err(
                            k.pos,
                            format!(
                                "'fn::' is a reserved prefix: {:?} is not a built-in function",
                                k.name
                            ),
                        ));
                    }
                },
            }
        };
        Ok(Expr { pos: k.pos, kind })
    }

    /// `fn::assetArchive: {name: asset or archive, …}`.
    fn asset_archive(&self, v: &Node) -> Result<ExprKind, SourceError> {
        let NodeKind::Map(entries) = &v.kind else {
            return Err(v.error(
                self.file,
                "the argument to fn::assetArchive must be an object",
            ));
        };
        let mut out = Vec::new();
        for (name, value) in entries {
            let e = self.expr(value)?;
            let ok = match &e.kind {
                ExprKind::Call(b, _) => b.is_asset_or_archive(),
                ExprKind::AssetArchive(_) => true,
                _ => false,
            };
            if !ok {
                return Err(value.error(
                    self.file,
                    format!(
                        "value must be an asset or an archive, not {}",
                        value.kind_name()
                    ),
                ));
            }
            out.push((name.name.clone(), e));
        }
        Ok(ExprKind::AssetArchive(out))
    }

    /// `fn::invoke: {function, arguments, options, return}`; `token` is set for the shorthand
    /// `fn::<pkg>:<module>:<function>: {arguments}`.
    fn invoke(&self, v: &Node, token: Option<String>) -> Result<Invoke, SourceError> {
        const SHAPE: &str = "the argument to fn::invoke must be an object containing 'function', 'arguments', 'options', and 'return'";
        let mut inv = Invoke {
            token: token.clone().unwrap_or_default(),
            ..Invoke::default()
        };
        let entries: Vec<(Key, Node)> = match (&v.kind, &token) {
            (NodeKind::Map(m), None) => m.clone(),
            (NodeKind::Map(_), Some(_)) => vec![(
                Key {
                    name: "arguments".into(),
                    pos: v.pos,
                },
                v.clone(),
            )],
            (NodeKind::Null, Some(_)) => Vec::new(),
            _ => return Err(v.error(self.file, SHAPE)),
        };
        let mut function = token.is_some();
        for (k, value) in &entries {
            match k.name.to_ascii_lowercase().as_str() {
                "function" => {
                    inv.token = value
                        .as_str()
                        .ok_or_else(|| {
                            value.error(self.file, "function name must be a string literal")
                        })?
                        .to_string();
                    function = true;
                }
                "arguments" => {
                    let NodeKind::Map(args) = &value.kind else {
                        return Err(value.error(
                            self.file,
                            "function arguments ('arguments') must be an object",
                        ));
                    };
                    for (ak, av) in args {
                        inv.arguments.push((ak.name.clone(), self.expr(av)?));
                    }
                }
                "return" => {
                    inv.ret = Some(
                        value
                            .as_str()
                            .ok_or_else(|| {
                                value.error(self.file, "return directive must be a string literal")
                            })?
                            .to_string(),
                    );
                }
                "options" => self.invoke_options(&mut inv, value)?,
                _ => {}
            }
        }
        if !function {
            return Err(v.error(self.file, "missing function name ('function')"));
        }
        inv.token = canonical_type(&inv.token)
            .ok_or_else(|| v.error(self.file, format!("invalid type token {:?}", inv.token)))?;
        Ok(inv)
    }

    fn invoke_options(&self, inv: &mut Invoke, v: &Node) -> Result<(), SourceError> {
        let NodeKind::Map(opts) = &v.kind else {
            return Err(v.error(
                self.file,
                format!("invokeOptions must be an object, not {}", v.kind_name()),
            ));
        };
        let text = |what: &str, n: &Node| {
            n.scalar_text().ok_or_else(|| {
                n.error(
                    self.file,
                    format!("{what} must be a string, not {}", n.kind_name()),
                )
            })
        };
        for (k, value) in opts {
            match k.name.as_str() {
                "provider" => inv.provider = Some(self.expr(value)?),
                "parent" => inv.parent = Some(self.expr(value)?),
                "dependsOn" => match self.expr(value)? {
                    Expr {
                        kind: ExprKind::List(items),
                        ..
                    } => inv.depends_on = items,
                    one => inv.depends_on = vec![one],
                },
                "version" => inv.version = Some(text("version", value)?),
                "pluginDownloadURL" => {
                    inv.plugin_download_url = Some(text("pluginDownloadURL", value)?)
                }
                other => {
                    return Err(self.err(
                        k.pos,
                        format!(
                            "invokeOptions has no field {other:?}; Existing fields are: dependsOn, parent, pluginDownloadURL, provider, version"
                        ),
                    ));
                }
            }
        }
        Ok(())
    }
}

/// `fn::<pkg>:<module>:<function>` or `fn::<pkg>:<function>`, Pulumi YAML's invoke shorthand.
fn invoke_shorthand(lower: &str) -> Option<&str> {
    let token = lower.strip_prefix("fn::")?;
    let parts: Vec<&str> = token.split(':').collect();
    let ok = matches!(parts.len(), 2 | 3) && parts.iter().all(|p| !p.is_empty());
    ok.then_some(token)
}
