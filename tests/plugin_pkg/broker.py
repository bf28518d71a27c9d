"""The ``vecops`` broker, written in Python against passman's public broker API.

Importing this module (the ``passman.brokers`` entry point names it)
registers the broker. The stub bodies say what each function reads and
writes; the CPU implementation is ``vecops.c``, compiled with the program.
"""

from __future__ import annotations

from pathlib import Path

from passman.brokers import Broker, Implementation, Stub, register_broker

HERE = Path(__file__).resolve().parent

STUBS = """\
#include <vecops.h>

/* vec_fill(x, n, v) writes x[0..n); vec_sum(x, n) only reads x[0..n). */
void vec_fill(double *x, int n, double v)
{
    int i;
    for (i = 0; i < n; i++)
        x[i] = v;
}

double vec_sum(const double *x, int n)
{
    int i;
    double s = 0;
    for (i = 0; i < n; i++)
        s = s + x[i];
    return s;
}
"""

PURE = {"vec_sum"}


class VecopsBroker(Broker):
    """Models of the vecops library; the real code is vecops.c on every target."""

    name = "vecops"
    feature = "vector operations"
    description = "the vecops test library (a plugin broker)"
    detect_includes = ("vecops.h",)

    def functions(self) -> list[str]:
        return ["vec_fill", "vec_sum"]

    def include_dirs(self) -> list[Path]:
        return [HERE / "include"]

    def implementation(self, target: str = "cpu") -> Implementation:
        return Implementation(sources=[HERE / "vecops.c"], cppflags=["-I", str(HERE / "include")],
                              headers=["vecops.h"])

    def stub(self, name: str) -> Stub | None:
        if name not in self.functions():
            return None
        return Stub(name=name, code=STUBS, broker=self.name, header="vecops.h",
                    targets={"cpu": self.implementation("cpu")}, pure=name in PURE,
                    include_dirs=self.include_dirs())


register_broker(VecopsBroker())
