//! XTS ciphertext stealing for a data unit whose length is not a multiple of
//! 16 (IEEE 1619, section 5.3.2): the GPU does every whole block but the last,
//! the host the last whole block and the partial one, whose processing
//! depends on each other. Pure functions over block-cipher closures, tested
//! against aesx's XTS on the CPU; and XTS over whole sectors on the CPU, the
//! reference the GPU's sectors are checked against.

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
    // Encryption: CC = E(P_{q-1} ^ T_{q-1}) ^ T_{q-1}; C_q = CC[..r];
    // C_{q-1} = E((P_q || CC[r..]) ^ T_q) ^ T_q. Decryption is the same
    // steps with D and the two tweaks swapped: PP = D(C_{q-1} ^ T_q) ^ T_q;
    // P_q = PP[..r]; P_{q-1} = D((C_q || PP[r..]) ^ T_{q-1}) ^ T_{q-1}.
    let cipher: &dyn Fn(&mut [u8; 16]) = if decrypt {
        &decrypt_block
    } else {
        &encrypt_block
    };
    let (t_first, t_second) = if decrypt {
        (t_last, t_prev)
    } else {
        (t_prev, t_last)
    };
    let mut full = [0u8; 16];
    full.copy_from_slice(&tail[..16]);
    xex(&mut full, t_first, cipher);
    let mut other = full;
    other[..r].copy_from_slice(&tail[16..]);
    tail[16..].copy_from_slice(&full[..r]);
    xex(&mut other, t_second, cipher);
    tail[..16].copy_from_slice(&other);
}

/// One XEX block: `b = cipher(b ^ t) ^ t`.
fn xex(b: &mut [u8; 16], t: u128, cipher: &dyn Fn(&mut [u8; 16])) {
    xor(b, t);
    cipher(b);
    xor(b, t);
}

/// XTS over whole sectors of `sector` bytes (whole blocks) numbered from
/// `first`, on the CPU with the data key `k1` and the tweak key `k2`: the
/// IEEE 1619 rule written out, the reference of the self-test and of the
/// kernel tests.
pub fn sectors_on_cpu(
    k1: &aesx::Aes,
    k2: &aesx::Aes,
    first: u128,
    sector: usize,
    data: &[u8],
    decrypt: bool,
) -> Vec<u8> {
    let mut out = data.to_vec();
    for (s, unit) in out.chunks_mut(sector).enumerate() {
        let mut t = first.wrapping_add(s as u128).to_le_bytes();
        k2.encrypt_block(&mut t);
        let mut t = u128::from_le_bytes(t);
        for block in unit.chunks_mut(16) {
            let mut b = [0u8; 16];
            b.copy_from_slice(block);
            if decrypt {
                xex(&mut b, t, &|x| k1.decrypt_block(x));
            } else {
                xex(&mut b, t, &|x| k1.encrypt_block(x));
            }
            block.copy_from_slice(&b);
            t = mul_x(t);
        }
    }
    out
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
                let mut ct = pt.clone();
                xts.encrypt(&tweak, &mut ct).unwrap();
                // Encrypt pt (must give aesx's ct), then decrypt that back.
                let mut got = pt.clone();
                for (decrypt, want) in [(false, &ct), (true, &pt)] {
                    unit_with_stealing::<aesx::Error>(
                        decrypt,
                        &tweak,
                        &mut got,
                        |h| {
                            if decrypt {
                                xts.decrypt(&tweak, h)
                            } else {
                                xts.encrypt(&tweak, h)
                            }
                        },
                        &k1,
                        &k2,
                    )
                    .unwrap();
                    let dir = if decrypt { "decrypt" } else { "encrypt" };
                    assert_eq!(&got, want, "{dir} {klen} {len}");
                }
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
