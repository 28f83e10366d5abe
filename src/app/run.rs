//! The console's event loop: terminal input, the engine's events and a frame tick in one
//! `select!`. Engine events are drained and coalesced between frames (at most ~30 redraws a
//! second from events), so the engine never waits for the screen. The terminal is restored on
//! exit, on error and on panic.

use std::io::{self, Stdout};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crossterm::event::{DisableMouseCapture, EnableMouseCapture, Event, EventStream};
use crossterm::execute;
use crossterm::terminal::{
    EnterAlternateScreen, LeaveAlternateScreen, disable_raw_mode, enable_raw_mode,
};
use futures::StreamExt;
use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;
use tokio::sync::mpsc::UnboundedReceiver;
use tokio::time::MissedTickBehavior;

use crate::engine::control::Control;
use crate::engine::events::EngineEvent;
use crate::views::{Theme, draw};

use super::console::{ConsoleError, ConsoleExit, ConsoleMode, Title};
use super::keymap::{map_key, map_mouse};
use super::model::Model;
use super::ui_state::UiState;
use super::update::{key_context, update};

/// Time between frames driven by engine events.
const FRAME: Duration = Duration::from_millis(33);
/// Most events applied before input gets a turn again.
const BATCH: usize = 65_536;

/// Set by the panic hook after it restored the terminal. A panic in another task (which tokio
/// catches) must not leave the console drawing on a cooked screen, so the loop takes it back.
static RESTORED_BY_PANIC: AtomicBool = AtomicBool::new(false);

/// Runs the console until the operator leaves it. Reads engine events from `events`, acts
/// through `control`; `mode` says whether it shows a preview (and may ask to apply it).
pub async fn run_console(
    mut events: UnboundedReceiver<EngineEvent>,
    control: Control,
    mode: ConsoleMode,
    title: Title,
) -> Result<ConsoleExit, ConsoleError> {
    let mut guard = TerminalGuard::enter()?;
    let result = event_loop(&mut guard.terminal, &mut events, &control, mode, title).await;
    drop(guard);
    result
}

async fn event_loop(
    terminal: &mut Terminal<CrosstermBackend<Stdout>>,
    events: &mut UnboundedReceiver<EngineEvent>,
    control: &Control,
    mode: ConsoleMode,
    title: Title,
) -> Result<ConsoleExit, ConsoleError> {
    let theme = Theme::from_env();
    let start = Instant::now();
    let mut model = Model::new();
    let mut ui = UiState::new(mode, title);
    let mut input = EventStream::new();
    let mut tick = tokio::time::interval(FRAME);
    tick.set_missed_tick_behavior(MissedTickBehavior::Skip);
    let mut engine_open = true;
    let mut redraw = true;
    let mut events_since_draw = false;
    let mut last_draw = Instant::now();
    let mut batch: Vec<EngineEvent> = Vec::with_capacity(1024);
    loop {
        if RESTORED_BY_PANIC.swap(false, Ordering::SeqCst) {
            enable_raw_mode()?;
            execute!(io::stdout(), EnterAlternateScreen, EnableMouseCapture)?;
            // `resize` clears the screen and forces a full redraw without querying the cursor
            // (which would race the input stream for the terminal's answer).
            let size = terminal.size()?;
            terminal.resize(ratatui::layout::Rect::new(0, 0, size.width, size.height))?;
            redraw = true;
        }
        if redraw {
            model.set_now(start.elapsed());
            terminal.draw(|f| draw(f, &model, &mut ui, theme))?;
            redraw = false;
            events_since_draw = false;
            last_draw = Instant::now();
        }
        tokio::select! {
            ev = input.next() => {
                let action = match ev {
                    Some(Ok(Event::Key(k))) => map_key(k, key_context(&ui)),
                    Some(Ok(Event::Mouse(m))) => map_mouse(m),
                    Some(Ok(Event::Resize(..))) => {
                        terminal.autoresize()?;
                        redraw = true;
                        None
                    }
                    Some(Ok(_)) => None,
                    Some(Err(e)) => return Err(e.into()),
                    None => return Err(io::Error::new(io::ErrorKind::UnexpectedEof, "terminal input closed").into()),
                };
                if let Some(action) = action {
                    model.set_now(start.elapsed());
                    ui.ensure_selection(&model);
                    if let Some(exit) = update(&mut ui, &model, control, action) {
                        return Ok(exit);
                    }
                    redraw = true;
                }
            }
            n = events.recv_many(&mut batch, BATCH), if engine_open => {
                if n == 0 {
                    engine_open = false;
                    ui.engine_gone = true;
                    redraw = true;
                }
                model.set_now(start.elapsed());
                let mut applied = 0;
                for e in batch.drain(..) {
                    model.apply(&e);
                    applied += 1;
                }
                while applied < BATCH {
                    match events.try_recv() {
                        Ok(e) => {
                            model.apply(&e);
                            applied += 1;
                        }
                        Err(_) => break,
                    }
                }
                events_since_draw = true;
            }
            _ = tick.tick() => {
                let clock_due = !model.run_state().is_over() && last_draw.elapsed() >= Duration::from_millis(100);
                let layout_due = ui.tree.is_stale(&model) || ui.graph.is_stale(&model);
                redraw |= events_since_draw || clock_due || layout_due;
            }
        }
    }
}

/// Raw mode, alternate screen and mouse capture for as long as it lives; restores them when
/// dropped and from the panic hook it installs.
struct TerminalGuard {
    terminal: Terminal<CrosstermBackend<Stdout>>,
    previous_hook: Arc<PanicHook>,
}

type PanicHook = Box<dyn Fn(&std::panic::PanicHookInfo<'_>) + Sync + Send + 'static>;

fn restore_terminal() {
    let _ = disable_raw_mode();
    let _ = execute!(
        io::stdout(),
        DisableMouseCapture,
        LeaveAlternateScreen,
        crossterm::cursor::Show
    );
}

impl TerminalGuard {
    fn enter() -> io::Result<TerminalGuard> {
        let previous_hook: Arc<PanicHook> = Arc::new(std::panic::take_hook());
        let chained = previous_hook.clone();
        std::panic::set_hook(Box::new(move |info| {
            restore_terminal();
            RESTORED_BY_PANIC.store(true, Ordering::SeqCst);
            chained(info);
        }));
        enable_raw_mode()?;
        let mut stdout = io::stdout();
        if let Err(e) = execute!(stdout, EnterAlternateScreen, EnableMouseCapture) {
            restore_terminal();
            return Err(e);
        }
        let terminal = match Terminal::new(CrosstermBackend::new(stdout)) {
            Ok(t) => t,
            Err(e) => {
                restore_terminal();
                return Err(e);
            }
        };
        Ok(TerminalGuard {
            terminal,
            previous_hook,
        })
    }
}

impl Drop for TerminalGuard {
    fn drop(&mut self) {
        restore_terminal();
        // Changing the hook while unwinding would abort; the chained hook is harmless then.
        if !std::thread::panicking() {
            let previous = self.previous_hook.clone();
            let _ = std::panic::take_hook();
            std::panic::set_hook(Box::new(move |info| previous(info)));
        }
    }
}
