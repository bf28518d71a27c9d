"""Analyses of C code: references, memory effects (proper, cumulated, summaries, calls),
reductions, private variables, liveness, the call graph.
"""
