"""passman.templating: templates compiled once, their code kept between runs (Jinja's bytecode cache)."""

from __future__ import annotations

import pytest

from passman import templating


@pytest.fixture
def fresh(monkeypatch, tmp_path):
    """A new environment whose cache folder is under ``tmp_path``."""
    monkeypatch.setenv("PASSMAN_CACHE_DIR", str(tmp_path / "cache"))
    templating.c_environment.cache_clear()
    yield tmp_path / "cache" / "templates"
    templating.c_environment.cache_clear()


def test_a_template_is_compiled_once_and_its_code_kept(fresh):
    assert templating.template("t.j2", "x = {{ x }};\n").render(x=3) == "x = 3;\n"
    kept = list(fresh.iterdir())
    assert len(kept) == 1 and kept[0].stat().st_size > 0
    templating.c_environment.cache_clear()  # the next run: the code is read back, not compiled
    env = templating.c_environment()
    loaded = []
    real = env.bytecode_cache.load_bytecode

    def spy(bucket):
        real(bucket)
        loaded.append(bucket.code is not None)

    env.bytecode_cache.load_bytecode = spy
    assert templating.template("t.j2", "x = {{ x }};\n").render(x=4) == "x = 4;\n"
    assert loaded == [True]


def test_an_edited_template_is_compiled_again(fresh):
    assert templating.template("t.j2", "a{{ x }}").render(x=1) == "a1"
    assert templating.template("t.j2", "b{{ x }}").render(x=1) == "b1"
    assert len(list(fresh.iterdir())) == 2


def test_no_cache_where_asked_or_where_the_folder_cannot_be_made(monkeypatch, tmp_path):
    monkeypatch.setenv("PASSMAN_CACHE_DIR", "")
    assert templating._bytecode_cache() is None
    a_file = tmp_path / "a_file"
    a_file.write_text("")
    monkeypatch.setenv("PASSMAN_CACHE_DIR", str(a_file))  # its "templates" folder cannot exist
    assert templating._bytecode_cache() is None
    templating.c_environment.cache_clear()
    try:  # and the templates still render, compiled in the process
        assert templating.template("t.j2", "{{ 1 + 1 }}").render() == "2"
    finally:
        templating.c_environment.cache_clear()
