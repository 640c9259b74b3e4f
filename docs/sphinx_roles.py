"""A Griffe extension for the API reference: the Sphinx roles genqsim's docstrings use
(``:class:`~genqsim.StateVector```, ``:meth:``, ``:func:``, ``:data:``, ...) become
cross-references MkDocs renders, so ``help()`` and the site read the same docstrings.

A role whose target is shown in the reference (an object of a ``:::`` line of
``docs/api.md``, or a member of one, reached under any of its names) becomes the autorefs link
``[text][identifier]``; a target the reference does not show (a private helper, another
package) becomes plain code. ``mkdocs build --strict`` then fails on a link that does not
resolve, as it should.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path
from typing import Any

import griffe

ROLE = re.compile(r":(?:class|meth|func|data|attr|mod|exc|obj|const):`(~?)([^`]+)`")
RENDERED = re.compile(r"^::: (\S+)", re.MULTILINE)
API_PAGE = Path(__file__).with_name("api.md")


class SphinxRoles(griffe.Extension):
    """Rewrites the roles of every docstring once the package is loaded."""

    def on_package(self, *, pkg: griffe.Module, loader: Any = None, **kwargs: Any) -> None:
        shown = self._shown(pkg)
        for obj in _walk(pkg):
            docstring = obj.docstring
            if docstring is not None and ":" in docstring.value:
                link = functools.partial(self._link, here=obj, pkg=pkg, shown=shown)
                docstring.value = ROLE.sub(link, docstring.value)

    @staticmethod
    def _shown(pkg: griffe.Module) -> dict[str, str]:
        """``{canonical path: identifier on the page}`` for every rendered object."""
        shown: dict[str, str] = {}
        for path in RENDERED.findall(API_PAGE.read_text()):
            target = _lookup(pkg, path)
            if target is not None:
                shown.setdefault(_canonical(target), path)
        return shown

    def _link(self, match: re.Match[str], here: Any, pkg: griffe.Module, shown: dict) -> str:
        short, target = match.group(1), match.group(2)
        text = target.rsplit(".", 1)[-1] if short else target
        found = None
        for candidate in (target, f"{here.module.path}.{target}", f"{pkg.path}.{target}"):
            found = _lookup(pkg, candidate)
            if found is not None:
                break
        if found is None:
            return f"`{text}`"
        path = _canonical(found)
        head, tail = path, ""
        while head and head not in shown:  # a member of a shown object
            head, _, last = head.rpartition(".")
            tail = f".{last}{tail}"
        if not head or (tail and (found.docstring is None or found.name.startswith("_"))):
            return f"`{text}`"  # not shown: members appear only with a docstring
        return f"[`{text}`][{shown[head]}{tail}]"


def _walk(obj: Any) -> Any:
    """Every object defined in the package (aliases are rendered from their targets)."""
    yield obj
    for member in obj.members.values():
        if not member.is_alias:
            yield from _walk(member)


def _lookup(pkg: griffe.Module, path: str) -> Any:
    """The object at the dotted ``path`` (aliases followed), or ``None``."""
    if path != pkg.path and not path.startswith(pkg.path + "."):
        return None
    obj: Any = pkg
    for part in path.split(".")[1:]:
        try:
            obj = obj.members[part]
            if obj.is_alias:
                obj = obj.final_target
        except (KeyError, griffe.AliasResolutionError, griffe.CyclicAliasError):
            return None
    return obj


def _canonical(obj: Any) -> str:
    return str(obj.canonical_path)
