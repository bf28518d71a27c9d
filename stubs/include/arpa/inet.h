/* passman stub <arpa/inet.h>: Internet address conversion (glibc). */
#ifndef _PASSMAN_ARPA_INET_H
#define _PASSMAN_ARPA_INET_H

#include <netinet/in.h>

#ifndef __passman_socklen_t
#define __passman_socklen_t
typedef unsigned int socklen_t;
#endif

in_addr_t inet_addr(const char *);
in_addr_t inet_lnaof(struct in_addr);
struct in_addr inet_makeaddr(in_addr_t, in_addr_t);
in_addr_t inet_netof(struct in_addr);
in_addr_t inet_network(const char *);
char *inet_ntoa(struct in_addr);
int inet_pton(int, const char *restrict, void *restrict);
const char *inet_ntop(int, const void *restrict, char *restrict, socklen_t);
int inet_aton(const char *, struct in_addr *);
char *inet_net_ntop(int, const void *, int, char *, size_t);
int inet_net_pton(int, const char *, void *, size_t);
unsigned int inet_nsap_addr(const char *, unsigned char *, int);
char *inet_nsap_ntoa(int, const unsigned char *, char *);

#endif
