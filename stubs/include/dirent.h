/* passman stub <dirent.h>: directory streams, x86-64 glibc layout. */
#ifndef _PASSMAN_DIRENT_H
#define _PASSMAN_DIRENT_H

#include <sys/types.h>

struct dirent {
    ino_t d_ino;
    off_t d_off;
    unsigned short d_reclen;
    unsigned char d_type;
    char d_name[256];
};

enum {
    DT_UNKNOWN = 0,
    DT_FIFO = 1,
    DT_CHR = 2,
    DT_DIR = 4,
    DT_BLK = 6,
    DT_REG = 8,
    DT_LNK = 10,
    DT_SOCK = 12,
    DT_WHT = 14
};
#define DT_UNKNOWN DT_UNKNOWN
#define DT_FIFO DT_FIFO
#define DT_CHR DT_CHR
#define DT_DIR DT_DIR
#define DT_BLK DT_BLK
#define DT_REG DT_REG
#define DT_LNK DT_LNK
#define DT_SOCK DT_SOCK
#define DT_WHT DT_WHT

typedef struct __dirstream DIR;

DIR *opendir(const char *);
DIR *fdopendir(int);
int closedir(DIR *);
struct dirent *readdir(DIR *);
void rewinddir(DIR *);
void seekdir(DIR *, long);
long telldir(DIR *);
int dirfd(DIR *);
int scandir(const char *restrict, struct dirent ***restrict, int (*)(const struct dirent *),
            int (*)(const struct dirent **, const struct dirent **));
int alphasort(const struct dirent **, const struct dirent **);

#endif
