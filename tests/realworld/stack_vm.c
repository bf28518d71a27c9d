/* A small stack virtual machine: an opcode table of function pointers,
   a compiler from a tiny expression language, goto-based error handling,
   and a switch-based interpreter to compare with. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum op { OP_PUSH, OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_MOD, OP_NEG, OP_DUP, OP_SWAP, OP_HALT, NOPS };

typedef struct {
    long stack[64];
    int sp;
    int error;
} vm_t;

typedef struct {
    enum op op;
    long arg;
} instr_t;

typedef int (*op_fn)(vm_t *, long);

static int push(vm_t *vm, long v)
{
    if (vm->sp >= 64)
        return vm->error = 1;
    vm->stack[vm->sp++] = v;
    return 0;
}

static int pop2(vm_t *vm, long *a, long *b)
{
    if (vm->sp < 2)
        return vm->error = 2;
    *b = vm->stack[--vm->sp];
    *a = vm->stack[--vm->sp];
    return 0;
}

static int op_push(vm_t *vm, long arg) { return push(vm, arg); }
static int op_add(vm_t *vm, long arg) { long a, b; (void)arg; return pop2(vm, &a, &b) ? 1 : push(vm, a + b); }
static int op_sub(vm_t *vm, long arg) { long a, b; (void)arg; return pop2(vm, &a, &b) ? 1 : push(vm, a - b); }
static int op_mul(vm_t *vm, long arg) { long a, b; (void)arg; return pop2(vm, &a, &b) ? 1 : push(vm, a * b); }

static int op_div(vm_t *vm, long arg)
{
    long a, b;
    (void)arg;
    if (pop2(vm, &a, &b))
        return 1;
    if (b == 0)
        return vm->error = 3;
    return push(vm, a / b);
}

static int op_mod(vm_t *vm, long arg)
{
    long a, b;
    (void)arg;
    if (pop2(vm, &a, &b))
        return 1;
    if (b == 0)
        return vm->error = 3;
    return push(vm, a % b);
}

static int op_neg(vm_t *vm, long arg)
{
    (void)arg;
    if (vm->sp < 1)
        return vm->error = 2;
    vm->stack[vm->sp - 1] = -vm->stack[vm->sp - 1];
    return 0;
}

static int op_dup(vm_t *vm, long arg)
{
    (void)arg;
    if (vm->sp < 1)
        return vm->error = 2;
    return push(vm, vm->stack[vm->sp - 1]);
}

static int op_swap(vm_t *vm, long arg)
{
    long a, b;
    (void)arg;
    if (pop2(vm, &a, &b))
        return 1;
    push(vm, b);
    return push(vm, a);
}

static int op_halt(vm_t *vm, long arg) { (void)vm; (void)arg; return 0; }

static const op_fn table[NOPS] = {
    [OP_PUSH] = op_push, [OP_ADD] = op_add, [OP_SUB] = op_sub, [OP_MUL] = op_mul,
    [OP_DIV] = op_div,   [OP_MOD] = op_mod, [OP_NEG] = op_neg, [OP_DUP] = op_dup,
    [OP_SWAP] = op_swap, [OP_HALT] = op_halt,
};

/* Recursive-descent compiler: expr := term (('+'|'-') term)*, term := factor (('*'|'/'|'%') factor)*,
   factor := number | '-' factor | '(' expr ')'. */
typedef struct {
    const char *p;
    instr_t *code;
    int n;
    int failed;
} compiler_t;

static void emit(compiler_t *c, enum op op, long arg)
{
    c->code[c->n].op = op;
    c->code[c->n].arg = arg;
    c->n++;
}

static void skip(compiler_t *c)
{
    while (isspace((unsigned char)*c->p))
        c->p++;
}

static void expr(compiler_t *c);

static void factor(compiler_t *c)
{
    skip(c);
    if (isdigit((unsigned char)*c->p)) {
        char *end;
        emit(c, OP_PUSH, strtol(c->p, &end, 10));
        c->p = end;
    } else if (*c->p == '-') {
        c->p++;
        factor(c);
        emit(c, OP_NEG, 0);
    } else if (*c->p == '(') {
        c->p++;
        expr(c);
        skip(c);
        if (*c->p != ')')
            c->failed = 1;
        else
            c->p++;
    } else {
        c->failed = 1;
    }
}

static void term(compiler_t *c)
{
    factor(c);
    for (;;) {
        skip(c);
        char ch = *c->p;
        if (ch != '*' && ch != '/' && ch != '%')
            return;
        c->p++;
        factor(c);
        emit(c, ch == '*' ? OP_MUL : ch == '/' ? OP_DIV : OP_MOD, 0);
    }
}

static void expr(compiler_t *c)
{
    term(c);
    for (;;) {
        skip(c);
        char ch = *c->p;
        if (ch != '+' && ch != '-')
            return;
        c->p++;
        term(c);
        emit(c, ch == '+' ? OP_ADD : OP_SUB, 0);
    }
}

static int run_table(const instr_t *code, int n, long *result)
{
    vm_t vm = {.sp = 0, .error = 0};
    for (int pc = 0; pc < n; pc++) {
        if (table[code[pc].op](&vm, code[pc].arg))
            goto fail;
        if (code[pc].op == OP_HALT)
            break;
    }
    if (vm.sp != 1)
        goto fail;
    *result = vm.stack[0];
    return 0;
fail:
    return vm.error ? vm.error : 9;
}

static int run_switch(const instr_t *code, int n, long *result)
{
    long st[64];
    int sp = 0;
    for (int pc = 0; pc < n; pc++) {
        long a, b;
        switch (code[pc].op) {
        case OP_PUSH:
            st[sp++] = code[pc].arg;
            continue;
        case OP_NEG:
            st[sp - 1] = -st[sp - 1];
            continue;
        case OP_DUP:
            st[sp] = st[sp - 1];
            sp++;
            continue;
        case OP_HALT:
            goto done;
        default:
            break;
        }
        b = st[--sp];
        a = st[--sp];
        switch (code[pc].op) {
        case OP_ADD: st[sp++] = a + b; break;
        case OP_SUB: st[sp++] = a - b; break;
        case OP_MUL: st[sp++] = a * b; break;
        case OP_DIV: if (!b) return 3; st[sp++] = a / b; break;
        case OP_MOD: if (!b) return 3; st[sp++] = a % b; break;
        case OP_SWAP: st[sp++] = b; st[sp++] = a; break;
        default: return 4;
        }
    }
done:
    *result = st[0];
    return 0;
}

int main(void)
{
    static const char *programs[] = {
        "1 + 2 * 3", "(1 + 2) * 3", "-(4 - 10) * (7 % 4)", "100 / (5 - 5)", "2 * (3 + 4) * (5 - -6)",
        "((((1))))+((2))", "12345 % 97 + 6789 / 13", "1 +", "(8 - 3 * (2 + 1)) * -9 - 4 / 2",
    };
    instr_t code[128];
    long checksum = 0;
    for (size_t i = 0; i < sizeof programs / sizeof programs[0]; i++) {
        compiler_t c = {programs[i], code, 0, 0};
        expr(&c);
        skip(&c);
        if (c.failed || *c.p) {
            printf("%-32s syntax error\n", programs[i]);
            continue;
        }
        emit(&c, OP_HALT, 0);
        long r1 = 0, r2 = 0;
        int e1 = run_table(code, c.n, &r1), e2 = run_switch(code, c.n, &r2);
        if (e1 || e2)
            printf("%-32s error %d/%d\n", programs[i], e1, e2);
        else
            printf("%-32s = %ld (%d instructions, agree=%d)\n", programs[i], r1, c.n, r1 == r2);
        checksum = checksum * 31 + r1;
    }
    printf("checksum %ld\n", checksum);
    return 0;
}
