/* passman stubs for the GCC built-ins ordinary C code calls (the libc broker).

   Bit counts, byte swaps and __builtin_expect are pure; __builtin_prefetch
   only reads; __builtin_unreachable and __builtin_trap do not return. The
   type-generic built-ins (__atomic_*, __builtin_complex) have no model: their
   calls get the conservative one. These bodies are models for the analyses,
   never compiled (gcc provides the built-ins). */

long __builtin_expect(long exp, long c)
{
    return exp;
}

void __builtin_unreachable(void)
{
}

void __builtin_trap(void)
{
}

void __builtin_prefetch(const void *addr, ...)
{
    char c = *(const char *)addr;
}

int __builtin_popcount(unsigned int x) { return (int)(x & 1u); }
int __builtin_popcountl(unsigned long x) { return (int)(x & 1ul); }
int __builtin_popcountll(unsigned long long x) { return (int)(x & 1ull); }
int __builtin_clz(unsigned int x) { return (int)(x & 31u); }
int __builtin_clzl(unsigned long x) { return (int)(x & 63ul); }
int __builtin_clzll(unsigned long long x) { return (int)(x & 63ull); }
int __builtin_ctz(unsigned int x) { return (int)(x & 31u); }
int __builtin_ctzl(unsigned long x) { return (int)(x & 63ul); }
int __builtin_ctzll(unsigned long long x) { return (int)(x & 63ull); }
int __builtin_ffs(int x) { return x & 31; }
int __builtin_parity(unsigned int x) { return (int)(x & 1u); }
unsigned short __builtin_bswap16(unsigned short x) { return x; }
unsigned int __builtin_bswap32(unsigned int x) { return x; }
unsigned long __builtin_bswap64(unsigned long x) { return x; }

