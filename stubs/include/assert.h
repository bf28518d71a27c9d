/* passman stub <assert.h>.  Like the real header, assert() is redefined on
   every inclusion so that NDEBUG is honoured; the check calls glibc's
   __assert_fail, which the real <assert.h> declares as well. */
#ifndef _PASSMAN_ASSERT_H
#define _PASSMAN_ASSERT_H
_Noreturn void __assert_fail(const char *, const char *, unsigned int, const char *);
#define static_assert _Static_assert
#endif

#undef assert
#ifdef NDEBUG
#define assert(e) ((void) (0))
#else
#define assert(e) ((e) ? (void) (0) : __assert_fail(#e, __FILE__, __LINE__, __func__))
#endif
