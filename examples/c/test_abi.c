/*
 * test_abi: unit tests of libaesx's C interface, run by `make check` (and
 * under -fsanitize=address,undefined by `make sanitize`).
 *
 * Known answers on every available backend (SP 800-38A ECB/CBC/CTR, the GCM
 * spec's test cases 2, 4 and 6, IEEE 1619 XTS vector 2), in place against
 * out of place, the overlap rule, NULL pointers and impossible lengths,
 * every error code the arguments can provoke, zeroed output after tag and
 * padding failures, multi-buffer CBC against single calls, and one key
 * handle shared by eight threads. The modes beside GCM: RFC 8452 GCM-SIV,
 * the C2SP XAES-256-GCM example, RFC 3610 CCM, RFC 3394/5649 key wrap and
 * RFC 4493 CMAC (one-shot and streaming), with their failure rules.
 */
#define _POSIX_C_SOURCE 200809L

#include "test_abi.h"

int checks, failures;

const char *current = "";

size_t unhex(uint8_t *out, const char *hex)
{
    size_t n = 0;
    while (hex[0] && hex[1]) {
        unsigned v;
        sscanf(hex, "%2x", &v);
        out[n++] = (uint8_t)v;
        hex += 2;
    }
    return n;
}

int is_zero(const uint8_t *p, size_t n)
{
    while (n--)
        if (*p++)
            return 0;
    return 1;
}

int is_byte(const uint8_t *p, size_t n, uint8_t b)
{
    while (n--)
        if (*p++ != b)
            return 0;
    return 1;
}

/* ---- vectors ---------------------------------------------------------------------- */

const char *const K128 = "2b7e151628aed2a6abf7158809cf4f3c";
const char *const PT38A = "6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e51"
                           "30c81c46a35ce411e5fbc1191a0a52eff69f2445df4f9b17ad2b417be66c3710";
static const char *ECB38A = "3ad77bb40d7a3660a89ecaf32466ef97f5d3d58503b9699de785895a96fdbaaf"
                            "43b1cd7f598ece23881b00e3ed0306887b0c785e27e8ad3f8223207104725dd4";
static const char *CBC38A = "7649abac8119b246cee98e9b12e9197d5086cb9b507219ee95db113a917678b2"
                            "73bed6b8e3c1743b7116e69e222295163ff1caa1681fac09120eca307586e1a7";
static const char *CTR38A = "874d6191b620e3261bef6864990db6ce9806f66b7970fdff8617187bb9fffdff"
                            "5ae4df3edbd5d35e5b4f09020db03eab1e031dda2fbe03d1792170a0f3009cee";

struct gcm_case {
    const char *key, *iv, *pt, *aad, *ct, *tag;
};

static const struct gcm_case GCM[] = {
    /* test case 2 */
    {"00000000000000000000000000000000", "000000000000000000000000",
     "00000000000000000000000000000000", "", "0388dace60b6a392f328c2b971b2fe78",
     "ab6e47d42cec13bdf53a67b21257bddf"},
    /* test case 4: AAD, a partial last block */
    {"feffe9928665731c6d6a8f9467308308", "cafebabefacedbaddecaf888",
     "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a721c3c0c95956809532fcf0e"
     "2449a6b525b16aedf5aa0de657ba637b39",
     "feedfacedeadbeeffeedfacedeadbeefabaddad2",
     "42831ec2217774244b7221b784d0d49ce3aa212f2c02a4e035c17e2329aca12e21d514b25466931c7d8f6a"
     "5aac84aa051ba30b396a0aac973d58e091",
     "5bc94fbc3221a5db94fae95ae7121a47"},
    /* test case 6: a 60-byte IV (through GHASH) */
    {"feffe9928665731c6d6a8f9467308308",
     "9313225df88406e555909c5aff5269aa6a7a9538534f7da1e4c303d2a318a728c3c0c95156809539fcf0e2"
     "429a6b525416aedbf5a0de6a57a637b39b",
     "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a721c3c0c95956809532fcf0e"
     "2449a6b525b16aedf5aa0de657ba637b39",
     "feedfacedeadbeeffeedfacedeadbeefabaddad2",
     "8ce24998625615b603a033aca13fb894be9112a5c3a211a8ba262a3cca7e2ca701e4a9a4fba43c90ccdcb2"
     "81d48c7c6fd62875d2aca417034c34aee5",
     "619cc5aefffe0bfa462af43c1699d050"},
};

static int backends[8], nbackends;

static void test_block_modes(int backend)
{
    uint8_t key[16], iv[16], pt[64], want[64], out[96], buf[96];
    size_t n = 0;
    aesx_key *k = NULL;
    unhex(key, K128);
    unhex(pt, PT38A);
    CHECK_RC(aesx_key_new(key, 16, backend, &k), AESX_OK);
    if (!k)
        return;
    CHECK(aesx_key_backend(k) == backend);

    unhex(want, ECB38A);
    CHECK_RC(aesx_ecb_encrypt(k, pt, out, 64), AESX_OK);
    CHECK(memcmp(out, want, 64) == 0);
    memcpy(buf, pt, 64);
    CHECK_RC(aesx_ecb_encrypt(k, buf, buf, 64), AESX_OK);
    CHECK(memcmp(buf, want, 64) == 0);
    CHECK_RC(aesx_ecb_decrypt(k, buf, buf, 64), AESX_OK);
    CHECK(memcmp(buf, pt, 64) == 0);

    unhex(iv, "000102030405060708090a0b0c0d0e0f");
    unhex(want, CBC38A);
    CHECK_RC(aesx_cbc_encrypt(k, iv, AESX_PADDING_NONE, pt, 64, out, 64, &n), AESX_OK);
    CHECK(n == 64 && memcmp(out, want, 64) == 0);
    CHECK_RC(aesx_cbc_decrypt(k, iv, AESX_PADDING_NONE, out, 64, buf, 64, &n), AESX_OK);
    CHECK(n == 64 && memcmp(buf, pt, 64) == 0);

    /* PKCS#7, in place and out of place, every length from 0 to 40 */
    {
        size_t len;
        for (len = 0; len <= 40; len++) {
            uint8_t a[64], b[64];
            size_t na = 0, nb = 0;
            memcpy(b, pt, len);
            CHECK_RC(aesx_cbc_encrypt(k, iv, AESX_PADDING_PKCS7, pt, len, a, sizeof a, &na),
                     AESX_OK);
            CHECK_RC(aesx_cbc_encrypt(k, iv, AESX_PADDING_PKCS7, b, len, b, sizeof b, &nb),
                     AESX_OK);
            CHECK(na == len / 16 * 16 + 16 && nb == na && memcmp(a, b, na) == 0);
            /* the padding is PKCS#7: decrypting without removing it shows it */
            CHECK_RC(aesx_cbc_decrypt(k, iv, AESX_PADDING_NONE, a, na, b, sizeof b, &nb),
                     AESX_OK);
            CHECK(is_byte(b + len, na - len, (uint8_t)(na - len)));
            CHECK_RC(aesx_cbc_decrypt(k, iv, AESX_PADDING_PKCS7, a, na, b, sizeof b, &nb),
                     AESX_OK);
            CHECK(nb == len && memcmp(b, pt, len) == 0);
            CHECK_RC(aesx_cbc_decrypt(k, iv, AESX_PADDING_PKCS7, a, na, a, na, &na), AESX_OK);
            CHECK(na == len && memcmp(a, pt, len) == 0);
        }
    }

    unhex(iv, "f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff");
    unhex(want, CTR38A);
    CHECK_RC(aesx_ctr_xor(k, iv, 0, pt, out, 64), AESX_OK);
    CHECK(memcmp(out, want, 64) == 0);
    /* the same stream in pieces, with offsets, in place */
    memcpy(buf, pt, 64);
    CHECK_RC(aesx_ctr_xor(k, iv, 0, buf, buf, 7), AESX_OK);
    CHECK_RC(aesx_ctr_xor(k, iv, 7, buf + 7, buf + 7, 30), AESX_OK);
    CHECK_RC(aesx_ctr_xor(k, iv, 37, buf + 37, buf + 37, 27), AESX_OK);
    CHECK(memcmp(buf, want, 64) == 0);
    aesx_key_free(k);
}

static void test_gcm(int backend)
{
    size_t i;
    for (i = 0; i < sizeof GCM / sizeof GCM[0]; i++) {
        const struct gcm_case *c = &GCM[i];
        uint8_t key[32], iv[64], pt[64], aad[32], ct[64], tag[16], out[96], buf[96], t[16];
        size_t kl = unhex(key, c->key), ivl = unhex(iv, c->iv), n = unhex(pt, c->pt),
               al = unhex(aad, c->aad), tl, got = 0;
        aesx_key *k = NULL;
        unhex(ct, c->ct);
        unhex(tag, c->tag);
        CHECK_RC(aesx_key_new(key, kl, backend, &k), AESX_OK);
        if (!k)
            continue;
        CHECK_RC(aesx_gcm_seal(k, iv, ivl, al ? aad : NULL, al, pt, out, n, t, 16), AESX_OK);
        CHECK(memcmp(out, ct, n) == 0 && memcmp(t, tag, 16) == 0);
        CHECK_RC(aesx_gcm_open(k, iv, ivl, aad, al, ct, out, n, tag, 16), AESX_OK);
        CHECK(memcmp(out, pt, n) == 0);
        /* every tag length the library allows is the full tag's prefix */
        for (tl = 4; tl <= 16; tl++) {
            int allowed = tl >= 12 || tl == 8 || tl == 4;
            int want = allowed ? AESX_OK : AESX_ERR_TAG_LENGTH;
            memcpy(buf, pt, n);
            CHECK_RC(aesx_gcm_seal_append(k, iv, ivl, aad, al, buf, n, buf, sizeof buf, tl, &got),
                     want);
            if (!allowed)
                continue;
            CHECK(got == n + tl && memcmp(buf, ct, n) == 0 && memcmp(buf + n, tag, tl) == 0);
            CHECK_RC(aesx_gcm_open_append(k, iv, ivl, aad, al, buf, n + tl, out, sizeof out, tl,
                                          &got),
                     AESX_OK);
            CHECK(got == n && memcmp(out, pt, n) == 0);
            CHECK_RC(aesx_gcm_open_append(k, iv, ivl, aad, al, buf, n + tl, buf, n + tl, tl,
                                          &got),
                     AESX_OK);
            CHECK(got == n && memcmp(buf, pt, n) == 0);
            CHECK_RC(aesx_gcm_open(k, iv, ivl, aad, al, ct, out, n, tag, tl), AESX_OK);
        }
        /* tag failure: nothing released, the output zeroed, exactly as in Rust */
        memcpy(t, tag, 16);
        t[15] ^= 1;
        memset(out, 0xaa, sizeof out);
        CHECK_RC(aesx_gcm_open(k, iv, ivl, aad, al, ct, out, n, t, 16), AESX_ERR_AUTH_FAILED);
        CHECK(is_zero(out, n) && is_byte(out + n, sizeof out - n, 0xaa));
        memcpy(buf, ct, n);
        CHECK_RC(aesx_gcm_open(k, iv, ivl, aad, al, buf, buf, n, t, 16), AESX_ERR_AUTH_FAILED);
        CHECK(is_zero(buf, n));
        memcpy(buf, ct, n);
        memcpy(buf + n, t, 16);
        memset(out, 0xaa, sizeof out);
        CHECK_RC(aesx_gcm_open_append(k, iv, ivl, aad, al, buf, n + 16, out, sizeof out, 16,
                                      &got),
                 AESX_ERR_AUTH_FAILED);
        CHECK(is_zero(out, sizeof out)); /* all of out_cap */
        CHECK_RC(aesx_gcm_open_append(k, iv, ivl, aad, al, buf, n + 16, buf, n + 16, 16, &got),
                 AESX_ERR_AUTH_FAILED);
        CHECK(is_zero(buf, n + 16)); /* in place: the tag too */
        if (al) {                    /* a changed AAD fails too */
            aad[0] ^= 1;
            CHECK_RC(aesx_gcm_open(k, iv, ivl, aad, al, ct, out, n, tag, 16),
                     AESX_ERR_AUTH_FAILED);
            aad[0] ^= 1;
        }
        aesx_key_free(k);
    }
}

static void test_xts(int backend)
{
    uint8_t key[32], pt[64], want[32], out[64], buf[64], tweak[16];
    aesx_xts_key *x = NULL;
    memset(key, 0x11, 16);
    memset(key + 16, 0x22, 16);
    memset(pt, 0x44, 32);
    unhex(want, "c454185e6a16936e39334038acef838bfb186fff7480adc4289382ecd6d394f0");
    CHECK_RC(aesx_xts_key_new(key, 32, backend, &x), AESX_OK);
    if (!x)
        return;
    CHECK(aesx_xts_key_backend(x) == backend);
    CHECK_RC(aesx_xts_encrypt_sectors(x, 32, 0x3333333333ull, pt, out, 32), AESX_OK);
    CHECK(memcmp(out, want, 32) == 0);
    memset(tweak, 0, 16);
    memset(tweak, 0x33, 5); /* the same sector number, little-endian */
    CHECK_RC(aesx_xts_encrypt(x, tweak, pt, buf, 32), AESX_OK);
    CHECK(memcmp(buf, want, 32) == 0);
    CHECK_RC(aesx_xts_decrypt(x, tweak, buf, buf, 32), AESX_OK);
    CHECK(memcmp(buf, pt, 32) == 0);
    /* two sectors at once = one at a time; stealing for a 17..31-byte unit */
    memset(pt, 0x5a, 64);
    CHECK_RC(aesx_xts_encrypt_sectors(x, 32, 7, pt, out, 64), AESX_OK);
    CHECK_RC(aesx_xts_encrypt_sectors(x, 32, 8, pt + 32, buf, 32), AESX_OK);
    CHECK(memcmp(out + 32, buf, 32) == 0);
    CHECK_RC(aesx_xts_decrypt_sectors(x, 32, 7, out, out, 64), AESX_OK);
    CHECK(memcmp(out, pt, 64) == 0);
    CHECK_RC(aesx_xts_encrypt(x, tweak, pt, buf, 23), AESX_OK);
    CHECK_RC(aesx_xts_decrypt(x, tweak, buf, out, 23), AESX_OK);
    CHECK(memcmp(out, pt, 23) == 0);
    /* errors */
    CHECK_RC(aesx_xts_encrypt(x, tweak, pt, buf, 15), AESX_ERR_DATA_UNIT_LENGTH);
    CHECK_RC(aesx_xts_encrypt_sectors(x, 100, 0, pt, buf, 64), AESX_ERR_SECTOR_SIZE);
    CHECK_RC(aesx_xts_encrypt_sectors(x, 32, 0, pt, buf, 48), AESX_ERR_PARTIAL_SECTOR);
    CHECK_RC(aesx_xts_encrypt_sectors(x, 32, 0, pt, buf, 0), AESX_OK);
    CHECK_RC(aesx_xts_encrypt(x, NULL, pt, buf, 32), AESX_ERR_NULL_POINTER);
    aesx_xts_key_free(x);
    memset(key + 16, 0x11, 16); /* equal halves: refused for encryption only */
    CHECK_RC(aesx_xts_key_new(key, 32, backend, &x), AESX_OK);
    CHECK_RC(aesx_xts_encrypt(x, tweak, pt, buf, 32), AESX_ERR_XTS_EQUAL_KEY_HALVES);
    CHECK_RC(aesx_xts_decrypt(x, tweak, pt, buf, 32), AESX_OK);
    aesx_xts_key_free(x);
    CHECK_RC(aesx_xts_key_new(key, 48, backend, &x), AESX_ERR_KEY_LENGTH);
    CHECK(x == NULL);
}

static void test_esp(int backend)
{
    uint8_t key[16], salt[4] = {1, 2, 3, 4}, iv[8] = {9, 9, 9, 9, 9, 9, 9, 9},
                     aad[12] = {0, 0, 1, 0, 0, 0, 0, 7}, pt[100], buf[100], out[100], tag[16],
                     t2[16], nonce[12];
    uint64_t s1 = 0, s2 = 0, s3 = 0;
    aesx_esp_key *e = NULL;
    aesx_key *k = NULL;
    size_t i;
    for (i = 0; i < sizeof pt; i++)
        pt[i] = (uint8_t)(i * 7 + 3);
    memset(key, 0x42, 16);
    CHECK_RC(aesx_esp_key_new(key, 16, salt, 4, 12, backend, &e), AESX_OK);
    if (!e)
        return;
    CHECK(aesx_esp_key_backend(e) == backend);
    CHECK_RC(aesx_esp_seal(e, iv, 8, aad, 8, pt, out, 100, tag, 12, &s1), AESX_OK);
    CHECK_RC(aesx_ones_complement_checksum(pt, 100, &s2), AESX_OK);
    CHECK(s1 == s2);
    /* ESP is GCM with nonce = salt || iv */
    memcpy(nonce, salt, 4);
    memcpy(nonce + 4, iv, 8);
    CHECK_RC(aesx_key_new(key, 16, backend, &k), AESX_OK);
    CHECK_RC(aesx_gcm_seal(k, nonce, 12, aad, 8, pt, buf, 100, t2, 12), AESX_OK);
    CHECK(memcmp(buf, out, 100) == 0 && memcmp(t2, tag, 12) == 0);
    aesx_key_free(k);
    /* in place, without the checksum */
    memcpy(buf, pt, 100);
    CHECK_RC(aesx_esp_seal(e, iv, 8, aad, 8, buf, buf, 100, t2, 12, NULL), AESX_OK);
    CHECK(memcmp(buf, out, 100) == 0 && memcmp(t2, tag, 12) == 0);
    CHECK_RC(aesx_esp_open(e, iv, 8, aad, 8, buf, buf, 100, tag, 12, &s3), AESX_OK);
    CHECK(memcmp(buf, pt, 100) == 0 && s3 == s1);
    /* forged */
    tag[0] ^= 1;
    memset(buf, 0xaa, 100);
    s3 = 12345;
    CHECK_RC(aesx_esp_open(e, iv, 8, aad, 8, out, buf, 100, tag, 12, &s3), AESX_ERR_AUTH_FAILED);
    CHECK(is_zero(buf, 100) && s3 == 12345);
    tag[0] ^= 1;
    /* errors */
    memset(buf, 0xaa, 100);
    CHECK_RC(aesx_esp_seal(e, iv, 7, aad, 8, pt, buf, 100, t2, 12, NULL), AESX_ERR_IV_LENGTH);
    CHECK_RC(aesx_esp_seal(e, iv, 8, aad, 9, pt, buf, 100, t2, 12, NULL), AESX_ERR_AAD_LENGTH);
    CHECK_RC(aesx_esp_open(e, iv, 8, aad, 0, out, buf, 100, tag, 12, NULL), AESX_ERR_AAD_LENGTH);
    CHECK(is_byte(buf, 100, 0xaa)); /* refused arguments: out untouched */
    memcpy(buf, pt, 100);
    CHECK_RC(aesx_esp_seal(e, iv, 7, aad, 8, buf, buf, 100, t2, 12, NULL), AESX_ERR_IV_LENGTH);
    CHECK(memcmp(buf, pt, 100) == 0); /* in place too */
    CHECK_RC(aesx_esp_seal(e, iv, 8, aad, 12, pt, buf, 100, t2, 12, NULL), AESX_OK);
    CHECK_RC(aesx_esp_seal(e, iv, 8, aad, 8, pt, buf, 100, t2, 16, NULL), AESX_ERR_TAG_LENGTH);
    CHECK_RC(aesx_esp_open(e, iv, 8, aad, 8, out, buf, 100, tag, 8, NULL), AESX_ERR_TAG_LENGTH);
    aesx_esp_key_free(e);
    e = NULL;
    CHECK_RC(aesx_esp_key_new(key, 16, salt, 4, 4, backend, &e), AESX_ERR_TAG_LENGTH);
    CHECK_RC(aesx_esp_key_new(key, 16, salt, 3, 16, backend, &e), AESX_ERR_IV_LENGTH);
    CHECK(e == NULL);
}

static void test_multi_buffer(void)
{
    enum { JOBS = 9 };
    static uint8_t data[JOBS][1504], want[JOBS][1504];
    aesx_key *keys[3] = {NULL, NULL, NULL};
    aesx_cbc_job jobs[JOBS];
    uint8_t key[32];
    size_t i, j;
    current = "multi-buffer CBC";
    for (i = 0; i < 32; i++)
        key[i] = (uint8_t)(i + 1);
    CHECK_RC(aesx_key_new(key, 16, AESX_BACKEND_AUTO, &keys[0]), AESX_OK);
    CHECK_RC(aesx_key_new(key, 24, backends[0], &keys[1]), AESX_OK);
    CHECK_RC(aesx_key_new(key, 32, backends[nbackends - 1], &keys[2]), AESX_OK);
    for (i = 0; i < JOBS; i++) {
        size_t len = (i * 176) % 1504;
        uint8_t iv[16];
        for (j = 0; j < len; j++)
            data[i][j] = (uint8_t)(i ^ j);
        for (j = 0; j < 16; j++)
            iv[j] = (uint8_t)(i * 16 + j);
        jobs[i].key = keys[i % 3];
        memcpy(jobs[i].iv, iv, 16);
        jobs[i].data = data[i];
        jobs[i].len = len;
        CHECK_RC(aesx_cbc_encrypt(keys[i % 3], iv, AESX_PADDING_NONE, data[i], len, want[i],
                                  len, NULL),
                 AESX_OK);
    }
    CHECK_RC(aesx_cbc_encrypt_many(jobs, JOBS), AESX_OK);
    for (i = 0; i < JOBS; i++) {
        CHECK(memcmp(data[i], want[i], jobs[i].len) == 0);
        if (jobs[i].len)
            CHECK(memcmp(jobs[i].iv, want[i] + jobs[i].len - 16, 16) == 0);
    }
    /* refused before anything is written */
    memcpy(data[0], want[0], sizeof data[0]);
    jobs[1].len = 100;
    CHECK_RC(aesx_cbc_encrypt_many(jobs, JOBS), AESX_ERR_NOT_BLOCK_ALIGNED);
    jobs[1].len = 176;
    jobs[2].data = data[1] + 160; /* overlaps job 1 */
    CHECK_RC(aesx_cbc_encrypt_many(jobs, JOBS), AESX_ERR_OVERLAP);
    jobs[2].data = data[2];
    CHECK(memcmp(data[0], want[0], sizeof data[0]) == 0);
    jobs[3].key = NULL;
    CHECK_RC(aesx_cbc_encrypt_many(jobs, JOBS), AESX_ERR_NULL_POINTER);
    CHECK_RC(aesx_cbc_encrypt_many(NULL, 1), AESX_ERR_NULL_POINTER);
    CHECK_RC(aesx_cbc_encrypt_many(NULL, 0), AESX_OK);
    CHECK_RC(aesx_cbc_encrypt_many(jobs, SIZE_MAX / 4), AESX_ERR_INVALID_LENGTH);
    for (i = 0; i < 3; i++)
        aesx_key_free(keys[i]);
}

/* ---- arguments -------------------------------------------------------------------- */

static void test_arguments(void)
{
    uint8_t key[32] = {0}, iv[16] = {0}, buf[128], out[128], tag[16];
    aesx_key *k = NULL;
    size_t n = 7;
    int b;
    current = "arguments";

    CHECK(strcmp(aesx_strerror(AESX_OK), "success") == 0);
    for (b = AESX_ERR_INTERNAL; b < 0; b++)
        CHECK(strcmp(aesx_strerror(b), "unknown aesx status code") != 0);
    CHECK(strcmp(aesx_strerror(-1000), "unknown aesx status code") == 0);
    CHECK(aesx_version() != NULL && aesx_version()[0] >= '0');
    CHECK(strcmp(aesx_backend_name(AESX_BACKEND_SOFT), "soft") == 0);
    CHECK(aesx_backend_name(99) == NULL);
    CHECK(aesx_backend_available(AESX_BACKEND_SOFT) == 1);
    CHECK(aesx_backend_available(-5) == 0);
    CHECK(aesx_backend_default() >= AESX_BACKEND_SOFT);

    /* key creation */
    k = (aesx_key *)buf; /* must be overwritten with NULL on failure */
    CHECK_RC(aesx_key_new(key, 15, AESX_BACKEND_AUTO, &k), AESX_ERR_KEY_LENGTH);
    CHECK(k == NULL);
    CHECK_RC(aesx_key_new(NULL, 16, AESX_BACKEND_AUTO, &k), AESX_ERR_NULL_POINTER);
    CHECK_RC(aesx_key_new(key, 16, AESX_BACKEND_AUTO, NULL), AESX_ERR_NULL_POINTER);
    CHECK_RC(aesx_key_new(key, 16, 99, &k), AESX_ERR_UNKNOWN_BACKEND);
    for (b = AESX_BACKEND_SOFT; b <= AESX_BACKEND_LAST; b++)
        if (!aesx_backend_available(b))
            CHECK_RC(aesx_key_new(key, 16, b, &k), AESX_ERR_BACKEND_UNAVAILABLE);
    aesx_key_free(NULL);
    aesx_xts_key_free(NULL);
    aesx_esp_key_free(NULL);
    CHECK(aesx_key_backend(NULL) == AESX_ERR_NULL_POINTER);
    CHECK_RC(aesx_key_new(key, 16, AESX_BACKEND_AUTO, &k), AESX_OK);

    /* NULL pointers: errors, except with length 0 */
    CHECK_RC(aesx_ecb_encrypt(NULL, buf, out, 16), AESX_ERR_NULL_POINTER);
    CHECK_RC(aesx_ecb_encrypt(k, NULL, out, 16), AESX_ERR_NULL_POINTER);
    CHECK_RC(aesx_ecb_encrypt(k, buf, NULL, 16), AESX_ERR_NULL_POINTER);
    CHECK_RC(aesx_ecb_encrypt(k, NULL, NULL, 0), AESX_OK);
    CHECK_RC(aesx_cbc_encrypt(k, NULL, AESX_PADDING_NONE, buf, 16, out, 16, NULL),
             AESX_ERR_NULL_POINTER);
    CHECK_RC(aesx_ctr_xor(k, iv, 0, NULL, NULL, 0), AESX_OK);
    CHECK_RC(aesx_gcm_seal(k, iv, 12, NULL, 0, NULL, NULL, 0, tag, 16), AESX_OK);
    CHECK_RC(aesx_gcm_open(k, iv, 12, NULL, 0, NULL, NULL, 0, tag, 16), AESX_OK);
    CHECK_RC(aesx_gcm_seal(k, iv, 12, NULL, 0, buf, out, 16, NULL, 16), AESX_ERR_NULL_POINTER);
    CHECK_RC(aesx_gcm_seal(k, NULL, 12, NULL, 0, buf, out, 16, tag, 16), AESX_ERR_NULL_POINTER);
    CHECK_RC(aesx_gcm_seal(k, iv, 12, NULL, 5, buf, out, 16, tag, 16), AESX_ERR_NULL_POINTER);
    CHECK_RC(aesx_ones_complement_checksum(buf, 8, NULL), AESX_ERR_NULL_POINTER);

    /* impossible lengths: refused before any memory is touched */
    CHECK_RC(aesx_ecb_encrypt(k, buf, out, SIZE_MAX - 15), AESX_ERR_INVALID_LENGTH);
    CHECK_RC(aesx_ctr_xor(k, iv, 0, buf, out, (size_t)PTRDIFF_MAX + 1), AESX_ERR_INVALID_LENGTH);
    CHECK_RC(aesx_gcm_seal(k, iv, SIZE_MAX, NULL, 0, buf, out, 16, tag, 16),
             AESX_ERR_INVALID_LENGTH);

    /* mode errors */
    CHECK_RC(aesx_ecb_encrypt(k, buf, out, 17), AESX_ERR_NOT_BLOCK_ALIGNED);
    CHECK_RC(aesx_cbc_encrypt(k, iv, AESX_PADDING_NONE, buf, 17, out, 32, &n),
             AESX_ERR_NOT_BLOCK_ALIGNED);
    CHECK_RC(aesx_cbc_encrypt(k, iv, AESX_PADDING_PKCS7, buf, 16, out, 31, &n),
             AESX_ERR_OUTPUT_TOO_SMALL);
    CHECK_RC(aesx_cbc_encrypt(k, iv, AESX_PADDING_PKCS7, buf, 16, buf, 31, &n),
             AESX_ERR_OUTPUT_TOO_SMALL);
    CHECK_RC(aesx_cbc_encrypt(k, iv, 7, buf, 16, out, 32, &n), AESX_ERR_INVALID_ARGUMENT);
    CHECK_RC(aesx_cbc_decrypt(k, iv, AESX_PADDING_PKCS7, buf, 16, out, 15, &n),
             AESX_ERR_OUTPUT_TOO_SMALL);
    CHECK_RC(aesx_gcm_seal(k, iv, 0, NULL, 0, buf, out, 16, tag, 16), AESX_ERR_EMPTY_NONCE);
    CHECK_RC(aesx_gcm_seal(k, iv, 12, NULL, 0, buf, out, 16, tag, 17), AESX_ERR_TAG_LENGTH);
    CHECK_RC(aesx_gcm_seal(k, iv, 12, NULL, 0, buf, out, 16, tag, 0), AESX_ERR_TAG_LENGTH);
    CHECK_RC(aesx_gcm_seal_append(k, iv, 12, NULL, 0, buf, 16, out, 31, 16, &n),
             AESX_ERR_OUTPUT_TOO_SMALL);
    CHECK_RC(aesx_gcm_seal_append(k, iv, 12, NULL, 0, buf, 16, buf, 31, 16, &n),
             AESX_ERR_OUTPUT_TOO_SMALL);

    /* bad padding: AESX_ERR_BAD_PADDING and the output zeroed */
    memset(buf, 0x33, 32);
    CHECK_RC(aesx_cbc_encrypt(k, iv, AESX_PADDING_NONE, buf, 32, buf, 32, &n), AESX_OK);
    memset(out, 0xaa, sizeof out);
    CHECK_RC(aesx_cbc_decrypt(k, iv, AESX_PADDING_PKCS7, buf, 32, out, sizeof out, &n),
             AESX_ERR_BAD_PADDING);
    CHECK(is_zero(out, 32));
    CHECK_RC(aesx_cbc_decrypt(k, iv, AESX_PADDING_PKCS7, buf, 32, buf, 32, &n),
             AESX_ERR_BAD_PADDING);
    CHECK(is_zero(buf, 32));
    CHECK_RC(aesx_cbc_decrypt(k, iv, AESX_PADDING_PKCS7, NULL, 0, NULL, 0, &n),
             AESX_ERR_BAD_PADDING);
    aesx_key_free(k);
}

/* The overlap rule: `out` is exactly `in` or disjoint from it and from every other
 * input; anything else fails with AESX_ERR_OVERLAP and writes nothing. */
static void test_overlap(void)
{
    uint8_t key[16] = {7}, iv[16] = {1}, buf[256], copy[256], tag[16];
    aesx_key *k = NULL;
    size_t n, i;
    current = "overlap";
    for (i = 0; i < sizeof buf; i++)
        buf[i] = (uint8_t)i;
    memcpy(copy, buf, sizeof buf);
    CHECK_RC(aesx_key_new(key, 16, AESX_BACKEND_AUTO, &k), AESX_OK);
    CHECK_RC(aesx_ecb_encrypt(k, buf, buf + 16, 64), AESX_ERR_OVERLAP);
    CHECK_RC(aesx_ecb_encrypt(k, buf + 16, buf, 64), AESX_ERR_OVERLAP);
    CHECK_RC(aesx_ctr_xor(k, iv, 0, buf, buf + 1, 64), AESX_ERR_OVERLAP);
    CHECK_RC(aesx_cbc_encrypt(k, iv, AESX_PADDING_PKCS7, buf, 64, buf + 8, 80, &n),
             AESX_ERR_OVERLAP);
    CHECK_RC(aesx_gcm_seal(k, iv, 12, buf + 100, 16, buf, buf + 90, 32, tag, 16),
             AESX_ERR_OVERLAP); /* out over the AAD */
    CHECK_RC(aesx_gcm_seal(k, buf + 40, 12, NULL, 0, buf, buf + 32, 32, tag, 16),
             AESX_ERR_OVERLAP); /* out over the IV */
    CHECK_RC(aesx_gcm_seal(k, iv, 12, NULL, 0, buf, buf + 64, 32, buf + 80, 16),
             AESX_ERR_OVERLAP); /* tag over out */
    CHECK(memcmp(buf, copy, sizeof buf) == 0);
    /* adjacent is not overlapping; a (copied) IV may sit inside the output */
    CHECK_RC(aesx_ecb_encrypt(k, buf, buf + 64, 64), AESX_OK);
    CHECK_RC(aesx_cbc_encrypt(k, buf + 130, AESX_PADDING_NONE, buf + 128, 32, buf + 128, 32, &n),
             AESX_OK);
    aesx_key_free(k);
}

/* ---- threads ---------------------------------------------------------------------- */

enum { THREADS = 8, ROUNDS = 200 };

struct shared {
    aesx_key *key;
    aesx_xts_key *xts;
    uint8_t pt[333];
    uint8_t gcm[4][333 + 16]; /* sealed with tag lengths 16, 12, 8, 4 */
    uint8_t cbc[336]; /* 333 bytes with PKCS#7 padding */
    uint8_t sectors[512];
    int errors[THREADS];
};

static const size_t TAGS[4] = {16, 12, 8, 4};

struct job {
    struct shared *s;
    int id;
};

static void *worker(void *arg)
{
    struct job *j = arg;
    struct shared *s = j->s;
    uint8_t iv[12] = {3}, civ[16] = {4}, buf[512], out[512];
    size_t n;
    int r, e = 0;
    for (r = 0; r < ROUNDS; r++) {
        size_t t = TAGS[(r + j->id) % 4];
        int which = (int)((r + j->id) % 4);
        e += aesx_gcm_seal_append(s->key, iv, 12, NULL, 0, s->pt, sizeof s->pt, buf, sizeof buf,
                                  t, &n) != AESX_OK;
        e += n != sizeof s->pt + t || memcmp(buf, s->gcm[which], n) != 0;
        e += aesx_gcm_open_append(s->key, iv, 12, NULL, 0, buf, n, buf, n, t, &n) != AESX_OK;
        e += memcmp(buf, s->pt, sizeof s->pt) != 0;
        e += aesx_cbc_encrypt(s->key, civ, AESX_PADDING_PKCS7, s->pt, sizeof s->pt, out,
                              sizeof out, &n) != AESX_OK;
        e += n != sizeof s->cbc || memcmp(out, s->cbc, n) != 0;
        e += aesx_xts_encrypt_sectors(s->xts, 512, 42, s->pt, out, 0) != AESX_OK;
        memset(buf, 0x6c, 512);
        e += aesx_xts_encrypt_sectors(s->xts, 512, 42, buf, out, 512) != AESX_OK;
        e += memcmp(out, s->sectors, 512) != 0;
    }
    s->errors[j->id] = e;
    return NULL;
}

static void test_threads(void)
{
    static struct shared s;
    uint8_t key[32], iv[12] = {3}, civ[16] = {4}, sec[512];
    pthread_t th[THREADS];
    struct job jobs[THREADS];
    size_t n, i;
    current = "threads";
    for (i = 0; i < 32; i++)
        key[i] = (uint8_t)(0x10 + i);
    for (i = 0; i < sizeof s.pt; i++)
        s.pt[i] = (uint8_t)(i * 13);
    /* references from a separate key, so the shared one starts untouched */
    {
        aesx_key *ref = NULL;
        aesx_xts_key *xref = NULL;
        CHECK_RC(aesx_key_new(key, 32, AESX_BACKEND_AUTO, &ref), AESX_OK);
        for (i = 0; i < 4; i++)
            CHECK_RC(aesx_gcm_seal_append(ref, iv, 12, NULL, 0, s.pt, sizeof s.pt, s.gcm[i],
                                          sizeof s.gcm[i], TAGS[i], &n),
                     AESX_OK);
        CHECK_RC(aesx_cbc_encrypt(ref, civ, AESX_PADDING_PKCS7, s.pt, sizeof s.pt, s.cbc,
                                  sizeof s.cbc, &n),
                 AESX_OK);
        CHECK_RC(aesx_xts_key_new(key, 32, AESX_BACKEND_AUTO, &xref), AESX_OK);
        memset(sec, 0x6c, 512);
        CHECK_RC(aesx_xts_encrypt_sectors(xref, 512, 42, sec, s.sectors, 512), AESX_OK);
        aesx_key_free(ref);
        aesx_xts_key_free(xref);
    }
    CHECK_RC(aesx_key_new(key, 32, AESX_BACKEND_AUTO, &s.key), AESX_OK);
    CHECK_RC(aesx_xts_key_new(key, 32, AESX_BACKEND_AUTO, &s.xts), AESX_OK);
    for (i = 0; i < THREADS; i++) {
        jobs[i].s = &s;
        jobs[i].id = (int)i;
        CHECK(pthread_create(&th[i], NULL, worker, &jobs[i]) == 0);
    }
    for (i = 0; i < THREADS; i++) {
        CHECK(pthread_join(th[i], NULL) == 0);
        CHECK(s.errors[i] == 0);
    }
    aesx_key_free(s.key);
    aesx_xts_key_free(s.xts);
}

int main(void)
{
    int b, i;
    for (b = AESX_BACKEND_SOFT; b <= AESX_BACKEND_LAST; b++)
        if (aesx_backend_available(b))
            backends[nbackends++] = b;
    for (i = 0; i < nbackends; i++) {
        current = aesx_backend_name(backends[i]);
        test_block_modes(backends[i]);
        test_gcm(backends[i]);
        test_xts(backends[i]);
        test_esp(backends[i]);
        test_aead(backends[i]);
        test_gcm_siv(backends[i]);
        test_keywrap(backends[i]);
        test_cmac(backends[i]);
    }
    test_multi_buffer();
    test_arguments();
    test_overlap();
    test_threads();
    printf("test_abi: libaesx %s, backends:", aesx_version());
    for (i = 0; i < nbackends; i++)
        printf(" %s", aesx_backend_name(backends[i]));
    printf("\n%d checks, %d failed\n", checks, failures);
    return failures != 0;
}
