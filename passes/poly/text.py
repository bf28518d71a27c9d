"""isl sets and affine expressions printed in C-like syntax, for displays and messages.

``{ [PHI1, PHI2] : PHI1 = i and 0 <= PHI2 < n }`` prints as
``{PHI1==i, 0<=PHI2<=n-1}``: one comma-separated conjunction per convex
piece (pieces joined by `` or ``), each bounded dimension written as
``lo<=x<=hi`` or ``x==e``, variables under their C names. Pieces with
existentially quantified variables (strides, floor divisions) fall back to
isl's own notation for that piece.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

import islpy as isl

from passman.lazy import LazyAttribute

_DT = LazyAttribute("islpy", "dim_type")


def affine_text(terms: Sequence[tuple[int, str]], const: int) -> str:
    """``[(2, "i"), (-1, "n")], 1`` -> ``2*i-n+1``."""
    out = ""
    terms = sorted((t for t in terms if t[0] > 0), key=lambda t: t[1]) + sorted(
        (t for t in terms if t[0] < 0), key=lambda t: t[1])
    for c, name in terms:
        if c == 0:
            continue
        mag = abs(c)
        body = name if mag == 1 else f"{mag}*{name}"
        if not out:
            out = body if c > 0 else f"-{body}"
        else:
            out += f"+{body}" if c > 0 else f"-{body}"
    if const or not out:
        if not out:
            out = str(const)
        else:
            out += f"+{const}" if const > 0 else f"-{-const}"
    return out


def _names(bset: isl.BasicSet, dim_names: Sequence[str] | None, rename: Mapping[str, str]) -> tuple[list, list]:
    nset = bset.dim(_DT.set)
    sets = []
    for k in range(nset):
        if dim_names is not None and k < len(dim_names):
            sets.append(dim_names[k])
        else:
            n = bset.get_dim_name(_DT.set, k)
            sets.append(rename.get(n, n) if n else f"x{k}")
    params = []
    for k in range(bset.dim(_DT.param)):
        n = bset.get_dim_name(_DT.param, k)
        params.append(rename.get(n, n))
    return sets, params


def _isl_piece(bset: isl.BasicSet, rename: Mapping[str, str]) -> str:
    """isl's notation for one piece, without the parameter list and tuple."""
    text = str(bset)
    body = text[text.index("{") + 1 : text.rindex("}")].strip()
    if ":" in body:
        body = body[body.index(":") + 1 :].strip()
    for old, new in rename.items():
        if old != new:
            body = re.sub(rf"\b{re.escape(old)}\b", new, body)
    return "{" + body + "}"


def basic_set_text(bset: isl.BasicSet, dim_names: Sequence[str] | None = None,
                   rename: Mapping[str, str] | None = None) -> str:
    """One convex piece as ``{c1, c2, ...}`` (see the module docstring)."""
    rename = rename or {}
    if bset.dim(_DT.div):
        return _isl_piece(bset, rename)
    sets, params = _names(bset, dim_names, rename)
    bounds: dict[int, dict[str, list[str]]] = {}
    others: list[str] = []
    for c in bset.get_constraints():
        sc = [c.get_coefficient_val(_DT.set, k).to_python() for k in range(len(sets))]
        pc = [c.get_coefficient_val(_DT.param, k).to_python() for k in range(len(params))]
        cst = c.get_constant_val().to_python()
        allc = [(v, n) for v, n in zip(sc, sets)] + [(v, n) for v, n in zip(pc, params)]
        pivot = next((k for k, (v, _) in enumerate(allc) if v in (1, -1)), None)
        first = next((k for k, (v, _) in enumerate(allc) if v), None)
        if first is not None and first < len(sets) and allc[first][0] not in (1, -1):
            pivot = None
        if pivot is None:
            pos = [(v, n) for v, n in allc if v > 0]
            neg = [(-v, n) for v, n in allc if v < 0]
            lhs = affine_text(pos, cst if cst > 0 else 0)
            rhs = affine_text(neg, -cst if cst < 0 else 0)
            others.append(f"{lhs}=={rhs}" if c.is_equality() else f"{rhs}<={lhs}")
            continue
        v, name = allc[pivot]
        # v*x + rest + cst (== or >=) 0  ->  x (== / >= / <=) -(rest + cst)/v
        rest = [(-w * v, n) for k, (w, n) in enumerate(allc) if k != pivot and w]
        expr = affine_text(rest, -cst * v)
        slot = bounds.setdefault(pivot, {"eq": [], "lo": [], "hi": []})
        if c.is_equality():
            slot["eq"].append(expr)
        elif v > 0:
            slot["lo"].append(expr)
        else:
            slot["hi"].append(expr)
    allnames = sets + params
    parts = []
    for k in sorted(bounds):
        name = allnames[k]
        slot = bounds[k]
        for e in slot["eq"]:
            parts.append(f"{name}=={e}")
        lo, hi = slot["lo"], slot["hi"]
        while lo and hi:
            parts.append(f"{lo.pop(0)}<={name}<={hi.pop(0)}")
        parts += [f"{e}<={name}" for e in lo] + [f"{name}<={e}" for e in hi]
    return "{" + ", ".join(parts + others) + "}"


def set_text(s: isl.Set | isl.BasicSet, dim_names: Sequence[str] | None = None,
             rename: Mapping[str, str] | None = None) -> str:
    """A set as C-like conjunctions, one per convex piece, joined by `` or ``."""
    if isinstance(s, isl.BasicSet):
        s = isl.Set.from_basic_set(s)
    if s.is_empty():
        return "{}"
    pieces = [basic_set_text(b, dim_names, rename) for b in s.coalesce().get_basic_sets()]
    return " or ".join(pieces)


def aff_text(a: isl.Aff, dim_names: Sequence[str] = (), rename: Mapping[str, str] | None = None) -> str:
    """A (div-free) affine expression in C syntax; isl notation if it has divisions."""
    rename = rename or {}
    if a.dim(_DT.div):
        return str(a)
    terms = []
    for k in range(a.dim(_DT.in_)):
        v = a.get_coefficient_val(_DT.in_, k).to_python()
        name = dim_names[k] if k < len(dim_names) else (a.get_dim_name(_DT.in_, k) or f"x{k}")
        terms.append((v, name))
    for k in range(a.dim(_DT.param)):
        n = a.get_dim_name(_DT.param, k)
        terms.append((a.get_coefficient_val(_DT.param, k).to_python(), rename.get(n, n)))
    cst = a.get_constant_val()
    den = a.get_denominator_val().to_python()
    if den != 1:
        return str(a)
    return affine_text(terms, cst.to_python())
