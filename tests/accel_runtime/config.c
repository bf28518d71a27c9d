/* Prints the runtime's launch configuration: config [-k KERNEL] [-b B0xB1..] E0 [E1 [E2]]
   -> "global=AxB local=CxD". Without -k and -b: passman_accel_config; with either:
   passman_accel_config_for(KERNEL or NULL, the block or NULL, ...). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "passman_accel.h"

/* In passman_accel_common.h (the runtime's own declaration). */
void passman_accel_config_for(const char *kernel, const size_t *block, int ndims,
                              const size_t *extent, size_t *global, size_t *local);

int main(int argc, char **argv)
{
    size_t extent[3], global[3], local[3], block[3] = {1, 1, 1};
    const char *kernel = NULL;
    int ndims, k, a = 1, has_block = 0;
    while (a + 1 < argc && (strcmp(argv[a], "-k") == 0 || strcmp(argv[a], "-b") == 0)) {
        if (argv[a][1] == 'k') {
            kernel = argv[a + 1];
        } else {
            char *p = argv[a + 1];
            for (k = 0; k < 3 && *p; k++) {
                block[k] = (size_t) strtoull(p, &p, 10);
                if (*p == 'x')
                    p++;
            }
            has_block = 1;
        }
        a += 2;
    }
    ndims = argc - a;
    if (ndims < 1 || ndims > 3) {
        fprintf(stderr, "usage: %s [-k KERNEL] [-b BLOCK] E0 [E1 [E2]]\n", argv[0]);
        return 2;
    }
    for (k = 0; k < ndims; k++)
        extent[k] = (size_t) strtoull(argv[a + k], NULL, 10);
    if (kernel || has_block)
        passman_accel_config_for(kernel, has_block ? block : NULL, ndims, extent, global, local);
    else
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
