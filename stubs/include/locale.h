/* passman stub <locale.h>: glibc's struct lconv and locale categories. */
#ifndef _PASSMAN_LOCALE_H
#define _PASSMAN_LOCALE_H

#ifndef NULL
#define NULL ((void*)0)
#endif

#define LC_CTYPE 0
#define LC_NUMERIC 1
#define LC_TIME 2
#define LC_COLLATE 3
#define LC_MONETARY 4
#define LC_MESSAGES 5
#define LC_ALL 6
#define LC_PAPER 7
#define LC_NAME 8
#define LC_ADDRESS 9
#define LC_TELEPHONE 10
#define LC_MEASUREMENT 11
#define LC_IDENTIFICATION 12
#define LC_CTYPE_MASK (1 << 0)
#define LC_NUMERIC_MASK (1 << 1)
#define LC_TIME_MASK (1 << 2)
#define LC_COLLATE_MASK (1 << 3)
#define LC_MONETARY_MASK (1 << 4)
#define LC_MESSAGES_MASK (1 << 5)
#define LC_PAPER_MASK (1 << 7)
#define LC_NAME_MASK (1 << 8)
#define LC_ADDRESS_MASK (1 << 9)
#define LC_TELEPHONE_MASK (1 << 10)
#define LC_MEASUREMENT_MASK (1 << 11)
#define LC_IDENTIFICATION_MASK (1 << 12)
#define LC_ALL_MASK ((1 << 0) | (1 << 1) | (1 << 2) | (1 << 3) | (1 << 4) | (1 << 5) | (1 << 7) \
                     | (1 << 8) | (1 << 9) | (1 << 10) | (1 << 11) | (1 << 12) )

struct lconv {
    char *decimal_point;
    char *thousands_sep;
    char *grouping;
    char *int_curr_symbol;
    char *currency_symbol;
    char *mon_decimal_point;
    char *mon_thousands_sep;
    char *mon_grouping;
    char *positive_sign;
    char *negative_sign;
    char int_frac_digits;
    char frac_digits;
    char p_cs_precedes;
    char p_sep_by_space;
    char n_cs_precedes;
    char n_sep_by_space;
    char p_sign_posn;
    char n_sign_posn;
    char int_p_cs_precedes;
    char int_p_sep_by_space;
    char int_n_cs_precedes;
    char int_n_sep_by_space;
    char int_p_sign_posn;
    char int_n_sign_posn;
};

typedef struct __locale_struct *locale_t;
#define LC_GLOBAL_LOCALE ((locale_t) -1L)

char *setlocale(int, const char *);
struct lconv *localeconv(void);
locale_t newlocale(int, const char *, locale_t);
locale_t duplocale(locale_t);
void freelocale(locale_t);
locale_t uselocale(locale_t);

#endif
