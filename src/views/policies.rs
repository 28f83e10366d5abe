//! The policy packs overlay (`P`): every pack the run consulted with its counts, and under it
//! each policy that reported, by level (mandatory first), with the resources it named. The
//! same at any time of the run, so an operator sees what a pack found before the run ends.

use std::collections::BTreeMap;

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph, Widget, Wrap};

use crate::app::model::Model;
use crate::engine::run::policy::EnforcementLevel;

use super::theme::Theme;

/// The policies overlay.
pub struct PoliciesView<'a> {
    pub model: &'a Model,
    pub theme: Theme,
}

/// Every line of the overlay.
pub fn policies_lines(m: &Model, t: Theme) -> Vec<Line<'static>> {
    let packs = m.policies.packs();
    if packs.is_empty() {
        return vec![Line::styled("no policy pack has reported yet", t.dim())];
    }
    let mut out = Vec::new();
    for p in packs {
        out.push(Line::from(vec![
            Span::styled(format!("{}@v{}", p.name, p.version), t.bold()),
            Span::raw(format!(
                "  {} mandatory · {} advisory · {} remediated",
                p.mandatory, p.advisory, p.remediations
            )),
        ]));
        // (level, policy) → the resources it named, in arrival order.
        let mut by_policy: BTreeMap<(std::cmp::Reverse<EnforcementLevel>, &str), Vec<&str>> =
            BTreeMap::new();
        for v in m
            .policies
            .violations()
            .iter()
            .filter(|v| v.pack_name == p.name && v.pack_version == p.version)
        {
            by_policy
                .entry((std::cmp::Reverse(v.level), v.policy_name.as_str()))
                .or_default()
                .push(v.urn.name());
        }
        for ((level, policy), names) in by_policy {
            let level = level.0;
            out.push(Line::from(vec![
                Span::styled(format!("    [{}]", level.as_str()), t.violation(level)),
                Span::raw(format!("  {policy}  on {}", names.join(", "))),
            ]));
        }
    }
    out
}

impl Widget for PoliciesView<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let t = self.theme;
        Clear.render(area, buf);
        let block = Block::default()
            .borders(Borders::ALL)
            .border_style(t.accent())
            .title(Span::styled(" Policy packs ", t.accent()))
            .title_bottom(Span::styled(" P or Esc close ", t.dim()));
        let inner = block.inner(area);
        block.render(area, buf);
        Paragraph::new(policies_lines(self.model, t))
            .wrap(Wrap { trim: false })
            .render(inner, buf);
    }
}
