/*
 * test_abi.h: what the test_abi sources share: the CHECK macros, the counters
 * they bump, hex and buffer helpers, and the SP 800-38A key and plaintext.
 */
#ifndef AESX_TEST_ABI_H
#define AESX_TEST_ABI_H

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "aesx.h"

extern int checks, failures;
/* The backend under test, printed with every failed check. */
extern const char *current;

#define CHECK(cond)                                                                   \
    do {                                                                              \
        checks++;                                                                     \
        if (!(cond)) {                                                                \
            failures++;                                                               \
            fprintf(stderr, "%s:%d: %s: CHECK(%s) failed\n", __FILE__, __LINE__,      \
                    current, #cond);                                                  \
        }                                                                             \
    } while (0)

#define CHECK_RC(call, want)                                                          \
    do {                                                                              \
        int rc_ = (call);                                                             \
        checks++;                                                                     \
        if (rc_ != (want)) {                                                          \
            failures++;                                                               \
            fprintf(stderr, "%s:%d: %s: %s returned %d (%s), expected %d (%s)\n",     \
                    __FILE__, __LINE__, current, #call, rc_, aesx_strerror(rc_), want, \
                    aesx_strerror(want));                                             \
        }                                                                             \
    } while (0)

size_t unhex(uint8_t *out, const char *hex);
int is_zero(const uint8_t *p, size_t n);
int is_byte(const uint8_t *p, size_t n, uint8_t b);

extern const char *const K128;
extern const char *const PT38A;

/* test_abi_modes.c: GCM-SIV, XAES-256-GCM, CCM, KW/KWP, CMAC. */
void test_aead(int backend);
void test_gcm_siv(int backend);
void test_keywrap(int backend);
void test_cmac(int backend);

#endif
