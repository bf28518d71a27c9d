/* passman stub <iso646.h> (same as GCC's). */
#ifndef _PASSMAN_ISO646_H
#define _PASSMAN_ISO646_H

#define and &&
#define and_eq &=
#define bitand &
#define bitor |
#define compl ~
#define not !
#define not_eq !=
#define or ||
#define or_eq |=
#define xor ^
#define xor_eq ^=

#endif
