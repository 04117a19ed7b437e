/*
 * The aesx provider's C harness: loads the provider from a directory into a
 * fresh OSSL_LIB_CTX beside OpenSSL's default provider and checks it
 *   1. reports itself (name, version, status, backend, aesx-bytes counter);
 *   2. describes every cipher as the default provider does (names and
 *      aliases, mode, key/IV/block lengths, flags, gettable parameters);
 *   3. passes OpenSSL's own cipher test data (evpciph_aes_common.txt, the
 *      stanzas of the ciphers it implements, expected failures included),
 *      whole and split at every offset of the data and the AAD;
 *   4. gives the default provider's output, tag, updated IV and num for
 *      random keys, IVs and lengths, split at every offset of small messages
 *      and at random offsets of large ones, padding on and off, in place and
 *      out of place, and with the context duplicated mid-stream;
 *   5. refuses what the default provider refuses (misuse);
 *   6. runs the TLS record paths as the default provider does: GCM's
 *      (TLS1_AAD, IV_FIXED, IV_GEN, SET_IV_INV: equal records, each
 *      provider opening the other's, forgeries and misuse refused alike)
 *      and the CBC suites' (tls-version, tls-mac-size: padding added,
 *      explicit IV, padding and MAC removed, bad padding answered alike);
 *   7. CCM (nonce and tag lengths, AAD, data) and key wrap (every length
 *      to 80 bytes, IV or not) give the default's output, open each
 *      other's, and refuse what it refuses;
 *   8. eight threads on contexts duplicated from shared keyed templates
 *      agree with the default provider, and the counter takes in their
 *      bytes.
 * Usage: harness PROVIDER_DIR EVP_TEST_FILE...
 * Exits 0 when every check passed; prints one line per failure.
 */
#include <ctype.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <openssl/provider.h>

static OSSL_LIB_CTX *lib;
static OSSL_PROVIDER *prov_aesx, *prov_default;
static long failures, checks;

#define CHECK(cond, ...)                                                   \
    do {                                                                   \
        checks++;                                                          \
        if (!(cond)) {                                                     \
            failures++;                                                    \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);          \
            fprintf(stderr, __VA_ARGS__);                                  \
            fputc('\n', stderr);                                           \
            if (failures > 50) {                                           \
                fprintf(stderr, "too many failures\n");                    \
                exit(1);                                                   \
            }                                                              \
        }                                                                  \
    } while (0)

static const char *NAMES[] = {
    "AES-128-ECB", "AES-192-ECB", "AES-256-ECB", "AES-128-CBC",
    "AES-192-CBC", "AES-256-CBC", "AES-128-CTR", "AES-192-CTR",
    "AES-256-CTR", "AES-128-GCM", "AES-192-GCM", "AES-256-GCM",
    "AES-128-XTS", "AES-256-XTS",
    /* (the ciphers above run the differential and misuse sections; the
     * ones below their own) */
    "AES-128-CCM", "AES-192-CCM", "AES-256-CCM", "AES-128-WRAP",
    "AES-192-WRAP", "AES-256-WRAP", "AES-128-WRAP-PAD", "AES-192-WRAP-PAD",
    "AES-256-WRAP-PAD", "AES-128-WRAP-INV", "AES-192-WRAP-INV", "AES-256-WRAP-INV",
    "AES-128-WRAP-PAD-INV", "AES-192-WRAP-PAD-INV", "AES-256-WRAP-PAD-INV",
};
#define NCIPHERS (sizeof(NAMES) / sizeof(NAMES[0]))

/* AES-GCM-SIV: in OpenSSL's default provider from 3.2; where it is
 * missing, the provider is checked against the test data alone. */
#ifndef EVP_CIPH_GCM_SIV_MODE
#define EVP_CIPH_GCM_SIV_MODE 0x10005
#endif
static const char *SIV_NAMES[] = {"AES-128-GCM-SIV", "AES-192-GCM-SIV", "AES-256-GCM-SIV"};
#define NSIV 3
#define NSTREAM 14

/* A small deterministic generator, so that a failure can be replayed. */
static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;
static uint64_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}
static void fill(unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (unsigned char)rnd();
}

static uint64_t aesx_bytes(void)
{
    uint64_t v = 0;
    OSSL_PARAM p[2] = {OSSL_PARAM_construct_uint64("aesx-bytes", &v),
                       OSSL_PARAM_construct_end()};
    if (!OSSL_PROVIDER_get_params(prov_aesx, p))
        return 0;
    return v;
}

static EVP_CIPHER *fetch(const char *name, const char *prov)
{
    char q[64];
    snprintf(q, sizeof(q), "provider=%s", prov);
    return EVP_CIPHER_fetch(lib, name, q);
}

/* ---- 1. the provider itself ---------------------------------------- */

static void check_provider(void)
{
    char *name = NULL, *version = NULL, *build = NULL, *backend = NULL;
    int status = 0;
    OSSL_PARAM p[] = {
        OSSL_PARAM_construct_utf8_ptr(OSSL_PROV_PARAM_NAME, &name, 0),
        OSSL_PARAM_construct_utf8_ptr(OSSL_PROV_PARAM_VERSION, &version, 0),
        OSSL_PARAM_construct_utf8_ptr(OSSL_PROV_PARAM_BUILDINFO, &build, 0),
        OSSL_PARAM_construct_int(OSSL_PROV_PARAM_STATUS, &status),
        OSSL_PARAM_construct_utf8_ptr("aesx-backend", &backend, 0),
        OSSL_PARAM_construct_end()};
    CHECK(strcmp(OSSL_PROVIDER_get0_name(prov_aesx), "aesx") == 0, "provider name");
    CHECK(OSSL_PROVIDER_get_params(prov_aesx, p), "provider get_params");
    CHECK(name && strcmp(name, "aesx") == 0, "name param %s", name ? name : "(null)");
    CHECK(version && *version, "version");
    CHECK(build && strstr(build, "aesx"), "buildinfo");
    CHECK(status == 1, "status %d", status);
    CHECK(backend != NULL, "backend param");
    const char *want = getenv("AESX_BACKEND");
    if (want && *want && backend)
        CHECK(strcasecmp(want, backend) == 0, "backend %s, AESX_BACKEND %s", backend, want);
    printf("provider: %s %s (%s), backend %s\n", name, version, build, backend ? backend : "?");
    CHECK(OSSL_PROVIDER_gettable_params(prov_aesx) != NULL, "gettable params");
}

/* ---- 2. algorithm descriptions ---------------------------------------- */

static void collect_name(const char *name, void *arg)
{
    char *buf = arg;
    size_t n = strlen(buf);
    snprintf(buf + n, 512 - n, "%s;", name);
    for (char *c = buf + n; *c; c++)
        *c = (char)toupper((unsigned char)*c);
}

static int has_name(const char *list, const char *name)
{
    char want[128];
    snprintf(want, sizeof(want), "%s;", name);
    for (const char *p = list; (p = strstr(p, want)) != NULL; p++)
        if (p == list || p[-1] == ';')
            return 1;
    return 0;
}

static void same_names(const char *a, const char *b, const char *what)
{
    char tmp[512];
    strncpy(tmp, a, sizeof(tmp) - 1);
    tmp[sizeof(tmp) - 1] = 0;
    for (char *tok = strtok(tmp, ";"); tok; tok = strtok(NULL, ";"))
        CHECK(has_name(b, tok), "%s: name %s missing on one side", what, tok);
}

static void same_param_keys(const OSSL_PARAM *a, const OSSL_PARAM *b, int subset, const char *what)
{
    /* every key of a is in b, with the same type; and the reverse unless
     * `subset` (the default's lists hold TLS keys not implemented yet) */
    for (int pass = 0; pass < (subset ? 1 : 2); pass++) {
        const OSSL_PARAM *x = pass ? b : a, *y = pass ? a : b;
        for (; x && x->key; x++) {
            const OSSL_PARAM *m = OSSL_PARAM_locate_const(y, x->key);
            CHECK(m != NULL, "%s: param %s missing", what, x->key);
            if (m)
                CHECK(m->data_type == x->data_type, "%s: param %s type %u vs %u", what,
                      x->key, x->data_type, m->data_type);
        }
    }
}

static void describe(const char *name);

static void check_descriptions(void)
{
    for (size_t i = 0; i < NCIPHERS; i++)
        describe(NAMES[i]);
    for (size_t i = 0; i < NSIV; i++) {
        EVP_CIPHER *d = fetch(SIV_NAMES[i], "default");
        if (d) {
            EVP_CIPHER_free(d);
            describe(SIV_NAMES[i]);
        } else {
            EVP_CIPHER *a = fetch(SIV_NAMES[i], "aesx");
            CHECK(a != NULL && EVP_CIPHER_get_mode(a) == EVP_CIPH_GCM_SIV_MODE
                      && EVP_CIPHER_get_iv_length(a) == 12,
                  "fetch %s", SIV_NAMES[i]);
            EVP_CIPHER_free(a);
        }
    }
}

/* One cipher's description at aesx against the default's. */
static void describe(const char *name)
{
    EVP_CIPHER *a = fetch(name, "aesx"), *d = fetch(name, "default");
    CHECK(a && d, "fetch %s", name);
    if (!a || !d) {
        EVP_CIPHER_free(a);
        EVP_CIPHER_free(d);
        return;
    }
    CHECK(strcmp(OSSL_PROVIDER_get0_name(EVP_CIPHER_get0_provider(a)), "aesx") == 0,
          "%s from aesx", name);
    CHECK(EVP_CIPHER_get_mode(a) == EVP_CIPHER_get_mode(d), "%s mode", name);
    CHECK(EVP_CIPHER_get_key_length(a) == EVP_CIPHER_get_key_length(d), "%s keylen", name);
    CHECK(EVP_CIPHER_get_iv_length(a) == EVP_CIPHER_get_iv_length(d), "%s ivlen", name);
    CHECK(EVP_CIPHER_get_block_size(a) == EVP_CIPHER_get_block_size(d), "%s block", name);
    CHECK(EVP_CIPHER_get_flags(a) == EVP_CIPHER_get_flags(d), "%s flags %lx vs %lx", name,
          EVP_CIPHER_get_flags(a), EVP_CIPHER_get_flags(d));
    CHECK(EVP_CIPHER_get_nid(a) == EVP_CIPHER_get_nid(d), "%s nid", name);
    char na[512] = "", nd[512] = "";
    EVP_CIPHER_names_do_all(a, collect_name, na);
    EVP_CIPHER_names_do_all(d, collect_name, nd);
    same_names(na, nd, name);
    same_names(nd, na, name);
    same_param_keys(EVP_CIPHER_gettable_params(a), EVP_CIPHER_gettable_params(d), 0, name);
    same_param_keys(EVP_CIPHER_gettable_ctx_params(a), EVP_CIPHER_gettable_ctx_params(d), 0,
                    name);
    same_param_keys(EVP_CIPHER_settable_ctx_params(a), EVP_CIPHER_settable_ctx_params(d), 0,
                    name);
    EVP_CIPHER_free(a);
    EVP_CIPHER_free(d);
}

/* ---- one run of a cipher ------------------------------------------- */

typedef struct {
    const unsigned char *key, *iv, *aad, *in, *tag;
    int ivlen, aadlen, aadcut, inl, taglen; /* taglen: tag to set (decrypt) */
    const int *cuts;                        /* ncuts ascending offsets */
    int ncuts;
    int enc, pad, inplace, dup_at; /* dup after piece dup_at (-1: never) */
    int tag_late;                  /* set the tag after the AAD */
} job;

typedef struct {
    int step; /* 0: success; else the failing step (see run) */
    unsigned char out[(1 << 20) + 256];
    int outl;
    unsigned char tag[16];
    unsigned char updated_iv[16];
    unsigned int num;
} outcome;

static outcome res_a, res_d;

/* Returns through `r`: step 1 init, 2 ivlen, 3 tag set, 4 key/iv,
 * 5 AAD, 6 update, 7 final, 8 tag get, 9 dup. */
static void run(EVP_CIPHER *c, const job *j, outcome *r)
{
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    int aead = (EVP_CIPHER_get_flags(c) & EVP_CIPH_FLAG_AEAD_CIPHER) != 0;
    int l = 0, pos = 0, inpos = 0;
    unsigned char *buf = r->out;
    memset(r->tag, 0, sizeof(r->tag));
    r->outl = 0;
    r->step = 1;
    if (!EVP_CipherInit_ex(ctx, c, NULL, NULL, NULL, j->enc))
        goto done;
    r->step = 2;
    if (aead && j->ivlen != EVP_CIPHER_get_iv_length(c)
        && !EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_IVLEN, j->ivlen, NULL))
        goto done;
    r->step = 3;
    if (aead && !j->enc && j->tag && !j->tag_late
        && !EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, j->taglen, (void *)j->tag))
        goto done;
    r->step = 4;
    if (!EVP_CipherInit_ex(ctx, NULL, NULL, j->key, j->iv, j->enc))
        goto done;
    EVP_CIPHER_CTX_set_padding(ctx, j->pad);
    r->step = 5;
    if (aead && j->aadlen >= 0) {
        if (!EVP_CipherUpdate(ctx, NULL, &l, j->aad, j->aadcut)
            || !EVP_CipherUpdate(ctx, NULL, &l, j->aad + j->aadcut, j->aadlen - j->aadcut))
            goto done;
    }
    r->step = 3;
    if (aead && !j->enc && j->tag && j->tag_late
        && !EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, j->taglen, (void *)j->tag))
        goto done;
    if (j->inplace)
        memcpy(buf, j->in, j->inl);
    for (int k = 0; k <= j->ncuts; k++) {
        int end = k < j->ncuts ? j->cuts[k] : j->inl;
        const unsigned char *src = j->inplace ? buf + inpos : j->in + inpos;
        r->step = 6;
        if (!EVP_CipherUpdate(ctx, buf + pos, &l, src, end - inpos))
            goto done;
        pos += l;
        inpos = end;
        if (k == j->dup_at) {
            EVP_CIPHER_CTX *d = EVP_CIPHER_CTX_new();
            r->step = 9;
            if (!EVP_CIPHER_CTX_copy(d, ctx)) {
                EVP_CIPHER_CTX_free(d);
                goto done;
            }
            EVP_CIPHER_CTX_free(ctx);
            ctx = d;
        }
    }
    r->step = 7;
    if (!EVP_CipherFinal_ex(ctx, buf + pos, &l))
        goto done;
    pos += l;
    r->step = 8;
    if (aead && j->enc && !EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, 16, r->tag))
        goto done;
    r->outl = pos;
    memset(r->updated_iv, 0, 16);
    if (!aead) {
        EVP_CIPHER_CTX_get_updated_iv(ctx, r->updated_iv, EVP_CIPHER_CTX_get_iv_length(ctx));
        r->num = (unsigned)EVP_CIPHER_CTX_get_num(ctx);
    }
    r->step = 0;
done:
    EVP_CIPHER_CTX_free(ctx);
    ERR_clear_error();
}

/* Runs `j` on both providers and compares everything. */
static int compare(EVP_CIPHER *a, EVP_CIPHER *d, const job *j, const char *what)
{
    run(a, j, &res_a);
    run(d, j, &res_d);
    int aead = (EVP_CIPHER_get_flags(a) & EVP_CIPH_FLAG_AEAD_CIPHER) != 0;
    int ok = res_a.step == res_d.step;
    if (ok && res_a.step == 0) {
        ok = res_a.outl == res_d.outl && memcmp(res_a.out, res_d.out, res_a.outl) == 0
             && memcmp(res_a.tag, res_d.tag, 16) == 0;
        if (!aead)
            ok = ok && memcmp(res_a.updated_iv, res_d.updated_iv, 16) == 0
                 && res_a.num == res_d.num;
    }
    CHECK(ok, "%s: len %d cuts %d(%d..) enc %d pad %d inplace %d dup %d: aesx step %d len %d, "
              "default step %d len %d",
          what, j->inl, j->ncuts, j->ncuts ? j->cuts[0] : -1, j->enc, j->pad, j->inplace,
          j->dup_at, res_a.step, res_a.outl, res_d.step, res_d.outl);
    return ok;
}

/* ---- 3. OpenSSL's test data ---------------------------------------- */

typedef struct {
    char cipher[64], op[16], result[64];
    unsigned char *key, *iv, *pt, *ct, *tag, *aad, *next_iv;
    long keyl, ivl, ptl, ctl, tagl, aadl, next_ivl;
    int fips_only, tag_late, line;
} stanza;

static unsigned char *unhex(const char *s, long *len)
{
    if (*s == 0) {
        *len = 0;
        return calloc(1, 1);
    }
    return OPENSSL_hexstr2buf(s, len);
}

static void stanza_free(stanza *s)
{
    OPENSSL_free(s->key), OPENSSL_free(s->iv), OPENSSL_free(s->pt), OPENSSL_free(s->ct);
    OPENSSL_free(s->tag), OPENSSL_free(s->aad), OPENSSL_free(s->next_iv);
    memset(s, 0, sizeof(*s));
}

/* Whether the cipher a test file names (any alias) is one of NAMES. */
static int implemented(const char *name)
{
    EVP_CIPHER *d = fetch(name, "default");
    int found = 0;
    for (size_t i = 0; d && i < NCIPHERS; i++)
        found |= EVP_CIPHER_is_a(d, NAMES[i]);
    EVP_CIPHER_free(d);
    /* GCM-SIV by aesx's names, which the default may not have */
    EVP_CIPHER *a = fetch(name, "aesx");
    for (size_t i = 0; a && i < NSIV; i++)
        found |= EVP_CIPHER_is_a(a, SIV_NAMES[i]);
    EVP_CIPHER_free(a);
    return found;
}

/* evp_test's cipher_test_enc, step names as its t->err. */
static const char *evp_case(EVP_CIPHER *c, const stanza *s, int enc, int frag)
{
    int aead = (EVP_CIPHER_get_flags(c) & EVP_CIPH_FLAG_AEAD_CIPHER) != 0;
    int ccm = EVP_CIPHER_get_mode(c) == EVP_CIPH_CCM_MODE;
    const unsigned char *in = enc ? s->pt : s->ct, *want = enc ? s->ct : s->pt;
    long inl = enc ? s->ptl : s->ctl, wantl = enc ? s->ctl : s->ptl;
    unsigned char out[4096], tag[16], iv[128];
    int l, total = 0;
    const char *err = "INIT_ERROR";
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new(), *dup;
    if (!EVP_CipherInit_ex(ctx, c, NULL, NULL, NULL, enc))
        goto out;
    EVP_CIPHER_CTX_set_flags(ctx, EVP_CIPHER_CTX_FLAG_WRAP_ALLOW);
    err = "INVALID_IV_LENGTH";
    if (s->iv && aead && !EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_IVLEN, (int)s->ivl, NULL))
        goto out;
    err = "TAG_SET_ERROR";
    if (aead && !enc && !s->tag_late
        && !EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, (int)s->tagl, s->tag))
        goto out;
    /* CCM's tag length comes first, its value only when decrypting */
    err = "TAG_LENGTH_SET_ERROR";
    if (ccm && (enc || s->tag_late)
        && !EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, (int)s->tagl, NULL))
        goto out;
    err = "INVALID_KEY_LENGTH";
    if (!EVP_CIPHER_CTX_set_key_length(ctx, (int)s->keyl))
        goto out;
    err = "KEY_SET_ERROR";
    if (!EVP_CipherInit_ex(ctx, NULL, NULL, s->key, s->iv, -1))
        goto out;
    err = "INVALID_IV";
    if (s->iv && (!EVP_CIPHER_CTX_get_updated_iv(ctx, iv, sizeof(iv))
                  || (!(EVP_CIPHER_get_flags(c) & EVP_CIPH_CUSTOM_IV)
                      && memcmp(iv, s->iv, s->ivl) != 0)))
        goto out;
    dup = EVP_CIPHER_CTX_new();
    if (EVP_CIPHER_CTX_copy(dup, ctx)) {
        EVP_CIPHER_CTX_free(ctx);
        ctx = dup;
    } else {
        EVP_CIPHER_CTX_free(dup);
    }
    EVP_CIPHER_CTX_set_padding(ctx, 0);
    err = "CCM_PLAINTEXT_LENGTH_SET_ERROR";
    if (ccm && !EVP_CipherUpdate(ctx, NULL, &l, NULL, (int)inl))
        goto out;
    err = "AAD_SET_ERROR";
    if (aead && s->aad) {
        for (long k = 0; k < s->aadl;) {
            long n = frag ? 1 : s->aadl;
            if (!EVP_CipherUpdate(ctx, NULL, &l, s->aad + k, (int)n))
                goto out;
            k += n;
        }
    }
    err = "TAG_SET_ERROR";
    if (aead && !enc && s->tag_late
        && !EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, (int)s->tagl, s->tag))
        goto out;
    err = "CIPHERUPDATE_ERROR";
    if (inl + 32 > (long)sizeof(out))
        goto out;
    for (long k = 0; k < inl || (k == 0 && inl == 0);) {
        long n = frag ? (k == 0 ? 1 : (inl - k > 7 ? 7 : inl - k)) : inl;
        if (n > inl - k)
            n = inl - k;
        if (!EVP_CipherUpdate(ctx, out + total, &l, in + k, (int)n))
            goto out;
        total += l;
        k += n;
        if (inl == 0)
            break;
    }
    err = "CIPHERFINAL_ERROR";
    if (!EVP_CipherFinal_ex(ctx, out + total, &l))
        goto out;
    total += l;
    err = "VALUE_MISMATCH";
    if (total != wantl || memcmp(out, want, total) != 0)
        goto out;
    err = "TAG_VALUE_MISMATCH";
    if (enc && aead
        && (!EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, (int)s->tagl, tag)
            || memcmp(tag, s->tag, s->tagl) != 0))
        goto out;
    err = "INVALID_NEXT_IV";
    if (s->next_iv && (!EVP_CIPHER_CTX_get_updated_iv(ctx, iv, sizeof(iv))
                       || memcmp(iv, s->next_iv, s->next_ivl) != 0))
        goto out;
    err = "";
out:
    EVP_CIPHER_CTX_free(ctx);
    ERR_clear_error();
    return err;
}

static int evp_ran, evp_expected_failures;

static void run_evp_file(const char *path)
{
    FILE *f = fopen(path, "r");
    CHECK(f != NULL, "open %s", path);
    if (!f)
        return;
    char line[16384];
    stanza s = {0};
    int lineno = 0, in_stanza = 0, ran = 0, skipped = 0, expected_failures = 0;
    for (;;) {
        char *got = fgets(line, sizeof(line), f);
        lineno++;
        char *p = got ? line : NULL;
        if (p) {
            p[strcspn(p, "\r\n")] = 0;
            if (p[0] == '#')
                continue;
        }
        if (!p || p[0] == 0) {
            if (in_stanza && s.cipher[0]) {
                if (!implemented(s.cipher) || s.fips_only) {
                    skipped++;
                } else {
                    EVP_CIPHER *c = fetch(s.cipher, "aesx");
                    CHECK(c != NULL, "line %d: fetch %s", s.line, s.cipher);
                    for (int enc = 1; c && enc >= 0; enc--) {
                        if ((strcasecmp(s.op, "ENCRYPT") == 0 && !enc)
                            || (strcasecmp(s.op, "DECRYPT") == 0 && enc))
                            continue;
                        if (enc && !s.pt)
                            continue;
                        /* as evp_test: XTS takes each update as a data
                         * unit, CCM, key wrap and GCM-SIV the whole message
                         * in one update, so they are never fragmented */
                        int m = EVP_CIPHER_get_mode(c);
                        int frags = m == EVP_CIPH_XTS_MODE || m == EVP_CIPH_CCM_MODE
                                            || m == EVP_CIPH_WRAP_MODE
                                            || m == EVP_CIPH_GCM_SIV_MODE
                                        ? 1
                                        : 2;
                        for (int frag = 0; frag < frags; frag++) {
                            const char *err = evp_case(c, &s, enc, frag);
                            CHECK(strcmp(err, s.result) == 0,
                                  "line %d %s %s frag %d: got '%s', want '%s'", s.line,
                                  s.cipher, enc ? "enc" : "dec", frag, err, s.result);
                            ran++;
                            expected_failures += s.result[0] != 0;
                        }
                    }
                    EVP_CIPHER_free(c);
                }
            }
            stanza_free(&s);
            in_stanza = 0;
            if (!p)
                break;
            continue;
        }
        char *eq = strchr(p, '=');
        if (!eq)
            continue;
        char *key = p, *val = eq + 1;
        char *e = eq;
        while (e > key && isspace((unsigned char)e[-1]))
            e--;
        *e = 0;
        while (isspace((unsigned char)*val))
            val++;
        if (!in_stanza) {
            in_stanza = 1;
            s.line = lineno;
        }
        if (strcasecmp(key, "Cipher") == 0)
            snprintf(s.cipher, sizeof(s.cipher), "%s", val);
        else if (strcasecmp(key, "Operation") == 0)
            snprintf(s.op, sizeof(s.op), "%s", val);
        else if (strcasecmp(key, "Result") == 0)
            snprintf(s.result, sizeof(s.result), "%s", val);
        else if (strcasecmp(key, "Key") == 0)
            s.key = unhex(val, &s.keyl);
        else if (strcasecmp(key, "IV") == 0)
            s.iv = unhex(val, &s.ivl);
        else if (strcasecmp(key, "Plaintext") == 0)
            s.pt = unhex(val, &s.ptl);
        else if (strcasecmp(key, "Ciphertext") == 0)
            s.ct = unhex(val, &s.ctl);
        else if (strcasecmp(key, "Tag") == 0)
            s.tag = unhex(val, &s.tagl);
        else if (strcasecmp(key, "AAD") == 0)
            s.aad = unhex(val, &s.aadl);
        else if (strcasecmp(key, "NextIV") == 0)
            s.next_iv = unhex(val, &s.next_ivl);
        else if (strcasecmp(key, "SetTagLate") == 0)
            s.tag_late = strcasecmp(val, "TRUE") == 0;
        else if (strcasecmp(key, "Availablein") == 0)
            s.fips_only = strcasecmp(val, "fips") == 0;
    }
    fclose(f);
    const char *base = strrchr(path, '/');
    printf("evp test data %s: %d cases run (%d expecting a failure), %d stanzas of other "
           "ciphers skipped\n",
           base ? base + 1 : path, ran, expected_failures, skipped);
    CHECK(ran > 0, "no case of %s ran", path);
    evp_ran += ran;
    evp_expected_failures += expected_failures;
}

/* ---- 4. differential tests ------------------------------------------ */

static unsigned char inbuf[(1 << 20) + 256], ctbuf[(1 << 20) + 256];

static void differential(size_t ci)
{
    EVP_CIPHER *a = fetch(NAMES[ci], "aesx"), *d = fetch(NAMES[ci], "default");
    if (!a || !d) {
        CHECK(0, "fetch %s", NAMES[ci]);
        return;
    }
    int aead = (EVP_CIPHER_get_flags(a) & EVP_CIPH_FLAG_AEAD_CIPHER) != 0;
    int padded_mode = EVP_CIPHER_get_block_size(a) > 1;
    int xts = EVP_CIPHER_get_mode(a) == EVP_CIPH_XTS_MODE;
    unsigned char key[64], iv[128], aad[64], tag[16];
    int cuts[3];
    static const int ivlens[] = {12, 1, 16, 64, 13};
    long before = failures;
    int runs = 0;
    for (int len = 0; len <= 100; len++) {
        for (int pad = 0; pad <= padded_mode; pad++) {
            fill(key, sizeof(key));
            fill(iv, sizeof(iv));
            fill(aad, sizeof(aad));
            fill(inbuf, len);
            job j = {key, iv, aad, inbuf, NULL, 12, aead ? (int)(rnd() % 40) : -1, 0, len, 16,
                     cuts, 0, 1, pad, 0, -1, 0};
            if (!aead)
                j.ivlen = EVP_CIPHER_get_iv_length(a);
            else
                j.ivlen = ivlens[len % 5];
            j.aadcut = j.aadlen > 0 ? (int)(rnd() % (j.aadlen + 1)) : 0;
            /* encrypt: whole, then split at every offset */
            for (int cut = -1; cut <= len; cut++) {
                j.ncuts = cut >= 0;
                cuts[0] = cut;
                j.inplace = cut >= 0 && (cut & 1);
                j.dup_at = (cut >= 0 && cut % 3 == 0) ? 0 : -1;
                compare(a, d, &j, NAMES[ci]);
                runs++;
            }
            /* decrypt what the default provider produced */
            j.enc = 1;
            j.ncuts = 0;
            j.inplace = 0;
            j.dup_at = -1;
            run(d, &j, &res_d);
            if (res_d.step != 0)
                continue;
            memcpy(ctbuf, res_d.out, res_d.outl);
            memcpy(tag, res_d.tag, 16);
            j.enc = 0;
            j.in = ctbuf;
            j.inl = res_d.outl;
            j.tag = aead ? tag : NULL;
            j.taglen = aead ? (int[]){16, 12, 4, 1}[len % 4] : 16;
            j.tag_late = len & 1;
            for (int cut = -1; cut <= j.inl; cut++) {
                j.ncuts = cut >= 0;
                cuts[0] = cut;
                j.inplace = cut >= 0 && !(cut & 1);
                j.dup_at = (cut >= 0 && cut % 3 == 1) ? 0 : -1;
                /* (XTS: each update is its own data unit, so only an
                 * unsplit decryption gives the plaintext back) */
                if (compare(a, d, &j, NAMES[ci]) && res_a.step == 0 && (!xts || j.ncuts == 0))
                    CHECK(res_a.outl == len && memcmp(res_a.out, inbuf, len) == 0,
                          "%s round trip len %d", NAMES[ci], len);
                runs++;
            }
            if (aead) {
                /* a wrong tag fails at final on both */
                tag[len % 16 % j.taglen] ^= 0x40;
                j.ncuts = 0;
                compare(a, d, &j, NAMES[ci]);
                CHECK(res_a.step == 7, "%s forged tag: step %d", NAMES[ci], res_a.step);
                tag[len % 16 % j.taglen] ^= 0x40;
                /* no tag: final fails on both */
                j.tag = NULL;
                compare(a, d, &j, NAMES[ci]);
                CHECK(res_a.step == 7, "%s no tag: step %d", NAMES[ci], res_a.step);
            } else if (padded_mode && pad) {
                /* random "ciphertext": bad padding fails the same way */
                j.ncuts = 0;
                fill(ctbuf, (len / 16 + 1) * 16);
                j.inl = (len / 16 + 1) * 16;
                compare(a, d, &j, NAMES[ci]);
                /* a length that is not whole blocks */
                j.inl = len % 16 ? len : len + 1;
                compare(a, d, &j, NAMES[ci]);
            }
        }
    }
    /* large messages, random three-way splits */
    static const int big[] = {1000, 4099, 65536 + 5, (1 << 20) + 3};
    for (size_t b = 0; b < sizeof(big) / sizeof(big[0]); b++) {
        for (int rep = 0; rep < 3; rep++) {
            int len = big[b] - (padded_mode ? big[b] % 16 * (rep == 0) : 0);
            fill(key, sizeof(key));
            fill(iv, sizeof(iv));
            fill(inbuf, len);
            cuts[0] = (int)(rnd() % (len + 1));
            cuts[1] = cuts[0] + (int)(rnd() % (len - cuts[0] + 1));
            cuts[2] = cuts[1] + (int)(rnd() % (len - cuts[1] + 1));
            job j = {key, iv, aad, inbuf, NULL, aead ? 12 : EVP_CIPHER_get_iv_length(a),
                     aead ? 33 : -1, 7, len, 16, cuts, 3, 1, rep != 0, rep == 1, rep == 2 ? 1 : -1, 0};
            if (!compare(a, d, &j, NAMES[ci]))
                continue;
            memcpy(ctbuf, res_d.out, res_d.outl);
            memcpy(tag, res_d.tag, 16);
            j.enc = 0;
            j.in = ctbuf;
            j.inl = res_d.outl;
            j.tag = aead ? tag : NULL;
            for (int k = 0; k < 3; k++)
                if (cuts[k] > j.inl)
                    cuts[k] = j.inl;
            compare(a, d, &j, NAMES[ci]);
            runs += 2;
        }
    }
    printf("differential %s: %d runs, %s\n", NAMES[ci], runs, failures == before ? "ok" : "FAILED");
    EVP_CIPHER_free(a);
    EVP_CIPHER_free(d);
}

/* ---- 5. misuse -------------------------------------------------------- */

/* The result of a sequence of calls on one provider, as a bit pattern. */
static int misuse_seq(EVP_CIPHER *c, int which)
{
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    unsigned char key[64] = {1}, iv[16] = {2}, buf[64] = {0}, tag[16] = {0};
    int l = 0, bits = 0;
    int keyl = EVP_CIPHER_get_key_length(c);
    switch (which) {
    case 0: /* update and final with no key */
        bits |= EVP_EncryptInit_ex(ctx, c, NULL, NULL, NULL);
        bits |= EVP_EncryptUpdate(ctx, buf, &l, buf, 16) << 1;
        bits |= EVP_EncryptFinal_ex(ctx, buf, &l) << 2;
        break;
    case 1: /* a key length that is not the cipher's */
        bits |= EVP_EncryptInit_ex(ctx, c, NULL, NULL, NULL);
        bits |= EVP_CIPHER_CTX_set_key_length(ctx, keyl + 8) << 1;
        bits |= EVP_CIPHER_CTX_set_key_length(ctx, keyl) << 2;
        break;
    case 2: { /* IV lengths */
        bits |= EVP_EncryptInit_ex(ctx, c, NULL, NULL, NULL);
        bits |= EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_IVLEN, 0, NULL) << 1;
        bits |= EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_IVLEN, 129, NULL) << 2;
        size_t n = 7;
        OSSL_PARAM p[2] = {OSSL_PARAM_construct_size_t(OSSL_CIPHER_PARAM_IVLEN, &n),
                           OSSL_PARAM_construct_end()};
        bits |= EVP_CIPHER_CTX_set_params(ctx, p) << 3;
        bits |= (EVP_CIPHER_CTX_get_iv_length(ctx) == 7) << 4;
        break;
    }
    case 3: /* tags: get before final, set when encrypting, get when decrypting */
        bits |= EVP_EncryptInit_ex(ctx, c, NULL, key, iv);
        bits |= EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, 16, tag) << 1;
        bits |= EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, 16, tag) << 2;
        bits |= EVP_EncryptFinal_ex(ctx, buf, &l) << 3;
        bits |= EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, 17, tag) << 4;
        bits |= EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, 4, tag) << 5;
        bits |= EVP_EncryptUpdate(ctx, buf, &l, buf, 16) << 6; /* IV spent */
        bits |= EVP_EncryptInit_ex(ctx, NULL, NULL, NULL, iv) << 7;
        bits |= EVP_EncryptUpdate(ctx, buf, &l, buf, 16) << 8;
        bits |= EVP_DecryptInit_ex(ctx, NULL, NULL, NULL, iv) << 9;
        bits |= EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, 16, tag) << 10;
        bits |= EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, 17, tag) << 11;
        bits |= EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, 0, tag) << 12;
        break;
    case 4: /* AAD after data, final twice */
        bits |= EVP_EncryptInit_ex(ctx, c, NULL, key, iv);
        bits |= EVP_EncryptUpdate(ctx, buf, &l, buf, 5) << 1;
        bits |= EVP_EncryptUpdate(ctx, NULL, &l, buf, 5) << 2;
        bits |= EVP_EncryptFinal_ex(ctx, buf, &l) << 3;
        bits |= EVP_EncryptFinal_ex(ctx, buf, &l) << 4;
        break;
    case 5: /* no IV at all (GCM encryption draws one, decryption fails) */
        bits |= EVP_EncryptInit_ex(ctx, c, NULL, key, NULL);
        bits |= EVP_EncryptUpdate(ctx, buf, &l, buf, 16) << 1;
        bits |= (l == 16) << 2;
        bits |= EVP_EncryptFinal_ex(ctx, buf + 16, &l) << 3;
        bits |= EVP_DecryptInit_ex(ctx, c, NULL, key, NULL) << 4;
        bits |= EVP_DecryptUpdate(ctx, buf, &l, buf, 16) << 5;
        bits |= EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_IVLEN, 8, NULL) << 6;
        bits |= EVP_EncryptInit_ex(ctx, c, NULL, key, NULL) << 7;
        bits |= EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_IVLEN, 8, NULL) << 8;
        bits |= EVP_EncryptUpdate(ctx, buf, &l, buf, 16) << 9;
        break;
    case 6: /* EVP_Cipher: whole blocks, the one-shot path */
        bits |= EVP_EncryptInit_ex(ctx, c, NULL, key, iv);
        bits |= (EVP_Cipher(ctx, buf, buf, 32) > 0) << 1;
        bits |= (EVP_Cipher(ctx, buf, buf, 0) >= 0) << 2;
        break;
    case 7: /* key-only and IV-only re-init continue as the default does
             * (GCM: after a final; mid-message the default goes on from a
             * zeroed state, which aesx refuses) */
        bits |= EVP_EncryptInit_ex(ctx, c, NULL, key, iv);
        bits |= EVP_EncryptUpdate(ctx, buf, &l, buf, 21) << 1;
        if (EVP_CIPHER_get_flags(c) & EVP_CIPH_FLAG_AEAD_CIPHER)
            bits |= EVP_EncryptFinal_ex(ctx, buf + 60, &l) << 7;
        bits |= EVP_EncryptInit_ex(ctx, NULL, NULL, key, NULL) << 2;
        bits |= EVP_EncryptUpdate(ctx, buf + 21, &l, buf, 16) << 3;
        if (!(bits & 8))
            memset(buf + 21, 0, 16);
        bits |= EVP_EncryptInit_ex(ctx, NULL, NULL, NULL, iv) << 4;
        bits |= EVP_EncryptUpdate(ctx, buf + 40, &l, buf + 3, 16) << 5;
        bits |= (int)(buf[21] ^ buf[30] ^ buf[40] ^ buf[55]) << 8;
        break;
    case 8: /* a key whose halves are equal (XTS: refused to encrypt only) */
        memset(key, 0x11, sizeof(key));
        bits |= EVP_EncryptInit_ex(ctx, c, NULL, key, iv);
        bits |= EVP_DecryptInit_ex(ctx, c, NULL, key, iv) << 1;
        bits |= EVP_DecryptUpdate(ctx, buf, &l, buf, 32) << 2;
        bits |= (int)buf[7] << 3;
        break;
    case 10: /* a decryption's final with no tag set; then with one */
        bits |= EVP_DecryptInit_ex(ctx, c, NULL, key, iv);
        bits |= EVP_DecryptUpdate(ctx, buf, &l, buf, 16) << 1;
        bits |= EVP_DecryptFinal_ex(ctx, buf + 16, &l) << 2;
        bits |= EVP_DecryptInit_ex(ctx, NULL, NULL, NULL, iv) << 3;
        bits |= EVP_DecryptUpdate(ctx, buf, &l, buf, 16) << 4;
        bits |= EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, 16, tag) << 5;
        bits |= EVP_DecryptFinal_ex(ctx, buf + 16, &l) << 6;
        break;
    case 9: /* XTS data units: shorter than a block, one block, empty */
        bits |= EVP_EncryptInit_ex(ctx, c, NULL, key, iv);
        bits |= EVP_EncryptUpdate(ctx, buf, &l, buf, 15) << 1;
        bits |= EVP_EncryptUpdate(ctx, buf, &l, buf, 16) << 2;
        bits |= (l == 16) << 3;
        bits |= EVP_EncryptUpdate(ctx, buf, &l, buf, 17) << 4;
        bits |= EVP_EncryptFinal_ex(ctx, buf, &l) << 5;
        bits |= (int)buf[16] << 6;
        break;
    }
    EVP_CIPHER_CTX_free(ctx);
    ERR_clear_error();
    return bits;
}

static void misuse(size_t ci)
{
    EVP_CIPHER *a = fetch(NAMES[ci], "aesx"), *d = fetch(NAMES[ci], "default");
    if (!a || !d)
        return;
    int aead = (EVP_CIPHER_get_flags(a) & EVP_CIPH_FLAG_AEAD_CIPHER) != 0;
    for (int w = 0; w < 11; w++) {
        if (!aead && ((w >= 2 && w <= 4) || w == 10))
            continue; /* AEAD calls (an AAD update with no output buffer) */
        if (w == 9 && EVP_CIPHER_get_mode(a) != EVP_CIPH_XTS_MODE)
            continue; /* XTS data units (for the block modes the same calls
                       * are in place with buffered data: unspecified) */
        int ba = misuse_seq(a, w), bd = misuse_seq(d, w);
        CHECK(ba == bd, "%s misuse %d: aesx %x, default %x", NAMES[ci], w, ba, bd);
    }
    EVP_CIPHER_free(a);
    EVP_CIPHER_free(d);
}

/* ---- 6. GCM's TLS 1.2 record path ------------------------------------- */

/* The 13-byte TLS 1.2 AAD of record `seq` declaring `len` bytes. */
static void tls_aad(unsigned char aad[13], unsigned seq, unsigned len)
{
    memset(aad, 0, 13);
    aad[7] = (unsigned char)seq;
    aad[8] = 23;
    aad[9] = 3;
    aad[10] = 3;
    aad[11] = (unsigned char)(len >> 8);
    aad[12] = (unsigned char)len;
}

/* One TLS record in place through `ctx`: the pad the AAD control answers
 * (or -1), and the update's result and output length. */
static void tls_record(EVP_CIPHER_CTX *ctx, unsigned seq, unsigned char *rec, int reclen,
                       int *pad, int *ok, int *outl)
{
    unsigned char aad[13];
    /* libssl declares the record without its tag when sealing */
    tls_aad(aad, seq, (unsigned)(reclen - (EVP_CIPHER_CTX_is_encrypting(ctx) ? 16 : 0)));
    *pad = EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_TLS1_AAD, 13, aad);
    *outl = -1;
    *ok = *pad > 0 ? EVP_CipherUpdate(ctx, rec, outl, rec, reclen) : -1;
}

static EVP_CIPHER_CTX *tls_ctx(EVP_CIPHER *c, const unsigned char *key, int enc,
                               const unsigned char *iv, int fixed)
{
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    if (!ctx || !EVP_CipherInit_ex(ctx, c, NULL, key, NULL, enc)
        || EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_IV_FIXED, fixed, (void *)iv) <= 0) {
        EVP_CIPHER_CTX_free(ctx);
        return NULL;
    }
    return ctx;
}

static const int TLS_LENS[] = {0, 1, 15, 16, 17, 100, 1000, 16384};
#define NTLS (sizeof(TLS_LENS) / sizeof(TLS_LENS[0]))

/* Records sealed by `e` (aesx or default, whole IV given: deterministic)
 * equal the other's and open under the other, with a 4-byte fixed IV as
 * libssl sets it; a forged record is refused by both. */
static void tls_records(size_t ci, EVP_CIPHER *a, EVP_CIPHER *d)
{
    static unsigned char ra[16384 + 24], rd[16384 + 24], pt[16384];
    unsigned char key[32], iv[12];
    fill(key, sizeof(key));
    fill(iv, sizeof(iv));
    EVP_CIPHER_CTX *ea = tls_ctx(a, key, 1, iv, -1), *ed = tls_ctx(d, key, 1, iv, -1);
    EVP_CIPHER_CTX *da = tls_ctx(a, key, 0, iv, 4), *dd = tls_ctx(d, key, 0, iv, 4);
    CHECK(ea && ed && da && dd, "%s: TLS contexts", NAMES[ci]);
    for (unsigned i = 0; ea && ed && da && dd && i < NTLS; i++) {
        int n = TLS_LENS[i], len = 8 + n + 16, pa, pd, oka, okd, la, ld;
        fill(pt, (size_t)n);
        memset(ra, 0, sizeof(ra));
        memcpy(ra + 8, pt, (size_t)n);
        memcpy(rd, ra, (size_t)len);
        tls_record(ea, i, ra, len, &pa, &oka, &la);
        tls_record(ed, i, rd, len, &pd, &okd, &ld);
        CHECK(pa == 16 && pd == 16 && oka == 1 && okd == 1 && la == len && ld == len,
              "%s: TLS seal of %d: pad %d/%d, ok %d/%d, outl %d/%d", NAMES[ci], n, pa, pd, oka,
              okd, la, ld);
        CHECK(memcmp(ra, rd, (size_t)len) == 0, "%s: TLS record of %d differs from the default's",
              NAMES[ci], n);
        /* each opens under the other provider */
        tls_record(dd, i, ra, len, &pd, &okd, &ld);
        tls_record(da, i, rd, len, &pa, &oka, &la);
        CHECK(oka == 1 && okd == 1 && la == n && ld == n && memcmp(ra + 8, pt, (size_t)n) == 0
                  && memcmp(rd + 8, pt, (size_t)n) == 0,
              "%s: TLS open of %d: ok %d/%d outl %d/%d", NAMES[ci], n, oka, okd, la, ld);
        /* a forged tag: refused by both (each side seals one more record,
         * so that their nonces stay in step) */
        memcpy(ra + 8, pt, (size_t)n);
        memcpy(rd, ra, (size_t)len);
        tls_record(ea, i + 100, ra, len, &pa, &oka, &la);
        tls_record(ed, i + 100, rd, len, &pd, &okd, &ld);
        ra[len - 1] ^= 1;
        rd[len - 1] ^= 1;
        tls_record(dd, i + 100, ra, len, &pd, &okd, &ld);
        tls_record(da, i + 100, rd, len, &pa, &oka, &la);
        CHECK(oka == 0 && okd == 0, "%s: forged TLS record of %d: aesx %d, default %d", NAMES[ci],
              n, oka, okd);
        ERR_clear_error();
    }
    EVP_CIPHER_CTX_free(ea);
    EVP_CIPHER_CTX_free(ed);
    EVP_CIPHER_CTX_free(da);
    EVP_CIPHER_CTX_free(dd);
    /* a fixed IV of 4 bytes with a random invocation field: aesx seals,
     * the default opens, and back */
    for (int dir = 0; dir < 2; dir++) {
        EVP_CIPHER_CTX *e = tls_ctx(dir ? d : a, key, 1, iv, 4);
        EVP_CIPHER_CTX *o = tls_ctx(dir ? a : d, key, 0, iv, 4);
        int pe, po, oke = 0, oko = 0, le, lo;
        for (unsigned seq = 0; e && o && seq < 3; seq++) {
            memset(ra, 0, 8 + 100 + 16);
            memcpy(ra + 8, pt, 100);
            tls_record(e, seq, ra, 124, &pe, &oke, &le);
            tls_record(o, seq, ra, 124, &po, &oko, &lo);
            CHECK(oke == 1 && oko == 1 && lo == 100 && memcmp(ra + 8, pt, 100) == 0,
                  "%s: random explicit nonce, %s sealing: %d %d", NAMES[ci],
                  dir ? "default" : "aesx", oke, oko);
        }
        EVP_CIPHER_CTX_free(e);
        EVP_CIPHER_CTX_free(o);
    }
}

/* The explicit nonce handed out (IV_GEN) and taken in (SET_IV_INV) around
 * an ordinary AEAD message: the same nonces, ciphertext and tag as the
 * default's. */
static void tls_ivgen(size_t ci, EVP_CIPHER *a, EVP_CIPHER *d)
{
    unsigned char key[32], iv[12], pt[50], ct[2][50], tag[2][16], nonce[2][3][8];
    fill(key, sizeof(key));
    fill(iv, sizeof(iv));
    fill(pt, sizeof(pt));
    for (int p = 0; p < 2; p++) {
        EVP_CIPHER_CTX *e = tls_ctx(p ? d : a, key, 1, iv, -1);
        int l = 0, ok = e != NULL;
        for (int k = 0; ok && k < 3; k++)
            ok = EVP_CIPHER_CTX_ctrl(e, EVP_CTRL_GCM_IV_GEN, 8, nonce[p][k]) > 0
                 && EVP_EncryptUpdate(e, NULL, &l, iv, 5)
                 && EVP_EncryptUpdate(e, ct[p], &l, pt, sizeof(pt))
                 && EVP_EncryptFinal_ex(e, ct[p] + l, &l)
                 && EVP_CIPHER_CTX_ctrl(e, EVP_CTRL_AEAD_GET_TAG, 16, tag[p]) > 0;
        CHECK(ok, "%s: IV_GEN messages (%s)", NAMES[ci], p ? "default" : "aesx");
        EVP_CIPHER_CTX_free(e);
    }
    CHECK(memcmp(nonce[0], nonce[1], sizeof(nonce[0])) == 0 && memcmp(ct[0], ct[1], 50) == 0
              && memcmp(tag[0], tag[1], 16) == 0,
          "%s: IV_GEN nonces, ciphertext or tag differ from the default's", NAMES[ci]);
    EVP_CIPHER_CTX *o = tls_ctx(a, key, 0, iv, 4);
    unsigned char back[50];
    int l = 0;
    int ok = o && EVP_CIPHER_CTX_ctrl(o, EVP_CTRL_GCM_SET_IV_INV, 8, nonce[1][2]) > 0
             && EVP_DecryptUpdate(o, NULL, &l, iv, 5) && EVP_DecryptUpdate(o, back, &l, ct[1], 50)
             && EVP_CIPHER_CTX_ctrl(o, EVP_CTRL_AEAD_SET_TAG, 16, tag[1]) > 0
             && EVP_DecryptFinal_ex(o, back + l, &l) && memcmp(back, pt, 50) == 0;
    CHECK(ok, "%s: SET_IV_INV message", NAMES[ci]);
    EVP_CIPHER_CTX_free(o);
    ERR_clear_error();
}

/* Misuse of the TLS path: what each step returns, as bits. */
static int tls_misuse_seq(EVP_CIPHER *c, int which)
{
    static const unsigned char key[32], iv[12];
    unsigned char aad[13], rec[64] = {0}, out[64];
    int bits = 0, l = 0;
    EVP_CIPHER_CTX *ctx = tls_ctx(c, key, which & 1, iv, 4);
    if (!ctx)
        return -1;
    switch (which >> 1) {
    case 0: /* an AAD of 12 bytes; one declaring less than the nonce */
        bits |= (EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_TLS1_AAD, 12, aad) > 0) << 0;
        tls_aad(aad, 0, 7);
        bits |= (EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_TLS1_AAD, 13, aad) > 0) << 1;
        tls_aad(aad, 0, 23); /* no room for a tag when decrypting */
        bits |= (EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_TLS1_AAD, 13, aad) > 0) << 2;
        break;
    case 1: /* a record not in place; then one shorter than nonce + tag */
        tls_aad(aad, 0, 40);
        bits |= (EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_TLS1_AAD, 13, aad) > 0) << 0;
        bits |= EVP_CipherUpdate(ctx, out, &l, rec, 40) << 1;
        tls_aad(aad, 0, 24);
        bits |= (EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_TLS1_AAD, 13, aad) > 0) << 2;
        bits |= EVP_CipherUpdate(ctx, rec, &l, rec, 23) << 3;
        break;
    case 2: /* fixed IVs of 3 and 9 bytes; IV_GEN / SET_IV_INV by the wrong side */
        bits |= (EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_IV_FIXED, 3, (void *)iv) > 0) << 0;
        bits |= (EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_IV_FIXED, 9, (void *)iv) > 0) << 1;
        bits |= (EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_IV_INV, 8, rec) > 0) << 2;
        break;
    default: /* a record announced, then a final */
        tls_aad(aad, 0, 40);
        bits |= (EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_TLS1_AAD, 13, aad) > 0) << 0;
        bits |= EVP_CipherFinal_ex(ctx, out, &l) << 1;
        break;
    }
    EVP_CIPHER_CTX_free(ctx);
    ERR_clear_error();
    return bits;
}


/* One record through a block-mode context set up as libssl does it
 * (tls-version, tls-mac-size): result, output length and MAC. */
typedef struct {
    int ok, outl;
    unsigned char mac[64];
} tls_out;

static tls_out tls_block_record(EVP_CIPHER *c, int enc, unsigned version, size_t macsize,
                                unsigned char *rec, int inl)
{
    static const unsigned char key[32] = {7}, iv[16] = {9};
    tls_out r = {0, -1, {0}};
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    OSSL_PARAM p[3] = {OSSL_PARAM_construct_uint(OSSL_CIPHER_PARAM_TLS_VERSION, &version),
                       OSSL_PARAM_construct_size_t(OSSL_CIPHER_PARAM_TLS_MAC_SIZE, &macsize),
                       OSSL_PARAM_construct_end()};
    if (!ctx || !EVP_CipherInit_ex2(ctx, c, key, iv, enc, p)) {
        EVP_CIPHER_CTX_free(ctx);
        return r;
    }
    r.ok = EVP_CipherUpdate(ctx, rec, &r.outl, rec, inl);
    unsigned char *mac = NULL;
    OSSL_PARAM g[2] = {OSSL_PARAM_construct_octet_ptr(OSSL_CIPHER_PARAM_TLS_MAC, (void **)&mac,
                                                      macsize),
                       OSSL_PARAM_construct_end()};
    if (r.ok && !enc && macsize && EVP_CIPHER_CTX_get_params(ctx, g) && mac)
        memcpy(r.mac, mac, macsize < 64 ? macsize : 64);
    EVP_CIPHER_CTX_free(ctx);
    ERR_clear_error();
    return r;
}

/* The generic ciphers' TLS record path (CBC suites of TLS 1.0-1.2, SSLv3):
 * records sealed equal to the default's, opened to the same payload and
 * MAC; a bad padding: the same length and a MAC that is not the record's
 * (random), or refused alike when there is no MAC (encrypt-then-MAC). */
static void tls_block(size_t ci, EVP_CIPHER *a, EVP_CIPHER *d)
{
    static const unsigned versions[] = {0x0300, 0x0301, 0x0302, 0x0303, 0xfefd};
    static const size_t macs[] = {0, 20, 32, 48};
    static unsigned char ra[2048], rd[2048], plain[2048], ct[2048];
    int mode = EVP_CIPHER_get_mode(a);
    for (size_t v = 0; v < sizeof(versions) / sizeof(versions[0]); v++)
        for (size_t m = 0; m < sizeof(macs) / sizeof(macs[0]); m++)
            for (int len = 16; len < 700; len += 77) {
                int inl = len + (int)macs[m];
                fill(plain, (size_t)inl);
                memcpy(ra, plain, (size_t)inl);
                memcpy(rd, plain, (size_t)inl);
                tls_out ea = tls_block_record(a, 1, versions[v], macs[m], ra, inl);
                tls_out ed = tls_block_record(d, 1, versions[v], macs[m], rd, inl);
                CHECK(ea.ok == ed.ok && ea.outl == ed.outl
                          && (!ea.ok || memcmp(ra, rd, (size_t)ea.outl) == 0),
                      "%s TLS %x mac %zu len %d seal: aesx %d/%d, default %d/%d", NAMES[ci],
                      versions[v], macs[m], len, ea.ok, ea.outl, ed.ok, ed.outl);
                if (!ed.ok)
                    continue;
                int n = ed.outl;
                memcpy(ct, rd, (size_t)n);
                for (int bad = 0; bad < 2; bad++) {
                    memcpy(ra, ct, (size_t)n);
                    if (bad && mode == EVP_CIPH_CBC_MODE)
                        ra[n - 17] ^= 0x80; /* the padding byte (<= 15), through CBC */
                    memcpy(rd, ra, (size_t)n);
                    tls_out da = tls_block_record(a, 0, versions[v], macs[m], ra, n);
                    tls_out dd = tls_block_record(d, 0, versions[v], macs[m], rd, n);
                    int ok = da.ok == dd.ok && da.outl == dd.outl;
                    if (ok && da.ok && !bad) {
                        int skip = mode != EVP_CIPH_CTR_MODE && versions[v] >= 0x0302 ? 16 : 0;
                        ok = memcmp(ra + skip, rd + skip, (size_t)da.outl) == 0
                             && memcmp(da.mac, dd.mac, macs[m]) == 0;
                    }
                    if (ok && da.ok && bad && macs[m] && mode == EVP_CIPH_CBC_MODE)
                        ok = memcmp(da.mac, dd.mac, macs[m]) != 0; /* both random */
                    CHECK(ok, "%s TLS %x mac %zu len %d open%s: aesx %d/%d, default %d/%d",
                          NAMES[ci], versions[v], macs[m], len, bad ? " (bad padding)" : "",
                          da.ok, da.outl, dd.ok, dd.outl);
                }
            }
}

static void tls_path(size_t ci)
{
    EVP_CIPHER *a = fetch(NAMES[ci], "aesx"), *d = fetch(NAMES[ci], "default");
    int mode = a ? EVP_CIPHER_get_mode(a) : 0;
    if (a && d && (mode == EVP_CIPH_CBC_MODE || mode == EVP_CIPH_ECB_MODE || mode == EVP_CIPH_CTR_MODE))
        tls_block(ci, a, d);
    if (a && d && mode == EVP_CIPH_GCM_MODE) {
        tls_records(ci, a, d);
        tls_ivgen(ci, a, d);
        for (int w = 0; w < 8; w++) {
            int ba = tls_misuse_seq(a, w), bd = tls_misuse_seq(d, w);
            CHECK(ba == bd, "%s TLS misuse %d: aesx %x, default %x", NAMES[ci], w, ba, bd);
        }
    }
    EVP_CIPHER_free(a);
    EVP_CIPHER_free(d);
}

/* ---- 7. CCM and key wrap against the default provider ---------------- */

/* One CCM message as OpenSSL's CCM wants it: nonce length and tag length
 * first, the key and nonce, the message length, the AAD, the data. The
 * result of each step as bits; the output and tag in `out` and `tag`. */
static int ccm_run(EVP_CIPHER *c, int enc, const unsigned char *key, const unsigned char *nonce,
                   int nl, int tl, const unsigned char *aad, int al, const unsigned char *in,
                   int inl, unsigned char *out, unsigned char *tag)
{
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    int l = 0, bits = 0;
    bits |= EVP_CipherInit_ex(ctx, c, NULL, NULL, NULL, enc) << 0;
    bits |= (EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_IVLEN, nl, NULL) > 0) << 1;
    bits |= (EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, tl, enc ? NULL : tag) > 0) << 2;
    bits |= EVP_CipherInit_ex(ctx, NULL, NULL, key, nonce, enc) << 3;
    bits |= EVP_CipherUpdate(ctx, NULL, &l, NULL, inl) << 4;
    bits |= EVP_CipherUpdate(ctx, NULL, &l, aad, al) << 5;
    bits |= EVP_CipherUpdate(ctx, out, &l, in, inl) << 6;
    bits |= EVP_CipherFinal_ex(ctx, out + inl, &l) << 7;
    if (enc)
        bits |= (EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, tl, tag) > 0) << 8;
    EVP_CIPHER_CTX_free(ctx);
    ERR_clear_error();
    return bits;
}

static void ccm_differential(size_t ci, EVP_CIPHER *a, EVP_CIPHER *d)
{
    unsigned char key[32], nonce[13], aad[64], pt[300], ca[300], cd[300], ua[300], ud[300];
    unsigned char ta[16], td[16];
    for (int k = 0; k < 200; k++) {
        int nl = 7 + (int)(rnd() % 7), tl = 4 + 2 * (int)(rnd() % 7);
        int al = (int)(rnd() % 65), inl = (int)(rnd() % 300);
        fill(key, sizeof(key));
        fill(nonce, sizeof(nonce));
        fill(aad, sizeof(aad));
        fill(pt, sizeof(pt));
        int ba = ccm_run(a, 1, key, nonce, nl, tl, aad, al, pt, inl, ca, ta);
        int bd = ccm_run(d, 1, key, nonce, nl, tl, aad, al, pt, inl, cd, td);
        CHECK(ba == bd && memcmp(ca, cd, (size_t)inl) == 0 && memcmp(ta, td, (size_t)tl) == 0,
              "%s: nonce %d tag %d aad %d len %d: aesx %x, default %x or output differs",
              NAMES[ci], nl, tl, al, inl, ba, bd);
        /* each opens the other's; a forged tag fails alike */
        int oa = ccm_run(a, 0, key, nonce, nl, tl, aad, al, cd, inl, ua, td);
        int od = ccm_run(d, 0, key, nonce, nl, tl, aad, al, ca, inl, ud, ta);
        CHECK(oa == od && oa == 0xff && memcmp(ua, pt, (size_t)inl) == 0
                  && memcmp(ud, pt, (size_t)inl) == 0,
              "%s: open: aesx %x, default %x", NAMES[ci], oa, od);
        ta[0] ^= 1;
        oa = ccm_run(a, 0, key, nonce, nl, tl, aad, al, cd, inl, ua, ta);
        od = ccm_run(d, 0, key, nonce, nl, tl, aad, al, cd, inl, ud, ta);
        CHECK(oa == od && !(oa & 0x40), "%s: forged tag: aesx %x, default %x", NAMES[ci], oa, od);
    }
    /* nonce and tag lengths in and out of range */
    for (int nl = 5; nl <= 15; nl++)
        for (int tl = 2; tl <= 18; tl++) {
            int ba = ccm_run(a, 1, key, nonce, nl, tl, aad, 5, pt, 20, ca, ta);
            int bd = ccm_run(d, 1, key, nonce, nl, tl, aad, 5, pt, 20, cd, td);
            CHECK(ba == bd, "%s: nonce %d tag %d: aesx %x, default %x", NAMES[ci], nl, tl, ba, bd);
        }
}

/* Key wrap: equal outputs for every input length 1..80 (and what the
 * default refuses, refused), each unwrapping the other's, a corrupted
 * one refused by both; with and without an IV. */
static int wrap_run(EVP_CIPHER *c, int enc, const unsigned char *key, const unsigned char *iv,
                    const unsigned char *in, int inl, unsigned char *out, int *outl)
{
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    int l = 0, bits = 0;
    EVP_CIPHER_CTX_set_flags(ctx, EVP_CIPHER_CTX_FLAG_WRAP_ALLOW);
    bits |= EVP_CipherInit_ex(ctx, c, NULL, key, iv, enc) << 0;
    bits |= EVP_CipherUpdate(ctx, out, &l, in, inl) << 1;
    *outl = l;
    bits |= EVP_CipherFinal_ex(ctx, out + l, &l) << 2;
    EVP_CIPHER_CTX_free(ctx);
    ERR_clear_error();
    return bits;
}

static void wrap_differential(size_t ci, EVP_CIPHER *a, EVP_CIPHER *d)
{
    unsigned char key[32], iv[8], pt[80], wa[104], wd[104], ua[104], ud[104];
    fill(key, sizeof(key));
    fill(iv, sizeof(iv));
    for (int with_iv = 0; with_iv < 2; with_iv++)
        for (int n = 1; n <= 80; n++) {
            int la = 0, ld = 0;
            fill(pt, (size_t)n);
            const unsigned char *v = with_iv ? iv : NULL;
            int ba = wrap_run(a, 1, key, v, pt, n, wa, &la);
            int bd = wrap_run(d, 1, key, v, pt, n, wd, &ld);
            CHECK(ba == bd && la == ld && memcmp(wa, wd, (size_t)la) == 0,
                  "%s: wrap %d bytes: aesx %x/%d, default %x/%d", NAMES[ci], n, ba, la, bd, ld);
            if (bd != 7)
                continue;
            ba = wrap_run(a, 0, key, v, wd, ld, ua, &la);
            bd = wrap_run(d, 0, key, v, wa, ld, ud, &ld);
            CHECK(ba == 7 && bd == 7 && la == n && memcmp(ua, pt, (size_t)n) == 0,
                  "%s: unwrap %d bytes: aesx %x/%d, default %x", NAMES[ci], n, ba, la, bd);
            wd[n % 8] ^= 0x10;
            ba = wrap_run(a, 0, key, v, wd, ld, ua, &la);
            bd = wrap_run(d, 0, key, v, wd, ld, ud, &ld);
            CHECK(ba == bd && !(ba & 2), "%s: corrupted %d: aesx %x, default %x", NAMES[ci], n,
                  ba, bd);
        }
}

static void ccm_wrap(size_t ci)
{
    EVP_CIPHER *a = fetch(NAMES[ci], "aesx"), *d = fetch(NAMES[ci], "default");
    int mode = a ? EVP_CIPHER_get_mode(a) : 0;
    if (a && d && mode == EVP_CIPH_CCM_MODE)
        ccm_differential(ci, a, d);
    if (a && d && mode == EVP_CIPH_WRAP_MODE)
        wrap_differential(ci, a, d);
    EVP_CIPHER_free(a);
    EVP_CIPHER_free(d);
}

/* ---- 7b. AES-GCM-SIV ------------------------------------------------ */

/* One GCM-SIV message: AAD in two updates, the message in one, in place
 * or not, the context duplicated after the AAD when `dup`; `tag` is read
 * (encryption) or set first (decryption). Returns the failing step (0: none;
 * 5 AAD, 6 message, 7 final, 8 tag get, 9 second message refused). */
static int siv_run(EVP_CIPHER *c, int enc, const unsigned char *key, const unsigned char *nonce,
                   const unsigned char *aad, int aadl, const unsigned char *in, int inl,
                   unsigned char *out, unsigned char *tag, int inplace, int dup)
{
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    int l, step = 1;
    if (!EVP_CipherInit_ex(ctx, c, NULL, NULL, NULL, enc))
        goto done;
    step = 3;
    if (!enc && !EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, 16, tag))
        goto done;
    step = 4;
    if (!EVP_CipherInit_ex(ctx, NULL, NULL, key, nonce, enc))
        goto done;
    step = 5;
    if (!EVP_CipherUpdate(ctx, NULL, &l, aad, aadl / 2)
        || !EVP_CipherUpdate(ctx, NULL, &l, aad + aadl / 2, aadl - aadl / 2))
        goto done;
    if (dup) {
        EVP_CIPHER_CTX *d = EVP_CIPHER_CTX_new();
        step = 9;
        if (!EVP_CIPHER_CTX_copy(d, ctx)) {
            EVP_CIPHER_CTX_free(d);
            goto done;
        }
        EVP_CIPHER_CTX_free(ctx);
        ctx = d;
    }
    step = 6;
    if (inplace)
        memmove(out, in, (size_t)inl);
    if (!EVP_CipherUpdate(ctx, out, &l, inplace ? out : in, inl) || l != inl)
        goto done;
    step = 7;
    if (!EVP_CipherFinal_ex(ctx, out + inl, &l) || l != 0)
        goto done;
    step = 8;
    if (enc && !EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, 16, tag))
        goto done;
    step = 9;
    unsigned char scratch[16];
    if (EVP_CipherUpdate(ctx, scratch, &l, in, inl < 16 ? inl : 16))
        goto done; /* one message per init */
    step = 0;
done:
    EVP_CIPHER_CTX_free(ctx);
    ERR_clear_error();
    return step;
}

/* Random keys, nonces, AAD and lengths: aesx's message and tag equal the
 * default provider's where it has GCM-SIV; every message opens, in place
 * and not, through a duplicated context; a flipped tag bit fails the final
 * and releases no plaintext. */
static void gcm_siv(size_t i)
{
    EVP_CIPHER *a = fetch(SIV_NAMES[i], "aesx"), *d = fetch(SIV_NAMES[i], "default");
    CHECK(a != NULL, "fetch %s", SIV_NAMES[i]);
    if (!a)
        return;
    static unsigned char key[32], nonce[12], aad[300], pt[5000], ct[5016], ctd[5016], back[5016];
    int keyl = EVP_CIPHER_get_key_length(a), cases = 0;
    for (int k = 0; k < 150; k++) {
        int len = k < 100 ? k : (int)(rnd() % 5000), aadl = (int)(rnd() % 300);
        int inplace = k & 1, dup = (k >> 1) & 1;
        unsigned char tag[16], tagd[16];
        fill(key, (size_t)keyl), fill(nonce, 12), fill(aad, (size_t)aadl), fill(pt, (size_t)len);
        int s = siv_run(a, 1, key, nonce, aad, aadl, pt, len, ct, tag, inplace, dup);
        CHECK(s == 0, "%s: seal %d bytes (aad %d): step %d", SIV_NAMES[i], len, aadl, s);
        if (d) {
            int sd = siv_run(d, 1, key, nonce, aad, aadl, pt, len, ctd, tagd, 0, 0);
            CHECK(sd == 0 && memcmp(ct, ctd, (size_t)len) == 0 && memcmp(tag, tagd, 16) == 0,
                  "%s: %d bytes (aad %d) differ from the default's", SIV_NAMES[i], len, aadl);
        }
        s = siv_run(a, 0, key, nonce, aad, aadl, ct, len, back, tag, !inplace, dup);
        CHECK(s == 0 && memcmp(back, pt, (size_t)len) == 0, "%s: open %d bytes: step %d",
              SIV_NAMES[i], len, s);
        tag[rnd() % 16] ^= (unsigned char)(1u << (rnd() % 8));
        memset(back, 0x5a, (size_t)len);
        s = siv_run(a, 0, key, nonce, aad, aadl, ct, len, back, tag, 0, 0);
        int zeroed = 1;
        for (int b = 0; b < len; b++)
            zeroed &= back[b] == 0;
        CHECK(s == 7 && zeroed, "%s: forged %d bytes: step %d, plaintext %s", SIV_NAMES[i],
              len, s, zeroed ? "withheld" : "released");
        if (d) {
            int sd = siv_run(d, 0, key, nonce, aad, aadl, ct, len, back, tag, 0, 0);
            CHECK(sd == 7, "%s: default on the forgery: step %d", SIV_NAMES[i], sd);
        }
        cases++;
    }
    printf("gcm-siv %s: %d messages%s\n", SIV_NAMES[i], cases,
           d ? ", equal to the default provider's" : " (the default provider has no GCM-SIV)");
    EVP_CIPHER_free(a);
    EVP_CIPHER_free(d);
}

/* ---- 7c. CMAC through the MAC interface ----------------------------- */

/* CMAC of `msg` in the pieces `cuts` makes (ascending, < len), the context
 * duplicated after the first when `dup`; writes the tag, returns 1 on
 * success. */
static int cmac_run(const char *prov, const char *cipher, const unsigned char *key, size_t keyl,
                    const unsigned char *msg, size_t len, const size_t *cuts, int ncuts, int dup,
                    unsigned char tag[16])
{
    char q[64];
    snprintf(q, sizeof(q), "provider=%s", prov);
    EVP_MAC *m = EVP_MAC_fetch(lib, "CMAC", q);
    EVP_MAC_CTX *c = m ? EVP_MAC_CTX_new(m) : NULL;
    int ok = 0;
    size_t outl = 0, pos = 0;
    OSSL_PARAM p[2] = {OSSL_PARAM_construct_utf8_string("cipher", (char *)cipher, 0),
                       OSSL_PARAM_construct_end()};
    if (!c || !EVP_MAC_init(c, key, keyl, p))
        goto done;
    for (int k = 0; k <= ncuts; k++) {
        size_t end = k < ncuts ? cuts[k] : len;
        if (!EVP_MAC_update(c, msg + pos, end - pos))
            goto done;
        pos = end;
        if (dup && k == 0) {
            EVP_MAC_CTX *d = EVP_MAC_CTX_dup(c);
            if (!d)
                goto done;
            EVP_MAC_CTX_free(c);
            c = d;
        }
    }
    ok = EVP_MAC_final(c, tag, &outl, 16) && outl == 16 && EVP_MAC_CTX_get_mac_size(c) == 16;
done:
    EVP_MAC_CTX_free(c);
    EVP_MAC_free(m);
    ERR_clear_error();
    return ok;
}

/* aesx's CMAC against the default provider's: random keys, lengths 0..300
 * and a few large, split at random points, duplicated mid-message; a key
 * of the wrong length refused by both; an init without a key restarts the
 * message under the last one. */
static void cmac(void)
{
    static const char *cbc[3] = {"AES-128-CBC", "AES-192-CBC", "AES-256-CBC"};
    static unsigned char key[32], msg[70000];
    unsigned char ta[16], td[16];
    int cases = 0;
    for (int ks = 0; ks < 3; ks++) {
        size_t keyl = 16 + 8 * (size_t)ks;
        for (int k = 0; k < 320; k++) {
            size_t len = k < 300 ? (size_t)k : (size_t)(rnd() % sizeof(msg));
            size_t cuts[3];
            int ncuts = len ? (int)(rnd() % 4) : 0;
            for (int c = 0; c < ncuts; c++)
                cuts[c] = (size_t)(rnd() % len);
            for (int a = 0; a < ncuts; a++) /* ascending */
                for (int b = a + 1; b < ncuts; b++)
                    if (cuts[b] < cuts[a]) {
                        size_t t = cuts[a];
                        cuts[a] = cuts[b];
                        cuts[b] = t;
                    }
            fill(key, keyl), fill(msg, len);
            int oa = cmac_run("aesx", cbc[ks], key, keyl, msg, len, cuts, ncuts, k & 1, ta);
            int od = cmac_run("default", cbc[ks], key, keyl, msg, len, NULL, 0, 0, td);
            CHECK(oa && od && memcmp(ta, td, 16) == 0, "CMAC %s: %zu bytes, %d cuts: %d %d",
                  cbc[ks], len, ncuts, oa, od);
            cases++;
        }
        int oa = cmac_run("aesx", cbc[ks], key, keyl - 1, msg, 5, NULL, 0, 0, ta);
        int od = cmac_run("default", cbc[ks], key, keyl - 1, msg, 5, NULL, 0, 0, td);
        CHECK(oa == od && !oa, "CMAC %s: short key %d %d", cbc[ks], oa, od);
    }
    /* init without a key: a new message under the same key */
    EVP_MAC *m = EVP_MAC_fetch(lib, "CMAC", "provider=aesx");
    EVP_MAC_CTX *c = m ? EVP_MAC_CTX_new(m) : NULL;
    OSSL_PARAM p[2] = {OSSL_PARAM_construct_utf8_string("cipher", "AES-128-CBC", 0),
                       OSSL_PARAM_construct_end()};
    size_t outl;
    fill(key, 16), fill(msg, 40);
    CHECK(c && EVP_MAC_init(c, key, 16, p) && EVP_MAC_update(c, msg, 7)
              && EVP_MAC_init(c, NULL, 0, NULL) && EVP_MAC_update(c, msg, 40)
              && EVP_MAC_final(c, ta, &outl, 16),
          "CMAC restart");
    cmac_run("default", "AES-128-CBC", key, 16, msg, 40, NULL, 0, 0, td);
    CHECK(memcmp(ta, td, 16) == 0, "CMAC restart: tag of the second message");
    EVP_MAC_CTX_free(c);
    EVP_MAC_free(m);
    ERR_clear_error();
    printf("cmac: %d messages equal to the default provider's\n", cases);
}

/* ---- 8. threads ------------------------------------------------------- */

/* Eight threads, each with its own contexts duplicated from one keyed
 * template per cipher (the shared key), encrypt random messages and check
 * them against the default provider's output and a decryption; the
 * counter must take in every thread's bytes once they have ended. */

#define THREADS 8
static EVP_CIPHER_CTX *templ[3];
static EVP_CIPHER *tdef[3];
static const char *TNAMES[3] = {"AES-256-GCM", "AES-128-CTR", "AES-256-CBC"};
static unsigned char tkey[32], tiv[16];
static long thread_failures[THREADS];
static uint64_t thread_bytes[THREADS];

static void *stress(void *arg)
{
    long id = (long)(intptr_t)arg;
    uint64_t st = 0x1234567ULL * (uint64_t)(id + 1);
    static __thread unsigned char pt[4096], ca[4096 + 32], cd[4096 + 32], back[4096 + 32];
    for (int k = 0; k < 3000; k++) {
        int which = k % 3, len = 1 + (int)((st = st * 6364136223846793005ULL + 1) >> 52);
        for (int i = 0; i < len; i++)
            pt[i] = (unsigned char)((st >> (i % 56)) ^ (uint64_t)i);
        EVP_CIPHER_CTX *a = EVP_CIPHER_CTX_new(), *d = EVP_CIPHER_CTX_new();
        int la = 0, ld = 0, l = 0, ok = a && d && EVP_CIPHER_CTX_copy(a, templ[which])
                                        && EVP_EncryptInit_ex(a, NULL, NULL, NULL, tiv)
                                        && EVP_EncryptInit_ex(d, tdef[which], NULL, tkey, tiv);
        ok = ok && EVP_EncryptUpdate(a, ca, &la, pt, len) && EVP_EncryptFinal_ex(a, ca + la, &l);
        la += l;
        ok = ok && EVP_EncryptUpdate(d, cd, &ld, pt, len) && EVP_EncryptFinal_ex(d, cd + ld, &l);
        ld += l;
        unsigned char ta[16] = {0}, td[16] = {1};
        if (ok && which == 0)
            ok = EVP_CIPHER_CTX_ctrl(a, EVP_CTRL_AEAD_GET_TAG, 16, ta) > 0
                 && EVP_CIPHER_CTX_ctrl(d, EVP_CTRL_AEAD_GET_TAG, 16, td) > 0
                 && memcmp(ta, td, 16) == 0;
        ok = ok && la == ld && memcmp(ca, cd, (size_t)la) == 0;
        /* and back through another duplicate of the template */
        int lb = 0;
        EVP_CIPHER_CTX *b = EVP_CIPHER_CTX_new();
        ok = ok && b && EVP_CIPHER_CTX_copy(b, templ[which])
             && EVP_DecryptInit_ex(b, NULL, NULL, NULL, tiv)
             && EVP_DecryptUpdate(b, back, &lb, ca, la)
             && (which != 0 || EVP_CIPHER_CTX_ctrl(b, EVP_CTRL_AEAD_SET_TAG, 16, ta) > 0)
             && EVP_DecryptFinal_ex(b, back + lb, &l) && lb + l == len
             && memcmp(back, pt, (size_t)len) == 0;
        if (!ok)
            thread_failures[id]++;
        thread_bytes[id] += 2 * (uint64_t)len;
        EVP_CIPHER_CTX_free(a);
        EVP_CIPHER_CTX_free(b);
        EVP_CIPHER_CTX_free(d);
    }
    ERR_clear_error();
    return NULL;
}

static void threads(void)
{
    fill(tkey, sizeof(tkey));
    fill(tiv, sizeof(tiv));
    for (int w = 0; w < 3; w++) {
        EVP_CIPHER *c = fetch(TNAMES[w], "aesx");
        tdef[w] = fetch(TNAMES[w], "default");
        templ[w] = EVP_CIPHER_CTX_new();
        CHECK(c && tdef[w] && templ[w] && EVP_EncryptInit_ex(templ[w], c, NULL, tkey, NULL),
              "thread template %s", TNAMES[w]);
        EVP_CIPHER_free(c);
    }
    uint64_t before = aesx_bytes();
    pthread_t t[THREADS];
    for (long i = 0; i < THREADS; i++)
        CHECK(pthread_create(&t[i], NULL, stress, (void *)(intptr_t)i) == 0, "pthread_create");
    uint64_t total = 0;
    for (int i = 0; i < THREADS; i++) {
        pthread_join(t[i], NULL);
        CHECK(thread_failures[i] == 0, "thread %d: %ld failed messages", i, thread_failures[i]);
        total += thread_bytes[i];
    }
    uint64_t after = aesx_bytes();
    CHECK(after - before >= total, "aesx-bytes %llu after %d threads did %llu",
          (unsigned long long)(after - before), THREADS, (unsigned long long)total);
    printf("threads: %d x 3000 messages on duplicated contexts, %llu bytes, aesx-bytes +%llu\n",
           THREADS, (unsigned long long)total, (unsigned long long)(after - before));
    for (int w = 0; w < 3; w++) {
        EVP_CIPHER_CTX_free(templ[w]);
        EVP_CIPHER_free(tdef[w]);
    }
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc < 3) {
        fprintf(stderr, "usage: %s PROVIDER_DIR EVP_TEST_FILE...\n", argv[0]);
        return 2;
    }
    lib = OSSL_LIB_CTX_new();
    if (!lib || !OSSL_PROVIDER_set_default_search_path(lib, argv[1])) {
        fprintf(stderr, "cannot set up a library context\n");
        return 2;
    }
    prov_aesx = OSSL_PROVIDER_load(lib, "aesx");
    prov_default = OSSL_PROVIDER_load(lib, "default");
    if (!prov_aesx || !prov_default) {
        ERR_print_errors_fp(stderr);
        fprintf(stderr, "cannot load the providers from %s\n", argv[1]);
        return 2;
    }
    if (getenv("HARNESS_THREADS_ONLY")) {
        /* The thread run alone, for a race detector (tsan.sh). */
        threads();
        printf("%ld checks, %ld failures\n", checks, failures);
        return failures ? 1 : 0;
    }
    check_provider();
    check_descriptions();
    uint64_t b0 = aesx_bytes();
    for (int f = 2; f < argc; f++)
        run_evp_file(argv[f]);
    CHECK(evp_ran > 300, "only %d cases ran", evp_ran);
    CHECK(evp_expected_failures >= 6, "only %d expected failures", evp_expected_failures);
    uint64_t b1 = aesx_bytes();
    CHECK(b1 > b0, "aesx-bytes did not move over the test data (%llu)", (unsigned long long)b1);
    for (size_t i = 0; i < NSTREAM; i++)
        differential(i);
    for (size_t i = 0; i < NSTREAM; i++)
        misuse(i);
    for (size_t i = 0; i < NCIPHERS; i++)
        tls_path(i);
    for (size_t i = NSTREAM; i < NCIPHERS; i++)
        ccm_wrap(i);
    for (size_t i = 0; i < NSIV; i++)
        gcm_siv(i);
    cmac();
    threads();
    uint64_t b2 = aesx_bytes();
    CHECK(b2 > b1 + 12 * (1 << 20), "aesx-bytes %llu -> %llu", (unsigned long long)b1,
          (unsigned long long)b2);
    printf("aesx-bytes: %llu\n", (unsigned long long)b2);
    printf("%ld checks, %ld failures\n", checks, failures);
    OSSL_PROVIDER_unload(prov_aesx);
    OSSL_PROVIDER_unload(prov_default);
    OSSL_LIB_CTX_free(lib);
    return failures ? 1 : 0;
}
