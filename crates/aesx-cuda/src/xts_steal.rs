//! XTS ciphertext stealing for a data unit whose length is not a multiple of
//! 16 (IEEE 1619, section 5.3.2): the GPU does every whole block but the last,
//! the host the last whole block and the partial one, whose processing
//! depends on each other. Pure functions over block-cipher closures, tested
//! against aesx's XTS on the CPU.

/// The tweak times x in GF(2^128), XTS's little-endian convention, without
/// a branch on the (secret) tweak.
pub fn mul_x(t: u128) -> u128 {
    let carry = 0u128.wrapping_sub(t >> 127);
    (t << 1) ^ (carry & 0x87)
}

/// The tweak times x^n (n up to 2^20 for the longest data unit).
pub fn mul_x_pow(mut t: u128, n: u64) -> u128 {
    for _ in 0..n {
        t = mul_x(t);
    }
    t
}

fn xor(a: &mut [u8; 16], t: u128) {
    for (x, y) in a.iter_mut().zip(t.to_le_bytes()) {
        *x ^= y;
    }
}

/// Processes the last `16 + r` bytes (0 < r < 16) of a data unit in place:
/// `t_prev` is the tweak of the last whole block (E_K2(tweak) * x^(q-1) for
/// q whole blocks), `encrypt`/`decrypt` the data key's block functions.
pub fn steal_tail(
    decrypt: bool,
    t_prev: u128,
    tail: &mut [u8],
    encrypt_block: impl Fn(&mut [u8; 16]),
    decrypt_block: impl Fn(&mut [u8; 16]),
) {
    let r = tail.len() - 16;
    debug_assert!(r > 0 && r < 16);
    let t_last = mul_x(t_prev);
    let mut full = [0u8; 16];
    full.copy_from_slice(&tail[..16]);
    if !decrypt {
        // CC = E(P_{q-1} ^ T_{q-1}) ^ T_{q-1}; C_q = CC[..r];
        // C_{q-1} = E((P_q || CC[r..]) ^ T_q) ^ T_q.
        xor(&mut full, t_prev);
        encrypt_block(&mut full);
        xor(&mut full, t_prev);
        let mut last = full;
        last[..r].copy_from_slice(&tail[16..]);
        tail[16..].copy_from_slice(&full[..r]);
        xor(&mut last, t_last);
        encrypt_block(&mut last);
        xor(&mut last, t_last);
        tail[..16].copy_from_slice(&last);
    } else {
        // PP = D(C_{q-1} ^ T_q) ^ T_q; P_q = PP[..r];
        // P_{q-1} = D((C_q || PP[r..]) ^ T_{q-1}) ^ T_{q-1}.
        xor(&mut full, t_last);
        decrypt_block(&mut full);
        xor(&mut full, t_last);
        let mut prev = full;
        prev[..r].copy_from_slice(&tail[16..]);
        tail[16..].copy_from_slice(&full[..r]);
        xor(&mut prev, t_prev);
        decrypt_block(&mut prev);
        xor(&mut prev, t_prev);
        tail[..16].copy_from_slice(&prev);
    }
}

/// XTS of one data unit of any length from 16 bytes with the whole blocks
/// before the stolen pair done by `head` (on the GPU in the crate; any XTS of
/// a whole-block unit with the same tweak in the tests).
pub fn unit_with_stealing<E>(
    decrypt: bool,
    tweak: &[u8; 16],
    buf: &mut [u8],
    head: impl FnOnce(&mut [u8]) -> Result<(), E>,
    k1: &aesx::Aes,
    k2: &aesx::Aes,
) -> Result<(), E>
where
    E: From<aesx::Error>,
{
    let len = buf.len();
    if !(aesx::Xts::MIN_DATA_UNIT_LEN..=aesx::Xts::MAX_DATA_UNIT_LEN).contains(&len) {
        return Err(aesx::Error::InvalidDataUnitLength { len }.into());
    }
    let r = len % 16;
    if r == 0 {
        return head(buf);
    }
    let q = len / 16;
    let (h, tail) = buf.split_at_mut(16 * (q - 1));
    if !h.is_empty() {
        head(h)?;
    }
    let mut t = *tweak;
    k2.encrypt_block(&mut t);
    let t_prev = mul_x_pow(u128::from_le_bytes(t), (q - 1) as u64);
    steal_tail(
        decrypt,
        t_prev,
        tail,
        |b| k1.encrypt_block(b),
        |b| k1.decrypt_block(b),
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stealing_matches_aesx_xts() {
        let mut seed = 0x1234_5678_9abc_def0u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed as u8
        };
        for klen in [32usize, 64] {
            let key: Vec<u8> = (0..klen).map(|_| next()).collect();
            let xts = aesx::Xts::with_backend(&key, aesx::Backend::Soft).unwrap();
            let k1 = aesx::Aes::with_backend(&key[..klen / 2], aesx::Backend::Soft).unwrap();
            let k2 = aesx::Aes::with_backend(&key[klen / 2..], aesx::Backend::Soft).unwrap();
            for len in (16..80).chain([511, 4097, 65_551]) {
                let tweak: [u8; 16] = core::array::from_fn(|_| next());
                let pt: Vec<u8> = (0..len).map(|_| next()).collect();
                let mut want = pt.clone();
                xts.encrypt(&tweak, &mut want).unwrap();
                let mut got = pt.clone();
                unit_with_stealing::<aesx::Error>(
                    false,
                    &tweak,
                    &mut got,
                    |h| xts.encrypt(&tweak, h),
                    &k1,
                    &k2,
                )
                .unwrap();
                assert_eq!(got, want, "encrypt {klen} {len}");
                unit_with_stealing::<aesx::Error>(
                    true,
                    &tweak,
                    &mut got,
                    |h| xts.decrypt(&tweak, h),
                    &k1,
                    &k2,
                )
                .unwrap();
                assert_eq!(got, pt, "decrypt {klen} {len}");
            }
        }
    }

    #[test]
    fn short_units_are_refused() {
        let k = aesx::Aes::with_backend(&[1u8; 16], aesx::Backend::Soft).unwrap();
        let mut buf = [0u8; 15];
        let r = unit_with_stealing::<aesx::Error>(false, &[0; 16], &mut buf, |_| Ok(()), &k, &k);
        assert_eq!(r, Err(aesx::Error::InvalidDataUnitLength { len: 15 }));
    }
}
