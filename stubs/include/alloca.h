/* passman stub <alloca.h>.  Declared as a function; the real header maps
   alloca to __builtin_alloca when the output is compiled. */
#ifndef _PASSMAN_ALLOCA_H
#define _PASSMAN_ALLOCA_H

#ifndef __passman_size_t
#define __passman_size_t
typedef unsigned long size_t;
#endif

void *alloca(size_t);

#endif
