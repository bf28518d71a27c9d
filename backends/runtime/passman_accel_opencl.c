/* passman_accel_opencl.c: passman_accel.h on OpenCL 1.2.

   Device: the first GPU of any platform, else the first CPU device, else the first device;
   env PASSMAN_OPENCL_DEVICE picks the first device whose name contains it. The program is
   built once, at the first passman_accel_kernel, from env PASSMAN_OPENCL_SOURCE, else
   <executable's directory>/kernels.cl, else the text given to passman_accel_opencl_source;
   options "-cl-std=CL1.2", -I <the source's folder> and env PASSMAN_OPENCL_OPTIONS. Every
   OpenCL call is checked: "file:line: OpenCL error CL_...(-N) in clXxx", exit(1).

   gcc -std=c99 -O2 -c passman_accel_opencl.c; link with -lOpenCL */
#define _POSIX_C_SOURCE 200809L
#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif

#include "passman_accel.h"

#include <CL/cl.h>
#include <unistd.h>

#define PASSMAN_ACCEL_DEVICE_LIMITS 1 /* passman_device_limits below */
#include "passman_accel_common.h"

/* ---- errors --------------------------------------------------------------------------- */

static const char *cl_error_name(cl_int err)
{
    static const char *const names[] = {
        "CL_SUCCESS", "CL_DEVICE_NOT_FOUND", "CL_DEVICE_NOT_AVAILABLE",
        "CL_COMPILER_NOT_AVAILABLE", "CL_MEM_OBJECT_ALLOCATION_FAILURE", "CL_OUT_OF_RESOURCES",
        "CL_OUT_OF_HOST_MEMORY", "CL_PROFILING_INFO_NOT_AVAILABLE", "CL_MEM_COPY_OVERLAP",
        "CL_IMAGE_FORMAT_MISMATCH", "CL_IMAGE_FORMAT_NOT_SUPPORTED", "CL_BUILD_PROGRAM_FAILURE",
        "CL_MAP_FAILURE", "CL_MISALIGNED_SUB_BUFFER_OFFSET",
        "CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST", "CL_COMPILE_PROGRAM_FAILURE",
        "CL_LINKER_NOT_AVAILABLE", "CL_LINK_PROGRAM_FAILURE", "CL_DEVICE_PARTITION_FAILED",
        "CL_KERNEL_ARG_INFO_NOT_AVAILABLE"};
    static const char *const invalid[] = {
        "CL_INVALID_VALUE", "CL_INVALID_DEVICE_TYPE", "CL_INVALID_PLATFORM",
        "CL_INVALID_DEVICE", "CL_INVALID_CONTEXT", "CL_INVALID_QUEUE_PROPERTIES",
        "CL_INVALID_COMMAND_QUEUE", "CL_INVALID_HOST_PTR", "CL_INVALID_MEM_OBJECT",
        "CL_INVALID_IMAGE_FORMAT_DESCRIPTOR", "CL_INVALID_IMAGE_SIZE", "CL_INVALID_SAMPLER",
        "CL_INVALID_BINARY", "CL_INVALID_BUILD_OPTIONS", "CL_INVALID_PROGRAM",
        "CL_INVALID_PROGRAM_EXECUTABLE", "CL_INVALID_KERNEL_NAME",
        "CL_INVALID_KERNEL_DEFINITION", "CL_INVALID_KERNEL", "CL_INVALID_ARG_INDEX",
        "CL_INVALID_ARG_VALUE", "CL_INVALID_ARG_SIZE", "CL_INVALID_KERNEL_ARGS",
        "CL_INVALID_WORK_DIMENSION", "CL_INVALID_WORK_GROUP_SIZE", "CL_INVALID_WORK_ITEM_SIZE",
        "CL_INVALID_GLOBAL_OFFSET", "CL_INVALID_EVENT_WAIT_LIST", "CL_INVALID_EVENT",
        "CL_INVALID_OPERATION", "CL_INVALID_GL_OBJECT", "CL_INVALID_BUFFER_SIZE",
        "CL_INVALID_MIP_LEVEL", "CL_INVALID_GLOBAL_WORK_SIZE", "CL_INVALID_PROPERTY",
        "CL_INVALID_IMAGE_DESCRIPTOR", "CL_INVALID_COMPILER_OPTIONS",
        "CL_INVALID_LINKER_OPTIONS", "CL_INVALID_DEVICE_PARTITION_COUNT",
        "CL_INVALID_PIPE_SIZE", "CL_INVALID_DEVICE_QUEUE", "CL_INVALID_SPEC_ID",
        "CL_MAX_SIZE_RESTRICTION_EXCEEDED"};
    if (err <= 0 && -err < (cl_int) (sizeof names / sizeof *names))
        return names[-err];
    if (err <= -30 && -err - 30 < (cl_int) (sizeof invalid / sizeof *invalid))
        return invalid[-err - 30];
    if (err == -1001)
        return "CL_PLATFORM_NOT_FOUND_KHR";
    return "CL_UNKNOWN_ERROR";
}

/* "file:line: OpenCL error CL_...(-N) in clXxx[ (detail)]", exit(1). */
static void cl_check(cl_int err, const char *file, int line, const char *call,
                     const char *detail)
{
    if (err == CL_SUCCESS)
        return;
    fprintf(stderr, "%s:%d: OpenCL error %s(%d) in %s%s%s%s\n", file, line,
            cl_error_name(err), (int) err, call, detail ? " (" : "", detail ? detail : "",
            detail ? ")" : "");
    passman_die();
}

#define PASSMAN_CL_CHECK(err, call) cl_check((err), __FILE__, __LINE__, (call), NULL)
#define PASSMAN_CL_CHECK_AT(err, call, detail) cl_check((err), __FILE__, __LINE__, (call), (detail))

/* ---- state ---------------------------------------------------------------------------- */

struct kernel {
    char *name;
    cl_kernel handle;
    size_t max_group; /* CL_KERNEL_WORK_GROUP_SIZE */
    size_t warp;      /* CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE */
};

static struct {
    int ready;
    cl_device_id device;
    cl_context context;
    cl_command_queue queue;
    size_t max_item[3]; /* CL_DEVICE_MAX_WORK_ITEM_SIZES */
    size_t max_group;   /* CL_DEVICE_MAX_WORK_GROUP_SIZE */
    size_t units;       /* CL_DEVICE_MAX_COMPUTE_UNITS */
    size_t warp;        /* the device's warp (device_warp) */
    size_t max_global;  /* work-items per dimension of one launch (CL_DEVICE_ADDRESS_BITS) */
    char *source;       /* registered with passman_accel_opencl_source */
    cl_program program;
    struct kernel *kernels;
    size_t nkernels, kernels_cap;
} ocl;

/* ---- device choice -------------------------------------------------------------------- */

static char *device_name(cl_device_id d, char *buf, size_t size)
{
    PASSMAN_CL_CHECK(clGetDeviceInfo(d, CL_DEVICE_NAME, size, buf, NULL), "clGetDeviceInfo");
    buf[size - 1] = '\0';
    return buf;
}

/* The first device of `type` on any platform whose name contains `want` (any name when
   NULL), or NULL. */
static cl_device_id find_device(const cl_platform_id *platforms, cl_uint nplatforms,
                                cl_device_type type, const char *want)
{
    cl_uint p, i, n;
    for (p = 0; p < nplatforms; p++) {
        cl_device_id devices[64];
        cl_int err = clGetDeviceIDs(platforms[p], type, 64, devices, &n);
        if (err == CL_DEVICE_NOT_FOUND)
            continue;
        PASSMAN_CL_CHECK(err, "clGetDeviceIDs");
        for (i = 0; i < n && i < 64; i++) {
            char name[256];
            if (!want || strstr(device_name(devices[i], name, sizeof name), want))
                return devices[i];
        }
    }
    return NULL;
}

static cl_device_id choose_device(void)
{
    cl_platform_id platforms[16];
    cl_uint nplatforms = 0, p, i, n;
    const char *want = getenv("PASSMAN_OPENCL_DEVICE");
    cl_device_id d;
    cl_int err = clGetPlatformIDs(16, platforms, &nplatforms);
    if (err == -1001 /* CL_PLATFORM_NOT_FOUND_KHR */ || (err == CL_SUCCESS && nplatforms == 0))
        passman_fatal("no OpenCL platform (no ICD in /etc/OpenCL/vendors?)");
    PASSMAN_CL_CHECK(err, "clGetPlatformIDs");
    if (nplatforms > 16)
        nplatforms = 16;
    if (want && *want) {
        d = find_device(platforms, nplatforms, CL_DEVICE_TYPE_ALL, want);
        if (d)
            return d;
        fprintf(stderr, "passman-accel: PASSMAN_OPENCL_DEVICE=%s matches no OpenCL device; "
                        "the devices are:\n", want);
        for (p = 0; p < nplatforms; p++) {
            cl_device_id devices[64];
            if (clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, 64, devices, &n) != CL_SUCCESS)
                continue;
            for (i = 0; i < n && i < 64; i++) {
                char name[256];
                fprintf(stderr, "  %s\n", device_name(devices[i], name, sizeof name));
            }
        }
        passman_die();
    }
    d = find_device(platforms, nplatforms, CL_DEVICE_TYPE_GPU, NULL);
    if (!d)
        d = find_device(platforms, nplatforms, CL_DEVICE_TYPE_CPU, NULL);
    if (!d)
        d = find_device(platforms, nplatforms, CL_DEVICE_TYPE_ALL, NULL);
    if (!d)
        passman_fatal("no OpenCL device");
    return d;
}

/* The device's warp for launches that name no kernel: the vendor's (NVIDIA warp, AMD
   wavefront), else OpenCL 3.0's preferred work-group size multiple, else 32. A kernel's own
   CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE replaces it for that kernel's launches. */
static size_t device_warp(cl_device_id d)
{
    char extensions[8192] = "";
    cl_uint u = 0;
    size_t s = 0;
    clGetDeviceInfo(d, CL_DEVICE_EXTENSIONS, sizeof extensions - 1, extensions, NULL);
    if (strstr(extensions, "cl_nv_device_attribute_query") &&
        clGetDeviceInfo(d, 0x4003 /* CL_DEVICE_WARP_SIZE_NV */, sizeof u, &u, NULL) ==
            CL_SUCCESS && u > 0)
        return u;
    if (strstr(extensions, "cl_amd_device_attribute_query") &&
        clGetDeviceInfo(d, 0x4043 /* CL_DEVICE_WAVEFRONT_WIDTH_AMD */, sizeof u, &u, NULL) ==
            CL_SUCCESS && u > 0)
        return u;
    if (clGetDeviceInfo(d, 0x1067 /* CL_DEVICE_PREFERRED_WORK_GROUP_SIZE_MULTIPLE, 3.0 */,
                        sizeof s, &s, NULL) == CL_SUCCESS && s > 0)
        return s;
    return 32;
}

void passman_accel_init(void)
{
    cl_int err;
    cl_uint units, bits;
    if (ocl.ready)
        return;
    ocl.device = choose_device();
    PASSMAN_CL_CHECK(clGetDeviceInfo(ocl.device, CL_DEVICE_MAX_WORK_ITEM_SIZES, sizeof ocl.max_item,
                             ocl.max_item, NULL),
             "clGetDeviceInfo");
    PASSMAN_CL_CHECK(clGetDeviceInfo(ocl.device, CL_DEVICE_MAX_WORK_GROUP_SIZE,
                                     sizeof ocl.max_group, &ocl.max_group, NULL),
                     "clGetDeviceInfo");
    PASSMAN_CL_CHECK(clGetDeviceInfo(ocl.device, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof units,
                                     &units, NULL),
                     "clGetDeviceInfo");
    PASSMAN_CL_CHECK(clGetDeviceInfo(ocl.device, CL_DEVICE_ADDRESS_BITS, sizeof bits, &bits,
                                     NULL),
                     "clGetDeviceInfo");
    ocl.units = units;
    ocl.max_global = bits < 8 * sizeof(size_t) ? ((size_t) 1 << bits) - 1 : (size_t) -1;
    ocl.warp = device_warp(ocl.device);
    ocl.context = clCreateContext(NULL, 1, &ocl.device, NULL, NULL, &err);
    PASSMAN_CL_CHECK(err, "clCreateContext");
    ocl.queue = clCreateCommandQueue(ocl.context, ocl.device, 0, &err);
    PASSMAN_CL_CHECK(err, "clCreateCommandQueue");
    ocl.ready = 1;
    passman_register_exit();
}

void passman_accel_release(void)
{
    size_t i;
    if (!ocl.ready)
        return;
    ocl.ready = 0; /* errors below are ignored: this runs at exit */
    for (i = 0; i < passman_nbuffers; i++)
        clReleaseMemObject((cl_mem) passman_buffers[i].dev);
    passman_buffers_clear();
    for (i = 0; i < ocl.nkernels; i++) {
        clReleaseKernel(ocl.kernels[i].handle);
        free(ocl.kernels[i].name);
    }
    free(ocl.kernels);
    ocl.kernels = NULL;
    ocl.nkernels = ocl.kernels_cap = 0;
    if (ocl.program)
        clReleaseProgram(ocl.program);
    ocl.program = NULL;
    clReleaseCommandQueue(ocl.queue);
    clReleaseContext(ocl.context);
}

/* ---- buffers and copies --------------------------------------------------------------- */

void *passman_accel_malloc(size_t bytes)
{
    cl_int err;
    cl_mem m;
    passman_accel_init();
    m = clCreateBuffer(ocl.context, CL_MEM_READ_WRITE, bytes ? bytes : 1, NULL, &err);
    PASSMAN_CL_CHECK(err, "clCreateBuffer");
    passman_buffers_add((void *) m, bytes);
    return (void *) m;
}

void passman_accel_free(void *dev)
{
    passman_accel_init();
    if (!dev)
        return;
    passman_buffers_remove(passman_buffers_find(dev, "passman_accel_free"));
    PASSMAN_CL_CHECK(clReleaseMemObject((cl_mem) dev), "clReleaseMemObject");
}

struct copy {
    cl_mem dev;
    const void *from_host; /* copy_to */
    void *to_host;         /* copy_from */
    int to_device;
};

static void move_rect(void *ctx, const struct passman_rect *r)
{
    struct copy *c = (struct copy *) ctx;
    if (r->height == 1) {
        if (c->to_device)
            PASSMAN_CL_CHECK(clEnqueueWriteBuffer(ocl.queue, c->dev, CL_TRUE, r->base, r->width,
                                                  (const unsigned char *) c->from_host + r->base,
                                                  0, NULL, NULL),
                             "clEnqueueWriteBuffer");
        else
            PASSMAN_CL_CHECK(clEnqueueReadBuffer(ocl.queue, c->dev, CL_TRUE, r->base, r->width,
                                                 (unsigned char *) c->to_host + r->base, 0, NULL,
                                                 NULL),
                             "clEnqueueReadBuffer");
    } else {
        size_t origin[3], region[3];
        origin[0] = r->base % r->pitch;
        origin[1] = r->base / r->pitch;
        origin[2] = 0;
        region[0] = r->width;
        region[1] = r->height;
        region[2] = 1;
        if (c->to_device)
            PASSMAN_CL_CHECK(clEnqueueWriteBufferRect(ocl.queue, c->dev, CL_TRUE, origin, origin,
                                                      region, r->pitch, 0, r->pitch, 0,
                                                      c->from_host, 0, NULL, NULL),
                             "clEnqueueWriteBufferRect");
        else
            PASSMAN_CL_CHECK(clEnqueueReadBufferRect(ocl.queue, c->dev, CL_TRUE, origin, origin,
                                                     region, r->pitch, 0, r->pitch, 0, c->to_host,
                                                     0, NULL, NULL),
                             "clEnqueueReadBufferRect");
    }
}

void passman_accel_copy_to(void *dev, const void *host, size_t elem, int rank,
                           const size_t *dims, const size_t *offset, const size_t *count)
{
    struct copy c;
    passman_accel_init();
    c.dev = (cl_mem) dev;
    c.from_host = host;
    c.to_host = NULL;
    c.to_device = 1;
    passman_count_copy(1, passman_box_copy("passman_accel_copy_to", dev, elem, rank, dims,
                                           offset, count, move_rect, &c));
}

void passman_accel_copy_from(void *host, const void *dev, size_t elem, int rank,
                             const size_t *dims, const size_t *offset, const size_t *count)
{
    struct copy c;
    passman_accel_init();
    c.dev = (cl_mem) dev;
    c.from_host = NULL;
    c.to_host = host;
    c.to_device = 0;
    passman_count_copy(0, passman_box_copy("passman_accel_copy_from", dev, elem, rank, dims,
                                           offset, count, move_rect, &c));
}

/* ---- the program and its kernels ------------------------------------------------------ */

void passman_accel_opencl_source(const char *text)
{
    size_t n = strlen(text) + 1;
    ocl.source = (char *) passman_xrealloc(ocl.source, n);
    memcpy(ocl.source, text, n);
}

/* The whole file `path`, or NULL when it cannot be opened. */
static char *read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    char *text = NULL;
    size_t n = 0, cap = 0;
    if (!f)
        return NULL;
    for (;;) {
        if (cap - n < 4096) {
            cap = cap ? 2 * cap : 65536;
            text = (char *) passman_xrealloc(text, cap);
        }
        size_t got = fread(text + n, 1, cap - n - 1, f);
        n += got;
        if (got == 0)
            break;
    }
    if (ferror(f))
        passman_fatal("cannot read the OpenCL source %s: %s", path, strerror(errno));
    fclose(f);
    text[n] = '\0';
    return text;
}

/* Finds the kernel source (see the top of this file): *path gets the file (NULL for the
   registered text); the caller frees *dir_option and, when *path, the text. */
static char *find_source(char *path, size_t size, char **dir_option)
{
    const char *env = getenv("PASSMAN_OPENCL_SOURCE");
    char *text, *slash;
    *dir_option = NULL;
    if (env && *env) {
        snprintf(path, size, "%s", env);
        text = read_file(path);
        if (!text)
            passman_fatal("PASSMAN_OPENCL_SOURCE=%s: %s", env, strerror(errno));
    } else {
        ssize_t n = readlink("/proc/self/exe", path, size - 16);
        text = NULL;
        if (n > 0) {
            path[n] = '\0';
            slash = strrchr(path, '/');
            strcpy(slash ? slash + 1 : path, "kernels.cl");
            text = read_file(path);
        }
        if (!text) {
            if (!ocl.source)
                passman_fatal("no OpenCL kernels: set PASSMAN_OPENCL_SOURCE, put kernels.cl "
                              "next to the executable, or call passman_accel_opencl_source");
            path[0] = '\0';
            return ocl.source;
        }
    }
    slash = strrchr(path, '/');
    if (!strchr(path, ' ')) {
        size_t dir = !slash ? 1 : slash == path ? 1 : (size_t) (slash - path);
        *dir_option = (char *) passman_xrealloc(NULL, dir + 4);
        snprintf(*dir_option, dir + 4, "-I %.*s", (int) dir, slash ? path : ".");
    }
    return text;
}

static void build_program(void)
{
    char path[4096], *dir_option, *options, *log;
    const char *extra = getenv("PASSMAN_OPENCL_OPTIONS");
    char *text = find_source(path, sizeof path, &dir_option);
    size_t n, log_size = 0;
    cl_int err;
    ocl.program = clCreateProgramWithSource(ocl.context, 1, (const char **) &text, NULL, &err);
    PASSMAN_CL_CHECK(err, "clCreateProgramWithSource");
    if (text != ocl.source)
        free(text);
    n = 64 + (dir_option ? strlen(dir_option) : 0) + (extra ? strlen(extra) : 0);
    options = (char *) passman_xrealloc(NULL, n);
    snprintf(options, n, "-cl-std=CL1.2 %s %s", dir_option ? dir_option : "", extra ? extra : "");
    free(dir_option);
    err = clBuildProgram(ocl.program, 1, &ocl.device, options, NULL, NULL);
    free(options);
    if (err == CL_SUCCESS)
        return;
    clGetProgramBuildInfo(ocl.program, ocl.device, CL_PROGRAM_BUILD_LOG, 0, NULL, &log_size);
    log = (char *) passman_xrealloc(NULL, log_size + 1);
    log[0] = '\0';
    clGetProgramBuildInfo(ocl.program, ocl.device, CL_PROGRAM_BUILD_LOG, log_size, log, NULL);
    log[log_size] = '\0';
    fprintf(stderr, "passman-accel: building the OpenCL program %s failed:\n%s\n",
            path[0] ? path : "(the text given to passman_accel_opencl_source)", log);
    free(log);
    PASSMAN_CL_CHECK(err, "clBuildProgram");
}

void *passman_accel_kernel(const char *name)
{
    struct kernel *k;
    cl_int err;
    size_t i;
    passman_accel_init();
    for (i = 0; i < ocl.nkernels; i++)
        if (strcmp(ocl.kernels[i].name, name) == 0)
            return (void *) ocl.kernels[i].handle;
    if (!ocl.program)
        build_program();
    if (ocl.nkernels == ocl.kernels_cap) {
        ocl.kernels_cap = ocl.kernels_cap ? 2 * ocl.kernels_cap : 16;
        ocl.kernels = (struct kernel *) passman_xrealloc(ocl.kernels,
                                                         ocl.kernels_cap * sizeof *ocl.kernels);
    }
    k = &ocl.kernels[ocl.nkernels];
    k->handle = clCreateKernel(ocl.program, name, &err);
    PASSMAN_CL_CHECK_AT(err, "clCreateKernel", name);
    PASSMAN_CL_CHECK_AT(clGetKernelWorkGroupInfo(k->handle, ocl.device, CL_KERNEL_WORK_GROUP_SIZE,
                                         sizeof k->max_group, &k->max_group, NULL),
                "clGetKernelWorkGroupInfo", name);
    PASSMAN_CL_CHECK_AT(clGetKernelWorkGroupInfo(k->handle, ocl.device,
                                                 CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE,
                                                 sizeof k->warp, &k->warp, NULL),
                        "clGetKernelWorkGroupInfo", name);
    k->name = (char *) passman_xrealloc(NULL, strlen(name) + 1);
    strcpy(k->name, name);
    ocl.nkernels++;
    return (void *) k->handle;
}

/* The cached entry of a kernel handle (NULL for one not from passman_accel_kernel). */
static struct kernel *kernel_entry(void *handle)
{
    size_t i;
    for (i = 0; i < ocl.nkernels; i++)
        if ((void *) ocl.kernels[i].handle == handle)
            return &ocl.kernels[i];
    return NULL;
}

void passman_accel_arg(void *kernel, int index, size_t size, const void *value)
{
    struct kernel *k = kernel_entry(kernel);
    char detail[300];
    snprintf(detail, sizeof detail, "kernel %s, argument %d", k ? k->name : "?", index);
    PASSMAN_CL_CHECK_AT(clSetKernelArg((cl_kernel) kernel, (cl_uint) index, size, value),
                "clSetKernelArg", detail);
}

/* The device's limits, and those of the kernel `kernel` once passman_accel_kernel made it:
   its CL_KERNEL_WORK_GROUP_SIZE and CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE. No grid
   limit: passman_accel_launch_for strip-mines what one launch cannot take. */
static void passman_device_limits(const char *kernel, struct passman_device_limits *lim)
{
    size_t i;
    passman_accel_init();
    memset(lim, 0, sizeof *lim); /* OpenCL reports no occupancy */
    lim->warp = ocl.warp;
    lim->max_group = ocl.max_group;
    lim->max_item[0] = ocl.max_item[0];
    lim->max_item[1] = ocl.max_item[1];
    lim->max_item[2] = ocl.max_item[2];
    lim->compute_units = ocl.units;
    lim->max_groups[0] = lim->max_groups[1] = lim->max_groups[2] = 0;
    for (i = 0; kernel && i < ocl.nkernels; i++)
        if (strcmp(ocl.kernels[i].name, kernel) == 0) {
            if (ocl.kernels[i].max_group < lim->max_group)
                lim->max_group = ocl.kernels[i].max_group;
            if (ocl.kernels[i].warp > 0)
                lim->warp = ocl.kernels[i].warp;
            break;
        }
}

/* The most work-groups per dimension in one launch: what the device's addresses allow, and
   env PASSMAN_OPENCL_MAX_GRID ("65535", "1024x65535x65535"; missing components: no limit),
   which makes the strip-mining testable on any device. */
static void max_grid(const size_t *local, size_t *groups)
{
    size_t env[3];
    int d;
    passman_grid_from_env("PASSMAN_OPENCL_MAX_GRID", env);
    for (d = 0; d < 3; d++) {
        groups[d] = ocl.max_global / local[d];
        if (env[d] && env[d] < groups[d])
            groups[d] = env[d];
    }
}

/* passman_accel_launch with the recipe's block for the kernel (`block`: ndims sizes, NULL:
   none; see passman_accel_config_for). */
void passman_accel_launch_for(void *kernel, const size_t *block, int ndims, const size_t *extent);

void passman_accel_launch_for(void *kernel, const size_t *block, int ndims, const size_t *extent)
{
    struct kernel *k = kernel_entry(kernel);
    size_t global[3] = {1, 1, 1}, local[3] = {1, 1, 1}, groups[3], offset[3], size[3], items;
    size_t strips, s;
    double start;
    int d;
    if (!k)
        passman_fatal("passman_accel_launch: %p is not a kernel from passman_accel_kernel",
                      kernel);
    passman_accel_config_for(k->name, block, ndims, extent, global, local);
    for (d = 0; d < ndims; d++)
        if (global[d] == 0)
            return;
    /* An override the device or the kernel cannot take: halve the largest side. */
    for (;;) {
        int big = 0;
        items = local[0] * local[1] * local[2];
        for (d = 1; d < ndims; d++)
            if (local[d] > local[big])
                big = d;
        if (items <= k->max_group && local[0] <= ocl.max_item[0] &&
            local[1] <= ocl.max_item[1] && local[2] <= ocl.max_item[2])
            break;
        for (d = 0; d < ndims; d++)
            if (local[d] > ocl.max_item[d])
                big = d;
        local[big] /= 2;
        global[big] = (extent[big] + local[big] - 1) / local[big] * local[big];
    }
    /* A grid larger than one launch takes: strips, each with its global offset. */
    max_grid(local, groups);
    strips = passman_strips(ndims, global, local, groups, 0, offset, size);
    start = passman_accel_time();
    for (s = 0; s < strips; s++) {
        passman_strips(ndims, global, local, groups, s, offset, size);
        PASSMAN_CL_CHECK_AT(clEnqueueNDRangeKernel(ocl.queue, (cl_kernel) kernel, (cl_uint) ndims,
                                                   strips > 1 ? offset : NULL, size, local, 0,
                                                   NULL, NULL),
                            "clEnqueueNDRangeKernel", k->name);
    }
    PASSMAN_CL_CHECK_AT(clFinish(ocl.queue), "clFinish", k->name);
    passman_accel_launched(passman_accel_time() - start);
}

void passman_accel_launch(void *kernel, int ndims, const size_t *extent)
{
    passman_accel_launch_for(kernel, NULL, ndims, extent);
}
