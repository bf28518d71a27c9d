/* passman stub <stddef.h> -- parsed by pycparser only; the real header is
   used when the generated code is compiled (x86-64 Linux, glibc/GCC). */
#ifndef _PASSMAN_STDDEF_H
#define _PASSMAN_STDDEF_H

#ifndef __passman_size_t
#define __passman_size_t
typedef unsigned long size_t;
#endif
#ifndef __passman_ptrdiff_t
#define __passman_ptrdiff_t
typedef long ptrdiff_t;
#endif
#ifndef __passman_wchar_t
#define __passman_wchar_t
typedef int wchar_t;
#endif

typedef struct {
    long long __max_align_ll;
    long double __max_align_ld;
} max_align_t;

#ifndef NULL
#define NULL ((void*)0)
#endif

/* __builtin_offsetof does not parse in pycparser; this form means the same. */
#define offsetof(t, m) ((size_t)&(((t *)0)->m))

#endif
