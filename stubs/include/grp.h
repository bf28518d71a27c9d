/* passman stub <grp.h>: the group database (glibc). */
#ifndef _PASSMAN_GRP_H
#define _PASSMAN_GRP_H

#ifndef __passman_size_t
#define __passman_size_t
typedef unsigned long size_t;
#endif
#ifndef __passman_id_types
#define __passman_id_types
typedef unsigned int uid_t;
typedef unsigned int gid_t;
#endif
#ifndef __passman_FILE
#define __passman_FILE
typedef struct _IO_FILE FILE;
#endif

#define NSS_BUFLEN_GROUP 1024

struct group {
    char *gr_name;
    char *gr_passwd;
    gid_t gr_gid;
    char **gr_mem;
};

void setgrent(void);
void endgrent(void);
struct group *getgrent(void);
struct group *fgetgrent(FILE *);
struct group *getgrgid(gid_t);
struct group *getgrnam(const char *);
int getgrgid_r(gid_t, struct group *restrict, char *restrict, size_t,
               struct group **restrict);
int getgrnam_r(const char *restrict, struct group *restrict, char *restrict, size_t,
               struct group **restrict);
int fgetgrent_r(FILE *restrict, struct group *restrict, char *restrict, size_t,
                struct group **restrict);
int setgroups(size_t, const gid_t *);
int getgrouplist(const char *, gid_t, gid_t *, int *);
int initgroups(const char *, gid_t);
#ifdef _GNU_SOURCE
int putgrent(const struct group *restrict, FILE *restrict);
int getgrent_r(struct group *restrict, char *restrict, size_t, struct group **restrict);
#endif

#endif
