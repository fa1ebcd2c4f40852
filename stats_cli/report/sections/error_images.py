"""Confirmed errors, pictured: a thumbnail grid of the image items whose gold label differs from the original.

For an image project a table of task ids says little; the picture beside "original → gold" lets the lead
check each correction at a glance. The thumbnails are fetched when the report is built
(:mod:`stats_cli.sources.error_pictures`) and embedded in the HTML file; the other formats say where the grid is.
A project without image inputs has no grid (NOT APPLICABLE); one with no confirmed error yet, or built
without fetching the images, says PENDING; an image that could not be fetched is shown as its reason.
"""

from __future__ import annotations

from ..fmt import plural
from ..inputs import AuditData
from ..model import Section, Status, Thumbnail
from ..registry import BuildOptions, ReportSection
from stats_cli.sources.error_pictures import confirmed_errors

KEY, TITLE = "error_images", "Confirmed errors, pictured"
HTML_ONLY = "the thumbnail grid of the confirmed errors is in the HTML report (--format html)"


def error_images_section(data: AuditData) -> Section:
    """The grid (OK), or why there is none."""
    if not data.spec.image_fields:
        return ErrorImagesSection.not_applicable("the project has no image input")
    errors = confirmed_errors(data)
    sizes = {"confirmed errors": len(errors)}
    if not errors:
        return ErrorImagesSection.pending("no label error is confirmed by the experts yet", sizes=sizes)
    fetched = data.error_images
    if fetched is None:
        return ErrorImagesSection.pending(f"{HTML_ONLY}: the images are fetched from the source instance when "
                                          "it is built", sizes=sizes)
    if fetched.unavailable:
        return ErrorImagesSection.pending(f"the images could not be fetched from the source instance "
                                          f"({fetched.unavailable})", sizes=sizes)
    thumbs = []
    for item, gold in errors:
        got = fetched.images.get(str(item.id))
        caption = f"task {item.id}: {data.spec.task_family.show_answer(data.spec, item.original)} → " \
                  f"{data.spec.task_family.show_answer(data.spec, gold)}"
        if got is not None and got.png is not None:
            thumbs.append(Thumbnail(str(item.id), caption, png=got.png))
        else:
            thumbs.append(Thumbnail(str(item.id), caption, reason=f"image not available: "
                                    f"{got.reason if got is not None else 'not fetched'}"))
    missing = sum(1 for t in thumbs if t.png is None)
    sizes["pictured"] = len(thumbs) - missing
    notes = [f"Original label → gold label, {plural(len(thumbs), 'confirmed error')}; image input "
             f"{fetched.variable!r}, at most 160 px."]
    if missing:
        notes.append(f"{plural(missing, 'image')} could not be fetched from the source instance: each says why.")
    return Section(KEY, TITLE, Status.OK, sizes=sizes, notes=tuple(notes), gallery=tuple(thumbs),
                   values={"confirmed_errors": len(thumbs), "pictured": len(thumbs) - missing})


class ErrorImagesSection(ReportSection):
    key, title, order = KEY, TITLE, 31

    @classmethod
    def compute(cls, data: AuditData, options: BuildOptions) -> Section:
        return error_images_section(data)
