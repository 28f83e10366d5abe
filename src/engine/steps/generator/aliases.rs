//! Aliases: every URN a registration may have had (Pulumi's `generateAliases`), and the claim
//! a registration makes on an old resource through one of them.

use super::StepGenerator;
use crate::engine::model::goal::{Alias, Goal};
use crate::engine::model::urn::{ROOT_STACK_TYPE, Urn};
use crate::engine::program::register_error::UrnConflict;
use crate::engine::program::source::RegisterError;

impl StepGenerator {
    /// Collapses an alias to the URN it names (Pulumi's `collapseAliasToUrn`): missing parts
    /// default to the resource's own; an aliased parent stands for its old URN.
    fn collapse_alias(&self, goal: &Goal, alias: &Alias) -> Urn {
        let Alias::Spec {
            name,
            type_,
            parent,
            no_parent,
            project,
            stack,
        } = alias
        else {
            let Alias::Urn(u) = alias else {
                unreachable!("an alias is a URN or a spec")
            };
            return u.clone();
        };
        let parent = match parent {
            None => goal.parent.clone(),
            Some(p) => Some(self.aliases.get(p).unwrap_or(p).clone()),
        };
        let parent = parent.filter(|p| !*no_parent && p.type_() != ROOT_STACK_TYPE);
        Urn::new(
            stack.as_deref().unwrap_or(&self.opts.stack),
            project.as_deref().unwrap_or(&self.opts.project),
            parent.as_ref(),
            type_.as_deref().unwrap_or(&goal.type_),
            name.as_deref().unwrap_or(&goal.name),
        )
    }

    /// The alias a child gets from its parent's old URN: same type under the old parent, the
    /// parent's name prefix swapped for the old one (Pulumi's `inheritedChildAlias`).
    fn inherited_alias(&self, ty: &str, name: &str, parent: &Urn, parent_old: &Urn) -> Urn {
        let name = match name.strip_prefix(parent.name()) {
            Some(rest) => format!("{}{rest}", parent_old.name()),
            None => name.to_string(),
        };
        Urn::new(
            &self.opts.stack,
            &self.opts.project,
            Some(parent_old),
            ty,
            &name,
        )
    }

    /// Every URN the resource may have had (Pulumi's `generateAliases`): its own aliases, then
    /// the ones its parent's alias multiplies into it.
    pub(super) fn generate_aliases(&self, goal: &Goal) -> Vec<Urn> {
        let mut out: Vec<Urn> = Vec::new();
        let mut add = |u: Urn| {
            if !out.contains(&u) {
                out.push(u);
            }
        };
        let own: Vec<Urn> = goal
            .aliases
            .iter()
            .map(|a| self.collapse_alias(goal, a))
            .collect();
        for u in &own {
            add(u.clone());
        }
        if let Some(parent) = &goal.parent
            && let Some(parent_old) = self.aliases.get(parent)
        {
            add(self.inherited_alias(&goal.type_, &goal.name, parent, parent_old));
            for u in &own {
                add(self.inherited_alias(u.type_(), u.name(), parent, parent_old));
            }
        }
        out
    }

    /// Finds the old state of a registration: by its URN first, then by its aliases in order.
    /// A match through an alias is recorded so the old URN is not deleted.
    pub(super) fn lookup_old(
        &mut self,
        urn: &Urn,
        goal: &Goal,
    ) -> Result<Option<usize>, RegisterError> {
        if let Some(prev) = self.aliased.get(urn) {
            return Err(UrnConflict::ClaimedAsAlias {
                urn: urn.clone(),
                by: prev.clone(),
            }
            .into());
        }
        if let Some(&i) = self.olds.get(urn) {
            return Ok(Some(i));
        }
        for alias in self.generate_aliases(goal) {
            let Some(&i) = self.olds.get(&alias) else {
                continue;
            };
            if self.registered.contains(&alias) {
                return Err(UrnConflict::AliasRegistered {
                    urn: urn.clone(),
                    alias,
                }
                .into());
            }
            if let Some(prev) = self.aliased.get(&alias) {
                return Err(UrnConflict::AliasClaimedTwice {
                    urn: urn.clone(),
                    by: prev.clone(),
                    alias,
                }
                .into());
            }
            self.aliased.insert(alias.clone(), urn.clone());
            self.aliases.insert(urn.clone(), alias);
            return Ok(Some(i));
        }
        Ok(None)
    }
}
