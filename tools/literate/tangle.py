"""Tangling: the exported cells of the chapters become the modules of `src/cb2026/`.

A code cell is exported by its metadata: `export: board` sends its top-level definitions to
`src/cb2026/board.py`; `export: board.Position` sends the functions and constants it holds
into class `Position` of that module. A definition is a function, a class, a constant (an
assignment) or the module docstring; each is known by its name. Definitions land in book
order; one that a later cell defines again replaces the earlier one in place. Imports are
gathered at the top of the module, merged and sorted.
"""

from __future__ import annotations

import ast
import difflib
import textwrap
from dataclasses import dataclass, field

from literate.book import Chapter
from literate.imports import ImportBlock

PACKAGE = "cb2026"
DOCSTRING = "__doc__"
MAIN_GUARD = "__main__"  # an `if __name__ == "__main__":` block, always last in its module


class TangleError(Exception):
    """A cell that cannot be tangled; the message names the chapter and the cell."""


@dataclass
class Piece:
    """One definition: its source text and where in the book it comes from."""

    name: str
    source: str
    chapter: str
    cell: int
    kind: str  # "def", "class", "main", "assign" or "doc"
    blank_before: int = 1  # blank lines above it in its cell (kept between constants)
    members: dict[str, Piece] = field(default_factory=dict)  # a class's body

    def is_block(self) -> bool:
        """Whether PEP 8 wants two blank lines around it (a function or a class)."""
        return self.kind in ("def", "class", "main")


@dataclass
class Change:
    """What one definition of a cell does: adds a new name or replaces an earlier one."""

    name: str
    replaced_chapter: str | None  # None for a new definition


@dataclass
class CellReport:
    """What tangling made of one exported cell, for the rendered book."""

    chapter: str
    cell: int
    target: str  # "src/cb2026/board.py"
    class_name: str | None
    changes: list[Change]
    changed_lines: list[int]  # 1-based lines of the cell that differ from what they replace


@dataclass
class Module:
    """A module being assembled: its imports and definitions in book order."""

    name: str
    imports: ImportBlock = field(default_factory=ImportBlock)
    pieces: dict[str, Piece] = field(default_factory=dict)
    chapters: list[str] = field(default_factory=list)


def cell_error(chapter: str, cell: int, message: str) -> TangleError:
    """A TangleError that says where the problem is."""
    return TangleError(f"{chapter}, cell {cell}: {message}")


def statement_names(node: ast.stmt) -> list[str] | None:
    """The names a top-level statement defines, or None if it defines nothing placeable."""
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return [node.name]
    if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
        return [node.target.id]
    if isinstance(node, ast.Assign):
        names = []
        for target in node.targets:
            elements = target.elts if isinstance(target, ast.Tuple) else [target]
            if not all(isinstance(element, ast.Name) for element in elements):
                return None
            names.extend(element.id for element in elements)
        return names
    if is_main_guard(node):
        return [MAIN_GUARD]
    if isinstance(node, getattr(ast, "TypeAlias", ())):  # `type X = ...`, Python 3.12+
        return [node.name.id]
    return None


def is_main_guard(node: ast.stmt) -> bool:
    """Whether a statement is `if __name__ == "__main__": ...`."""
    return (
        isinstance(node, ast.If)
        and isinstance(node.test, ast.Compare)
        and isinstance(node.test.left, ast.Name)
        and node.test.left.id == "__name__"
        and len(node.test.comparators) == 1
        and isinstance(node.test.comparators[0], ast.Constant)
        and node.test.comparators[0].value == "__main__"
    )


def is_docstring(node: ast.stmt) -> bool:
    """Whether a statement is a bare string literal (a docstring)."""
    return (
        isinstance(node, ast.Expr)
        and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, str)
    )


def statement_kind(node: ast.stmt) -> str:
    """The kind of a placeable statement: "def", "class", "main", "assign" or "doc"."""
    if is_main_guard(node):
        return "main"
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
        return "def"
    if isinstance(node, ast.ClassDef):
        return "class"
    return "doc" if is_docstring(node) else "assign"


def first_line(node: ast.stmt) -> int:
    """The first line of a statement, counting its decorators."""
    decorators = getattr(node, "decorator_list", [])
    return min([node.lineno, *(decorator.lineno for decorator in decorators)])


def split_statements(lines: list[str], body: list[ast.stmt]) -> list[tuple[ast.stmt, int, int]]:
    """Each statement with its line span (1-based, inclusive); comments just above a
    statement belong to it."""
    spans = []
    previous_end = 0
    for node in body:
        start = first_line(node)
        # Comment lines directly above (no blank line between) travel with the statement.
        while start - 1 > previous_end and lines[start - 2].strip().startswith("#"):
            start -= 1
        spans.append((node, start, node.end_lineno or start))
        previous_end = node.end_lineno or start
    return spans


def blank_lines_between(lines: list[str], previous_end: int, start: int) -> int:
    """How many blank lines lie between line `previous_end` and line `start` (1-based)."""
    return sum(1 for line in lines[previous_end : start - 1] if not line.strip())


def text_of(lines: list[str], start: int, end: int) -> str:
    """Lines start..end (1-based, inclusive), dedented."""
    return textwrap.dedent("\n".join(lines[start - 1 : end])).rstrip() + "\n"


class Tangler:
    """Assembles modules from the exported cells of chapters, in order."""

    def __init__(self) -> None:
        self.modules: dict[str, Module] = {}
        self.reports: list[CellReport] = []

    def add_chapters(self, chapters: list[Chapter]) -> None:
        """Tangles every exported cell of the chapters, in order."""
        for chapter in chapters:
            for index, cell in enumerate(chapter.cells()):
                target = cell.metadata.get("export")
                if cell.cell_type == "code" and target:
                    self.add_cell(chapter.stage_id, index, cell.source, str(target))

    def add_cell(self, chapter: str, cell: int, source: str, target: str) -> CellReport:
        """Tangles one cell into `target` ("board" or "board.Position")."""
        module_name, _, class_name = target.partition(".")
        if not module_name.isidentifier() or (class_name and not class_name.isidentifier()):
            raise cell_error(chapter, cell, f"unknown export target {target!r}")
        try:
            tree = ast.parse(source)
        except SyntaxError as error:
            raise cell_error(
                chapter, cell, f"syntax error on line {error.lineno}: {error.msg}"
            ) from None
        module = self.modules.setdefault(module_name, Module(module_name))
        if chapter not in module.chapters:
            module.chapters.append(chapter)
        lines = source.splitlines()
        changes: list[Change] = []
        changed_lines: list[int] = []
        if class_name:
            owner = module.pieces.get(class_name)
            if owner is None or owner.kind != "class":
                raise cell_error(
                    chapter, cell, f"no class {class_name!r} in {module_name} to add methods to"
                )
            place_into = owner.members
        else:
            place_into = module.pieces
        previous_end = 0
        for node, start, end in split_statements(lines, tree.body):
            blank_before = blank_lines_between(lines, previous_end, start)
            previous_end = end
            if isinstance(node, ast.Import | ast.ImportFrom) and not class_name:
                module.imports.add(node)
                continue
            names = statement_names(node)
            if is_docstring(node):
                names = [DOCSTRING]
            if names is None:
                raise cell_error(
                    chapter,
                    cell,
                    f"line {node.lineno}: only functions, classes, constants and imports can be"
                    f" exported, not {type(node).__name__}",
                )
            piece = Piece(
                "/".join(names),
                text_of(lines, start, end),
                chapter,
                cell,
                statement_kind(node),
                blank_before,
            )
            if isinstance(node, ast.ClassDef):
                piece.source, piece.members = self.split_class(piece, lines, node, start)
            old = place_into.get(piece.name)
            if old is not None and piece.kind == "class" and old.kind == "class":
                # A class shown again keeps the members it does not show.
                piece.members = {**old.members, **piece.members}
            place_into[piece.name] = piece
            changes.append(Change(piece.name, old.chapter if old else None))
            if old is not None:
                changed_lines += changed_line_numbers(old, piece, start)
        report = CellReport(
            chapter,
            cell,
            f"src/{PACKAGE}/{module_name}.py",
            class_name or None,
            changes,
            sorted(set(changed_lines)),
        )
        self.reports.append(report)
        return report

    def split_class(
        self, piece: Piece, lines: list[str], node: ast.ClassDef, start: int
    ) -> tuple[str, dict[str, Piece]]:
        """A class's header (decorators and `class` line) and its members by name."""
        body = node.body
        header = text_of(lines, start, body[0].lineno - 1 if body else node.end_lineno)
        members: dict[str, Piece] = {}
        previous_end = 0
        for member, member_start, member_end in split_statements(lines, body):
            blank_before = blank_lines_between(lines, previous_end, member_start)
            previous_end = member_end
            names = [DOCSTRING] if is_docstring(member) else statement_names(member)
            if isinstance(member, ast.Pass):
                continue
            if names is None:
                raise cell_error(
                    piece.chapter,
                    piece.cell,
                    f"line {member.lineno}: a class body may hold only methods and constants",
                )
            name = "/".join(names)
            members[name] = Piece(
                name,
                text_of(lines, member_start, member_end),
                piece.chapter,
                piece.cell,
                statement_kind(member),
                blank_before,
            )
        return header, members

    def render(self) -> dict[str, str]:
        """The text of every module, by file name."""
        return {f"{name}.py": render_module(module) for name, module in self.modules.items()}


def changed_line_numbers(old: Piece, new: Piece, start: int) -> list[int]:
    """Lines of the new definition (as cell line numbers) that the old one did not have."""
    old_lines = full_source(old).splitlines()
    new_lines = full_source(new).splitlines()
    if new.kind == "class":
        # Only the header and the members the cell shows are on the page.
        old_lines = [*old.source.splitlines(), *members_text(old, set(new.members)).splitlines()]
        new_lines = new.source.splitlines() + members_text(new, set(new.members)).splitlines()
    matcher = difflib.SequenceMatcher(a=old_lines, b=new_lines, autojunk=False)
    changed = []
    for tag, _, _, b_start, b_end in matcher.get_opcodes():
        if tag in ("replace", "insert"):
            changed.extend(start + line for line in range(b_start, b_end))
    return [line for line in changed if new_lines[line - start].strip()]


def members_text(piece: Piece, names: set[str]) -> str:
    """The source of a class's members with the given names, indented, one after another."""
    return "".join(
        textwrap.indent(member.source, "    ")
        for name, member in piece.members.items()
        if name in names
    )


def full_source(piece: Piece) -> str:
    """The complete source of a definition, with a class's members inside it."""
    if piece.kind != "class":
        return piece.source
    return piece.source + join_pieces(list(piece.members.values()), blank_lines=1, indent="    ")


def join_pieces(pieces: list[Piece], blank_lines: int, indent: str = "") -> str:
    """Definitions one after another, with PEP 8's blank lines between them."""
    text = ""
    previous: Piece | None = None
    for piece in pieces:
        if previous is not None:
            if piece.is_block() or previous.is_block():
                gap = blank_lines
            elif previous.cell == piece.cell and previous.chapter == piece.chapter:
                gap = min(piece.blank_before, 1)
            else:
                gap = 1
            text += "\n" * gap
        text += textwrap.indent(full_source(piece), indent, lambda line: bool(line.strip()))
        previous = piece
    return text


def eager_names(piece: Piece) -> set[str]:
    """The names a definition needs when the module is imported (not when it is called):
    everything a constant's value mentions, a function's decorators and defaults."""
    tree = ast.parse(full_source(piece)).body[0]
    if piece.name == MAIN_GUARD:
        return set()
    if isinstance(tree, ast.FunctionDef | ast.AsyncFunctionDef):
        roots: list[ast.AST] = [*tree.decorator_list, *tree.args.defaults]
    elif isinstance(tree, ast.ClassDef):
        roots = [*tree.decorator_list, *tree.bases]
    else:
        roots = [tree]
    return {
        node.id
        for root in roots
        for node in ast.walk(root)
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)
    }


def import_order(pieces: list[Piece]) -> list[Piece]:
    """The definitions in book order, except that a definition which needs, at import time,
    a name defined further down (a replaced table naming a later function) moves below it."""
    # The main guard runs the module, so everything else must be defined above it.
    ordered = [piece for piece in pieces if piece.name != MAIN_GUARD]
    ordered += [piece for piece in pieces if piece.name == MAIN_GUARD]
    moved = True
    while moved:
        moved = False
        position_of = {
            name: index for index, piece in enumerate(ordered) for name in piece.name.split("/")
        }
        for index, piece in enumerate(ordered):
            later = [position_of[name] for name in eager_names(piece) if name in position_of]
            if later and max(later) > index:
                ordered.insert(max(later), ordered.pop(index))
                moved = True
                break
    return ordered


def render_module(module: Module) -> str:
    """The text of a generated module."""
    header = (
        textwrap.fill(
            "Generated from the book by tools/literate, from chapters "
            + ", ".join(module.chapters)
            + ".",
            width=98,
            initial_indent="# ",
            subsequent_indent="# ",
        )
        + "\n# Do not edit: change the chapters and run `make tangle`.\n"
    )
    pieces = import_order(list(module.pieces.values()))
    docstring = module.pieces.get(DOCSTRING)
    parts = [header]
    if docstring is not None:
        pieces.remove(docstring)
        parts.append(docstring.source)
    imports = module.imports.render(used_names(pieces))
    if imports:
        parts.append(imports)
    body = join_pieces(pieces, blank_lines=2)
    if body:
        # Two blank lines after the imports when a function or class follows, else one.
        gap = "\n\n" if pieces[0].is_block() else "\n"
        return "\n".join(parts) + gap + body
    return "\n".join(parts)


def used_names(pieces: list[Piece]) -> set[str]:
    """Every name the definitions mention (so that imports nobody uses can be left out)."""
    names: set[str] = set()
    for piece in pieces:
        for node in ast.walk(ast.parse(full_source(piece))):
            if isinstance(node, ast.Name):
                names.add(node.id)
            elif isinstance(node, ast.Constant) and isinstance(node.value, str):
                # A quoted annotation such as "Position" still needs its import.
                names.update(node.value.replace("[", " ").replace("]", " ").split())
    return names


def tangle(chapters: list[Chapter]) -> dict[str, str]:
    """The modules of the package tangled from the chapters, by file name."""
    tangler = Tangler()
    tangler.add_chapters(chapters)
    modules = tangler.render()
    modules.setdefault("__init__.py", '"""The cb2026 chess engine."""\n')
    return modules
