/* passman stub <utime.h>: file access and modification times (glibc). */
#ifndef _PASSMAN_UTIME_H
#define _PASSMAN_UTIME_H

#ifndef __passman_time_t
#define __passman_time_t
typedef long time_t;
#endif

struct utimbuf {
    time_t actime;
    time_t modtime;
};

int utime(const char *, const struct utimbuf *);

#endif
