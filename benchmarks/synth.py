"""Synthetic C programs of a chosen size, for benchmarks (PolyBench-like functions)."""

from __future__ import annotations

_KERNELS = [
    """\
void k{n}_mm(int n, double C[n][n], double A[n][n], double B[n][n])
{{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {{
            double s = 0.0;
            for (int k = 0; k < n; k++)
                s += A[i][k] * B[k][j];
            C[i][j] = s * {n}.0;
        }}
}}
""",
    """\
void k{n}_jacobi(int tsteps, int n, double A[n][n], double B[n][n])
{{
    for (int t = 0; t < tsteps; t++) {{
        for (int i = 1; i < n - 1; i++)
            for (int j = 1; j < n - 1; j++)
                B[i][j] = 0.2 * (A[i][j] + A[i][j - 1] + A[i][j + 1] + A[i + 1][j] + A[i - 1][j]);
        for (int i = 1; i < n - 1; i++)
            for (int j = 1; j < n - 1; j++)
                A[i][j] = 0.2 * (B[i][j] + B[i][j - 1] + B[i][j + 1] + B[i + 1][j] + B[i - 1][j]);
    }}
}}
""",
    """\
double k{n}_dot(int n, double x[n], double y[n])
{{
    double s = 0.0;
    int i;
    for (i = 0; i < n; i++)
        s += x[i] * y[i] + {n};
    if (s > 1e9)
        s = s / 2;
    return s;
}}
""",
    """\
void k{n}_trisolv(int n, double L[n][n], double x[n], double b[n])
{{
    for (int i = 0; i < n; i++) {{
        x[i] = b[i];
        for (int j = 0; j < i; j++)
            x[i] -= L[i][j] * x[j];
        x[i] = x[i] / L[i][i];
    }}
}}
""",
]


def program(functions: int) -> str:
    """A C program with ``functions`` kernels (cycling through a few shapes) and a main."""
    parts = ["#include <stdio.h>", "#define N 8", ""]
    calls = []
    for n in range(functions):
        kind = n % len(_KERNELS)
        parts.append(_KERNELS[kind].format(n=n))
        name = ["mm", "jacobi", "dot", "trisolv"][kind]
        args = {
            "mm": "N, C, A, B",
            "jacobi": "2, N, A, B",
            "dot": "N, x, y",
            "trisolv": "N, A, x, y",
        }[name]
        calls.append(f"    {'s += ' if name == 'dot' else ''}k{n}_{name}({args});")
    parts.append("int main(void)\n{")
    parts.append("    static double A[N][N], B[N][N], C[N][N], x[N], y[N];")
    parts.append("    double s = 0.0;")
    parts.append("    for (int i = 0; i < N; i++) {")
    parts.append("        x[i] = i; y[i] = 1.0 / (i + 1);")
    parts.append("        for (int j = 0; j < N; j++) { A[i][j] = (i == j) + 0.01 * j; B[i][j] = 0.5; }")
    parts.append("    }")
    parts.extend(calls)
    parts.append('    printf("%.6e %.6e\\n", s, C[1][2] + A[2][3]);')
    parts.append("    return 0;\n}\n")
    return "\n".join(parts)


def program_of_lines(lines: int) -> str:
    """A program of about ``lines`` lines."""
    per = sum(k.count("\n") + 1 for k in _KERNELS) / len(_KERNELS) + 1
    return program(max(1, int(lines / per)))
