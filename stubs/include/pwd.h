/* passman stub <pwd.h>: the password database. */
#ifndef _PASSMAN_PWD_H
#define _PASSMAN_PWD_H

#include <sys/types.h>

struct passwd {
    char *pw_name;
    char *pw_passwd;
    uid_t pw_uid;
    gid_t pw_gid;
    char *pw_gecos;
    char *pw_dir;
    char *pw_shell;
};

struct passwd *getpwnam(const char *);
struct passwd *getpwuid(uid_t);
struct passwd *getpwent(void);
void setpwent(void);
void endpwent(void);
int getpwnam_r(const char *restrict, struct passwd *restrict, char *restrict, size_t, struct passwd **restrict);
int getpwuid_r(uid_t, struct passwd *restrict, char *restrict, size_t, struct passwd **restrict);

#endif
