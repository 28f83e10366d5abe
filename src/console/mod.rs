//! The console in a terminal: the event loop that reduces engine events and keys into the
//! `app` model and draws it with `views`, and the terminal's setup and restore. It sits above
//! both, so `app` stays pure and `views` only draw.

pub mod replay;
pub mod run;
pub mod terminal_ops;

pub use run::Console;
