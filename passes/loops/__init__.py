"""Loop transformations: counted loops, unroll, tile, interchange / skew / unroll-and-jam,
normalize / strip-mine / reverse, hyperplane, fusion and distribution.
"""
