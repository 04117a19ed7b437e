//! The file decryptor on arbitrary bytes (header, salt, commitment, chunks),
//! seeded with real files from `aesx encrypt -k seeds/file.key`. Opening one
//! chunk at a time (as a stream) and all chunks at once must agree, and whatever plaintext they
//! release must re-seal to exactly the input bytes it came from: nothing
//! unverified ever leaves the decryptor.
#![no_main]

use aesx::Backend;
use aesx_file::header::Header;
use aesx_file::payload::{
    open_header, Opener, PayloadError, Sealer, Suite, CHUNK_LEN, ENC_CHUNK_LEN,
    PAYLOAD_HEADER_LEN,
};
use aesx_fuzz::{open_chunkwise, FILE_KEY};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut r = data;
    let Ok(header) = Header::read(&mut r) else {
        return;
    };
    let payload = r;
    let backend = Backend::fastest();
    let suite = Suite::Aes256Gcm;

    // Streaming, one chunk at a time.
    let (streamed, stream_res) = open_chunkwise(&FILE_KEY, &header.bytes, payload);
    let batch = open_header(
        suite,
        &FILE_KEY,
        &header.bytes,
        &payload[..payload.len().min(PAYLOAD_HEADER_LEN)],
        backend,
    );
    let cipher = match (&stream_res, batch) {
        (_, Ok(c)) => c,
        (Err(a), Err(b)) => {
            assert_eq!(*a, b, "header errors agree");
            assert!(streamed.is_empty());
            assert!(matches!(
                b,
                PayloadError::HeaderTruncated | PayloadError::CommitmentMismatch
            ));
            return;
        }
        (Ok(()), Err(b)) => panic!("the stream opened a payload whose header fails: {b:?}"),
    };
    let stream_err = stream_res.err();

    // Batch, all chunks at once on two threads.
    let chunks = &payload[PAYLOAD_HEADER_LEN..];
    let mut opened = Vec::new();
    let batch_res = Opener::new(cipher.clone()).open_batch(chunks, true, &mut opened, 2);
    let batch_valid = match &batch_res {
        Ok(()) => opened.len(),
        Err(e) => e.valid,
    };
    assert_eq!(
        stream_err.is_some(),
        batch_res.is_err(),
        "stream {stream_err:?} vs batch {batch_res:?}"
    );
    assert_eq!(streamed, opened[..batch_valid], "same verified plaintext");
    if let (Some(s), Err(b)) = (&stream_err, &batch_res) {
        assert_eq!(s.to_string(), b.error.to_string(), "same error");
    }

    // What was released re-seals to the bytes it came from.
    let ok = batch_res.is_ok();
    if !ok {
        assert_eq!(
            batch_valid % CHUNK_LEN,
            0,
            "only whole chunks before a failure"
        );
    }
    let mut resealed = Vec::new();
    Sealer::new(cipher)
        .seal_batch(&streamed, ok, &mut resealed, 1)
        .unwrap();
    if ok {
        assert_eq!(
            resealed, chunks,
            "an accepted payload is the unique encryption"
        );
    } else {
        let n = batch_valid / CHUNK_LEN * ENC_CHUNK_LEN;
        assert_eq!(resealed, chunks[..n], "released chunks are genuine");
    }
});
