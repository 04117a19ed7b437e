//! NIST CAVP vectors through the library on every available backend:
//! AESAVS ECB and CBC known-answer and multi-block files (both directions,
//! in place, out of place and in pieces), the CBC Monte Carlo files run as
//! one continuous chain of outer iterations, and the RFC 3686 CTR vectors.

mod common;

use aesx::{Aes, Backend, Cbc, Ctr, Ecb, Padding};
use common::{read_rsp, vector_files, Record};
use std::path::PathBuf;

fn backends() -> Vec<Backend> {
    common::backends()
}

fn is_kat_or_mmt(name: &str) -> bool {
    name.ends_with(".rsp") && !name.contains("MCT")
}

/// Calls `check` with every record of `files` on every backend, and a
/// label for messages; returns how many records it checked.
fn check_records(files: &[PathBuf], mut check: impl FnMut(Backend, &Record, &str)) -> usize {
    let mut checked = 0;
    for b in backends() {
        for f in files {
            for r in read_rsp(f) {
                check(b, &r, &format!("{} line {} on {b}", f.display(), r.line));
                checked += 1;
            }
        }
    }
    checked
}

fn texts(r: &Record) -> (Vec<u8>, Vec<u8>) {
    let (pt, ct) = (r.hex("PLAINTEXT"), r.hex("CIPHERTEXT"));
    assert_eq!(pt.len(), ct.len(), "line {}", r.line);
    assert!(pt.len() % 16 == 0 && !pt.is_empty(), "line {}", r.line);
    (pt, ct)
}

#[test]
fn ecb_kat_and_mmt() {
    let files = vector_files("nist/ECB", is_kat_or_mmt);
    assert_eq!(files.len(), 15);
    let checked = check_records(&files, |b, r, what| {
        assert!(r.section == "ENCRYPT" || r.section == "DECRYPT", "{what}");
        let key = r.hex("KEY");
        let (pt, ct) = texts(r);
        let ecb = Ecb::with_backend(&key, b).unwrap();
        // Out of place, through the mode.
        let mut out = vec![0u8; pt.len()];
        assert_eq!(ecb.encrypt(&pt, &mut out, Padding::None).unwrap(), pt.len());
        assert_eq!(out, ct, "{what}: encrypt");
        // In place, through the raw block API.
        let aes = Aes::with_backend(&key, b).unwrap();
        let mut buf = ct.clone();
        aes.decrypt_blocks(&mut buf).unwrap();
        assert_eq!(buf, pt, "{what}: decrypt");
        // Block by block.
        let mut buf = pt.clone();
        for blk in buf.chunks_exact_mut(16) {
            aes.encrypt_block(blk.try_into().unwrap());
        }
        assert_eq!(buf, ct, "{what}: block by block");
    });
    assert_eq!(checked, 2138 * backends().len());
}

#[test]
fn cbc_kat_and_mmt() {
    let files = vector_files("nist/CBC", is_kat_or_mmt);
    assert_eq!(files.len(), 15);
    let checked = check_records(&files, |b, r, what| {
        let key = r.hex("KEY");
        let iv = r.block("IV");
        let (pt, ct) = texts(r);
        let cbc = Cbc::with_backend(&key, b).unwrap();
        // One shot, out of place.
        assert_eq!(
            cbc.encrypt_vec(&iv, &pt, Padding::None).unwrap(),
            ct,
            "{what}"
        );
        assert_eq!(
            cbc.decrypt_vec(&iv, &ct, Padding::None).unwrap(),
            pt,
            "{what}"
        );
        // In place, in two chained pieces split at the first block.
        let mut buf = pt.clone();
        let mut chain = iv;
        let (a, c) = buf.split_at_mut(16);
        cbc.encrypt_chained(&mut chain, a).unwrap();
        cbc.encrypt_chained(&mut chain, c).unwrap();
        assert_eq!(buf, ct, "{what}: chained encrypt");
        assert_eq!(chain[..], ct[ct.len() - 16..], "{what}: chain value");
        let mut chain = iv;
        let (a, c) = buf.split_at_mut(16);
        cbc.decrypt_chained(&mut chain, a).unwrap();
        cbc.decrypt_chained(&mut chain, c).unwrap();
        assert_eq!(buf, pt, "{what}: chained decrypt");
    });
    assert_eq!(checked, 2138 * backends().len());
}

/// XORs the last `key.len()` bytes of `prev || last` into `key` (AESAVS
/// Monte Carlo key update for 128, 192 and 256-bit keys).
fn mct_key_update(key: &mut [u8], prev: &[u8; 16], last: &[u8; 16]) {
    let mut tail = [0u8; 32];
    tail[..16].copy_from_slice(prev);
    tail[16..].copy_from_slice(last);
    let n = key.len();
    for (k, t) in key.iter_mut().zip(&tail[32 - n..]) {
        *k ^= t;
    }
}

/// Runs the CBC Monte Carlo test of one section as a continuous chain of
/// outer iterations from its first record, checking each record's state
/// and output; stops after `limit` records.
fn cbc_mct_section(records: &[&Record], encrypt: bool, b: Backend, limit: usize) -> usize {
    let (in_name, out_name) = if encrypt {
        ("PLAINTEXT", "CIPHERTEXT")
    } else {
        ("CIPHERTEXT", "PLAINTEXT")
    };
    let first = records[0];
    let mut key = first.hex("KEY");
    let mut iv = first.block("IV");
    let mut input = first.block(in_name);
    for (i, r) in records.iter().take(limit).enumerate() {
        assert_eq!(r.number("COUNT"), i as u64, "line {}", r.line);
        assert_eq!(key, r.hex("KEY"), "line {} on {b}: key update", r.line);
        assert_eq!(iv, r.block("IV"), "line {} on {b}: IV", r.line);
        assert_eq!(input, r.block(in_name), "line {} on {b}: input", r.line);
        let cbc = Cbc::with_backend(&key, b).unwrap();
        let mut chain = iv;
        let (mut prev, mut last) = ([0u8; 16], [0u8; 16]);
        let mut x = input;
        for j in 0..1000 {
            let mut blk = x;
            if encrypt {
                cbc.encrypt_chained(&mut chain, &mut blk).unwrap();
            } else {
                cbc.decrypt_chained(&mut chain, &mut blk).unwrap();
            }
            // The next input is IV[i] after the first block, then the
            // output from two steps back.
            x = if j == 0 { iv } else { last };
            prev = last;
            last = blk;
        }
        assert_eq!(last, r.block(out_name), "line {} on {b}: output", r.line);
        mct_key_update(&mut key, &prev, &last);
        iv = last;
        input = prev;
    }
    records.len().min(limit)
}

#[test]
fn cbc_monte_carlo() {
    let files = vector_files("nist/CBC", |n| n.contains("MCT"));
    assert_eq!(files.len(), 3);
    for b in backends() {
        // All 100 outer iterations on every backend, soft included.
        let limit = 100;
        for f in &files {
            let recs = read_rsp(f);
            let enc: Vec<&Record> = recs.iter().filter(|r| r.section == "ENCRYPT").collect();
            let dec: Vec<&Record> = recs.iter().filter(|r| r.section == "DECRYPT").collect();
            assert_eq!((enc.len(), dec.len()), (100, 100), "{}", f.display());
            assert_eq!(cbc_mct_section(&enc, true, b, limit), limit);
            assert_eq!(cbc_mct_section(&dec, false, b, limit), limit);
        }
    }
}

#[test]
fn ctr_rfc3686() {
    let files = vector_files("nist/CTR", |n| n.ends_with("-ctr.txt"));
    assert_eq!(files.len(), 3);
    let checked = check_records(&files, |b, r, what| {
        let key = r.hex("KEY");
        let iv = r.block("IV");
        let (pt, ct) = (r.hex("PLAINTEXT"), r.hex("CIPHERTEXT"));
        assert_eq!(pt.len(), ct.len());
        // One call, out of place.
        let mut out = vec![0u8; pt.len()];
        Ctr::with_backend(&key, &iv, b)
            .unwrap()
            .apply_keystream_to(&pt, &mut out)
            .unwrap();
        assert_eq!(out, ct, "{what}");
        // Byte by byte, in place.
        let mut ctr = Ctr::with_backend(&key, &iv, b).unwrap();
        let mut buf = ct.clone();
        for byte in buf.chunks_mut(1) {
            ctr.apply_keystream(byte);
        }
        assert_eq!(buf, pt, "{what}: byte by byte");
        // Seek to every offset and finish from there.
        for off in 0..pt.len() {
            let mut ctr = Ctr::with_backend(&key, &iv, b).unwrap();
            ctr.seek(off as u128);
            let mut tail = pt[off..].to_vec();
            ctr.apply_keystream(&mut tail);
            assert_eq!(tail, ct[off..], "{what}: seek {off}");
        }
    });
    assert_eq!(checked, 9 * backends().len());
}
