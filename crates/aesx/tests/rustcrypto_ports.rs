//! RustCrypto's own examples, ported to aesx the way a user ports them:
//! each `mod` below is the example from the crate's documentation (the
//! versions aesx's `cipher` 0.5 / `aead` 0.6 match: aes 0.9, aes-gcm 0.11,
//! aes-gcm-siv 0.12, ccm 0.6, ctr 0.10, cbc 0.2, xts-mode 0.6, cmac 0.8,
//! aes-kw 0.3), verbatim except for its `use` lines, which point at aesx.
//! Where one needs more than that, the comment above it says what and why;
//! each such case is one of the documented differences (crate docs,
//! "Differences from RustCrypto").
//!
//! `hex_literal::hex!` is not a dependency here: the local `hex!` below
//! does the same (string literals of hex digits, whitespace ignored, to a
//! byte array), so the examples that use it keep their bodies.
//!
//! Then the new pieces under the same traits: the `Enc`/`Dec` halves (the
//! `cipher` harness the `aes` crate runs on them, and the mode crates over
//! them against the `aes` crate's), `AesGcm` with other nonce and tag
//! sizes (NIST vectors from aes-gcm's tests, and against `aes_gcm::AesGcm`),
//! and `AesCcm` named by its cipher as `ccm::Ccm` is.
#![cfg(feature = "rustcrypto")]

mod common;

/// `hex_literal::hex!` for these tests: the concatenated literals' hex
/// digits (whitespace skipped) as a `[u8; N]`, at compile time.
macro_rules! hex {
    ($($s:literal)*) => {{
        const S: &str = concat!($($s),*);
        const N: usize = $crate::hex_len(S);
        const A: [u8; N] = $crate::hex_decode::<N>(S);
        A
    }};
}

const fn hex_digit(c: u8) -> Option<u8> {
    match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        b'A'..=b'F' => Some(c - b'A' + 10),
        _ => None,
    }
}

const fn hex_len(s: &str) -> usize {
    let b = s.as_bytes();
    let (mut i, mut n) = (0, 0);
    while i < b.len() {
        if hex_digit(b[i]).is_some() {
            n += 1;
        } else if !b[i].is_ascii_whitespace() {
            panic!("not a hex digit");
        }
        i += 1;
    }
    assert!(n % 2 == 0, "odd number of hex digits");
    n / 2
}

const fn hex_decode<const N: usize>(s: &str) -> [u8; N] {
    let b = s.as_bytes();
    let mut out = [0u8; N];
    let (mut i, mut nibbles) = (0, 0);
    while i < b.len() {
        if let Some(d) = hex_digit(b[i]) {
            out[nibbles / 2] |= d << (4 * (1 - nibbles % 2));
            nibbles += 1;
        }
        i += 1;
    }
    out
}

#[test]
fn local_hex_macro_reads_like_hex_literal() {
    assert_eq!(hex!("00ff10"), [0, 255, 16]);
    assert_eq!(hex!("0A0b" "Cd\n  ef"), [0x0a, 0x0b, 0xcd, 0xef]);
    assert_eq!(hex!(""), [0u8; 0]);
}

// ---------------------------------------------------------------------------
// aes 0.9: the crate example.

mod aes_example {
    use aesx::cipher::{Array, BlockCipherDecrypt, BlockCipherEncrypt, KeyInit};
    use aesx::Aes128;

    #[test]
    fn aes_crate_example() {
        let key = Array::from([0u8; 16]);
        let mut block = Array::from([42u8; 16]);

        // Initialize cipher
        let cipher = Aes128::new(&key);

        let block_copy = block;

        // Encrypt block in-place
        cipher.encrypt_block(&mut block);

        // And decrypt it back
        cipher.decrypt_block(&mut block);
        assert_eq!(block, block_copy);

        // Implementation supports parallel block processing. Number of blocks
        // processed in parallel depends in general on hardware capabilities.
        // This is achieved by instruction-level parallelism (ILP) on a single
        // CPU core, which is different from multi-threaded parallelism.
        let mut blocks = [block; 100];
        cipher.encrypt_blocks(&mut blocks);

        for block in blocks.iter_mut() {
            cipher.decrypt_block(block);
            assert_eq!(block, &block_copy);
        }

        // `decrypt_blocks` also supports parallel block processing.
        cipher.decrypt_blocks(&mut blocks);

        for block in blocks.iter_mut() {
            cipher.encrypt_block(block);
            assert_eq!(block, &block_copy);
        }
    }
}

// ---------------------------------------------------------------------------
// The encrypt-only and decrypt-only halves.

// The harness the `aes` crate runs on its `Enc`/`Dec` types (NESSIE).
cipher::block_cipher_test!(aes128_enc, "aes128", aesx::Aes128Enc, encrypt_test);
cipher::block_cipher_test!(aes192_enc, "aes192", aesx::Aes192Enc, encrypt_test);
cipher::block_cipher_test!(aes256_enc, "aes256", aesx::Aes256Enc, encrypt_test);
cipher::block_cipher_test!(aes128_dec, "aes128", aesx::Aes128Dec, decrypt_test);
cipher::block_cipher_test!(aes192_dec, "aes192", aesx::Aes192Dec, decrypt_test);
cipher::block_cipher_test!(aes256_dec, "aes256", aesx::Aes256Dec, decrypt_test);

mod halves {
    use aesx::cipher::{
        AlgorithmName, Array, BlockCipherDecrypt, BlockCipherEncrypt, BlockModeDecrypt,
        BlockModeEncrypt, BlockSizeUser, KeyInit, KeyIvInit, KeySizeUser, StreamCipher,
    };
    use rand::{Rng, SeedableRng};

    /// A type's `AlgorithmName` as a string.
    struct Name<C>(std::marker::PhantomData<C>);

    impl<C: AlgorithmName> std::fmt::Display for Name<C> {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            C::write_alg_name(f)
        }
    }

    /// What a user's generic code asks of an encrypt-only cipher.
    fn encrypt_only<C>(key: &[u8], blocks: &mut [Array<u8, C::BlockSize>]) -> String
    where
        C: KeyInit + BlockCipherEncrypt + AlgorithmName,
    {
        let c = C::new_from_slice(key).unwrap();
        c.encrypt_blocks(blocks);
        Name::<C>(std::marker::PhantomData).to_string()
    }

    /// The same for a decrypt-only cipher.
    fn decrypt_only<C>(key: &[u8], blocks: &mut [Array<u8, C::BlockSize>])
    where
        C: KeyInit + BlockCipherDecrypt,
    {
        C::new_from_slice(key).unwrap().decrypt_blocks(blocks);
    }

    macro_rules! halves_match_aes {
        ($test:ident, $enc:ident, $dec:ident, $full:ident, $klen:literal) => {
            #[test]
            fn $test() {
                assert_eq!(<aesx::$enc as KeySizeUser>::key_size(), $klen);
                assert_eq!(<aesx::$dec as KeySizeUser>::key_size(), $klen);
                assert_eq!(<aesx::$enc as BlockSizeUser>::block_size(), 16);
                let mut r = rand::rngs::StdRng::seed_from_u64($klen);
                for n in [0usize, 1, 7, 31, 32, 33, 100] {
                    let key: [u8; $klen] = r.gen();
                    let iv: [u8; 16] = r.gen();
                    let pt: Vec<Array<u8, _>> =
                        (0..n).map(|_| Array(r.gen::<[u8; 16]>())).collect();

                    // ECB through generic code, against the aes crate's halves.
                    let mut ours = pt.clone();
                    let mut theirs = pt.clone();
                    let name = encrypt_only::<aesx::$enc>(&key, &mut ours);
                    let their_name = encrypt_only::<aes::$enc>(&key, &mut theirs);
                    assert_eq!(ours, theirs, "{n} blocks");
                    assert_eq!(name, their_name);
                    decrypt_only::<aesx::$dec>(&key, &mut ours);
                    assert_eq!(ours, pt);

                    // cbc and ctr over the halves, as over aes's.
                    let mut ct = pt.clone();
                    cbc::Encryptor::<aesx::$enc>::new(&key.into(), &iv.into())
                        .encrypt_blocks(&mut ct);
                    let mut want = pt.clone();
                    cbc::Encryptor::<aes::$enc>::new(&key.into(), &iv.into())
                        .encrypt_blocks(&mut want);
                    assert_eq!(ct, want);
                    cbc::Decryptor::<aesx::$dec>::new(&key.into(), &iv.into())
                        .decrypt_blocks(&mut ct);
                    assert_eq!(ct, pt);

                    let mut bytes = vec![0x5au8; n * 16 + 5];
                    let mut want = bytes.clone();
                    ctr::Ctr32BE::<aesx::$enc>::new(&key.into(), &iv.into())
                        .apply_keystream(&mut bytes);
                    ctr::Ctr32BE::<aes::$enc>::new(&key.into(), &iv.into())
                        .apply_keystream(&mut want);
                    assert_eq!(bytes, want);

                    // The conversions aes has, and they keep the key.
                    let enc = aesx::$enc::new(&key.into());
                    let full = aesx::$full::from(&enc);
                    let dec = aesx::$dec::from(enc.clone());
                    let mut a = Array([9u8; 16]);
                    enc.encrypt_block(&mut a);
                    let mut b = Array([9u8; 16]);
                    full.encrypt_block(&mut b);
                    assert_eq!(a, b);
                    dec.decrypt_block(&mut a);
                    assert_eq!(a, [9u8; 16]);
                    let _: aesx::$full = enc.into();
                }
            }
        };
    }

    halves_match_aes!(aes128_halves, Aes128Enc, Aes128Dec, Aes128, 16);
    halves_match_aes!(aes192_halves, Aes192Enc, Aes192Dec, Aes192, 24);
    halves_match_aes!(aes256_halves, Aes256Enc, Aes256Dec, Aes256, 32);

    #[test]
    fn halves_forced_backends_and_debug() {
        for b in aesx::Backend::ALL {
            let enc = aesx::Aes128Enc::with_backend(&[0xa7; 16], b);
            assert_eq!(enc.is_ok(), b.is_available());
            if let Ok(enc) = enc {
                assert_eq!(enc.backend(), b);
                let out = format!("{enc:?} {:?}", aesx::Aes128Dec::from(&enc));
                assert!(!out.to_ascii_lowercase().contains("a7") && !out.contains("167"));
            }
        }
        fn zeroizes<T: zeroize::ZeroizeOnDrop>() {}
        zeroizes::<aesx::Aes256Enc>();
        zeroizes::<aesx::Aes256Dec>();
    }
}

// ---------------------------------------------------------------------------
// aes-gcm 0.11: the crate's two examples.

// Key and nonce from the OS: the `getrandom` feature (default).
#[cfg(feature = "getrandom")]
mod aes_gcm_example {
    #[allow(unused_imports)] // `AeadCore` as in the example
    use aesx::{
        aead::{Aead, AeadCore, Generate, Key, KeyInit},
        Aes256Gcm,
        Nonce, // Or `Aes128Gcm`
    };

    fn main() -> Result<(), Box<dyn core::error::Error>> {
        // NOTE: requires the `getrandom` feature is enabled

        let key = Key::<Aes256Gcm>::generate();
        let cipher = Aes256Gcm::new(&key);

        let nonce = Nonce::generate(); // MUST be unique per message
        let ciphertext = cipher.encrypt(&nonce, b"plaintext message".as_ref())?;

        let plaintext = cipher.decrypt(&nonce, ciphertext.as_ref())?;
        assert_eq!(&plaintext, b"plaintext message");
        Ok(())
    }

    #[test]
    fn aes_gcm_simple_usage() {
        main().unwrap();
    }
}

// Key and nonce from the OS: the `getrandom` feature (default).
#[cfg(feature = "getrandom")]
mod aes_gcm_in_place_example {
    #[allow(unused_imports)] // `AeadCore` as in the example
    use aesx::{
        aead::{arrayvec::ArrayVec, AeadCore, AeadInOut, Generate, Key, KeyInit},
        Aes256Gcm,
        Nonce, // Or `Aes128Gcm`
    };

    fn main() -> Result<(), Box<dyn core::error::Error>> {
        // NOTE: requires the `arrayvec` and `getrandom` features are enabled

        let key = Key::<Aes256Gcm>::generate();
        let cipher = Aes256Gcm::new(&key);

        let nonce = Nonce::generate(); // MUST be unique per message
        let mut buffer: ArrayVec<u8, 128> = ArrayVec::new(); // Note: buffer needs 16-bytes overhead for auth tag
        buffer.try_extend_from_slice(b"plaintext message").unwrap();

        // Encrypt `buffer` in-place, replacing the plaintext contents with ciphertext
        cipher.encrypt_in_place(&nonce, b"", &mut buffer)?;

        // `buffer` now contains the message ciphertext
        assert_ne!(buffer.as_ref(), b"plaintext message");

        // Decrypt `buffer` in-place, replacing its ciphertext context with the original plaintext
        cipher.decrypt_in_place(&nonce, b"", &mut buffer)?;
        assert_eq!(buffer.as_ref(), b"plaintext message");
        Ok(())
    }

    #[test]
    fn aes_gcm_in_place_usage() {
        main().unwrap();
    }
}

/// aes-gcm's `tests/other_ivlen.rs`: `AesGcm` with 8-bit and 1024-bit
/// nonces (NIST `gcmEncryptExtIV128.rsp`).
mod aes_gcm_other_ivlen {
    use aesx::aead::{
        array::{typenum, Array},
        Aead, KeyInit,
    };
    use aesx::Aes128;
    use aesx::AesGcm;

    mod ivlen8 {
        use super::*;

        type Aes128GcmWith8BitNonce = AesGcm<Aes128, typenum::U1>;

        #[test]
        fn encrypt() {
            let key = hex!("15b2d414826453f9e1c7dd0b69d8d1eb");
            let nonce = hex!("b6");
            let plaintext = hex!("8cfa255530c6fbc19d51bd4aeb39c91b");

            let ciphertext = Aes128GcmWith8BitNonce::new(&key.into())
                .encrypt(&Array(nonce), &plaintext[..])
                .unwrap();

            let (ct, tag) = ciphertext.split_at(ciphertext.len() - 16);
            assert_eq!(hex!("4822cb98bd5f5d921ee19285c9032375"), ct);
            assert_eq!(hex!("8a40670ebac98cf4e9cc1bf8f803167d"), tag);
        }
    }

    mod ivlen1024 {
        use super::*;

        type Aes128GcmWith1024BitNonce = AesGcm<Aes128, typenum::U128>;

        #[test]
        fn encrypt() {
            let key = hex!("71eebc49c8fb773b2224eaff3ad68714");
            let nonce = hex!(
                "07e961e67784011f72faafd95b0eb64089c8de15ad685ec57e63d56e679d3e20
                 2b18b75fcbbec3185ffc41653bc2ac4ae6ae8be8c85636f353a9d19a86100d0b
                 d035cc6bdefcab4318ac7b1a08b819427ad8f6abc782466c6ebd4d6a0dd76e78
                 389b0a2a66506bb85f038ffc1da220c24f3817c7b2d02c5e8fc5e7e3be5074bc"
            );
            let plaintext = hex!("705da82292143d2c949dc4ba014f6396");

            let ciphertext = Aes128GcmWith1024BitNonce::new(&key.into())
                .encrypt(&Array(nonce), &plaintext[..])
                .unwrap();

            let (ct, tag) = ciphertext.split_at(ciphertext.len() - 16);
            assert_eq!(hex!("032363cf0828a03553478bec0f51f372"), ct);
            assert_eq!(hex!("c681b2c568feaa21900bc44b86aeb946"), tag);
        }
    }
}

/// `AesGcm` against `aes_gcm::AesGcm` for nonce and tag sizes other than
/// the defaults (aes-gcm allows tags of 12 to 16 bytes without its
/// `hazmat` feature), on every backend, and the short tags aes-gcm gates
/// against aesx's inherent `Gcm` (itself held to NIST and OpenSSL).
mod aes_gcm_generic_sizes {
    use aesx::aead::{
        array::{Array, ArraySize},
        consts::{U1, U12, U13, U14, U15, U16, U20, U4, U60, U8},
        Aead, AeadCore, KeyInit, Payload,
    };
    use rand::{Rng, SeedableRng};

    fn matches_aes_gcm<N: ArraySize, T: aesx::GcmTagSize + aes_gcm::TagSize>() {
        let mut r = rand::rngs::StdRng::seed_from_u64((N::USIZE * 100 + T::USIZE) as u64);
        for len in [0usize, 1, 15, 16, 17, 100, 515] {
            let key: [u8; 16] = r.gen();
            let nonce: Vec<u8> = (0..N::USIZE).map(|_| r.gen()).collect();
            let nonce = Array::<u8, N>::try_from(&nonce[..]).unwrap();
            let msg: Vec<u8> = (0..len).map(|_| r.gen()).collect();
            let p = || Payload {
                msg: &msg,
                aad: b"aad",
            };
            let theirs = aes_gcm::AesGcm::<aes::Aes128, N, T>::new(&key.into())
                .encrypt(&nonce, p())
                .unwrap();
            assert_eq!(theirs.len(), len + T::USIZE);
            for b in crate::common::backends() {
                let ours = aesx::AesGcm::<aesx::Aes128, N, T>::with_backend(&key, b).unwrap();
                assert_eq!(ours.encrypt(&nonce, p()).unwrap(), theirs, "{b} len {len}");
                let back = ours.decrypt(
                    &nonce,
                    Payload {
                        msg: &theirs,
                        aad: b"aad",
                    },
                );
                assert_eq!(back.unwrap(), msg);
                let mut bad = theirs.clone();
                *bad.last_mut().unwrap() ^= 1;
                assert!(ours
                    .decrypt(
                        &nonce,
                        Payload {
                            msg: &bad,
                            aad: b"aad"
                        }
                    )
                    .is_err());
            }
        }
    }

    #[test]
    fn nonce_and_tag_sizes_match_aes_gcm() {
        matches_aes_gcm::<U12, U16>();
        matches_aes_gcm::<U1, U16>();
        matches_aes_gcm::<U16, U16>();
        matches_aes_gcm::<U60, U12>();
        matches_aes_gcm::<U12, U13>();
        matches_aes_gcm::<U8, U14>();
        matches_aes_gcm::<U20, U15>();
    }

    fn short_tags<T: aesx::GcmTagSize>() {
        let gcm = aesx::Gcm::new(&[3u8; 32])
            .unwrap()
            .with_tag_len(T::USIZE)
            .unwrap();
        let want = gcm.seal(&[4u8; 12], b"", b"short tags").unwrap();
        let ours = aesx::AesGcm::<aesx::Aes256Enc, U12, T>::new(&[3u8; 32].into());
        assert_eq!(
            <aesx::AesGcm<aesx::Aes256Enc, U12, T> as AeadCore>::TagSize::USIZE,
            T::USIZE
        );
        assert_eq!(
            ours.encrypt(&Array([4u8; 12]), &b"short tags"[..]).unwrap(),
            want
        );
    }

    #[test]
    fn short_tags_match_inherent_gcm() {
        short_tags::<U4>();
        short_tags::<U8>();
    }

    #[test]
    fn aliases_are_the_generic_type() {
        fn same<T>(_: &T, _: &T) {}
        let a = aesx::Aes128Gcm::new(&[1u8; 16].into());
        let b = aesx::AesGcm::<aesx::Aes128, U12>::new(&[1u8; 16].into());
        same(&a, &b);
        // A key of the wrong length for the type is an error, not a panic.
        assert!(
            aesx::AesGcm::<aesx::Aes256, U12>::with_backend(&[0; 16], aesx::Backend::Soft).is_err()
        );
        // A zero-length nonce is refused.
        let zero = aesx::AesGcm::<aesx::Aes128, aesx::aead::consts::U0>::new(&[1u8; 16].into());
        assert!(zero.encrypt(&Array([]), &b"x"[..]).is_err());
    }
}

// ---------------------------------------------------------------------------
// aes-gcm's own test suite shape (`tests/common/mod.rs`'s `tests!` and
// three of `tests/aes128gcm.rs`'s NIST vectors), on aesx's type through the
// `use` lines. One assertion differs, and it is the documented difference:
// after a failed `decrypt_inout_detached` aes-gcm's test expects the
// ciphertext still in the buffer; aesx has zeroed it.

mod aes_gcm_suite {
    use aesx::aead::{array::Array, Aead, AeadInOut, KeyInit, Payload};
    use aesx::Aes128Gcm;

    /// Test vectors
    #[derive(Debug)]
    pub struct TestVector<K: 'static, N: 'static> {
        pub key: &'static K,
        pub nonce: &'static N,
        pub aad: &'static [u8],
        pub plaintext: &'static [u8],
        pub ciphertext: &'static [u8],
        pub tag: &'static [u8; 16],
    }

    const TEST_VECTORS: &[TestVector<[u8; 16], [u8; 12]>] = &[
        TestVector {
            key: &hex!("11754cd72aec309bf52f7687212e8957"),
            nonce: &hex!("3c819d9a9bed087615030b65"),
            plaintext: &hex!(""),
            aad: &hex!(""),
            ciphertext: &hex!(""),
            tag: &hex!("250327c674aaf477aef2675748cf6971"),
        },
        TestVector {
            key: &hex!("c939cc13397c1d37de6ae0e1cb7c423c"),
            nonce: &hex!("b3d8cc017cbb89b39e0f67e2"),
            plaintext: &hex!("c3b3c41f113a31b73d9a5cd432103069"),
            aad: &hex!("24825602bd12a984e0092d3e448eda5f"),
            ciphertext: &hex!("93fe7d9e9bfd10348a5606e5cafa7354"),
            tag: &hex!("0032a1dc85f1c9786925a2e71d8272dd"),
        },
        TestVector {
            key: &hex!("55c8bcb0021090e4b2c785c79cb966b8"),
            nonce: &hex!("5e9f1313282f73d7ffb92837"),
            plaintext: &hex!(
                "2d7c1b689189bbfa2be26ad5c1f296dee4c0f61456ffc94cf8e70aad0f09d0608c4115aa6ed5eba93ed5820b3f3426bbf4d64a"
            ),
            aad: &hex!(
                "f7e14a57e3bb6b99866b90573d7bc355baeb7ac347e43d0b65d97ecc2eb9c772401a8e3c7e9e2871c2b79579d44c139e62c33b42a9e0c87686960009d659d5e3874e168c334b6650c6d36168633757a7c20764232ce94a0de1a5"
            ),
            ciphertext: &hex!(
                "ba59002df3394c5b80983519dc163eca5c44df80f8c4c4e15d3ff73f13c170c80a59d87a2165a7b450be01031a8e41c505c89f"
            ),
            tag: &hex!("28418c564731bddf3d504d8ed32e66ee"),
        },
    ];

    #[test]
    fn encrypt() {
        for vector in TEST_VECTORS {
            let key = Array(*vector.key);
            let nonce = Array(*vector.nonce);
            let payload = Payload {
                msg: vector.plaintext,
                aad: vector.aad,
            };

            let cipher = <Aes128Gcm>::new(&key);
            let ciphertext = cipher.encrypt(&nonce, payload).unwrap();
            let (ct, tag) = ciphertext.split_at(ciphertext.len() - 16);
            assert_eq!(
                vector.ciphertext, ct,
                "ciphertext mismatch (expected != actual)"
            );
            assert_eq!(vector.tag, tag, "tag mismatch (expected != actual)");
        }
    }

    #[test]
    fn decrypt() {
        for vector in TEST_VECTORS {
            let key = Array(*vector.key);
            let nonce = Array(*vector.nonce);
            let mut ciphertext = Vec::from(vector.ciphertext);
            ciphertext.extend_from_slice(vector.tag);

            let payload = Payload {
                msg: &ciphertext,
                aad: vector.aad,
            };

            let cipher = <Aes128Gcm>::new(&key);
            let plaintext = cipher.decrypt(&nonce, payload).unwrap();

            assert_eq!(vector.plaintext, plaintext.as_slice(), "plaintext mismatch");
        }
    }

    #[test]
    fn decrypt_modified() {
        let vector = &TEST_VECTORS[0];
        let key = Array(*vector.key);
        let nonce = Array(*vector.nonce);
        let mut ciphertext = Vec::from(vector.ciphertext);
        ciphertext.extend_from_slice(vector.tag);

        // Tweak the first byte
        ciphertext[0] ^= 0xaa;

        let payload = Payload {
            msg: &ciphertext,
            aad: vector.aad,
        };

        let cipher = <Aes128Gcm>::new(&key);
        assert!(cipher.decrypt(&nonce, payload).is_err());
    }

    #[test]
    fn decrypt_in_place_detached_modified() {
        let vector = &TEST_VECTORS.iter().last().unwrap();
        let key = Array(*vector.key);
        let nonce = Array(*vector.nonce);

        let mut buffer = Vec::from(vector.ciphertext);
        assert!(!buffer.is_empty());

        // Tweak the first byte
        let mut tag = Array(*vector.tag);
        tag[0] ^= 0xaa;

        let cipher = <Aes128Gcm>::new(&key);
        assert!(cipher
            .decrypt_inout_detached(&nonce, &[], buffer.as_mut_slice().into(), &tag)
            .is_err());

        // aes-gcm: `assert_eq!(vector.ciphertext, buffer);`. aesx zeroes the
        // buffer on a failed check (crate docs, "Differences from
        // RustCrypto").
        assert_eq!(buffer, vec![0u8; vector.ciphertext.len()]);
    }
}

// ---------------------------------------------------------------------------
// aes-gcm-siv 0.12: the crate's two examples.

// Key and nonce from the OS: the `getrandom` feature (default).
#[cfg(feature = "getrandom")]
mod aes_gcm_siv_example {
    #[allow(unused_imports)] // `AeadCore` as in the example
    use aesx::{
        aead::{Aead, AeadCore, Generate, Key, KeyInit},
        Aes256GcmSiv,
        Nonce, // Or `Aes128GcmSiv`
    };

    fn main() -> Result<(), Box<dyn core::error::Error>> {
        // NOTE: requires the `getrandom` feature is enabled

        let key = Key::<Aes256GcmSiv>::generate();
        let cipher = Aes256GcmSiv::new(&key);

        let nonce = Nonce::generate(); // MUST be unique per message
        let ciphertext = cipher.encrypt(&nonce, b"plaintext message".as_ref())?;

        let plaintext = cipher.decrypt(&nonce, ciphertext.as_ref())?;
        assert_eq!(&plaintext, b"plaintext message");
        Ok(())
    }

    #[test]
    fn aes_gcm_siv_simple_usage() {
        main().unwrap();
    }
}

// Key and nonce from the OS: the `getrandom` feature (default).
#[cfg(feature = "getrandom")]
mod aes_gcm_siv_in_place_example {
    #[allow(unused_imports)] // `AeadCore` as in the example
    use aesx::{
        aead::{arrayvec::ArrayVec, AeadCore, AeadInOut, Buffer, Generate, Key, KeyInit},
        Aes256GcmSiv,
        Nonce, // Or `Aes128GcmSiv`
    };

    // The example ignores `extend_from_slice`'s `Result` (doc tests allow
    // the warning).
    #[allow(unused_must_use)]
    fn main() -> Result<(), Box<dyn core::error::Error>> {
        // NOTE: requires the `arrayvec` and `getrandom` features are enabled

        let key = Key::<Aes256GcmSiv>::generate();
        let cipher = Aes256GcmSiv::new(&key);

        let nonce = Nonce::generate(); // 96-bits; unique per message
        let mut buffer: ArrayVec<u8, 128> = ArrayVec::new(); // Note: buffer needs 16-bytes overhead for auth tag
        buffer.extend_from_slice(b"plaintext message");

        // Encrypt `buffer` in-place, replacing the plaintext contents with ciphertext
        cipher.encrypt_in_place(&nonce, b"", &mut buffer)?;

        // `buffer` now contains the message ciphertext
        assert_ne!(buffer.as_ref(), b"plaintext message");

        // Decrypt `buffer` in-place, replacing its ciphertext context with the original plaintext
        cipher.decrypt_in_place(&nonce, b"", &mut buffer)?;
        assert_eq!(buffer.as_ref(), b"plaintext message");
        Ok(())
    }

    #[test]
    fn aes_gcm_siv_in_place_usage() {
        main().unwrap();
    }
}

// ---------------------------------------------------------------------------
// ccm 0.6: the crate's two examples. `ccm::Ccm` becomes `aesx::AesCcm`
// (aesx's `Ccm` is its inherent CCM type), renamed on the `use` line.

// Key and nonce from the OS: the `getrandom` feature (default).
#[cfg(feature = "getrandom")]
mod ccm_example {
    #[allow(unused_imports)] // `AeadCore` as in the example
    use aesx::Aes256;
    #[allow(unused_imports)]
    use aesx::{
        aead::{Aead, AeadCore, Generate, Key, KeyInit, Nonce},
        consts::{U10, U13},
        AesCcm as Ccm,
    };

    // AES-256-CCM type with tag and nonce size equal to 10 and 13 bytes respectively
    pub type Aes256Ccm = Ccm<Aes256, U10, U13>;

    fn main() -> Result<(), Box<dyn core::error::Error>> {
        // NOTE: requires the `getrandom` feature is enabled

        let key = Key::<Aes256Ccm>::generate();
        let cipher = Aes256Ccm::new(&key);

        let nonce = Nonce::<Aes256Ccm>::generate(); // MUST be unique per message
        let ciphertext = cipher.encrypt(&nonce, b"plaintext message".as_ref())?;

        let plaintext = cipher.decrypt(&nonce, ciphertext.as_ref())?;
        assert_eq!(&plaintext, b"plaintext message");
        Ok(())
    }

    #[test]
    fn ccm_simple_usage() {
        main().unwrap();
        // The same type as aesx's own alias.
        let _: aesx::Aes256Ccm<U10, U13> = Aes256Ccm::new(&[0u8; 32].into());
    }
}

// Key and nonce from the OS: the `getrandom` feature (default).
#[cfg(feature = "getrandom")]
mod ccm_in_place_example {
    #[allow(unused_imports)] // `AeadCore` as in the example
    use aesx::Aes256;
    #[allow(unused_imports)]
    use aesx::{
        aead::consts::{U10, U13},
        aead::{arrayvec::ArrayVec, AeadCore, AeadInOut, Generate, Key, KeyInit, Nonce},
        AesCcm as Ccm,
    };

    // AES-256-CCM type with tag and nonce size equal to 10 and 13 bytes respectively
    pub type Aes256Ccm = Ccm<Aes256, U10, U13>;

    fn main() -> Result<(), Box<dyn core::error::Error>> {
        let key = Key::<Aes256Ccm>::generate();
        let cipher = Aes256Ccm::new(&key);

        let nonce = Nonce::<Aes256Ccm>::generate(); // MUST be unique per message
        let mut buffer: ArrayVec<u8, 128> = ArrayVec::new(); // Note: buffer needs 16-bytes overhead for auth tag
        buffer.try_extend_from_slice(b"plaintext message").unwrap();

        // Encrypt `buffer` in-place, replacing the plaintext contents with ciphertext
        cipher.encrypt_in_place(&nonce, b"", &mut buffer)?;

        // `buffer` now contains the message ciphertext
        assert_ne!(buffer.as_ref(), b"plaintext message");

        // Decrypt `buffer` in-place, replacing its ciphertext context with the original plaintext
        cipher.decrypt_in_place(&nonce, b"", &mut buffer)?;
        assert_eq!(buffer.as_ref(), b"plaintext message");
        Ok(())
    }

    #[test]
    fn ccm_in_place_usage() {
        main().unwrap();
    }
}

/// One of ccm's own tests (`tests/ccm.rs`, `test_data_len_check`): a
/// 13-byte nonce leaves a 2-byte length field, so 65535 bytes is the most.
mod ccm_data_len_check {
    use aesx::aead::{array::Array, AeadInOut, KeyInit};
    use aesx::Aes128;
    use aesx::{
        aead::consts::{U10, U13},
        AesCcm as Ccm,
    };

    #[test]
    fn test_data_len_check() {
        let key = hex!("D7828D13B2B0BDC325A76236DF93CC6B");
        let nonce = hex!("2F1DBD38CE3EDA7C23F04DD650");

        type Cipher = Ccm<Aes128, U10, U13>;
        let key = Array(key);
        let nonce = Array(nonce);
        let c = Cipher::new(&key);

        let mut buf1 = [1; u16::MAX as usize];
        let res = c.encrypt_inout_detached(&nonce, &[], buf1.as_mut_slice().into());
        assert!(res.is_ok());

        let mut buf2 = [1; u16::MAX as usize + 1];
        let res = c.encrypt_inout_detached(&nonce, &[], buf2.as_mut_slice().into());
        assert!(res.is_err());
    }
}

// ---------------------------------------------------------------------------
// ctr 0.10 and cbc 0.2: the crate examples, over aesx's block cipher.

mod ctr_example {
    use aesx::cipher::{KeyIvInit, StreamCipher, StreamCipherSeek};

    type Aes128Ctr64LE = ctr::Ctr64LE<aesx::Aes128>;

    #[test]
    fn ctr_example() {
        let key = [0x42; 16];
        let iv = [0x24; 16];
        let plaintext = *b"hello world! this is my plaintext.";
        let ciphertext =
            hex!("3357121ebb5a29468bd861467596ce3da59bdee42dcc0614dea955368d8a5dc0cad4");

        // encrypt in-place
        let mut buf = plaintext.to_vec();
        let mut cipher = Aes128Ctr64LE::new(&key.into(), &iv.into());
        cipher.apply_keystream(&mut buf);
        assert_eq!(buf[..], ciphertext[..]);

        // CTR mode can be used with streaming messages
        let mut cipher = Aes128Ctr64LE::new(&key.into(), &iv.into());
        for chunk in buf.chunks_mut(3) {
            cipher.apply_keystream(chunk);
        }
        assert_eq!(buf[..], plaintext[..]);

        // CTR mode supports seeking. The parameter is zero-based _bytes_ counter (not _blocks_).
        cipher.seek(0u32);

        // encrypt/decrypt from buffer to buffer
        // buffer length must be equal to input length
        let mut buf1 = [0u8; 34];
        cipher.apply_keystream_b2b(&plaintext, &mut buf1);
        assert_eq!(buf1[..], ciphertext[..]);

        let mut buf2 = [0u8; 34];
        cipher.seek(0u32);
        cipher.apply_keystream_b2b(&buf1, &mut buf2);
        assert_eq!(buf2[..], plaintext[..]);
    }
}

mod cbc_example {
    use aesx::cipher::{block_padding::Pkcs7, BlockModeDecrypt, BlockModeEncrypt, KeyIvInit};

    type Aes128CbcEnc = cbc::Encryptor<aesx::Aes128>;
    type Aes128CbcDec = cbc::Decryptor<aesx::Aes128>;

    // Verbatim, `&ct` included.
    #[allow(clippy::needless_borrow)]
    #[test]
    fn cbc_example() {
        let key = [0x42; 16];
        let iv = [0x24; 16];
        let plaintext = *b"hello world! this is my plaintext.";
        let ciphertext = hex!(
            "c7fe247ef97b21f07cbdd26cb5d346bf"
            "d27867cb00d9486723e159978fb9a5f9"
            "14cfb228a710de4171e396e7b6cf859e"
        );

        // encrypt/decrypt in-place
        // buffer must be big enough for padded plaintext
        let mut buf = [0u8; 48];
        let pt_len = plaintext.len();
        buf[..pt_len].copy_from_slice(&plaintext);
        let ct = Aes128CbcEnc::new(&key.into(), &iv.into())
            .encrypt_padded::<Pkcs7>(&mut buf, pt_len)
            .unwrap();
        assert_eq!(ct, &ciphertext[..]);

        let pt = Aes128CbcDec::new(&key.into(), &iv.into())
            .decrypt_padded::<Pkcs7>(&mut buf)
            .unwrap();
        assert_eq!(pt, &plaintext);

        // encrypt/decrypt from buffer to buffer
        let mut buf = [0u8; 48];
        let ct = Aes128CbcEnc::new(&key.into(), &iv.into())
            .encrypt_padded_b2b::<Pkcs7>(&plaintext, &mut buf)
            .unwrap();
        assert_eq!(ct, &ciphertext[..]);

        let mut buf = [0u8; 48];
        let pt = Aes128CbcDec::new(&key.into(), &iv.into())
            .decrypt_padded_b2b::<Pkcs7>(&ct, &mut buf)
            .unwrap();
        assert_eq!(pt, &plaintext);
    }

    // The same over the encrypt-only and decrypt-only halves.
    #[test]
    fn cbc_example_on_halves() {
        let key = [0x42; 16];
        let iv = [0x24; 16];
        let plaintext = *b"hello world! this is my plaintext.";
        let mut buf = [0u8; 48];
        let ct = cbc::Encryptor::<aesx::Aes128Enc>::new(&key.into(), &iv.into())
            .encrypt_padded_b2b::<Pkcs7>(&plaintext, &mut buf)
            .unwrap()
            .to_vec();
        assert_eq!(
            ct,
            hex!(
                "c7fe247ef97b21f07cbdd26cb5d346bf"
                "d27867cb00d9486723e159978fb9a5f9"
                "14cfb228a710de4171e396e7b6cf859e"
            )
        );
        let mut buf = [0u8; 48];
        let pt = cbc::Decryptor::<aesx::Aes128Dec>::new(&key.into(), &iv.into())
            .decrypt_padded_b2b::<Pkcs7>(&ct, &mut buf)
            .unwrap();
        assert_eq!(pt, &plaintext);
    }
}

// ---------------------------------------------------------------------------
// xts-mode 0.6: the README examples (all but the Nintendo one, whose
// all-zero "header" cannot decrypt to its magic bytes with any library).

mod xts_examples {
    use aesx::cipher::{
        consts::{U16, U32, U64},
        Array, KeyInit,
    };
    use aesx::{Aes128, Aes256};
    use xts_mode::{get_tweak_default, Xts128};

    #[test]
    fn encrypt_area_aes128() {
        // Load encryption key
        let key: Array<u8, U32> = Array([1; 32]);
        let plaintext = [5; 0x400];

        // Load data to be encrypted
        let mut buffer = plaintext.to_owned();

        let (key_1, key_2) = key.split::<U16>();
        let cipher_1 = Aes128::new(&key_1);
        let cipher_2 = Aes128::new(&key_2);

        let xts = Xts128::<Aes128>::new(cipher_1, cipher_2);

        let sector_size = 0x200;
        let first_sector_index = 0;

        // Encrypt data in the buffer
        xts.encrypt_area(
            &mut buffer,
            sector_size,
            first_sector_index,
            get_tweak_default,
        );

        // Decrypt data in the buffer
        xts.decrypt_area(
            &mut buffer,
            sector_size,
            first_sector_index,
            get_tweak_default,
        );

        assert_eq!(&buffer[..], &plaintext[..]);
    }

    #[test]
    fn encrypt_area_aes256() {
        // Load the encryption key
        let key: Array<u8, U64> = Array([1; 64]);
        let plaintext = [5; 0x400];

        // Load the data to be encrypted
        let mut buffer = plaintext.to_owned();

        let (key_1, key_2) = key.split::<U32>();
        let cipher_1 = Aes256::new(&key_1);
        let cipher_2 = Aes256::new(&key_2);

        let xts = Xts128::<Aes256>::new(cipher_1, cipher_2);

        let sector_size = 0x200;
        let first_sector_index = 0;

        xts.encrypt_area(
            &mut buffer,
            sector_size,
            first_sector_index,
            get_tweak_default,
        );

        xts.decrypt_area(
            &mut buffer,
            sector_size,
            first_sector_index,
            get_tweak_default,
        );

        assert_eq!(&buffer[..], &plaintext[..]);
    }

    #[test]
    fn encrypt_sector() {
        // Load encryption key
        let key: Array<u8, U32> = Array([1; 32]);

        let plaintext = [5; 0x200];

        // Load data to be encrypted
        let mut buffer = plaintext.to_owned();

        let (key_1, key_2) = key.split::<U16>();
        let cipher_1 = Aes128::new(&key_1);
        let cipher_2 = Aes128::new(&key_2);

        let xts = Xts128::<Aes128>::new(cipher_1, cipher_2);

        let tweak = get_tweak_default(0); // 0 is the sector index

        // Encrypt data in the buffer
        xts.encrypt_sector(&mut buffer, tweak);

        // Decrypt data in the buffer
        xts.decrypt_sector(&mut buffer, tweak);

        assert_eq!(&buffer[..], &plaintext[..]);
    }
}

// ---------------------------------------------------------------------------
// cmac 0.8 and aes-kw 0.3: generic over the block cipher, so they run on
// aesx's. aesx's own `Cmac` and `KeyWrap` are inherent types, not these
// crates' (see "Differences from RustCrypto").

mod cmac_examples {
    use aesx::Aes128;
    use cmac::{digest::KeyInit, Cmac, Mac};

    #[test]
    fn cmac_readme() {
        // Create `Mac` trait implementation, namely CMAC-AES128
        let mut mac = Cmac::<Aes128>::new_from_slice(b"very secret key.").unwrap();
        mac.update(b"input message");

        // `result` has type `Output` which is a thin wrapper around array of
        // bytes for providing constant time equality check
        let result = mac.finalize();
        // To get underlying array use the `into_bytes` method, but be careful,
        // since incorrect use of the tag value may permit timing attacks which
        // defeat the security provided by the `Output` wrapper
        let tag_bytes = result.into_bytes();

        // And it is CMAC: aesx's own agrees.
        let ours = aesx::Cmac::new(b"very secret key.").unwrap();
        assert_eq!(tag_bytes[..], ours.mac(b"input message")[..]);
    }

    #[test]
    fn cmac_readme_verify() {
        let mut mac = Cmac::<Aes128>::new_from_slice(b"very secret key.").unwrap();

        mac.update(b"input message");

        let tag_bytes = mac.clone().finalize().into_bytes();
        // `verify` will return `Ok(())` if tag is correct, `Err(MacError)` otherwise
        mac.verify(&tag_bytes).unwrap();
    }
}

mod aes_kw_example {
    use aes_kw::KeyInit;
    // aes-kw's `KwAes128` is its `AesKw` over the `aes` crate's cipher;
    // over aesx's it is this alias (aesx has no `KwAes128`: its key wrap is
    // the inherent `aesx::KeyWrap`).
    type KwAes128 = aes_kw::AesKw<aesx::Aes128>;

    #[test]
    fn aes_kw_readme() {
        // Key which is used to perform wrapping
        let kw_key: [u8; 16] = hex!("000102030405060708090A0B0C0D0E0F");
        // Key which will be wrapped
        let key: [u8; 16] = hex!("00112233445566778899AABBCCDDEEFF");
        // Wrapped key
        let wkey: [u8; 24] = hex!("1FA68B0A8112B447AEF34BD8FB5A7B829D3E862371D2CFE5");

        let kw = KwAes128::new(&kw_key.into());

        let mut buf = [0u8; 24];
        kw.wrap_key(&key, &mut buf).unwrap();
        assert_eq!(buf, wkey);

        let mut buf = [0u8; 16];
        kw.unwrap_key(&wkey, &mut buf).unwrap();
        assert_eq!(buf, key);

        // If key size is known at compile time, you can use the fixed methods:
        use aes_kw::cipher::consts::U16;

        let wrapped_key = kw.wrap_fixed_key::<U16>(&key.into());
        assert_eq!(wrapped_key, wkey);
        let unwrapped_key = kw.unwrap_fixed_key::<U16>(&wrapped_key).unwrap();
        assert_eq!(unwrapped_key, key);

        // aesx's inherent key wrap gives the same bytes.
        let ours = aesx::KeyWrap::new(&kw_key).unwrap();
        assert_eq!(ours.wrap(&key).unwrap(), wkey);
    }
}

// ---------------------------------------------------------------------------
// aes-gcm-siv's generic type: code naming `AesGcmSiv<Aes256>` ports with its
// `use` lines, and gives aes-gcm-siv's bytes on every backend.

mod aes_gcm_siv_generic {
    use aesx::aead::{Aead, AeadInOut, KeyInit, Payload};
    use aesx::{Aes128, Aes256, AesGcmSiv, Nonce};
    use rand::{Rng, SeedableRng};

    type Siv256 = AesGcmSiv<Aes256>;
    type Siv128 = AesGcmSiv<Aes128>;

    #[test]
    fn matches_aes_gcm_siv() {
        let mut r = rand::rngs::StdRng::seed_from_u64(8452);
        for len in [0usize, 1, 15, 16, 17, 64, 100, 1000] {
            let k32: [u8; 32] = r.gen();
            let k16: [u8; 16] = r.gen();
            let nonce = Nonce::from(r.gen::<[u8; 12]>());
            let msg: Vec<u8> = (0..len).map(|_| r.gen()).collect();
            let p = || Payload {
                msg: &msg,
                aad: b"aad",
            };
            let want256 = aes_gcm_siv::Aes256GcmSiv::new(&k32.into())
                .encrypt(&nonce, p())
                .unwrap();
            let want128 = aes_gcm_siv::AesGcmSiv::<aes::Aes128>::new(&k16.into())
                .encrypt(&nonce, p())
                .unwrap();
            for b in crate::common::backends() {
                let ours = Siv256::with_backend(&k32, b).unwrap();
                assert_eq!(ours.encrypt(&nonce, p()).unwrap(), want256, "{b} len {len}");
                let ours128 = Siv128::with_backend(&k16, b).unwrap();
                assert_eq!(
                    ours128.encrypt(&nonce, p()).unwrap(),
                    want128,
                    "{b} len {len}"
                );

                // A forged tag: an error and, unlike aes-gcm-siv (which
                // restores the ciphertext), a zeroed buffer.
                let mut buf = want256.clone();
                buf[len] ^= 1;
                let (ct, tag) = buf.split_at_mut(len);
                let tag = aesx::aead::Tag::<Siv256>::try_from(&tag[..]).unwrap();
                assert!(ours
                    .decrypt_inout_detached(&nonce, b"aad", ct.into(), &tag)
                    .is_err());
                assert!(ct.iter().all(|&x| x == 0), "{b} len {len}");
            }
            // The aliases are the generic type.
            let _: aesx::Aes256GcmSiv = Siv256::new(&k32.into());
        }
    }
}

// ---------------------------------------------------------------------------
// aead 0.6's key and nonce generation with the caller's RNG (`rand_core`,
// under `getrandom` here for an RNG to hand): `Generate::generate_from_rng`
// and `KeyInit`'s deprecated `generate_key`, which replaced aead 0.5's
// `generate_key(&mut OsRng)`/`generate_nonce`.

#[cfg(feature = "getrandom")]
mod caller_rng {
    use aesx::aead::common::getrandom::{rand_core::UnwrapErr, SysRng};
    use aesx::aead::{Aead, Generate, Key, KeyInit, Nonce};
    use aesx::Aes256Gcm;

    #[test]
    #[allow(deprecated)] // `generate_key`, kept by crypto-common for porting
    fn keys_and_nonces_from_a_caller_rng() {
        let mut rng = UnwrapErr(SysRng);
        let key = Key::<Aes256Gcm>::generate_from_rng(&mut rng);
        let other = Aes256Gcm::generate_key(&mut rng);
        assert_ne!(key, other);
        let nonce = Nonce::<Aes256Gcm>::generate_from_rng(&mut rng);
        let cipher = Aes256Gcm::new(&key);
        let ct = cipher.encrypt(&nonce, &b"message"[..]).unwrap();
        assert_eq!(cipher.decrypt(&nonce, &ct[..]).unwrap(), b"message");
        assert!(Aes256Gcm::new(&other).decrypt(&nonce, &ct[..]).is_err());
    }
}
