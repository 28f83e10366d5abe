//! PBKDF2-HMAC-SHA256 (RFC 8018) for one 32-byte key, on SHA-256's block function with the
//! HMAC pads hashed once: two block compressions per round, so that the million rounds of the
//! passphrase provider stay fast even in unoptimized builds.

use sha2::digest::generic_array::GenericArray;
use sha2::{Digest, Sha256, compress256};

const BLOCK: usize = 64;
const INITIAL_STATE: [u32; 8] = [
    0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
];

/// The 32-byte key PBKDF2-HMAC-SHA256 derives from `password` and `salt` in `rounds` rounds.
pub fn pbkdf2_sha256(password: &[u8], salt: &[u8], rounds: u32) -> [u8; 32] {
    let hashed;
    let key = if password.len() > BLOCK {
        hashed = Sha256::digest(password);
        &hashed[..]
    } else {
        password
    };
    let mut ipad = [0x36u8; BLOCK];
    let mut opad = [0x5cu8; BLOCK];
    for (i, b) in key.iter().enumerate() {
        ipad[i] ^= b;
        opad[i] ^= b;
    }
    let first_inner = Sha256::new()
        .chain_update(ipad)
        .chain_update(salt)
        .chain_update(1u32.to_be_bytes())
        .finalize();
    let mut u: [u8; 32] = Sha256::new()
        .chain_update(opad)
        .chain_update(first_inner)
        .finalize()
        .into();
    let mut out = u;
    let inner_start = after_block(INITIAL_STATE, &ipad);
    let outer_start = after_block(INITIAL_STATE, &opad);
    // Each later round hashes a 32-byte message after a 64-byte pad: one padded block.
    let mut block = [0u8; BLOCK];
    block[32] = 0x80;
    block[56..].copy_from_slice(&(((BLOCK + 32) * 8) as u64).to_be_bytes());
    for _ in 1..rounds {
        block[..32].copy_from_slice(&u);
        let inner = after_block(inner_start, &block);
        write_state(&mut block, &inner);
        let outer = after_block(outer_start, &block);
        write_state(&mut u, &outer);
        out.iter_mut().zip(&u).for_each(|(o, x)| *o ^= x);
    }
    out
}

fn after_block(mut state: [u32; 8], block: &[u8; BLOCK]) -> [u32; 8] {
    compress256(
        &mut state,
        std::slice::from_ref(GenericArray::from_slice(block)),
    );
    state
}

fn write_state(dst: &mut [u8], state: &[u32; 8]) {
    for (chunk, word) in dst.chunks_exact_mut(4).zip(state) {
        chunk.copy_from_slice(&word.to_be_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_reference_vectors() {
        // RFC 7914 §11 (first 32 bytes), and values computed with Python's hashlib.
        let cases: [(&[u8], &[u8], u32, &str); 3] = [
            (
                b"passwd",
                b"salt",
                1,
                "55ac046e56e3089fec1691c22544b605f94185216dde0465e68b9d57c20dacbc",
            ),
            (
                b"Password",
                b"NaCl",
                80000,
                "4ddcd8f60b98be21830cee5ef22701f9641a4418d04c0414aeff08876b34ab56",
            ),
            (
                &[b'x'; 100],
                b"12345678",
                1_000_000,
                "0fe2069b6f97efc89707cb671150f6ac433890d7cd6581c3ce02c9029d87b0ef",
            ),
        ];
        for (password, salt, rounds, want) in cases {
            assert_eq!(hex::encode(pbkdf2_sha256(password, salt, rounds)), want);
        }
    }
}
