"""Diagnostics: located, coded messages about a rulebook, and how they are shown.

Every check in every pass reports through a `Diagnostics` collector instead of raising, so one
run reports every problem it can find. Rendering follows rustc: `path:line:col: error[CODE]:
message`, the source line as written, a caret under the span, then notes and help.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from .closematch import did_you_mean, did_you_mean_words  # re-exported: the hints' one source


@dataclass(frozen=True)
class Span:
    path: str
    line: int  # 1-based
    column: int  # 1-based
    end_column: int | None = None

    def __str__(self) -> str:
        return f"{self.path}:{self.line}:{self.column}"


@dataclass
class Diagnostic:
    level: str  # "error", "warning" or "note"
    code: str
    message: str
    span: Span | None
    notes: list[str] = field(default_factory=list)
    help: str | None = None
    item: str | None = None  # the rulebook item this is about, for errata matching

    def to_json(self) -> dict:
        out: dict = {"level": self.level, "code": self.code, "message": self.message}
        if self.span:
            out.update(path=self.span.path, line=self.span.line, column=self.span.column)
            if self.span.end_column:
                out["end_column"] = self.span.end_column
        if self.item:
            out["item"] = self.item
        if self.notes:
            out["notes"] = list(self.notes)
        if self.help:
            out["help"] = self.help
        return out


class Diagnostics:
    """Collects diagnostics across passes; `sources` maps a path to its text for rendering."""

    def __init__(self) -> None:
        self.items: list[Diagnostic] = []
        self.sources: dict[str, str] = {}

    def add_source(self, path: str, text: str) -> None:
        self.sources[path] = text

    def report(self, level: str, code: str, message: str, span: Span | None = None, *,
               notes: list[str] | None = None, help: str | None = None, item: str | None = None) -> Diagnostic:
        diag = Diagnostic(level, code, message, span, list(notes or []), help, item)
        self.items.append(diag)
        return diag

    def error(self, code: str, message: str, span: Span | None = None, **kw) -> Diagnostic:
        return self.report("error", code, message, span, **kw)

    def warning(self, code: str, message: str, span: Span | None = None, **kw) -> Diagnostic:
        return self.report("warning", code, message, span, **kw)

    @property
    def errors(self) -> list[Diagnostic]:
        return [d for d in self.items if d.level == "error"]

    @property
    def has_errors(self) -> bool:
        return any(d.level == "error" for d in self.items)

    def sorted(self) -> list[Diagnostic]:
        def key(d: Diagnostic):
            s = d.span
            return (s.path if s else "", s.line if s else 0, s.column if s else 0, d.code)
        return sorted(self.items, key=key)

    def render(self, *, color: bool = False, limit: int | None = None, notes: bool = False) -> str:
        """Errors and warnings; `notes` also shows acknowledged errata and other notes."""
        shown = [d for d in self.sorted() if notes or d.level != "note"]
        # one split per file, not per diagnostic: thousands of diagnostics on a long file stay linear
        lines_of = {path: text.split("\n") for path, text in self.sources.items()}
        parts = [render_one(d, self.sources, color=color, lines_of=lines_of) for d in shown[:limit]]
        if len(parts) < len(shown):
            parts.append(f"... and {len(shown) - len(parts)} more")
        summary = _summary(self.items)
        if summary:
            parts.append(summary)
        return "\n".join(parts)

    def to_json(self) -> str:
        import json

        return json.dumps([d.to_json() for d in self.sorted()], indent=2, ensure_ascii=False)


def _summary(items: list[Diagnostic]) -> str | None:
    """"N errors and M warnings found" (notes not counted), or None when there are neither."""
    counts = Counter(d.level for d in items)
    bits = [f"{counts[level]} {level}{'s' if counts[level] != 1 else ''}" for level in ("error", "warning")
            if counts[level]]
    return " and ".join(bits) + " found" if bits else None


_COLORS = {"error": "\x1b[1;31m", "warning": "\x1b[1;33m", "note": "\x1b[1;36m", "help": "\x1b[1;32m"}
_RESET = "\x1b[0m"


def render_one(d: Diagnostic, sources: dict[str, str], *, color: bool = False,
               lines_of: dict[str, list[str]] | None = None) -> str:
    head = _paint(f"{d.level}[{d.code}]: {d.message}", d.level, color)
    lines = [f"{d.span}: {head}" if d.span else head]
    if d.span and d.span.path in sources:
        src_lines = lines_of[d.span.path] if lines_of is not None else sources[d.span.path].split("\n")
        lines += _excerpt(d.span, src_lines, d.level, color)
    lines += [f"  = note: {note}" for note in d.notes]
    if d.help:
        lines.append(f"  = {_paint('help', 'help', color)}: {d.help}")
    return "\n".join(lines)


def _paint(text: str, level: str, color: bool) -> str:
    """Text in the colour of a level (or of `help`), when colour is on."""
    return f"{_COLORS[level]}{text}{_RESET}" if color else text


def _excerpt(span: Span, src_lines: list[str], level: str, color: bool) -> list[str]:
    """The source line a span is on, as written, with a caret under the span (nothing when the
    line is not in the source)."""
    if not 1 <= span.line <= len(src_lines):
        return []
    text = _printable(src_lines[span.line - 1])
    gutter = str(span.line)
    pad = " " * len(gutter)
    width = span.end_column - span.column if span.end_column and span.end_column > span.column else 1
    width = max(1, min(width, max(1, len(text) - span.column + 1)))
    caret_pad = "".join("\t" if ch == "\t" else " " for ch in text[: span.column - 1])
    return [f"{pad} |", f"{gutter} | {text}", f"{pad} | {caret_pad}{_paint('^' * width, level, color)}"]


def _printable(line: str) -> str:
    """Show a source line safely: control and bidi characters become visible escapes."""
    out = []
    for ch in line.rstrip("\r"):
        code = ord(ch)
        if ch == "\t" or (32 <= code < 127) or (code >= 160 and not _is_format_char(code)):
            out.append(ch)
        else:
            out.append(f"\\u{{{code:04x}}}")
    return "".join(out)


def _is_format_char(code: int) -> bool:
    return code in (0x200E, 0x200F, 0x2028, 0x2029, 0xFEFF) or 0x202A <= code <= 0x202E or 0x2066 <= code <= 0x2069


def runtime_error(exc) -> "Diagnostics":
    """An error raised by a rule at run time (an `errors.RulebookRuntimeError`) as a diagnostic
    (CIV130) at the rule's own file, line and column, with its source line when the file can be
    read: for a rule inherited from a base, the base's file."""
    diags = Diagnostics()
    span = Span(exc.path, exc.line, exc.column or 1, exc.end_column) if exc.path and exc.line else None
    if span is not None:
        text = _read_source(span.path)
        if text is not None:
            diags.add_source(span.path, text)
    diags.error("CIV130", f"this rule failed while running: {exc.reason}", span,
                notes=["the values it read came from the player state given to the command"],
                help="give the facts it reads values the rule can work with, or guard the rule with a condition")
    return diags


def _read_source(path: str) -> str | None:
    """The text of a rulebook named as in generated code: a path, or `rulebooks/...` for a
    shipped rulebook wherever the package is installed."""
    from .resources import rulebooks_dir

    candidates = [Path(path)]
    if path.startswith("rulebooks/"):
        candidates.append(rulebooks_dir() / path[len("rulebooks/"):])
    for candidate in candidates:
        try:
            return candidate.read_text(encoding="utf-8").replace("\r\n", "\n").replace("\r", "\n")
        except (OSError, UnicodeDecodeError):
            continue
    return None


def suggestion(name: str, candidates) -> str | None:
    best = did_you_mean(name, candidates)
    return f"did you mean `{best}`?" if best else None


def span_of(path: str | Path, meta) -> Span:
    """A Span from a Lark node's or token's position information."""
    # called for most nodes of every syntax tree: the common case (all four positions given)
    # reads them directly and fills the frozen Span's fields without its generated __init__
    # (which sets each field through object.__setattr__), giving an equal Span in a third of
    # the time
    try:
        line, column, end_line, end = meta.line, meta.column, meta.end_line, meta.end_column
    except AttributeError:  # an empty node (Lark gives it no position) or a partial one
        return _span_of(path, meta)
    return span_from(path, line, column, end_line, end)


def span_from(path: str | Path, line: int, column: int, end_line: int | None, end_column: int | None) -> Span:
    """The Span of text from (line, column) to (end_line, end_column), as span_of gives it: the
    end column only on a one-line span. The syntax pass calls it directly with a node's first
    and last tokens' positions (syntax._ToSyntax._transform_node)."""
    span = _new_object(Span)
    span.__dict__.update({"path": path if type(path) is str else str(path), "line": line or 1,
                          "column": column or 1,
                          "end_column": None if end_line is not None and end_line != line else end_column})
    return span


_new_object = object.__new__


def _span_of(path: str | Path, meta) -> Span:
    end = getattr(meta, "end_column", None)
    end_line = getattr(meta, "end_line", None)
    line = getattr(meta, "line", 1) or 1
    if end_line is not None and end_line != line:
        end = None
    return Span(str(path), line, getattr(meta, "column", 1) or 1, end)
