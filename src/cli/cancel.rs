//! `cancel`: ends the run holding the stack's lock. Pulumi's self-managed backends only
//! delete the lock and leave the run going; here a run of this host is asked to stop as
//! Ctrl-C asks it (SIGINT: its running steps finish, its state is saved, its lock released)
//! and waited for, a lock whose holder is gone is released, and a run on another host is
//! refused, as no signal reaches it.

use std::io::{BufRead, IsTerminal, Write};
use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::{Result, anyhow};
use stepdeck::state::{Holder, LockInfo, StackRef};

use super::errors::usage;
use super::stack_name::StackName;
use super::stdout::outln;
use super::workspace::Workspace;

/// How long `cancel` waits for a signalled run to stop: its running steps finish first.
const WAIT: Duration = Duration::from_secs(120);
/// How often the lock is looked at while waiting.
const POLL: Duration = Duration::from_millis(50);

pub(super) async fn run(
    dir: &Path,
    backend: Option<&str>,
    name: Option<String>,
    yes: bool,
) -> Result<()> {
    let ws = Workspace::open(dir, backend)?;
    let stack = ws.stack(name.as_deref(), false)?;
    let shown = ws.shown(&StackName::new(&ws.project.name, &stack.name));
    if !yes && !confirmed(&shown)? {
        outln!("confirmation declined")?;
        return Ok(());
    }
    let Some(held) = ws.backend.lock_holder(&stack.reference)? else {
        outln!("There is no update running for '{shown}'.")?;
        return Ok(());
    };
    match held.holder() {
        Holder::Gone => {
            ws.backend.unlock(&stack.reference, false)?;
        }
        _ if held.runs_here() => stop(&ws, &stack.reference, &held).await?,
        _ => {
            return Err(usage(format!(
                "the update is run by {}, which this host cannot signal: stop it there (Ctrl-C), or once it is gone run `{} stack unlock`",
                held.describe(),
                super::program_name()
            )));
        }
    }
    outln!("The currently running update for '{shown}' has been canceled!")?;
    Ok(())
}

/// Pulumi's prompt: the stack's name typed back. Without a terminal there is no one to ask,
/// and Pulumi goes on.
fn confirmed(shown: &str) -> Result<bool> {
    if !std::io::stdin().is_terminal() {
        return Ok(true);
    }
    print!(
        "This will irreversibly cancel the currently running update for '{shown}'!\nPlease confirm that this is what you'd like to do by typing `{shown}`: "
    );
    std::io::stdout().flush()?;
    let mut line = String::new();
    std::io::stdin().lock().read_line(&mut line)?;
    Ok(line.trim() == shown)
}

/// Asks the holder, a process of this host, to stop as Ctrl-C does, and waits until it has
/// released the lock (or is gone, its lock then released here).
async fn stop(ws: &Workspace, stack: &StackRef, held: &LockInfo) -> Result<()> {
    check_is_ours(held.pid)?;
    let pid =
        libc::pid_t::try_from(held.pid).map_err(|_| anyhow!("pid {} out of range", held.pid))?;
    // SAFETY: kill(2) with a pid read from the lock and a signal number; no memory is shared.
    if unsafe { libc::kill(pid, libc::SIGINT) } != 0 {
        let e = std::io::Error::last_os_error();
        if e.raw_os_error() != Some(libc::ESRCH) {
            return Err(anyhow!("signalling pid {}: {e}", held.pid));
        }
    }
    eprintln!(
        "Asked pid {} to cancel its update; waiting for its running steps to finish...",
        held.pid
    );
    let deadline = Instant::now() + WAIT;
    loop {
        match ws.backend.lock_holder(stack)? {
            Some(now) if now.id == held.id => {
                if now.pid_gone_here() {
                    ws.backend.unlock(stack, false)?;
                    return Ok(());
                }
            }
            _ => return Ok(()),
        }
        if Instant::now() >= deadline {
            return Err(anyhow!(
                "pid {} still holds the stack's lock after {} s: its running steps have not finished; run `{} cancel` again to keep waiting",
                held.pid,
                WAIT.as_secs(),
                super::program_name()
            ));
        }
        tokio::time::sleep(POLL).await;
    }
}

/// Refuses to signal a pid that is not a stepdeck (or `pulumi`) process: the pid of a lock
/// whose holder died may have been reused by something else.
fn check_is_ours(pid: u32) -> Result<()> {
    let exe = std::fs::read_link(format!("/proc/{pid}/exe")).ok();
    let ours = std::env::current_exe().ok();
    let named = exe
        .as_deref()
        .and_then(Path::file_name)
        .and_then(|n| n.to_str())
        .is_some_and(|n| n.starts_with("stepdeck") || n.starts_with("pulumi"));
    if exe.is_some() && (exe == ours || named) {
        return Ok(());
    }
    Err(usage(format!(
        "pid {pid} holds the stack's lock but is not a stepdeck process; if the run is gone, run `{} stack unlock --force`",
        super::program_name()
    )))
}
