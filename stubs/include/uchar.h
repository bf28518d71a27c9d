/* passman stub <uchar.h>: C11 Unicode characters. */
#ifndef _PASSMAN_UCHAR_H
#define _PASSMAN_UCHAR_H

#ifndef __passman_size_t
#define __passman_size_t
typedef unsigned long size_t;
#endif
#ifndef __passman_mbstate_t
#define __passman_mbstate_t
typedef struct {
    int __count;
    union { unsigned int __wch; char __wchb[4]; } __value;
} __mbstate_t;
typedef __mbstate_t mbstate_t;
#endif

typedef unsigned short char16_t;
typedef unsigned int char32_t;

size_t mbrtoc16(char16_t *restrict, const char *restrict, size_t, mbstate_t *restrict);
size_t c16rtomb(char *restrict, char16_t, mbstate_t *restrict);
size_t mbrtoc32(char32_t *restrict, const char *restrict, size_t, mbstate_t *restrict);
size_t c32rtomb(char *restrict, char32_t, mbstate_t *restrict);

#endif
