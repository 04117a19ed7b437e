//! A real file, then the edits an attacker would make (flipped bits, cuts,
//! appended bytes, deleted, duplicated, swapped or dropped chunks): an
//! unedited file decrypts to its plaintext, and any edit is refused, with at
//! most a prefix of the true plaintext (whole verified chunks) released.
#![no_main]

use aesx_file::header::{Argon2Params, Header, KeySource};
use aesx_file::payload::{CHUNK_LEN, ENC_CHUNK_LEN};
use aesx_fuzz::{apply_edits, open_chunkwise, plaintext, seal_file, Bytes, FILE_KEY};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut b = Bytes(data);
    let len = b.u16() as usize % (3 * CHUNK_LEN + 100);
    let seed = b.u8();
    let salt: [u8; 24] = [seed; 24];
    // Either key source: the header is the payload's context, so its bytes
    // (costs, salt) are authenticated too.
    let header = if seed & 1 == 0 {
        Header::new(KeySource::Key)
    } else {
        Header::new(KeySource::Argon2id(Argon2Params {
            memory_kib: 64,
            iterations: 1,
            parallelism: 1,
            salt: [seed; 16],
        }))
    };
    let pt = plaintext(len, seed);
    let mut file = header.bytes.clone();
    file.extend_from_slice(&seal_file(&header.bytes, &salt, &pt));
    let original = file.clone();
    apply_edits(&mut file, &mut b, ENC_CHUNK_LEN);

    let mut r = &file[..];
    let Ok(h) = Header::read(&mut r) else {
        assert_ne!(file, original);
        return;
    };
    let (out, res) = open_chunkwise(&FILE_KEY, &h.bytes, r);
    if file == original {
        assert!(res.is_ok(), "an unedited file must open: {res:?}");
        assert_eq!(out, pt);
    } else {
        assert!(res.is_err(), "an edited file must be refused");
        assert_eq!(out.len() % CHUNK_LEN, 0);
        assert_eq!(out, pt[..out.len()], "only true plaintext is released");
    }
});
