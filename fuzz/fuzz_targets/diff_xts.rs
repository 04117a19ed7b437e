//! AES-XTS against OpenSSL on every backend: both key sizes, any data-unit
//! length (ciphertext stealing included; under 16 bytes refused by both),
//! any sector number, with the last sectors before 2^128 and the
//! multi-sector call that must stop at sector 2^128 - 1. Keys with equal
//! halves are refused for encryption.
#![no_main]

use aesx::{Error, Xts};
use aesx_fuzz::{backends, ossl, Bytes, Mode2};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut b = Bytes(data);
    let sel = b.u8();
    let key_len = if sel & 1 == 0 { 32 } else { 64 };
    let mut key = b.take(key_len).to_vec();
    if key.len() != key_len {
        return;
    }
    let raw = b.u128();
    let back = b.u8() as u128;
    let sector = if sel & 2 == 0 { raw } else { u128::MAX - back };
    let unit = 16 * (1 + b.u8() as usize % 32);
    let data = b.rest();

    let (k1, k2) = key.split_at(key_len / 2);
    if k1 == k2 {
        for backend in backends() {
            let x = Xts::with_backend(&key, backend).unwrap();
            let mut buf = [0u8; 32];
            assert_eq!(
                x.encrypt_sector(sector, &mut buf),
                Err(Error::XtsEqualKeyHalves)
            );
        }
        key[key_len - 1] ^= 1;
    }
    let tweak = Xts::sector_tweak(sector);

    // One data unit of any length.
    let want_ct = ossl(Mode2::Xts, true, &key, Some(&tweak), false, data);
    let want_pt = ossl(Mode2::Xts, false, &key, Some(&tweak), false, data);
    for backend in backends() {
        let x = Xts::with_backend(&key, backend).unwrap();
        let mut enc = data.to_vec();
        let r = x.encrypt_sector(sector, &mut enc);
        if data.len() < Xts::MIN_DATA_UNIT_LEN {
            assert_eq!(r, Err(Error::InvalidDataUnitLength { len: data.len() }));
            assert!(want_ct.is_none(), "OpenSSL took a {}-byte unit", data.len());
            continue;
        }
        r.unwrap();
        assert_eq!(
            Some(&enc),
            want_ct.as_ref(),
            "{backend:?} encrypt len {}",
            data.len()
        );
        let mut dec = data.to_vec();
        x.decrypt_sector(sector, &mut dec).unwrap();
        assert_eq!(Some(&dec), want_pt.as_ref(), "{backend:?} decrypt");
        let mut out = vec![0u8; data.len()];
        x.decrypt_to(&tweak, &enc, &mut out).unwrap();
        assert_eq!(out, data);
    }

    // Whole sectors from `sector` on, in one call.
    let n = data.len() / unit;
    let whole = &data[..n * unit];
    let fits = n == 0 || sector.checked_add(n as u128 - 1).is_some();
    let mut want = Vec::with_capacity(whole.len());
    if fits {
        for (i, s) in whole.chunks(unit).enumerate() {
            let t = Xts::sector_tweak(sector + i as u128);
            want.extend(ossl(Mode2::Xts, true, &key, Some(&t), false, s).unwrap());
        }
    }
    for backend in backends() {
        let x = Xts::with_backend(&key, backend).unwrap();
        let mut buf = whole.to_vec();
        let r = x.encrypt_sectors(unit, sector, &mut buf);
        if !fits {
            assert_eq!(
                r,
                Err(Error::CounterOverflow),
                "{n} sectors from {sector:#x}"
            );
            continue;
        }
        r.unwrap();
        assert_eq!(
            buf, want,
            "{backend:?} {n} sectors of {unit} from {sector:#x}"
        );
        x.decrypt_sectors(unit, sector, &mut buf).unwrap();
        assert_eq!(buf, whole);
    }
});
