"""Per-workspace state with no code of its own: generated labels, property values, name spaces."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .errors import InvalidInput

if TYPE_CHECKING:
    from .workspace import Workspace


@dataclass
class LabelState:
    """Generated loop labels of a workspace: which names are generated, and a counter."""

    auto: set[str] = field(default_factory=set)
    counter: int = 0
    taken: set[str] = field(default_factory=set)  # user labels seen anywhere

    def fresh(self) -> str:
        """A new label name, unused anywhere in the workspace."""
        while True:
            self.counter += 1
            name = f"l{self.counter}"
            if name not in self.taken and name not in self.auto:
                self.auto.add(name)
                return name

    def copy(self) -> LabelState:
        """An independent copy."""
        return LabelState(set(self.auto), self.counter, set(self.taken))


class Props:
    """``ws.props.NAME``: property values, defaulting to the registered defaults."""

    def __init__(self, ws: Workspace, values: dict[str, Any] | None = None):
        object.__setattr__(self, "_ws", ws)
        object.__setattr__(self, "_values", dict(values or {}))

    def _prop(self, name: str):
        props = self._ws.registry.properties
        key = name.lower()
        if key not in props:
            raise InvalidInput(f"error: unknown property '{name}'")
        return props[key]

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        p = self._prop(name)
        return self._values.get(p.name, p.default)

    def __setattr__(self, name: str, value: Any) -> None:
        p = self._prop(name)
        self._values[p.name] = p.convert(value)

    def __getitem__(self, name: str) -> Any:
        return self.__getattr__(name)

    def __setitem__(self, name: str, value: Any) -> None:
        self.__setattr__(name, value)

    def __contains__(self, name: str) -> bool:
        return name.lower() in self._ws.registry.properties

    def items(self) -> Iterator[tuple[str, Any]]:
        """Every property with its current value."""
        for name, p in sorted(self._ws.registry.properties.items()):
            yield name, self._values.get(name, p.default)

    @contextmanager
    def scoped(self, **values: Any) -> Iterator[None]:
        """Set properties for the duration of a ``with`` block, then restore them."""
        saved = dict(self._values)
        try:
            for name, value in values.items():
                self.__setattr__(name, value)
            yield
        finally:
            self._values.clear()
            self._values.update(saved)

    def _copy_for(self, ws: Workspace) -> Props:
        return Props(ws, self._values)


class Namespace:
    """``ws.fun.<name>`` / ``ws.cu.<name>`` attribute access."""

    def __init__(self, getter: Callable[[str], Any], names: Callable[[], Iterable[str]]):
        self._get = getter
        self._names = names

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        return self._get(name)

    def __getitem__(self, name: str) -> Any:
        return self._get(name)

    def __dir__(self):
        return list(self._names())

    def __iter__(self):
        return (self._get(n) for n in self._names())
