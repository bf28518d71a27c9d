/* passman stub <wctype.h>: wide character classes. */
#ifndef _PASSMAN_WCTYPE_H
#define _PASSMAN_WCTYPE_H

#ifndef __passman_wint_t
#define __passman_wint_t
typedef unsigned int wint_t;
#endif
typedef unsigned long wctype_t;
typedef const int *wctrans_t;
#ifndef WEOF
#define WEOF (0xffffffffu)
#endif

int iswalnum(wint_t);
int iswalpha(wint_t);
int iswblank(wint_t);
int iswcntrl(wint_t);
int iswdigit(wint_t);
int iswgraph(wint_t);
int iswlower(wint_t);
int iswprint(wint_t);
int iswpunct(wint_t);
int iswspace(wint_t);
int iswupper(wint_t);
int iswxdigit(wint_t);
int iswctype(wint_t, wctype_t);
wctype_t wctype(const char *);
wint_t towlower(wint_t);
wint_t towupper(wint_t);
wctrans_t wctrans(const char *);
wint_t towctrans(wint_t, wctrans_t);

#endif
