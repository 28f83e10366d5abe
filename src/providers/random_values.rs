//! The value generators behind the `random` provider's resources: strings from character
//! classes, byte IDs in several encodings, pet names, shuffles and seeded generators.

use base64::Engine as _;
use rand::rngs::StdRng;
use rand::seq::{IndexedRandom, SliceRandom};
use rand::{Rng, SeedableRng};
use sha2::{Digest, Sha256};

use super::pet_words::{ADJECTIVES, ADVERBS, ANIMALS};

const UPPER: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
const LOWER: &str = "abcdefghijklmnopqrstuvwxyz";
const NUMERIC: &str = "0123456789";
/// The special characters `pulumi-random` documents as its default set.
pub(crate) const DEFAULT_SPECIAL: &str = "!@#$%&*()-_=+[]{}<>:?";

/// What a `RandomString` or `RandomPassword` is made of.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct StringSpec {
    pub length: usize,
    pub upper: bool,
    pub lower: bool,
    pub numeric: bool,
    pub special: bool,
    pub min_upper: usize,
    pub min_lower: usize,
    pub min_numeric: usize,
    pub min_special: usize,
    pub override_special: Option<String>,
}

impl StringSpec {
    fn special_chars(&self) -> &str {
        self.override_special.as_deref().unwrap_or(DEFAULT_SPECIAL)
    }

    /// Why the spec cannot produce a string, if it cannot.
    pub(crate) fn problem(&self) -> Option<String> {
        let mins = self.min_upper + self.min_lower + self.min_numeric + self.min_special;
        if self.length < 1 {
            return Some("`length` must be at least 1".to_string());
        }
        if mins > self.length {
            return Some(format!(
                "`length` ({}) must be at least minUpper + minLower + minNumeric + minSpecial ({mins})",
                self.length
            ));
        }
        let pool = self.pool();
        if pool.is_empty() && self.length > mins {
            return Some("at least one of upper, lower, numeric and special must be true".into());
        }
        if self.min_special > 0 && self.special_chars().is_empty() {
            return Some(
                "`minSpecial` needs special characters but `overrideSpecial` is empty".into(),
            );
        }
        None
    }

    fn pool(&self) -> Vec<char> {
        let mut pool = String::new();
        for (on, chars) in [
            (self.upper, UPPER),
            (self.lower, LOWER),
            (self.numeric, NUMERIC),
            (self.special, self.special_chars()),
        ] {
            if on {
                pool.push_str(chars);
            }
        }
        pool.chars().collect()
    }

    /// The minimum of each class first, the rest from every enabled class, then shuffled.
    pub(crate) fn generate(&self, rng: &mut impl Rng) -> Result<String, String> {
        if let Some(p) = self.problem() {
            return Err(p);
        }
        let mut out: Vec<char> = Vec::with_capacity(self.length);
        for (min, chars) in [
            (self.min_upper, UPPER),
            (self.min_lower, LOWER),
            (self.min_numeric, NUMERIC),
            (self.min_special, self.special_chars()),
        ] {
            let chars: Vec<char> = chars.chars().collect();
            for _ in 0..min {
                out.extend(chars.choose(rng));
            }
        }
        let pool = self.pool();
        while out.len() < self.length {
            out.extend(pool.choose(rng));
        }
        out.shuffle(rng);
        Ok(out.into_iter().collect())
    }
}

/// A generator seeded by `seed` (so the same seed gives the same value), or by the OS.
pub(crate) fn seeded(seed: Option<&str>) -> StdRng {
    match seed {
        Some(s) => StdRng::from_seed(Sha256::digest(s.as_bytes()).into()),
        None => StdRng::from_os_rng(),
    }
}

/// The encodings `RandomId` outputs, each with the prefix; `id` is the unprefixed URL form.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct IdEncodings {
    pub id: String,
    pub b64_std: String,
    pub b64_url: String,
    pub hex: String,
    pub dec: String,
}

pub(crate) fn id_encodings(bytes: &[u8], prefix: &str) -> IdEncodings {
    let url = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes);
    IdEncodings {
        b64_std: format!(
            "{prefix}{}",
            base64::engine::general_purpose::STANDARD.encode(bytes)
        ),
        b64_url: format!("{prefix}{url}"),
        hex: format!("{prefix}{}", hex::encode(bytes)),
        dec: format!("{prefix}{}", decimal(bytes)),
        id: url,
    }
}

/// The big-endian unsigned integer in `bytes`, in base 10.
pub(crate) fn decimal(bytes: &[u8]) -> String {
    // Little-endian base-10 digits, multiplied by 256 and added to per byte.
    let mut digits: Vec<u32> = vec![0];
    for &b in bytes {
        let mut carry = u32::from(b);
        for d in digits.iter_mut() {
            let v = *d * 256 + carry;
            *d = v % 10;
            carry = v / 10;
        }
        while carry > 0 {
            digits.push(carry % 10);
            carry /= 10;
        }
    }
    while digits.len() > 1 && digits.last() == Some(&0) {
        digits.pop();
    }
    digits
        .iter()
        .rev()
        .map(|d| char::from_digit(*d, 10).unwrap_or('0'))
        .collect()
}

/// `[prefix-]adverb…-adjective-animal` with `length` words.
pub(crate) fn pet_name(
    length: usize,
    separator: &str,
    prefix: Option<&str>,
    rng: &mut impl Rng,
) -> String {
    let mut words: Vec<&str> = Vec::with_capacity(length + 1);
    words.extend(prefix);
    for i in 0..length {
        let list = if i + 1 == length {
            ANIMALS
        } else if i + 2 == length {
            ADJECTIVES
        } else {
            ADVERBS
        };
        words.extend(list.choose(rng));
    }
    words.join(separator)
}

/// `count` items of `inputs` in random order; past the input's length, items repeat, each
/// round a fresh permutation (so no item appears more often than once per round).
pub(crate) fn shuffle(inputs: &[String], count: usize, rng: &mut impl Rng) -> Vec<String> {
    let mut out = Vec::with_capacity(count);
    if inputs.is_empty() {
        return out;
    }
    while out.len() < count {
        let mut round: Vec<&String> = inputs.iter().collect();
        round.shuffle(rng);
        out.extend(round.into_iter().take(count - out.len()).cloned());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(length: usize) -> StringSpec {
        StringSpec {
            length,
            upper: true,
            lower: true,
            numeric: true,
            special: true,
            min_upper: 0,
            min_lower: 0,
            min_numeric: 0,
            min_special: 0,
            override_special: None,
        }
    }

    #[test]
    fn strings_honour_classes_and_minimums() {
        let rng = &mut seeded(None);
        let s = StringSpec {
            special: false,
            upper: false,
            min_upper: 3,
            min_special: 2,
            override_special: Some("#".into()),
            ..spec(12)
        };
        for _ in 0..50 {
            let v = s.generate(rng).unwrap();
            assert_eq!(v.chars().count(), 12);
            assert!(
                v.chars().filter(char::is_ascii_uppercase).count() == 3,
                "{v}"
            );
            assert_eq!(v.chars().filter(|c| *c == '#').count(), 2, "{v}");
            assert!(v.chars().all(|c| c.is_ascii_alphanumeric() || c == '#'));
        }
        let bad = StringSpec {
            min_upper: 5,
            min_lower: 5,
            ..spec(8)
        };
        assert!(bad.generate(rng).unwrap_err().contains("(10)"));
        let none = StringSpec {
            upper: false,
            lower: false,
            numeric: false,
            special: false,
            ..spec(4)
        };
        assert!(none.problem().is_some());
    }

    #[test]
    fn id_encodings_agree() {
        let e = id_encodings(&[0x01, 0x00], "p-");
        assert_eq!(e.hex, "p-0100");
        assert_eq!(e.dec, "p-256");
        assert_eq!(e.b64_std, "p-AQA=");
        assert_eq!(e.b64_url, "p-AQA");
        assert_eq!(e.id, "AQA");
        assert_eq!(decimal(&[0xff; 8]), u64::MAX.to_string());
        assert_eq!(decimal(&[]), "0");
    }

    #[test]
    fn seeds_make_values_repeatable() {
        let items: Vec<String> = (0..10).map(|i| i.to_string()).collect();
        let a = shuffle(&items, 10, &mut seeded(Some("s")));
        let b = shuffle(&items, 10, &mut seeded(Some("s")));
        assert_eq!(a, b);
        let mut sorted = a.clone();
        sorted.sort();
        let mut expected = items.clone();
        expected.sort();
        assert_eq!(sorted, expected);
        let long = shuffle(&items[..3], 7, &mut seeded(None));
        assert_eq!(long.len(), 7);
        for item in &items[..3] {
            assert!(long.iter().filter(|x| *x == item).count() <= 3);
        }
    }

    #[test]
    fn pet_names_have_the_requested_words() {
        let rng = &mut seeded(None);
        let n = pet_name(3, "_", Some("app"), rng);
        let parts: Vec<_> = n.split('_').collect();
        assert_eq!(parts.len(), 4);
        assert_eq!(parts[0], "app");
        assert!(ADVERBS.contains(&parts[1]) && ADJECTIVES.contains(&parts[2]));
        assert!(ANIMALS.contains(&parts[3]));
        assert!(ANIMALS.contains(&pet_name(1, "-", None, rng).as_str()));
    }
}
