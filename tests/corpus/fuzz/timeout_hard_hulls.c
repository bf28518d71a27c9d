/* Fuzz case: timeout in api mode, seed 70240, shrunk automatically. */
/* Found by: python -m passman.fuzz --mode api --seed 70240 --cases 1 */
/* Check it: python -m passman.fuzz --check timeout_hard_hulls.c */
/* Problem: the steps ran past 10 s */
/* passman-timeout: 30 */
/* passman-steps: [{"name": "auto_schedule", "function": "main", "loop": null, "args": [], "kwargs": {"tile": false}}, {"name": "ompify_code", "function": "main", "loop": null, "args": [], "kwargs": {}}] */

#include <stdio.h>

int main(void)
{
    int n = 19;
    int i, j;
    double sum;
    double A[20][20];
    for (i = 0; i < 20; i++)
        for (j = 0; j < 20; j++)
            A[i][j] = (i * 7 + j * 3 + 1) % 11 * 0.25;
    for (i = 2; i < 15; i++) {
        A[i][i] = 1.0;
        for (j = n - 1; j >= 0; j--)
            A[i + 3][j] = 0.3 * A[11][j] + 0.2 * A[13][j] + 0.3 * A[j][i];
    }
    sum = 0.0;
    for (i = 0; i < 20; i++)
        for (j = 0; j < 20; j++)
            sum += A[i][j] * ((i * 3 + j * 7) % 13 + 1);
    printf("A %.17g\n", sum);
    return 0;
}
