/* passman stub <setjmp.h> (minimal): glibc's x86-64 jmp_buf layout.
   setjmp is declared as a function; the real header's macro
   (setjmp(env) -> _setjmp(env)) applies when the output is compiled. */
#ifndef _PASSMAN_SETJMP_H
#define _PASSMAN_SETJMP_H

#ifndef __passman_sigset_t
#define __passman_sigset_t
typedef struct { unsigned long __val[16]; } __sigset_t;
#endif
typedef long __jmp_buf[8];
struct __jmp_buf_tag {
    __jmp_buf __jmpbuf;
    int __mask_was_saved;
    __sigset_t __saved_mask;
};
typedef struct __jmp_buf_tag jmp_buf[1];
typedef struct __jmp_buf_tag sigjmp_buf[1];

int setjmp(jmp_buf);
int _setjmp(struct __jmp_buf_tag[1]);
int __sigsetjmp(struct __jmp_buf_tag[1], int);
_Noreturn void longjmp(struct __jmp_buf_tag[1], int);
_Noreturn void _longjmp(struct __jmp_buf_tag[1], int);
_Noreturn void siglongjmp(sigjmp_buf, int);
#define sigsetjmp(env, savemask) __sigsetjmp(env, savemask)

#endif
