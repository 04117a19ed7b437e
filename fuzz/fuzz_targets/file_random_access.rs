//! Random access into a (possibly edited) file, as `aesx decrypt --offset
//! --length` does it: the layout from the length, the final chunk first, then
//! the chunks of the range from their index. An unedited file gives the
//! plaintext range; whatever verifies is the true plaintext at that place.
#![no_main]

use aesx::Backend;
use aesx_file::header::{Header, KeySource};
use aesx_file::payload::{
    open_header, Layout, Opener, Suite, CHUNK_LEN, ENC_CHUNK_LEN, PAYLOAD_HEADER_LEN,
};
use aesx_fuzz::{apply_edits, plaintext, seal_file, Bytes, FILE_KEY};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut b = Bytes(data);
    let len = b.u16() as usize % (4 * CHUNK_LEN + 100);
    let seed = b.u8();
    let offset = b.u64() % (len as u64 + 2);
    let length = b.u64() % (len as u64 + 2);
    let header = Header::new(KeySource::Key);
    let pt = plaintext(len, seed);
    let original = seal_file(&header.bytes, &[seed; 24], &pt);
    let mut file = original.clone();
    apply_edits(&mut file, &mut b, ENC_CHUNK_LEN);
    let edited = file != original;

    let Ok(cipher) = open_header(
        Suite::Aes256Gcm,
        &FILE_KEY,
        &header.bytes,
        &file[..file.len().min(PAYLOAD_HEADER_LEN)],
        Backend::fastest(),
    ) else {
        assert!(edited);
        return;
    };
    let chunks = &file[PAYLOAD_HEADER_LEN.min(file.len())..];
    let enc_len = chunks.len() as u64;
    let layout = match Layout::from_len(enc_len) {
        Ok(l) => l,
        Err(_) => {
            assert!(edited, "a real file has a valid layout");
            return;
        }
    };
    let last = layout.chunks - 1;
    let (pos, n) = layout.chunk_span(last, enc_len);
    let mut out = Vec::new();
    let fin = Opener::at(cipher.clone(), last).open_batch(
        &chunks[pos as usize..pos as usize + n],
        true,
        &mut out,
        1,
    );
    if fin.is_err() {
        assert!(edited, "the final chunk of a real file opens: {fin:?}");
        assert!(out.iter().all(|&x| x == 0) || out.is_empty());
        return;
    }
    // The final chunk verified: the length is the true one.
    assert_eq!(layout.plaintext_len, pt.len() as u64);
    assert_eq!(out, pt[last as usize * CHUNK_LEN..]);

    let end = offset.saturating_add(length).min(layout.plaintext_len);
    if offset >= end {
        return;
    }
    let first = offset / CHUNK_LEN as u64;
    let last_needed = (end - 1) / CHUNK_LEN as u64;
    let (p0, _) = layout.chunk_span(first, enc_len);
    let (p1, n1) = layout.chunk_span(last_needed, enc_len);
    let span = &chunks[p0 as usize..(p1 as usize + n1)];
    let mut got = Vec::new();
    let eof = p1 + n1 as u64 == enc_len;
    let res = Opener::at(cipher, first).open_batch(span, eof, &mut got, 2);
    let valid = match &res {
        Ok(()) => got.len(),
        Err(e) => e.valid,
    };
    if !edited {
        assert!(res.is_ok(), "{res:?}");
    }
    let base = first as usize * CHUNK_LEN;
    assert_eq!(
        got[..valid],
        pt[base..base + valid],
        "verified bytes are true"
    );
    assert!(
        got[valid..].iter().all(|&x| x == 0),
        "nothing unverified kept"
    );
});
