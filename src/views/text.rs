//! Fitting text into cells: shortening from the left (URNs, types), ending at a word boundary
//! (messages), and compact durations. Widths count terminal cells.

use std::time::Duration;

use ratatui::text::Span;

use crate::app::ui_state::Scroll;

/// The rows a wrapped paragraph is scrolled past, as ratatui counts them.
pub fn scroll_rows(scroll: &Scroll) -> u16 {
    u16::try_from(scroll.offset()).unwrap_or(u16::MAX)
}

/// Terminal cells taken by `s`.
pub fn width(s: &str) -> usize {
    Span::raw(s).width()
}

/// `s` cut to `max` cells from the left, keeping its end (`…:index:Database::db`).
pub fn shorten_left(s: &str, max: usize) -> String {
    if width(s) <= max {
        return s.to_string();
    }
    if max == 0 {
        return String::new();
    }
    let mut kept: Vec<char> = Vec::new();
    let mut used = 1;
    for c in s.chars().rev() {
        let w = width(c.encode_utf8(&mut [0; 4]));
        if used + w > max {
            break;
        }
        used += w;
        kept.push(c);
    }
    std::iter::once('…').chain(kept.into_iter().rev()).collect()
}

/// `s` broken into lines of at most `max` cells, at spaces where it can (a word longer than a
/// line is cut), so that nothing of a long message is lost.
pub fn wrap_words(s: &str, max: usize) -> Vec<String> {
    fill(s.split(' ').map(str::to_string), max)
}

/// `s` broken at spaces as [`wrap_words`] does, but a quoted stretch (`"…"` or `` `…` ``)
/// that fits on a line is kept whole: an error quoting a value reads as it was written.
pub fn wrap_keeping_quotes(s: &str, max: usize) -> Vec<String> {
    let odd = |word: &str, q: char| word.chars().filter(|&c| c == q).count() % 2 == 1;
    let mut units: Vec<String> = Vec::new();
    let mut open: Option<char> = None;
    for word in s.split(' ') {
        match (open, units.last_mut()) {
            (Some(q), Some(unit)) => {
                unit.push(' ');
                unit.push_str(word);
                if odd(word, q) {
                    open = None;
                }
            }
            _ => {
                units.push(word.to_string());
                open = ['"', '`'].into_iter().find(|&q| odd(word, q));
            }
        }
    }
    // A quoted stretch wider than a line breaks at its spaces after all.
    let units = units.into_iter().flat_map(|u| {
        if width(&u) > max {
            u.split(' ').map(str::to_string).collect()
        } else {
            vec![u]
        }
    });
    fill(units, max)
}

/// Words laid into lines of at most `max` cells, one space between them; a word wider than a
/// line is cut.
fn fill(words: impl Iterator<Item = String>, max: usize) -> Vec<String> {
    let max = max.max(1);
    let mut lines = Vec::new();
    let mut cur = String::new();
    for mut word in words {
        loop {
            let sep = usize::from(!cur.is_empty());
            if width(&cur) + sep + width(&word) <= max {
                if sep == 1 {
                    cur.push(' ');
                }
                cur.push_str(&word);
                break;
            }
            if !cur.is_empty() {
                lines.push(std::mem::take(&mut cur));
                continue;
            }
            // A word wider than a line: cut it.
            let head: String = word
                .chars()
                .scan(0, |w, c| {
                    *w += width(c.encode_utf8(&mut [0; 4]));
                    (*w <= max).then_some(c)
                })
                .collect();
            word = word[head.len()..].to_string();
            lines.push(head);
        }
    }
    if !cur.is_empty() || lines.is_empty() {
        lines.push(cur);
    }
    lines
}

/// `s` cut to `max` cells at the last word boundary that fits, marked with `…`.
pub fn fit_words(s: &str, max: usize) -> String {
    if width(s) <= max {
        return s.to_string();
    }
    if max == 0 {
        return String::new();
    }
    let mut out = String::new();
    for word in s.split(' ') {
        let sep = usize::from(!out.is_empty());
        if width(&out) + sep + width(word) + 1 > max {
            break;
        }
        if sep == 1 {
            out.push(' ');
        }
        out.push_str(word);
    }
    if out.is_empty() {
        return cut_right(s, max);
    }
    out.push('…');
    out
}

/// `s` cut to `max` cells from the right with `…` (for names that are one word).
pub fn cut_right(s: &str, max: usize) -> String {
    if width(s) <= max {
        return s.to_string();
    }
    if max == 0 {
        return String::new();
    }
    let mut out = String::new();
    let mut used = 1;
    for c in s.chars() {
        let w = width(c.encode_utf8(&mut [0; 4]));
        if used + w > max {
            break;
        }
        used += w;
        out.push(c);
    }
    out.push('…');
    out
}

/// `s` padded with spaces (or cut with `…`) to exactly `w` cells.
pub fn pad(s: &str, w: usize) -> String {
    let s = cut_right(s, w);
    let fill = w.saturating_sub(width(&s));
    format!("{s}{}", " ".repeat(fill))
}

/// Short elapsed time: `0.8s`, `12s`, `3m05s`, `1h02m`.
pub fn duration(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s < 10.0 {
        format!("{s:.1}s")
    } else if s < 60.0 {
        format!("{}s", d.as_secs())
    } else if s < 3600.0 {
        format!("{}m{:02}s", d.as_secs() / 60, d.as_secs() % 60)
    } else {
        format!("{}h{:02}m", d.as_secs() / 3600, (d.as_secs() / 60) % 60)
    }
}

/// A clock for the top bar: `00:41`, `1:02:03`.
pub fn clock(d: Duration) -> String {
    let t = d.as_secs();
    if t >= 3600 {
        format!("{}:{:02}:{:02}", t / 3600, (t / 60) % 60, t % 60)
    } else {
        format!("{:02}:{:02}", t / 60, t % 60)
    }
}

/// A timestamp relative to the start of the run: `+01:02.3`.
pub fn offset(d: Duration) -> String {
    let ms = d.as_millis();
    format!(
        "+{:02}:{:02}.{}",
        ms / 60_000,
        (ms / 1000) % 60,
        (ms / 100) % 10
    )
}

/// `n` of a thing, its noun in the plural unless there is one ("1 layer", "3 layers").
pub fn counted(n: usize, one: &str, many: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{n} {many}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shortening_keeps_the_end_and_words_stay_whole() {
        assert_eq!(shorten_left("urn:pulumi:dev::p::t::name", 10), "…::t::name");
        assert_eq!(width(&shorten_left("abcdefghij", 5)), 5);
        assert_eq!(fit_words("zone change is slow", 12), "zone change…");
        assert_eq!(fit_words("short", 12), "short");
        assert_eq!(cut_right("subnet-alpha", 6), "subne…");
        assert_eq!(pad("ab", 4), "ab  ");
    }

    #[test]
    fn durations_are_compact() {
        assert_eq!(duration(Duration::from_millis(800)), "0.8s");
        assert_eq!(duration(Duration::from_secs(185)), "3m05s");
        assert_eq!(clock(Duration::from_secs(41)), "00:41");
        assert_eq!(offset(Duration::from_millis(62_340)), "+01:02.3");
    }
}
