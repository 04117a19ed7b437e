//! Key files, passphrase files and the KDF cost option of the CLI: any
//! content gives a key (exactly 32 raw bytes, or 64 hex digits with
//! whitespace around) or a one-line error, never a panic.
#![no_main]

use std::io::Write;

use aesx_cli::file::kdf::{parse_cost, read_key_file, read_passphrase_file};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut f = tempfile::NamedTempFile::new().unwrap();
    f.write_all(data).unwrap();
    f.flush().unwrap();

    match read_key_file(f.path()) {
        Ok(key) => {
            let text = data.trim_ascii();
            if data.len() == 32 {
                assert_eq!(&key[..], data);
            } else {
                assert_eq!(text.len(), 64);
                let mut want = [0u8; 32];
                for (i, w) in want.iter_mut().enumerate() {
                    let s = std::str::from_utf8(&text[2 * i..2 * i + 2]).unwrap();
                    *w = u8::from_str_radix(s, 16).unwrap();
                }
                assert_eq!(&key[..], &want);
            }
        }
        Err(e) => {
            assert_ne!(data.len(), 32, "32 raw bytes are always a key");
            assert!(!e.to_string().contains('\n'));
        }
    }

    match read_passphrase_file(f.path()) {
        Ok(p) => {
            assert!(!p.is_empty() && !p.contains(&b'\n'));
            assert!(data.starts_with(&p));
        }
        Err(e) => assert!(!e.to_string().contains('\n')),
    }

    if let Ok(s) = std::str::from_utf8(data) {
        if let Ok((m, t, p)) = parse_cost(s) {
            assert_eq!(s.split(',').count(), 3);
            let _ = (m, t, p);
        }
    }
});
