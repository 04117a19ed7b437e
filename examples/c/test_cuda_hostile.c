/*
 * test_cuda_hostile.c: the aesx_cuda_* calls of libaesx under hostile
 * arguments, on any machine (no GPU needed, and none is touched).
 *
 * Every argument error must be reported before the call reads a byte of
 * the key handle, of a batch's nonces or tags, or of anything its
 * arguments do not allow. So the key handles given here are the address
 * of a PROT_NONE guard page (reading one is a SIGSEGV), and every host
 * buffer ends where a guard page starts: a call that reads `count * 12`
 * nonce bytes before checking `count` against the buffer crashes this
 * program instead of returning AESX_ERR_INVALID_LENGTH. Device addresses
 * are plain numbers: the checks here come before any driver call.
 *
 * Built and run by .ci/gpu-hostile.sh, plain and under
 * -fsanitize=address,undefined (guard pages and ASan coexist: the pages are
 * mmap'ed, outside ASan's heap).
 */
#define _DEFAULT_SOURCE
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "aesx.h"

static int failures = 0;
static int checks = 0;

#define CHECK_STATUS(call, want)                                              \
    do {                                                                      \
        int got_ = (call);                                                    \
        checks++;                                                             \
        if (got_ != (want)) {                                                 \
            fprintf(stderr, "%s:%d: %s returned %d (%s), want %d (%s)\n",     \
                    __FILE__, __LINE__, #call, got_, aesx_strerror(got_),     \
                    (int)(want), aesx_strerror(want));                        \
            failures++;                                                       \
        }                                                                     \
    } while (0)

static size_t page;
/* A PROT_NONE page: the fake key handles point here. */
static void *guard;
/* One readable and writable page followed by a PROT_NONE page. */
static uint8_t *arena;

static void map_pages(void) {
    page = (size_t)sysconf(_SC_PAGESIZE);
    uint8_t *m = mmap(NULL, 3 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) {
        perror("mmap");
        _exit(2);
    }
    /* [guard][arena][guard] */
    if (mprotect(m, page, PROT_NONE) != 0 || mprotect(m + 2 * page, page, PROT_NONE) != 0) {
        perror("mprotect");
        _exit(2);
    }
    guard = m;
    arena = m + page;
    memset(arena, 0x5a, page);
}

/* `n` host bytes that end exactly where the trailing guard page starts. */
static uint8_t *at_end(size_t n) { return arena + page - n; }

#define KEY ((const struct aesx_cuda_key *)guard)
#define XKEY ((const struct aesx_cuda_xts_key *)guard)
/* Device addresses: 16-byte aligned numbers, never dereferenced here. */
#define DEV(a) ((void *)(uintptr_t)(a))
#define D1 DEV(0x100000)
#define D2 DEV(0x200000)

static void batches(void) {
    const uint8_t *one_nonce = at_end(12);
    const uint8_t *one_tag = at_end(16);
    uint8_t *tags_out = at_end(16);
    uint8_t *ok_out = at_end(1);
    const uint8_t *aad = at_end(5);

    /* A count that does not match the buffer: refused before the nonces
     * (12 bytes here, before a guard page) are read. */
    size_t counts[] = {2, 3, 1000, SIZE_MAX / 16384, SIZE_MAX / 12, SIZE_MAX / 12 + 1,
                       SIZE_MAX / 16 + 1, SIZE_MAX / 16 + 2, (size_t)1 << 60, SIZE_MAX - 1,
                       SIZE_MAX};
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {
        size_t c = counts[i];
        CHECK_STATUS(aesx_cuda_gcm_seal_many(KEY, one_nonce, c, aad, 5, 64, D1, 16, tags_out, NULL),
                     AESX_ERR_INVALID_LENGTH);
        CHECK_STATUS(aesx_cuda_gcm_open_many(KEY, one_nonce, c, aad, 5, 64, D1, 16, one_tag,
                                             ok_out, NULL),
                     AESX_ERR_INVALID_LENGTH);
        CHECK_STATUS(aesx_cuda_gcm_seal_many(KEY, one_nonce, c, aad, 5, 16384, D1, 64, tags_out,
                                             NULL),
                     AESX_ERR_INVALID_LENGTH);
        /* Even a length that would suit a huge count: the count's own
         * nonces and tags cannot exist. */
        CHECK_STATUS(aesx_cuda_gcm_seal_many(KEY, one_nonce, c, aad, 5, 16, D1, SIZE_MAX - 15,
                                             tags_out, NULL),
                     AESX_ERR_INVALID_LENGTH);
    }
    /* A length past what the count allows, and short of it. */
    CHECK_STATUS(aesx_cuda_gcm_seal_many(KEY, one_nonce, 1, aad, 5, 64, D1, 65, tags_out, NULL),
                 AESX_ERR_INVALID_LENGTH);
    CHECK_STATUS(aesx_cuda_gcm_seal_many(KEY, one_nonce, 1, aad, 5, 64, D1, SIZE_MAX, tags_out,
                                         NULL),
                 AESX_ERR_INVALID_LENGTH);
    CHECK_STATUS(aesx_cuda_gcm_open_many(KEY, at_end(36), 3, aad, 5, 64, D1, 127, at_end(48),
                                         at_end(3), NULL),
                 AESX_ERR_INVALID_LENGTH);
    /* No message; bad strides. */
    CHECK_STATUS(aesx_cuda_gcm_seal_many(KEY, one_nonce, 0, aad, 5, 64, D1, 0, tags_out, NULL),
                 AESX_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(aesx_cuda_gcm_open_many(KEY, NULL, 0, NULL, 0, 64, NULL, 0, NULL, NULL, NULL),
                 AESX_ERR_INVALID_ARGUMENT);
    size_t strides[] = {0, 8, 100, 16400, 16384 + 16, 32768, SIZE_MAX, SIZE_MAX - 15};
    for (size_t i = 0; i < sizeof strides / sizeof strides[0]; i++) {
        CHECK_STATUS(aesx_cuda_gcm_seal_many(KEY, one_nonce, 1, aad, 5, strides[i], D1, 16,
                                             tags_out, NULL),
                     AESX_ERR_SECTOR_SIZE);
        CHECK_STATUS(aesx_cuda_gcm_open_many(KEY, one_nonce, SIZE_MAX, aad, 5, strides[i], D1, 16,
                                             one_tag, ok_out, NULL),
                     AESX_ERR_SECTOR_SIZE);
    }
    /* NULL and impossible host regions, for a layout that is right. */
    CHECK_STATUS(aesx_cuda_gcm_seal_many(NULL, one_nonce, 1000, aad, 5, 8, NULL, 1, NULL, NULL),
                 AESX_ERR_NULL_POINTER);
    CHECK_STATUS(aesx_cuda_gcm_seal_many(KEY, NULL, 1, aad, 5, 64, D1, 64, tags_out, NULL),
                 AESX_ERR_NULL_POINTER);
    CHECK_STATUS(aesx_cuda_gcm_seal_many(KEY, one_nonce, 1, aad, 5, 64, D1, 64, NULL, NULL),
                 AESX_ERR_NULL_POINTER);
    CHECK_STATUS(aesx_cuda_gcm_open_many(KEY, one_nonce, 1, aad, 5, 64, D1, 64, NULL, ok_out,
                                         NULL),
                 AESX_ERR_NULL_POINTER);
    CHECK_STATUS(aesx_cuda_gcm_open_many(KEY, one_nonce, 1, aad, 5, 64, D1, 64, one_tag, NULL,
                                         NULL),
                 AESX_ERR_NULL_POINTER);
    CHECK_STATUS(aesx_cuda_gcm_seal_many(KEY, (const uint8_t *)(UINTPTR_MAX - 5), 1, aad, 5, 64,
                                         D1, 64, tags_out, NULL),
                 AESX_ERR_INVALID_LENGTH);
    CHECK_STATUS(aesx_cuda_gcm_seal_many(KEY, one_nonce, 1, aad, 5, 64, D1, 64,
                                         (uint8_t *)(UINTPTR_MAX - 7), NULL),
                 AESX_ERR_INVALID_LENGTH);
    /* The device buffer: NULL, misaligned, wrapping. */
    CHECK_STATUS(aesx_cuda_gcm_seal_many(KEY, one_nonce, 1, aad, 5, 64, NULL, 64, tags_out, NULL),
                 AESX_ERR_NULL_POINTER);
    CHECK_STATUS(aesx_cuda_gcm_seal_many(KEY, one_nonce, 1, aad, 5, 64, DEV(0x100008), 64,
                                         tags_out, NULL),
                 AESX_ERR_DEVICE);
    CHECK_STATUS(aesx_cuda_gcm_open_many(KEY, one_nonce, 1, aad, 5, 64, DEV(UINTPTR_MAX - 15), 64,
                                         one_tag, ok_out, NULL),
                 AESX_ERR_DEVICE);
}

static void one_shots(void) {
    const uint8_t *nonce = at_end(12);
    const uint8_t *tag = at_end(16);
    uint8_t *tag_out = at_end(16);
    const uint8_t *counter = at_end(16);

    /* GCM: nonce, tag length, message length, then the addresses. */
    CHECK_STATUS(aesx_cuda_gcm_seal(KEY, nonce, 0, NULL, 0, D1, D1, 64, tag_out, 16, NULL),
                 AESX_ERR_EMPTY_NONCE);
    CHECK_STATUS(aesx_cuda_gcm_seal(KEY, nonce, 12, NULL, 0, D1, D1, 64, tag_out, 11, NULL),
                 AESX_ERR_TAG_LENGTH);
    CHECK_STATUS(aesx_cuda_gcm_seal(KEY, nonce, 12, NULL, 0, D1, D1, ((size_t)1 << 36), tag_out,
                                    16, NULL),
                 AESX_ERR_MESSAGE_TOO_LONG);
    CHECK_STATUS(aesx_cuda_gcm_seal(KEY, nonce, 12, NULL, 0, D1, D1, SIZE_MAX, tag_out, 16, NULL),
                 AESX_ERR_MESSAGE_TOO_LONG);
    CHECK_STATUS(aesx_cuda_gcm_seal(KEY, nonce, 12, NULL, 0, D1, D1, 64, NULL, 16, NULL),
                 AESX_ERR_NULL_POINTER);
    CHECK_STATUS(aesx_cuda_gcm_seal(KEY, nonce, 12, NULL, 0, D1, DEV(0x100010), 64, tag_out, 16,
                                    NULL),
                 AESX_ERR_OVERLAP);
    CHECK_STATUS(aesx_cuda_gcm_seal(KEY, nonce, 12, NULL, 0, DEV(0x100004), D2, 64, tag_out, 16,
                                    NULL),
                 AESX_ERR_DEVICE);
    CHECK_STATUS(aesx_cuda_gcm_seal(KEY, nonce, 12, NULL, 5, D1, D2, 64, tag_out, 16, NULL),
                 AESX_ERR_NULL_POINTER);
    CHECK_STATUS(aesx_cuda_gcm_seal(KEY, nonce, SIZE_MAX, NULL, 0, D1, D2, 64, tag_out, 16, NULL),
                 AESX_ERR_INVALID_LENGTH);
    CHECK_STATUS(aesx_cuda_gcm_open(KEY, nonce, 12, NULL, 0, D1, D2, 64, tag, 5, NULL),
                 AESX_ERR_TAG_LENGTH);
    CHECK_STATUS(aesx_cuda_gcm_open(KEY, nonce, 12, NULL, 0, D1, D2, 64, NULL, 16, NULL),
                 AESX_ERR_NULL_POINTER);
    CHECK_STATUS(aesx_cuda_gcm_open(KEY, nonce, 12, NULL, 0, NULL, D2, 64, tag, 16, NULL),
                 AESX_ERR_NULL_POINTER);
    CHECK_STATUS(aesx_cuda_gcm_open(KEY, nonce, 12, NULL, 0, D1, DEV(0x100030), 64, tag, 16,
                                    NULL),
                 AESX_ERR_OVERLAP);
    CHECK_STATUS(aesx_cuda_gcm_open(NULL, nonce, 0, NULL, 0, D1, D2, 64, tag, 16, NULL),
                 AESX_ERR_NULL_POINTER);

    /* ECB, CTR, CBC. */
    CHECK_STATUS(aesx_cuda_ecb_encrypt(KEY, D1, D2, 65, NULL), AESX_ERR_NOT_BLOCK_ALIGNED);
    CHECK_STATUS(aesx_cuda_ecb_decrypt(KEY, D1, D2, SIZE_MAX, NULL), AESX_ERR_NOT_BLOCK_ALIGNED);
    CHECK_STATUS(aesx_cuda_ecb_encrypt(KEY, D1, DEV(0x100010), 64, NULL), AESX_ERR_OVERLAP);
    CHECK_STATUS(aesx_cuda_ecb_encrypt(KEY, NULL, D2, 64, NULL), AESX_ERR_NULL_POINTER);
    CHECK_STATUS(aesx_cuda_ecb_encrypt(KEY, DEV(0x100001), D2, 64, NULL), AESX_ERR_DEVICE);
    CHECK_STATUS(aesx_cuda_ecb_encrypt(KEY, DEV(UINTPTR_MAX - 15), D2, 32, NULL),
                 AESX_ERR_DEVICE);
    CHECK_STATUS(aesx_cuda_ecb_encrypt(NULL, D1, D2, 65, NULL), AESX_ERR_NULL_POINTER);
    CHECK_STATUS(aesx_cuda_ctr(KEY, NULL, D1, D2, 64, NULL), AESX_ERR_NULL_POINTER);
    CHECK_STATUS(aesx_cuda_ctr(KEY, counter, D1, DEV(0x100008), 64, NULL), AESX_ERR_DEVICE);
    CHECK_STATUS(aesx_cuda_ctr(KEY, counter, D1, DEV(0x100010), 64, NULL), AESX_ERR_OVERLAP);
    CHECK_STATUS(aesx_cuda_ctr(KEY, (const uint8_t *)(UINTPTR_MAX - 7), D1, D2, 64, NULL),
                 AESX_ERR_INVALID_LENGTH);
    CHECK_STATUS(aesx_cuda_cbc_decrypt(KEY, counter, D1, D1, 64, NULL), AESX_ERR_OVERLAP);
    CHECK_STATUS(aesx_cuda_cbc_decrypt(KEY, counter, D1, D2, 63, NULL),
                 AESX_ERR_NOT_BLOCK_ALIGNED);
    CHECK_STATUS(aesx_cuda_cbc_decrypt(KEY, NULL, D1, D2, 64, NULL), AESX_ERR_NULL_POINTER);

    /* XTS: the sector size, whole sectors (as aesx_xts_encrypt_sectors),
     * then the addresses. */
    size_t sizes[] = {0, 8, 24, ((size_t)1 << 24) + 16, (size_t)1 << 25, SIZE_MAX, SIZE_MAX - 15};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        CHECK_STATUS(aesx_cuda_xts_encrypt_sectors(XKEY, sizes[i], 0, D1, D2, 1024, NULL),
                     AESX_ERR_SECTOR_SIZE);
        CHECK_STATUS(aesx_cuda_xts_decrypt_sectors(XKEY, sizes[i], 0, D1, D2, 1000, NULL),
                     AESX_ERR_SECTOR_SIZE);
    }
    CHECK_STATUS(aesx_cuda_xts_encrypt_sectors(XKEY, 512, 0, D1, D2, 1000, NULL),
                 AESX_ERR_PARTIAL_SECTOR);
    CHECK_STATUS(aesx_cuda_xts_decrypt_sectors(XKEY, 512, 0, D1, D2, 1536 + 16, NULL),
                 AESX_ERR_PARTIAL_SECTOR);
    CHECK_STATUS(aesx_cuda_xts_decrypt_sectors(XKEY, 512, 0, D1, D2, SIZE_MAX, NULL),
                 AESX_ERR_PARTIAL_SECTOR);
    CHECK_STATUS(aesx_cuda_xts_encrypt_sectors(XKEY, 512, UINT64_MAX, DEV(0x100008), D2, 1024,
                                               NULL),
                 AESX_ERR_DEVICE);
    CHECK_STATUS(aesx_cuda_xts_encrypt_sectors(XKEY, 512, 0, D1, DEV(0x100200), 1024, NULL),
                 AESX_ERR_OVERLAP);
    CHECK_STATUS(aesx_cuda_xts_encrypt_sectors(NULL, 0, 0, D1, D2, 1000, NULL),
                 AESX_ERR_NULL_POINTER);

    /* The CPU call says the same for the same sector mistakes. */
    uint8_t xk[64];
    for (int i = 0; i < 64; i++) xk[i] = (uint8_t)i;
    struct aesx_xts_key *cpu = NULL;
    if (aesx_xts_key_new(xk, 64, AESX_BACKEND_AUTO, &cpu) == AESX_OK) {
        uint8_t buf[1000] = {0};
        int want_partial = aesx_xts_encrypt_sectors(cpu, 512, 0, buf, buf, sizeof buf);
        int want_size = aesx_xts_encrypt_sectors(cpu, 24, 0, buf, buf, sizeof buf);
        CHECK_STATUS(aesx_cuda_xts_encrypt_sectors(XKEY, 512, 0, D1, D2, 1000, NULL), want_partial);
        CHECK_STATUS(aesx_cuda_xts_encrypt_sectors(XKEY, 24, 0, D1, D2, 1000, NULL), want_size);
        aesx_xts_key_free(cpu);
    } else {
        fprintf(stderr, "aesx_xts_new failed\n");
        failures++;
    }
}

static void keys(int gpu) {
    uint8_t *key = at_end(32);
    struct aesx_cuda_key *k = (struct aesx_cuda_key *)guard;
    struct aesx_cuda_xts_key *x = (struct aesx_cuda_xts_key *)guard;
    CHECK_STATUS(aesx_cuda_available(-1), AESX_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(aesx_cuda_available(INT_MIN), AESX_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(aesx_cuda_key_new(key, 15, 0, &k), AESX_ERR_KEY_LENGTH);
    CHECK_STATUS(aesx_cuda_key_new(key, 33, 0, &k), AESX_ERR_KEY_LENGTH);
    CHECK_STATUS(aesx_cuda_key_new(NULL, 16, 0, &k), AESX_ERR_NULL_POINTER);
    CHECK_STATUS(aesx_cuda_key_new(key, SIZE_MAX, 0, &k), AESX_ERR_INVALID_LENGTH);
    CHECK_STATUS(aesx_cuda_key_new(key, 16, -1, &k), AESX_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(aesx_cuda_key_new(key, 16, INT_MIN, &k), AESX_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(aesx_cuda_key_new(key, 16, 0, NULL), AESX_ERR_NULL_POINTER);
    CHECK_STATUS(aesx_cuda_xts_key_new(key, 16, 0, &x), AESX_ERR_KEY_LENGTH);
    CHECK_STATUS(aesx_cuda_xts_key_new(key, 32, -1, &x), AESX_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(aesx_cuda_key_new(key, 16, INT_MAX, &k), AESX_ERR_NO_DEVICE);
    if (!gpu) {
        CHECK_STATUS(aesx_cuda_available(0), AESX_ERR_NO_DEVICE);
        CHECK_STATUS(aesx_cuda_key_new(key, 16, 0, &k), AESX_ERR_NO_DEVICE);
        CHECK_STATUS(aesx_cuda_xts_key_new(key, 32, 0, &x), AESX_ERR_NO_DEVICE);
    }
    if (k != NULL || x != NULL) {
        fprintf(stderr, "a refused constructor left its out-pointer set\n");
        failures++;
    }
    aesx_cuda_key_free(NULL);
    aesx_cuda_xts_key_free(NULL);
}

int main(void) {
    map_pages();
    int gpu = aesx_cuda_available(0) == AESX_OK;
    keys(gpu);
    batches();
    one_shots();
    printf("test_cuda_hostile: %d checks, %s (%s)\n", checks, failures ? "FAILED" : "passed",
           gpu ? "a GPU is present" : "no GPU");
    printf("%d passed, %d failed\n", checks - failures, failures);
    return failures ? 1 : 0;
}
