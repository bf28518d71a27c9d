/* Misuses of the host API that the runtime reports (a message, status 1).
   Usage: errors box|free|size|rank|twice */
#include <stdio.h>
#include <string.h>

#include "passman_accel.h"

int main(int argc, char **argv)
{
    static double host[6 * 8];
    size_t dims[2] = {6, 8}, off[2] = {2, 5}, cnt[2] = {2, 4}, all[2] = {6, 8}, zero[2] = {0, 0};
    const char *mode = argc == 2 ? argv[1] : "";
    void *dev = passman_accel_malloc(sizeof host);
    if (strcmp(mode, "box") == 0) /* columns 5..8 of 8 */
        passman_accel_copy_to(dev, host, sizeof *host, 2, dims, off, cnt);
    else if (strcmp(mode, "free") == 0) /* a host pointer */
        passman_accel_free(host);
    else if (strcmp(mode, "twice") == 0) {
        passman_accel_free(dev);
        passman_accel_free(dev);
    } else if (strcmp(mode, "size") == 0) { /* an array larger than the buffer */
        void *small = passman_accel_malloc(sizeof host / 2);
        passman_accel_copy_from(host, small, sizeof *host, 2, dims, zero, all);
    } else if (strcmp(mode, "rank") == 0)
        passman_accel_copy_to(dev, host, sizeof *host, 5, dims, zero, all);
    else
        return 2;
    printf("not reported\n");
    return 0;
}
