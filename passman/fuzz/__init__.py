"""A fuzzer for passman: random affine loop programs, a differential oracle, a shrinker.

    python -m passman.fuzz --cases 150 --seed 1 --mode both --jobs 2 --shrink --save tests/corpus/fuzz
    python -m passman.fuzz --check tests/corpus/fuzz/*.c

* :mod:`.program`: the structured form of a program (arrays, nests, loops,
  statements), its ranges, extents and C text;
* :mod:`.generator`: a random program per seed;
* :mod:`.steps`: random sequences of Python API transformations, and their
  replay in a child process;
* :mod:`.oracle`: passman on one program (the OpenMP recipe, or API steps),
  outputs compared with the original's, the case classified;
* :mod:`.case`: a seed and a mode make a case; judging it;
* :mod:`.shrink`: a failing case reduced to a small program, saved;
* :mod:`.campaign`: many cases in parallel processes, a table;
* :mod:`.known`: the bug classes known before the fuzzer, in its form;
* :mod:`.mutate`: the invalid-C half: corpus programs mutated at random,
  judged against ``gcc -fsyntax-only`` (``python -m passman.fuzz.mutate``).

The package imports nothing here, so that ``python -m passman.fuzz.steps``
(the child process of the api mode) runs its module once.
"""
