"""Interprocedural transformations: inline, clone, outline, constant arguments, array
linearization.
"""
