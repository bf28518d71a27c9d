"""Unroll every innermost loop that can be unrolled (property: rate, default 4)."""

from passman import PassFailed


def main(ws, rate: int = 4, verbose: bool = False):
    """Try ``loop.unroll(rate)`` on the innermost loops of every function.

    Loops that cannot be unrolled (the pass proves it unsafe) stay as they are.
    """
    for module in ws.all_functions:
        for loop in module.inner_loops():
            try:
                loop.unroll(rate)
            except PassFailed as why:
                if verbose:
                    print(f"kept {module.name}/{loop.label}: {why}")
