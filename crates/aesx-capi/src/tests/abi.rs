//! The entry points called from Rust as C would call them.

use core::ffi::{c_int, CStr};
use core::ptr::{null, null_mut};

use aesx::{Backend, Cbc, Error, Esp, Gcm, Padding};

use crate::*;

fn key(bytes: &[u8], backend: c_int) -> *mut AesxKey {
    let mut k = null_mut();
    // SAFETY: valid pointers for their lengths.
    let rc = unsafe { aesx_key_new(bytes.as_ptr(), bytes.len(), backend, &mut k) };
    assert_eq!(rc, AESX_OK);
    k
}

fn backends() -> Vec<c_int> {
    Backend::available().iter().map(keys::id_of).collect()
}

#[test]
fn a_panic_becomes_an_internal_error() {
    let rc = status::guard(|| panic!("deliberate"));
    assert_eq!(rc, AESX_ERR_INTERNAL);
    assert_eq!(status::guard(|| Ok(())), AESX_OK);
    assert_eq!(status::guard(|| Err(AESX_ERR_OVERLAP)), AESX_ERR_OVERLAP);
}

#[test]
fn every_library_error_has_its_own_code_and_message() {
    let errors = [
        Error::InvalidKeyLength { len: 1 },
        Error::InvalidIvLength {
            expected: 16,
            got: 1,
        },
        Error::NotBlockAligned { len: 1 },
        Error::OutputTooSmall { needed: 2, got: 1 },
        Error::BadPadding,
        Error::UnknownBackend,
        Error::BackendUnavailable(Backend::Armv8),
        Error::CounterOverflow,
        Error::AuthenticationFailed,
        Error::InvalidTagLength { len: 5 },
        Error::MessageTooLong,
        Error::AadTooLong,
        Error::EmptyNonce,
        Error::XtsEqualKeyHalves,
        Error::InvalidDataUnitLength { len: 1 },
        Error::InvalidSectorSize { size: 1 },
        Error::InvalidAadLength { len: 1 },
        Error::PartialSector {
            len: 1,
            sector_size: 16,
        },
        Error::InvalidWrapLength { len: 1 },
    ];
    let mut codes: Vec<c_int> = errors.iter().map(|&e| status::code(e)).collect();
    assert!(codes.iter().all(|&c| c < 0 && c != AESX_ERR_INTERNAL));
    codes.sort_unstable();
    codes.dedup();
    assert_eq!(codes.len(), errors.len());
    // SAFETY: aesx_strerror returns a static NUL-terminated string for any code.
    let unknown = unsafe { CStr::from_ptr(aesx_strerror(-1000)) };
    for c in AESX_ERR_WRAP_LENGTH..=AESX_OK {
        // SAFETY: aesx_strerror returns static NUL-terminated strings.
        let msg = unsafe { CStr::from_ptr(aesx_strerror(c)) };
        assert_ne!(msg, unknown, "code {c}");
    }
}

#[test]
fn checksum_matches_the_library_esp() {
    let esp = Esp::new(&[3u8; 16], &[1, 2, 3, 4], 16).unwrap();
    let mut data: Vec<u8> = (0..3000u32).map(|i| (i * 151 % 256) as u8).collect();
    data[..64].fill(0xff); // carries
    for len in [0, 1, 7, 8, 9, 63, 64, 65, 1000, 3000] {
        let mut buf = data[..len].to_vec();
        let (_, sum) = esp
            .seal_in_place_with_checksum(&[0; 8], &[0; 8], &mut buf)
            .unwrap();
        let mut got = 0u64;
        // SAFETY: valid pointers for their lengths.
        let rc = unsafe { aesx_ones_complement_checksum(data.as_ptr(), len, &mut got) };
        assert_eq!((rc, got), (AESX_OK, sum), "length {len}");
    }
    let pt = [
        0xff, 0xff, 0xee, 0xee, 0xdd, 0xdd, 0xcc, 0xcc, 0xbb, 0xbb, 0xaa, 0xaa,
    ];
    assert_eq!(
        aead::ones_complement(&pt).to_le_bytes(),
        [0xba, 0xbb, 0x99, 0x99, 0xde, 0xdd, 0xcc, 0xcc]
    );
}

#[test]
fn cbc_and_gcm_equal_the_library_in_place_and_out_of_place() {
    let kb = [0x5au8; 24];
    let iv = [7u8; 16];
    let msg: Vec<u8> = (0..77u8).collect();
    for b in backends() {
        let k = key(&kb, b);
        let rust = Cbc::with_backend(
            &kb,
            Backend::available()
                .iter()
                .find(|&x| keys::id_of(x) == b)
                .unwrap(),
        )
        .unwrap();
        let want = rust.encrypt_vec(&iv, &msg, Padding::Pkcs7).unwrap();
        let mut out = vec![0u8; 96];
        let mut n = 0;
        let mut buf = msg.clone();
        buf.resize(96, 0);
        // SAFETY: valid pointers for their lengths; the in-place calls pass
        // one buffer as both sides, as the ABI allows.
        unsafe {
            let cbc = |enc: bool, i: *const u8, il, o: *mut u8, ol, n: &mut usize| {
                let f = if enc {
                    aesx_cbc_encrypt
                } else {
                    aesx_cbc_decrypt
                };
                f(k, iv.as_ptr(), AESX_PADDING_PKCS7, i, il, o, ol, n)
            };
            let rc = cbc(true, msg.as_ptr(), msg.len(), out.as_mut_ptr(), 96, &mut n);
            assert_eq!((rc, &out[..n]), (AESX_OK, &want[..]));
            let rc = cbc(true, buf.as_ptr(), msg.len(), buf.as_mut_ptr(), 96, &mut n);
            assert_eq!((rc, &buf[..n]), (AESX_OK, &want[..]));
            let rc = cbc(false, buf.as_ptr(), n, buf.as_mut_ptr(), n, &mut n);
            assert_eq!((rc, &buf[..n]), (AESX_OK, &msg[..]));
        }

        let gcm = Gcm::with_backend(&kb, rust.aes().backend())
            .unwrap()
            .with_tag_len(12)
            .unwrap();
        let sealed = gcm.seal(&iv[..12], b"aad", &msg).unwrap();
        let mut out = vec![0u8; 100];
        // SAFETY: valid pointers for their lengths.
        let rc = unsafe {
            aesx_gcm_seal_append(
                k,
                iv.as_ptr(),
                12,
                b"aad".as_ptr(),
                3,
                msg.as_ptr(),
                msg.len(),
                out.as_mut_ptr(),
                out.len(),
                12,
                &mut n,
            )
        };
        assert_eq!((rc, &out[..n]), (AESX_OK, &sealed[..]));
        // SAFETY: `k` a live handle from aesx_key_new, freed once.
        unsafe { aesx_key_free(k) };
    }
}

#[test]
fn overlap_and_null_are_refused_without_writing() {
    let k = key(&[1u8; 16], AESX_BACKEND_AUTO);
    let mut buf: Vec<u8> = (0..128u8).collect();
    let copy = buf.clone();
    let p = buf.as_mut_ptr();
    // SAFETY: all pointers inside `buf`; the call must refuse them.
    let rc = unsafe { aesx_ecb_encrypt(k, p, p.add(16), 64) };
    assert_eq!(rc, AESX_ERR_OVERLAP);
    // SAFETY: all pointers inside `buf`; the call must refuse the overlap.
    let rc = unsafe { aesx_ctr_xor(k, [0u8; 16].as_ptr(), 0, p.add(3), p, 64) };
    assert_eq!(rc, AESX_ERR_OVERLAP);
    assert_eq!(buf, copy);
    // SAFETY: NULL with a length: refused before any access.
    let rc = unsafe { aesx_ecb_encrypt(k, null(), p, 16) };
    assert_eq!(rc, AESX_ERR_NULL_POINTER);
    // SAFETY: an impossible length: refused before any access.
    let rc = unsafe { aesx_ecb_encrypt(k, p, p, usize::MAX) };
    assert_eq!(rc, AESX_ERR_INVALID_LENGTH);
    // SAFETY: a NULL handle.
    let rc = unsafe { aesx_ecb_encrypt(null(), p, p, 16) };
    assert_eq!(rc, AESX_ERR_NULL_POINTER);
    // SAFETY: live handle, freed once.
    unsafe { aesx_key_free(k) };
}

#[test]
fn version_is_the_crate_version() {
    // SAFETY: a static NUL-terminated string.
    let v = unsafe { CStr::from_ptr(aesx_version()) };
    assert_eq!(v.to_str().unwrap(), env!("CARGO_PKG_VERSION"));
}

#[test]
fn multi_buffer_writes_data_and_ivs_back() {
    let kb = [9u8; 16];
    let k = key(&kb, AESX_BACKEND_AUTO);
    let mut a = vec![1u8; 64];
    let mut b = vec![2u8; 32];
    let mut jobs = [
        AesxCbcJob {
            key: k,
            iv: [3; 16],
            data: a.as_mut_ptr(),
            len: a.len(),
        },
        AesxCbcJob {
            key: k,
            iv: [4; 16],
            data: b.as_mut_ptr(),
            len: b.len(),
        },
    ];
    // SAFETY: the jobs point at live, disjoint vectors of their lengths.
    let rc = unsafe { aesx_cbc_encrypt_many(jobs.as_mut_ptr(), jobs.len()) };
    assert_eq!(rc, AESX_OK);
    let cbc = Cbc::new(&kb).unwrap();
    let (mut wa, mut wb) = (vec![1u8; 64], vec![2u8; 32]);
    cbc.encrypt_in_place(&[3; 16], &mut wa).unwrap();
    cbc.encrypt_in_place(&[4; 16], &mut wb).unwrap();
    assert_eq!((&a, &b), (&wa, &wb));
    assert_eq!(jobs[0].iv[..], wa[48..]);
    assert_eq!(jobs[1].iv[..], wb[16..]);
    // Overlapping messages: refused, nothing written.
    jobs[1].data = a.as_mut_ptr().wrapping_add(16);
    // SAFETY: the jobs point at live vectors of their lengths; the call must refuse the overlap.
    let rc = unsafe { aesx_cbc_encrypt_many(jobs.as_mut_ptr(), jobs.len()) };
    assert_eq!((rc, &a), (AESX_ERR_OVERLAP, &wa));
    // SAFETY: live handle, freed once.
    unsafe { aesx_key_free(k) };
}

#[test]
fn xts_sectors_and_esp_through_the_abi() {
    let mut xk = [0u8; 32];
    xk[16..].fill(1);
    let mut x = null_mut();
    // SAFETY: valid pointers for their lengths.
    let rc = unsafe { aesx_xts_key_new(xk.as_ptr(), 32, AESX_BACKEND_AUTO, &mut x) };
    assert_eq!(rc, AESX_OK);
    let mut buf = vec![0x77u8; 64];
    let p = buf.as_mut_ptr();
    // SAFETY: in place over a live buffer of 64 bytes.
    let rc = unsafe { aesx_xts_encrypt_sectors(x, 32, 5, p, p, 64) };
    assert_eq!(rc, AESX_OK);
    let want = {
        let xts = aesx::Xts::new(&xk).unwrap();
        let mut w = vec![0x77u8; 64];
        xts.encrypt_sectors(32, 5, &mut w).unwrap();
        w
    };
    assert_eq!(buf, want);
    // SAFETY: live handle, freed once.
    unsafe { aesx_xts_key_free(x) };

    let mut e = null_mut();
    let kb = [5u8; 16];
    // SAFETY: valid pointers for their lengths.
    let rc = unsafe {
        aesx_esp_key_new(
            kb.as_ptr(),
            16,
            [1u8, 2, 3, 4].as_ptr(),
            4,
            16,
            AESX_BACKEND_AUTO,
            &mut e,
        )
    };
    assert_eq!(rc, AESX_OK);
    let (iv, aad, pt) = ([7u8; 8], [0u8; 8], [0x42u8; 40]);
    let (mut ct, mut tag, mut sum) = ([0u8; 40], [0u8; 16], 0u64);
    // SAFETY: valid pointers for their lengths, out of place.
    let rc = unsafe {
        aesx_esp_seal(
            e,
            iv.as_ptr(),
            8,
            aad.as_ptr(),
            8,
            pt.as_ptr(),
            ct.as_mut_ptr(),
            40,
            tag.as_mut_ptr(),
            16,
            &mut sum,
        )
    };
    assert_eq!((rc, sum), (AESX_OK, aead::ones_complement(&pt)));
    let mut back = ct;
    let mut sum2 = 0;
    // SAFETY: in place over a live buffer.
    let rc = unsafe {
        aesx_esp_open(
            e,
            iv.as_ptr(),
            8,
            aad.as_ptr(),
            8,
            back.as_ptr(),
            back.as_mut_ptr(),
            40,
            tag.as_ptr(),
            16,
            &mut sum2,
        )
    };
    assert_eq!((rc, back, sum2), (AESX_OK, pt, sum));
    tag[0] ^= 1;
    // SAFETY: `e` a live handle; `ct`, `back`, `tag` valid for the lengths passed.
    let rc = unsafe {
        aesx_esp_open(
            e,
            iv.as_ptr(),
            8,
            aad.as_ptr(),
            8,
            ct.as_ptr(),
            back.as_mut_ptr(),
            40,
            tag.as_ptr(),
            16,
            null_mut(),
        )
    };
    assert_eq!((rc, back), (AESX_ERR_AUTH_FAILED, [0u8; 40]));
    // SAFETY: live handle, freed once.
    unsafe { aesx_esp_key_free(e) };
}

/// The header's `AESX_BACKEND_*` constants are the library list's rows, and
/// only those: each row's name upper-cased with its number, AUTO (0) and
/// LAST (the highest number, with no gap below it); and the C calls agree
/// with the list on every number.
#[test]
fn backend_constants_are_the_lists_rows() {
    let header = include_str!("../../include/aesx.h");
    let mut defined: Vec<(String, c_int)> = header
        .lines()
        .filter_map(|l| l.strip_prefix("#define AESX_BACKEND_"))
        .map(|l| {
            let (name, value) = l.split_once(' ').expect("#define NAME VALUE");
            (name.to_owned(), value.trim().parse().expect("a number"))
        })
        .collect();
    let last = Backend::ALL.iter().map(|b| b.number()).max().unwrap_or(0);
    let mut want: Vec<(String, c_int)> = Backend::ALL
        .iter()
        .map(|b| (b.name().to_ascii_uppercase(), c_int::from(b.number())))
        .collect();
    want.push(("AUTO".into(), AESX_BACKEND_AUTO));
    want.push(("LAST".into(), c_int::from(last)));
    defined.sort();
    want.sort();
    assert_eq!(defined, want);

    let mut numbers: Vec<u8> = Backend::ALL.iter().map(|b| b.number()).collect();
    numbers.sort_unstable();
    assert_eq!(
        numbers,
        (1..=last).collect::<Vec<_>>(),
        "numbers with a gap"
    );
    for b in Backend::ALL {
        let c = c_int::from(b.number());
        assert_eq!(keys::backend_of(c), Ok(Some(b)));
        // SAFETY: a static C string or NULL.
        let name = unsafe { CStr::from_ptr(aesx_backend_name(c)) };
        assert_eq!(name.to_str(), Ok(b.name()));
        assert_eq!(aesx_backend_available(c), c_int::from(b.is_available()));
    }
    assert_eq!(keys::backend_of(AESX_BACKEND_AUTO), Ok(None));
    for bad in [-1, c_int::from(last) + 1, 255, 256, c_int::MAX] {
        assert!(keys::backend_of(bad).is_err(), "{bad}");
        assert!(aesx_backend_name(bad).is_null(), "{bad}");
        assert_eq!(aesx_backend_available(bad), 0, "{bad}");
    }
}
