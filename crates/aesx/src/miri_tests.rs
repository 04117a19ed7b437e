//! Small tests meant for Miri (`.ci/miri.sh`), which also run in the normal
//! suite: the `InOut` aliasing rules the kernels rely on, and every mode's
//! glue on the soft backend with inputs short enough for the interpreter
//! (partial blocks, stealing, counters, tags). Known answers from FIPS 197,
//! SP 800-38A and the GCM specification's test cases.

use crate::backend::kernels::inout::InOut;
use crate::{Aes, Backend, Cbc, Ctr, Ecb, Error, Gcm, Padding, Xts};

fn h(s: &str) -> alloc::vec::Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

const SOFT: Backend = Backend::Soft;

#[test]
fn inout_in_place_and_disjoint() {
    // In place: exact aliasing, each block read before it is written.
    let mut buf = [1u8; 40];
    {
        let mut io = InOut::in_place(&mut buf);
        assert_eq!(io.src_ptr(), io.dst_ptr().cast_const());
        assert_eq!((io.len(), io.blocks()), (40, 2));
        let b = io.read_block(1);
        io.write_block(0, &b);
        io.xor_from(&[3u8; 20]);
        let (whole, mut tail) = io.split_blocks();
        assert_eq!((whole.len(), tail.len()), (32, 8));
        tail.write_from(&[9u8; 8]);
        let mut first = [0u8; 4];
        tail.read_into(&mut first);
        assert_eq!(first, [9; 4]);
    }
    assert_eq!(&buf[..20], &[2u8; 20]);
    assert_eq!(&buf[20..32], &[1u8; 12]);
    assert_eq!(&buf[32..], &[9u8; 8]);

    // Disjoint: reads the source, writes only the destination.
    let src = [5u8; 33];
    let mut dst = [0u8; 33];
    {
        let mut io = InOut::new(&src, &mut dst).unwrap();
        assert_ne!(io.src_ptr(), io.dst_ptr().cast_const());
        let mut r = io.reborrow();
        r.xor_from(&[1u8; 33]);
        let (mut a, mut b) = io.split_at(100); // clamped
        assert_eq!((a.len(), b.len()), (33, 0));
        a.write_block(1, &[7u8; 16]);
        b.write_from(&[]);
    }
    assert_eq!(&dst[..16], &[4u8; 16]);
    assert_eq!(&dst[16..32], &[7u8; 16]);
    assert_eq!(dst[32], 4);
    assert_eq!(src, [5u8; 33]);
    let mut short = [0u8; 3];
    assert!(matches!(
        InOut::new(&src, &mut short),
        Err(Error::LengthMismatch { .. })
    ));
    // Empty buffers make valid (dangling but unused) pointers.
    let mut empty: [u8; 0] = [];
    let io = InOut::in_place(&mut empty);
    assert!(io.is_empty());
}

#[test]
fn block_fips197() {
    // FIPS 197 appendix C: each key is the bytes 00, 01, 02, ... of its
    // length.
    for (len, ct) in [
        (16, "69c4e0d86a7b0430d8cdb78070b4c55a"),
        (24, "dda97ca4864cdfe06eaf70a0ec0d7191"),
        (32, "8ea2b7ca516745bfeafc49904b496089"),
    ] {
        let key: alloc::vec::Vec<u8> = (0..len).collect();
        let aes = Aes::with_backend(&key, SOFT).unwrap();
        let pt: [u8; 16] = h("00112233445566778899aabbccddeeff").try_into().unwrap();
        let mut b = pt;
        aes.encrypt_block(&mut b);
        assert_eq!(b.to_vec(), h(ct));
        aes.decrypt_block(&mut b);
        assert_eq!(b, pt);
        // Out of place over two blocks.
        let src = [pt, pt].concat();
        let mut dst = [0u8; 32];
        aes.encrypt_blocks_to(&src, &mut dst).unwrap();
        assert_eq!(dst[16..].to_vec(), h(ct));
    }
}

#[test]
fn ecb_cbc_glue() {
    let key = h("2b7e151628aed2a6abf7158809cf4f3c");
    let iv = h("000102030405060708090a0b0c0d0e0f");
    let pt = h("6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e51");
    let cbc = Cbc::with_backend(&key, SOFT).unwrap();
    let ct = cbc.encrypt_vec(&iv, &pt, Padding::None).unwrap();
    assert_eq!(
        ct,
        h("7649abac8119b246cee98e9b12e9197d5086cb9b507219ee95db113a917678b2")
    );
    assert_eq!(cbc.decrypt_vec(&iv, &ct, Padding::None).unwrap(), pt);
    let ecb = Ecb::with_backend(&key, SOFT).unwrap();
    assert_eq!(
        ecb.encrypt_vec(&pt[..16], Padding::None).unwrap(),
        h("3ad77bb40d7a3660a89ecaf32466ef97")
    );
    // Padding on the lengths around the block boundaries (every length up
    // to two blocks outside Miri, which interprets each batch slowly).
    let lens: alloc::vec::Vec<usize> = if cfg!(miri) {
        alloc::vec![0, 1, 15, 16, 17, 32]
    } else {
        (0..=32).collect()
    };
    for len in lens {
        let msg = &pt[..len];
        for p in [Padding::Pkcs7, Padding::None] {
            if p == Padding::None && !msg.len().is_multiple_of(16) {
                assert!(cbc.encrypt_vec(&iv, msg, p).is_err());
                continue;
            }
            let c = cbc.encrypt_vec(&iv, msg, p).unwrap();
            assert_eq!(cbc.decrypt_vec(&iv, &c, p).unwrap(), msg);
            let e = ecb.encrypt_vec(msg, p).unwrap();
            assert_eq!(ecb.decrypt_vec(&e, p).unwrap(), msg);
        }
    }
    // Bad padding: refused, output zeroed.
    let mut out = [0xaau8; 16];
    let bad = ecb.encrypt_vec(&[0u8; 16], Padding::None).unwrap();
    assert_eq!(
        ecb.decrypt(&bad, &mut out, Padding::Pkcs7),
        Err(Error::BadPadding)
    );
    assert_eq!(out, [0u8; 16]);
    let mut buf = pt.clone();
    let mut chain: [u8; 16] = iv.clone().try_into().unwrap();
    cbc.encrypt_chained(&mut chain, &mut buf[..16]).unwrap();
    cbc.encrypt_chained(&mut chain, &mut buf[16..]).unwrap();
    assert_eq!(buf, ct);
}

#[test]
fn ctr_glue_and_wrap() {
    let key = h("2b7e151628aed2a6abf7158809cf4f3c");
    let iv = h("f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff");
    let mut data = h("6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e51");
    let want = h("874d6191b620e3261bef6864990db6ce9806f66b7970fdff8617187bb9fffdff");
    Ctr::with_backend(&key, &iv, SOFT)
        .unwrap()
        .apply_keystream(&mut data);
    assert_eq!(data, want);
    // In odd pieces, out of place, and from a seek.
    let pt = h("6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e51");
    let mut c = Ctr::with_backend(&key, &iv, SOFT).unwrap();
    let mut out = [0u8; 32];
    for (a, b) in [(0, 3), (3, 19), (19, 32)] {
        c.apply_keystream_to(&pt[a..b], &mut out[a..b]).unwrap();
    }
    assert_eq!(out.to_vec(), want);
    let mut c = Ctr::with_backend(&key, &iv, SOFT).unwrap();
    c.seek(21);
    let mut tail = pt[21..].to_vec();
    c.apply_keystream(&mut tail);
    assert_eq!(tail, want[21..]);
    // The counter wraps mod 2^128: block 1 after all-ones is block 0 of zero.
    let mut a = [0u8; 32];
    Ctr::with_backend(&key, &[0xff; 16], SOFT)
        .unwrap()
        .apply_keystream(&mut a);
    let mut z = [0u8; 16];
    Ctr::with_backend(&key, &[0; 16], SOFT)
        .unwrap()
        .apply_keystream(&mut z);
    assert_eq!(a[16..], z);
}

#[test]
fn gcm_glue() {
    // GCM specification, test cases 1 and 2 (zero key and nonce).
    let g = Gcm::with_backend(&[0u8; 16], SOFT).unwrap();
    let iv = [0u8; 12];
    assert_eq!(
        g.seal(&iv, &[], &[]).unwrap(),
        h("58e2fccefa7e3061367f1d57a4e7455a")
    );
    let ct = g.seal(&iv, &[], &[0u8; 16]).unwrap();
    assert_eq!(
        ct,
        h("0388dace60b6a392f328c2b971b2fe78ab6e47d42cec13bdf53a67b21257bddf")
    );
    assert_eq!(g.open(&iv, &[], &ct).unwrap(), [0u8; 16]);
    // Odd lengths, AAD, a long nonce, the incremental API cut mid-block.
    let pt: alloc::vec::Vec<u8> = (0..37u8).collect();
    let aad = [7u8; 5];
    let nonce = [3u8; 17];
    let sealed = g.seal(&nonce, &aad, &pt).unwrap();
    let mut e = g.encryptor(&nonce).unwrap();
    e.aad(&aad).unwrap();
    let mut inc = pt.clone();
    let (x, y) = inc.split_at_mut(5);
    e.encrypt_in_place(x).unwrap();
    e.encrypt_in_place(y).unwrap();
    assert_eq!(inc, sealed[..37]);
    assert_eq!(e.finish().as_bytes(), &sealed[37..]);
    // A forged tag: refused, output zeroed.
    let mut forged = sealed.clone();
    forged[40] ^= 1;
    let mut out = [0xaau8; 37];
    assert_eq!(
        g.open_to(&nonce, &aad, &forged, &mut out),
        Err(Error::AuthenticationFailed)
    );
    assert_eq!(out, [0u8; 37]);
    let short = g.clone().with_tag_len(12).unwrap();
    let s = short.seal(&nonce, &aad, &pt).unwrap();
    assert_eq!(s[..49], sealed[..49]);
    assert_eq!(short.open(&nonce, &aad, &s).unwrap(), pt);
    assert_eq!(g.seal(&[], &[], &[]), Err(Error::EmptyNonce));
}

#[test]
fn xts_glue() {
    // IEEE 1619 vector 2 (XTS-AES-128).
    let key = [[0x11u8; 16], [0x22u8; 16]].concat();
    let x = Xts::with_backend(&key, SOFT).unwrap();
    let mut buf = [0x44u8; 32];
    x.encrypt_sector(0x3333333333, &mut buf).unwrap();
    assert_eq!(
        buf.to_vec(),
        h("c454185e6a16936e39334038acef838bfb186fff7480adc4289382ecd6d394f0")
    );
    x.decrypt_sector(0x3333333333, &mut buf).unwrap();
    assert_eq!(buf, [0x44u8; 32]);
    // Ciphertext stealing on 17 and 31 bytes, out of place.
    for len in [16usize, 17, 31, 33] {
        let src: alloc::vec::Vec<u8> = (0..len as u8).collect();
        let mut ct = alloc::vec![0u8; len];
        let t = Xts::sector_tweak(u128::MAX);
        x.encrypt_to(&t, &src, &mut ct).unwrap();
        let mut back = alloc::vec![0u8; len];
        x.decrypt_to(&t, &ct, &mut back).unwrap();
        assert_eq!(back, src);
    }
    // Sectors up to 2^128 - 1, and not one past.
    let mut two = [0u8; 64];
    x.encrypt_sectors(32, u128::MAX - 1, &mut two).unwrap();
    assert_eq!(
        x.encrypt_sectors(32, u128::MAX, &mut two),
        Err(Error::CounterOverflow)
    );
    let mut short = [0u8; 15];
    assert!(x.encrypt_sector(0, &mut short).is_err());
    let same = Xts::with_backend(&[9u8; 32], SOFT).unwrap();
    assert_eq!(
        same.encrypt_sector(0, &mut [0u8; 16]),
        Err(Error::XtsEqualKeyHalves)
    );
}

#[test]
fn gcm_siv_and_xaes_glue() {
    // RFC 8452 Appendix C.1: one AAD byte, eight plaintext bytes.
    let siv = crate::GcmSiv::with_backend(&h("01000000000000000000000000000000"), SOFT).unwrap();
    let nonce = h("030000000000000000000000");
    let mut buf = h("0200000000000000");
    let tag = siv.seal_in_place_detached(&nonce, &[1], &mut buf).unwrap();
    assert_eq!(buf, h("1e6daba35669f427"));
    assert_eq!(tag.as_bytes(), &h("3b0a1a2560969cdf790d99759abd1508")[..]);
    let mut forged = tag.as_bytes().to_vec();
    forged[0] ^= 1;
    assert_eq!(
        siv.open_in_place_detached(&nonce, &[1], &mut buf, &forged),
        Err(Error::AuthenticationFailed)
    );
    assert_eq!(buf, [0u8; 8]);
    // c2sp.org/XAES-256-GCM, the first worked example.
    let x = crate::Xaes256Gcm::with_backend(&[1u8; 32], SOFT).unwrap();
    let mut buf = *b"XAES-256-GCM";
    let tag = x
        .seal_in_place_detached(b"ABCDEFGHIJKLMNOPQRSTUVWX", b"", &mut buf)
        .unwrap();
    let want = h("ce546ef63c9cc60765923609b33a9a1974e96e52daf2fcf7075e2271");
    assert_eq!(&buf[..], &want[..12]);
    assert_eq!(tag.as_bytes(), &want[12..]);
}

/// CCM, CMAC and key wrap on the soft backend (the generic `MacKernels`):
/// SP 800-38C example 1, RFC 4493 example 2, RFC 3394 4.1 and RFC 5649's
/// 7-byte example; a forged CCM tag zeroes the buffer.
#[test]
fn ccm_cmac_keywrap_glue() {
    use crate::{Ccm, Cmac, KeyWrap};

    let ccm = Ccm::with_backend(&h("404142434445464748494a4b4c4d4e4f"), 4, SOFT).unwrap();
    let (nonce, aad) = (h("10111213141516"), h("0001020304050607"));
    let mut buf = h("20212223");
    let tag = ccm.seal_in_place_detached(&nonce, &aad, &mut buf).unwrap();
    assert_eq!(buf, h("7162015b"));
    assert_eq!(tag.as_bytes(), &h("4dac255d")[..]);
    let mut forged = buf.clone();
    assert_eq!(
        ccm.open_in_place_detached(&nonce, &aad, &mut forged, &h("4dac255e")),
        Err(Error::AuthenticationFailed)
    );
    assert_eq!(forged, [0u8; 4]);
    ccm.open_in_place_detached(&nonce, &aad, &mut buf, tag.as_bytes())
        .unwrap();
    assert_eq!(buf, h("20212223"));

    let cmac = Cmac::with_backend(&h("2b7e151628aed2a6abf7158809cf4f3c"), SOFT).unwrap();
    let mut hs = cmac.hasher();
    hs.update(&h("6bc1bee22e409f96"));
    hs.update(&h("e93d7e117393172a"));
    assert_eq!(
        hs.finalize().to_vec(),
        h("070a16b46b4d4144f79bdd9dd04a287c")
    );

    let kw = KeyWrap::with_backend(&h("000102030405060708090a0b0c0d0e0f"), SOFT).unwrap();
    let w = kw.wrap(&h("00112233445566778899aabbccddeeff")).unwrap();
    assert_eq!(w, h("1fa68b0a8112b447aef34bd8fb5a7b829d3e862371d2cfe5"));
    assert_eq!(
        kw.unwrap(&w).unwrap(),
        h("00112233445566778899aabbccddeeff")
    );
    let kwp = KeyWrap::with_backend(&h("5840df6e29b02af1ab493b705bf16ea1ae8338f4dcc176a8"), SOFT)
        .unwrap();
    let w = kwp.wrap_pad(&h("466f7250617369")).unwrap();
    assert_eq!(w, h("afbeb0f07dfbf5419200f2ccb50bb24f"));
    assert_eq!(kwp.unwrap_pad(&w).unwrap(), h("466f7250617369"));
}
