/* A C program built against an installed libaesx, the way a user of the
 * Debian package or of `make install` builds one:
 *
 *   cc aesx_demo.c $(pkg-config --cflags --libs aesx) -o aesx_demo
 *   cmake -S . -B build && cmake --build build      (CMakeLists.txt here)
 *
 * It seals and opens one message with AES-256-GCM, checks that a changed
 * tag is refused, and prints the library's version and backend. Exit 0 on
 * success. .ci/package.sh builds and runs it both ways. */
#include <stdio.h>
#include <string.h>

#include <aesx.h>

int main(void) {
    static const uint8_t key_bytes[32] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16,
                                          17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32};
    static const uint8_t iv[12] = {9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 1, 2};
    const char *msg = "installed libaesx, sealed and opened";
    size_t len = strlen(msg);
    uint8_t ct[64], pt[64], tag[16];
    aesx_key *key = NULL;
    int rc = aesx_key_new(key_bytes, sizeof key_bytes, AESX_BACKEND_AUTO, &key);
    if (rc != AESX_OK) {
        fprintf(stderr, "aesx_key_new: %s\n", aesx_strerror(rc));
        return 1;
    }
    rc = aesx_gcm_seal(key, iv, sizeof iv, NULL, 0, (const uint8_t *)msg, ct, len, tag, sizeof tag);
    if (rc == AESX_OK) {
        rc = aesx_gcm_open(key, iv, sizeof iv, NULL, 0, ct, pt, len, tag, sizeof tag);
    }
    if (rc != AESX_OK || memcmp(pt, msg, len) != 0) {
        fprintf(stderr, "round trip failed: %s\n", aesx_strerror(rc));
        aesx_key_free(key);
        return 1;
    }
    tag[0] ^= 1;
    rc = aesx_gcm_open(key, iv, sizeof iv, NULL, 0, ct, pt, len, tag, sizeof tag);
    int backend = aesx_key_backend(key);
    aesx_key_free(key);
    if (rc != AESX_ERR_AUTH_FAILED) {
        fprintf(stderr, "a changed tag was not refused (%d)\n", rc);
        return 1;
    }
    printf("libaesx %s on %s: AES-256-GCM round trip ok, bad tag refused\n", aesx_version(),
           aesx_backend_name(backend));
    return 0;
}
