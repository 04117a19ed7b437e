/*
 * tstaes: CBC throughput of libaesx, in the shape of the kernel-side AES
 * test harnesses (`tstaes iterations num_16byte_blocks`): each iteration
 * encrypts and then decrypts one buffer of num_16byte_blocks blocks with
 * AES-128-CBC, checks the round trip, and times both calls. For the soft
 * (portable) backend and for the hardware backend aesx picks, it prints the
 * average, the best and the worst iteration as microseconds, MB/s (10^6
 * bytes per second) and cycles per byte.
 *
 * Cycles are nominal: on x86-64 the TSC frequency measured against
 * CLOCK_MONOTONIC, elsewhere the CPU's maximum frequency from sysfs or
 * /proc/cpuinfo. On a shared or frequency-scaled machine read "worst" as
 * the noise.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

#include "aesx.h"

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The clock that cycles/byte counts in, in Hz, and where it came from. */
static double cpu_hz(const char **source)
{
#if defined(__x86_64__) || defined(__i386__)
    /* TSC ticks over about 100 ms of the monotonic clock. */
    uint64_t t0 = now_ns(), c0 = __rdtsc(), t1, c1;
    do {
        t1 = now_ns();
    } while (t1 - t0 < 100000000u);
    c1 = __rdtsc();
    *source = "invariant TSC, calibrated against CLOCK_MONOTONIC";
    return (double)(c1 - c0) * 1e9 / (double)(t1 - t0);
#else
    FILE *f = fopen("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq", "r");
    double khz = 0, mhz = 0;
    if (f) {
        if (fscanf(f, "%lf", &khz) != 1)
            khz = 0;
        fclose(f);
        if (khz > 0) {
            *source = "cpuinfo_max_freq (nominal)";
            return khz * 1e3;
        }
    }
    f = fopen("/proc/cpuinfo", "r");
    if (f) {
        char line[256];
        while (fgets(line, sizeof line, f))
            if (sscanf(line, "cpu MHz : %lf", &mhz) == 1)
                break;
        fclose(f);
        if (mhz > 0) {
            *source = "/proc/cpuinfo cpu MHz (nominal)";
            return mhz * 1e6;
        }
    }
    *source = "unknown: assumed 1 GHz, cycles/byte are ns/byte";
    return 1e9;
#endif
}

struct stats {
    uint64_t sum, best, worst;
};

static void add(struct stats *s, uint64_t ns)
{
    s->sum += ns;
    if (ns < s->best)
        s->best = ns;
    if (ns > s->worst)
        s->worst = ns;
}

static void line(const char *label, double ns, double bytes, double hz)
{
    double secs = ns * 1e-9;
    printf("%17s : time elapsed = %8.2f usecs, %8.2f MB/s, %8.2f cycles/byte\n", label,
           ns * 1e-3, bytes / secs / 1e6, secs * hz / bytes);
}

static void report(const char *call, const struct stats *s, unsigned iters, size_t size,
                   double hz)
{
    line(call, (double)s->sum / iters, (double)size, hz);
    line("best iteration", (double)s->best, (double)size, hz);
    line("worst iteration", (double)s->worst, (double)size, hz);
}

static int run(int backend, unsigned iters, size_t blocks, double hz)
{
    size_t size = 16 * blocks, i;
    uint8_t key[16], iv[16];
    uint8_t *plain = malloc(size ? size : 1), *cipher = malloc(size ? size : 1),
            *back = malloc(size ? size : 1);
    struct stats enc = {0, UINT64_MAX, 0}, dec = {0, UINT64_MAX, 0};
    aesx_key *k = NULL;
    unsigned it;
    int rc;

    if (!plain || !cipher || !back) {
        fprintf(stderr, "tstaes: out of memory\n");
        return 1;
    }
    for (i = 0; i < size; i++)
        plain[i] = (uint8_t)rand();
    for (i = 0; i < 16; i++) {
        key[i] = (uint8_t)rand();
        iv[i] = (uint8_t)rand();
    }
    rc = aesx_key_new(key, sizeof key, backend, &k);
    if (rc != AESX_OK) {
        fprintf(stderr, "tstaes: aesx_key_new(%s): %s\n", aesx_backend_name(backend),
                aesx_strerror(rc));
        return 1;
    }
    printf("backend %s: AES-128-CBC, %zu bytes per cbc call, %u iterations\n",
           aesx_backend_name(aesx_key_backend(k)), size, iters);
    for (it = 0; it < iters; it++) {
        uint64_t t0, t1, t2;
        t0 = now_ns();
        rc = aesx_cbc_encrypt(k, iv, AESX_PADDING_NONE, plain, size, cipher, size, NULL);
        t1 = now_ns();
        if (rc == AESX_OK)
            rc = aesx_cbc_decrypt(k, iv, AESX_PADDING_NONE, cipher, size, back, size, NULL);
        t2 = now_ns();
        if (rc != AESX_OK) {
            fprintf(stderr, "tstaes: %s\n", aesx_strerror(rc));
            return 1;
        }
        if (memcmp(plain, back, size) != 0) {
            fprintf(stderr, "tstaes: error: decrypt != plain (iteration %u)\n", it);
            return 1;
        }
        add(&enc, t1 - t0);
        add(&dec, t2 - t1);
    }
    report("aesx_cbc_encrypt", &enc, iters, size, hz);
    printf("\n");
    report("aesx_cbc_decrypt", &dec, iters, size, hz);
    printf("\n");
    aesx_key_free(k);
    free(plain);
    free(cipher);
    free(back);
    return 0;
}

static int count(const char *s, unsigned long *out)
{
    char *end;
    errno = 0;
    *out = strtoul(s, &end, 10);
    return errno == 0 && *s != '\0' && *s != '-' && *end == '\0' && *out > 0;
}

int main(int argc, char **argv)
{
    unsigned long iters, blocks;
    const char *source;
    double hz;
    int hw, failed = 0;

    if (argc != 3 || !count(argv[1], &iters) || !count(argv[2], &blocks) ||
        iters > 100000000ul || blocks > (1ul << 26)) {
        fprintf(stderr, "usage: %s iterations num_16byte_blocks   (e.g. %s 1000 2560)\n",
                argv[0], argv[0]);
        return 2;
    }
    srand(1);
    hz = cpu_hz(&source);
    printf("libaesx %s; CPU clock %.2f MHz (%s)\n\n", aesx_version(), hz / 1e6, source);

    failed |= run(AESX_BACKEND_SOFT, (unsigned)iters, (size_t)blocks, hz);
    hw = aesx_backend_default();
    if (hw > AESX_BACKEND_SOFT)
        failed |= run(hw, (unsigned)iters, (size_t)blocks, hz);
    else
        printf("no hardware AES backend on this machine (or AESX_BACKEND forces soft)\n");
    return failed;
}
