"""Sphinx extension: above every exported code cell, say which file of the engine it
lands in, and for a definition that replaces an earlier one, say so and highlight the
lines that changed (as Crafting Interpreters does for its snippets). An exported cell that
gets no caption fails the build: the page would hide where its code goes."""

from __future__ import annotations

import sys
from pathlib import Path

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.errors import ExtensionError

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))

from literate.book import chapters, repository_root, stage_number  # noqa: E402
from literate.tangle import CellReport, Change, Tangler  # noqa: E402

EXPORT_KEYS = ("export", "export-new")


def cell_reports(app: Sphinx) -> dict[tuple[str, int], CellReport]:
    """What tangling the whole book says about each exported cell, computed once a build."""
    if not hasattr(app, "_cb2026_reports"):
        tangler = Tangler()
        tangler.add_chapters(chapters(repository_root(Path(app.srcdir))))
        app._cb2026_reports = {(r.chapter, r.cell): r for r in tangler.reports}
    return app._cb2026_reports


def stage_label(stage_id: str) -> str:
    """ "stage-02-moves" as "chapter 2"."""
    return "chapter " + ".".join(map(str, stage_number(stage_id)))


def name_list(paragraph: nodes.paragraph, verb: str, changes: list[Change],
              chapter: str) -> None:
    """Appends ", removing `a` and `b` from chapter 2" and the like to a caption: the names
    grouped by the chapter they come from, in the order met; "from above" for names this
    `chapter` itself defined in an earlier cell."""
    if not changes:
        return
    groups: dict[str | None, list[Change]] = {}
    for change in changes:
        groups.setdefault(change.replaced_chapter, []).append(change)
    paragraph += nodes.Text(f", {verb} ")
    for group_number, (source, group) in enumerate(groups.items()):
        if group_number:
            paragraph += nodes.Text(", and ")
        for number, change in enumerate(group):
            if number:
                paragraph += nodes.Text(" and " if number == len(group) - 1 else ", ")
            if change.is_import:
                paragraph += nodes.Text("the import of ")
            paragraph += nodes.literal(text=change.renamed_from or change.name)
            if change.renamed_from:
                paragraph += nodes.Text(" as ")
                paragraph += nodes.literal(text=change.name)
        if source:
            paragraph += nodes.Text(" from above" if source == chapter
                                    else f" from {stage_label(source)}")


def caption(report: CellReport) -> nodes.paragraph:
    """The line shown above an exported cell."""
    paragraph = nodes.paragraph(classes=["exported-cell"])
    paragraph += nodes.Text("In the new module " if report.new_module else "In ")
    paragraph += nodes.literal(text=report.target)
    if report.class_name:
        paragraph += nodes.Text(", inside class ")
        paragraph += nodes.literal(text=report.class_name)
    name_list(paragraph, "removing", [change for change in report.changes if change.removed],
              report.chapter)
    name_list(paragraph, "renaming",
              [change for change in report.changes if change.renamed_from], report.chapter)
    replaced = [
        change
        for change in report.changes
        if change.replaced_chapter and not change.removed and not change.renamed_from
    ]
    name_list(paragraph, "replacing", replaced, report.chapter)
    if replaced or any(change.renamed_from for change in report.changes):
        paragraph += nodes.Text(
            " (changed lines highlighted)" if report.changed_lines else " (unchanged)"
        )
    paragraph += nodes.Text(":")
    return paragraph


def label_exported_cells(app: Sphinx, doctree: nodes.document) -> None:
    """Adds the captions and highlights to one chapter's page."""
    stage_id = Path(doctree.get("source", "")).stem
    if not stage_id.startswith("stage-"):
        return
    reports = cell_reports(app)
    expected = {cell for chapter, cell in reports if chapter == stage_id}
    for container in list(doctree.findall(nodes.container)):
        if container.get("nb_element") != "cell_code":
            continue
        metadata = container.get("cell_metadata", {})
        if not any(metadata.get(key) for key in EXPORT_KEYS):
            continue
        report = reports.get((stage_id, container["cell_index"]))
        if report is None:
            raise ExtensionError(
                f"{stage_id}.md: exported cell {container['cell_index']} gets no caption:"
                " the tangler has no report for it"
            )
        expected.discard(container["cell_index"])
        container.parent.insert(container.parent.index(container), caption(report))
        if report.changed_lines:
            for block in container.findall(nodes.literal_block):
                block.setdefault("highlight_args", {})["hl_lines"] = report.changed_lines
                break
    if expected:
        raise ExtensionError(
            f"{stage_id}.md: exported cells {sorted(expected)} get no caption:"
            " the page shows no exported cell at that index"
        )


def setup(app: Sphinx) -> dict:
    app.connect("doctree-read", label_exported_cells)
    app.add_css_file("exported-cells.css")
    return {"parallel_read_safe": False, "parallel_write_safe": True}
