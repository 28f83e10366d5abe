//! Who is on the other end of a loopback TCP connection. Provider plugins get the engine and
//! the monitor on 127.0.0.1 (gRPC's C core, which Python plugins use, cannot talk to our Unix
//! socket), and a TCP port, unlike our private socket, is open to every local user; so the
//! server asks the kernel's socket tables (`/proc/net/tcp`, and `/proc/net/tcp6`, where gRPC's
//! C core's dual-stack sockets appear with IPv4-mapped addresses) which user owns the
//! connecting socket, and serves only our own.

use std::io;
use std::net::{Ipv4Addr, Ipv6Addr, SocketAddr, SocketAddrV4};

/// The kernel's tables of IPv4 and IPv6 TCP sockets.
const TCP_TABLES: [&str; 2] = ["/proc/net/tcp", "/proc/net/tcp6"];

/// The uid owning the socket at `peer` that is connected to our socket at `local`, or `None`
/// when the kernel lists no such connection.
pub(in crate::rpc) fn peer_uid(local: SocketAddr, peer: SocketAddr) -> io::Result<Option<u32>> {
    let (SocketAddr::V4(local), SocketAddr::V4(peer)) = (local, peer) else {
        return Ok(None);
    };
    for path in TCP_TABLES {
        let table = match std::fs::read_to_string(path) {
            Err(e) if e.kind() == io::ErrorKind::NotFound => continue,
            read => read?,
        };
        if let Some(uid) = uid_in_table(&table, local, peer) {
            return Ok(Some(uid));
        }
    }
    Ok(None)
}

/// Whether the connection from `peer` to `local` comes from a socket of our effective uid.
pub(in crate::rpc) fn is_ours(local: SocketAddr, peer: SocketAddr) -> bool {
    // SAFETY: geteuid has no preconditions and cannot fail.
    let uid = unsafe { libc::geteuid() };
    matches!(peer_uid(local, peer), Ok(Some(owner)) if owner == uid)
}

/// Finds the row of the socket whose own address is `peer` and whose remote is `local`: the
/// client's end of the connection, owned by the client's user.
fn uid_in_table(table: &str, local: SocketAddrV4, peer: SocketAddrV4) -> Option<u32> {
    table.lines().skip(1).find_map(|line| {
        let fields: Vec<&str> = line.split_whitespace().collect();
        let own = parse_address(fields.get(1)?)?;
        let remote = parse_address(fields.get(2)?)?;
        (own == peer && remote == local)
            .then(|| fields.get(7)?.parse().ok())
            .flatten()
    })
}

/// An IPv4 (or IPv4-mapped IPv6) address as the tables write it: the address as the hex of its
/// bytes read as native-endian 32-bit words, a colon, the port in hex (`0100007F:1F90` is
/// 127.0.0.1:8080 on a little-endian machine).
fn parse_address(s: &str) -> Option<SocketAddrV4> {
    let (ip, port) = s.split_once(':')?;
    let port = u16::from_str_radix(port, 16).ok()?;
    let mut bytes = Vec::with_capacity(16);
    for word in 0..ip.len() / 8 {
        let word = u32::from_str_radix(ip.get(word * 8..word * 8 + 8)?, 16).ok()?;
        bytes.extend_from_slice(&word.to_ne_bytes());
    }
    let ip = match bytes.len() {
        4 => Ipv4Addr::new(bytes[0], bytes[1], bytes[2], bytes[3]),
        16 => Ipv6Addr::from(<[u8; 16]>::try_from(bytes).ok()?).to_ipv4_mapped()?,
        _ => return None,
    };
    Some(SocketAddrV4::new(ip, port))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_connection_of_ours_is_found_with_our_uid() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let client = std::net::TcpStream::connect(listener.local_addr().unwrap()).unwrap();
        let (_server, peer) = listener.accept().unwrap();
        assert_eq!(peer, client.local_addr().unwrap());
        let uid = unsafe { libc::geteuid() };
        let local = listener.local_addr().unwrap();
        assert_eq!(peer_uid(local, peer).unwrap(), Some(uid));
        assert!(is_ours(local, peer));
    }

    #[test]
    fn only_the_client_end_of_the_named_connection_counts() {
        let word = u32::from_ne_bytes([127, 0, 0, 1]);
        let row = |own: u16, remote: u16, uid: u32| {
            format!(
                "   0: {word:08X}:{own:04X} {word:08X}:{remote:04X} 01 00000000:00000000 00:00000000 00000000  {uid}        0 1 1 0 20 4 30 10 -1\n"
            )
        };
        let table = format!(
            "  sl  local_address rem_address   st ...\n{}{}{}",
            row(5000, 40000, 0),
            row(40000, 5000, 1001),
            row(40001, 5000, 1002),
        );
        let at = |port| SocketAddrV4::new(Ipv4Addr::LOCALHOST, port);
        assert_eq!(uid_in_table(&table, at(5000), at(40000)), Some(1001));
        assert_eq!(uid_in_table(&table, at(5000), at(40001)), Some(1002));
        assert_eq!(uid_in_table(&table, at(5000), at(40002)), None);
    }

    #[test]
    fn a_dual_stack_client_is_found_by_its_mapped_address() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let local = listener.local_addr().unwrap();
        let mapped = SocketAddr::new(Ipv4Addr::LOCALHOST.to_ipv6_mapped().into(), local.port());
        let client = std::net::TcpStream::connect(mapped).unwrap();
        let (_server, peer) = listener.accept().unwrap();
        assert_eq!(peer.port(), client.local_addr().unwrap().port());
        assert!(is_ours(local, peer), "the client is in /proc/net/tcp6");
    }
}
