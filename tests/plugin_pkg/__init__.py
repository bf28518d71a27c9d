"""A tiny third-party package that teaches passman the ``vecops`` library."""
