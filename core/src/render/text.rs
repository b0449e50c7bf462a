//! A text answer as its renderer made it: a body and the footer lines it
//! ends with (`rows: N of M`, `next_cursor:`, `coverage:`, `truncated`,
//! `SOURCES`, `PROPOSAL`, `SEARCH`, `next:`), and how `output.max_chars`
//! cuts it: the body is cut (at a line end when one is near), the footer is
//! kept whole after the marker, and the whole answer, marker included, is
//! never longer than `max_chars` (docs/tools.md, "Output caps").
//!
//! ```text
//! Product/P-0001 "Runner Rosso" | color=Rosso
//! [truncated: 2710 more chars; narrow the request, lower `limit` or page with `cursor`]
//! rows: 50 of 70 (rev aef6c1b104ba...)
//! next_cursor: 7631...
//! coverage: color missing on 25% of Product: a filter on color excludes them
//! ```

use super::caps::prefix_chars;

/// A text answer before the caps: its body, and its footer (the lines that
/// carry the way forward: cursors, counts, coverage; kept by every cut).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Text {
    /// Lines before the body that every cut keeps too (a fence's opening
    /// line); empty for Herald's own answers.
    pub head: String,
    /// The lines before the footer.
    pub body: String,
    /// The footer lines (empty when the answer has none).
    pub footer: String,
}

impl Text {
    /// The answer whole: body, a line break, footer.
    pub fn joined(&self) -> String {
        [&self.head, &self.body, &self.footer]
            .into_iter()
            .filter(|part| !part.is_empty())
            .map(String::as_str)
            .collect::<Vec<_>>()
            .join("\n")
    }
}

impl From<String> for Text {
    /// An answer without footer lines.
    fn from(body: String) -> Self {
        Self {
            body,
            ..Self::default()
        }
    }
}

/// Cuts a whole text output without footer lines to at most `max_chars`
/// characters, marker included (see [`cut`]).
pub fn cut_text(text: &str, max_chars: usize) -> String {
    cut(&Text::from(text.to_string()), max_chars)
}

/// Cuts a text answer to at most `max_chars` characters (marker included):
/// the body is cut and marked, the head kept whole before it and the footer
/// after the marker. Of
/// a footer too long to keep with the marker, the last lines that fit are
/// kept (the others are cut with the body); a last line too long alone is
/// cut with the rest (the whole answer as one text).
pub fn cut(text: &Text, max_chars: usize) -> String {
    cut_more(text, max_chars, 0)
}

/// [`cut`] of a text whose body already lost `more` characters at its end
/// (a remote answer cut before it was cleaned): the marker counts them too,
/// and is there even when what is left fits.
pub fn cut_more(text: &Text, max_chars: usize, more: usize) -> String {
    let whole = text.joined();
    let total = whole.chars().count();
    if total <= max_chars && more == 0 {
        return whole;
    }
    if !text.head.is_empty() {
        let rest = Text {
            head: String::new(),
            body: text.body.clone(),
            footer: text.footer.clone(),
        };
        let room = max_chars.saturating_sub(text.head.chars().count() + 1);
        // The head is kept when the marker still fits after it.
        if room > marker(total + more).chars().count() + text.footer.chars().count() {
            return format!("{}\n{}", text.head, cut_more(&rest, room, more));
        }
        let merged = Text {
            head: String::new(),
            body: format!("{}\n{}", text.head, text.body),
            footer: text.footer.clone(),
        };
        return cut_more(&merged, max_chars, more);
    }
    if text.footer.is_empty() || text.body.is_empty() {
        return cut_body(&whole, max_chars, total, more);
    }
    // The body's marker is bounded by the one naming every character.
    let marker_len = marker(total + more).chars().count();
    // A footer too long to keep whole with the marker keeps its last lines
    // (the cursor and coverage come last); the others join the body.
    let mut split = 0;
    loop {
        let footer = &text.footer[split..];
        let room = max_chars.saturating_sub(footer.chars().count() + 1);
        if room >= marker_len {
            let body = format!("{}{}", text.body, &text.footer[..split]);
            let body = body.trim_end_matches('\n');
            return format!("{}\n{footer}", cut_body(body, room, total, more));
        }
        match footer.find('\n') {
            Some(nl) => split += nl + 1,
            None => return cut_body(&whole, max_chars, total, more),
        }
    }
}

/// Cuts `text` to `max_chars` characters, marker included (as long as
/// `max_chars` leaves room for the marker: the settings ensure it does),
/// at a line end when one is in the second half of what is kept; a line cut
/// inside ends with `...` (a value cut short is never shown as whole).
/// `bound` is at least the count the marker will name (it sizes the
/// marker); `more` characters were cut from the end of `text` before.
fn cut_body(text: &str, max_chars: usize, bound: usize, more: usize) -> String {
    let total = text.chars().count();
    if total <= max_chars && more == 0 {
        return text.to_string();
    }
    let budget = max_chars.saturating_sub(marker(bound.max(total) + more).chars().count());
    let kept = prefix_chars(text, budget);
    // All of `text` fits only when characters were cut before (`more`).
    let whole = kept.len() == text.len();
    let (kept, inside) = match kept.rfind('\n') {
        _ if whole && text.ends_with('\n') => (kept, false),
        _ if whole && total + INSIDE.len() <= budget => (kept, true),
        Some(nl) if kept[..nl].chars().count() * 2 >= budget => (&kept[..nl], false),
        _ => (
            prefix_chars(text, budget.saturating_sub(INSIDE.len())),
            true,
        ),
    };
    let kept = kept.trim_end_matches('\n');
    let omitted = total - kept.chars().count() + more;
    if kept.is_empty() {
        let line = marker(omitted);
        let line = line.trim_start();
        // Below the settings' minimum the marker alone is cut too.
        return prefix_chars(line, max_chars).to_string();
    }
    let inside = if inside { INSIDE } else { "" };
    format!("{kept}{inside}{}", marker(omitted))
}

/// The end of a line cut inside.
const INSIDE: &str = "...";

/// The marker line of a cut text (with the line break before it).
fn marker(omitted: usize) -> String {
    format!(
        "\n[truncated: {omitted} more chars; narrow the request, lower `limit` or page with `cursor`]"
    )
}

/// The first `max` items joined with `, `, then `... N more <what>` when
/// some were left out: an inline list cut at `output.max_items`.
pub fn inline_list<S: AsRef<str>>(items: &[S], what: &str, max: usize) -> String {
    let mut parts: Vec<&str> = items.iter().take(max).map(AsRef::as_ref).collect();
    let more = items.len().saturating_sub(max);
    let tail = format!("... {more} more {what}");
    if more > 0 {
        parts.push(&tail);
    }
    parts.join(", ")
}

#[cfg(test)]
mod tests {
    use crate::config::MIN_MAX_CHARS;

    use super::*;

    fn answer(rows: usize) -> Text {
        Text {
            head: String::new(),
            body: (0..rows)
                .map(|i| format!("Product/P-{i:04} \"żółty but\" | color=Rosso"))
                .collect::<Vec<_>>()
                .join("\n"),
            footer: "rows: 50 of 70 (rev aef6c1b104ba...)\nnext_cursor: abc123\ncoverage: color missing on 25% of Product".into(),
        }
    }

    #[test]
    fn text_is_cut_at_a_line_end_within_the_cap() {
        let text = (0..100)
            .map(|i| format!("line {i} żółw"))
            .collect::<Vec<_>>()
            .join("\n");
        let out = cut_text(&text, 300);
        assert!(out.chars().count() <= 300, "{}", out.chars().count());
        let (kept, marker) = out.rsplit_once('\n').unwrap();
        assert!(marker.starts_with("[truncated: "), "{marker}");
        assert!(kept.ends_with("żółw"), "{kept}");
        let omitted: usize = marker["[truncated: ".len()..]
            .split(' ')
            .next()
            .unwrap()
            .parse()
            .unwrap();
        // The kept text plus the newline before the marker and the omitted count
        // add up to the input.
        assert_eq!(kept.chars().count() + omitted, text.chars().count());
    }

    #[test]
    fn text_without_line_ends_is_cut_inside_the_line() {
        let text = "ą".repeat(1000);
        let out = cut_text(&text, 200);
        assert!(out.chars().count() <= 200);
        assert!(out.starts_with("ąąą"));
        assert!(out.contains("[truncated: "));
    }

    #[test]
    fn short_text_is_unchanged() {
        assert_eq!(cut_text("a\nb", 3), "a\nb");
    }

    #[test]
    fn a_cut_keeps_the_footer_and_the_cap() {
        let text = answer(50);
        for max in [200, MIN_MAX_CHARS, 1500, 2000] {
            let out = cut(&text, max);
            assert!(out.chars().count() <= max, "{max}: {}", out.chars().count());
            assert!(out.ends_with(&text.footer), "{out}");
            assert!(out.contains("\n[truncated: "), "{out}");
        }
        let whole = text.joined();
        assert_eq!(cut(&text, whole.chars().count()), whole);
    }

    #[test]
    fn the_marker_counts_the_body_left_out() {
        let text = answer(50);
        let out = cut(&text, 1000);
        let (body, rest) = out.split_once("\n[truncated: ").unwrap();
        let omitted: usize = rest.split(' ').next().unwrap().parse().unwrap();
        assert_eq!(
            body.chars().count() + omitted,
            text.body.chars().count(),
            "{out}"
        );
        assert!(body.ends_with("color=Rosso"), "cut at a line end: {body}");
    }

    #[test]
    fn the_head_is_kept_before_the_cut_body() {
        let text = Text {
            head: "<fence server=\"s\">\nuntrusted data".into(),
            ..answer(50)
        };
        let out = cut(&text, 400);
        assert!(out.chars().count() <= 400, "{out}");
        assert!(
            out.starts_with(&format!("{}\nProduct/P-0000", text.head)),
            "{out}"
        );
        assert!(out.ends_with(&text.footer), "{out}");
    }

    #[test]
    fn a_long_footer_keeps_its_last_lines() {
        let text = Text {
            head: String::new(),
            body: "x".repeat(500),
            footer: format!("SOURCES\n{}\nSEARCH modes lexical", "  s".repeat(100)),
        };
        let out = cut(&text, 250);
        assert!(out.chars().count() <= 250, "{out}");
        assert!(out.ends_with("]\nSEARCH modes lexical"), "{out}");
    }

    #[test]
    fn a_footer_too_long_for_the_cap_is_cut_with_the_rest() {
        let text = Text {
            head: String::new(),
            body: "x".repeat(500),
            footer: format!("next_cursor: {}", "a".repeat(400)),
        };
        let out = cut(&text, 300);
        assert!(out.chars().count() <= 300);
        assert!(out.contains("[truncated: "));
    }

    #[test]
    fn the_cap_holds_even_below_the_minimum() {
        let text = Text::from("y".repeat(500));
        for max in [0, 1, 10, 60, 99, 150] {
            assert!(cut(&text, max).chars().count() <= max, "{max}");
        }
    }

    #[test]
    fn characters_cut_before_are_counted_and_marked() {
        let text = Text {
            head: "<fence>".into(),
            body: "x".repeat(500),
            footer: "</fence>".into(),
        };
        let out = cut_more(&text, 300, 1000);
        assert!(out.chars().count() <= 300, "{out}");
        let body = out.split('\n').nth(1).unwrap();
        let omitted: usize = out
            .split("[truncated: ")
            .nth(1)
            .unwrap()
            .split(' ')
            .next()
            .unwrap()
            .parse()
            .unwrap();
        assert_eq!(
            body.trim_end_matches('.').chars().count() + omitted,
            1500,
            "{out}"
        );
        assert!(out.ends_with("]\n</fence>"), "{out}");
        // What is left fits: still marked, the line ending in `...`.
        let out = cut_more(
            &Text {
                body: "short".into(),
                ..text
            },
            300,
            7,
        );
        assert_eq!(
            out,
            "<fence>\nshort...\n[truncated: 7 more chars; narrow the request, lower `limit` or page with `cursor`]\n</fence>"
        );
    }

    #[test]
    fn inline_lists_say_how_many_were_left_out() {
        let names = ["a", "b", "c", "d"];
        assert_eq!(
            inline_list(&names, "attributes", 2),
            "a, b, ... 2 more attributes"
        );
        assert_eq!(inline_list(&names, "attributes", 4), "a, b, c, d");
    }
}
