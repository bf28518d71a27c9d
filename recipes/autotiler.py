"""Tile as many loop nests as possible, unroll the innermost loops left (Amini 2012, Fig. 5.8).

    passman run autotiler app.c -o out
    passman run autotiler app.c --set size=16 --set rate=2 --set verbose=true

The SAC compiler's ``autotiler``, as the thesis writes it (Python 2)::

    def autotiler(loop):
        if loop.loops():
            try: loop.tile(...)
            except: map(autotiler, loop.loops())
        else: loop.unroll(...)

translated to Python 3: ``map`` is lazy there, so the recursion is a ``for``
loop (with ``map`` the recursion would silently never run), and the bare
``except`` catches :class:`PassFailed` only, so a bug in a pass is not taken
for "cannot tile here". The ``...`` become the band: a nest is tiled with
square tiles on its deepest perfect band that the dependences allow (the
pass proves full permutability, otherwise refuses), trying shallower bands
before giving up; a leaf loop that cannot be unrolled stays as it is.

Options (``--set NAME=VALUE``):

* ``size`` (default 32): the tile size of every tiled loop;
* ``rate`` (default 4): the unroll factor of the innermost loops;
* ``verbose``: say what was tiled or unrolled, and why not.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from passman import Loop, PassFailed


@dataclass
class Autotiled:
    """What the recipe did: labels ``function/loop`` with the band depth or the unroll rate."""

    tiled: list[tuple[str, int]] = field(default_factory=list)
    unrolled: list[str] = field(default_factory=list)
    #: ``function/loop: reason`` for each nest or leaf left as it was
    kept: list[str] = field(default_factory=list)


def nest_depth(loop: Loop) -> int:
    """How many loops the chain of only children starting at ``loop`` has."""
    depth = 1
    children = loop.loops()
    while len(children) == 1:
        depth += 1
        children = children[0].loops()
    return depth


def autotiler(loop: Loop, size: int, rate: int, done: Autotiled) -> None:
    """Fig. 5.8: tile ``loop``'s nest if possible, else recurse into its children; unroll leaves."""
    where = f"{loop.module.name}/{loop.label}"
    if loop.loops():
        why = "its body is not a perfect nest (several statements)"
        deepest = nest_depth(loop)
        for depth in range(deepest, 1, -1):
            try:
                loop.tile(*[size] * depth)
            except PassFailed as err:
                if depth == deepest:
                    why = str(err)  # the deepest band's reason
                continue
            done.tiled.append((where, depth))
            return
        done.kept.append(f"{where}: {why}")
        for inner in loop.loops():  # Python 3: a for loop, not the figure's lazy map
            autotiler(inner, size, rate, done)
    else:
        try:
            loop.unroll(rate)
        except PassFailed as err:
            done.kept.append(f"{where}: {err}")
        else:
            done.unrolled.append(where)


def main(ws, size: int = 32, rate: int = 4, verbose: bool = False) -> Autotiled:
    """Apply :func:`autotiler` to the outermost loops of every function."""
    done = Autotiled()
    for module in ws.all_functions:
        for loop in module.loops():
            autotiler(loop, size, rate, done)
    if verbose:
        for where, depth in done.tiled:
            print(f"tiled {where} ({depth} loops, size {size})")
        for where in done.unrolled:
            print(f"unrolled {where} by {rate}")
        for line in done.kept:
            print(f"kept {line}")
    return done
