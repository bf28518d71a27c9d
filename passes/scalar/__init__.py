"""Scalar and statement-level transformations: forward and induction substitution, partial
evaluation, dead code, flattening, invariant code motion, accumulation in place.
"""
