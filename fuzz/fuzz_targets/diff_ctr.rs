//! AES-CTR (128-bit big-endian counter) against OpenSSL on every backend,
//! with counters near both wraps: the low 64 bits near 2^64 (the carry into
//! the high half) and the whole block near 2^128. Then the same keystream in
//! pieces and after a seek.
#![no_main]

use aesx::Ctr;
use aesx_fuzz::{backends, ossl, Bytes, Mode2};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((sel, key, mut b)) = Bytes::with_aes_key(data) else {
        return;
    };
    let raw = b.u128();
    let back = b.u8() as u128;
    let counter = match (sel / 3) % 3 {
        0 => raw,
        // High half from the input, low half a few blocks before 2^64.
        1 => (raw & !(u64::MAX as u128)) | (u64::MAX as u128 - back),
        _ => u128::MAX - back,
    };
    let iv = counter.to_be_bytes();
    let cuts = [b.u16() as usize, b.u16() as usize];
    let seek = b.u16() as usize;
    let pt = b.rest();

    let want = ossl(Mode2::Ctr, true, &key, Some(&iv), false, pt).unwrap();
    for backend in backends() {
        let mut one = pt.to_vec();
        Ctr::with_backend(&key, &iv, backend)
            .unwrap()
            .apply_keystream(&mut one);
        assert_eq!(one, want, "{backend:?} one call, counter {counter:#x}");

        // In three pieces, out of place.
        let mut c = Ctr::with_backend(&key, &iv, backend).unwrap();
        let a = cuts[0] % (pt.len() + 1);
        let z = a + cuts[1] % (pt.len() - a + 1);
        let mut out = vec![0u8; pt.len()];
        for (s, e) in [(0, a), (a, z), (z, pt.len())] {
            c.apply_keystream_to(&pt[s..e], &mut out[s..e]).unwrap();
        }
        assert_eq!(out, want, "{backend:?} in pieces {a} {z}");
        assert_eq!(c.position(), pt.len() as u128);

        // From a seek to any byte.
        let at = seek % (pt.len() + 1);
        let mut c = Ctr::with_backend(&key, &iv, backend).unwrap();
        c.seek(at as u128);
        let mut tail = pt[at..].to_vec();
        c.apply_keystream(&mut tail);
        assert_eq!(tail, want[at..], "{backend:?} after seek({at})");
    }
});
