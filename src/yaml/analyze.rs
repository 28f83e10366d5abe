//! Static analysis of a program: every reference resolved to a config key, variable or
//! resource; dependency edges between variables and resources; cycles reported with their
//! members. Runs before anything registers, so a bad program fails without side effects.

use std::collections::{BTreeMap, HashMap};

use super::ast::{Expr, ProgramAst};
use super::error::{Pos, SourceError};
use super::interpolate::Access;

/// What a name in a program refers to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Symbol {
    /// Index into `ProgramAst::config`.
    Config(usize),
    /// Index into `ProgramAst::variables`.
    Variable(usize),
    /// Index into `ProgramAst::resources`.
    Resource(usize),
}

/// The `pulumi.*` values a program may read.
pub const PULUMI_BUILTINS: &[&str] = &["cwd", "organization", "project", "rootDirectory", "stack"];

/// A name no declaration resolves: it must be a stack config key (`${aws:region}`, or a key of
/// the project not declared in `config:`), which only the run knows.
#[derive(Clone, Debug, PartialEq)]
pub struct Unresolved {
    pub name: String,
    pub pos: Pos,
    /// The error when the stack's config has no such key either.
    pub message: String,
}

/// What evaluation needs to know about a checked program.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Analysis {
    pub symbols: HashMap<String, Symbol>,
    /// For each variable and resource, the variables and resources it needs first (sorted,
    /// deduplicated).
    pub deps: BTreeMap<String, Vec<String>>,
    /// Variables and resources in an order where everything comes after what it needs.
    pub order: Vec<String>,
    /// References left to the stack's config, first use of each name.
    pub unresolved: Vec<Unresolved>,
}

impl Analysis {
    /// Whether a name is a resource (options such as `parent` need one).
    pub fn is_resource(&self, name: &str) -> bool {
        matches!(self.symbols.get(name), Some(Symbol::Resource(_)))
    }
}

/// Checks references and dependencies of a program.
pub fn analyze(ast: &ProgramAst) -> Result<Analysis, SourceError> {
    let file = ast.file.as_str();
    let mut a = Analysis::default();
    let mut declared_at: HashMap<String, (Pos, &str)> = HashMap::new();
    let mut declare = |name: &str, pos: Pos, kind: &'static str, sym: Symbol, a: &mut Analysis| {
        if name == "pulumi" {
            return Err(SourceError::new(
                file,
                pos,
                format!("{kind} {name:?}: the name `pulumi` is reserved"),
            ));
        }
        if let Some((first, first_kind)) = declared_at.get(name) {
            return Err(SourceError::new(
                file,
                pos,
                format!(
                    "{kind} {name:?} is already declared as a {first_kind} at line {}",
                    first.line
                ),
            ));
        }
        declared_at.insert(name.to_string(), (pos, kind));
        a.symbols.insert(name.to_string(), sym);
        Ok(())
    };
    for (i, c) in ast.config.iter().enumerate() {
        declare(&c.name, c.pos, "config", Symbol::Config(i), &mut a)?;
    }
    for (i, v) in ast.variables.iter().enumerate() {
        declare(&v.name, v.pos, "variable", Symbol::Variable(i), &mut a)?;
    }
    for (i, r) in ast.resources.iter().enumerate() {
        declare(&r.key, r.pos, "resource", Symbol::Resource(i), &mut a)?;
    }

    let mut decl_pos: BTreeMap<String, (Pos, &'static str)> = BTreeMap::new();
    let mut unresolved = Vec::new();
    let u = &mut unresolved;
    for v in &ast.variables {
        let deps = expr_deps(file, &a, u, "variable", &v.name, &v.value)?;
        a.deps.insert(v.name.clone(), deps);
        decl_pos.insert(v.name.clone(), (v.pos, "variable"));
    }
    for r in &ast.resources {
        let mut deps = Vec::new();
        for e in r.properties.exprs() {
            deps.extend(expr_deps(file, &a, u, "resource", &r.key, e)?);
        }
        if let Some(g) = &r.get {
            deps.extend(expr_deps(file, &a, u, "resource", &r.key, &g.id)?);
            for (_, e) in &g.state {
                deps.extend(expr_deps(file, &a, u, "resource", &r.key, e)?);
            }
        }
        if let Some(e) = &r.condition {
            for access in e.references() {
                if matches!(
                    a.symbols.get(&access.root),
                    Some(Symbol::Variable(_) | Symbol::Resource(_))
                ) {
                    return Err(SourceError::new(
                        file,
                        e.pos,
                        format!(
                            "resource {:?}: `if` may only use config values, not {:?}",
                            r.key, access.root
                        ),
                    ));
                }
            }
        }
        let option_exprs = [
            &r.options.import,
            &r.options.protect,
            &r.options.replacement_trigger,
        ];
        for e in option_exprs.into_iter().flatten() {
            deps.extend(expr_deps(file, &a, u, "resource", &r.key, e)?);
        }
        for rr in r.options.references() {
            match a.symbols.get(&rr.name) {
                Some(Symbol::Resource(_)) => deps.push(rr.name.clone()),
                Some(_) => {
                    return Err(SourceError::new(
                        file,
                        rr.pos,
                        format!(
                            "resource {:?}: option refers to {:?}, which is not a resource",
                            r.key, rr.name
                        ),
                    ));
                }
                None => {
                    return Err(SourceError::new(
                        file,
                        rr.pos,
                        format!(
                            "resource {:?}: resource, variable, or config value {:?} not found",
                            r.key, rr.name
                        ),
                    ));
                }
            }
        }
        if deps.iter().any(|d| d == &r.key) {
            return Err(SourceError::new(
                file,
                r.pos,
                format!("resource {:?} references itself", r.key),
            ));
        }
        deps.sort();
        deps.dedup();
        a.deps.insert(r.key.clone(), deps);
        decl_pos.insert(r.key.clone(), (r.pos, "resource"));
    }
    for o in &ast.outputs {
        expr_deps(file, &a, u, "output", &o.name, &o.value)?;
    }

    let declared: Vec<&str> = ast
        .variables
        .iter()
        .map(|v| v.name.as_str())
        .chain(ast.resources.iter().map(|r| r.key.as_str()))
        .collect();
    a.order = topo_order(file, &declared, &a.deps, &decl_pos)?;
    let mut seen = std::collections::HashSet::new();
    unresolved.retain(|u: &Unresolved| seen.insert(u.name.clone()));
    a.unresolved = unresolved;
    Ok(a)
}

/// The variables and resources an expression needs; unknown names are errors.
fn expr_deps(
    file: &str,
    a: &Analysis,
    unresolved: &mut Vec<Unresolved>,
    kind: &str,
    owner: &str,
    e: &Expr,
) -> Result<Vec<String>, SourceError> {
    let mut out = Vec::new();
    for access in e.references() {
        let pos = Pos {
            line: e.pos.line,
            col: e.pos.col + access.offset as u32,
        };
        match a.symbols.get(&access.root) {
            Some(Symbol::Config(_)) => {}
            Some(_) => out.push(access.root.clone()),
            None if access.root == "pulumi" => check_pulumi(file, pos, kind, owner, access)?,
            // Pulumi YAML's words, which its users' tests match.
            None => unresolved.push(Unresolved {
                name: access.root.clone(),
                pos,
                message: format!(
                    "{kind} {owner:?}: resource, variable, or config value {:?} not found",
                    access.root
                ),
            }),
        }
    }
    out.sort();
    out.dedup();
    Ok(out)
}

fn check_pulumi(
    file: &str,
    pos: Pos,
    kind: &str,
    owner: &str,
    access: &Access,
) -> Result<(), SourceError> {
    match access.path.as_slice() {
        [super::interpolate::Accessor::Property(p)] if PULUMI_BUILTINS.contains(&p.as_str()) => {
            Ok(())
        }
        _ => Err(SourceError::new(
            file,
            pos,
            format!(
                "{kind} {owner:?}: unknown value `${{{access}}}` (expected pulumi.cwd, pulumi.organization, pulumi.project, pulumi.rootDirectory or pulumi.stack)"
            ),
        )),
    }
}

/// Depth-first topological order in declaration order; a cycle is reported with its members
/// in order, starting from (and at the position of) the member written first.
fn topo_order(
    file: &str,
    declared: &[&str],
    deps: &BTreeMap<String, Vec<String>>,
    decl_pos: &BTreeMap<String, (Pos, &'static str)>,
) -> Result<Vec<String>, SourceError> {
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        New,
        Active,
        Done,
    }
    let mut marks: HashMap<&str, Mark> = declared.iter().map(|n| (*n, Mark::New)).collect();
    let mut order = Vec::new();
    for &start in declared {
        if marks[start] != Mark::New {
            continue;
        }
        // Iterative DFS: (node, index of next dependency to visit).
        let mut stack: Vec<(&str, usize)> = vec![(start, 0)];
        marks.insert(start, Mark::Active);
        while let Some((node, next)) = stack.last_mut() {
            let node_deps = deps.get(*node).map(Vec::as_slice).unwrap_or_default();
            if let Some(dep) = node_deps.get(*next) {
                *next += 1;
                let dep = dep.as_str();
                match marks.get(dep).copied().unwrap_or(Mark::Done) {
                    Mark::Done => {}
                    Mark::New => {
                        marks.insert(dep, Mark::Active);
                        stack.push((dep, 0));
                    }
                    Mark::Active => {
                        let from = stack.iter().position(|(n, _)| *n == dep).unwrap_or(0);
                        let mut members: Vec<&str> =
                            stack[from..].iter().map(|(n, _)| *n).collect();
                        let first = members
                            .iter()
                            .copied()
                            .min_by_key(|m| decl_pos.get(*m).map(|(p, _)| *p))
                            .unwrap_or(dep);
                        let rot = members.iter().position(|m| *m == first).unwrap_or(0);
                        members.rotate_left(rot);
                        members.push(first);
                        let describe = |n: &str| {
                            let kind = decl_pos.get(n).map_or("resource", |(_, k)| *k);
                            format!("{kind} {n:?}")
                        };
                        let chain: Vec<String> = members.iter().map(|m| describe(m)).collect();
                        let pos = decl_pos.get(first).map(|(p, _)| *p).unwrap_or_default();
                        return Err(SourceError::new(
                            file,
                            pos,
                            format!("dependency cycle: {}", chain.join(" -> ")),
                        ));
                    }
                }
            } else {
                marks.insert(node, Mark::Done);
                order.push(node.to_string());
                stack.pop();
            }
        }
    }
    Ok(order)
}
