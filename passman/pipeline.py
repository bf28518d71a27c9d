"""Textual pipelines: a pass sequence in one line, its parser and its executor.

``passman run -p 'PIPELINE' app.c`` and ``ws.apply("PIPELINE")`` run, for
example::

    auto_schedule{fusion=max,tile_sizes=32,32},ompify_code?
    (dead_code_elimination,partial_eval)*
    unroll@kernel.inner_loops{rate=8}?,tile@kernel.l3{sizes=32,32}

Grammar (spaces are allowed between tokens; ``docs/pipelines.md`` explains
each part)::

    pipeline := [ item ( "," item )* ]
    item     := call | group
    call     := NAME [ "@" target ] [ "{" [ option ( "," option )* ] "}" ] [ "?" ]
    group    := "(" item ( "," item )* ")" "*" [ INT ] [ "?" ]
    target   := ( NAME | STRING | "*" ) [ "." ( NAME | STRING ) ]
    option   := NAME "=" ( STRING | RAW )
    NAME     := [A-Za-z_][A-Za-z0-9_]*
    STRING   := '"' ( any character but '"' and '\\' | '\\' any character )* '"'
    RAW      := the characters up to the "}" closing the options, or up to the
                first "," followed by NAME "=" (so "tile_sizes=32,32" is one
                value); spaces around it are dropped

* A call's options are keyword arguments of that call only: the pass's own
  properties (``rate`` or ``unroll_rate``), or global properties (those no
  pass owns, such as ``parallel_min_work``), set for the call and restored
  after it. The property of another pass is refused. Values are converted
  to the property's type as ``--set`` converts them.
* The target: nothing or ``@*`` is every function of the program (library
  stubs excluded); ``@f`` the function ``f``; for a loop pass ``@f.loops``
  its outermost loops, ``@f.all_loops`` every loop (the default for a loop
  pass), ``@f.inner_loops`` its innermost loops, ``@f.l3`` (or
  ``@f."loops"``) the loop labelled ``l3``. A unit pass takes ``@unit``; a
  program pass no target.
* A call on several targets applies the pass to each in turn and succeeds
  when it applied to one of them (as ``ws.all_functions.pass()`` does); it
  *refuses* (``PassFailed``, naming the step) when it applied nowhere. ``?``
  tolerates the refusal: the pipeline goes on (a refused pass leaves the
  program as it was).
* ``( ... )*`` runs its members in order, round after round, until a round
  changes nothing; members' refusals are tolerated inside it. ``*N`` bounds
  the rounds (default :data:`MAX_ROUNDS`); a group still changing the code
  after them refuses.

A malformed pipeline raises :class:`InvalidInput` with
``pipeline:LINE:COL: error: ...`` before any pass runs. :func:`format_call`
writes one recorded pass call as pipeline text (``ws.history.pipeline()``
joins them into a reproducer).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .errors import InvalidInput, PassFailed
from .registry import PassInfo, Property, Registry

if TYPE_CHECKING:
    from .workspace import Workspace

#: rounds of a ``( ... )*`` group without an explicit ``*N``
MAX_ROUNDS = 20

#: loop selectors after ``@function.``; any other name is a loop label
LOOP_SETS = ("loops", "all_loops", "inner_loops")

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_INT = re.compile(r"[0-9]+")
_OPTION_START = re.compile(r"\s*[A-Za-z_][A-Za-z0-9_]*\s*=")
_RAW_SAFE = re.compile(r"[\w.+\-/:]+(,[\w.+\-/:]+)*")


# ------------------------------------------------------------------------- syntax tree
@dataclass(frozen=True)
class Target:
    """``@function.loops``: which function(s), and which of their loops."""

    function: str | None  # None: every function
    loops: str | None = None  # one of LOOP_SETS, or None
    label: str | None = None  # a loop label
    column: int = 0

    def __str__(self) -> str:
        text = "*" if self.function is None else _quote_name(self.function)
        if self.label is not None:
            return f"{text}.{_quote_name(self.label, LOOP_SETS)}"
        return f"{text}.{self.loops}" if self.loops else text


@dataclass(frozen=True)
class Option:
    """``name=value`` in a call's braces (the value as written, unquoted)."""

    name: str
    value: str
    column: int
    value_column: int


@dataclass(frozen=True)
class Call:
    """One pass call: ``name@target{options}?``."""

    name: str
    target: Target | None
    options: tuple[Option, ...]
    optional: bool
    column: int
    text: str

    def __str__(self) -> str:
        out = self.name + (f"@{self.target}" if self.target else "")
        if self.options:
            out += "{" + ",".join(f"{o.name}={_quote_value(o.value)}" for o in self.options) + "}"
        return out + ("?" if self.optional else "")


@dataclass(frozen=True)
class Group:
    """``( ... )*N``: a fix-point group."""

    items: tuple[Call | Group, ...]
    max_rounds: int | None
    optional: bool
    column: int
    text: str

    def __str__(self) -> str:
        rounds = "" if self.max_rounds is None else str(self.max_rounds)
        return f"({','.join(map(str, self.items))})*{rounds}" + ("?" if self.optional else "")


@dataclass(frozen=True)
class Pipeline:
    """A parsed pipeline; ``str()`` gives its canonical text."""

    items: tuple[Call | Group, ...]
    text: str

    def __str__(self) -> str:
        return ",".join(map(str, self.items))

    def calls(self) -> Iterator[Call]:
        """Every call, groups' members included, in text order."""
        stack = list(reversed(self.items))
        while stack:
            item = stack.pop()
            if isinstance(item, Call):
                yield item
            else:
                stack.extend(reversed(item.items))


def error_at(text: str, pos: int, message: str) -> InvalidInput:
    """``pipeline:LINE:COL: error: message`` for 0-based offset ``pos`` of ``text``."""
    line = text.count("\n", 0, pos) + 1
    col = pos - (text.rfind("\n", 0, pos) + 1) + 1
    return InvalidInput(f"pipeline:{line}:{col}: error: {message}")


# ------------------------------------------------------------------------------ parser
class _Parser:
    def __init__(self, text: str):
        self.text = text
        self.pos = 0

    def fail(self, message: str, pos: int | None = None) -> InvalidInput:
        return error_at(self.text, self.pos if pos is None else pos, message)

    def skip(self) -> None:
        while self.pos < len(self.text) and self.text[self.pos].isspace():
            self.pos += 1

    def peek(self) -> str:
        self.skip()
        return self.text[self.pos] if self.pos < len(self.text) else ""

    def eat(self, char: str) -> bool:
        if self.peek() == char:
            self.pos += 1
            return True
        return False

    def expect(self, char: str, what: str) -> None:
        if not self.eat(char):
            raise self.fail(f"expected {what}, found {self.found()}")

    def found(self) -> str:
        c = self.peek()
        return f"'{c}'" if c else "the end of the pipeline"

    def name(self, what: str) -> str:
        self.skip()
        m = _NAME.match(self.text, self.pos)
        if not m:
            raise self.fail(f"expected {what}, found {self.found()}")
        self.pos = m.end()
        return m.group()

    def string(self) -> str:
        start = self.pos
        self.pos += 1  # the opening quote
        out = []
        while self.pos < len(self.text):
            c = self.text[self.pos]
            if c == '"':
                self.pos += 1
                return "".join(out)
            if c == "\\" and self.pos + 1 < len(self.text):
                self.pos += 1
                c = self.text[self.pos]
            out.append(c)
            self.pos += 1
        raise self.fail("unterminated string", start)

    def pipeline(self) -> Pipeline:
        items: list[Call | Group] = []
        if self.peek():
            items = self.items(closing="")
        if self.peek():
            raise self.fail(f"expected ',' or the end of the pipeline, found {self.found()}")
        return Pipeline(tuple(items), self.text)

    def items(self, closing: str) -> list[Call | Group]:
        items = [self.item()]
        while self.eat(","):
            items.append(self.item())
        if closing and self.peek() != closing:
            raise self.fail(f"expected ',' or '{closing}', found {self.found()}")
        return items

    def item(self) -> Call | Group:
        self.skip()
        start = self.pos
        if self.eat("("):
            if self.peek() == ")":
                raise self.fail("empty group")
            items = self.items(closing=")")
            self.expect(")", "')'")
            if not self.eat("*"):
                raise self.fail("a group is a fix point: expected '*' after ')'")
            rounds = None
            self.skip()
            m = _INT.match(self.text, self.pos)
            if m:
                rounds = int(m.group())
                if rounds < 1:
                    raise self.fail("a group runs at least one round", m.start())
                self.pos = m.end()
            optional = self.eat("?")
            return Group(tuple(items), rounds, optional, start + 1, self.text[start : self.pos])
        name = self.name("a pass name or '('")
        target = self.target() if self.eat("@") else None
        options = self.options() if self.eat("{") else ()
        optional = self.eat("?")
        return Call(name, target, options, optional, start + 1, self.text[start : self.pos])

    def target_name(self, what: str, star: bool) -> str | None:
        if star and self.eat("*"):
            return None
        if self.peek() == '"':
            value = self.string()
            if not value:
                raise self.fail(f"empty {what}", self.pos - 2)
            return value
        return self.name(what)

    def target(self) -> Target:
        column = self.pos  # just after '@'
        function = self.target_name("a function name or '*' after '@'", star=True)
        if not self.eat("."):
            return Target(function, column=column)
        quoted = self.peek() == '"'
        sel = self.target_name("a loop label or loops, all_loops, inner_loops after '.'", star=False)
        if not quoted and sel in LOOP_SETS:
            return Target(function, loops=sel, column=column)
        return Target(function, label=sel, column=column)

    def options(self) -> tuple[Option, ...]:
        out: list[Option] = []
        if self.eat("}"):
            return ()
        while True:
            self.skip()
            at = self.pos
            name = self.name("an option name")
            self.expect("=", f"'=' after option {name}")
            self.skip()
            value_at = self.pos
            value = self.string() if self.peek() == '"' else self.raw_value()
            out.append(Option(name, value, at + 1, value_at + 1))
            if self.eat("}"):
                return tuple(out)
            if not self.eat(","):
                raise self.fail(f"expected ',' or '}}' after the value of {name}, found {self.found()}")

    def raw_value(self) -> str:
        start = self.pos
        text = self.text
        while self.pos < len(text):
            c = text[self.pos]
            if c == "}" or (c == "," and _OPTION_START.match(text, self.pos + 1)):
                break
            if c in '"{':
                raise self.fail(f"'{c}' in an unquoted value: quote the value (\"...\")")
            self.pos += 1
        else:
            raise self.fail("unterminated options: expected '}'", start)
        value = text[start : self.pos].strip()
        return value


def parse(text: str) -> Pipeline:
    """Parse a pipeline (syntax only; :func:`bind` checks names and values)."""
    if not isinstance(text, str):
        raise InvalidInput(f"error: a pipeline is a string, not {type(text).__name__}")
    return _Parser(text).pipeline()


# ---------------------------------------------------------------- names, options, scopes
@dataclass(frozen=True)
class BoundCall:
    """A call checked against the registry: its pass and its converted options."""

    call: Call
    info: PassInfo
    #: keyword arguments of the pass (its own properties)
    kwargs: dict[str, Any]
    #: global properties set for the call only
    settings: dict[str, Any]


def bind(pipeline: Pipeline, registry: Registry) -> dict[Call, BoundCall]:
    """Check every call's pass, target and options; convert the values (before anything runs)."""
    text = pipeline.text
    out: dict[Call, BoundCall] = {}
    for call in pipeline.calls():
        info = registry.passes.get(call.name)
        if info is None:
            raise error_at(text, call.column - 1, f"unknown pass '{call.name}'")
        if info.kind != "transformation":
            raise error_at(text, call.column - 1,
                           f"'{call.name}' is an analysis, not a transformation: analyses are not steps")
        _check_target(text, call, info)
        kwargs: dict[str, Any] = {}
        settings: dict[str, Any] = {}
        for opt in call.options:
            key, prop, own = _option_property(text, opt, info, registry)
            if key in kwargs or key in settings:
                raise error_at(text, opt.column - 1, f"option {opt.name} given twice")
            try:
                value = prop.convert(opt.value)
            except InvalidInput as err:
                raise error_at(text, opt.value_column - 1, _strip_error(str(err))) from None
            (kwargs if own else settings)[key] = value
        out[call] = BoundCall(call, info, kwargs, settings)
    return out


def _option_property(text: str, opt: Option, info: PassInfo, registry: Registry) -> tuple[str, Property, bool]:
    """(keyword, property, whether it is the pass's own) for option ``opt`` of ``info``'s call."""
    key = opt.name.lower()
    own = {info.param_name(p): p for p in info.params + ([info.varargs] if info.varargs else [])}
    if key.startswith(info.name + "_") and key[len(info.name) + 1 :] in own:
        key = key[len(info.name) + 1 :]
    if key in own:
        return key, own[key], True
    prop = registry.properties.get(key)
    if prop is not None and prop.owner is None:
        return key, prop, False
    if prop is not None:
        raise error_at(text, opt.column - 1,
                       f"option {opt.name} is a property of pass {prop.owner}, not of {info.name}")
    known = ", ".join(sorted(own)) or "none"
    raise error_at(text, opt.column - 1, f"unknown option '{opt.name}' for pass {info.name} (known: {known})")


def _check_target(text: str, call: Call, info: PassInfo) -> None:
    t = call.target
    if t is None:
        return
    at = t.column - 1
    if info.scope == "program":
        raise error_at(text, at, f"pass {info.name} applies to the whole program: it takes no @target")
    if info.scope in ("module", "unit") and (t.loops or t.label):
        what = "functions" if info.scope == "module" else "compilation units"
        raise error_at(text, at, f"pass {info.name} applies to {what}, not to loops: drop '.{t.loops or t.label}'")


def _strip_error(message: str) -> str:
    return message[len("error: "):] if message.startswith("error: ") else message


# ----------------------------------------------------------------------------- executor
class NoFixPoint(PassFailed):
    """A ``( ... )*`` group still changed the code in its last round (its changes stay)."""


class _Executor:
    def __init__(self, ws: Workspace, pipeline: Pipeline, bound: dict[Call, BoundCall], function: str | None):
        self.ws = ws
        self.pipeline = pipeline
        self.bound = bound
        self.function = function
        self.number = {call: k for k, call in enumerate(pipeline.calls(), 1)}

    def run(self, items: tuple[Call | Group, ...]) -> bool:
        changed = False
        for item in items:
            changed = self.item(item) or changed
        return changed

    def item(self, item: Call | Group) -> bool:
        try:
            return self.call(item) if isinstance(item, Call) else self.group(item)
        except PassFailed as err:
            if item.optional:
                return isinstance(err, NoFixPoint)  # a group that gave up did change the code
            raise

    def group(self, group: Group) -> bool:
        rounds = group.max_rounds or MAX_ROUNDS
        for k in range(rounds):
            changed_now = False
            for item in group.items:
                try:
                    changed_now = self.item(item) or changed_now
                except NoFixPoint:
                    changed_now = True  # an inner group that gave up changed the code
                except PassFailed:
                    pass  # members may refuse: the round goes on
            if not changed_now:
                return k > 0
        raise NoFixPoint(f"{self.where(group)}: no fix point after {rounds} rounds")

    def where(self, item: Call | Group) -> str:
        if isinstance(item, Call):
            return f"pipeline step {self.number[item]} '{item.text.strip()}' (column {item.column})"
        return f"pipeline group '{item.text.strip()}' (column {item.column})"

    def call(self, call: Call) -> bool:
        b = self.bound[call]
        ws = self.ws
        try:
            targets = self.targets(call, b.info)
        except InvalidInput as err:
            raise self.located(call, err) from None
        if not targets:
            raise PassFailed(f"{self.where(call)}: nothing to apply {b.info.name} to", pass_name=b.info.name)
        applied, changed, reasons = False, False, []
        with ws.props.scoped(**b.settings):
            for target in targets:
                if isinstance(target, _LoopSlot):
                    target = target.resolve()
                    if target is None:
                        continue  # an earlier application of the pass removed that loop
                try:
                    ws.apply(b.info.name, target, **b.kwargs)
                except PassFailed as err:
                    reasons.append(f"{ws.describe(target)}: {err}")
                    continue
                except InvalidInput as err:
                    raise self.located(call, err) from None
                applied = True
                changed = ws.history.steps[-1].changed or changed
        if not applied:
            why = "; ".join(reasons) or "the loops it was to apply to are gone"
            raise PassFailed(f"{self.where(call)} refused: {why}", pass_name=b.info.name)
        return changed

    def located(self, call: Call, err: InvalidInput) -> InvalidInput:
        msg = str(err)
        if msg.startswith("error:"):
            return error_at(self.pipeline.text, call.column - 1, _strip_error(msg))
        return err

    def targets(self, call: Call, info: PassInfo) -> list[Any]:
        """The targets of a call, resolved now (loops by label: one may vanish on the way)."""
        ws = self.ws
        t = call.target or Target(None)
        if info.scope == "program":
            if self.function is not None:
                raise InvalidInput(f"error: pass {info.name} applies to the whole program, "
                                   f"not to function {self.function}")
            return [ws]
        if info.scope == "unit":
            if self.function is not None:
                unit = ws[self.function].cu
                if t.function is not None and t.function != unit.name:
                    raise InvalidInput(f"error: this pipeline applies to function {self.function} "
                                       f"of unit {unit.name}, not to unit {t.function}")
                return [unit]
            if t.function is not None:
                return [ws.cu[t.function]]
            return [cu for cu in ws.compilation_units if not cu.is_stub]
        if t.function is not None and self.function is not None and t.function != self.function:
            raise InvalidInput(f"error: this pipeline applies to function {self.function}, not {t.function}")
        name = t.function or self.function
        modules = [ws[name]] if name is not None else list(ws.all_functions)
        if info.scope == "module":
            return modules
        if t.label is not None:
            return [m.loop(t.label) for m in modules]
        return [_LoopSlot(m, lp.label) for m in modules for lp in _loop_set(m, t.loops or "all_loops")]


@dataclass(frozen=True)
class _LoopSlot:
    """A loop chosen by a loop set, looked up by label when its turn comes."""

    module: Any
    label: str

    def resolve(self) -> Any:
        """The loop, or None when it is no longer there."""
        for lp in self.module.all_loops:
            if lp.label == self.label:
                return lp
        return None


def _loop_set(module: Any, which: str) -> list[Any]:
    if which == "loops":
        return module.loops()
    if which == "inner_loops":
        return module.inner_loops()
    return module.all_loops


def run_pipeline(ws: Workspace, text: str | Pipeline, *, function: str | None = None) -> bool:
    """Run a pipeline on ``ws`` (restricted to one function if ``function``); whether it changed the code.

    Every name, target and option is checked before the first pass runs.
    """
    pipeline = text if isinstance(text, Pipeline) else parse(text)
    if function is not None:
        ws[function]  # noqa: B018 - InvalidInput for an unknown function
    bound = bind(pipeline, ws.registry)
    return _Executor(ws, pipeline, bound, function).run(pipeline.items)


# --------------------------------------------------------------------- history as text
def _quote_name(name: str, reserved: tuple[str, ...] = ()) -> str:
    if _NAME.fullmatch(name) and name not in reserved:
        return name
    return '"' + name.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _quote_value(text: str) -> str:
    if _RAW_SAFE.fullmatch(text):
        return text
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def format_value(value: Any) -> str:
    """A property value as pipeline text that converts back to ``value``."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (tuple, list)):
        return _quote_value(",".join(format_value(v) for v in value))
    if isinstance(value, float):
        return repr(value)
    return _quote_value(str(value))


def format_call(pass_name: str, target: tuple[str, Any], options: Iterable[tuple[str, Any]] = ()) -> str:
    """A pass call as pipeline text: ``pass@function.label{name=value,...}``.

    ``target`` is a history target: ``("program", None)``, ``("unit", name)``,
    ``("module", name)`` or ``("loop", (function, label))``.
    """
    kind, where = target
    out = pass_name
    if kind == "loop":
        out += f"@{_quote_name(where[0])}.{_quote_name(where[1], LOOP_SETS)}"
    elif kind in ("module", "unit"):
        out += f"@{_quote_name(where)}"
    options = list(options)
    if options:
        out += "{" + ",".join(f"{k}={format_value(v)}" for k, v in options) + "}"
    return out
