/* passman stub <sys/utsname.h>: system name (glibc's 65-byte fields). */
#ifndef _PASSMAN_SYS_UTSNAME_H
#define _PASSMAN_SYS_UTSNAME_H

#define SYS_NMLN 65

struct utsname {
    char sysname[65];
    char nodename[65];
    char release[65];
    char version[65];
    char machine[65];
#ifdef _GNU_SOURCE
    char domainname[65];
#else
    char __domainname[65];
#endif
};

int uname(struct utsname *);

#endif
