//! The random parts of an autonaming pattern (`${hex(n)}`, `${alphanum(n)}`, `${string(n)}`,
//! `${num(n)}`, `${uuid}`), drawn as Pulumi draws them: from `lukechampine.com/frand`
//! (v1.5, Go's `math/rand/v2` ChaCha8) seeded with the SHA-256 of the resource's random
//! seed, so a resource's name is the same on every Check of a run and the one Pulumi gives.

use std::sync::LazyLock;

use regex::{Captures, Regex};
use sha2::{Digest, Sha256};

/// Go's `chacha8rand` (the C2SP `chacha8rand` generator): each refill runs four ChaCha8
/// blocks, interleaved word by word as a 4-way SIMD implementation lays them out; after 16
/// blocks the last 32 bytes become the next key.
struct ChaCha8Rand {
    key: [u32; 8],
    words: [u64; 32],
    counter: u32,
    next: usize,
    end: usize,
    /// What a short `Read` left of its last word (Go's `readBuf`), handed out first.
    leftover: Vec<u8>,
}

const CONSTANTS: [u32; 4] = [0x6170_7865, 0x3320_646e, 0x7962_2d32, 0x6b20_6574];

fn quarter(x: &mut [u32; 16], a: usize, b: usize, c: usize, d: usize) {
    x[a] = x[a].wrapping_add(x[b]);
    x[d] = (x[d] ^ x[a]).rotate_left(16);
    x[c] = x[c].wrapping_add(x[d]);
    x[b] = (x[b] ^ x[c]).rotate_left(12);
    x[a] = x[a].wrapping_add(x[b]);
    x[d] = (x[d] ^ x[a]).rotate_left(8);
    x[c] = x[c].wrapping_add(x[d]);
    x[b] = (x[b] ^ x[c]).rotate_left(7);
}

/// Four ChaCha8 blocks from `counter`, only the key words fed forward, interleaved.
fn blocks(key: &[u32; 8], counter: u32) -> [u64; 32] {
    let mut flat = [0u32; 64];
    for lane in 0..4u32 {
        let mut start = [0u32; 16];
        start[..4].copy_from_slice(&CONSTANTS);
        start[4..12].copy_from_slice(key);
        start[12] = counter + lane;
        let mut x = start;
        for _ in 0..4 {
            quarter(&mut x, 0, 4, 8, 12);
            quarter(&mut x, 1, 5, 9, 13);
            quarter(&mut x, 2, 6, 10, 14);
            quarter(&mut x, 3, 7, 11, 15);
            quarter(&mut x, 0, 5, 10, 15);
            quarter(&mut x, 1, 6, 11, 12);
            quarter(&mut x, 2, 7, 8, 13);
            quarter(&mut x, 3, 4, 9, 14);
        }
        for (w, v) in x.iter().enumerate() {
            let fed = if (4..12).contains(&w) {
                v.wrapping_add(start[w])
            } else {
                *v
            };
            flat[w * 4 + lane as usize] = fed;
        }
    }
    std::array::from_fn(|k| u64::from(flat[2 * k]) | (u64::from(flat[2 * k + 1]) << 32))
}

impl ChaCha8Rand {
    fn new(seed: [u8; 32]) -> ChaCha8Rand {
        let key: [u32; 8] = std::array::from_fn(|i| {
            u32::from_le_bytes([
                seed[4 * i],
                seed[4 * i + 1],
                seed[4 * i + 2],
                seed[4 * i + 3],
            ])
        });
        ChaCha8Rand {
            words: blocks(&key, 0),
            key,
            counter: 0,
            next: 0,
            end: 32,
            leftover: Vec::new(),
        }
    }

    fn next_u64(&mut self) -> u64 {
        if self.next >= self.end {
            self.counter += 4;
            if self.counter == 16 {
                for (i, w) in self.words[28..].iter().enumerate() {
                    self.key[2 * i] = *w as u32;
                    self.key[2 * i + 1] = (*w >> 32) as u32;
                }
                self.counter = 0;
            }
            self.words = blocks(&self.key, self.counter);
            self.next = 0;
            self.end = if self.counter == 12 { 28 } else { 32 };
        }
        let v = self.words[self.next];
        self.next += 1;
        v
    }

    /// Go's `ChaCha8.Read`: whole little-endian words, the rest of a partial one kept.
    fn read(&mut self, out: &mut [u8]) {
        let from_left = self.leftover.len().min(out.len());
        out[..from_left].copy_from_slice(&self.leftover[..from_left]);
        self.leftover.drain(..from_left);
        let mut chunks = out[from_left..].chunks_exact_mut(8);
        for c in &mut chunks {
            c.copy_from_slice(&self.next_u64().to_le_bytes());
        }
        let rest = chunks.into_remainder();
        if !rest.is_empty() {
            let word = self.next_u64().to_le_bytes();
            let n = rest.len();
            rest.copy_from_slice(&word[..n]);
            self.leftover = word[n..].to_vec();
        }
    }

    /// frand's `Intn`: 64-bit draws, redrawn above the largest multiple of `n`.
    fn below(&mut self, n: u64) -> u64 {
        let max = u64::MAX - u64::MAX % n;
        loop {
            let i = self.next_u64();
            if i < max {
                return i % n;
            }
        }
    }
}

/// The length in `${hex(n)}`; a number Go's `Atoi` refuses counts as zero, as in Pulumi.
fn length(caps: &Captures<'_>) -> usize {
    caps[1].parse().unwrap_or(0)
}

fn pick(stream: &mut ChaCha8Rand, chars: &[u8], n: usize) -> String {
    (0..n)
        .map(|_| char::from(chars[stream.below(chars.len() as u64) as usize]))
        .collect()
}

static HEX: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\$\{hex\((\d+)\)\}").expect("a fixed, valid regex"));
static ALPHANUM: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\$\{alphanum\((\d+)\)\}").expect("a fixed, valid regex"));
static STRING: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\$\{string\((\d+)\)\}").expect("a fixed, valid regex"));
static NUM: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\$\{num\((\d+)\)\}").expect("a fixed, valid regex"));

/// The name a pattern gives the resource `name` (stack-level parts already resolved), and
/// whether it has a random part (a name without one cannot exist twice, so a replacement
/// must delete first). An empty seed draws fresh randomness, as Pulumi's does.
pub fn generate_name(pattern: &str, name: &str, random_seed: &[u8]) -> (String, bool) {
    let seed: [u8; 32] = if random_seed.is_empty() {
        rand::random()
    } else {
        Sha256::digest(random_seed).into()
    };
    let stream = &mut ChaCha8Rand::new(seed);
    let mut result = pattern.replace("${name}", name);
    let before = result.clone();
    result = HEX
        .replace_all(&result, |c: &Captures<'_>| {
            let n = length(c);
            let mut b = vec![0u8; n / 2 + 1];
            stream.read(&mut b);
            hex::encode(b)[..n].to_string()
        })
        .into_owned();
    let tables: [(&Regex, &[u8]); 3] = [
        (&ALPHANUM, b"abcdefghijklmnopqrstuvwxyz0123456789"),
        (&STRING, b"abcdefghijklmnopqrstuvwxyz"),
        (&NUM, b"0123456789"),
    ];
    for (re, chars) in tables {
        result = re
            .replace_all(&result, |c: &Captures<'_>| pick(stream, chars, length(c)))
            .into_owned();
    }
    if result.contains("${uuid}") {
        let mut b = [0u8; 16];
        stream.read(&mut b);
        let h = hex::encode(b);
        let uuid = format!(
            "{}-{}-{}-{}-{}",
            &h[..8],
            &h[8..12],
            &h[12..16],
            &h[16..20],
            &h[20..]
        );
        result = result.replace("${uuid}", &uuid);
    }
    let has_random = result != before;
    (result, has_random)
}
