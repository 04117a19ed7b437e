//! The aesx file header reader: any bytes are either refused or parsed to a
//! header whose serialization is exactly the bytes consumed.
#![no_main]

use aesx_file::header::{Header, HeaderError};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut r = data;
    match Header::read(&mut r) {
        Ok(h) => {
            let used = data.len() - r.len();
            assert_eq!(&data[..used], &h.bytes[..], "consumed bytes are the header");
            assert_eq!(Header::new(h.source), h, "serialization round-trips");
        }
        Err(e) => {
            // The message is one line and names the problem.
            let msg = e.to_string();
            assert!(!msg.is_empty() && !msg.contains('\n'));
            if data.len() >= 6 && data.starts_with(b"aesx") && data[4] == 1 {
                assert!(
                    matches!(e, HeaderError::Truncated | HeaderError::UnknownKeySource(_)),
                    "{e:?}"
                );
            }
        }
    }
});
