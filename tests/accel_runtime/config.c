/* Prints passman_accel_config's choice: config E0 [E1 [E2]] -> "global=AxB local=CxD". */
#include <stdio.h>
#include <stdlib.h>

#include "passman_accel.h"

int main(int argc, char **argv)
{
    size_t extent[3], global[3], local[3];
    int ndims = argc - 1, k;
    if (ndims < 1 || ndims > 3) {
        fprintf(stderr, "usage: %s E0 [E1 [E2]]\n", argv[0]);
        return 2;
    }
    for (k = 0; k < ndims; k++)
        extent[k] = (size_t) strtoull(argv[k + 1], NULL, 10);
    passman_accel_config(ndims, extent, global, local);
    printf("global=");
    for (k = 0; k < ndims; k++)
        printf(k ? "x%zu" : "%zu", global[k]);
    printf(" local=");
    for (k = 0; k < ndims; k++)
        printf(k ? "x%zu" : "%zu", local[k]);
    printf("\n");
    return 0;
}
