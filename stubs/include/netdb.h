/* passman stub <netdb.h>: network database and getaddrinfo (glibc).
   h_errno is a plain variable here, as errno is in <errno.h>; the real header
   turns the identifier into (*__h_errno_location ()) at compile time. */
#ifndef _PASSMAN_NETDB_H
#define _PASSMAN_NETDB_H

#include <netinet/in.h>
#include <stdint.h>

extern int h_errno;

#define HOST_NOT_FOUND 1
#define TRY_AGAIN 2
#define NO_RECOVERY 3
#define NO_DATA 4
#define NETDB_INTERNAL -1
#define NETDB_SUCCESS 0
#define NO_ADDRESS NO_DATA
#define IPPORT_RESERVED 1024
#ifdef _GNU_SOURCE
#define SCOPE_DELIMITER '%'
#endif

void herror(const char *);
const char *hstrerror(int);

struct hostent {
    char *h_name;
    char **h_aliases;
    int h_addrtype;
    int h_length;
    char **h_addr_list;
};
#define h_addr h_addr_list[0]

void sethostent(int);
void endhostent(void);
struct hostent *gethostent(void);
struct hostent *gethostbyaddr(const void *, socklen_t, int);
struct hostent *gethostbyname(const char *);
struct hostent *gethostbyname2(const char *, int);
int gethostent_r(struct hostent *restrict, char *restrict, size_t,
                 struct hostent **restrict, int *restrict);
int gethostbyaddr_r(const void *restrict, socklen_t, int, struct hostent *restrict,
                    char *restrict, size_t, struct hostent **restrict, int *restrict);
int gethostbyname_r(const char *restrict, struct hostent *restrict, char *restrict,
                    size_t, struct hostent **restrict, int *restrict);
int gethostbyname2_r(const char *restrict, int, struct hostent *restrict,
                     char *restrict, size_t, struct hostent **restrict, int *restrict);

struct netent {
    char *n_name;
    char **n_aliases;
    int n_addrtype;
    uint32_t n_net;
};

void setnetent(int);
void endnetent(void);
struct netent *getnetent(void);
struct netent *getnetbyaddr(uint32_t, int);
struct netent *getnetbyname(const char *);

struct servent {
    char *s_name;
    char **s_aliases;
    int s_port;
    char *s_proto;
};

void setservent(int);
void endservent(void);
struct servent *getservent(void);
struct servent *getservbyname(const char *, const char *);
struct servent *getservbyport(int, const char *);
int getservent_r(struct servent *restrict, char *restrict, size_t,
                 struct servent **restrict);
int getservbyname_r(const char *restrict, const char *restrict, struct servent *restrict,
                    char *restrict, size_t, struct servent **restrict);
int getservbyport_r(int, const char *restrict, struct servent *restrict,
                    char *restrict, size_t, struct servent **restrict);

struct protoent {
    char *p_name;
    char **p_aliases;
    int p_proto;
};

void setprotoent(int);
void endprotoent(void);
struct protoent *getprotoent(void);
struct protoent *getprotobyname(const char *);
struct protoent *getprotobynumber(int);
int getprotoent_r(struct protoent *restrict, char *restrict, size_t,
                  struct protoent **restrict);
int getprotobyname_r(const char *restrict, struct protoent *restrict, char *restrict,
                     size_t, struct protoent **restrict);
int getprotobynumber_r(int, struct protoent *restrict, char *restrict, size_t,
                       struct protoent **restrict);

struct addrinfo {
    int ai_flags;
    int ai_family;
    int ai_socktype;
    int ai_protocol;
    socklen_t ai_addrlen;
    struct sockaddr *ai_addr;
    char *ai_canonname;
    struct addrinfo *ai_next;
};

#define AI_PASSIVE 0x0001
#define AI_CANONNAME 0x0002
#define AI_NUMERICHOST 0x0004
#define AI_V4MAPPED 0x0008
#define AI_ALL 0x0010
#define AI_ADDRCONFIG 0x0020
#define AI_NUMERICSERV 0x0400
#define EAI_BADFLAGS -1
#define EAI_NONAME -2
#define EAI_AGAIN -3
#define EAI_FAIL -4
#define EAI_FAMILY -6
#define EAI_SOCKTYPE -7
#define EAI_SERVICE -8
#define EAI_MEMORY -10
#define EAI_SYSTEM -11
#define EAI_OVERFLOW -12
#define NI_MAXHOST 1025
#define NI_MAXSERV 32
#define NI_NUMERICHOST 1
#define NI_NUMERICSERV 2
#define NI_NOFQDN 4
#define NI_NAMEREQD 8
#define NI_DGRAM 16
#ifdef _GNU_SOURCE
#define AI_IDN 0x0040
#define AI_CANONIDN 0x0080
#define EAI_NODATA -5
#define EAI_ADDRFAMILY -9
#define EAI_INPROGRESS -100
#define EAI_CANCELED -101
#define EAI_NOTCANCELED -102
#define EAI_ALLDONE -103
#define EAI_INTR -104
#define EAI_IDN_ENCODE -105
#define NI_IDN 32
#endif

int getaddrinfo(const char *restrict, const char *restrict,
                const struct addrinfo *restrict, struct addrinfo **restrict);
void freeaddrinfo(struct addrinfo *);
const char *gai_strerror(int);
int getnameinfo(const struct sockaddr *restrict, socklen_t, char *restrict, socklen_t,
                char *restrict, socklen_t, int);

#endif
