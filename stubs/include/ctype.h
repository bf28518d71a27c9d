/* passman stub <ctype.h>: the functions only; glibc's table-lookup macro
   forms come from the real header when the output is compiled. */
#ifndef _PASSMAN_CTYPE_H
#define _PASSMAN_CTYPE_H

int isalnum(int);
int isalpha(int);
int isblank(int);
int iscntrl(int);
int isdigit(int);
int isgraph(int);
int islower(int);
int isprint(int);
int ispunct(int);
int isspace(int);
int isupper(int);
int isxdigit(int);
int tolower(int);
int toupper(int);
int isascii(int);
int toascii(int);

#endif
