//! aesx under RustCrypto's traits (`cipher` 0.5, `aead` 0.6):
//!
//! 1. RustCrypto's own generic test harnesses run against aesx's types: the
//!    `cipher` crate's `block_cipher_test!` with the NESSIE vectors the `aes`
//!    crate tests with, and the `aead` crate's `pass_test`/`fail_test` with
//!    NIST's GCM vectors (the ones `aes-gcm` tests with).
//! 2. An ordinary `aes-gcm` program, written once, compiled three times:
//!    with `use aes_gcm::...`, with only that line changed to `use aesx::...`,
//!    and with `aes-gcm`'s imports plus a type alias to aesx's type. All
//!    three must print the same bytes.
//! 3. Generic functions over the traits, instantiated with RustCrypto's types
//!    and with aesx's (on every backend), give byte-identical results on
//!    random inputs of every length from 0 to 4 KiB, in place and out of
//!    place: AES through `ctr`, `cbc` and `xts-mode`, and AES-GCM.
#![cfg(feature = "rustcrypto")]

mod common;

use aead::inout::InOutBuf;
use aead::{Aead, AeadCore, AeadInOut, Payload};
use aesx::Backend;
use cipher::consts::U16;
use cipher::{
    Array, Block, BlockCipherDecrypt, BlockCipherEncrypt, BlockModeDecrypt, BlockModeEncrypt,
    BlockSizeUser, InnerIvInit, KeyInit, StreamCipher,
};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

// ---------------------------------------------------------------------------
// 1. RustCrypto's harnesses.

// `cipher`'s harness: single block, then 101 blocks through the bulk path
// against block-by-block, both directions (tests/data/*.blb, NESSIE).
cipher::block_cipher_test!(aes128, aesx::Aes128);
cipher::block_cipher_test!(aes192, aesx::Aes192);
cipher::block_cipher_test!(aes256, aesx::Aes256);

/// NIST GCM records with 96-bit IVs and 128-bit tags (what the traits
/// offer) as `aead::dev` test vectors: (passing, failing).
fn nist_gcm(bits: usize) -> (Vec<aead::dev::TestVector>, Vec<aead::dev::TestVector>) {
    let leak = |v: Vec<u8>| -> &'static [u8] { Box::leak(v.into_boxed_slice()) };
    let (mut pass, mut fail) = (Vec::new(), Vec::new());
    for file in [
        format!("nist/GCM/gcmEncryptExtIV{bits}.rsp"),
        format!("nist/GCM/gcmDecrypt{bits}.rsp"),
    ] {
        for r in common::read_rsp(&common::vectors_dir().join(file)) {
            if r.headers["IVLEN"] != "96" || r.headers["TAGLEN"] != "128" {
                continue;
            }
            let mut ct = r.hex("CT");
            ct.extend(r.hex("TAG"));
            let tv = aead::dev::TestVector {
                key: leak(r.hex("KEY")),
                nonce: leak(r.hex("IV")),
                aad: leak(r.hex("AAD")),
                plaintext: if r.fail { &[] } else { leak(r.hex("PT")) },
                ciphertext: leak(ct),
            };
            if r.fail {
                fail.push(tv);
            } else {
                pass.push(tv);
            }
        }
    }
    (pass, fail)
}

fn run_aead_harness<C: AeadInOut + KeyInit>(bits: usize) -> (usize, usize) {
    let (pass, fail) = nist_gcm(bits);
    for (i, tv) in pass.iter().enumerate() {
        if let Err(why) = aead::dev::pass_test::<C>(tv) {
            panic!("AES-{bits}-GCM passing vector {i}: {why}\n{tv:?}");
        }
    }
    for (i, tv) in fail.iter().enumerate() {
        if let Err(why) = aead::dev::fail_test::<C>(tv) {
            panic!("AES-{bits}-GCM failing vector {i}: {why}\n{tv:?}");
        }
    }
    (pass.len(), fail.len())
}

#[test]
fn aead_harness_nist_gcm() {
    let (p, f) = run_aead_harness::<aesx::Aes128Gcm>(128);
    assert!(p > 500 && f > 150, "{p} passing, {f} failing");
    run_aead_harness::<aesx::Aes192Gcm>(192);
    let (p, f) = run_aead_harness::<aesx::Aes256Gcm>(256);
    assert!(p > 500 && f > 150, "{p} passing, {f} failing");
    // The harness itself accepts RustCrypto's own type on the same vectors.
    run_aead_harness::<aes_gcm::Aes128Gcm>(128);
}

// ---------------------------------------------------------------------------
// 2. An ordinary aes-gcm program, three ways.

macro_rules! aes_gcm_program {
    ($name:ident, { $($imports:item)* }) => {
        mod $name {
            $($imports)*

            fn seal_all<A: Aead>(
                cipher: &A,
                nonce: &aead::Nonce<A>,
                msgs: &[&[u8]],
            ) -> Result<Vec<Vec<u8>>, aead::Error> {
                msgs.iter().map(|m| cipher.encrypt(nonce, *m)).collect()
            }

            pub fn main() -> Result<Vec<Vec<u8>>, Box<dyn std::error::Error>> {
                let mut out = Vec::new();

                let key = Key::<Aes256Gcm>::from([0x42; 32]);
                let cipher = Aes256Gcm::new(&key);
                let nonce = Nonce::from([7u8; 12]); // MUST be unique per message
                let ciphertext = cipher.encrypt(&nonce, b"plaintext message".as_ref())?;
                let plaintext = cipher.decrypt(&nonce, ciphertext.as_ref())?;
                assert_eq!(&plaintext, b"plaintext message");
                out.push(ciphertext);

                let sealed = cipher.encrypt(&nonce, Payload { msg: b"body", aad: b"header" })?;
                let opened = cipher.decrypt(&nonce, Payload { msg: &sealed, aad: b"header" })?;
                assert_eq!(opened, b"body");
                assert!(cipher.decrypt(&nonce, Payload { msg: &sealed, aad: b"other" }).is_err());
                out.push(sealed);

                // In place (the `Buffer` trait), with a detached tag, and
                // out of place through `InOutBuf`.
                let mut buffer: Vec<u8> = Vec::with_capacity(128);
                buffer.extend_from_slice(b"plaintext message");
                cipher.encrypt_in_place(&nonce, b"", &mut buffer)?;
                out.push(buffer.clone());
                cipher.decrypt_in_place(&nonce, b"", &mut buffer)?;
                assert_eq!(&buffer, b"plaintext message");

                let mut detached = *b"detached";
                let tag = cipher.encrypt_inout_detached(&nonce, b"aad", (&mut detached[..]).into())?;
                out.push(detached.to_vec());
                out.push(tag.to_vec());
                let mut back = [0u8; 8];
                let io = aead::inout::InOutBuf::new(&detached, &mut back).unwrap();
                cipher.decrypt_inout_detached(&nonce, b"aad", io, &tag)?;
                assert_eq!(&back, b"detached");

                // Keys from slices, and generic code over `Aead`.
                let short = Aes128Gcm::new_from_slice(&[0x24; 16])?;
                assert!(Aes128Gcm::new_from_slice(&[0x24; 15]).is_err());
                out.extend(seal_all(&short, &Nonce::from([9u8; 12]), &[b"", b"a", &[5u8; 100]])?);
                Ok(out)
            }
        }
    };
}

aes_gcm_program!(with_aes_gcm, {
    use aes_gcm::aead::{Aead, AeadInOut, KeyInit, Payload};
    use aes_gcm::{Aes128Gcm, Aes256Gcm, Key, Nonce};
});

// The same program with only its `use` lines pointing at aesx.
aes_gcm_program!(with_aesx, {
    use aesx::aead::{Aead, AeadInOut, KeyInit, Payload};
    use aesx::{Aes128Gcm, Aes256Gcm, Key, Nonce};
});

// aes-gcm's imports kept, aesx's types brought in by type aliases.
aes_gcm_program!(with_alias, {
    use aes_gcm::aead::{Aead, AeadInOut, KeyInit, Payload};
    use aes_gcm::{Key, Nonce};
    type Aes128Gcm = aesx::Aes128Gcm;
    type Aes256Gcm = aesx::Aes256Gcm;
});

#[test]
fn aes_gcm_program_runs_unchanged_on_aesx() {
    let want = with_aes_gcm::main().unwrap();
    assert_eq!(with_aesx::main().unwrap(), want);
    assert_eq!(with_alias::main().unwrap(), want);
}

// ---------------------------------------------------------------------------
// 3. Generic code, RustCrypto's types against aesx's on random inputs.

/// Every length from 0 to 4 KiB.
const MAX_LEN: usize = 4096;

fn to_blocks(data: &[u8]) -> Vec<Block<aes::Aes128>> {
    data.chunks_exact(16)
        .map(|c| Array::try_from(c).unwrap())
        .collect()
}

fn from_blocks(blocks: &[Block<aes::Aes128>]) -> Vec<u8> {
    blocks.iter().flat_map(|b| b.iter().copied()).collect()
}

/// Runs `f` over a copy of `blocks`, in place (`f` gets no source) or out
/// of place into a fresh buffer; returns the output.
fn on_blocks(
    blocks: &[Block<aes::Aes128>],
    in_place: bool,
    f: impl FnOnce(Option<&[Block<aes::Aes128>]>, &mut [Block<aes::Aes128>]),
) -> Vec<Block<aes::Aes128>> {
    if in_place {
        let mut b = blocks.to_vec();
        f(None, &mut b);
        b
    } else {
        let mut out = vec![Array::default(); blocks.len()];
        f(Some(blocks), &mut out);
        out
    }
}

/// CTR-128-BE through `ctr`, split at `split`, in place or out of place.
fn ctr_generic<C>(cipher: C, iv: &[u8; 16], data: &[u8], split: usize, in_place: bool) -> Vec<u8>
where
    C: BlockCipherEncrypt + BlockSizeUser<BlockSize = U16>,
{
    let core = ctr::CtrCore::<C, ctr::flavors::Ctr128BE>::inner_iv_init(cipher, &(*iv).into());
    let mut s = ctr::Ctr128BE::<C>::from_core(core);
    if in_place {
        let mut buf = data.to_vec();
        s.apply_keystream(&mut buf[..split]);
        s.apply_keystream(&mut buf[split..]);
        buf
    } else {
        let mut out = vec![0xeeu8; data.len()];
        s.apply_keystream_b2b(&data[..split], &mut out[..split]);
        s.apply_keystream_b2b(&data[split..], &mut out[split..]);
        out
    }
}

/// CBC encryption then decryption through `cbc`, whole blocks; returns the
/// ciphertext (and checks the round trip).
fn cbc_generic<C>(enc: C, dec: C, iv: &[u8; 16], data: &[u8], in_place: bool) -> Vec<u8>
where
    C: BlockCipherEncrypt + BlockCipherDecrypt + BlockSizeUser<BlockSize = U16>,
{
    let mut e = cbc::Encryptor::<C>::inner_iv_init(enc, &(*iv).into());
    let mut d = cbc::Decryptor::<C>::inner_iv_init(dec, &(*iv).into());
    let pt = to_blocks(data);
    let ct = on_blocks(&pt, in_place, |src, dst| match src {
        None => e.encrypt_blocks(dst),
        Some(src) => e.encrypt_blocks_b2b(src, dst).unwrap(),
    });
    let back = on_blocks(&ct, in_place, |src, dst| match src {
        None => d.decrypt_blocks(dst),
        Some(src) => d.decrypt_blocks_b2b(src, dst).unwrap(),
    });
    assert_eq!(back, pt, "CBC round trip");
    from_blocks(&ct)
}

/// ECB through the block cipher traits, bulk and block by block.
fn ecb_generic<C>(cipher: &C, data: &[u8], in_place: bool) -> Vec<u8>
where
    C: BlockCipherEncrypt + BlockCipherDecrypt + BlockSizeUser<BlockSize = U16>,
{
    let pt = to_blocks(data);
    let ct = on_blocks(&pt, in_place, |src, dst| match src {
        None => cipher.encrypt_blocks(dst),
        Some(src) => cipher.encrypt_blocks_b2b(src, dst).unwrap(),
    });
    for (p, c) in pt.iter().zip(&ct) {
        let mut one = *p;
        cipher.encrypt_block(&mut one);
        assert_eq!(&one, c, "single block against bulk");
        cipher.decrypt_block(&mut one);
        assert_eq!(&one, p);
    }
    let mut back = ct.clone();
    cipher.decrypt_blocks(&mut back);
    assert_eq!(back, pt, "ECB round trip");
    from_blocks(&ct)
}

/// XTS through `xts-mode` (in place only: that is its API): one sector of
/// `data.len()` bytes, then the same buffer as 512-byte sectors.
fn xts_generic<C>(xts: &xts_mode::Xts128<C>, sector: u128, data: &[u8]) -> Vec<u8>
where
    C: BlockCipherEncrypt + BlockCipherDecrypt + BlockSizeUser<BlockSize = U16>,
{
    let mut one = data.to_vec();
    xts.encrypt_sector(&mut one, xts_mode::get_tweak_default(sector));
    let mut back = one.clone();
    xts.decrypt_sector(&mut back, xts_mode::get_tweak_default(sector));
    assert_eq!(back, data, "XTS round trip");
    let mut area = data.to_vec();
    if area.len().is_multiple_of(512) || area.len() % 512 >= 16 {
        xts.encrypt_area(&mut area, 512, sector, xts_mode::get_tweak_default);
        one.extend_from_slice(&area);
    }
    one
}

/// AES-GCM through `AeadInOut`/`Aead`: in place (`Buffer`) or out of place
/// (`InOutBuf`); returns ciphertext and tag, after checking that decryption
/// returns the plaintext and that a flipped bit is refused.
fn gcm_generic<A>(cipher: &A, nonce: &[u8; 12], aad: &[u8], data: &[u8], in_place: bool) -> Vec<u8>
where
    A: AeadInOut + AeadCore<NonceSize = cipher::consts::U12>,
{
    let nonce = &Array::from(*nonce);
    let sealed = if in_place {
        let mut buf = data.to_vec();
        cipher.encrypt_in_place(nonce, aad, &mut buf).unwrap();
        buf
    } else {
        let mut ct = vec![0xeeu8; data.len()];
        let tag = cipher
            .encrypt_inout_detached(nonce, aad, InOutBuf::new(data, &mut ct).unwrap())
            .unwrap();
        ct.extend_from_slice(&tag);
        ct
    };
    let (ct, tag) = sealed.split_at(data.len());
    let tag = &Array::try_from(tag).unwrap();
    if in_place {
        let mut buf = sealed.clone();
        cipher.decrypt_in_place(nonce, aad, &mut buf).unwrap();
        assert_eq!(buf, data, "GCM round trip");
    } else {
        let mut pt = vec![0xeeu8; data.len()];
        cipher
            .decrypt_inout_detached(nonce, aad, InOutBuf::new(ct, &mut pt).unwrap(), tag)
            .unwrap();
        assert_eq!(pt, data, "GCM round trip");
    }
    let mut forged = sealed.clone();
    let at = data.len() / 2;
    forged[at] ^= 0x10;
    assert!(cipher
        .decrypt(nonce, Payload { msg: &forged, aad })
        .is_err());
    sealed
}

fn rng(seed: u64) -> StdRng {
    StdRng::seed_from_u64(seed)
}

/// Calls `check(r, len, backends)` for every length from 0 to `MAX_LEN`,
/// drawing from one RNG seeded with `seed`.
fn each_length(seed: u64, mut check: impl FnMut(&mut StdRng, usize, &[Backend])) {
    let backends = common::backends();
    let mut r = rng(seed);
    for len in 0..=MAX_LEN {
        check(&mut r, len, &backends);
    }
}

macro_rules! block_cipher_differential {
    ($test:ident, $rc:ty, $ours:ty, $klen:literal, $seed:literal) => {
        #[test]
        fn $test() {
            each_length($seed, |r, len, backends| {
                let key: [u8; $klen] = r.gen();
                let key2: [u8; $klen] = r.gen();
                let iv: [u8; 16] = r.gen();
                let data = common::random_bytes(r, len);
                let split = r.gen_range(0..=len);
                let whole = &data[..len - len % 16];
                let in_place = len % 2 == 0;
                let rc = <$rc>::new(&key.into());
                let rc2 = <$rc>::new(&key2.into());

                let want_ctr = ctr_generic(rc.clone(), &iv, &data, split, in_place);
                let want_cbc = (len % 16 == 0)
                    .then(|| cbc_generic(rc.clone(), rc.clone(), &iv, whole, in_place));
                let want_ecb = (len % 16 == 0).then(|| ecb_generic(&rc, whole, !in_place));
                let want_xts = (len >= 16 && len % 7 == 0).then(|| {
                    xts_generic(
                        &xts_mode::Xts128::new(rc.clone(), rc2.clone()),
                        len as u128,
                        &data,
                    )
                });
                for &b in backends {
                    let ours = <$ours>::with_backend(&key, b).unwrap();
                    let ours2 = <$ours>::with_backend(&key2, b).unwrap();
                    assert_eq!(
                        ctr_generic(ours.clone(), &iv, &data, split, in_place),
                        want_ctr,
                        "ctr, {b}, len {len}, split {split}"
                    );
                    assert_eq!(
                        ctr_generic(ours.clone(), &iv, &data, split, !in_place),
                        want_ctr,
                        "ctr (other placement), {b}, len {len}"
                    );
                    if let Some(want) = &want_cbc {
                        assert_eq!(
                            &cbc_generic(ours.clone(), ours.clone(), &iv, whole, in_place),
                            want,
                            "cbc, {b}, len {len}"
                        );
                    }
                    if let Some(want) = &want_ecb {
                        assert_eq!(
                            &ecb_generic(&ours, whole, !in_place),
                            want,
                            "ecb, {b}, len {len}"
                        );
                    }
                    if let Some(want) = &want_xts {
                        let xts = xts_mode::Xts128::new(ours.clone(), ours2.clone());
                        assert_eq!(
                            &xts_generic(&xts, len as u128, &data),
                            want,
                            "xts, {b}, len {len}"
                        );
                    }
                }
            });
        }
    };
}

block_cipher_differential!(differential_aes128, aes::Aes128, aesx::Aes128, 16, 128);
block_cipher_differential!(differential_aes192, aes::Aes192, aesx::Aes192, 24, 192);
block_cipher_differential!(differential_aes256, aes::Aes256, aesx::Aes256, 32, 256);

macro_rules! aead_differential {
    ($test:ident, $rc:ty, $ours:ty, $klen:literal, $seed:literal) => {
        #[test]
        fn $test() {
            each_length($seed, |r, len, backends| {
                let key: [u8; $klen] = r.gen();
                let nonce: [u8; 12] = r.gen();
                let aad_len = if len % 5 == 0 {
                    r.gen_range(0..600)
                } else {
                    r.gen_range(0..40)
                };
                let aad = common::random_bytes(r, aad_len);
                let data = common::random_bytes(r, len);
                let rc = <$rc>::new(&key.into());
                let want = gcm_generic(&rc, &nonce, &aad, &data, len % 2 == 0);
                for &b in backends {
                    let ours = <$ours>::with_backend(&key, b).unwrap();
                    for in_place in [true, false] {
                        assert_eq!(
                            gcm_generic(&ours, &nonce, &aad, &data, in_place),
                            want,
                            "{b}, len {len}, aad {aad_len}, in place {in_place}"
                        );
                    }
                }
            });
        }
    };
}

aead_differential!(
    differential_aes128_gcm,
    aes_gcm::Aes128Gcm,
    aesx::Aes128Gcm,
    16,
    1128
);
aead_differential!(
    differential_aes256_gcm,
    aes_gcm::Aes256Gcm,
    aesx::Aes256Gcm,
    32,
    1256
);

/// AES-192-GCM has no RustCrypto type of its own in aes-gcm 0.11's defaults;
/// it is checked against aesx's inherent `Gcm` (itself tested against NIST
/// and OpenSSL).
#[test]
fn aes192_gcm_matches_inherent_gcm() {
    let mut r = rng(1192);
    for len in (0..=MAX_LEN).step_by(13) {
        let key: [u8; 24] = r.gen();
        let nonce: [u8; 12] = r.gen();
        let data = common::random_bytes(&mut r, len);
        for b in common::backends() {
            let want = aesx::Gcm::with_backend(&key, b)
                .unwrap()
                .seal(&nonce, b"ad", &data)
                .unwrap();
            let ours = aesx::Aes192Gcm::with_backend(&key, b).unwrap();
            assert_eq!(gcm_generic(&ours, &nonce, b"ad", &data, len % 2 == 0), want);
        }
    }
}

// ---------------------------------------------------------------------------
// Behaviour the traits leave to the implementation.

#[test]
fn failed_decryption_releases_nothing() {
    for b in common::backends() {
        let gcm = aesx::Aes128Gcm::with_backend(&[3; 16], b).unwrap();
        let nonce = Array::from([4u8; 12]);
        let data = [0x5au8; 100];
        let mut ct = [0u8; 100];
        let tag = gcm
            .encrypt_inout_detached(&nonce, b"", InOutBuf::new(&data, &mut ct).unwrap())
            .unwrap();
        let mut bad = tag;
        bad[0] ^= 1;
        // Out of place: the output is zeroed, the input untouched.
        let mut pt = [0xeeu8; 100];
        let io = InOutBuf::new(&ct, &mut pt).unwrap();
        assert!(gcm.decrypt_inout_detached(&nonce, b"", io, &bad).is_err());
        assert_eq!(pt, [0u8; 100], "{b}");
        // In place: the buffer is zeroed.
        let mut buf = ct;
        assert!(gcm
            .decrypt_inout_detached(&nonce, b"", (&mut buf[..]).into(), &bad)
            .is_err());
        assert_eq!(buf, [0u8; 100], "{b}");
    }
}

#[test]
fn key_init_uses_the_fastest_backend_and_with_backend_forces() {
    assert_eq!(
        aesx::Aes128::new(&[0; 16].into()).backend(),
        Backend::fastest()
    );
    assert_eq!(
        aesx::Aes256Gcm::new(&[0; 32].into()).backend(),
        Backend::fastest()
    );
    for b in Backend::ALL {
        assert_eq!(
            aesx::Aes192::with_backend(&[0; 24], b).is_ok(),
            b.is_available()
        );
        assert_eq!(
            aesx::Aes128Gcm::with_backend(&[0; 16], b).is_ok(),
            b.is_available()
        );
    }
    assert!(aesx::Aes256::new_from_slice(&[0; 31]).is_err());
    assert!(aesx::Aes256Gcm::new_from_slice(&[0; 33]).is_err());
}

#[test]
fn debug_prints_no_secrets() {
    // 0xa7 = 167: neither form may appear in any Debug output.
    let key = [0xa7u8; 32];
    let iv = [0xa7u8; 16];
    let mut ctr = aesx::Ctr::new(&key[..16], &iv).unwrap();
    ctr.apply_keystream(&mut [0u8; 5]);
    let outputs = [
        format!("{:?}", aesx::Aes128::new(&[0xa7; 16].into())),
        format!("{:?}", aesx::Aes256Gcm::new(&key.into())),
        format!("{ctr:?}"),
        format!("{:?}", aesx::Esp::new(&key[..16], &[0xa7; 4], 16).unwrap()),
        format!("{:?}", aesx::Aes::new(&key).unwrap()),
        format!("{:?}", aesx::Gcm::new(&key).unwrap()),
        format!(
            "{:?}",
            aesx::Xts::new(&[[0xa7u8; 16], [0x7au8; 16]].concat()).unwrap()
        ),
        format!("{:?}", aesx::Cbc::new(&key).unwrap()),
        format!("{:?}", aesx::Ecb::new(&key).unwrap()),
    ];
    for out in outputs {
        let lower = out.to_ascii_lowercase();
        assert!(!lower.contains("a7") && !out.contains("167"), "{out}");
        assert!(!lower.contains("7a") && !out.contains("122"), "{out}");
    }
}

#[test]
fn key_types_zeroize_on_drop() {
    fn zeroizes<T: zeroize::ZeroizeOnDrop>() {}
    zeroizes::<aesx::Aes128>();
    zeroizes::<aesx::Aes192>();
    zeroizes::<aesx::Aes256>();
    zeroizes::<aesx::Aes128Gcm>();
    zeroizes::<aesx::Aes192Gcm>();
    zeroizes::<aesx::Aes256Gcm>();
}
