"""The bug classes found before the fuzzer existed, as programs of its structured form.

Each was shrunk by hand; :func:`known_programs` builds them with
:mod:`.program` (so the generator's features express them) and
``tests/corpus/fuzz/<name>.c`` holds their C text, which the tests check
against :func:`~passman.fuzz.program.to_c` and run through the oracle.
"""

from __future__ import annotations

from .program import (
    HALF,
    Affine,
    Array,
    ArrayRef,
    Assign,
    Bin,
    Cond,
    Expr,
    If,
    IndexValue,
    Loop,
    Num,
    Program,
    Read,
    Scalar,
    ScalarRef,
    fresh_uids,
)


def _a(const: int = 0, *terms: tuple[str, int]) -> Affine:
    return Affine(const, tuple(terms))


def _ref(name: str, *subscripts: Affine) -> ArrayRef:
    return ArrayRef(name, subscripts)


def _read(name: str, *subscripts: Affine) -> Read:
    return Read(ArrayRef(name, subscripts))


def _times(coefficient: str, value: Expr) -> Bin:
    return Bin("*", Num(coefficient), value)


IDX_I, IDX_J, IDX_K, IDX_T = _a(0, ("i", 1)), _a(0, ("j", 1)), _a(0, ("k", 1)), _a(0, ("t", 1))


def _header(title: str, problem: str, options: str = "") -> list[str]:
    lines = [title, f"Before the fix: {problem}.", "Regression program of a known bug class (shrunk by hand)."]
    if options:
        lines.append(f"passman-options: {options}")
    return lines


def wavefront() -> Program:
    """W: the point loop under a wavefront of tiles marked parallel, carrying the time dependence."""
    body = Assign(_ref("B", IDX_J), "=", _times("0.5", Bin("+", _read("B", IDX_J.shifted(-1)), _read("B", IDX_J))))
    nest = Loop("i", _a(0), _a(50), 1, [Loop("j", _a(1), _a(12), 1, [body])])
    return Program({}, [Array("B", 1)], [], [nest], header=_header(
        "W. Wavefront of tiles: the point loop under the front is marked parallel "
        "and carries the time dependence", "wrong output (openmp mode)"))


def conditional_write() -> Program:
    """B: a write whose element does not depend on the outer loop, under a condition on both indices."""
    write = If(Cond(_a(0, ("j", 1), ("i", 1)), "<", _a(9)), [Assign(_ref("A", IDX_J), "=", _read("B", IDX_I, IDX_J))])
    nest = Loop("i", _a(1), _a(1, ("n", 1)), 1, [Loop("j", _a(1), _a(-2, ("n", 1)), 1, [write])])
    return Program({"n": 30}, [Array("A", 1), Array("B", 2)], [], [nest], header=_header(
        "B. A write whose element does not depend on the outer loop, under a condition on both "
        "indices", "wrong output (openmp mode)"))


def scalar_temporaries() -> Program:
    """C: scalar temporaries written in the body of a scheduled parallel loop."""
    body = [
        Assign(ScalarRef("t6"), "=", Bin("+", _times("0.75", _read("B", IDX_J, IDX_J)),
                                         _times("0.3", _read("A", IDX_J.shifted(-1))))),
        Assign(_ref("B", _a(0, ("t", 1), ("j", 1)), IDX_J), "=",
               Bin("+", _times("0.5", Read(ScalarRef("t6"))), _read("A", _a(1, ("t", 2))))),
        Assign(ScalarRef("t7"), "=", Num("0.75")),
        Assign(_ref("A", IDX_T), "=", Bin("+", _times("0.5", Read(ScalarRef("t7"))),
                                      _times("1.5", _read("B", IDX_I.shifted(-1), IDX_J.shifted(3))))),
    ]
    nest = Loop("t", _a(0), _a(3), 1, [Loop("i", _a(1), _a(3), 1, [Loop("j", _a(1), _a(4), 2, body)])])
    return Program({}, [Array("A", 1), Array("B", 2)], [Scalar("t6"), Scalar("t7")], [nest],
                   header=_header("C. Scalar temporaries written in the body of a scheduled "
                                  "parallel loop", "wrong output (openmp mode)"))


def section_reduction_reads() -> Program:
    """D: an array-section reduction while the loop also reads other elements of the array."""
    body = Assign(_ref("C", IDX_K, _a(15)), "+=", _read("C", _a(16), IDX_K))
    nest = Loop("i", _a(0), _a(1000), 1, [Loop("k", _a(0), _a(10), 1, [body])])
    return Program({}, [Array("C", 2)], [], [nest], header=_header(
        "D. An array-section reduction while the loop also reads other elements of the array",
        "wrong output (openmp mode, coarse-grain path)", "--set poly=false"))


def section_indexed_by_loop() -> Program:
    """E: a reduction section indexed by the parallel loop's own index."""
    body = [
        If(Cond(IDX_I, "<", _a(0, ("n" + HALF, 1))), [Assign(_ref("A", IDX_I, _a(12)), "+=", Num("3"))]),
        Assign(_ref("B", IDX_I.shifted(3), IDX_K.shifted(-1)), "+=", IndexValue(IDX_J, "1.5")),
    ]
    nest = Loop("i", _a(0), _a(0, ("n", 1)), 1, [
        Loop("j", _a(0), _a(0, ("m", 1)), 1, [Loop("k", _a(-1, ("m", 1)), _a(3), -1, body)])])
    return Program({"n": 12, "m": 10}, [Array("A", 2), Array("B", 2)], [], [nest], header=_header(
        "E. A reduction section indexed by the parallel loop's own index",
        "wrong output (openmp mode)"))


def isl_cannot_carry() -> Program:
    """F: isl's "unable to carry dependences" escaped auto_schedule as an internal error."""
    value = Bin("+", Bin("+", _times("0.2", _read("C", _a(0, ("j", 1), ("i", 1)), IDX_J)),
                         _times("0.3", _read("C", IDX_I, _a(13)))),
                Bin("*", _read("C", IDX_I, _a(2)), _read("C", _a(0, ("t", 2)), IDX_J)))
    body = Assign(_ref("C", IDX_T.shifted(2), _a(0, ("i", 1), ("j", 1))), "=", value)
    nest = Loop("t", _a(0), _a(5), 1, [Loop("i", _a(1), _a(9), 1, [Loop("j", _a(3), _a(8), 2, [body])])])
    return Program({}, [Array("C", 2)], [], [nest], header=_header(
        'F. isl "unable to carry dependences" escaped auto_schedule as an internal error',
        "traceback (openmp mode)"))


#: corpus file name (without .c) -> builder
KNOWN = {
    "w_wavefront": wavefront,
    "b_conditional_write": conditional_write,
    "c_scalar_temporaries": scalar_temporaries,
    "d_section_reduction_reads": section_reduction_reads,
    "e_section_indexed_by_loop": section_indexed_by_loop,
    "f_isl_cannot_carry": isl_cannot_carry,
}


def known_programs() -> dict[str, Program]:
    """The known bug classes, by corpus file name."""
    out = {}
    for name, build in KNOWN.items():
        program = build()
        fresh_uids(program)
        out[name] = program
    return out
