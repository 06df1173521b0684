"""Sphinx extension: above every exported code cell, say which file of the engine it
lands in, and for a definition that replaces an earlier one, say so and highlight the
lines that changed (as Crafting Interpreters does for its snippets)."""

from __future__ import annotations

import sys
from pathlib import Path

from docutils import nodes
from sphinx.application import Sphinx

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))

from literate.book import chapters, repository_root, stage_number  # noqa: E402
from literate.tangle import CellReport, Tangler  # noqa: E402


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


def caption(report: CellReport) -> nodes.paragraph:
    """The line shown above an exported cell."""
    paragraph = nodes.paragraph(classes=["exported-cell"])
    paragraph += nodes.Text("In ")
    paragraph += nodes.literal(text=report.target)
    if report.class_name:
        paragraph += nodes.Text(", inside class ")
        paragraph += nodes.literal(text=report.class_name)
    replaced = [change for change in report.changes if change.replaced_chapter]
    if replaced:
        paragraph += nodes.Text(", replacing ")
        for number, change in enumerate(replaced):
            if number:
                paragraph += nodes.Text(", ")
            paragraph += nodes.literal(text=change.name)
            paragraph += nodes.Text(f" from {stage_label(change.replaced_chapter)}")
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
    for container in list(doctree.findall(nodes.container)):
        if container.get("nb_element") != "cell_code":
            continue
        if not container.get("cell_metadata", {}).get("export"):
            continue
        report = reports.get((stage_id, container["cell_index"]))
        if report is None:
            continue
        container.parent.insert(container.parent.index(container), caption(report))
        if report.changed_lines:
            for block in container.findall(nodes.literal_block):
                block.setdefault("highlight_args", {})["hl_lines"] = report.changed_lines
                break


def setup(app: Sphinx) -> dict:
    app.connect("doctree-read", label_exported_cells)
    app.add_css_file("exported-cells.css")
    return {"parallel_read_safe": False, "parallel_write_safe": True}
