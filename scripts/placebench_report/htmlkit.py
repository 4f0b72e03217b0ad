"""Small HTML helpers: escaping, tables, numbers. Every value that comes from a results file goes
through esc(), so a host name or class name can never inject markup."""
import html
import math
from collections.abc import Iterable, Sequence

# In the <head> of every report: how main.py recognises a file it may replace.
GENERATOR = '<meta name="generator" content="placebench report">'

# A table cell that is trusted markup, not text: ("html", markup), as badge() makes.
Markup = tuple[str, str]


def esc(value: object) -> str:
    return html.escape("" if value is None else str(value))


def num(value: object, digits: int = 4) -> str:
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, (int, float)):
        if isinstance(value, float) and not math.isfinite(value):
            return "inf" if value > 0 else ("-inf" if value < 0 else "nan")
        return f"{value:.{digits}g}"
    return str(value)


def pct(value: float | None, signed: bool = True) -> str:
    if value is None:
        return "-"
    return f"{value:+.2f}%" if signed else f"{value:.1f}%"


def ci_pct(ci: Sequence[float | None] | None) -> str:
    if not ci or len(ci) != 2 or ci[0] is None or ci[1] is None:
        return "-"
    return f"[{ci[0]:+.2f}, {ci[1]:+.2f}]%"


def table(headers: Sequence[str], rows: Iterable[Sequence[object]], cls: str = "") -> str:
    """rows: lists of cells; a cell is text (escaped) or ('html', markup) for trusted markup."""
    out = [f'<table class="{esc(cls)}"><thead><tr>']
    out += [f"<th>{esc(h)}</th>" for h in headers]
    out.append("</tr></thead><tbody>")
    for row in rows:
        out.append("<tr>")
        for cell in row:
            if isinstance(cell, tuple) and cell and cell[0] == "html":
                out.append(f"<td>{cell[1]}</td>")
            else:
                out.append(f"<td>{esc(cell)}</td>")
        out.append("</tr>")
    out.append("</tbody></table>")
    return "".join(out)


def badge(text: object, kind: object) -> Markup:
    return ("html", f'<span class="badge {esc(kind)}">{esc(text)}</span>')


def note(text: str) -> str:
    return f'<p class="note">{esc(text)}</p>'


def section(anchor: str, title: str, body: str, level: int = 2) -> str:
    return f'<section id="{esc(anchor)}"><h{level}>{esc(title)}</h{level}>{body}</section>'
