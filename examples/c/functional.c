/*
 * functional: AArch64cryptolib's functional test file through libaesx.
 *
 *   ./functional vectors/aarch64cryptolib/SL_functional_tests.rsp
 *
 * Each record (AES-GCM with a 96-bit IV; most carry CS, the 64-bit
 * one's-complement checksum of the plaintext) is checked on every backend
 * this machine has:
 *
 *  - GCM: aesx_gcm_seal (detached tag) must give CT and Tag,
 *    aesx_gcm_open_append on CT || Tag must give PT, and a flipped tag bit
 *    must fail with AESX_ERR_AUTH_FAILED and a zeroed output; CS, where
 *    present, is checked with aesx_ones_complement_checksum.
 *  - ESP (records whose AAD is an ESP header of 8 or 12 bytes): the same key
 *    as an RFC 4106 context with salt = IV[0..4) and packet IV = IV[4..12):
 *    aesx_esp_seal must give CT, Tag and CS, aesx_esp_open (in place) PT and
 *    CS, and a forged tag must fail and zero the packet.
 *
 * The bracketed headers are authoritative for the lengths (in bits): five
 * PT lines of the file carry one hex digit more than their PTlen says, and
 * only the first PTlen/4 digits belong to the record.
 *
 * The last line is "N passed, M failed"; the exit status is 0 only if
 * every record passed.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aesx.h"

#define MAX_FIELD 8192 /* bytes: the largest record is 2048 bytes */

struct field {
    int present;
    size_t len; /* bytes */
    uint8_t *data;
};

struct record {
    long line;
    size_t keylen, ivlen, ptlen, aadlen, taglen; /* header lengths, bits */
    struct field key, iv, pt, cs, aad, ct, tag;
};

static int hexval(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* Decodes the first `bits / 4` hex digits of `hex` into f. */
static int decode(struct field *f, const char *hex, size_t bits, long line)
{
    size_t n = bits / 8, i;
    if (bits % 8 != 0 || n > MAX_FIELD) {
        fprintf(stderr, "line %ld: unsupported length %zu bits\n", line, bits);
        return -1;
    }
    if (bits == 0) { /* written as "0" */
        f->present = 1;
        f->len = 0;
        return 0;
    }
    for (i = 0; i < n; i++) {
        int hi = hexval((unsigned char)hex[2 * i]), lo;
        lo = hi < 0 ? -1 : hexval((unsigned char)hex[2 * i + 1]);
        if (hi < 0 || lo < 0) {
            fprintf(stderr, "line %ld: fewer hex digits than the header's %zu bits\n", line,
                    bits);
            return -1;
        }
        f->data[i] = (uint8_t)(hi << 4 | lo);
    }
    f->present = 1;
    f->len = n;
    return 0;
}

static void hex(FILE *to, const uint8_t *p, size_t n)
{
    size_t i;
    for (i = 0; i < n && i < 32; i++)
        fprintf(to, "%02x", p[i]);
    if (n > 32)
        fprintf(to, "...");
}

static int all_zero(const uint8_t *p, size_t n)
{
    size_t i;
    uint8_t acc = 0;
    for (i = 0; i < n; i++)
        acc |= p[i];
    return acc == 0;
}

static void le64(uint8_t out[8], uint64_t v)
{
    int i;
    for (i = 0; i < 8; i++)
        out[i] = (uint8_t)(v >> (8 * i));
}

static int expect(int ok, const struct record *r, const char *backend, const char *what)
{
    if (!ok)
        fprintf(stderr, "record at line %ld, backend %s: %s\n", r->line, backend, what);
    return ok;
}

static int expect_bytes(const uint8_t *got, const struct field *want, const struct record *r,
                        const char *backend, const char *what)
{
    if (memcmp(got, want->data, want->len) == 0)
        return 1;
    fprintf(stderr, "record at line %ld, backend %s: %s differs\n  got  ", r->line, backend,
            what);
    hex(stderr, got, want->len);
    fprintf(stderr, "\n  want ");
    hex(stderr, want->data, want->len);
    fprintf(stderr, "\n");
    return 0;
}

static int expect_rc(int rc, int want, const struct record *r, const char *backend,
                     const char *call)
{
    if (rc == want)
        return 1;
    fprintf(stderr, "record at line %ld, backend %s: %s returned %d (%s), expected %d\n",
            r->line, backend, call, rc, aesx_strerror(rc), want);
    return 0;
}

/* Scratch buffers, one record at a time. */
static uint8_t buf[MAX_FIELD + 16], buf2[MAX_FIELD + 16];

static int check_gcm(const struct record *r, int backend)
{
    const char *name = aesx_backend_name(backend);
    size_t n = r->pt.len, t = r->tag.len, out_len = 0;
    uint8_t tag[16], cs[8];
    uint64_t sum = 0;
    aesx_key *k = NULL;
    int ok = 1, rc;

    rc = aesx_key_new(r->key.data, r->key.len, backend, &k);
    if (!expect_rc(rc, AESX_OK, r, name, "aesx_key_new"))
        return 0;
    rc = aesx_gcm_seal(k, r->iv.data, r->iv.len, r->aad.data, r->aad.len, r->pt.data, buf, n,
                       tag, t);
    ok &= expect_rc(rc, AESX_OK, r, name, "aesx_gcm_seal") &&
          expect_bytes(buf, &r->ct, r, name, "GCM CT") &&
          expect_bytes(tag, &r->tag, r, name, "GCM Tag");

    memcpy(buf, r->ct.data, n);
    memcpy(buf + n, r->tag.data, t);
    rc = aesx_gcm_open_append(k, r->iv.data, r->iv.len, r->aad.data, r->aad.len, buf, n + t,
                              buf2, sizeof buf2, t, &out_len);
    ok &= expect_rc(rc, AESX_OK, r, name, "aesx_gcm_open_append") &&
          expect(out_len == n, r, name, "GCM plaintext length") &&
          expect_bytes(buf2, &r->pt, r, name, "GCM PT");

    buf[n + t - 1] ^= 1; /* forge: the last tag bit */
    memset(buf2, 0xa5, sizeof buf2);
    rc = aesx_gcm_open_append(k, r->iv.data, r->iv.len, r->aad.data, r->aad.len, buf, n + t,
                              buf2, sizeof buf2, t, &out_len);
    ok &= expect_rc(rc, AESX_ERR_AUTH_FAILED, r, name, "aesx_gcm_open_append (forged)") &&
          expect(all_zero(buf2, sizeof buf2), r, name, "output not zeroed after forgery");

    if (r->cs.present) {
        rc = aesx_ones_complement_checksum(r->pt.data, n, &sum);
        le64(cs, sum);
        ok &= expect_rc(rc, AESX_OK, r, name, "aesx_ones_complement_checksum") &&
              expect_bytes(cs, &r->cs, r, name, "CS (checksum)");
    }
    aesx_key_free(k);
    return ok;
}

static int check_esp(const struct record *r, int backend)
{
    const char *name = aesx_backend_name(backend);
    size_t n = r->pt.len, t = r->tag.len;
    uint8_t tag[16], cs[8];
    uint64_t sum = 0;
    aesx_esp_key *e = NULL;
    int ok = 1, rc;

    rc = aesx_esp_key_new(r->key.data, r->key.len, r->iv.data, 4, t, backend, &e);
    if (!expect_rc(rc, AESX_OK, r, name, "aesx_esp_key_new"))
        return 0;
    rc = aesx_esp_seal(e, r->iv.data + 4, 8, r->aad.data, r->aad.len, r->pt.data, buf, n, tag,
                       t, &sum);
    le64(cs, sum);
    ok &= expect_rc(rc, AESX_OK, r, name, "aesx_esp_seal") &&
          expect_bytes(buf, &r->ct, r, name, "ESP CT") &&
          expect_bytes(tag, &r->tag, r, name, "ESP Tag");
    if (r->cs.present)
        ok &= expect_bytes(cs, &r->cs, r, name, "ESP seal CS (checksum)");

    sum = 0;
    rc = aesx_esp_open(e, r->iv.data + 4, 8, r->aad.data, r->aad.len, buf, buf, n,
                       r->tag.data, t, &sum);
    le64(cs, sum);
    ok &= expect_rc(rc, AESX_OK, r, name, "aesx_esp_open") &&
          expect_bytes(buf, &r->pt, r, name, "ESP PT");
    if (r->cs.present)
        ok &= expect_bytes(cs, &r->cs, r, name, "ESP open CS (checksum)");

    memcpy(buf, r->ct.data, n);
    memcpy(tag, r->tag.data, t);
    tag[0] ^= 0x80;
    rc = aesx_esp_open(e, r->iv.data + 4, 8, r->aad.data, r->aad.len, buf, buf, n, tag, t,
                       &sum);
    ok &= expect_rc(rc, AESX_ERR_AUTH_FAILED, r, name, "aesx_esp_open (forged)") &&
          expect(all_zero(buf, n), r, name, "packet not zeroed after forgery");
    aesx_esp_key_free(e);
    return ok;
}

static int esp_shaped(const struct record *r)
{
    return r->iv.len == 12 && (r->aad.len == 8 || r->aad.len == 12) &&
           (r->tag.len == 8 || r->tag.len == 12 || r->tag.len == 16);
}

static int check(const struct record *r, int *esp_records)
{
    int backend, ok = 1, any = 0;
    if (!r->key.present || !r->iv.present || !r->pt.present || !r->aad.present ||
        !r->ct.present || !r->tag.present || r->ct.len != r->pt.len) {
        fprintf(stderr, "record at line %ld: incomplete\n", r->line);
        return 0;
    }
    if (esp_shaped(r))
        ++*esp_records;
    for (backend = AESX_BACKEND_SOFT; backend <= AESX_BACKEND_LAST; backend++) {
        if (!aesx_backend_available(backend))
            continue;
        any = 1;
        ok &= check_gcm(r, backend);
        if (esp_shaped(r))
            ok &= check_esp(r, backend);
    }
    return ok && any;
}

static uint8_t storage[7][MAX_FIELD];

static void reset(struct record *r)
{
    struct field *f[7];
    int i;
    f[0] = &r->key, f[1] = &r->iv, f[2] = &r->pt, f[3] = &r->cs;
    f[4] = &r->aad, f[5] = &r->ct, f[6] = &r->tag;
    for (i = 0; i < 7; i++) {
        f[i]->present = 0;
        f[i]->len = 0;
        f[i]->data = storage[i];
    }
    r->line = 0;
}

int main(int argc, char **argv)
{
    FILE *in;
    char text[2 * MAX_FIELD + 64];
    struct record r;
    long lineno = 0;
    int passed = 0, failed = 0, esp_records = 0, bad_file = 0, backend;

    if (argc != 2) {
        fprintf(stderr, "usage: %s SL_functional_tests.rsp\n", argv[0]);
        return 2;
    }
    in = fopen(argv[1], "r");
    if (!in) {
        perror(argv[1]);
        return 1;
    }
    memset(&r, 0, sizeof r);
    reset(&r);
    for (;;) {
        char *got = fgets(text, sizeof text, in), *p, *name, *value;
        size_t len;
        if (got) {
            lineno++;
            len = strlen(text);
            if (len == sizeof text - 1 && text[len - 1] != '\n') {
                fprintf(stderr, "line %ld: too long\n", lineno);
                bad_file = 1;
                break;
            }
            while (len && (text[len - 1] == '\n' || text[len - 1] == '\r' ||
                           text[len - 1] == ' '))
                text[--len] = '\0';
        }
        /* A record ends at a blank line, a header, or the end of the file. */
        if (!got || text[0] == '\0' || text[0] == '[') {
            if (r.line) {
                if (check(&r, &esp_records))
                    passed++;
                else
                    failed++;
                reset(&r);
            }
            if (!got)
                break;
        }
        if (text[0] == '#' || text[0] == '\0')
            continue;
        if (text[0] == '[') {
            size_t bits;
            char key[32];
            if (sscanf(text, "[%31[A-Za-z] = %zu]", key, &bits) != 2) {
                fprintf(stderr, "line %ld: bad header %s\n", lineno, text);
                bad_file = 1;
                continue;
            }
            if (!strcmp(key, "Keylen"))
                r.keylen = bits;
            else if (!strcmp(key, "IVlen"))
                r.ivlen = bits;
            else if (!strcmp(key, "PTlen"))
                r.ptlen = bits;
            else if (!strcmp(key, "AADlen"))
                r.aadlen = bits;
            else if (!strcmp(key, "Taglen"))
                r.taglen = bits;
            continue;
        }
        p = strstr(text, " = ");
        if (!p) {
            fprintf(stderr, "line %ld: not NAME = VALUE: %s\n", lineno, text);
            bad_file = 1;
            continue;
        }
        *p = '\0';
        name = text;
        value = p + 3;
        if (!strcmp(name, "Count")) {
            r.line = lineno;
            continue;
        }
        if (!r.line) {
            fprintf(stderr, "line %ld: %s outside a record\n", lineno, name);
            bad_file = 1;
            continue;
        }
        {
            struct field *f = NULL;
            size_t bits = 0;
            if (!strcmp(name, "Key"))
                f = &r.key, bits = r.keylen;
            else if (!strcmp(name, "IV"))
                f = &r.iv, bits = r.ivlen;
            else if (!strcmp(name, "PT"))
                f = &r.pt, bits = r.ptlen;
            else if (!strcmp(name, "CS"))
                f = &r.cs, bits = 64;
            else if (!strcmp(name, "AAD"))
                f = &r.aad, bits = r.aadlen;
            else if (!strcmp(name, "CT"))
                f = &r.ct, bits = r.ptlen;
            else if (!strcmp(name, "Tag"))
                f = &r.tag, bits = r.taglen;
            if (!f) {
                fprintf(stderr, "line %ld: unknown field %s\n", lineno, name);
                bad_file = 1;
            } else if (decode(f, value, bits, lineno) != 0) {
                bad_file = 1;
            }
        }
    }
    fclose(in);

    printf("backends:");
    for (backend = AESX_BACKEND_SOFT; backend <= AESX_BACKEND_LAST; backend++)
        if (aesx_backend_available(backend))
            printf(" %s", aesx_backend_name(backend));
    printf("; every record through GCM, %d also through ESP\n", esp_records);
    if (bad_file)
        fprintf(stderr, "functional: the file has lines that could not be read\n");
    printf("%d passed, %d failed\n", passed, failed);
    return failed == 0 && passed > 0 && !bad_file ? 0 : 1;
}
