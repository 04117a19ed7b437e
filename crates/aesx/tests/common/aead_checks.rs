//! The length checks shared by the AEAD types with one fixed nonce length
//! (`GcmSiv`, `Xaes256Gcm`): their four sealing and opening calls must
//! refuse a bad nonce alike.

/// Asserts that `<$ty>::new` refuses every key length in `$keys`, and that
/// each of `$aead`'s four calls (`seal`, `open` and their in-place detached
/// forms) refuses every nonce length in `$nonces` with
/// `InvalidIvLength { expected: $expected, .. }`. A macro rather than a
/// generic function: the types share these methods by name, not by trait.
#[allow(unused_macros)] // each test binary uses a different part
macro_rules! assert_length_errors {
    ($ty:ty, keys: $keys:expr, $aead:expr, nonce: $expected:expr, bad: $nonces:expr) => {{
        for len in $keys {
            assert_eq!(
                <$ty>::new(&vec![0u8; len]).unwrap_err(),
                aesx::Error::InvalidKeyLength { len }
            );
        }
        let aead = &$aead;
        for n in $nonces {
            let nonce = vec![0u8; n];
            let want = Err(aesx::Error::InvalidIvLength {
                expected: $expected,
                got: n,
            });
            assert_eq!(aead.seal(&nonce, b"", b"x").map(|_| ()), want);
            assert_eq!(aead.open(&nonce, b"", &[0u8; 20]).map(|_| ()), want);
            assert_eq!(
                aead.seal_in_place_detached(&nonce, b"", &mut [0u8; 3])
                    .map(|_| ()),
                want
            );
            assert_eq!(
                aead.open_in_place_detached(&nonce, b"", &mut [0u8; 3], &[0u8; 16]),
                want
            );
        }
    }};
}

#[allow(unused_imports)] // each test binary uses a different part
pub(crate) use assert_length_errors;

/// Through `aead`'s `AeadInOut`, out of place: sealing `pt` gives `want`
/// (ciphertext, then tag), the tag opens it back to `pt`, and the tag with
/// a flipped bit is refused with the output zeroed.
pub fn inout_round_trip<A: aead::AeadInOut>(
    a: &A,
    nonce: &aead::Nonce<A>,
    aad: &[u8],
    pt: &[u8],
    want: &[u8],
) {
    use aead::inout::InOutBuf;
    let len = pt.len();
    let mut out = vec![0u8; len];
    let tag = a
        .encrypt_inout_detached(nonce, aad, InOutBuf::new(pt, &mut out).unwrap())
        .unwrap();
    assert_eq!(&out[..], &want[..len]);
    assert_eq!(&tag[..], &want[len..]);
    let mut back = vec![0u8; len];
    a.decrypt_inout_detached(nonce, aad, InOutBuf::new(&out, &mut back).unwrap(), &tag)
        .unwrap();
    assert_eq!(back, pt);

    // A forged tag: an error and a zeroed output.
    let mut bad = tag;
    bad[0] ^= 1;
    let mut back = vec![0x55u8; len];
    assert!(a
        .decrypt_inout_detached(nonce, aad, InOutBuf::new(&out, &mut back).unwrap(), &bad)
        .is_err());
    assert!(back.iter().all(|&x| x == 0));
}
