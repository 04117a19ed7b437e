// The header from C++: one AES-256-GCM round trip through a shared key,
// with the handle owned by a unique_ptr.
#include <cstdio>
#include <cstring>
#include <memory>
#include <vector>

#include "aesx.h"

struct KeyFree {
    void operator()(aesx_key *k) const { aesx_key_free(k); }
};

int main()
{
    const unsigned char key[32] = {1, 2, 3};
    const unsigned char nonce[12] = {9};
    const char msg[] = "hello from C++";
    aesx_key *raw = nullptr;
    int rc = aesx_key_new(key, sizeof key, AESX_BACKEND_AUTO, &raw);
    if (rc != AESX_OK) {
        std::fprintf(stderr, "cxx_smoke: %s\n", aesx_strerror(rc));
        return 1;
    }
    std::unique_ptr<aesx_key, KeyFree> k(raw);
    std::vector<unsigned char> sealed(sizeof msg + 16), opened(sizeof msg);
    size_t n = 0;
    rc = aesx_gcm_seal_append(k.get(), nonce, sizeof nonce, nullptr, 0,
                              reinterpret_cast<const unsigned char *>(msg), sizeof msg,
                              sealed.data(), sealed.size(), 16, &n);
    if (rc == AESX_OK)
        rc = aesx_gcm_open_append(k.get(), nonce, sizeof nonce, nullptr, 0, sealed.data(), n,
                                  opened.data(), opened.size(), 16, &n);
    if (rc != AESX_OK || n != sizeof msg || std::memcmp(opened.data(), msg, n) != 0) {
        std::fprintf(stderr, "cxx_smoke: round trip failed: %s\n", aesx_strerror(rc));
        return 1;
    }
    std::printf("cxx_smoke: AES-256-GCM round trip from C++ on %s: ok\n",
                aesx_backend_name(aesx_key_backend(k.get())));
    return 0;
}
