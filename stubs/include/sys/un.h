/* passman stub <sys/un.h>: Unix-domain socket addresses (glibc). */
#ifndef _PASSMAN_SYS_UN_H
#define _PASSMAN_SYS_UN_H

#include <string.h>             /* glibc's includes it too (SUN_LEN uses strlen) */

#ifndef __passman_sa_family_t
#define __passman_sa_family_t
typedef unsigned short sa_family_t;
#endif

struct sockaddr_un {
    sa_family_t sun_family;
    char sun_path[108];
};

#define SUN_LEN(ptr) ((size_t) (((struct sockaddr_un *) 0)->sun_path) \
                      + strlen ((ptr)->sun_path))

#endif
