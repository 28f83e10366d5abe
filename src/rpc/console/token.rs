//! The per-deployment tokens the console protocol requires on every call: one that may act
//! and one that may only watch. Generated at random unless the operator supplies them.

use rand::RngCore;

/// What a presented token allows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// Watch and act (pause, approve, decline, cancel).
    Control,
    /// Watch only.
    Watch,
}

/// The two tokens of one served deployment.
#[derive(Clone, Debug)]
pub struct Tokens {
    pub control: String,
    pub watch: String,
}

/// A fresh random token: 32 bytes, hex.
pub fn random_token() -> String {
    let mut bytes = [0u8; 32];
    rand::rng().fill_bytes(&mut bytes);
    hex::encode(bytes)
}

impl Tokens {
    /// What `presented` allows, compared in constant time (for tokens of equal length).
    pub fn role(&self, presented: &str) -> Option<Role> {
        if same(presented, &self.control) {
            Some(Role::Control)
        } else if same(presented, &self.watch) {
            Some(Role::Watch)
        } else {
            None
        }
    }
}

fn same(a: &str, b: &str) -> bool {
    a.len() == b.len()
        && !b.is_empty()
        && a.bytes()
            .zip(b.bytes())
            .fold(0u8, |acc, (x, y)| acc | (x ^ y))
            == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_token_has_its_role_and_anything_else_none() {
        let t = Tokens {
            control: random_token(),
            watch: random_token(),
        };
        assert_eq!(t.control.len(), 64);
        assert_ne!(t.control, t.watch);
        assert_eq!(t.role(&t.control.clone()), Some(Role::Control));
        assert_eq!(t.role(&t.watch.clone()), Some(Role::Watch));
        assert_eq!(t.role(""), None);
        assert_eq!(t.role(&t.control[..63]), None);
    }
}
