//! The log: diagnostics, failures and decisions, newest at the bottom, filtered by severity,
//! following the newest lines (`f` holds them) with a search's matches highlighted (`/`,
//! `n`/`N`). Also the one-line log at the foot of the wide layout.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{StatefulWidget, Widget};

use crate::app::log_search::{LogSearch, occurrences};
use crate::app::model::{LogEntry, Model};
use crate::app::ui_state::Scroll;
use crate::engine::Severity;

use super::frame::frame;
use super::resources::info_text;
use super::text::{fit_words, offset, width, wrap_words};
use super::theme::Theme;

/// The log view; its state is its [`Scroll`] over the entries at the severity shown.
pub struct LogView<'a> {
    pub model: &'a Model,
    pub theme: Theme,
    pub focused: bool,
    pub min_severity: Severity,
    pub search: &'a LogSearch,
}

/// `text` in `style`, with each occurrence of `query` in `hit`.
fn highlighted(text: String, query: &str, style: Style, hit: Style) -> Vec<Span<'static>> {
    let mut spans = Vec::new();
    let mut at = 0;
    for r in occurrences(&text, query) {
        if r.start > at {
            spans.push(Span::styled(text[at..r.start].to_string(), style));
        }
        spans.push(Span::styled(text[r.clone()].to_string(), hit));
        at = r.end;
    }
    if at < text.len() || spans.is_empty() {
        spans.push(Span::styled(text[at..].to_string(), style));
    }
    spans
}

/// An entry's time, severity and resource, before its message.
fn entry_head(e: &LogEntry, t: Theme) -> Vec<Span<'static>> {
    let mut spans = vec![
        Span::styled(format!("{} ", offset(e.at)), t.dim()),
        Span::styled(
            format!("{:<8}", e.severity.as_str()),
            t.severity(e.severity),
        ),
    ];
    if let Some(u) = &e.urn {
        spans.push(Span::styled(
            format!("{}: ", crate::app::model::label(u)),
            t.bold(),
        ));
    }
    spans
}

fn entry_line(e: &LogEntry, t: Theme, w: usize) -> Line<'static> {
    let mut spans = entry_head(e, t);
    let used: usize = spans.iter().map(|s| width(&s.content)).sum();
    spans.push(Span::raw(fit_words(&e.message, w.saturating_sub(used))));
    Line::from(spans)
}

/// How a search shows on an entry: the text to highlight, and whether the entry is the match
/// `n`/`N` went to.
#[derive(Clone, Copy)]
struct Hits<'q> {
    query: &'q str,
    current: bool,
}

/// The entry wrapped to `w` cells, continuation lines under the message, a search's matches
/// highlighted (the current match's entry marked with `▶` in place of its time's first cell).
fn entry_lines(e: &LogEntry, t: Theme, w: usize, hits: Hits) -> Vec<Line<'static>> {
    let mut head = entry_head(e, t);
    let indent: usize = head.iter().map(|s| width(&s.content)).sum();
    let style = if e.severity == Severity::Error {
        t.error()
    } else {
        Style::new()
    };
    let hit = t.selected().patch(t.bold());
    if !hits.query.is_empty() {
        if let Some(name) = head.get_mut(2) {
            let text = std::mem::take(&mut name.content).into_owned();
            let name_style = name.style;
            let spans = highlighted(text, hits.query, name_style, hit);
            head.splice(2..3, spans);
        }
        if hits.current {
            let time = head[0].content.to_string();
            let rest: String = time.chars().skip(1).collect();
            head[0] = Span::styled(format!("▶{rest}"), t.accent());
        }
    }
    let mut out = Vec::new();
    for (k, part) in wrap_words(&e.message, w.saturating_sub(indent))
        .into_iter()
        .enumerate()
    {
        let mut spans = if k == 0 {
            std::mem::take(&mut head)
        } else {
            vec![Span::raw(" ".repeat(indent))]
        };
        spans.extend(highlighted(part, hits.query, style, hit));
        out.push(Line::from(spans));
    }
    out
}

impl StatefulWidget for LogView<'_> {
    type State = Scroll;

    fn render(self, area: Rect, buf: &mut Buffer, scroll: &mut Scroll) {
        let t = self.theme;
        let search = self.search;
        let matches = search.matches(self.model, self.min_severity);
        let current = search.current_of(&matches);
        let found = if search.active() {
            let at = current.map_or(0, |_| search.current.min(matches.len() - 1) + 1);
            // `3/12`: the match shown, of how many.
            format!("· /{} {at}/{} ", search.query, matches.len())
        } else {
            String::new()
        };
        let tail = if scroll.following() {
            "following"
        } else {
            "held · f follows"
        };
        let title = format!(
            " Log (≥ {}, s to change) {found}· {tail} ",
            self.min_severity.as_str()
        );
        let focus = t.border(self.focused);
        let inner = frame(area, buf, title, focus, focus);
        let h = inner.height as usize;
        let log = &self.model.log;
        // Positions count among the entries shown, as the scroll and the matches do.
        let total = log.count_at_least(self.min_severity);
        scroll.fit(total, h);
        let shown = log
            .entries()
            .iter()
            .filter(|e| e.severity >= self.min_severity);
        let hits = |k: usize| Hits {
            query: &search.query,
            current: current == Some(k),
        };
        let w = inner.width as usize;
        // Long messages wrap, so entries fill the view until it is full: following the
        // newest, upwards from it (newest at the bottom); scrolled back, down from the first
        // entry shown.
        let mut lines: Vec<Line> = Vec::new();
        if scroll.following() {
            for (j, e) in shown.rev().enumerate() {
                let k = total - 1 - j;
                if lines.len() >= h {
                    break;
                }
                let mut wrapped = entry_lines(e, t, w, hits(k));
                wrapped.reverse();
                lines.extend(wrapped);
            }
            lines.truncate(h);
            lines.reverse();
        } else {
            for (k, e) in shown.enumerate().skip(scroll.offset()) {
                if lines.len() >= h {
                    break;
                }
                lines.extend(entry_lines(e, t, w, hits(k)));
            }
            lines.truncate(h);
        }
        for (k, line) in lines.iter().enumerate() {
            buf.set_line(inner.x, inner.y + k as u16, line, inner.width);
        }
        if lines.is_empty() && h > 0 {
            buf.set_string(inner.x, inner.y, "nothing logged at this severity", t.dim());
        }
    }
}

/// The last log entry (info or worse) on one line, with key hints on the right.
pub struct LogLine<'a> {
    pub model: &'a Model,
    pub theme: Theme,
    pub hints: Line<'a>,
}

impl Widget for LogLine<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let t = self.theme;
        let hints_w = self.hints.width().min(area.width as usize);
        let room = (area.width as usize).saturating_sub(hints_w + 7);
        // Once something failed, the latest error stays in sight (`e` shows each one): a
        // failed resource's own, root cause first, before what the run made of it.
        let log = self.model.log.entries();
        let failed = self.model.counts.failed() > 0;
        let errors = || log.iter().rev().filter(|e| e.severity == Severity::Error);
        let root_cause = errors().filter(|_| failed).find_map(|e| {
            let r = self.model.get(e.urn.as_ref()?)?;
            r.error.is_some().then(|| (e, info_text(r).0))
        });
        let last = errors()
            .find(|_| failed)
            .or_else(|| log.iter().rev().find(|e| e.severity >= Severity::Info));
        let mut spans = vec![Span::styled(" Log  ", t.bold())];
        if let Some((e, cause)) = root_cause {
            let mut head = entry_head(e, t);
            let used: usize = head.iter().map(|s| width(&s.content)).sum();
            head.push(Span::raw(fit_words(&cause, room.saturating_sub(used))));
            spans.extend(head.into_iter().skip(1));
        } else if let Some(e) = last {
            spans.extend(entry_line(e, t, room).spans.into_iter().skip(1));
        }
        buf.set_line(area.x, area.y, &Line::from(spans), room as u16 + 6);
        let x = area.x + area.width - hints_w as u16;
        buf.set_line(x, area.y, &self.hints, hints_w as u16);
    }
}
