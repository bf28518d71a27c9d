"""Search spaces: the tunable parameters of a recipe or a pipeline, and their constraints.

A space is declared where the recipe is. Beside ``main(ws, **options)`` a
recipe defines ``TUNE`` (a :class:`Space` whose parameters are options of
``main``), or ``tune_space(ws)`` returning one (constraints may then read the
program)::

    from passman.tune import Space, Pow2, Choice, Bool

    TUNE = Space(tile_i=Pow2(8, 256), tile_j=Pow2(8, 256),
                 fusion=Choice("smart", "none", "max"),
                 unroll=Choice(1, 2, 4, 8, when={"tile": True}),
                 constraints=[lambda p: p["tile_i"] * p["tile_j"] <= 4096 or "tile too large"])

A pipeline with placeholders is a space too (``Space.template``)::

    Space.template("auto_schedule@kernel{tile_sizes=$TI,$TJ,fusion=$F}",
                   TI=Pow2(8, 256), TJ=Pow2(8, 256), F=Choice("smart", "max"))

and so is a sequence of transformations (``Space.sequence``, pypsearch's
space): each of ``length`` steps is one of the ``moves`` (pipeline calls) or
nothing. A variant of a pipeline space is identified by its canonical
pipeline text (:func:`passman.pipeline.parse` then ``str``), which keeps the
order of the steps: ``[A,B]`` and ``[B,A]`` are two variants, and two
parameter sets giving the same pipeline are one.

Parameters map to Optuna's distributions (``trial.suggest_int`` /
``suggest_categorical``) in declaration order; a parameter with ``when`` is
suggested only where its condition holds on the parameters before it
(Optuna's define-by-run spaces), and is absent otherwise. Constraints see the
finished point and return ``True`` (keep), ``False`` or a reason (prune).
"""

from __future__ import annotations

import ast
import itertools
import math
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import InvalidInput
from ..pipeline import parse

__all__ = [
    "Bool",
    "Choice",
    "Int",
    "Param",
    "Permutation",
    "Pow2",
    "Space",
    "Vector",
    "parse_param_spec",
]

Point = dict[str, Any]
Constraint = Callable[[Point], "bool | str"]
_PLACEHOLDER = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)")


class Param:
    """A tunable parameter: its values, its default, and when it exists (``when``)."""

    default: Any = None
    when: Callable[[Point], bool] | Mapping[str, Any] | None = None

    def values(self) -> list[Any]:
        """Every value, in order (for grids and exhaustive measurement)."""
        raise NotImplementedError

    def suggest(self, trial: Any, name: str) -> Any:
        """Ask an Optuna trial for a value of this parameter."""
        raise NotImplementedError

    def encode(self, name: str, value: Any) -> dict[str, Any]:
        """The Optuna parameters that make :meth:`suggest` return ``value``."""
        return {name: value}

    def first_default(self) -> Any:
        """The default value, else the first one."""
        return self.default if self.default is not None else self.values()[0]

    def applies(self, point: Point) -> bool:
        """Whether this parameter exists given the parameters chosen before it."""
        if self.when is None:
            return True
        if callable(self.when):
            return bool(self.when(point))
        for key, want in self.when.items():
            have = point.get(key)
            wanted = want if isinstance(want, (list, tuple, set, frozenset)) else (want,)
            if have not in wanted:
                return False
        return True


@dataclass
class Int(Param):
    """An integer in ``[low, high]`` by ``step`` (``log=True``: sampled on a log scale)."""

    low: int
    high: int
    step: int = 1
    log: bool = False
    default: Any = None
    when: Any = None

    def __post_init__(self) -> None:
        if self.high < self.low or self.step < 1:
            raise InvalidInput(f"error: empty integer range [{self.low}, {self.high}] by {self.step}")

    def values(self) -> list[Any]:
        return list(range(self.low, self.high + 1, self.step))

    def suggest(self, trial: Any, name: str) -> Any:
        return trial.suggest_int(name, self.low, self.high, step=self.step, log=self.log)


@dataclass
class Pow2(Param):
    """A power of two in ``[low, high]``; the sampler sees its exponent (``log2_NAME``), an ordered int."""

    low: int
    high: int
    default: Any = None
    when: Any = None

    def __post_init__(self) -> None:
        for v in (self.low, self.high):
            if v < 1 or v & (v - 1):
                raise InvalidInput(f"error: Pow2 bounds must be powers of two, got {v}")
        if self.high < self.low:
            raise InvalidInput(f"error: empty range Pow2({self.low}, {self.high})")

    def values(self) -> list[Any]:
        return [1 << k for k in range(int(math.log2(self.low)), int(math.log2(self.high)) + 1)]

    def suggest(self, trial: Any, name: str) -> Any:
        k = trial.suggest_int(f"log2_{name}", int(math.log2(self.low)), int(math.log2(self.high)))
        return 1 << k

    def encode(self, name: str, value: Any) -> dict[str, Any]:
        return {f"log2_{name}": int(value).bit_length() - 1}


class Choice(Param):
    """One of ``options`` (numbers, strings, booleans, or tuples such as tile-size vectors)."""

    def __init__(self, *options: Any, default: Any = None, when: Any = None):
        if not options:
            raise InvalidInput("error: Choice() needs at least one option")
        self.options = list(options)
        self.default = default
        self.when = when
        # Optuna stores str/int/float/bool/None; other values (tuples) are stored as their index
        self._plain = all(o is None or isinstance(o, (str, int, float, bool)) for o in self.options)

    def __repr__(self) -> str:
        return f"Choice({', '.join(map(repr, self.options))})"

    def values(self) -> list[Any]:
        return list(self.options)

    def suggest(self, trial: Any, name: str) -> Any:
        if self._plain:
            return trial.suggest_categorical(name, self.options)
        labels = [format_value(o) for o in self.options]
        return self.options[labels.index(trial.suggest_categorical(name, labels))]

    def encode(self, name: str, value: Any) -> dict[str, Any]:
        return {name: value if self._plain else format_value(value)}


class Bool(Choice):
    """``False`` or ``True``."""

    def __init__(self, default: Any = None, when: Any = None):
        super().__init__(False, True, default=default, when=when)


@dataclass
class Vector(Param):
    """An ordered list of ``length`` values of ``item`` (a tile-size vector): ``NAME_0``, ``NAME_1``..."""

    item: Param
    length: int
    default: Any = None
    when: Any = None

    def values(self) -> list[Any]:
        return [tuple(v) for v in itertools.product(self.item.values(), repeat=self.length)]

    def suggest(self, trial: Any, name: str) -> Any:
        return tuple(self.item.suggest(trial, f"{name}_{k}") for k in range(self.length))

    def encode(self, name: str, value: Any) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for k, v in enumerate(value):
            out.update(self.item.encode(f"{name}_{k}", v))
        return out


@dataclass
class Permutation(Param):
    """An order of ``items`` (loop orders); the sampler sees its Lehmer code, ``n - 1`` ints."""

    items: Sequence[Any]
    default: Any = None
    when: Any = None

    def __post_init__(self) -> None:
        if isinstance(self.items, int):
            self.items = tuple(range(self.items))
        self.items = tuple(self.items)

    def values(self) -> list[Any]:
        return list(itertools.permutations(self.items))

    def suggest(self, trial: Any, name: str) -> Any:
        pool = list(self.items)
        out = []
        for k in range(len(pool) - 1):
            out.append(pool.pop(trial.suggest_int(f"{name}_{k}", 0, len(pool) - 1)))
        return tuple(out + pool)

    def encode(self, name: str, value: Any) -> dict[str, Any]:
        pool = list(self.items)
        out: dict[str, Any] = {}
        for k, v in enumerate(list(value)[:-1]):
            out[f"{name}_{k}"] = pool.index(v)
            pool.remove(v)
        return out


def format_value(value: Any) -> str:
    """A parameter value as text, as it goes into a pipeline (``(32, 64)`` -> ``32,64``)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (tuple, list)):
        return ",".join(format_value(v) for v in value)
    return "none" if value is None else str(value)


class Space:
    """Named parameters, their constraints, and how a point becomes a variant.

    ``template`` (a pipeline with ``$NAME`` placeholders) or ``render`` (a
    function from a point to pipeline text) make a pipeline space: its
    variants are pipelines. Without either, the points are the options of a
    recipe's ``main``.
    """

    def __init__(self, params: Mapping[str, Param] | None = None, *,
                 constraints: Sequence[Constraint] = (), template: str | None = None,
                 render: Callable[[Point], str] | None = None, **named: Param):
        self.params = {**(params or {}), **named}
        for name, p in self.params.items():
            if not isinstance(p, Param):
                raise InvalidInput(f"error: tunable parameter {name} is {p!r}, not a Param "
                                   "(Int, Pow2, Choice, Bool, Vector, Permutation)")
        self.constraints = list(constraints)
        self.template = template
        self.render = render
        if template is not None:
            names = placeholders(template)
            missing = [n for n in names if n not in self.params]
            if missing:
                raise InvalidInput(f"error: placeholder ${missing[0]} has no domain "
                                   f"(--param {missing[0]}=pow2(8,256), choice(a,b), int(1,8) ...)")
            unused = [n for n in self.params if n not in names]
            if unused:
                raise InvalidInput(f"error: parameter {unused[0]} is not a placeholder of the pipeline")
        if self.is_pipeline:
            self.pipeline_of(self.default())  # a malformed pipeline stops here, not at the first trial

    # -- constructors ----------------------------------------------------------------------
    @classmethod
    def pipeline(cls, template: str, *, constraints: Sequence[Constraint] = (), **params: Param) -> Space:
        """A pipeline with ``$NAME`` (or ``${NAME}``) placeholders, one parameter each."""
        return cls(params, constraints=constraints, template=template)

    @classmethod
    def sequence(cls, moves: Sequence[str], length: int, *, min_length: int = 0,
                 constraints: Sequence[Constraint] = ()) -> Space:
        """Sequences of up to ``length`` of ``moves`` (pipeline calls, e.g. ``unroll@f.l3{rate=4}?``).

        Step ``k`` is parameter ``step_k``: a move, or ``"-"`` (nothing) for
        the steps past ``min_length``. The variant is the moves in order.
        """
        if not moves or length < 1:
            raise InvalidInput("error: a sequence space needs moves and a length of at least 1")
        for m in moves:
            parse(m)  # InvalidInput for a malformed move
        params: dict[str, Param] = {}
        for k in range(length):
            options = list(moves) if k < min_length else ["-", *moves]
            params[f"step_{k}"] = Choice(*options)
        return cls(params, constraints=constraints,
                   render=lambda p: ",".join(p[f"step_{k}"] for k in range(length) if p[f"step_{k}"] != "-"))

    # -- points ----------------------------------------------------------------------------
    @property
    def is_pipeline(self) -> bool:
        """Whether points become pipelines (else they are a recipe's options)."""
        return self.template is not None or self.render is not None

    def suggest(self, trial: Any) -> Point:
        """Ask an Optuna trial for a point (conditional parameters only where they apply)."""
        point: Point = {}
        for name, p in self.params.items():
            if p.applies(point):
                point[name] = p.suggest(trial, name)
        return point

    def default(self) -> Point:
        """The point of every parameter's default (else its first value)."""
        point: Point = {}
        for name, p in self.params.items():
            if p.applies(point):
                point[name] = p.first_default()
        return point

    def points(self) -> Iterator[Point]:
        """Every point of the space, constraints not checked (conditional parameters expanded)."""

        def walk(items: list[tuple[str, Param]], point: Point) -> Iterator[Point]:
            if not items:
                yield dict(point)
                return
            (name, p), rest = items[0], items[1:]
            if not p.applies(point):
                yield from walk(rest, point)
                return
            for v in p.values():
                point[name] = v
                yield from walk(rest, point)
            del point[name]

        yield from walk(list(self.params.items()), {})

    def encode(self, point: Point) -> dict[str, Any]:
        """The Optuna parameters of ``point`` (to enqueue it as a trial)."""
        out: dict[str, Any] = {}
        for name, value in point.items():
            out.update(self.params[name].encode(name, value))
        return out

    def __repr__(self) -> str:
        what = self.template or ("sequence" if self.render else "recipe options")
        return f"<Space {what}: {', '.join(f'{k}={v!r}' for k, v in self.params.items())}>"

    def violation(self, point: Point) -> str | None:
        """Why ``point`` breaks a constraint, or ``None``."""
        for c in self.constraints:
            verdict = c(point)
            if verdict is True:
                continue
            if verdict is False or verdict is None:
                name = getattr(c, "__name__", "constraint")
                return f"violates {name}" if name != "<lambda>" else "violates a constraint"
            return str(verdict)
        return None

    def size(self) -> int:
        """The number of points (before constraints)."""
        return sum(1 for _ in self.points())

    def pipeline_of(self, point: Point) -> str | None:
        """The canonical pipeline of ``point`` (``None`` for a recipe space)."""
        if self.render is not None:
            text = self.render(point)
        elif self.template is not None:
            text = substitute(self.template, point)
        else:
            return None
        return str(parse(text))

    def variant_key(self, point: Point) -> str:
        """What identifies the variant before it is built: its pipeline, or its sorted options."""
        pipeline = self.pipeline_of(point)
        if pipeline is not None:
            return pipeline
        return "main{" + ",".join(f"{k}={format_value(point[k])}" for k in sorted(point)) + "}"


def placeholders(template: str) -> list[str]:
    """The placeholder names of a pipeline template, in order, once each."""
    seen: list[str] = []
    for m in _PLACEHOLDER.finditer(template):
        name = m.group(1) or m.group(2)
        if name not in seen:
            seen.append(name)
    return seen


def substitute(template: str, point: Point) -> str:
    """The template with each ``$NAME`` replaced by the point's value as pipeline text."""
    return _PLACEHOLDER.sub(lambda m: format_value(point[m.group(1) or m.group(2)]), template)


_SPEC_KINDS: dict[str, Callable[..., Param]] = {
    "int": Int, "pow2": Pow2, "choice": Choice, "bool": Bool, "perm": Permutation,
}


def parse_param_spec(text: str) -> tuple[str, Param]:
    """``NAME=KIND(ARGS)`` from the command line: ``T=pow2(8,256)``, ``F=choice(smart,max)``, ``U=int(1,8)``, ``B=bool``.

    ``vector(pow2(8,64),3)`` is a tile-size vector; a bare comma list
    (``F=smart,none,max``) is a choice. Arguments are literals or bare words.
    """
    name, eq, spec = text.partition("=")
    name = name.strip()
    if not eq or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
        raise InvalidInput(f"error: bad --param '{text}': expected NAME=pow2(8,256), int(1,8), "
                           "choice(a,b), bool or a,b,c")
    spec = spec.strip()
    if "(" not in spec and spec != "bool":
        return name, Choice(*[_literal_word(w.strip()) for w in spec.split(",") if w.strip()])
    try:
        tree = ast.parse(spec, mode="eval").body
        return name, _build_param(tree)
    except (SyntaxError, ValueError, TypeError) as err:
        raise InvalidInput(f"error: bad --param '{text}': {err}") from None


def _literal_word(word: str) -> Any:
    try:
        return ast.literal_eval(word)
    except (ValueError, SyntaxError):
        return word


def _build_param(node: ast.expr) -> Param:
    if isinstance(node, ast.Name) and node.id == "bool":
        return Bool()
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
        raise ValueError("expected KIND(ARGS)")
    kind = node.func.id
    if kind == "vector":
        if len(node.args) != 2:
            raise ValueError("vector(PARAM, LENGTH)")
        return Vector(_build_param(node.args[0]), int(_arg(node.args[1])))
    if kind not in _SPEC_KINDS:
        raise ValueError(f"unknown kind '{kind}' (one of int, pow2, choice, bool, perm, vector)")
    return _SPEC_KINDS[kind](*[_arg(a) for a in node.args])


def _arg(node: ast.expr) -> Any:
    if isinstance(node, ast.Name):
        return node.id  # a bare word: a string option
    return ast.literal_eval(node)
