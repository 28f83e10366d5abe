//! A command's results on standard output: a write that fails (a full disk, a closed pipe) is
//! an error naming standard output and a non-zero exit, where `println!` would panic.

use std::fmt;
use std::io::Write;

use stepdeck::output::checked_output::WriteFailed;

/// `println!` whose failure is an error: `outln!("{x}")?`.
macro_rules! outln {
    ($($arg:tt)*) => {
        $crate::cli::stdout::write(::std::format_args!("{}\n", ::std::format_args!($($arg)*)))
    };
}

/// `print!` whose failure is an error: `out!("{report}")?`.
macro_rules! out {
    ($($arg:tt)*) => {
        $crate::cli::stdout::write(::std::format_args!($($arg)*))
    };
}

pub(super) use {out, outln};

/// Writes `text` to standard output and flushes it (with nothing to write: flushes what
/// `print!` left buffered).
pub(super) fn write(text: fmt::Arguments<'_>) -> Result<(), WriteFailed> {
    let mut stdout = std::io::stdout().lock();
    stdout
        .write_fmt(text)
        .and_then(|()| stdout.flush())
        .map_err(|error| WriteFailed {
            name: "standard output".into(),
            what: "the command's output",
            error,
        })
}
