/*
 * test_abi_modes.c: the C interface of the modes beside GCM (RFC 8452 GCM-SIV,
 * the C2SP XAES-256-GCM example, RFC 3610 CCM, RFC 3394/5649 key wrap, RFC 4493
 * CMAC) on one backend, with their failure rules; run from test_abi.c.
 */
#define _POSIX_C_SOURCE 200809L

#include "test_abi.h"

/* ---- the modes beside GCM: GCM-SIV, XAES-256-GCM, CCM, KW/KWP, CMAC ---------------- */

struct aead_case {
    int alg;
    size_t tag_len;
    const char *key, *nonce, *pt, *aad, *ct_tag;
};

static const struct aead_case AEAD[] = {
    /* RFC 8452 C.1, 8-byte plaintext */
    {AESX_AEAD_GCM_SIV, 16, "01000000000000000000000000000000", "030000000000000000000000",
     "0100000000000000", "", "b5d839330ac7b786578782fff6013b815b287c22493a364c"},
    /* c2sp.org/XAES-256-GCM, the first worked example */
    {AESX_AEAD_XAES_256_GCM, 16,
     "0101010101010101010101010101010101010101010101010101010101010101",
     "4142434445464748494a4b4c4d4e4f505152535455565758", "584145532d3235362d47434d", "",
     "ce546ef63c9cc60765923609b33a9a1974e96e52daf2fcf7075e2271"},
    /* RFC 3610 packet vector #1: 13-byte nonce, 8-byte tag */
    {AESX_AEAD_CCM, 8, "c0c1c2c3c4c5c6c7c8c9cacbcccdcecf", "00000003020100a0a1a2a3a4a5",
     "08090a0b0c0d0e0f101112131415161718191a1b1c1d1e", "0001020304050607",
     "588c979a61c663d2f066d0c2c0f989806d5f6b61dac38417e8d12cfdf926e0"},
};

void test_aead(int backend)
{
    size_t i;
    for (i = 0; i < sizeof AEAD / sizeof AEAD[0]; i++) {
        const struct aead_case *c = &AEAD[i];
        uint8_t key[32], nonce[32], pt[32], aad[16], want[48], out[64], buf[64], tag[16];
        size_t kl = unhex(key, c->key), nl = unhex(nonce, c->nonce), n = unhex(pt, c->pt),
               al = unhex(aad, c->aad), tl = c->tag_len, got = 0;
        aesx_aead *a = NULL;
        unhex(want, c->ct_tag);
        CHECK_RC(aesx_aead_new(c->alg, key, kl, tl, backend, &a), AESX_OK);
        if (!a)
            continue;
        CHECK(aesx_aead_backend(a) == backend && aesx_aead_tag_len(a) == (int)tl);
        CHECK_RC(aesx_aead_seal(a, nonce, nl, al ? aad : NULL, al, pt, out, n, tag, tl), AESX_OK);
        CHECK(memcmp(out, want, n) == 0 && memcmp(tag, want + n, tl) == 0);
        CHECK_RC(aesx_aead_open(a, nonce, nl, aad, al, want, out, n, want + n, tl), AESX_OK);
        CHECK(memcmp(out, pt, n) == 0);
        memcpy(buf, pt, n);
        CHECK_RC(aesx_aead_seal_append(a, nonce, nl, aad, al, buf, n, buf, sizeof buf, &got),
                 AESX_OK);
        CHECK(got == n + tl && memcmp(buf, want, got) == 0);
        CHECK_RC(aesx_aead_open_append(a, nonce, nl, aad, al, want, n + tl, out, sizeof out, &got),
                 AESX_OK);
        CHECK(got == n && memcmp(out, pt, n) == 0);
        /* a forged tag: nothing released */
        memcpy(buf, want, n + tl);
        buf[n] ^= 1;
        memset(out, 0xaa, sizeof out);
        CHECK_RC(aesx_aead_open_append(a, nonce, nl, aad, al, buf, n + tl, out, sizeof out, &got),
                 AESX_ERR_AUTH_FAILED);
        CHECK(is_zero(out, sizeof out));
        CHECK_RC(aesx_aead_open(a, nonce, nl, aad, al, buf, buf, n, buf + n, tl),
                 AESX_ERR_AUTH_FAILED);
        CHECK(is_zero(buf, n));
        /* the wrong nonce or tag length: refused before anything is written */
        memset(out, 0xaa, sizeof out);
        CHECK_RC(aesx_aead_seal(a, nonce, nl + 1, aad, al, pt, out, n, tag, tl),
                 AESX_ERR_IV_LENGTH);
        CHECK_RC(aesx_aead_seal(a, nonce, nl, aad, al, pt, out, n, tag, tl - 2),
                 AESX_ERR_TAG_LENGTH);
        CHECK(is_byte(out, sizeof out, 0xaa));
        aesx_aead_free(a);
    }
}

/* aesx_gcm_siv_* on an AES key handle: RFC 8452 C.1 (8-byte plaintext), the
 * failure rules of the GCM calls, and the _threads forms at a length that splits
 * (two and a half segments and a partial block) against one thread. */
void test_gcm_siv(int backend)
{
    enum { LONG = 2 * AESX_MIN_SEGMENT + AESX_MIN_SEGMENT / 2 + 7 };
    static uint8_t msg[LONG], one[LONG], many[LONG];
    uint8_t key[16], nonce[12], pt[8], want[24], out[24], tag[16], tag2[16], aad[21];
    size_t n = unhex(pt, "0100000000000000"), i;
    unsigned t;
    aesx_key *k = NULL;
    unhex(key, "01000000000000000000000000000000");
    unhex(nonce, "030000000000000000000000");
    unhex(want, "b5d839330ac7b786578782fff6013b815b287c22493a364c");
    CHECK_RC(aesx_key_new(key, 16, backend, &k), AESX_OK);
    if (!k)
        return;
    CHECK_RC(aesx_gcm_siv_seal(k, nonce, 12, NULL, 0, pt, out, n, tag, 16), AESX_OK);
    CHECK(memcmp(out, want, n) == 0 && memcmp(tag, want + n, 16) == 0);
    CHECK_RC(aesx_gcm_siv_open(k, nonce, 12, NULL, 0, want, out, n, want + n, 16), AESX_OK);
    CHECK(memcmp(out, pt, n) == 0);
    /* a forged tag: refused, nothing released (out of place and in place) */
    memcpy(tag2, want + n, 16);
    tag2[15] ^= 0x40;
    memset(out, 0xaa, sizeof out);
    CHECK_RC(aesx_gcm_siv_open(k, nonce, 12, NULL, 0, want, out, n, tag2, 16),
             AESX_ERR_AUTH_FAILED);
    CHECK(is_zero(out, n));
    memcpy(out, want, n);
    CHECK_RC(aesx_gcm_siv_open(k, nonce, 12, NULL, 0, out, out, n, tag2, 16),
             AESX_ERR_AUTH_FAILED);
    CHECK(is_zero(out, n));
    /* refused before anything is written: nonce and tag lengths, NULL pointers */
    memset(out, 0xaa, sizeof out);
    CHECK_RC(aesx_gcm_siv_seal(k, nonce, 16, NULL, 0, pt, out, n, tag, 16), AESX_ERR_IV_LENGTH);
    CHECK_RC(aesx_gcm_siv_seal(k, nonce, 12, NULL, 0, pt, out, n, tag, 12), AESX_ERR_TAG_LENGTH);
    CHECK_RC(aesx_gcm_siv_seal(NULL, nonce, 12, NULL, 0, pt, out, n, tag, 16),
             AESX_ERR_NULL_POINTER);
    CHECK_RC(aesx_gcm_siv_seal(k, nonce, 12, NULL, 0, NULL, out, n, tag, 16),
             AESX_ERR_NULL_POINTER);
    CHECK(is_byte(out, sizeof out, 0xaa));
    /* threads: the one-thread bytes at every count, forged text refused */
    for (i = 0; i < LONG; i++)
        msg[i] = (uint8_t)(i * 7 + (i >> 9));
    for (i = 0; i < sizeof aad; i++)
        aad[i] = (uint8_t)i;
    CHECK_RC(aesx_gcm_siv_seal(k, nonce, 12, aad, sizeof aad, msg, one, LONG, tag, 16), AESX_OK);
    for (t = 0; t <= 4; t++) {
        memset(many, 0, LONG);
        CHECK_RC(aesx_gcm_siv_seal_threads(k, nonce, 12, aad, sizeof aad, msg, many, LONG, tag2,
                                           16, t),
                 AESX_OK);
        CHECK(memcmp(many, one, LONG) == 0 && memcmp(tag2, tag, 16) == 0);
        CHECK_RC(aesx_gcm_siv_open_threads(k, nonce, 12, aad, sizeof aad, many, many, LONG, tag,
                                           16, t),
                 AESX_OK);
        CHECK(memcmp(many, msg, LONG) == 0);
        memcpy(many, one, LONG);
        many[LONG - 1] ^= 1;
        CHECK_RC(aesx_gcm_siv_open_threads(k, nonce, 12, aad, sizeof aad, many, many, LONG, tag,
                                           16, t),
                 AESX_ERR_AUTH_FAILED);
        CHECK(is_zero(many, LONG));
    }
    aesx_key_free(k);
}

void test_keywrap(int backend)
{
    /* RFC 3394 4.1 and RFC 5649's 7-byte example */
    uint8_t kek[24], key[16], want[24], out[32], buf[32];
    size_t got = 0;
    aesx_keywrap *k = NULL;
    CHECK_RC(aesx_keywrap_new(kek, unhex(kek, "000102030405060708090a0b0c0d0e0f"), backend, &k),
             AESX_OK);
    unhex(key, "00112233445566778899aabbccddeeff");
    unhex(want, "1fa68b0a8112b447aef34bd8fb5a7b829d3e862371d2cfe5");
    CHECK_RC(aesx_key_wrap(k, AESX_KW, key, 16, out, sizeof out, &got), AESX_OK);
    CHECK(got == 24 && memcmp(out, want, 24) == 0);
    memcpy(buf, want, 24);
    CHECK_RC(aesx_key_unwrap(k, AESX_KW, buf, 24, buf, 24, &got), AESX_OK); /* in place */
    CHECK(got == 16 && memcmp(buf, key, 16) == 0);
    memcpy(buf, want, 24);
    buf[23] ^= 1;
    memset(out, 0xaa, sizeof out);
    CHECK_RC(aesx_key_unwrap(k, AESX_KW, buf, 24, out, sizeof out, &got), AESX_ERR_AUTH_FAILED);
    CHECK(is_zero(out, sizeof out));
    CHECK_RC(aesx_key_wrap(k, AESX_KW, key, 8, out, sizeof out, &got), AESX_ERR_WRAP_LENGTH);
    CHECK_RC(aesx_key_wrap(k, AESX_KW, key, 16, out, 23, &got), AESX_ERR_OUTPUT_TOO_SMALL);
    CHECK_RC(aesx_key_wrap(k, 0, key, 16, out, sizeof out, &got), AESX_ERR_INVALID_ARGUMENT);
    CHECK(aesx_keywrap_backend(k) == backend);
    aesx_keywrap_free(k);

    k = NULL;
    CHECK_RC(aesx_keywrap_new(kek, unhex(kek, "5840df6e29b02af1ab493b705bf16ea1ae8338f4dcc176a8"),
                              backend, &k),
             AESX_OK);
    unhex(key, "466f7250617369");
    unhex(want, "afbeb0f07dfbf5419200f2ccb50bb24f");
    CHECK_RC(aesx_key_wrap(k, AESX_KWP, key, 7, out, sizeof out, &got), AESX_OK);
    CHECK(got == 16 && memcmp(out, want, 16) == 0);
    CHECK_RC(aesx_key_unwrap(k, AESX_KWP, want, 16, out, sizeof out, &got), AESX_OK);
    CHECK(got == 7 && memcmp(out, key, 7) == 0);
    CHECK_RC(aesx_key_unwrap(k, AESX_KW, want, 16, out, sizeof out, &got), AESX_ERR_WRAP_LENGTH);
    aesx_keywrap_free(k);
}

void test_cmac(int backend)
{
    /* RFC 4493 examples 1 and 2 */
    uint8_t key[16], msg[64], want[16], tag[16];
    aesx_cmac_key *k = NULL;
    aesx_cmac_ctx *c = NULL, *d = NULL;
    unhex(key, K128);
    unhex(msg, PT38A);
    CHECK_RC(aesx_cmac_key_new(key, 16, backend, &k), AESX_OK);
    CHECK(aesx_cmac_key_backend(k) == backend);
    unhex(want, "bb1d6929e95937287fa37d129b756746");
    CHECK_RC(aesx_cmac(k, NULL, 0, tag), AESX_OK);
    CHECK(memcmp(tag, want, 16) == 0);
    unhex(want, "070a16b46b4d4144f79bdd9dd04a287c");
    CHECK_RC(aesx_cmac(k, msg, 16, tag), AESX_OK);
    CHECK(memcmp(tag, want, 16) == 0);
    CHECK_RC(aesx_cmac_verify(k, msg, 16, want, 16), AESX_OK);
    CHECK_RC(aesx_cmac_verify(k, msg, 16, want, 4), AESX_OK); /* truncated */
    CHECK_RC(aesx_cmac_verify(k, msg, 15, want, 16), AESX_ERR_AUTH_FAILED);
    CHECK_RC(aesx_cmac_verify(k, msg, 16, want, 0), AESX_ERR_TAG_LENGTH);
    /* streaming in pieces; the context outlives the key handle */
    CHECK_RC(aesx_cmac_ctx_new(k, &c), AESX_OK);
    aesx_cmac_key_free(k);
    CHECK_RC(aesx_cmac_update(c, msg, 5), AESX_OK);
    CHECK_RC(aesx_cmac_ctx_copy(c, &d), AESX_OK);
    CHECK_RC(aesx_cmac_update(c, msg + 5, 11), AESX_OK);
    CHECK_RC(aesx_cmac_final(c, tag), AESX_OK);
    CHECK(memcmp(tag, want, 16) == 0);
    CHECK_RC(aesx_cmac_update(d, msg + 5, 11), AESX_OK);
    CHECK_RC(aesx_cmac_final_verify(d, want, 16), AESX_OK);
    /* final started both over: the empty message's tag */
    unhex(want, "bb1d6929e95937287fa37d129b756746");
    CHECK_RC(aesx_cmac_final_verify(c, want, 16), AESX_OK);
    CHECK_RC(aesx_cmac_update(NULL, msg, 1), AESX_ERR_NULL_POINTER);
    aesx_cmac_ctx_free(c);
    aesx_cmac_ctx_free(d);
}

/* ---- known answers ---------------------------------------------------------------- */
