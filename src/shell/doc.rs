//! A small pretty-printing document (Wadler/prettier style): a group is
//! printed on one line when it fits in the width, otherwise its line breaks
//! become newlines. Hard lines (after `//` comments) force every enclosing
//! group to break.
use std::borrow::Cow;

#[derive(Clone, Debug)]
pub enum Doc {
    Text(Cow<'static, str>),
    /// A space when flat, a newline when broken.
    Line,
    /// Nothing when flat, a newline when broken.
    SoftLine,
    /// Always a newline; the enclosing groups cannot be flat.
    HardLine,
    /// Prints nothing, but the enclosing groups cannot be flat.
    BreakParent,
    /// An empty line (after a line break), kept from the source between statements.
    BlankLine,
    Indent(Vec<Doc>),
    Group(Vec<Doc>),
    Concat(Vec<Doc>),
}

impl Doc {
    pub fn text(s: impl Into<Cow<'static, str>>) -> Doc {
        Doc::Text(s.into())
    }
}

#[derive(Clone, Copy, PartialEq)]
enum Mode {
    Flat,
    Break,
}

/// Render with `width` columns and two-space indentation.
pub fn render(doc: &Doc, width: usize) -> String {
    let mut out = String::new();
    let mut col = 0usize;
    let mut stack: Vec<(usize, Mode, &Doc)> = vec![(0, Mode::Break, doc)];
    while let Some((indent, mode, d)) = stack.pop() {
        match d {
            Doc::Text(s) => {
                out.push_str(s);
                col += s.chars().count();
            }
            Doc::Line | Doc::SoftLine if mode == Mode::Flat => {
                if matches!(d, Doc::Line) {
                    out.push(' ');
                    col += 1;
                }
            }
            Doc::Line | Doc::SoftLine | Doc::HardLine | Doc::BlankLine => {
                // No trailing spaces; a break on a line still empty (after a
                // `//` comment's own break) only re-indents, so breaks never double.
                let trimmed = out.trim_end_matches(' ').len();
                out.truncate(trimmed);
                if matches!(d, Doc::BlankLine) || !(out.is_empty() || out.ends_with('\n')) {
                    out.push('\n');
                }
                out.extend(std::iter::repeat_n(' ', indent));
                col = indent;
            }
            Doc::BreakParent => {}
            Doc::Indent(items) => stack.extend(items.iter().rev().map(|x| (indent + 2, mode, x))),
            Doc::Concat(items) => stack.extend(items.iter().rev().map(|x| (indent, mode, x))),
            Doc::Group(items) => {
                let flat = mode == Mode::Flat || fits(items, width as isize - col as isize, &stack);
                let m = if flat { Mode::Flat } else { Mode::Break };
                stack.extend(items.iter().rev().map(|x| (indent, m, x)));
            }
        }
    }
    out
}

/// Whether `items` printed flat, followed by what comes after them up to the
/// next possible line break, fit in `remaining` columns.
fn fits(items: &[Doc], mut remaining: isize, rest: &[(usize, Mode, &Doc)]) -> bool {
    let mut stack: Vec<(Mode, &Doc)> = items.iter().rev().map(|x| (Mode::Flat, x)).collect();
    let mut rest_idx = rest.len();
    loop {
        let (mode, d) = match stack.pop() {
            Some(x) => x,
            None => {
                if rest_idx == 0 {
                    return true;
                }
                rest_idx -= 1;
                let (_, m, d) = rest[rest_idx];
                (m, d)
            }
        };
        match d {
            Doc::Text(s) => {
                remaining -= s.chars().count() as isize;
                if remaining < 0 {
                    return false;
                }
            }
            Doc::Line | Doc::SoftLine => {
                if mode == Mode::Break {
                    return true;
                }
                if matches!(d, Doc::Line) {
                    remaining -= 1;
                    if remaining < 0 {
                        return false;
                    }
                }
            }
            Doc::HardLine | Doc::BreakParent | Doc::BlankLine => return mode == Mode::Break,
            Doc::Indent(xs) | Doc::Concat(xs) => stack.extend(xs.iter().rev().map(|x| (mode, x))),
            // A group after the measured one is judged flat as far as the next break.
            Doc::Group(xs) => stack.extend(xs.iter().rev().map(|x| (Mode::Flat, x))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(n: usize) -> Doc {
        let mut inner = vec![Doc::SoftLine];
        for i in 0..n {
            if i > 0 {
                inner.push(Doc::text(","));
                inner.push(Doc::Line);
            }
            inner.push(Doc::text(format!("item{i}")));
        }
        Doc::Group(vec![
            Doc::text("["),
            Doc::Indent(inner),
            Doc::SoftLine,
            Doc::text("]"),
        ])
    }

    #[test]
    fn breaks_only_when_needed() {
        assert_eq!(render(&list(2), 80), "[item0, item1]");
        assert_eq!(render(&list(2), 10), "[\n  item0,\n  item1\n]");
        let forced = Doc::Group(vec![
            Doc::text("a"),
            Doc::BreakParent,
            Doc::Line,
            Doc::text("b"),
        ]);
        assert_eq!(render(&forced, 80), "a\nb");
    }
}
