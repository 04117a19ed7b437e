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
