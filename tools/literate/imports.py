"""The import block of a generated module, merged and sorted as isort (and ruff) sort it."""

from __future__ import annotations

import ast
import sys
from dataclasses import dataclass, field

FIRST_PARTY = {"cb2026"}
# The package's line length (src/ruff.toml), which ruff's import sorting wraps at.
LINE_LENGTH = 88
KEEP_MARK = "  # noqa" + ": F401"  # ruff's exemption for an import nobody uses


def section(module: str) -> int:
    """isort's section of a module: future, standard library, third party, first party."""
    top = module.split(".")[0]
    if top == "__future__":
        return 0
    if top in sys.stdlib_module_names:
        return 1
    if top in FIRST_PARTY:
        return 3
    return 2


def member_order(name: str) -> tuple[int, str]:
    """isort's order of imported names: CONSTANTS, then Classes, then other names."""
    if name.isupper() and len(name) > 1:
        kind = 0
    elif name[:1].isupper():
        kind = 1
    else:
        kind = 2
    return kind, name.lower()


def alias_text(alias: ast.alias) -> str:
    """`name` or `name as other`."""
    return alias.name if alias.asname is None else f"{alias.name} as {alias.asname}"


def bound_name(imported: str, plain: bool = False) -> str:
    """The name an import binds: `x as y` binds y; `import a.b` binds a."""
    if " as " in imported:
        return imported.split(" as ")[1]
    return imported.split(".")[0] if plain else imported


@dataclass
class ImportBlock:
    """The imports gathered from the cells of one module."""

    plain: set[str] = field(default_factory=set)  # "import x" / "import x as y"
    from_imports: dict[str, set[str]] = field(default_factory=dict)
    # Imports kept although no definition uses them (marked as ruff's unused-import
    # exemption, F401, in their cell):
    # imports for their side effects, and re-exports. Entries are (module or "", name).
    kept: set[tuple[str, str]] = field(default_factory=set)

    def add(self, node: ast.Import | ast.ImportFrom, keep: bool = False) -> None:
        """Adds the names of one import statement; `keep` keeps them even if unused."""
        if isinstance(node, ast.ImportFrom) and node.level:
            raise ValueError(
                f"relative import `from {'.' * node.level}{node.module or ''} import ...`"
                " is not supported; import from cb2026"
            )
        for alias in node.names:
            if isinstance(node, ast.Import):
                key = ("", alias_text(alias))
                self.plain.add(key[1])
            else:
                key = (node.module or "", alias_text(alias))
                self.from_imports.setdefault(key[0], set()).add(key[1])
            if keep:
                self.kept.add(key)

    def bound_names(self) -> set[str]:
        """Every name the imports bind."""
        names = {bound_name(name, plain=True) for name in self.plain}
        for module, imported in self.from_imports.items():
            if module != "__future__":
                names.update(bound_name(name) for name in imported)
        return names

    def remove(self, name: str) -> bool:
        """Removes the imports that bind `name`; whether there were any."""
        found = {imported for imported in self.plain if bound_name(imported, plain=True) == name}
        self.plain -= found
        for module, imported in list(self.from_imports.items()):
            matching = {entry for entry in imported if bound_name(entry) == name}
            if module != "__future__" and matching:
                found |= matching
                imported -= matching
                if not imported:
                    del self.from_imports[module]
        self.kept = {key for key in self.kept if key[1] not in found}
        return bool(found)

    def render(self, used: set[str], keep_all: bool = False) -> str:
        """The import statements of the names in `used`, of `__future__` and of the kept
        ones (or all of them, for a package's `__init__`), in sections separated by blank
        lines."""
        sections: dict[int, list[str]] = {}
        for name in sorted(self.plain, key=str.lower):
            kept = ("", name) in self.kept
            if keep_all or kept or bound_name(name, plain=True) in used:
                line = f"import {name}" + (KEEP_MARK if kept else "")
                sections.setdefault(section(name), []).append(line)
        for module in sorted(self.from_imports, key=str.lower):
            names = sorted(
                (
                    name
                    for name in self.from_imports[module]
                    if keep_all
                    or module == "__future__"
                    or (module, name) in self.kept
                    or bound_name(name) in used
                ),
                key=member_order,
            )
            if not names:
                continue
            marks = {name: KEEP_MARK if (module, name) in self.kept else "" for name in names}
            line = f"from {module} import {', '.join(names)}"
            if any(marks.values()) and len(line + KEEP_MARK) <= LINE_LENGTH:
                line += KEEP_MARK
            elif len(line) > LINE_LENGTH or any(marks.values()):
                inner = "".join(f"    {name},{marks[name]}\n" for name in names)
                line = f"from {module} import (\n{inner})"
            sections.setdefault(section(module), []).append(line)
        return "\n\n".join("\n".join(sections[key]) for key in sorted(sections)) + (
            "\n" if sections else ""
        )
