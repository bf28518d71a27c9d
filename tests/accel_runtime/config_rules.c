/* The launch-configuration rule (passman_accel_common.h) on made-up devices: the pure
   functions, which the implementations keep static, are reached by compiling the emulation
   into this program. One query a line on stdin, one answer a line on stdout:

     choose w=W m=M cu=C [x=X0xX1xX2] [g=G0xG1xG2] [occ=R0xR1x..] e=E0[xE1[xE2]]
         -> "total=B local=L0x.. global=G0x.."   (passman_block_total, passman_choose_block)
     shape w=W total=B [x=..] e=..      -> "local=.."          (passman_block_shape)
     fit w=W m=M [x=..] g=.. e=.. l=..  -> "local=.." or "fail" (passman_fit_grid)
     config [kernel=K] [block=..] w=W m=M cu=C [x=..] [g=..] e=..
         -> "global=.. local=.."         (passman_config_with: the environment's overrides)
     strips global=.. local=.. g=..     -> "n=N O0,O1:S0xS1 ..." (passman_strips: offsets, sizes)
     cudastrips [kernel=K] [block=..] w=W m=M cu=C [x=..] [g=..] e=..
         -> "global=.. local=.. groups=.. n=N"  (passman_config_strips_with: the strip-mining
                                                  CUDA launcher's configuration)
     emu [kernel=K] [block=..] e=..     -> "global=.."  (passman_accel_emu_launch_for: the
                                                         range its work-items covered)

   Missing x: no limit per dimension; missing g: any grid; cu defaults to 0 (no small-grid cap);
   occ: the kernel's resident work-items per compute unit with blocks of W, 2W, 4W ... items
   (missing: occupancy not known).
   A bad query prints "bad query" and exits 2. */
#include "passman_accel_omp.c"

static int parse_list(const char *v, size_t *out, int *n)
{
    char *end;
    *n = 0;
    for (;;) {
        if (*v < '0' || *v > '9' || *n == 3)
            return 0;
        out[(*n)++] = (size_t) strtoull(v, &end, 10);
        if (*end == '\0')
            return 1;
        if (*end != 'x')
            return 0;
        v = end + 1;
    }
}

/* "R0xR1x.." into lim->resident (at most PASSMAN_OCCUPANCY_SLOTS values): 0 when malformed. */
static int parse_occupancy(const char *v, struct passman_device_limits *lim)
{
    char *end;
    int j;
    for (j = 0; j < PASSMAN_OCCUPANCY_SLOTS; j++) {
        if (*v < '0' || *v > '9')
            return 0;
        lim->resident[j] = (size_t) strtoull(v, &end, 10);
        if (*end == '\0')
            return 1;
        if (*end != 'x')
            return 0;
        v = end + 1;
    }
    return 0;
}

static void print_list(const char *key, const size_t *v, int n)
{
    int k;
    printf("%s=", key);
    for (k = 0; k < n; k++)
        printf(k ? "x%zu" : "%zu", v[k]);
}

static void bad(void)
{
    printf("bad query\n");
    exit(2);
}

static long emu_max[3];

static void record(void *unused)
{
    int d;
    (void) unused;
#pragma omp critical
    for (d = 0; d < 3; d++)
        if (passman_accel_emu_id[d] > emu_max[d])
            emu_max[d] = passman_accel_emu_id[d];
}

int main(void)
{
    char line[1024];
    while (fgets(line, sizeof line, stdin)) {
        struct passman_device_limits lim;
        size_t e[3] = {0, 0, 0}, x[3] = {0, 0, 0}, g[3] = {0, 0, 0}, l[3] = {1, 1, 1};
        size_t block[3] = {0, 0, 0}, glob[3] = {1, 1, 1}, total = 0, off[3], size[3];
        int ne = 0, nl = 0, nb = 0, ng = 0, n, k, has_total = 0;
        char *word, *cmd, kernel[256] = "";
        line[strcspn(line, "\n")] = '\0';
        cmd = strtok(line, " ");
        if (!cmd)
            continue;
        memset(&lim, 0, sizeof lim);
        while ((word = strtok(NULL, " ")) != NULL) {
            char *v = strchr(word, '=');
            if (!v)
                bad();
            *v++ = '\0';
            if (strcmp(word, "w") == 0)
                lim.warp = (size_t) strtoull(v, NULL, 10);
            else if (strcmp(word, "m") == 0)
                lim.max_group = (size_t) strtoull(v, NULL, 10);
            else if (strcmp(word, "cu") == 0)
                lim.compute_units = (size_t) strtoull(v, NULL, 10);
            else if (strcmp(word, "total") == 0)
                total = (size_t) strtoull(v, NULL, 10), has_total = 1;
            else if (strcmp(word, "kernel") == 0)
                snprintf(kernel, sizeof kernel, "%s", v);
            else if (strcmp(word, "x") == 0 && parse_list(v, x, &n))
                memcpy(lim.max_item, x, sizeof x);
            else if (strcmp(word, "occ") == 0 && parse_occupancy(v, &lim))
                ;
            else if (strcmp(word, "g") == 0 && parse_list(v, g, &ng))
                memcpy(lim.max_groups, g, sizeof g);
            else if (strcmp(word, "e") == 0 && parse_list(v, e, &ne))
                ;
            else if (strcmp(word, "l") == 0 && parse_list(v, l, &nl))
                ;
            else if (strcmp(word, "global") == 0 && parse_list(v, glob, &n))
                ;
            else if (strcmp(word, "local") == 0 && parse_list(v, l, &nl))
                ;
            else if (strcmp(word, "block") == 0 && parse_list(v, block, &nb))
                ;
            else
                bad();
        }
        if (strcmp(cmd, "choose") == 0 && ne > 0) {
            total = passman_block_total(ne, e, &lim);
            passman_choose_block(ne, e, &lim, l);
            for (k = 0; k < ne; k++)
                glob[k] = (e[k] + l[k] - 1) / l[k] * l[k];
            printf("total=%zu ", total);
            print_list("local", l, ne);
            print_list(" global", glob, ne);
        } else if (strcmp(cmd, "shape") == 0 && ne > 0 && has_total) {
            passman_block_shape(ne, e, total, &lim, l);
            print_list("local", l, ne);
        } else if (strcmp(cmd, "fit") == 0 && ne > 0 && nl == ne) {
            if (passman_fit_grid(ne, e, &lim, l))
                print_list("local", l, ne);
            else
                printf("fail");
        } else if (strcmp(cmd, "config") == 0 && ne > 0 && (nb == 0 || nb == ne)) {
            passman_config_with(kernel[0] ? kernel : NULL, nb ? block : NULL, ne, e, &lim, glob,
                                l);
            print_list("global", glob, ne);
            print_list(" local", l, ne);
        } else if (strcmp(cmd, "cudastrips") == 0 && ne > 0 && (nb == 0 || nb == ne)) {
            size_t groups[3], count = passman_config_strips_with(
                kernel[0] ? kernel : NULL, nb ? block : NULL, ne, e, &lim, glob, l, groups);
            print_list("global", glob, ne);
            print_list(" local", l, ne);
            print_list(" groups", groups, ne);
            printf(" n=%zu", count);
        } else if (strcmp(cmd, "strips") == 0 && nl > 0) {
            size_t count = passman_strips(nl, glob, l, g, 0, off, size), s;
            printf("n=%zu", count);
            for (s = 0; s < count; s++) {
                passman_strips(nl, glob, l, g, s, off, size);
                for (k = 0; k < nl; k++)
                    printf(k ? ",%zu" : " %zu", off[k]);
                for (k = 0; k < nl; k++)
                    printf(k ? "x%zu" : ":%zu", size[k]);
            }
        } else if (strcmp(cmd, "emu") == 0 && ne > 0 && (nb == 0 || nb == ne)) {
            emu_max[0] = emu_max[1] = emu_max[2] = -1;
            passman_accel_emu_launch_for(kernel[0] ? kernel : NULL, nb ? block : NULL, record,
                                         NULL, ne, e);
            for (k = 0; k < ne; k++)
                glob[k] = (size_t) (emu_max[k] + 1);
            print_list("global", glob, ne);
        } else {
            bad();
        }
        printf("\n");
        fflush(stdout);
    }
    return 0;
}
