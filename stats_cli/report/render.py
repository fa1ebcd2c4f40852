"""Text renderers: a rich table for the terminal, JSON for machines, Markdown for issues and wikis."""

from __future__ import annotations

import io
import json

from rich.console import Console

from backend.api import plain
from rich.table import Table as RichTable

from .fmt import data_notes, format_row, sizes_line, status_line
from .model import Report, Status

FORMATS = ("table", "json", "md", "html")
GALLERY_ELSEWHERE = "the thumbnail grid of these items is in the HTML report (--format html)"


def render(report: Report, *, fmt: str = "table") -> str:
    """Render ``report`` in one of :data:`FORMATS`."""
    if fmt == "table":
        return render_table(report)
    if fmt == "json":
        return render_json(report)
    if fmt == "md":
        return render_markdown(report)
    if fmt == "html":
        # heavy: the HTML report draws its plots with matplotlib, not loaded by audit-stats --help
        from .html import render_html  # matplotlib is only imported when HTML is asked for

        return render_html(report)
    raise ValueError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")


def render_json(report: Report) -> str:
    return json.dumps(report.to_json(), indent=2, ensure_ascii=False)


def render_table(report: Report, *, width: int = 120) -> str:
    """The terminal view; rich writes into a string so the CLI decides where it goes."""
    buf = io.StringIO()
    console = Console(file=buf, width=width, force_terminal=False, color_system=None)
    # everything below may quote data (labels, ids, server notes): printed as text, never markup or escapes
    console.print(f"[bold]Label audit report — project {plain(report.project)}[/bold]  ({plain(report.generated_at)})")
    for note in data_notes(dict(report.meta)):
        console.print(f"data note: {plain(note)}", highlight=False)
    for sec in report.sections:
        console.rule(plain(sec.heading))
        if line := sizes_line(sec):
            console.print(f"sample sizes: {plain(line)}", highlight=False)
        if sec.status is not Status.OK:
            console.print(plain(status_line(sec)), highlight=False)
            continue
        for table in sec.tables:
            grid = RichTable(title=plain(table.title), show_lines=False)
            for col in table.columns:
                grid.add_column(plain(col))
            for row in table.rows:
                grid.add_row(*(plain(c) for c in format_row(table, row)))
            console.print(grid)
        for note in sec.notes:
            console.print(f"note: {plain(note)}", highlight=False)
        if sec.gallery:
            console.print(f"note: {GALLERY_ELSEWHERE}", highlight=False)
    return buf.getvalue()


def render_markdown(report: Report) -> str:
    out = [f"# Label audit report — project {report.project}", "", f"_Generated {report.generated_at}_", ""]
    out += [f"- data note: {_md(note)}" for note in data_notes(dict(report.meta))]
    for sec in report.sections:
        out += [f"## {sec.heading}", ""]
        if line := sizes_line(sec):
            out += [f"Sample sizes: {line}", ""]
        if sec.status is not Status.OK:
            out += [f"**{status_line(sec)}**", ""]
            continue
        for table in sec.tables:
            out += [f"**{_md(table.title)}**", "", "| " + " | ".join(_md(c) for c in table.columns) + " |",
                    "|" + "---|" * len(table.columns)]
            out += ["| " + " | ".join(_md(c) for c in format_row(table, row)) + " |" for row in table.rows]
            out.append("")
        out += [f"> {note}" for note in sec.notes]
        if sec.notes:
            out.append("")
        if sec.gallery:
            out += [f"_{GALLERY_ELSEWHERE[:1].upper()}{GALLERY_ELSEWHERE[1:]}._", ""]
    return "\n".join(out)


def _md(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")
