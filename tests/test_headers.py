"""Tests for the C library stub headers in stubs/include.

passman preprocesses user programs with

    cpp -nostdinc -undef -D__passman__ -I<stubs/include> [user flags] file.c

and parses the result with passman's parser (pycparser reading the GNU
built-ins whose arguments are types, ``__builtin_va_arg``).  The declarations coming from the stub
headers are never printed; the user's ``#include`` lines are restored and the
program is compiled later against the real glibc/GCC headers.  These tests
check the three properties that make this sound:

* every stub header preprocesses and parses with pycparser, alone and together;
* macros round-trip: code expanded with the stubs, printed back with
  pycparser's CGenerator and compiled against the real headers behaves like
  the original program, and every object-like macro has the real value and
  type;
* prototypes, typedefs, variables and struct layouts agree with the real
  headers (gcc rejects conflicting redeclarations).
"""

from __future__ import annotations

import copy
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from pycparser import c_ast, c_generator

from passman.frontend import CParser, check_and_resolve

STUBS = Path(__file__).resolve().parents[1] / "stubs" / "include"
CPP = ["cpp", "-nostdinc", "-undef", "-D__passman__", f"-I{STUBS}"]
HEADERS = sorted(p.relative_to(STUBS).as_posix() for p in STUBS.rglob("*.h"))
REQUIRED = """stdio.h stdlib.h string.h strings.h math.h stdint.h inttypes.h stddef.h
    stdbool.h stdarg.h assert.h time.h sys/time.h unistd.h limits.h float.h
    errno.h ctype.h omp.h sys/types.h signal.h setjmp.h fenv.h
    complex.h locale.h stdalign.h stdatomic.h stdnoreturn.h threads.h uchar.h wchar.h wctype.h
    iso646.h pthread.h alloca.h sys/select.h
    fcntl.h sys/stat.h sys/resource.h sys/mman.h sys/wait.h sys/times.h sys/utsname.h
    getopt.h sched.h dirent.h libgen.h poll.h dlfcn.h fnmatch.h err.h malloc.h endian.h
    semaphore.h pwd.h
    sys/socket.h netinet/in.h netinet/tcp.h arpa/inet.h netdb.h sys/un.h sys/ioctl.h
    termios.h regex.h glob.h tgmath.h syslog.h grp.h sys/param.h sys/file.h search.h
    sys/statvfs.h utime.h spawn.h""".split()
# Feature-test configurations the headers are checked under (same flags are
# given to our cpp and to gcc with the real headers).
MODES = {"default": [], "gnu": ["-D_GNU_SOURCE"]}

needs_cpp = pytest.mark.skipif(shutil.which("cpp") is None, reason="needs cpp")
needs_gcc = pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")


# --------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------


def preprocess(path: Path, flags: list[str] = ()) -> str:
    res = subprocess.run([*CPP, *flags, str(path)], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    return res.stdout


def parse(path: Path, flags: list[str] = ()) -> c_ast.FileAST:
    return CParser().parse(preprocess(path, flags), str(path))


def from_stubs(node: c_ast.Node) -> bool:
    return node.coord is not None and node.coord.file.startswith(str(STUBS))


def passman_roundtrip(src: Path, flags: list[str] = ()) -> str:
    """Do what passman does with a program: preprocess against the stubs,
    parse, check it (choosing each ``_Generic``'s association), keep the
    user's own top-level nodes, print them back and restore the original
    #include lines."""
    text = preprocess(src, flags)
    ast = CParser().parse(text, str(src))
    check_and_resolve(ast, text)
    user = c_ast.FileAST([n for n in ast.ext if n.coord.file == str(src)])
    includes = [
        line for line in src.read_text().splitlines() if re.match(r"\s*#\s*include\b", line)
    ]
    return "\n".join(includes) + "\n" + c_generator.CGenerator().visit(user)


def gcc(src: Path, out: Path, flags: list[str] = (), extra: list[str] = ()) -> None:
    cmd = ["gcc", "-std=gnu17", "-Wall", *flags, str(src), "-o", str(out), *extra, "-lm"]
    res = subprocess.run(cmd, capture_output=True, text=True)
    assert res.returncode == 0, f"{' '.join(cmd)}\n{res.stderr}\n--- source ---\n{src.read_text()}"
    assert res.stderr == "", f"gcc warned on {src}:\n{res.stderr}"


def gcc_check(src: Path, flags: list[str] = ()) -> None:
    """Compile (syntax and constraints only) against the real headers."""
    cmd = [
        "gcc",
        "-std=gnu17",
        "-fsyntax-only",
        "-Werror=implicit-function-declaration",
        *flags,
        str(src),
    ]
    res = subprocess.run(cmd, capture_output=True, text=True)
    assert res.returncode == 0, f"{' '.join(cmd)}\n{res.stderr}"


def run(exe: Path) -> subprocess.CompletedProcess:
    # Same argv[0] for every binary: glibc's assert message starts with it.
    return subprocess.run(["prog"], executable=str(exe), capture_output=True, text=True)


def compile_both_ways(
    tmp_path: Path, src: Path, flags: list[str] = (), extra: list[str] = ()
) -> tuple[Path, Path]:
    """Build ``src`` directly and through passman_roundtrip; both binaries are
    named ``prog`` (in different folders)."""
    (tmp_path / "direct").mkdir()
    (tmp_path / "rt").mkdir()
    direct = tmp_path / "direct" / "prog"
    gcc(src, direct, flags, extra)
    rt_src = tmp_path / "rt" / "prog.c"
    rt_src.write_text(passman_roundtrip(src, flags))
    rt = tmp_path / "rt" / "prog"
    gcc(rt_src, rt, flags, extra)
    return direct, rt


def all_includes() -> str:
    return "".join(f"#include <{h}>\n" for h in HEADERS)


# --------------------------------------------------------------------------
# every header preprocesses and parses
# --------------------------------------------------------------------------


def test_required_headers_present():
    missing = [h for h in REQUIRED if not (STUBS / h).is_file()]
    assert not missing


@needs_cpp
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("header", HEADERS)
def test_header_parses(tmp_path, header, mode):
    src = tmp_path / "t.c"
    src.write_text(f"#include <{header}>\n#include <{header}>\nint main(void) {{ return 0; }}\n")
    ast = parse(src, MODES[mode])
    assert any(n.coord.file == str(src) for n in ast.ext)


@needs_cpp
@pytest.mark.parametrize("mode", MODES)
def test_all_headers_together(tmp_path, mode):
    src = tmp_path / "t.c"
    # Twice, and in reverse order too, to exercise the include guards.
    rev = "".join(f"#include <{h}>\n" for h in reversed(HEADERS))
    src.write_text(rev + all_includes() + "int main(void) { return 0; }\n")
    parse(src, MODES[mode])


@needs_cpp
def test_frontend_command_style(tmp_path):
    """passman's front end passes the folder with -isystem (and -x c)."""
    src = tmp_path / "t.c"
    src.write_text(all_includes() + "int main(void) { return 0; }\n")
    cmd = [
        "cpp",
        "-nostdinc",
        "-undef",
        "-D__passman__=1",
        "-isystem",
        str(STUBS),
        "-x",
        "c",
        str(src),
    ]
    res = subprocess.run(cmd, capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    CParser().parse(res.stdout, str(src))


def test_headers_are_plain_c():
    banned = re.compile(
        r"__attribute__|__asm__|\basm\b|__extension__|__restrict|__inline"
        r"|__builtin_va_list|\(\{"
    )
    for h in HEADERS:
        text = re.sub(r"/\*.*?\*/", "", (STUBS / h).read_text(), flags=re.S)
        assert not banned.search(text), f"{h}: {banned.search(text).group()}"


# --------------------------------------------------------------------------
# macros round-trip through the stubs, pycparser and the real headers
# --------------------------------------------------------------------------

ROUNDTRIP_PROGRAM = r"""
#include <assert.h>
#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <omp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

struct point { char tag; double x; int y[3]; };

static void say(FILE *f, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfprintf(f, fmt, ap);
    va_end(ap);
}

static int cmp_int(const void *a, const void *b)
{
    return *(const int *)a - *(const int *)b;
}

int main(void)
{
    double inf = INFINITY, nan = NAN, big = HUGE_VAL;
    printf("%d %d %d %d %d\n", isinf(inf) != 0, isinf(-inf) < 0, isnan(nan) != 0,
           isfinite(1.0) != 0, signbit(-1.0) != 0);
    printf("%d %d %d\n", fpclassify(0.0) == FP_ZERO, fpclassify(inf) == FP_INFINITE,
           isnormal(DBL_MIN) != 0);
    printf("%d %d\n", isless(1.0, 2.0), isunordered(nan, 1.0));
    printf("%d %d\n", big > DBL_MAX, nan != nan);
    printf("%.17g %.17g %.17g %a\n", M_PI, M_E, M_SQRT2, M_LN2);
    printf("%d %d %u %ld %ld %lu\n", INT_MAX, INT_MIN, UINT_MAX, LONG_MAX, LONG_MIN, ULONG_MAX);
    printf("%d %d %d %d\n", CHAR_BIT, SCHAR_MIN, SHRT_MAX, UCHAR_MAX);
    printf("%a %a %a\n", DBL_MAX, DBL_MIN, DBL_EPSILON);
    printf("%a %a %La\n", (double)FLT_MAX, (double)FLT_EPSILON, LDBL_EPSILON);
    printf("%d %d %d\n", RAND_MAX, EXIT_FAILURE, EXIT_SUCCESS);
    printf("%zu %zu %zu\n", offsetof(struct point, x), offsetof(struct point, y),
           offsetof(struct point, y[2]));
    int64_t i64 = INT64_MIN;
    uint64_t u64 = UINT64_MAX;
    int32_t i32 = INT32_MIN;
    printf("%" PRId64 " %" PRIu64 " %" PRIx64 " %" PRId32 " %" PRIu32 "\n",
           i64, u64, u64, i32, UINT32_MAX);
    printf("%" PRIdMAX " %" PRIuPTR " %zu\n", INTMAX_MAX, (uintptr_t)UINTPTR_MAX, SIZE_MAX);
    printf("%ld %ld\n", INT64_C(123), (long)UINT64_C(7));
    fprintf(stdout, "to stdout %d\n", EOF);
    fprintf(stderr, "to stderr %d\n", BUFSIZ);
    say(stdout, "%s %d\n", "varargs", 42);
    printf("%ld %d %d\n", (long)CLOCKS_PER_SEC, CLOCK_MONOTONIC, CLOCK_REALTIME);
    bool b = true, c = false;
    printf("%d %d %zu\n", b, c, sizeof(bool));
    assert(b && !c);
    errno = 0;
    strtol("99999999999999999999999", NULL, 10);
    printf("%d %d\n", errno == ERANGE, EDOM);
    printf("%c %d\n", toupper('q'), isdigit('7') != 0);
    int v[5] = {5, 3, 1, 4, 2};
    qsort(v, 5, sizeof v[0], cmp_int);
    printf("%d %d %d\n", v[0], v[4], (int)strlen("hello"));
    printf("%d\n", omp_get_thread_num());
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    struct timeval tv;
    gettimeofday(&tv, NULL);
    printf("%d %d\n", ts.tv_nsec >= 0 && ts.tv_nsec < 1000000000, tv.tv_usec < 1000000);
    printf("%d %d\n", sysconf(_SC_NPROCESSORS_ONLN) >= 1, STDOUT_FILENO);
    printf("%.6f %.6f %.6f\n", sqrt(2.0), sqrtf(2.0f), fmax(1.0, 2.0));
    return EXIT_SUCCESS;
}
"""


@needs_gcc
def test_macros_round_trip(tmp_path):
    src = tmp_path / "prog.c"
    src.write_text(ROUNDTRIP_PROGRAM)
    direct, rt = compile_both_ways(tmp_path, src, extra=["-fopenmp"])
    expected, got = run(direct), run(rt)
    assert expected.returncode == 0, expected.stderr
    assert (got.returncode, got.stdout, got.stderr) == (
        expected.returncode,
        expected.stdout,
        expected.stderr,
    )
    # The printed-back program really contains the expansions, not the names.
    text = (tmp_path / "rt" / "prog.c").read_text()
    assert "__builtin_inff()" in text and "INFINITY" not in text
    assert "__assert_fail" in text and "2147483647" in text


ASSERT_PROGRAM = r"""
#include <assert.h>
#include <stdio.h>

int twice(int x) { return 2 * x; }

int main(void)
{
    int x = 3;
    assert(twice(x) == 6);
    printf("checked %d\n", x);
    fflush(stdout);
    assert(twice(x) == 7 && "twice is wrong");
    printf("not reached unless NDEBUG\n");
    return 0;
}
"""


@needs_gcc
@pytest.mark.parametrize("flags", [[], ["-DNDEBUG"]], ids=["assert", "ndebug"])
def test_assert_keeps_runtime_check(tmp_path, flags):
    src = tmp_path / "prog.c"
    src.write_text(ASSERT_PROGRAM)
    direct, rt = compile_both_ways(tmp_path, src, flags)
    expected, got = run(direct), run(rt)
    if flags:
        assert expected.returncode == 0
    else:
        assert expected.returncode != 0 and "Assertion" in expected.stderr
    assert (got.returncode, got.stdout, got.stderr) == (
        expected.returncode,
        expected.stdout,
        expected.stderr,
    )


PTHREAD_PROGRAM = r"""
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/select.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static long total;
static int inits;

static void init(void) { inits++; }

static void *work(void *arg)
{
    long n = (long)arg;
    pthread_once(&once, init);
    pthread_mutex_lock(&lock);
    total += n;
    pthread_cond_broadcast(&cond);
    pthread_mutex_unlock(&lock);
    pthread_rwlock_rdlock(&rw);
    pthread_rwlock_unlock(&rw);
    return NULL;
}

int main(void)
{
    pthread_t t[4];
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_JOINABLE);
    for (long i = 0; i < 4; i++)
        pthread_create(&t[i], &attr, work, (void *)(i + 1));
    for (int i = 0; i < 4; i++)
        pthread_join(t[i], NULL);
    pthread_attr_destroy(&attr);
    pthread_mutexattr_t ma;
    pthread_mutexattr_init(&ma);
    pthread_mutexattr_settype(&ma, PTHREAD_MUTEX_RECURSIVE);
    fd_set fds;
    FD_ZERO(&fds);
    FD_SET(3, &fds);
    printf("%ld %d %d %d %d\n", total, inits, FD_ISSET(3, &fds) != 0, FD_ISSET(4, &fds) != 0,
           PTHREAD_CANCELED == (void *)-1);
    return EXIT_SUCCESS;
}
"""


@needs_gcc
@pytest.mark.parametrize("mode", MODES)
def test_pthread_and_select_round_trip(tmp_path, mode):
    src = tmp_path / "prog.c"
    src.write_text(PTHREAD_PROGRAM)
    direct, rt = compile_both_ways(tmp_path, src, MODES[mode], extra=["-pthread"])
    expected, got = run(direct), run(rt)
    assert expected.stdout == "10 1 1 0 1\n"
    assert (got.returncode, got.stdout) == (expected.returncode, expected.stdout)


TGMATH_PROGRAM = r"""
#include <stdio.h>
#include <tgmath.h>

#define TYPE(e) _Generic((e), float: "float", double: "double", long double: "long double", \
    float _Complex: "float complex", double _Complex: "double complex", \
    long double _Complex: "long double complex", int: "int", long: "long", \
    long long: "long long", default: "other")
#define SHOW(e) printf("%-24s %-20s %La\n", #e, TYPE(e), (long double)(e))

int main(void)
{
    float f = 0.75f;
    double d = 0.5;
    long double l = 0.25L;
    int i = 3, e;
    float complex zf = 1.0f + 2.0f * I;
    double complex zd = 0.5 - 1.5 * I;
    long double complex zl = 2.0L + 0.5L * I;
    SHOW(sqrt(f)); SHOW(sqrt(d)); SHOW(sqrt(l)); SHOW(sqrt(i));
    SHOW(sqrt(zf)); SHOW(sqrt(zd)); SHOW(sqrt(zl));
    SHOW(exp(zd)); SHOW(log(zf)); SHOW(cos(zl)); SHOW(sinh(i)); SHOW(atanh(f));
    SHOW(fabs(f)); SHOW(fabs(i)); SHOW(fabs(zf)); SHOW(fabs(zd)); SHOW(fabs(zl));
    SHOW(pow(f, f)); SHOW(pow(f, i)); SHOW(pow(f, d)); SHOW(pow(l, f)); SHOW(pow(i, i));
    SHOW(pow(zf, f)); SHOW(pow(zd, l)); SHOW(pow(f, zf));
    SHOW(atan2(f, f)); SHOW(atan2(f, 2)); SHOW(fmax(i, f)); SHOW(fmin(f, l));
    SHOW(hypot(f, f)); SHOW(fmod(d, f)); SHOW(copysign(f, -1.0f));
    SHOW(fma(f, f, f)); SHOW(fma(f, f, l)); SHOW(fma(f, i, f));
    SHOW(frexp(f, &e)); SHOW(ldexp(l, 3)); SHOW(scalbn(f, 2)); SHOW(scalbln(d, 2L));
    SHOW(nexttoward(f, 1.0L)); SHOW(remquo(f, f, &e)); SHOW(remquo(l, 2, &e));
    SHOW(ilogb(f)); SHOW(lrint(l)); SHOW(llround(f)); SHOW(lround(i));
    SHOW(round(l)); SHOW(trunc(f)); SHOW(cbrt(i)); SHOW(floor(f)); SHOW(ceil(d));
    SHOW(erf(f)); SHOW(tgamma(l)); SHOW(log2(f)); SHOW(expm1(f)); SHOW(nearbyint(f));
    SHOW(creal(zf)); SHOW(creal(d)); SHOW(cimag(zl)); SHOW(carg(f)); SHOW(carg(zd));
    SHOW(conj(zf)); SHOW(conj(d)); SHOW(cproj(l)); SHOW(cproj(zf));
    return 0;
}
"""


@needs_gcc
def test_tgmath_selects_like_glibc(tmp_path):
    """<tgmath.h>'s _Generic macros pick the function glibc's header picks:
    same result type (named by the program) and value for real, integer and
    complex arguments, one to three of them."""
    src = tmp_path / "prog.c"
    src.write_text(TGMATH_PROGRAM)
    direct, rt = compile_both_ways(tmp_path, src)
    expected, got = run(direct), run(rt)
    assert expected.returncode == 0
    assert re.search(r"pow\(zd, l\) +long double complex", expected.stdout)
    assert (got.returncode, got.stdout) == (expected.returncode, expected.stdout)
    # The printed-back program calls the chosen functions.
    text = (tmp_path / "rt" / "prog.c").read_text()
    assert "_Generic" not in text
    assert "sqrtf(f)" in text and "cpowl(zd, l)" in text and "cabsf(zf)" in text


POSIX_PROGRAM = r"""
#include <arpa/inet.h>
#include <glob.h>
#include <grp.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <regex.h>
#include <search.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/param.h>
#include <sys/socket.h>
#include <sys/statvfs.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <syslog.h>
#include <termios.h>
#include <unistd.h>
#include <utime.h>

extern char **environ;

static int cmp(const void *a, const void *b)
{
    return strcmp(a, b);
}

static int cmp_int(const void *a, const void *b)
{
    return *(const int *)a - *(const int *)b;
}

int main(void)
{
    /* sockets */
    int sv[2];
    char buf[64] = {0};
    int rc = socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
    send(sv[0], "ping", 4, MSG_NOSIGNAL);
    recv(sv[1], buf, sizeof buf - 1, 0);
    printf("%d %s\n", rc, buf);
    struct addrinfo hints, *res;
    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_INET;
    hints.ai_socktype = SOCK_DGRAM;
    hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV;
    rc = getaddrinfo("192.168.1.20", "8080", &hints, &res);
    if (rc == 0) {
        struct sockaddr_in *sin = (struct sockaddr_in *)res->ai_addr;
        char host[NI_MAXHOST], serv[NI_MAXSERV];
        getnameinfo(res->ai_addr, res->ai_addrlen, host, sizeof host, serv, sizeof serv,
                    NI_NUMERICHOST | NI_NUMERICSERV);
        printf("%s %s %d %u\n", host, serv, ntohs(sin->sin_port), (unsigned)res->ai_addrlen);
        freeaddrinfo(res);
    }
    printf("%s\n", gai_strerror(EAI_NONAME));
    struct in6_addr a6;
    inet_pton(AF_INET6, "::1", &a6);
    inet_ntop(AF_INET6, &a6, buf, sizeof buf);
    printf("%s %d %d\n", buf, IN6_IS_ADDR_LOOPBACK(&a6), a6.s6_addr[15]);
    struct sockaddr_un un = {.sun_family = AF_UNIX};
    strcpy(un.sun_path, "/tmp/x.sock");
    printf("%zu %u %d %d\n", (size_t)SUN_LEN(&un), htonl(INADDR_LOOPBACK), SOL_SOCKET, TCP_NODELAY);

    /* regex */
    regex_t re;
    regmatch_t m[2];
    regcomp(&re, "b(a+)", REG_EXTENDED);
    printf("%d", regexec(&re, "xbaaay", 2, m, 0));
    printf(" %d %d %d\n", m[1].rm_so, m[1].rm_eo, regexec(&re, "xyz", 0, NULL, 0) == REG_NOMATCH);
    regfree(&re);

    /* glob */
    glob_t g;
    printf("%d", glob("/nonexistent-dir/*.zz", GLOB_NOCHECK, NULL, &g));
    printf(" %zu %s\n", g.gl_pathc, g.gl_pathv[0]);
    globfree(&g);

    /* termios and ioctl */
    struct termios t;
    memset(&t, 0, sizeof t);
    cfmakeraw(&t);
    cfsetospeed(&t, B9600);
    printf("%u %u %u %lu %d\n", t.c_lflag & ECHO, t.c_cflag & CSIZE, (unsigned)cfgetospeed(&t),
           (unsigned long)TIOCGWINSZ, (int)sizeof(struct winsize));

    /* syslog, sys/param, sys/file */
    printf("%d %d %d\n", LOG_MASK(LOG_ERR), LOG_UPTO(LOG_INFO), LOG_LOCAL0 | LOG_PID);
    printf("%d %d %d %d %d\n", MIN(3, 7), MAX(3, 7), roundup(37, 8), howmany(37, 8), MAXPATHLEN);
    FILE *tmp = tmpfile();
    printf("%d %d\n", flock(fileno(tmp), LOCK_EX | LOCK_NB), flock(fileno(tmp), LOCK_UN));
    fclose(tmp);

    /* search */
    hcreate(16);
    ENTRY item = {"key", "value"}, *found;
    hsearch(item, ENTER);
    item.key = "key";
    found = hsearch(item, FIND);
    printf("%s", found ? (char *)found->data : "none");
    void *root = NULL;
    tsearch("b", &root, cmp);
    tsearch("a", &root, cmp);
    printf(" %s", *(char **)tfind("a", &root, cmp));
    int v[4] = {5, 7}, key = 9;
    size_t n = 2;
    lsearch(&key, v, &n, sizeof v[0], cmp_int);
    printf(" %zu %d %d\n", n, v[2], *(int *)lfind(&key, v, &n, sizeof v[0], cmp_int));
    hdestroy();

    /* statvfs, utime, grp, spawn */
    struct statvfs sv_;
    printf("%d %d\n", statvfs("/", &sv_), utime("/nonexistent-file", NULL));
    struct group *gr = getgrgid(0);
    printf("%d\n", gr == NULL || gr->gr_gid == 0);
    pid_t pid;
    char *argv[] = {"true", NULL};
    rc = posix_spawnp(&pid, "true", NULL, NULL, argv, environ);
    int status = -1;
    if (rc == 0)
        waitpid(pid, &status, 0);
    printf("%d %d\n", rc, WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    return 0;
}
"""


@needs_gcc
@pytest.mark.parametrize("mode", MODES)
def test_posix_headers_round_trip(tmp_path, mode):
    """Sockets, getaddrinfo, regex, glob, termios, syslog, search, spawn ...:
    the program behaves the same compiled directly and through the stubs."""
    src = tmp_path / "prog.c"
    src.write_text(POSIX_PROGRAM)
    direct, rt = compile_both_ways(tmp_path, src, MODES[mode])
    expected, got = run(direct), run(rt)
    assert expected.returncode == 0 and expected.stdout.startswith("0 ping\n")
    assert (got.returncode, got.stdout) == (expected.returncode, expected.stdout)


VA_ARG_PROGRAM = r"""
#include <stdarg.h>
#include <stdio.h>

static int sum(int n, ...)
{
    va_list ap;
    int s = 0;
    va_start(ap, n);
    for (int i = 0; i < n; i++)
        s += va_arg(ap, int);
    va_end(ap);
    return s;
}

int main(void) { printf("%d\n", sum(3, 1, 2, 3)); return 0; }
"""


@needs_gcc
def test_va_arg_round_trips(tmp_path):
    """va_arg(ap, type) is gcc's __builtin_va_arg(ap, type): passman's parser
    reads the type argument, and the printed call compiles and runs."""
    src = tmp_path / "prog.c"
    src.write_text(VA_ARG_PROGRAM)
    text = passman_roundtrip(src)
    assert "__builtin_va_arg(ap, int)" in text
    direct, rt = compile_both_ways(tmp_path, src)
    assert run(direct).stdout == run(rt).stdout == "6\n"


# A handful of constants, printed with their value and size.
HANDFUL = [
    ("RAND_MAX", "%d", "2147483647"),
    ("INT_MIN", "%d", "-2147483648"),
    ("INT_MAX", "%d", "2147483647"),
    ("UINT_MAX", "%u", "4294967295"),
    ("LONG_MAX", "%ld", "9223372036854775807"),
    ("LLONG_MIN", "%lld", "-9223372036854775808"),
    ("SIZE_MAX", "%zu", "18446744073709551615"),
    ("INT32_MAX", "%d", "2147483647"),
    ("INT64_MIN", "%ld", "-9223372036854775808"),
    ("UINT64_MAX", "%lu", "18446744073709551615"),
    ("CHAR_BIT", "%d", "8"),
    ("DBL_EPSILON", "%a", "0x1p-52"),
    ("DBL_MAX", "%a", "0x1.fffffffffffffp+1023"),
    ("DBL_MIN", "%a", "0x1p-1022"),
    ("FLT_MAX", "%a", "0x1.fffffep+127"),
    ("FLT_EPSILON", "%a", "0x1p-23"),
    ("LDBL_EPSILON", "%La", "0x8p-66"),
    ("M_PI", "%a", "0x1.921fb54442d18p+1"),
    ("BUFSIZ", "%d", "8192"),
    ("EOF", "%d", "-1"),
    ("CLOCKS_PER_SEC", "%ld", "1000000"),
    ("CLOCK_MONOTONIC", "%d", "1"),
    ("CLOCK_REALTIME", "%d", "0"),
    ("EXIT_SUCCESS", "%d", "0"),
    ("EXIT_FAILURE", "%d", "1"),
    ("_SC_NPROCESSORS_ONLN", "%d", "84"),
    ("true", "%d", "1"),
    ("false", "%d", "0"),
]


@needs_gcc
def test_handful_of_constant_values(tmp_path):
    body = "".join(
        f'    printf("{name} = {fmt} (%zu)\\n", {name}, sizeof({name}));\n'
        for name, fmt, _ in HANDFUL
    )
    src = tmp_path / "prog.c"
    src.write_text(
        "#include <float.h>\n#include <limits.h>\n#include <math.h>\n#include <stdbool.h>\n"
        "#include <stdint.h>\n#include <stdio.h>\n#include <stdlib.h>\n#include <time.h>\n"
        "#include <unistd.h>\n\nint main(void)\n{\n" + body + "    return 0;\n}\n"
    )
    direct, rt = compile_both_ways(tmp_path, src)
    expected, got = run(direct), run(rt)
    assert got.stdout == expected.stdout
    values = dict(line.split(" = ") for line in got.stdout.splitlines())
    for name, _, value in HANDFUL:
        assert values[name].split(" (")[0] == value, name


# --------------------------------------------------------------------------
# every object-like macro: same value and same type as the real one
# --------------------------------------------------------------------------

# Macros that are not expressions (types, keywords, operators, member paths).
NOT_EXPRESSIONS = {
    "bool",
    "static_assert",
    "sa_handler",
    "sa_sigaction",
    "st_atime",
    "st_mtime",
    "st_ctime",
    "s6_addr",
    "s6_addr16",
    "s6_addr32",
    "h_addr",
    "IN6ADDR_ANY_INIT",
    "IN6ADDR_LOOPBACK_INIT",
    "basename",
    "complex",
    "alignas",
    "alignof",
    "noreturn",
    "thread_local",
    "ONCE_FLAG_INIT",
    "ATOMIC_FLAG_INIT",
    "and",
    "and_eq",
    "bitand",
    "bitor",
    "compl",
    "not",
    "not_eq",
    "or",
    "or_eq",
    "xor",
    "xor_eq",
}


def macro_names(src: Path, flags: list[str], real: bool) -> dict[str, bool]:
    """Macros defined by including the headers in ``src`` (name -> is function-like)."""
    if real:
        cmd = ["gcc", "-std=gnu17", "-E", "-dM", *flags, str(src)]
        base = ["gcc", "-std=gnu17", "-E", "-dM", *flags, "-x", "c", "/dev/null"]
    else:
        cmd = [*CPP, "-dM", *flags, str(src)]
        base = [*CPP, "-dM", *flags, "/dev/null"]

    def defs(c):
        res = subprocess.run(c, capture_output=True, text=True)
        assert res.returncode == 0, res.stderr
        out = {}
        for line in res.stdout.splitlines():
            m = re.match(r"#define (\w+)(\()?", line)
            out[m.group(1)] = bool(m.group(2))
        return out

    predefined = defs(base)
    return {n: f for n, f in defs(cmd).items() if n not in predefined}


def ours(name: str) -> bool:
    return not (name.startswith("__passman") or name.startswith("_PASSMAN_"))


@needs_gcc
@pytest.mark.parametrize("mode", MODES)
def test_every_macro_exists_in_real_headers(tmp_path, mode):
    src = tmp_path / "all.c"
    src.write_text(all_includes())
    mine = {n for n in macro_names(src, MODES[mode], real=False) if ours(n)}
    real = set(macro_names(src, MODES[mode], real=True))
    assert sorted(mine - real) == []


@needs_gcc
@pytest.mark.parametrize("mode", MODES)
def test_every_macro_value_and_type(tmp_path, mode):
    flags = MODES[mode]
    src = tmp_path / "probe.c"
    src.write_text(all_includes())
    names = sorted(
        n
        for n, fn in macro_names(src, flags, real=False).items()
        if ours(n) and not fn and n not in NOT_EXPRESSIONS and not n.endswith("_INITIALIZER")
    )  # braces: see the pthread test
    # Expand each macro the passman way: our cpp, pycparser, CGenerator.
    src.write_text(
        all_includes() + "void __probe(void)\n{\n" + "".join(f"({n});\n" for n in names) + "}\n"
    )
    ast = parse(src, flags)
    probe = next(n for n in ast.ext if isinstance(n, c_ast.FuncDef))
    gen = c_generator.CGenerator()
    expansions = [gen.visit(stmt) for stmt in probe.body.block_items]
    assert len(expansions) == len(names)

    checks = []
    for name, mine in zip(names, expansions, strict=True):
        shown = '"' + mine.replace("\\", "\\\\").replace('"', '\\"') + '"'
        checks.append(f"""
    {{
        __typeof__({mine}) a = {mine};
        __typeof__({name}) b = {name};
        if (!__builtin_types_compatible_p(__typeof__(a), __typeof__(b)))
            printf("{name}: type differs\\n");
        else if (__builtin_types_compatible_p(__typeof__(a), long double)
                 ? *(long double *)&a != *(long double *)&b
                 : memcmp(&a, &b, sizeof a) != 0)
            printf("{name}: value differs: %s\\n", {shown});
    }}""")
    check = tmp_path / "check.c"
    check.write_text(
        all_includes() + "#include <stdio.h>\n#include <string.h>\n"
        "int main(void)\n{" + "".join(checks) + "\n    return 0;\n}\n"
    )
    exe = tmp_path / "check"
    res = subprocess.run(
        [
            "gcc",
            "-std=gnu17",
            "-w",
            "-Werror=implicit-function-declaration",
            *flags,
            str(check),
            "-o",
            str(exe),
            "-lm",
        ],
        capture_output=True,
        text=True,
    )
    assert res.returncode == 0, res.stderr
    out = subprocess.run([str(exe)], capture_output=True, text=True)
    assert out.returncode == 0
    assert out.stdout == ""
    assert len(names) > 300


# --------------------------------------------------------------------------
# declarations agree with the real headers
# --------------------------------------------------------------------------

SKIP_DECLS = {"va_list"}  # char * here, __builtin_va_list for real


def _strip(t: c_ast.Node) -> c_ast.Node:
    while isinstance(t, c_ast.TypeDecl):
        t = t.type
    return t


def _defines_aggregate(t: c_ast.Node) -> bool:
    t = _strip(t)
    return isinstance(t, (c_ast.Struct, c_ast.Union, c_ast.Enum)) and (
        getattr(t, "decls", None) is not None or getattr(t, "values", None) is not None
    )


def layout_checks(agg: c_ast.Node, real_type: str, key: str) -> list[str]:
    """Static assertions comparing one of our struct/union/enum definitions
    with the real type of the same name."""
    gen = c_generator.CGenerator()
    if isinstance(agg, c_ast.Enum):
        out, prev = [], None
        for e in agg.values.enumerators:
            value = gen.visit(e.value) if e.value else f"{prev} + 1" if prev else "0"
            out.append(f'_Static_assert(({e.name}) == ({value}), "{e.name}");')
            prev = e.name
        return out
    # Member names may be macros in the real headers (sa_handler ...):
    # compare with the underlying members.
    members = sorted({d.name for d in _member_decls(agg) if d.name})
    push = [f'#pragma push_macro("{m}")\n#undef {m}' for m in members]
    pop = [f'#pragma pop_macro("{m}")' for m in members]
    clone = copy.deepcopy(agg)
    clone.name = f"__passman_chk_{key}"
    kind = "union" if isinstance(agg, c_ast.Union) else "struct"
    mine = f"{kind} {clone.name}"
    out = [
        gen.visit(c_ast.Decl(None, [], [], [], [], clone, None, None)) + ";",
        f'_Static_assert(sizeof({mine}) == sizeof({real_type}), "sizeof {key}");',
        f'_Static_assert(_Alignof({mine}) == _Alignof({real_type}), "alignof {key}");',
    ]
    for m in agg.decls:
        if m.bitsize is not None:
            continue
        out.append(
            f"_Static_assert(__builtin_offsetof({mine}, {m.name}) == "
            f'__builtin_offsetof({real_type}, {m.name}), "{key}.{m.name}");'
        )
        t = _strip(m.type)
        if isinstance(t, (c_ast.Struct, c_ast.Union)) and t.name is None:
            a, b = f"((({mine} *)0)->{m.name})", f"((({real_type} *)0)->{m.name})"
            out.append(f'_Static_assert(sizeof {a} == sizeof {b}, "{key}.{m.name}");')
        else:
            out.append(
                f"_Static_assert(__builtin_types_compatible_p("
                f"__typeof__((({mine} *)0)->{m.name}), __typeof__((({real_type} *)0)->{m.name})),"
                f' "type of {key}.{m.name}");'
            )
    return push + out + pop


def _member_decls(agg: c_ast.Node):
    for d in agg.decls or ():
        yield d
        t = _strip(d.type)
        if isinstance(t, (c_ast.Struct, c_ast.Union)) and t.decls:
            yield from _member_decls(t)


@needs_gcc
@pytest.mark.parametrize("mode", MODES)
def test_declarations_match_real_headers(tmp_path, mode):
    """Redeclare every prototype, extern variable and typedef of the stubs
    after the real headers (gcc rejects any conflict) and compare the layout
    of every struct, union and enum."""
    flags = MODES[mode]
    src = tmp_path / "all.c"
    src.write_text(all_includes())
    ast = parse(src, flags)
    gen = c_generator.CGenerator()
    lines, seen = [], set()
    for node in ast.ext:
        if not from_stubs(node):
            continue
        name = getattr(node, "name", None)
        if name in SKIP_DECLS or (name or "").startswith(("__builtin_", "__passman")):
            continue
        if isinstance(node, c_ast.Typedef) and _defines_aggregate(node.type):
            agg = _strip(node.type)
            lines += layout_checks(agg, name, name)
        elif isinstance(node, c_ast.Decl) and name is None:
            agg = node.type  # struct/union/enum definition without declarator
            if not _defines_aggregate(agg):
                continue  # a forward declaration (struct stat;): nothing to compare
            kind = {c_ast.Struct: "struct", c_ast.Union: "union"}.get(type(agg))
            if agg.name not in seen:
                seen.add(agg.name)
                lines += layout_checks(agg, f"{kind} {agg.name}", agg.name)
        else:
            decl = gen.visit(node) + ";"
            if isinstance(node, c_ast.Typedef):
                lines.append(decl)
            else:
                # The real header may define the name as a macro too
                # (stdout, setjmp, alloca, errno ...): compare with the
                # underlying declaration.
                lines += [f"#undef {name}", decl]
    assert len(lines) > 400
    check = tmp_path / "check.c"
    check.write_text(all_includes() + "\n".join(lines) + "\n")
    gcc_check(check, flags)
