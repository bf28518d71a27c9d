/* passman stub <stdbool.h> (same spellings as GCC's header). */
#ifndef _PASSMAN_STDBOOL_H
#define _PASSMAN_STDBOOL_H

#define bool _Bool
#define true 1
#define false 0
#define __bool_true_false_are_defined 1

#endif
