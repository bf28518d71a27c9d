/* passman stub <stdnoreturn.h>. */
#ifndef _PASSMAN_STDNORETURN_H
#define _PASSMAN_STDNORETURN_H

#define noreturn _Noreturn

#endif
