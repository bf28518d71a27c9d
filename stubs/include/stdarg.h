/* passman stub <stdarg.h>.
   va_list is modelled as `char *` (pycparser cannot parse __builtin_va_list).
   va_start/va_end/va_copy expand to the GCC builtins and round-trip.
   va_arg(ap, type) is NOT supported: a type cannot be a call argument in
   pycparser, so it expands to a typed call of __passman_va_arg_unsupported,
   which parses (the type survives in the cast) but fails to link if it
   reaches the compiler unchanged. */
#ifndef _PASSMAN_STDARG_H
#define _PASSMAN_STDARG_H

#ifndef __passman_va_list
#define __passman_va_list
typedef char *va_list;
#endif

void __builtin_va_start();
void __builtin_va_end();
void __builtin_va_copy();
void *__passman_va_arg_unsupported();

#define va_start(ap, last) __builtin_va_start(ap, last)
#define va_end(ap) __builtin_va_end(ap)
#define va_copy(dest, src) __builtin_va_copy(dest, src)
#define __va_copy(dest, src) __builtin_va_copy(dest, src)
#define va_arg(ap, type) (*(type *)__passman_va_arg_unsupported(ap, (type *)0))

#endif
