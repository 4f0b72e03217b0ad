"""Small HTML helpers: escaping, tables, numbers. Every value that comes from a results file goes
through esc(), so a host name or class name can never inject markup."""
import html
import math


# In the <head> of every report: how main.py recognises a file it may replace.
GENERATOR = '<meta name="generator" content="placebench report">'


def esc(value):
    return html.escape("" if value is None else str(value))


def num(value, digits=4):
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, (int, float)):
        if isinstance(value, float) and not math.isfinite(value):
            return "inf" if value > 0 else ("-inf" if value < 0 else "nan")
        return f"{value:.{digits}g}"
    return str(value)


def pct(value, signed=True):
    if value is None:
        return "-"
    return f"{value:+.2f}%" if signed else f"{value:.1f}%"


def ci_pct(ci):
    if not ci or len(ci) != 2 or ci[0] is None or ci[1] is None:
        return "-"
    return f"[{ci[0]:+.2f}, {ci[1]:+.2f}]%"


def table(headers, rows, cls=""):
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


def badge(text, kind):
    return ("html", f'<span class="badge {esc(kind)}">{esc(text)}</span>')


def note(text):
    return f'<p class="note">{esc(text)}</p>'


def section(anchor, title, body, level=2):
    return f'<section id="{esc(anchor)}"><h{level}>{esc(title)}</h{level}>{body}</section>'
