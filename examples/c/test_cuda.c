/*
 * test_cuda.c: the aesx_cuda_* calls of libaesx (device memory on an NVIDIA
 * GPU), checked against the CPU calls of the same library.
 *
 * Without a GPU (no libcuda, no device, no NVRTC): aesx_cuda_available and
 * the key constructors must return AESX_ERR_NO_DEVICE (after the key length
 * check), and no data call can be reached without a key; the program passes.
 * With AESX_REQUIRE_GPU=1 in the environment a missing GPU is a failure.
 *
 * With a GPU: device memory comes from the CUDA driver API, loaded with
 * dlopen (no toolkit needed to build this), in the primary context, as
 * cudaMalloc, CuPy and PyTorch allocate it. Every mode's bytes must equal
 * the CPU's; a forged GCM tag must be refused with the output zeroed; a
 * batch with one bad tag must report exactly that message.
 *
 * Built and run by .ci/capi.sh: make -C examples/c build/test_cuda.
 */
#define _POSIX_C_SOURCE 200809L
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aesx.h"

static int failures = 0;

#define CHECK(cond)                                                        \
    do {                                                                   \
        if (!(cond)) {                                                     \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, \
                    #cond);                                                \
            failures++;                                                    \
        }                                                                  \
    } while (0)

#define CHECK_STATUS(call, want)                                              \
    do {                                                                      \
        int got_ = (call);                                                    \
        if (got_ != (want)) {                                                 \
            fprintf(stderr, "%s:%d: %s returned %d (%s), want %d\n", __FILE__, \
                    __LINE__, #call, got_, aesx_strerror(got_), (int)(want)); \
            failures++;                                                       \
        }                                                                     \
    } while (0)

/* The few driver API entry points used, by their ABI (CUresult is int,
 * CUdeviceptr an unsigned 64-bit integer). */
typedef int (*cu_init_t)(unsigned);
typedef int (*cu_device_get_t)(int *, int);
typedef int (*cu_primary_retain_t)(void **, int);
typedef int (*cu_ctx_set_t)(void *);
typedef int (*cu_alloc_t)(uint64_t *, size_t);
typedef int (*cu_free_t)(uint64_t);
typedef int (*cu_htod_t)(uint64_t, const void *, size_t);
typedef int (*cu_dtoh_t)(void *, uint64_t, size_t);
typedef int (*cu_stream_create_t)(void **, unsigned);
typedef int (*cu_stream_sync_t)(void *);
typedef int (*cu_stream_destroy_t)(void *);
typedef int (*cu_ctx_sync_t)(void);

static struct {
    cu_init_t init;
    cu_device_get_t device_get;
    cu_primary_retain_t primary_retain;
    cu_ctx_set_t ctx_set;
    cu_alloc_t alloc;
    cu_free_t free;
    cu_htod_t htod;
    cu_dtoh_t dtoh;
    cu_stream_create_t stream_create;
    cu_stream_sync_t stream_sync;
    cu_stream_destroy_t stream_destroy;
    cu_ctx_sync_t ctx_sync;
} cu;

/* POSIX's way to store dlsym's result in a function pointer (-pedantic
 * forbids the cast). */
static int load(void *lib, void *slot, const char *name) {
    void *p = dlsym(lib, name);
    memcpy(slot, &p, sizeof p);
    return p != NULL;
}

static int open_driver(void) {
    void *lib = dlopen("libcuda.so.1", RTLD_NOW);
    if (lib == NULL) lib = dlopen("libcuda.so", RTLD_NOW);
    if (lib == NULL) return 0;
    int ok = load(lib, &cu.init, "cuInit") && load(lib, &cu.device_get, "cuDeviceGet") &&
             load(lib, &cu.primary_retain, "cuDevicePrimaryCtxRetain") &&
             load(lib, &cu.ctx_set, "cuCtxSetCurrent") && load(lib, &cu.alloc, "cuMemAlloc_v2") &&
             load(lib, &cu.free, "cuMemFree_v2") && load(lib, &cu.htod, "cuMemcpyHtoD_v2") &&
             load(lib, &cu.dtoh, "cuMemcpyDtoH_v2") &&
             load(lib, &cu.stream_create, "cuStreamCreate") &&
             load(lib, &cu.stream_sync, "cuStreamSynchronize") &&
             load(lib, &cu.stream_destroy, "cuStreamDestroy_v2") &&
             load(lib, &cu.ctx_sync, "cuCtxSynchronize");
    if (!ok) return 0;
    int dev = 0;
    void *ctx = NULL;
    return cu.init(0) == 0 && cu.device_get(&dev, 0) == 0 && cu.primary_retain(&ctx, dev) == 0 &&
           cu.ctx_set(ctx) == 0;
}

static void fill(uint8_t *p, size_t n, uint32_t seed) {
    for (size_t i = 0; i < n; i++) {
        seed = seed * 1103515245u + 12345u;
        p[i] = (uint8_t)(seed >> 16);
    }
}

static uint64_t dev_alloc(size_t n) {
    uint64_t d = 0;
    CHECK(cu.alloc(&d, n) == 0);
    return d;
}

static void *dp(uint64_t d) { return (void *)(uintptr_t)d; }

static void to_dev(uint64_t d, const uint8_t *h, size_t n) { CHECK(cu.htod(d, h, n) == 0); }

static void from_dev(uint8_t *h, uint64_t d, size_t n) {
    CHECK(cu.ctx_sync() == 0);
    CHECK(cu.dtoh(h, d, n) == 0);
}

static int all_zero(const uint8_t *p, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (p[i]) return 0;
    return 1;
}

static void without_gpu(void) {
    uint8_t key[32] = {1};
    struct aesx_cuda_key *k = (struct aesx_cuda_key *)&failures;
    struct aesx_cuda_xts_key *x = (struct aesx_cuda_xts_key *)&failures;
    CHECK_STATUS(aesx_cuda_available(0), AESX_ERR_NO_DEVICE);
    CHECK_STATUS(aesx_cuda_key_new(key, 15, 0, &k), AESX_ERR_KEY_LENGTH);
    CHECK(k == NULL);
    CHECK_STATUS(aesx_cuda_key_new(key, 16, 0, &k), AESX_ERR_NO_DEVICE);
    CHECK(k == NULL);
    CHECK_STATUS(aesx_cuda_xts_key_new(key, 16, 0, &x), AESX_ERR_KEY_LENGTH);
    CHECK_STATUS(aesx_cuda_xts_key_new(key, 32, 0, &x), AESX_ERR_NO_DEVICE);
    CHECK(x == NULL);
    CHECK(strstr(aesx_strerror(AESX_ERR_NO_DEVICE), "CUDA") != NULL);
    aesx_cuda_key_free(NULL);
    aesx_cuda_xts_key_free(NULL);
}

static void with_gpu(void) {
    enum { N = 3 * 16384 + 100 };
    static uint8_t pt[N], ct[N], got[N];
    uint8_t key[32], xkey[64], nonce[12], aad[20], tag[16], gtag[16], ctr[16], iv[16];
    fill(key, sizeof key, 1);
    fill(xkey, sizeof xkey, 2);
    fill(nonce, sizeof nonce, 3);
    fill(aad, sizeof aad, 4);
    fill(ctr, sizeof ctr, 5);
    fill(iv, sizeof iv, 6);
    fill(pt, N, 7);

    struct aesx_key *cpu = NULL;
    struct aesx_xts_key *cpux = NULL;
    struct aesx_cuda_key *k = NULL;
    struct aesx_cuda_xts_key *x = NULL;
    CHECK_STATUS(aesx_key_new(key, 32, AESX_BACKEND_AUTO, &cpu), AESX_OK);
    CHECK_STATUS(aesx_xts_key_new(xkey, 64, AESX_BACKEND_AUTO, &cpux), AESX_OK);
    CHECK_STATUS(aesx_cuda_key_new(key, 32, 0, &k), AESX_OK);
    CHECK_STATUS(aesx_cuda_xts_key_new(xkey, 64, 0, &x), AESX_OK);
    if (k == NULL || x == NULL) return;

    uint64_t din = dev_alloc(N), dout = dev_alloc(N);
    void *stream = NULL;
    CHECK(cu.stream_create(&stream, 1 /* CU_STREAM_NON_BLOCKING */) == 0);

    /* GCM, out of place, on a stream of the caller's. */
    CHECK_STATUS(aesx_gcm_seal(cpu, nonce, 12, aad, sizeof aad, pt, ct, N, tag, 16), AESX_OK);
    to_dev(din, pt, N);
    CHECK_STATUS(aesx_cuda_gcm_seal(k, nonce, 12, aad, sizeof aad, dp(din), dp(dout), N, gtag, 16,
                                    stream),
                 AESX_OK);
    CHECK(cu.stream_sync(stream) == 0);
    from_dev(got, dout, N);
    CHECK(memcmp(got, ct, N) == 0);
    CHECK(memcmp(gtag, tag, 16) == 0);
    /* In place, then opened in place. */
    CHECK_STATUS(aesx_cuda_gcm_seal(k, nonce, 12, aad, sizeof aad, dp(din), dp(din), N, gtag, 16,
                                    NULL),
                 AESX_OK);
    from_dev(got, din, N);
    CHECK(memcmp(got, ct, N) == 0);
    CHECK_STATUS(aesx_cuda_gcm_open(k, nonce, 12, aad, sizeof aad, dp(din), dp(din), N, tag, 16,
                                    NULL),
                 AESX_OK);
    from_dev(got, din, N);
    CHECK(memcmp(got, pt, N) == 0);
    /* A forged tag: refused, output zeroed. */
    to_dev(din, ct, N);
    to_dev(dout, pt, N);
    tag[0] ^= 1;
    CHECK_STATUS(aesx_cuda_gcm_open(k, nonce, 12, aad, sizeof aad, dp(din), dp(dout), N, tag, 16,
                                    NULL),
                 AESX_ERR_AUTH_FAILED);
    tag[0] ^= 1;
    from_dev(got, dout, N);
    CHECK(all_zero(got, N));
    /* Short tags and argument errors. */
    CHECK_STATUS(aesx_cuda_gcm_seal(k, nonce, 12, aad, sizeof aad, dp(din), dp(dout), N, gtag, 5,
                                    NULL),
                 AESX_ERR_TAG_LENGTH);
    CHECK_STATUS(aesx_cuda_gcm_seal(k, nonce, 0, aad, sizeof aad, dp(din), dp(dout), N, gtag, 16,
                                    NULL),
                 AESX_ERR_EMPTY_NONCE);
    CHECK_STATUS(aesx_cuda_ctr(k, ctr, dp(din + 1), dp(dout), 64, NULL), AESX_ERR_DEVICE);
    CHECK_STATUS(aesx_cuda_ctr(k, ctr, dp(din), dp(din + 16), 64, NULL), AESX_ERR_OVERLAP);
    CHECK_STATUS(aesx_cuda_ctr(k, ctr, pt, dp(dout), 64, NULL), AESX_ERR_DEVICE);

    /* CTR (any length). */
    CHECK_STATUS(aesx_ctr_xor(cpu, ctr, 0, pt, ct, N - 5), AESX_OK);
    to_dev(din, pt, N);
    CHECK_STATUS(aesx_cuda_ctr(k, ctr, dp(din), dp(dout), N - 5, stream), AESX_OK);
    CHECK(cu.stream_sync(stream) == 0);
    from_dev(got, dout, N - 5);
    CHECK(memcmp(got, ct, N - 5) == 0);

    /* ECB both ways. */
    size_t nb = N & ~(size_t)15;
    CHECK_STATUS(aesx_ecb_encrypt(cpu, pt, ct, nb), AESX_OK);
    CHECK_STATUS(aesx_cuda_ecb_encrypt(k, dp(din), dp(dout), nb, NULL), AESX_OK);
    from_dev(got, dout, nb);
    CHECK(memcmp(got, ct, nb) == 0);
    CHECK_STATUS(aesx_cuda_ecb_decrypt(k, dp(dout), dp(dout), nb, NULL), AESX_OK);
    from_dev(got, dout, nb);
    CHECK(memcmp(got, pt, nb) == 0);
    CHECK_STATUS(aesx_cuda_ecb_encrypt(k, dp(din), dp(dout), nb - 1, NULL),
                 AESX_ERR_NOT_BLOCK_ALIGNED);

    /* CBC decryption of the CPU's CBC encryption. */
    size_t clen = 0;
    CHECK_STATUS(aesx_cbc_encrypt(cpu, iv, AESX_PADDING_NONE, pt, nb, ct, nb, &clen), AESX_OK);
    to_dev(din, ct, nb);
    CHECK_STATUS(aesx_cuda_cbc_decrypt(k, iv, dp(din), dp(dout), nb, NULL), AESX_OK);
    from_dev(got, dout, nb);
    CHECK(memcmp(got, pt, nb) == 0);
    CHECK_STATUS(aesx_cuda_cbc_decrypt(k, iv, dp(din), dp(din), nb, NULL), AESX_ERR_OVERLAP);

    /* XTS sectors. */
    size_t xs = 4096, xl = 8 * 4096;
    static uint8_t xpt[8 * 4096], xct[8 * 4096], xgot[8 * 4096];
    uint64_t xin = dev_alloc(xl), xout = dev_alloc(xl);
    fill(xpt, xl, 8);
    CHECK_STATUS(aesx_xts_encrypt_sectors(cpux, xs, 1000, xpt, xct, xl), AESX_OK);
    to_dev(xin, xpt, xl);
    CHECK_STATUS(aesx_cuda_xts_encrypt_sectors(x, xs, 1000, dp(xin), dp(xout), xl, NULL), AESX_OK);
    from_dev(xgot, xout, xl);
    CHECK(memcmp(xgot, xct, xl) == 0);
    CHECK_STATUS(aesx_cuda_xts_decrypt_sectors(x, xs, 1000, dp(xout), dp(xout), xl, NULL),
                 AESX_OK);
    from_dev(xgot, xout, xl);
    CHECK(memcmp(xgot, xpt, xl) == 0);
    CHECK_STATUS(aesx_cuda_xts_encrypt_sectors(x, 100, 0, dp(xin), dp(xout), xl, NULL),
                 AESX_ERR_SECTOR_SIZE);

    /* Many messages: 4 of 16384 bytes, the last 100 bytes. */
    enum { M = 4, STRIDE = 16384 };
    uint8_t nonces[M * 12], tags[M * 16], oks[M];
    fill(nonces, sizeof nonces, 9);
    to_dev(din, pt, N);
    CHECK_STATUS(aesx_cuda_gcm_seal_many(k, nonces, M, aad, sizeof aad, STRIDE, dp(din), N, tags,
                                         NULL),
                 AESX_OK);
    from_dev(got, din, N);
    for (size_t i = 0; i < M; i++) {
        size_t off = i * STRIDE, len = (i + 1 < M) ? STRIDE : N - off;
        uint8_t t[16];
        CHECK_STATUS(aesx_gcm_seal(cpu, nonces + 12 * i, 12, aad, sizeof aad, pt + off, ct + off,
                                   len, t, 16),
                     AESX_OK);
        CHECK(memcmp(got + off, ct + off, len) == 0);
        CHECK(memcmp(tags + 16 * i, t, 16) == 0);
    }
    tags[16 * 2] ^= 1;
    CHECK_STATUS(aesx_cuda_gcm_open_many(k, nonces, M, aad, sizeof aad, STRIDE, dp(din), N, tags,
                                         oks, NULL),
                 AESX_ERR_AUTH_FAILED);
    CHECK(oks[0] == 1 && oks[1] == 1 && oks[2] == 0 && oks[3] == 1);
    from_dev(got, din, N);
    CHECK(memcmp(got, pt, 2 * STRIDE) == 0);
    CHECK(all_zero(got + 2 * STRIDE, STRIDE));
    CHECK(memcmp(got + 3 * STRIDE, pt + 3 * STRIDE, N - 3 * STRIDE) == 0);
    CHECK_STATUS(aesx_cuda_gcm_seal_many(k, nonces, M, aad, sizeof aad, 100, dp(din), N, tags,
                                         NULL),
                 AESX_ERR_SECTOR_SIZE);

    CHECK(cu.stream_destroy(stream) == 0);
    CHECK(cu.free(din) == 0 && cu.free(dout) == 0 && cu.free(xin) == 0 && cu.free(xout) == 0);
    aesx_cuda_key_free(k);
    aesx_cuda_xts_key_free(x);
    aesx_key_free(cpu);
    aesx_xts_key_free(cpux);
}

int main(void) {
    const char *req = getenv("AESX_REQUIRE_GPU");
    int require = req != NULL && strcmp(req, "1") == 0;
    if (aesx_cuda_available(0) == AESX_OK) {
        if (!open_driver()) {
            fprintf(stderr, "test_cuda: aesx sees a GPU but the driver API did not load\n");
            return 1;
        }
        with_gpu();
        printf("test_cuda: GPU checks %s\n", failures ? "FAILED" : "passed");
    } else {
        without_gpu();
        printf("test_cuda: no CUDA device, no-device checks %s\n", failures ? "FAILED" : "passed");
        if (require) {
            fprintf(stderr, "test_cuda: AESX_REQUIRE_GPU=1 but no CUDA device\n");
            return 1;
        }
    }
    return failures ? 1 : 0;
}
