"""Write :mod:`passman.passes.manifest`: ``python -m passman.passes.manifest_build``.

Imports every module of :mod:`passman.passes` in a fresh interpreter and
records which module registers each pass and property, in registration order
(the first producer of a resource is its default). A pass's properties belong
to the module of the pass; a global property (``register_property``) to the
first module whose import registers it, the modules being listed from the
file tree (``pkgutil.walk_packages`` imports the packages as it lists them,
and a package importing its modules, as :mod:`passman.passes.poly` does,
would register their properties before they are looked for: ``--set
auto_schedule_force_wavefront=true`` then said "unknown property").
``tests/test_startup.py`` fails when the manifest is out of date.
"""

from __future__ import annotations

import importlib
import pkgutil
import sys
from collections.abc import Iterator
from pathlib import Path

import passman.passes as package

from passman import REGISTRY

SKIP = {"passman.passes.manifest", "passman.passes.manifest_build"}


def module_names(paths: list[str], prefix: str) -> Iterator[str]:
    """The modules and packages under ``paths``, from the file tree (importing none)."""
    for info in pkgutil.iter_modules(paths, prefix):
        yield info.name
        if info.ispkg:
            folder = Path(getattr(info.module_finder, "path", "")) / info.name.rsplit(".", 1)[-1]
            yield from module_names([str(folder)], info.name + ".")


def build() -> str:
    """The text of the manifest, from the modules as they are."""
    passes: dict[str, tuple] = {}
    properties: dict[str, str] = {}
    names = sorted(m for m in module_names(list(package.__path__), "passman.passes.") if m not in SKIP)
    for module in names:
        before = set(dict.keys(REGISTRY.properties))
        importlib.import_module(module)
        for prop in set(dict.keys(REGISTRY.properties)) - before:
            properties.setdefault(prop, module)
    for name, info in dict.items(REGISTRY.passes):
        if info.func.__module__.startswith("passman.passes."):
            passes[name] = (info.func.__module__, info.kind, info.scope, info.provides or "", info.summary,
                            info.property_rows())
            for prop in info.params + ([info.varargs] if info.varargs else []):
                properties[prop.name] = info.func.__module__  # exactly where the pass is
    lines = [
        '"""Where each built-in pass and property is defined: written by',
        "``python -m passman.passes.manifest_build``, do not edit (see :meth:`passman.registry.Registry.install_manifest`).",
        '"""',
        "",
        "# fmt: off",
        "#: pass name -> (module, kind, scope, resource provided, summary, properties), in registration order;\n"
        "#: a property is (name, type, default as written, description)",
        "PASSES = {",
    ]
    lines += [f"    {n!r}: {v!r}," for n, v in passes.items()]
    lines += ["}", "", "#: property name -> module that registers it", "PROPERTIES = {"]
    lines += [f"    {n!r}: {m!r}," for n, m in sorted(properties.items())]
    lines += ["}", ""]
    return "\n".join(lines)


if __name__ == "__main__":
    text = build()
    target = Path(package.__file__).with_name("manifest.py")
    if "--check" in sys.argv:
        sys.exit(0 if target.read_text() == text else 1)
    target.write_text(text)
    print(f"wrote {target}")
