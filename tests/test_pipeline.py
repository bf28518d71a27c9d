"""Textual pipelines: grammar and error columns, option scoping, targets, ``?``, fix points,
the history as a reproducer (every corpus program through the OpenMP recipe), the CLI's ``-p``,
and the recipe helpers ``attempt`` / ``try_in_order``."""

from __future__ import annotations

import subprocess
import sys

import pytest
from conftest import CORPUS, corpus_params, skip_slow
from pycparser import c_ast

from passman import InvalidInput, PassFailed, Workspace, register_property, transformation
from passman.astutil import find_all
from passman.cli import main as cli
from passman.pipeline import MAX_ROUNDS, Call, Group, format_value, parse
from passman.recipe import attempt, load_recipe, try_in_order

PROG = """\
int g(int x) { return x + 1; }
int main(void) {
    int budget = 3;
    int s = 0;
    outer: for (int i = 0; i < 10; i++)
        inner: for (int j = 0; j < 10; j++)
            s += g(i) + j;
    for (int k = 0; k < 3; k++)
        s -= k;
    return s - budget;
}
"""

#: what the recording passes saw: (pass, function, loop label or None, options)
SEEN: list[tuple] = []

GLOBAL = register_property("t_pipe_global", int, 5, "a global property for the pipeline tests")


@transformation(scope="module")
def t_pipe_bump(module, by: int = 1):
    """Add ``by`` to every integer constant of the function (test pass)."""
    for c in find_all(module.ast, c_ast.Constant):
        if c.type == "int":
            c.value = str(int(c.value) + by)


@transformation(scope="module")
def t_pipe_dec(module):
    """Decrement ``budget``'s initial value; refuse at 0 (test pass for fix points)."""
    for d in find_all(module.ast, c_ast.Decl):
        if d.name == "budget" and isinstance(d.init, c_ast.Constant):
            if d.init.value == "0":
                raise PassFailed("budget is 0")
            d.init.value = str(int(d.init.value) - 1)
            return
    raise PassFailed(f"no budget in {module.name}")


@transformation(scope="module")
def t_pipe_refuse(module):
    """Modify the function, then refuse (test pass: the change must be undone)."""
    for c in find_all(module.ast, c_ast.Constant):
        c.value = "999"
    raise PassFailed(f"{module.name}: refused on purpose")


@transformation(scope="module", changes_code=False)
def t_pipe_opts(module, sizes: tuple[int, ...] = (), name: str = "", flag: bool = False):
    """Record the options it gets and the global property (test pass, changes nothing)."""
    SEEN.append(("t_pipe_opts", module.name, None,
                 (sizes, name, flag, module.ws.props.t_pipe_global, module.ws.props.t_pipe_opts_name)))


@transformation(scope="loop", changes_code=False)
def t_pipe_loop(loop):
    """Record the loop it runs on (test pass, changes nothing)."""
    SEEN.append(("t_pipe_loop", loop.module.name, loop.label, ()))


@transformation(scope="unit", changes_code=False)
def t_pipe_unit(unit):
    """Record the unit it runs on (test pass, changes nothing)."""
    SEEN.append(("t_pipe_unit", unit.name, None, ()))


@transformation(scope="program", changes_code=False)
def t_pipe_program(ws):
    """Record that it ran (test pass, changes nothing)."""
    SEEN.append(("t_pipe_program", None, None, ()))


@transformation(scope="module")
def t_pipe_outer(module):
    """Run ``t_pipe_bump`` inside, then bump once more (a pass running a pass)."""
    module.t_pipe_bump(by=10)
    for c in find_all(module.ast, c_ast.Constant):
        if c.type == "int":
            c.value = str(int(c.value) + 1)


@pytest.fixture
def ws(write_c):
    SEEN.clear()
    return Workspace(write_c(PROG, "p.c"))


def column_of(text: str):
    """The column an InvalidInput for pipeline ``text`` names (``pipeline:1:COL: error:``)."""
    with pytest.raises(InvalidInput) as info:
        parse(text)
    msg = str(info.value)
    assert msg.startswith("pipeline:1:") and ": error: " in msg, msg
    return int(msg.split(":")[2]), msg


# ------------------------------------------------------------------------------- syntax
def test_parse_calls_targets_options_and_groups():
    p = parse(' auto_schedule{fusion=max,tile_sizes=32,32} , ompify_code? ,(dead_code_elimination,partial_eval)*')
    a, b, g = p.items
    assert isinstance(a, Call) and a.name == "auto_schedule" and not a.optional
    assert [(o.name, o.value) for o in a.options] == [("fusion", "max"), ("tile_sizes", "32,32")]
    assert b.name == "ompify_code" and b.optional and b.options == ()
    assert isinstance(g, Group) and [c.name for c in g.items] == ["dead_code_elimination", "partial_eval"]
    assert g.max_rounds is None and str(p) == (
        "auto_schedule{fusion=max,tile_sizes=32,32},ompify_code?,(dead_code_elimination,partial_eval)*"
    )
    t = parse('unroll@kernel.inner_loops{rate=8},tile@k.l3{sizes="32,32"}?,x@*.loops,y@f."loops",z@"u-1"')
    targets = [c.target for c in t.items]
    assert (targets[0].function, targets[0].loops, targets[0].label) == ("kernel", "inner_loops", None)
    assert (targets[1].function, targets[1].label) == ("k", "l3") and t.items[1].options[0].value == "32,32"
    assert (targets[2].function, targets[2].loops) == (None, "loops")
    assert (targets[3].loops, targets[3].label) == (None, "loops")  # quoted: a label, not the loop set
    assert targets[4].function == "u-1"
    assert parse("  ").items == ()  # the empty pipeline (a history with no step) does nothing
    assert str(t) == 'unroll@kernel.inner_loops{rate=8},tile@k.l3{sizes=32,32}?,x@*.loops,y@f."loops",z@"u-1"'


def test_option_values_run_to_the_next_name_equals_or_the_brace_and_may_be_quoted():
    (c,) = parse('p{a=1,2 , 3,b= x y ,c="}{,d=\\"q\\"",d=}').items
    assert [(o.name, o.value) for o in c.options] == [("a", "1,2 , 3"), ("b", "x y"), ("c", '}{,d="q"'), ("d", "")]
    (n,) = parse("(a,(b)*3?)*7").items
    assert n.max_rounds == 7 and n.items[1].max_rounds == 3 and n.items[1].optional


@pytest.mark.parametrize("text, col, words", [
    ("a,,b", 3, "expected a pass name"),
    ("a,", 3, "expected a pass name"),
    ("a b", 3, "expected ','"),
    ("auto_schedule{fusion=max", 22, "unterminated options"),
    ('a{x="1" y=2}', 9, "expected ',' or '}' after the value of x, found 'y'"),
    ("a{x=max,,b", 5, "unterminated options"),  # ",," does not end the value: "}" does
    ("a{=1}", 3, "expected an option name"),
    ("a{x}", 4, "expected '=' after option x"),
    ('a{x="1}', 5, "unterminated string"),
    ("(a,b)", 6, "expected '*'"),
    ("(a,b", 5, "expected ',' or ')'"),
    ("()*", 2, "empty group"),
    ("(a)*0", 5, "at least one round"),
    ("a@", 3, "expected a function name"),
    ("a@f.", 5, "expected a loop label"),
    ("a{x=y{z}", 6, "quote the value"),
])
def test_malformed_pipelines_name_the_column(text, col, words):
    got, msg = column_of(text)
    assert got == col and words in msg, msg


@pytest.mark.parametrize("text, col, words", [
    ("t_pipe_bump,no_such_pass", 13, "unknown pass 'no_such_pass'"),
    ("t_pipe_bump{byy=2}", 13, "unknown option 'byy' for pass t_pipe_bump (known: by)"),
    ("t_pipe_bump{by=two}", 16, "expects an integer"),
    ("t_pipe_bump{by=1,by=2}", 18, "given twice"),
    ("t_pipe_bump{unroll_rate=2}", 13, "property of pass unroll, not of t_pipe_bump"),
    ("t_pipe_bump@main.loops", 12, "not to loops"),
    ("t_pipe_opts{flag=maybe}", 18, "expects true or false"),
    ("dependences", 1, "is an analysis"),
    ("(t_pipe_bump,dependences)*", 14, "is an analysis"),
])
def test_bad_names_and_values_name_the_column_before_anything_runs(ws, text, col, words):
    before = ws.cu.p.code
    with pytest.raises(InvalidInput) as info:
        ws.apply(text)
    msg = str(info.value)
    assert msg.startswith(f"pipeline:1:{col}: error: ") and words in msg, msg
    assert ws.cu.p.code == before and len(ws.history) == 0


# -------------------------------------------------------------------- options and targets
def test_options_are_scoped_to_their_call_and_converted_to_the_property_types(ws):
    ws.apply('t_pipe_opts@g{sizes=32,32,name="a,b=c",flag=yes,t_pipe_global=7},t_pipe_opts@g')
    assert SEEN == [
        ("t_pipe_opts", "g", None, ((32, 32), "a,b=c", True, 7, "a,b=c")),
        ("t_pipe_opts", "g", None, ((), "", False, 5, "")),
    ]
    assert ws.props.t_pipe_opts_sizes == () and ws.props.t_pipe_opts_name == "" and ws.props.t_pipe_global == 5
    assert "t_pipe_opts_sizes" not in ws.props._values and "t_pipe_global" not in ws.props._values


def test_a_pipeline_option_does_not_change_the_global_properties_of_a_real_pass(ws):
    ws.props.auto_schedule_fusion = "none"
    with pytest.raises(PassFailed):  # nothing to schedule in g: refused, but the options were taken
        ws.apply("auto_schedule@g{fusion=max,tile_sizes=32,32}")
    assert ws.props.auto_schedule_fusion == "none" and ws.props.auto_schedule_tile_sizes == ""
    step = ws.history[-1]
    assert dict(step.args) == {"fusion": "max", "tile_sizes": "32,32"}


def test_targets_every_function_one_function_and_loop_sets(ws):
    def loops(text):
        SEEN.clear()
        ws.apply(text)
        return [(f, lab) for _, f, lab, _ in SEEN]

    main = ws["main"]
    k_label = [lp.label for lp in main.loops()][-1]
    assert loops("t_pipe_loop@main.loops") == [("main", "outer"), ("main", k_label)]
    assert loops("t_pipe_loop@main.inner_loops") == [("main", "inner"), ("main", k_label)]
    assert loops("t_pipe_loop@main.all_loops") == [("main", "outer"), ("main", "inner"), ("main", k_label)]
    assert loops("t_pipe_loop@main") == loops("t_pipe_loop@main.all_loops") == loops("t_pipe_loop")
    assert loops("t_pipe_loop@main.inner") == [("main", "inner")]
    assert loops("t_pipe_loop@*.loops") == [("main", "outer"), ("main", k_label)]
    SEEN.clear()
    ws.apply("t_pipe_opts,t_pipe_opts@main")
    assert [f for _, f, _, _ in SEEN] == ["g", "main", "main"]  # every function, in name order
    with pytest.raises(InvalidInput, match=r"pipeline:1:1: error: no loop 'nope' in function main"):
        ws.apply("t_pipe_loop@main.nope")
    with pytest.raises(InvalidInput, match=r"pipeline:1:1: error: no function 'nope'"):
        ws.apply("t_pipe_bump@nope")


def test_unit_and_program_passes_take_their_own_targets(ws):
    ws.apply("t_pipe_unit,t_pipe_unit@p,t_pipe_program")
    assert [(n, f) for n, f, _, _ in SEEN] == [("t_pipe_unit", "p"), ("t_pipe_unit", "p"), ("t_pipe_program", None)]
    assert ws.history.pipeline() == "t_pipe_unit@p,t_pipe_unit@p,t_pipe_program"
    with pytest.raises(InvalidInput, match=r"pipeline:1:15: error: pass t_pipe_program applies to the whole program"):
        ws.apply("t_pipe_program@main")
    with pytest.raises(InvalidInput, match=r"pipeline:1:12: error: .* to compilation units, not to loops"):
        ws.apply("t_pipe_unit@p.loops")
    with pytest.raises(InvalidInput, match=r"pipeline:1:1: error: no compilation unit 'q'"):
        ws.apply("t_pipe_unit@q")
    with pytest.raises(InvalidInput, match="applies to the whole program, not to function g"):
        ws["g"].apply("t_pipe_program")


def test_a_real_loop_pass_on_selected_loops(ws):
    before = ws["main"].code
    ws.apply("unroll@main.inner{rate=2}")
    assert ws["main"].code != before and ws.history[-1].target == ("loop", ("main", "inner"))
    assert ws.history[-1].options == (("rate", 2),)


def test_module_apply_runs_on_its_function_only(ws):
    g_before, main_before = ws["g"].code, ws["main"].code
    assert ws["main"].apply("t_pipe_bump{by=2}") is True
    assert ws["g"].code == g_before and ws["main"].code != main_before and "int budget = 5;" in ws["main"].code
    with pytest.raises(InvalidInput, match="applies to function main, not g"):
        ws["main"].apply("t_pipe_bump@g")


# ------------------------------------------------------------------------- ? and refusals
def test_a_refusal_stops_the_pipeline_and_names_the_step(ws):
    before = ws.cu.p.code
    with pytest.raises(PassFailed) as info:
        ws.apply("t_pipe_bump@g,t_pipe_refuse@main,t_pipe_bump@main")
    msg = str(info.value)
    assert "pipeline step 2 't_pipe_refuse@main' (column 15)" in msg and "refused on purpose" in msg
    assert info.value.pass_name == "t_pipe_refuse"
    assert "return x + 2;" in ws["g"].code  # the step before stays applied
    assert ws["main"].code == Workspace.from_code(PROG, "p.c")["main"].code  # main untouched
    assert ws.cu.p.code != before


def test_question_mark_tolerates_a_refusal_and_the_code_is_as_before(ws):
    before = ws["main"].code
    assert ws.apply("t_pipe_refuse?") is False
    assert ws["main"].code == before
    assert ws.apply("t_pipe_refuse@main?,t_pipe_bump@main") is True
    assert "int budget = 4;" in ws["main"].code


def test_a_step_on_several_functions_succeeds_when_one_applies(ws):
    assert ws.apply("t_pipe_dec") is True  # g has no budget, main does
    assert "int budget = 2;" in ws["main"].code
    with pytest.raises(PassFailed, match="refused: function g: g: refused on purpose; function main: main:"):
        ws.apply("t_pipe_refuse")


# ---------------------------------------------------------------------------- fix points
def test_a_group_repeats_until_a_round_changes_nothing(ws):
    assert ws.apply("(t_pipe_refuse,t_pipe_dec@main)*") is True  # members may refuse
    assert "int budget = 0;" in ws["main"].code
    assert [s.pass_name for s in ws.history.applied()] == ["t_pipe_dec"] * 3
    assert ws.apply("(t_pipe_dec)*") is False  # already at its fix point


def test_a_group_bounded_by_its_rounds_refuses_unless_tolerated(ws, write_c):
    with pytest.raises(PassFailed, match=r"no fix point after 2 rounds"):
        ws.apply("(t_pipe_dec@main)*2")
    assert "int budget = 1;" in ws["main"].code  # the rounds run stay applied
    assert ws.apply("(t_pipe_bump@g)*3?") is True  # never converges: tolerated, but it changed g
    assert "return x + 4;" in ws["g"].code

    with pytest.raises(PassFailed, match=f"no fix point after {MAX_ROUNDS} rounds"):
        ws.apply("(t_pipe_bump@g)*")


def test_an_inner_group_that_gives_up_still_counts_as_a_change_of_the_outer_round(ws):
    assert ws.apply("((t_pipe_dec@main)*1?)*") is True
    assert "int budget = 0;" in ws["main"].code  # 3 outer rounds changed, the 4th did not


def test_a_fix_point_of_real_cleanups(write_c):
    ws = Workspace(write_c("int f(int n) { int a = 2; int b = a * 3; int c = n; return b + n; }\n"
                           "int main(void) { return f(1) - 7; }\n", "c.c"))
    assert ws["f"].apply("(partial_eval,dead_code_elimination)*") is True
    code = ws["f"].code
    assert "return 6 + n;" in code and "int c" not in code and "int a" not in code, code
    assert ws["f"].apply("(partial_eval,dead_code_elimination)*") is False


# ------------------------------------------------------------------ history as a pipeline
def test_history_pipeline_skips_refusals_and_nested_passes_and_replays(ws, write_c):
    ws["main"].t_pipe_outer()
    with pytest.raises(PassFailed):
        ws["g"].t_pipe_refuse()
    ws["main"].loop("inner").unroll(2)
    ws.props.t_pipe_global = 9
    ws["g"].t_pipe_bump(by=3)
    assert [s.depth for s in ws.history] == [1, 0, 0, 0, 0]
    text = ws.history.pipeline()
    assert text == "t_pipe_outer@main,unroll@main.inner{rate=2},t_pipe_bump@g{by=3,t_pipe_global=9}"
    other = Workspace(write_c(PROG, "q.c"))
    other.apply(text)
    assert other["main"].code == ws["main"].code and other["g"].code == ws["g"].code
    assert other.history.pipeline() == text and other.props.t_pipe_global == 5
    fresh = Workspace(write_c(PROG, "r.c"))
    assert ws.history.replay(fresh) == 3  # the nested step is not replayed on its own
    assert fresh["main"].code == ws["main"].code


def test_code_set_from_text_has_no_pipeline_form(ws):
    ws["g"].code = "int g(int x) { return x + 2; }"
    with pytest.raises(InvalidInput, match="sets the code of g from text"):
        ws.history.pipeline()


def test_values_print_back_to_themselves():
    for value, text in [(True, "true"), (False, "false"), (None, "none"), (32, "32"), ((32, 64), "32,64"),
                        ((), '""'), ("omp parallel for", '"omp parallel for"'), ('a"b', '"a\\"b"'),
                        ("smart", "smart"), (0.5, "0.5")]:
        assert format_value(value) == text
        (call,) = parse(f"p{{x={text}}}").items
        assert call.options[0].value == (text.strip('"').replace('\\"', '"') if text != '""' else "")


#: the programs replayed by default (every single-file one with -m slow)
REPLAYED = ["gemm", "heat_3d", "adi", "correlation", "jacobi_1d", "nussinov", "histogram",
            "lu", "fdtd_2d", "structs_pointers"]
PROGRAMS = [p for p in corpus_params(REPLAYED) if len(p.values[0]) == 1]


@pytest.mark.parametrize("files", PROGRAMS)
def test_the_openmp_recipe_history_replays_to_byte_identical_code(files, request):
    skip_slow(request)
    ws = Workspace(*files)
    load_recipe("openmp").main(ws)
    text = ws.history.pipeline()
    assert text, "the recipe changed nothing"
    again = Workspace(*files)
    again.apply(text)
    for a, b in zip(ws.compilation_units, again.compilation_units, strict=True):
        assert a.code == b.code, a.name
    assert again.history.pipeline() == text


def test_replay_keeps_options_and_global_properties_set_by_the_user():
    src = CORPUS / "gemm.c"
    ws = Workspace(src, parallel_min_work=50)
    load_recipe("openmp").main(ws, min_work=50, tile_sizes="8,8", fusion="none")
    text = ws.history.pipeline()
    assert "parallel_min_work=50" in text and "tile_sizes=8,8" in text and "fusion=none" in text
    again = Workspace(src)
    again.apply(text)
    assert [cu.code for cu in again.compilation_units] == [cu.code for cu in ws.compilation_units]
    assert again.props.parallel_min_work != 50


# ------------------------------------------------------------------------------------ CLI
def test_cli_runs_a_pipeline(tmp_path, capsys):
    out = tmp_path / "out"
    src = CORPUS / "gemm.c"
    assert cli(["run", "-p", "auto_schedule@kernel_gemm{fusion=max,tile_sizes=16,16},ompify_code?",
                str(src), "-o", str(out)]) == 0
    text = (out / "gemm.c").read_text()
    assert "#pragma omp parallel for" in text and "c0 += 16" in text.replace("c1 += 16", "c0 += 16"), text
    assert cli(["run", "openmp", str(src), "-o", str(tmp_path / "o2")]) == 0  # a recipe still works


def test_cli_malformed_pipeline_is_one_error_line_with_its_column(tmp_path):
    r = subprocess.run(
        [sys.executable, "-c", "import sys; from passman.cli import main; sys.exit(main())",
         "run", "-p", "auto_schedule{fusion=max},,ompify_code", str(CORPUS / "dot.c")],
        capture_output=True, text=True,
    )
    assert r.returncode == 1, r.stderr
    lines = r.stderr.strip().splitlines()
    assert lines == ["pipeline:1:27: error: expected a pass name or '(', found ','"], r.stderr
    assert "Traceback" not in r.stderr and r.stdout == ""


def test_cli_refused_step_is_one_error_line(capsys):
    assert cli(["run", "-p", "auto_schedule@main", str(CORPUS / "dot.c")]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("passman: error: auto_schedule: pipeline step 1"), err


def test_cli_set_with_a_pipeline_must_name_a_property(capsys):
    assert cli(["run", "-p", "ompify_code?", str(CORPUS / "dot.c"), "--set", "nope=1"]) == 1
    assert "unknown property 'nope'" in capsys.readouterr().err


# ------------------------------------------------------------------------- recipe helpers
def test_attempt_and_try_in_order(ws):
    before = ws["main"].code
    assert attempt(ws["main"].t_pipe_refuse) is False and ws["main"].code == before
    assert attempt(ws["main"].t_pipe_bump, by=2) is True
    assert try_in_order(ws["main"].t_pipe_refuse, ws["main"].t_pipe_dec, ws["main"].t_pipe_bump) == 1
    assert "int budget = 4;" in ws["main"].code  # 3 + 2 - 1: the third was not tried
    with pytest.raises(PassFailed, match="every alternative refused: t_pipe_refuse: main: refused on purpose; "
                                         "t_pipe_refuse: main: refused on purpose"):
        try_in_order(ws["main"].t_pipe_refuse, ws["main"].t_pipe_refuse)
    with pytest.raises(InvalidInput):  # not a refusal: propagates
        attempt(ws["main"].t_pipe_bump, by="x")
