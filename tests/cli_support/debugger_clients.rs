//! The debugger protocols `--attach-debugger` serves, spoken as an editor speaks them: a
//! run started under a debugger, the `startDebuggingEvent` it announced, Node's inspector
//! (Chrome DevTools Protocol over a WebSocket), bun's (WebKit's inspector protocol, likewise)
//! and debugpy (the Debug Adapter Protocol over TCP).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::Child;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::Duration;

use serde_json::{Value, json};

/// How long a run may go without a line of output before the test gives up on it (a run
/// left waiting for a debugger must fail the test, never hang it).
const QUIET_LIMIT: Duration = Duration::from_secs(120);

/// A command started in the background, its standard output read line by line (on a thread,
/// so every wait is bounded) until the run waits for a debugger.
pub(crate) struct WaitingRun {
    pub child: Child,
    lines: Receiver<String>,
    /// Standard output so far.
    pub out: String,
}

impl WaitingRun {
    /// Reads `child`'s standard output until the display says it waits for a debugger; the
    /// event log (written before the display) then holds the announcement, which is returned.
    pub(crate) fn start(mut child: Child, event_log: &Path) -> (WaitingRun, Value) {
        let stdout = BufReader::new(child.stdout.take().unwrap());
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in stdout.lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let mut run = WaitingRun {
            child,
            lines,
            out: String::new(),
        };
        while !run.out.contains("Waiting for debugger to attach (") {
            assert!(
                run.next_line(QUIET_LIMIT).is_some(),
                "the run never waited for a debugger:\n{}",
                run.out
            );
        }
        let log = std::fs::read_to_string(event_log).unwrap();
        let event = log
            .lines()
            .map(|l| serde_json::from_str::<Value>(l).unwrap())
            .find_map(|e| e.get("startDebuggingEvent").cloned());
        let event = event.unwrap_or_else(|| panic!("no startDebuggingEvent in the log:\n{log}"));
        (run, event)
    }

    /// The next line of output within `limit` (kept in `out`); `None` when the output ended.
    /// A run silent for longer is killed and the test fails with what it printed.
    fn next_line(&mut self, limit: Duration) -> Option<String> {
        match self.lines.recv_timeout(limit) {
            Ok(line) => {
                self.out.push_str(&line);
                self.out.push('\n');
                Some(line)
            }
            Err(RecvTimeoutError::Disconnected) => None,
            Err(RecvTimeoutError::Timeout) if limit < QUIET_LIMIT => Some(String::new()),
            Err(RecvTimeoutError::Timeout) => {
                let _ = self.child.kill();
                panic!("the run printed nothing for {limit:?}:\n{}", self.out)
            }
        }
    }

    /// Lets the Node.js process waiting in its inspector at `port` run, as an editor's
    /// "continue" does, until the run prints again. Node answers a `runIfWaitingForDebugger`
    /// that reaches it before its main thread starts waiting and then waits on, so an editor
    /// (and this client) asks again while the program has not gone on.
    pub(crate) fn let_node_run(&mut self, port: u16) {
        for _ in 0..30 {
            let reply = cdp_run_if_waiting(port);
            assert!(reply.get("error").is_none(), "{reply}");
            // The inspector's own lines (each client's "Debugger ending on") are not progress.
            loop {
                match self.next_line(Duration::from_secs(2)) {
                    Some(line) if line.is_empty() => break,
                    Some(line) if line.contains("Debugger ") => continue,
                    _ => return,
                }
            }
        }
        panic!(
            "the program never went on after its debugger let it run:\n{}",
            self.out
        );
    }

    /// Waits for the command to end: whether it succeeded, and all its standard output and
    /// standard error.
    pub(crate) fn finish(mut self) -> (bool, String) {
        while self.next_line(QUIET_LIMIT).is_some() {}
        let mut err = String::new();
        if let Some(mut e) = self.child.stderr.take() {
            e.read_to_string(&mut err).unwrap();
        }
        let status = self.child.wait().unwrap();
        (status.success(), format!("{}{err}", self.out))
    }
}

/// Held by a test whose Node.js process listens for a debugger: each takes the first free port
/// from 9229, so two started at the same moment would pick the same one.
pub(crate) fn inspector_port_lock() -> std::sync::MutexGuard<'static, ()> {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    LOCK.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Lets a Node.js process stopped by `--inspect-brk` at `port` run, as Pulumi's
/// `TestDebuggerAttachNodejs` does: the inspector's target list (`/json`), its WebSocket, the
/// CDP `Runtime.runIfWaitingForDebugger`, whose reply is returned; then the WebSocket is closed.
fn cdp_run_if_waiting(port: u16) -> Value {
    let list = http_get(port, "/json");
    let targets: Value = serde_json::from_str(&list).unwrap();
    let url = targets[0]["webSocketDebuggerUrl"]
        .as_str()
        .unwrap_or_else(|| panic!("no webSocketDebuggerUrl in {list}"));
    let path = url
        .strip_prefix(&format!("ws://127.0.0.1:{port}"))
        .unwrap_or_else(|| panic!("{url} is not on port {port}"));
    let mut ws = TcpStream::connect(("127.0.0.1", port)).unwrap();
    write!(
        ws,
        "GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
    )
    .unwrap();
    let head = read_head(&mut ws);
    assert!(head.starts_with("HTTP/1.1 101"), "no WebSocket: {head}");
    let request = json!({"id": 1, "method": "Runtime.runIfWaitingForDebugger"}).to_string();
    ws.write_all(&masked_frame(0x1, request.as_bytes()))
        .unwrap();
    let reply = loop {
        let (opcode, payload) = read_frame(&mut ws);
        assert_eq!(opcode, 0x1, "a text frame from the inspector");
        let message: Value = serde_json::from_slice(&payload).unwrap();
        if message["id"] == 1 {
            break message;
        }
    };
    ws.write_all(&masked_frame(0x8, &[])).unwrap();
    reply
}

/// Lets a bun program waiting in its inspector at `url` (`ws://127.0.0.1:<port>`) run, as
/// Pulumi's `TestDebuggerAttachBun` does: `Runtime.enable`, then WebKit's `Inspector.initialized`,
/// read until bun answers it (closing before would leave the program waiting); the messages
/// received are returned.
pub(crate) fn bun_inspector_initialized(url: &str) -> Vec<Value> {
    let rest = url
        .strip_prefix("ws://")
        .unwrap_or_else(|| panic!("{url} is not a ws:// address"));
    let (host, path) = rest.split_once('/').unwrap_or((rest, ""));
    let mut ws = TcpStream::connect(host).unwrap();
    ws.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    write!(
        ws,
        "GET /{path} HTTP/1.1\r\nHost: {host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
    )
    .unwrap();
    let head = read_head(&mut ws);
    assert!(head.starts_with("HTTP/1.1 101"), "no WebSocket: {head}");
    for request in [
        json!({"id": 1, "method": "Runtime.enable"}),
        json!({"id": 2, "method": "Inspector.initialized"}),
    ] {
        ws.write_all(&masked_frame(0x1, request.to_string().as_bytes()))
            .unwrap();
    }
    let mut received = Vec::new();
    loop {
        let (opcode, payload) = read_frame(&mut ws);
        assert_eq!(opcode, 0x1, "a text frame from the inspector: {received:?}");
        let message: Value = serde_json::from_slice(&payload).unwrap();
        let done = message["id"] == 2;
        received.push(message);
        if done {
            break;
        }
    }
    ws.write_all(&masked_frame(0x8, &[])).unwrap();
    received
}

fn http_get(port: u16, path: &str) -> String {
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let head = read_head(&mut s);
    assert!(
        head.starts_with("HTTP/1.") && head.contains(" 200 "),
        "{head}"
    );
    let length: usize = header(&head, "content-length").parse().unwrap();
    let mut body = vec![0; length];
    s.read_exact(&mut body).unwrap();
    String::from_utf8(body).unwrap()
}

/// Reads an HTTP head (up to its blank line) byte by byte, leaving what follows unread.
fn read_head(s: &mut TcpStream) -> String {
    let mut head = Vec::new();
    let mut byte = [0u8];
    while !head.ends_with(b"\r\n\r\n") {
        s.read_exact(&mut byte).unwrap();
        head.push(byte[0]);
    }
    String::from_utf8(head).unwrap()
}

fn header<'a>(head: &'a str, name: &str) -> &'a str {
    head.lines()
        .find_map(|l| {
            let (k, v) = l.split_once(':')?;
            k.eq_ignore_ascii_case(name).then(|| v.trim())
        })
        .unwrap_or_else(|| panic!("no {name} in {head}"))
}

/// One final frame, masked as a client's must be (RFC 6455 §5.3).
fn masked_frame(opcode: u8, payload: &[u8]) -> Vec<u8> {
    let mask = [0x12u8, 0x34, 0x56, 0x78];
    let mut frame = vec![0x80 | opcode];
    match payload.len() {
        n @ 0..=125 => frame.push(0x80 | n as u8),
        n => {
            frame.push(0x80 | 126);
            frame.extend_from_slice(&u16::try_from(n).unwrap().to_be_bytes());
        }
    }
    frame.extend_from_slice(&mask);
    frame.extend(payload.iter().enumerate().map(|(i, b)| b ^ mask[i % 4]));
    frame
}

/// One unfragmented, unmasked frame from the server: its opcode and payload.
fn read_frame(s: &mut TcpStream) -> (u8, Vec<u8>) {
    let mut two = [0u8; 2];
    s.read_exact(&mut two).unwrap();
    let length = match two[1] & 0x7f {
        126 => {
            let mut n = [0u8; 2];
            s.read_exact(&mut n).unwrap();
            u64::from(u16::from_be_bytes(n))
        }
        127 => {
            let mut n = [0u8; 8];
            s.read_exact(&mut n).unwrap();
            u64::from_be_bytes(n)
        }
        n => u64::from(n),
    };
    let mut payload = vec![0; usize::try_from(length).unwrap()];
    s.read_exact(&mut payload).unwrap();
    (two[0] & 0x0f, payload)
}

/// A Debug Adapter Protocol session with debugpy, as Pulumi's `TestPluginDebuggerAttachPython`
/// drives it.
pub(crate) struct DapClient {
    stream: BufReader<TcpStream>,
    seq: u64,
    /// Every event received, in order, by name.
    pub events: Vec<String>,
}

impl DapClient {
    pub(crate) fn connect(port: u16) -> DapClient {
        DapClient {
            stream: BufReader::new(TcpStream::connect(("127.0.0.1", port)).unwrap()),
            seq: 0,
            events: Vec::new(),
        }
    }

    /// `initialize`, `attach` with the announced `config`, `configurationDone` once debugpy
    /// says `initialized`: the debuggee then runs. Returns the responses' commands in order.
    pub(crate) fn attach(&mut self, config: &Value) -> Vec<String> {
        let mut responses = Vec::new();
        self.send(
            "initialize",
            json!({
                "clientID": "pulumi", "clientName": "Pulumi", "adapterID": "pulumi",
                "locale": "en-us", "linesStartAt1": true, "columnsStartAt1": true,
            }),
        );
        responses.push(self.until_response());
        self.send("attach", config.clone());
        while !self.events.iter().any(|e| e == "initialized") {
            let m = self
                .read()
                .expect("debugpy ended the session before `initialized`");
            self.note(&m, &mut responses);
        }
        self.send("configurationDone", json!({}));
        while !responses.iter().any(|r| r == "attach") {
            let m = self
                .read()
                .expect("debugpy ended the session before attaching");
            self.note(&m, &mut responses);
        }
        responses
    }

    /// Reads until debugpy says the debuggee `terminated` (true) or closes the session.
    pub(crate) fn until_terminated(&mut self) -> bool {
        while let Some(m) = self.read() {
            let mut ignored = Vec::new();
            self.note(&m, &mut ignored);
            if m["event"] == "terminated" {
                return true;
            }
        }
        false
    }

    fn send(&mut self, command: &str, arguments: Value) {
        self.seq += 1;
        let body =
            json!({"seq": self.seq, "type": "request", "command": command, "arguments": arguments})
                .to_string();
        let stream = self.stream.get_mut();
        write!(stream, "Content-Length: {}\r\n\r\n{body}", body.len()).unwrap();
    }

    fn until_response(&mut self) -> String {
        let mut responses = Vec::new();
        while responses.is_empty() {
            let m = self.read().expect("debugpy ended the session");
            self.note(&m, &mut responses);
        }
        responses.remove(0)
    }

    /// Records an event, or a response (which must be a success) by its command.
    fn note(&mut self, m: &Value, responses: &mut Vec<String>) {
        match m["type"].as_str() {
            Some("event") => self.events.push(m["event"].as_str().unwrap().to_string()),
            Some("response") => {
                assert_eq!(m["success"], true, "debugpy refused: {m}");
                responses.push(m["command"].as_str().unwrap().to_string());
            }
            _ => panic!("unexpected DAP message {m}"),
        }
    }

    /// The next message, or `None` when debugpy closed the connection.
    fn read(&mut self) -> Option<Value> {
        let mut length = None;
        loop {
            let mut line = String::new();
            if self.stream.read_line(&mut line).ok()? == 0 {
                return None;
            }
            let line = line.trim_end();
            if line.is_empty() {
                break;
            }
            if let Some(n) = line.strip_prefix("Content-Length:") {
                length = Some(n.trim().parse::<usize>().unwrap());
            }
        }
        let mut body = vec![0; length.expect("a Content-Length header")];
        self.stream.read_exact(&mut body).ok()?;
        Some(serde_json::from_slice(&body).unwrap())
    }
}
