"""Parallelism: loop verdicts (dependences, memory, arrays), parallelizers, privatization,
the OpenMP marker, clauses and ``ompify_code``.
"""
