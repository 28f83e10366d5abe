//! A free loopback port for a debugger to listen on.

/// The first port from `preferred` upward that is free on loopback now (Pulumi's
/// `FindNextAvailablePort`): a debugger listens on its well-known port when it can, so that an
/// editor's default configuration attaches; 0 (any port) when none is.
pub(super) fn next_free_port(preferred: u16) -> u16 {
    (preferred..=u16::MAX)
        .find(|p| std::net::TcpListener::bind(("127.0.0.1", *p)).is_ok())
        .unwrap_or(0)
}
