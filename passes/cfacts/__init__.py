"""Syntactic facts about C code, shared by the passes. Everything here reads the AST only
(no dependence or region analysis); one module per concern:

* :mod:`.names`: name resolution (:func:`~.names.resolve_names`), fresh names, ``where``;
* :mod:`.sideeffects`: what a statement writes and calls, pure functions;
* :mod:`.types`: declared and arithmetic types (:class:`~.types.TypeEnv`);
* :mod:`.folding`: constant folding (:func:`~.folding.simplify`, :func:`~.folding.int_value`);
* :mod:`.control`: jumps out of a statement, pragmas before it, dead loop indices;
* :mod:`.loops`: the counted ``for`` header (index, lower bound, constant step);
* :mod:`.forms`: array references, linear coefficients, ``min``/``max``.
"""
