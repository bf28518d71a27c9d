"""What the front end remembers for the way back: conditional includes, array designators by name."""

from __future__ import annotations

import pytest

from passman import Workspace
from passman.astutil import IndexDesignator, copy_node, find_all
from passman.builder import have_make
from passman.frontend import scan_directives
from passman.testing import assert_same_output

CONDITIONAL = """\
#include <stdio.h>
#ifdef NEVER_DEFINED_ANYWHERE
#include "no_such_header.h"
#endif
#ifdef ALT
#  include "alt.h"
#else
#  include "main.h"
#endif /* ALT */
#if 0
#define UNUSED_MACRO 1
#endif

int main(void)
{
    printf("value=%d\\n", value());
    return 0;
}
"""

ALT_H = "static int value(void) { return 2; }\n"
MAIN_H = "static int value(void) { return 1; }\n"


@pytest.fixture
def conditional(write_c):
    write_c(ALT_H, "alt.h")
    write_c(MAIN_H, "main.h")
    return write_c(CONDITIONAL, "cond.c")


def test_an_include_keeps_its_conditional_context(conditional):
    ws = Workspace(conditional)
    head = ws.cu.cond.printed.split("\n\n")[0].splitlines()  # as printed (``code`` is the file as written)
    assert head == [
        "#include <stdio.h>",
        "#ifdef NEVER_DEFINED_ANYWHERE",
        '#include "no_such_header.h"',
        "#endif",
        "#ifdef ALT",
        '#include "alt.h"',
        "#else",
        '#include "main.h"',
        "#endif",
    ]  # the `#if 0` around a plain #define keeps nothing, so it goes


@pytest.mark.parametrize("cppflags, expect", [([], "value=1\n"), (["-DALT"], "value=2\n")])
def test_a_recipe_that_changes_nothing_gives_a_program_that_builds(conditional, tmp_path, cppflags, expect):
    """Written unconditionally, the output would include a missing header and define value() twice."""
    ws = Workspace(conditional, cppflags=cppflags)
    result = ws.build("c", tmp_path / "out")  # the Makefile's CPPFLAGS carry the -DALT too
    assert ws.run().stdout == expect
    assert result.binary is not None
    if have_make():
        makefile = (tmp_path / "out" / "Makefile").read_text()
        assert ("-DALT" in makefile) == bool(cppflags)


def test_nested_conditionals_and_elif_branches_are_kept_whole():
    source = """\
#ifndef GUARD
#if defined(A)
#include <a.h>
#elif defined(B)
#define NOT_KEPT 1
#else
#include <c.h>
#endif
#ifdef _WIN32
#define _CRT_SECURE_NO_WARNINGS
#endif
#endif
"""
    assert scan_directives(source) == [
        "#ifndef GUARD",
        "#if defined(A)",
        "#include <a.h>",
        "#elif defined(B)",  # an empty branch stays: dropping it would change which header B takes
        "#else",
        "#include <c.h>",
        "#endif",
        "#ifdef _WIN32",
        "#define _CRT_SECURE_NO_WARNINGS",
        "#endif",
        "#endif",
    ]
    # to re-parse edited code every macro is kept, in its branch
    assert "#define NOT_KEPT 1" in scan_directives(source, everything=True)


DESIGNATORS = """\
#include <stdio.h>
enum color { RED, GREEN, BLUE, NCOLORS };
struct named { int RED; int GREEN; };
static const char *names[NCOLORS] = { [RED] = "red", [BLUE] = "blue", [GREEN] = "green" };
static struct named field = { .GREEN = 7, .RED = 5 };
static int grid[NCOLORS][2] = { [BLUE][1] = 9, [RED] = { [1] = 4 } };

int main(void)
{
    int counts[NCOLORS] = { [GREEN] = 3 };
    int sum = 0;
    for (int i = 0; i < NCOLORS; i++)
        sum += counts[i] + grid[i][1];
    printf("%s %s %s %d %d %d\\n", names[RED], names[GREEN], names[BLUE], field.RED, field.GREEN, sum);
    return 0;
}
"""


def test_an_enum_constant_designator_stays_an_array_designator(write_c):
    src = write_c(DESIGNATORS, "desig.c")
    ws = Workspace(src)
    code = ws.cu.desig.printed
    assert '{[RED] = "red", [BLUE] = "blue", [GREEN] = "green"}' in code
    assert "{.GREEN = 7, .RED = 5}" in code
    assert "{[BLUE][1] = 9, [RED] = {[1] = 4}}" in code
    assert "{[GREEN] = 3}" in code
    assert_same_output([src], ws)  # and it compiles and runs as the original


def test_the_designator_survives_copies_clones_and_new_code(write_c):
    ws = Workspace(write_c(DESIGNATORS, "desig.c"))
    main = ws["main"]
    marks = find_all(main.ast, IndexDesignator)
    assert [m.name for m in marks] == ["GREEN"]
    copied = copy_node(marks[0])
    assert type(copied) is IndexDesignator and copied.name == "GREEN"
    assert "{[GREEN] = 3}" in ws.clone()["main"].code
    main.code = main.code.replace("[GREEN] = 3", "[BLUE] = 3")  # re-parsed
    assert "{[BLUE] = 3}" in ws["main"].code
    main.loops[0].unroll(2)  # a transformation copies the function first
    assert "{[BLUE] = 3}" in ws["main"].code
