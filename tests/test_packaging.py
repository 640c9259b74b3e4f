"""What a non-editable install (``pip install .``, the README's first line) ships: every
package directory of the source tree is listed in pyproject.toml, so none is left out of the
wheel."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def listed_packages() -> tuple[set[str], dict[str, str]]:
    """The ``packages`` and ``package-dir`` tables of pyproject.toml."""
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib  # type: ignore[no-redef]
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    setuptools = config["tool"]["setuptools"]
    return set(setuptools["packages"]), dict(setuptools["package-dir"])


def test_every_package_directory_is_listed_for_the_wheel():
    packages, package_dir = listed_packages()
    for package, folder in package_dir.items():
        for init in sorted((ROOT / folder).rglob("__init__.py")):
            relative = init.parent.relative_to(ROOT / folder).parts
            name = ".".join((package, *relative))
            assert name in packages, f"{name} ({init.parent}) is missing from pyproject packages"


def test_listed_packages_exist():
    packages, package_dir = listed_packages()
    for name in packages:
        top, *rest = name.split(".")
        if name in package_dir:
            folder = ROOT / package_dir[name]
        else:
            folder = ROOT / package_dir[top] / Path(*rest)
        assert (folder / "__init__.py").is_file(), f"pyproject lists {name}; {folder} is no package"
