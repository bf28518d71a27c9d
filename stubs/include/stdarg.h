/* passman stub <stdarg.h>.
   va_list is modelled as `char *` (pycparser cannot parse __builtin_va_list).
   va_start/va_end/va_copy/va_arg expand to the GCC builtins, as with the real
   header, and round-trip: passman's parser reads the type argument of
   __builtin_va_arg(ap, type). */
#ifndef _PASSMAN_STDARG_H
#define _PASSMAN_STDARG_H

#ifndef __passman_va_list
#define __passman_va_list
typedef char *va_list;
#endif

void __builtin_va_start();
void __builtin_va_end();
void __builtin_va_copy();

#define va_start(ap, last) __builtin_va_start(ap, last)
#define va_end(ap) __builtin_va_end(ap)
#define va_copy(dest, src) __builtin_va_copy(dest, src)
#define __va_copy(dest, src) __builtin_va_copy(dest, src)
#define va_arg(ap, type) __builtin_va_arg(ap, type)

#endif
