/* passman stub <regex.h>: POSIX regular expressions (glibc).  The GNU
   regex API (re_search and friends) is not modelled. */
#ifndef _PASSMAN_REGEX_H
#define _PASSMAN_REGEX_H

#include <sys/types.h>

typedef unsigned int __re_size_t;
typedef unsigned long __re_long_size_t;
typedef long s_reg_t;
typedef unsigned long active_reg_t;
typedef unsigned long reg_syntax_t;

extern reg_syntax_t re_syntax_options;

/* cflags of regcomp. */
#define REG_EXTENDED 1
#define REG_ICASE (1 << 1)
#define REG_NEWLINE (1 << 2)
#define REG_NOSUB (1 << 3)

/* eflags of regexec. */
#define REG_NOTBOL 1
#define REG_NOTEOL (1 << 1)
#define REG_STARTEND (1 << 2)

typedef enum {
    _REG_ENOSYS = -1,
    _REG_NOERROR = 0,
    _REG_NOMATCH,
    _REG_BADPAT,
    _REG_ECOLLATE,
    _REG_ECTYPE,
    _REG_EESCAPE,
    _REG_ESUBREG,
    _REG_EBRACK,
    _REG_EPAREN,
    _REG_EBRACE,
    _REG_BADBR,
    _REG_ERANGE,
    _REG_ESPACE,
    _REG_BADRPT,
    _REG_EEND,
    _REG_ESIZE,
    _REG_ERPAREN
} reg_errcode_t;
#define REG_ENOSYS _REG_ENOSYS
#define REG_NOERROR _REG_NOERROR
#define REG_NOMATCH _REG_NOMATCH
#define REG_BADPAT _REG_BADPAT
#define REG_ECOLLATE _REG_ECOLLATE
#define REG_ECTYPE _REG_ECTYPE
#define REG_EESCAPE _REG_EESCAPE
#define REG_ESUBREG _REG_ESUBREG
#define REG_EBRACK _REG_EBRACK
#define REG_EPAREN _REG_EPAREN
#define REG_EBRACE _REG_EBRACE
#define REG_BADBR _REG_BADBR
#define REG_ERANGE _REG_ERANGE
#define REG_ESPACE _REG_ESPACE
#define REG_BADRPT _REG_BADRPT
#define REG_EEND _REG_EEND
#define REG_ESIZE _REG_ESIZE
#define REG_ERPAREN _REG_ERPAREN

/* The pattern buffer: private members are named __x, and x with _GNU_SOURCE. */
struct re_pattern_buffer {
#ifdef _GNU_SOURCE
    struct re_dfa_t *buffer;
    __re_long_size_t allocated;
    __re_long_size_t used;
    reg_syntax_t syntax;
    char *fastmap;
    unsigned char *translate;
    size_t re_nsub;
    unsigned can_be_null : 1;
    unsigned regs_allocated : 2;
    unsigned fastmap_accurate : 1;
    unsigned no_sub : 1;
    unsigned not_bol : 1;
    unsigned not_eol : 1;
    unsigned newline_anchor : 1;
#else
    struct re_dfa_t *__buffer;
    __re_long_size_t __allocated;
    __re_long_size_t __used;
    reg_syntax_t __syntax;
    char *__fastmap;
    unsigned char *__translate;
    size_t re_nsub;
    unsigned __can_be_null : 1;
    unsigned __regs_allocated : 2;
    unsigned __fastmap_accurate : 1;
    unsigned __no_sub : 1;
    unsigned __not_bol : 1;
    unsigned __not_eol : 1;
    unsigned __newline_anchor : 1;
#endif
};
typedef struct re_pattern_buffer regex_t;

typedef int regoff_t;

typedef struct {
    regoff_t rm_so;
    regoff_t rm_eo;
} regmatch_t;

int regcomp(regex_t *restrict, const char *restrict, int);
int regexec(const regex_t *restrict, const char *restrict, size_t,
            regmatch_t[restrict], int);
size_t regerror(int, const regex_t *restrict, char *restrict, size_t);
void regfree(regex_t *);

#endif
