"""The import block of a generated module, merged and sorted as isort (and ruff) sort it."""

from __future__ import annotations

import ast
import sys
from dataclasses import dataclass, field

FIRST_PARTY = {"cb2026"}
LINE_LENGTH = 100


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

    def add(self, node: ast.Import | ast.ImportFrom) -> None:
        """Adds the names of one import statement."""
        if isinstance(node, ast.Import):
            self.plain.update(alias_text(alias) for alias in node.names)
        else:
            if node.level:
                raise ValueError("relative imports are not supported; import from cb2026")
            names = self.from_imports.setdefault(node.module or "", set())
            names.update(alias_text(alias) for alias in node.names)

    def render(self, used: set[str]) -> str:
        """The import statements of the names in `used` (and `__future__`), in sections
        separated by blank lines."""
        sections: dict[int, list[str]] = {}
        for name in sorted(self.plain, key=str.lower):
            if bound_name(name, plain=True) in used:
                sections.setdefault(section(name), []).append(f"import {name}")
        for module in sorted(self.from_imports, key=str.lower):
            names = sorted(
                (
                    name
                    for name in self.from_imports[module]
                    if module == "__future__" or bound_name(name) in used
                ),
                key=member_order,
            )
            if not names:
                continue
            line = f"from {module} import {', '.join(names)}"
            if len(line) > LINE_LENGTH:
                inner = "".join(f"    {name},\n" for name in names)
                line = f"from {module} import (\n{inner})"
            sections.setdefault(section(module), []).append(line)
        return "\n\n".join("\n".join(sections[key]) for key in sorted(sections)) + (
            "\n" if sections else ""
        )
