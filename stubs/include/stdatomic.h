/* passman stub <stdatomic.h>: C11 atomics as GCC's __atomic built-ins.
   The generic functions expand to the built-ins gcc's own header uses (the
   load and store ones to their _n forms, which need no statement
   expression); memory orders are gcc's numbers (__ATOMIC_SEQ_CST is 5). */
#ifndef _PASSMAN_STDATOMIC_H
#define _PASSMAN_STDATOMIC_H

#include <stddef.h>
#include <stdint.h>

typedef enum {
    memory_order_relaxed = 0,
    memory_order_consume = 1,
    memory_order_acquire = 2,
    memory_order_release = 3,
    memory_order_acq_rel = 4,
    memory_order_seq_cst = 5
} memory_order;

typedef _Atomic _Bool atomic_bool;
typedef _Atomic char atomic_char;
typedef _Atomic signed char atomic_schar;
typedef _Atomic unsigned char atomic_uchar;
typedef _Atomic short atomic_short;
typedef _Atomic unsigned short atomic_ushort;
typedef _Atomic int atomic_int;
typedef _Atomic unsigned int atomic_uint;
typedef _Atomic long atomic_long;
typedef _Atomic unsigned long atomic_ulong;
typedef _Atomic long long atomic_llong;
typedef _Atomic unsigned long long atomic_ullong;
typedef _Atomic int atomic_wchar_t;
typedef _Atomic long atomic_intptr_t;
typedef _Atomic unsigned long atomic_uintptr_t;
typedef _Atomic unsigned long atomic_size_t;
typedef _Atomic long atomic_ptrdiff_t;
typedef _Atomic long atomic_intmax_t;
typedef _Atomic unsigned long atomic_uintmax_t;
typedef _Atomic int_least32_t atomic_int_least32_t;
typedef _Atomic int_fast32_t atomic_int_fast32_t;
typedef _Atomic uint_least32_t atomic_uint_least32_t;

typedef _Atomic struct {
    _Bool __val;
} atomic_flag;

#define ATOMIC_BOOL_LOCK_FREE 2
#define ATOMIC_CHAR_LOCK_FREE 2
#define ATOMIC_SHORT_LOCK_FREE 2
#define ATOMIC_INT_LOCK_FREE 2
#define ATOMIC_LONG_LOCK_FREE 2
#define ATOMIC_LLONG_LOCK_FREE 2
#define ATOMIC_POINTER_LOCK_FREE 2
#define ATOMIC_WCHAR_T_LOCK_FREE 2
#define ATOMIC_FLAG_INIT { 0 }
#define ATOMIC_VAR_INIT(value) (value)

#define kill_dependency(y) (y)
#define atomic_init(p, v) __atomic_store_n((p), (v), 0)
#define atomic_thread_fence(mo) __atomic_thread_fence(mo)
#define atomic_signal_fence(mo) __atomic_signal_fence(mo)
#define atomic_is_lock_free(p) __atomic_is_lock_free(sizeof(*(p)), (p))

#define atomic_store_explicit(p, v, mo) __atomic_store_n((p), (v), (mo))
#define atomic_store(p, v) __atomic_store_n((p), (v), 5)
#define atomic_load_explicit(p, mo) __atomic_load_n((p), (mo))
#define atomic_load(p) __atomic_load_n((p), 5)
#define atomic_exchange_explicit(p, v, mo) __atomic_exchange_n((p), (v), (mo))
#define atomic_exchange(p, v) __atomic_exchange_n((p), (v), 5)
#define atomic_compare_exchange_strong_explicit(p, e, d, s, f) \
    __atomic_compare_exchange_n((p), (e), (d), 0, (s), (f))
#define atomic_compare_exchange_strong(p, e, d) __atomic_compare_exchange_n((p), (e), (d), 0, 5, 5)
#define atomic_compare_exchange_weak_explicit(p, e, d, s, f) \
    __atomic_compare_exchange_n((p), (e), (d), 1, (s), (f))
#define atomic_compare_exchange_weak(p, e, d) __atomic_compare_exchange_n((p), (e), (d), 1, 5, 5)
#define atomic_fetch_add(p, v) __atomic_fetch_add((p), (v), 5)
#define atomic_fetch_add_explicit(p, v, mo) __atomic_fetch_add((p), (v), (mo))
#define atomic_fetch_sub(p, v) __atomic_fetch_sub((p), (v), 5)
#define atomic_fetch_sub_explicit(p, v, mo) __atomic_fetch_sub((p), (v), (mo))
#define atomic_fetch_or(p, v) __atomic_fetch_or((p), (v), 5)
#define atomic_fetch_or_explicit(p, v, mo) __atomic_fetch_or((p), (v), (mo))
#define atomic_fetch_xor(p, v) __atomic_fetch_xor((p), (v), 5)
#define atomic_fetch_xor_explicit(p, v, mo) __atomic_fetch_xor((p), (v), (mo))
#define atomic_fetch_and(p, v) __atomic_fetch_and((p), (v), 5)
#define atomic_fetch_and_explicit(p, v, mo) __atomic_fetch_and((p), (v), (mo))
#define atomic_flag_test_and_set(p) __atomic_test_and_set((p), 5)
#define atomic_flag_test_and_set_explicit(p, mo) __atomic_test_and_set((p), (mo))
#define atomic_flag_clear(p) __atomic_clear((p), 5)
#define atomic_flag_clear_explicit(p, mo) __atomic_clear((p), (mo))

#endif
