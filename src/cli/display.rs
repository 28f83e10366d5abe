//! How a deployment is shown: in the console, as plain progress lines or as JSON, and the
//! configuration as every display may show it.

use std::collections::BTreeMap;
use std::io::IsTerminal;

use stepdeck::engine::Options;

/// How a deployment is shown.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Display {
    Console,
    Plain,
    Json,
}

impl Display {
    pub(super) fn choose(json: bool, non_interactive: bool) -> Display {
        if json {
            Display::Json
        } else if non_interactive
            || !std::io::stdout().is_terminal()
            || !std::io::stdin().is_terminal()
        {
            Display::Plain
        } else {
            Display::Console
        }
    }
}

/// The configuration as displays may show it: secret values masked.
pub(super) fn shown_config(opts: &Options) -> BTreeMap<String, String> {
    opts.config
        .iter()
        .map(|(k, v)| {
            let shown = if opts.secret_keys.contains(k) {
                "[secret]".to_string()
            } else {
                v.clone()
            };
            (k.clone(), shown)
        })
        .collect()
}
