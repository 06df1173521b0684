"""Tangling: the exported cells of the chapters become the modules of `src/cb2026/`.

A code cell is exported by its metadata: `export: board` sends its top-level definitions to
`src/cb2026/board.py`; `export: board.Position` sends the functions and constants it holds
into class `Position` of that module. A definition is a function, a class, a constant (an
assignment) or the module docstring; each is known by its name. Definitions land in book
order; one that a later cell defines again replaces the earlier one in place, and a cell can
remove or rename earlier ones explicitly (`remove: name`, `rename: old new`). A module exists
once a cell declares it with `export-new: board`, so that a misspelt `export:` is an error.
Imports are gathered at the top of the module, merged and sorted.
"""

from __future__ import annotations

import ast
import difflib
import io
import re
import textwrap
import tokenize
from collections.abc import Iterator
from dataclasses import dataclass, field

from literate.book import Chapter, CodeCell
from literate.imports import LINE_LENGTH, ImportBlock

PACKAGE = "cb2026"
DOCSTRING = "__doc__"
MAIN_GUARD = "__main__"  # an `if __name__ == "__main__":` block, always last in its module
INIT = "__init__"  # the package's own module, which re-exports everything it imports
ALL = "__all__"
# The comment that keeps an import nobody uses (a side effect, a re-export), as ruff reads it.
KEEP_IMPORT = re.compile(r"#\s*noqa(?!:)|#\s*noqa:[^#]*\bF401\b")


class TangleError(Exception):
    """A cell that cannot be tangled; the message names the chapter file and the line."""


@dataclass
class Piece:
    """One definition: its source text and where in the book it comes from."""

    name: str
    source: str
    chapter: str
    cell: int
    kind: str  # "def", "class", "main", "assign" or "doc"
    line: int = 1  # where it starts in the chapter's file
    blank_before: int = 1  # blank lines above it in its cell (kept between constants)
    members: dict[str, Piece] = field(default_factory=dict)  # a class's body

    def is_block(self) -> bool:
        """Whether PEP 8 wants two blank lines around it (a function or a class)."""
        return self.kind in ("def", "class", "main")


@dataclass
class Change:
    """What a cell does to one name: adds it, replaces it, renames or removes it."""

    name: str
    replaced_chapter: str | None  # None for a new definition (or a removed import)
    renamed_from: str | None = None  # `rename: old new`: the old name `name` replaces
    removed: bool = False  # `remove: name`
    is_import: bool = False  # the name was bound by an import, not a definition


@dataclass
class CellReport:
    """What tangling made of one exported cell, for the rendered book."""

    chapter: str
    cell: int
    target: str  # "src/cb2026/board.py"
    class_name: str | None
    changes: list[Change]
    changed_lines: list[int]  # 1-based lines of the cell that differ from what they replace
    new_module: bool = False  # the cell declares its module (`export-new:`)


@dataclass
class Module:
    """A module being assembled: its imports and definitions in book order."""

    name: str
    imports: ImportBlock = field(default_factory=ImportBlock)
    pieces: dict[str, Piece] = field(default_factory=dict)
    chapters: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Place:
    """Where a cell is: its chapter, its index and the line of the chapter's file where its
    source begins (so that line n of the cell is line first_line + n - 1 of the file)."""

    chapter: str
    cell: int
    first_line: int = 1
    fence_line: int | None = None  # the ```{code-cell} line, where the metadata is

    def line(self, cell_line: int) -> int:
        """The line of the chapter's file that is line `cell_line` of the cell."""
        return self.first_line + cell_line - 1

    def error(self, cell_line: int | None, message: str) -> TangleError:
        """A TangleError naming the chapter file and the line (the fence's if None)."""
        line = self.line(cell_line) if cell_line else self.fence_line or self.first_line
        return TangleError(f"{where(self.chapter, line)} (cell {self.cell}): {message}")


def where(chapter: str, line: int) -> str:
    """ "stage-01-board.md, line 12"."""
    return f"{chapter}.md, line {line}"


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


def metadata_names(place: Place, value: object, key: str) -> list[str]:
    """The names of a `remove:` or `rename:` entry: a string of names or a list of them."""
    items = value if isinstance(value, list) else [value]
    names = [name for item in items for name in str(item).split()]
    if not all(name.isidentifier() for name in names):
        raise place.error(None, f"`{key}:` takes names, not {value!r}")
    return names


def comment_lines(source: str) -> dict[int, str]:
    """The comments of a cell's source by line (1-based)."""
    tokens = tokenize.generate_tokens(io.StringIO(source).readline)
    return {token.start[0]: token.string for token in tokens if token.type == tokenize.COMMENT}


class Tangler:
    """Assembles modules from the exported cells of chapters, in order."""

    def __init__(self, undeclared_modules_allowed: bool = False) -> None:
        self.modules: dict[str, Module] = {}
        self.reports: list[CellReport] = []
        # Only unit tests of the tangler itself leave modules undeclared.
        self.undeclared_modules_allowed = undeclared_modules_allowed
        self.declared_at: dict[str, str] = {}  # module name: where its `export-new:` is

    def add_chapters(self, chapters: list[Chapter]) -> None:
        """Tangles every exported cell of the chapters, in order."""
        for chapter in chapters:
            for cell in chapter.code_cells():
                self.add_code_cell(chapter.stage_id, cell)

    def add_code_cell(self, chapter: str, cell: CodeCell) -> CellReport | None:
        """Tangles one code cell of a chapter as its metadata says (if it is exported)."""
        place = Place(chapter, cell.index, cell.first_line, cell.fence_line)
        metadata = cell.metadata
        if "export" in metadata and "export-new" in metadata:
            raise place.error(None, "a cell has either `export:` or `export-new:`, not both")
        target = metadata.get("export-new") or metadata.get("export")
        if not target:
            for key in ("remove", "rename"):
                if key in metadata:
                    raise place.error(None, f"`{key}:` needs `export:` to say which module")
            return None
        renames = metadata_names(place, metadata.get("rename", []), "rename")
        if len(renames) % 2:
            raise place.error(None, "`rename:` takes pairs of names: `rename: old new`")
        return self.add_cell(
            chapter,
            cell.index,
            cell.source,
            str(target),
            place=place,
            new_module="export-new" in metadata,
            remove=metadata_names(place, metadata.get("remove", []), "remove"),
            rename=list(zip(renames[::2], renames[1::2], strict=True)),
        )

    def module_for(self, place: Place, module_name: str, new_module: bool) -> Module:
        """The module a cell exports to, which must have been declared (or be declared by
        this cell)."""
        here = where(place.chapter, place.fence_line or place.first_line)
        if new_module:
            if module_name in self.declared_at or module_name in self.modules:
                earlier = self.declared_at.get(module_name, "an earlier cell")
                raise place.error(None, f"module {module_name!r} is already declared ({earlier})")
            self.declared_at[module_name] = here
        elif module_name not in self.declared_at and not self.undeclared_modules_allowed:
            close = difflib.get_close_matches(module_name, list(self.declared_at), n=1)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            raise place.error(
                None,
                f"module {module_name!r} is not declared: the first cell of a module says"
                f" `export-new: {module_name}`{hint}",
            )
        return self.modules.setdefault(module_name, Module(module_name))

    def add_cell(
        self,
        chapter: str,
        cell: int,
        source: str,
        target: str,
        *,
        place: Place | None = None,
        new_module: bool = False,
        remove: list[str] | None = None,
        rename: list[tuple[str, str]] | None = None,
    ) -> CellReport:
        """Tangles one cell into `target` ("board" or "board.Position")."""
        place = place or Place(chapter, cell)
        module_name, _, class_name = target.partition(".")
        if not module_name.isidentifier() or (class_name and not class_name.isidentifier()):
            raise place.error(None, f"unknown export target {target!r}")
        if new_module and class_name:
            raise place.error(None, "`export-new:` declares a module, not a class")
        try:
            tree = ast.parse(source)
        except SyntaxError as error:
            raise place.error(error.lineno, f"syntax error: {error.msg}") from None
        module = self.module_for(place, module_name, new_module)
        if chapter not in module.chapters:
            module.chapters.append(chapter)
        lines = source.splitlines()
        if class_name:
            owner = module.pieces.get(class_name)
            if owner is None or owner.kind != "class":
                raise place.error(
                    None, f"no class {class_name!r} in {module_name} to add methods to"
                )
            place_into = owner.members
        else:
            place_into = module.pieces
        changes = self.remove_and_rename(place, module, place_into, remove or [], rename or [])
        renamed = {change.name: change for change in changes if change.renamed_from}
        changed_lines: list[int] = []
        placed_lines: set[int] = set()  # the lines whose comments land in the module
        previous_end = 0
        for node, start, end in split_statements(lines, tree.body):
            blank_before = blank_lines_between(lines, previous_end, start)
            previous_end = end
            if isinstance(node, ast.Import | ast.ImportFrom) and not class_name:
                statement_text = "\n".join(lines[node.lineno - 1 : node.end_lineno])
                keep = bool(KEEP_IMPORT.search(statement_text))
                try:
                    module.imports.add(node, keep=keep)
                except ValueError as error:
                    raise place.error(node.lineno, str(error)) from None
                if keep:
                    placed_lines.update(range(node.lineno, (node.end_lineno or 0) + 1))
                for alias in node.names:
                    bound = alias.asname or alias.name
                    if isinstance(node, ast.Import):
                        bound = bound.split(".")[0]
                    if bound in renamed and renamed[bound].is_import:
                        del renamed[bound]
                continue
            names = statement_names(node)
            if is_docstring(node):
                names = [DOCSTRING]
            if names is None:
                raise place.error(
                    node.lineno,
                    "only functions, classes, constants and imports can be"
                    f" exported, not {type(node).__name__}",
                )
            piece = Piece(
                "/".join(names),
                text_of(lines, start, end),
                chapter,
                cell,
                statement_kind(node),
                place.line(start),
                blank_before,
            )
            if isinstance(node, ast.ClassDef):
                piece.source, piece.members, class_lines = self.split_class(
                    piece, place, lines, node, start
                )
                placed_lines |= class_lines
            else:
                placed_lines.update(range(start, end + 1))
            old = place_into.get(piece.name)
            if old is not None and piece.kind == "class" and old.kind == "class":
                # A class shown again keeps the members it does not show.
                piece.members = {**old.members, **piece.members}
            place_into[piece.name] = piece
            if piece.name in renamed:
                renamed.pop(piece.name)
            elif not any(change.name == piece.name for change in changes):
                changes.append(Change(piece.name, old.chapter if old else None))
            if old is not None:
                changed_lines += changed_line_numbers(old, piece, start)
        for line, comment in sorted(comment_lines(source).items()):
            if line not in placed_lines:
                raise place.error(
                    line,
                    f"comment {comment!r} cannot be placed: put it directly above a"
                    " definition (no blank line between) or inside one",
                )
        for name, change in renamed.items():
            raise place.error(
                None, f"`rename: {change.renamed_from} {name}` but the cell defines no {name!r}"
            )
        report = CellReport(
            chapter,
            cell,
            f"src/{PACKAGE}/{module_name}.py",
            class_name or None,
            changes,
            sorted(set(changed_lines)),
            new_module,
        )
        self.reports.append(report)
        return report

    def remove_and_rename(
        self,
        place: Place,
        module: Module,
        place_into: dict[str, Piece],
        remove: list[str],
        rename: list[tuple[str, str]],
    ) -> list[Change]:
        """Applies a cell's `remove:` and `rename:` before its definitions are placed.

        A renamed definition keeps its place under the new name, for the cell's definition
        of that name to replace; a renamed import is dropped, for the cell's import of the
        new name to take its place."""
        changes = []
        is_module_level = place_into is module.pieces
        for name in remove:
            old = place_into.pop(name, None)
            if old is not None:
                changes.append(Change(name, old.chapter, removed=True))
            elif is_module_level and module.imports.remove(name):
                changes.append(Change(name, None, removed=True, is_import=True))
            else:
                raise place.error(None, f"`remove: {name}` but there is no {name!r} to remove")
        for old_name, new_name in rename:
            if new_name in place_into:
                raise place.error(
                    None, f"`rename: {old_name} {new_name}` but {new_name!r} already exists"
                )
            old = place_into.get(old_name)
            if old is not None:
                renamed = {
                    (new_name if key == old_name else key): piece
                    for key, piece in place_into.items()
                }
                place_into.clear()
                place_into.update(renamed)
                changes.append(Change(new_name, old.chapter, renamed_from=old_name))
            elif is_module_level and module.imports.remove(old_name):
                changes.append(Change(new_name, None, renamed_from=old_name, is_import=True))
            else:
                raise place.error(
                    None, f"`rename: {old_name} {new_name}` but there is no {old_name!r}"
                )
        return changes

    def split_class(
        self, piece: Piece, place: Place, lines: list[str], node: ast.ClassDef, start: int
    ) -> tuple[str, dict[str, Piece], set[int]]:
        """A class's header (decorators and `class` line), its members by name and the cell
        lines that land in the module."""
        body = node.body
        spans = split_statements(lines, body)
        header_end = spans[0][1] - 1 if spans else node.end_lineno or start
        header = text_of(lines, start, header_end)
        placed = set(range(start, header_end + 1))
        members: dict[str, Piece] = {}
        previous_end = 0
        for member, member_start, member_end in spans:
            blank_before = blank_lines_between(lines, previous_end, member_start)
            previous_end = member_end
            names = [DOCSTRING] if is_docstring(member) else statement_names(member)
            if isinstance(member, ast.Pass):
                continue
            if names is None:
                raise place.error(
                    member.lineno, "a class body may hold only methods and constants"
                )
            name = "/".join(names)
            members[name] = Piece(
                name,
                text_of(lines, member_start, member_end),
                piece.chapter,
                piece.cell,
                statement_kind(member),
                place.line(member_start),
                blank_before,
            )
            placed.update(range(member_start, member_end + 1))
        return header, members, placed

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
    if not piece.members:
        return piece.source + "    pass\n"
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


def loaded_names(roots: list[ast.AST]) -> set[str]:
    """The names read anywhere inside the given expressions or statements."""
    return {
        node.id
        for root in roots
        for node in ast.walk(root)
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)
    }


def statement_eager_names(node: ast.stmt) -> set[str]:
    """The names a statement reads when it runs (not when a function it defines is called).

    A function reads its decorators and default values; a class its decorators, bases and
    keywords and, in its body, what its members read (less the names the body defines
    first). Annotations are not read: the modules use `from __future__ import annotations`.
    """
    if is_main_guard(node):
        return set()
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
        defaults = [*node.args.defaults, *(value for value in node.args.kw_defaults if value)]
        return loaded_names([*node.decorator_list, *defaults])
    if isinstance(node, ast.ClassDef):
        keywords = [keyword.value for keyword in node.keywords]
        names = loaded_names([*node.decorator_list, *node.bases, *keywords])
        defined_in_body: set[str] = set()
        for member in node.body:
            names |= statement_eager_names(member) - defined_in_body
            defined_in_body.update(statement_names(member) or [])
        return names
    if isinstance(node, ast.AnnAssign):
        return loaded_names([node.value] if node.value else [])
    return loaded_names([node])


def eager_names(piece: Piece) -> set[str]:
    """The names a definition needs when the module is imported (not when it is called)."""
    if piece.name == MAIN_GUARD:
        return set()
    return statement_eager_names(ast.parse(full_source(piece)).body[0])


def dependency_cycle(pieces: list[Piece]) -> list[Piece] | None:
    """Definitions that need one another at import time, in a ring, or None if none do."""
    owner = {name: piece for piece in pieces for name in piece.name.split("/")}
    needs = {
        id(piece): [
            owner[name]
            for name in sorted(eager_names(piece))
            if owner.get(name, piece) is not piece
        ]
        for piece in pieces
    }
    state: dict[int, str] = {}  # "open" while on the path being explored, then "done"
    path: list[Piece] = []

    def visit(piece: Piece) -> list[Piece] | None:
        state[id(piece)] = "open"
        path.append(piece)
        for needed in needs[id(piece)]:
            if state.get(id(needed)) == "open":
                return path[path.index(needed) :]
            if id(needed) not in state:
                found = visit(needed)
                if found:
                    return found
        path.pop()
        state[id(piece)] = "done"
        return None

    for piece in pieces:
        if id(piece) not in state:
            found = visit(piece)
            if found:
                return found
    return None


def import_order(pieces: list[Piece]) -> list[Piece]:
    """The definitions in book order, except that a definition which needs, at import time,
    a name defined further down (a replaced table naming a later function) moves below it."""
    cycle = dependency_cycle(pieces)
    if cycle:
        ring = " needs ".join(
            f"{piece.name} ({where(piece.chapter, piece.line)})" for piece in [*cycle, cycle[0]]
        )
        raise TangleError(f"definitions need each other when the module is imported: {ring}")
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
            width=LINE_LENGTH,
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
    # The package's __init__ imports in order to re-export, so it keeps all its imports.
    imports = module.imports.render(used_names(pieces), keep_all=module.name == INIT)
    if imports:
        parts.append(imports)
    body = join_pieces(pieces, blank_lines=2)
    if body:
        # Two blank lines after the imports when a function or class follows, else one.
        gap = "\n\n" if pieces[0].is_block() else "\n"
        return "\n".join(parts) + gap + body
    return "\n".join(parts)


def names_in_string(text: str) -> set[str]:
    """The names a quoted annotation such as "dict[str, Position]" mentions."""
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError:
        return set(re.findall(r"[A-Za-z_]\w*", text))
    return {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)} | {
        name
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
        for name in names_in_string(node.value)
    }


def is_cast(node: ast.AST) -> bool:
    """Whether a node is `cast(type, value)`, whose type may be quoted like an annotation."""
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "cast"
        and bool(node.args)
    )


def annotations_in(tree: ast.AST) -> list[ast.AST]:
    """Every annotation in a definition, and the type given to `cast(...)`."""
    found: list[ast.AST | None] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.arg):
            found.append(node.annotation)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            found.append(node.returns)
        elif isinstance(node, ast.AnnAssign):
            found.append(node.annotation)
        elif is_cast(node):
            found.append(node.args[0])
    return [annotation for annotation in found if annotation is not None]


def used_names(pieces: list[Piece]) -> set[str]:
    """Every name the definitions mention (so that imports nobody uses can be left out),
    counting names in quoted annotations and the names a module's `__all__` exports."""
    names: set[str] = set()
    for piece in pieces:
        tree = ast.parse(full_source(piece))
        names |= {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)}
        quoted = [
            node
            for annotation in annotations_in(tree)
            for node in ast.walk(annotation)
            if isinstance(node, ast.Constant) and isinstance(node.value, str)
        ]
        if piece.name == ALL:
            quoted = [
                node
                for node in ast.walk(tree)
                if isinstance(node, ast.Constant) and isinstance(node.value, str)
            ]
        for node in quoted:
            names |= names_in_string(node.value)
    return names


def package_modules(tangler: Tangler) -> dict[str, str]:
    """The modules of the package as the tangler holds them now, by file name."""
    modules = tangler.render()
    modules.setdefault(f"{INIT}.py", '"""The cb2026 chess engine."""\n')
    return modules


def tangle(chapters: list[Chapter]) -> dict[str, str]:
    """The modules of the package tangled from the chapters, by file name."""
    tangler = Tangler()
    tangler.add_chapters(chapters)
    return package_modules(tangler)


def tangle_stages(chapters: list[Chapter]) -> Iterator[tuple[Chapter, dict[str, str]]]:
    """The package as it is after each chapter, tangling each chapter once (tangling every
    stage from scratch would read the early chapters again for each later one)."""
    tangler = Tangler()
    for chapter in chapters:
        tangler.add_chapters([chapter])
        yield chapter, package_modules(tangler)
