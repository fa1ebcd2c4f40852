"""One self-contained HTML file: inline CSS, tables, and plots embedded as base64 PNG.

No external scripts, fonts or images, so the file can be mailed, attached to a ticket, or opened
offline and still show every number and figure.
"""

from __future__ import annotations

import base64
from html import escape

from .fmt import data_notes, format_row, sizes_line, status_line
from .model import Report, Section, Status, Thumbnail
from .plots import figure_png

_CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;max-width:1000px;margin:2em auto;
color:#1b1b1b;padding:0 1em}
h1{font-size:1.5em}h2{font-size:1.2em;border-bottom:1px solid #ddd;padding-bottom:.2em;margin-top:2em}
table{border-collapse:collapse;margin:.6em 0 1em;font-size:.9em}
th,td{border:1px solid #ccc;padding:.25em .6em;text-align:right}th{background:#f3f3f3}
td:first-child,th:first-child,.text{text-align:left}caption{font-weight:600;text-align:left;padding:.3em 0}
.sizes{color:#555;font-size:.9em}.status{padding:.5em .8em;border-radius:4px;background:#fff4d6}
.status.not-applicable{background:#eee}.note{border-left:4px solid #4a7bd0;padding:.3em .8em;background:#f2f6fd}
img{max-width:100%;display:block;margin:.5em 0}
.grid{display:flex;flex-wrap:wrap;gap:.8em;margin:.6em 0}.grid figure{margin:0;width:170px;font-size:.8em}
.grid img{margin:0 0 .2em;border:1px solid #ccc}.grid .missing{width:160px;height:120px;display:flex;
align-items:center;justify-content:center;text-align:center;background:#eee;color:#555;border:1px dashed #aaa}
"""


def render_html(report: Report) -> str:
    body = [f"<h1>Label audit report — project {escape(report.project)}</h1>",
            f"<p class='sizes'>Generated {escape(report.generated_at)}</p>"]
    body += [f"<p class='status'>Data note: {escape(note)}</p>" for note in data_notes(dict(report.meta))]
    body += [_section(sec) for sec in report.sections if sec.status is not Status.NOT_APPLICABLE]
    every = {sec.control_label or sec.control for sec in report.sections if sec.control}
    body.append(_left_out([sec for sec in report.sections if sec.status is Status.NOT_APPLICABLE], every=every))
    return ("<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>"
            f"<title>Label audit — {escape(report.project)}</title><style>{_CSS}</style></head>"
            f"<body>{''.join(body)}</body></html>")


def _left_out(sections: list[Section], *, every: set[str]) -> str:
    """The sections this project cannot have, once each at the end with the reason (and the controls concerned).

    Shown one by one they would fill the report with grey boxes; hidden without a word a reader would not
    know they exist. Sections of several controls that give the same reason share one line, naming the
    controls unless it is ``every`` control of the project.
    """
    if not sections:
        return ""
    grouped: dict[tuple[str, str], list[str]] = {}
    for sec in sections:
        grouped.setdefault((sec.title, sec.reason), []).append(sec.control_label or sec.control)
    lines = []
    for (title, reason), controls in grouped.items():
        which = [c for c in controls if c]
        scope = f" ({', '.join(which)})" if which and set(which) != every else ""  # every control: no list
        lines.append(f"<li><b>{escape(title)}</b>{escape(scope)}: {escape(reason)}</li>")
    return ("<section id='not-in-this-report'><h2>Not in this report</h2><p class='sizes'>Sections that do not "
            f"apply to this project, and why.</p><ul>{''.join(lines)}</ul></section>")


def _section(sec: Section) -> str:
    anchor = f"{sec.key}-{sec.control}" if sec.control else sec.key
    parts = [f"<section id='{escape(anchor)}'><h2>{escape(sec.heading)}</h2>"]
    if line := sizes_line(sec):
        parts.append(f"<p class='sizes'>Sample sizes: {escape(line)}</p>")
    if sec.status is not Status.OK:
        css = sec.status.value.replace(" ", "-")
        parts.append(f"<p class='status {css}'>{escape(status_line(sec))}</p></section>")
        return "".join(parts)
    for table in sec.tables:
        words = _word_columns(table.columns, table.rows)
        head = "".join(f"<th{words[j]}>{escape(c)}</th>" for j, c in enumerate(table.columns))
        rows = "".join("<tr>" + "".join(f"<td{words[j]}>{escape(c)}</td>"
                                        for j, c in enumerate(format_row(table, row))) + "</tr>"
                       for row in table.rows)
        parts.append(f"<table><caption>{escape(table.title)}</caption><tr>{head}</tr>{rows}</table>")
    for note in sec.notes:
        parts.append(f"<p class='note'>{escape(note)}</p>")
    for fig in sec.figures:
        data = base64.b64encode(figure_png(fig)).decode("ascii")
        parts.append(f"<img alt='{escape(fig.title)}' data-figure='{escape(fig.key)}' "
                     f"src='data:image/png;base64,{data}'>")
    if sec.gallery:
        parts.append(_gallery(sec.gallery))
    parts.append("</section>")
    return "".join(parts)


def _word_columns(columns: tuple[str, ...], rows: tuple[tuple, ...]) -> list[str]:
    """Per column, the cell attribute: words (a class, a reason) read from the left, figures stay right-aligned
    so their digits line up. A column is words when every cell that holds something is text but no number."""
    out = []
    for j in range(len(columns)):
        cells = [row[j] for row in rows if j < len(row) and row[j] not in (None, "", "n/a", "PENDING")]
        words = bool(cells) and all(isinstance(c, str) and not _figure(c) for c in cells)
        out.append(" class='text'" if words and j > 0 else "")
    return out


def _figure(text: str) -> bool:
    try:
        float(text.rstrip("%"))
    except ValueError:
        return False
    return True


def _gallery(thumbs: tuple[Thumbnail, ...]) -> str:
    """A grid of thumbnails; one that could not be had is its reason in a grey box (never a broken image)."""
    cells = []
    for thumb in thumbs:
        if thumb.png is not None:
            data = base64.b64encode(thumb.png).decode("ascii")
            picture = f"<img alt='{escape(thumb.caption)}' src='data:image/png;base64,{data}'>"
        else:
            picture = f"<div class='missing'>{escape(thumb.reason)}</div>"
        cells.append(f"<figure data-item='{escape(thumb.item)}'>{picture}<figcaption>{escape(thumb.caption)}"
                     "</figcaption></figure>")
    return f"<div class='grid'>{''.join(cells)}</div>"
