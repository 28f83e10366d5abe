//! The console's event loop: terminal input, the engine's events and a frame tick in one
//! `select!`. Engine events are drained and coalesced between frames (at most ~30 redraws a
//! second from events), so the engine never waits for the screen. The terminal is restored on
//! exit, on error and on panic.

use std::io::{self, Stdout};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crossterm::event::{
    DisableMouseCapture, EnableMouseCapture, Event, EventStream, KeyEvent, MouseEvent,
};
use crossterm::execute;
use crossterm::terminal::{
    EnterAlternateScreen, LeaveAlternateScreen, disable_raw_mode, enable_raw_mode,
};
use futures::{Stream, StreamExt};
use ratatui::Terminal;
use ratatui::backend::{Backend, CrosstermBackend};
use tokio::sync::mpsc::UnboundedReceiver;
use tokio::time::MissedTickBehavior;

use crate::engine::{Severity, Urn};
use crate::views::summary::summary_text;
use crate::views::{Theme, draw};

use crate::app::console::{ConsoleError, ConsoleExit, ConsoleMode, Title};
use crate::app::keymap::{Action, as_typed, map_key, map_mouse};
use crate::app::model::{Model, Timed};
use crate::app::preset::{Expected, Presets};
use crate::app::selection::Resolved;
use crate::app::steering::Steering;
use crate::app::ui_state::UiState;
use crate::app::update::{key_context, update};

/// Time between frames driven by engine events.
const FRAME: Duration = Duration::from_millis(33);
/// Most events applied before input gets a turn again.
const BATCH: usize = 65_536;

/// Set by the panic hook after it restored the terminal. A panic in another task (which tokio
/// catches) must not leave the console drawing on a cooked screen, so the loop takes it back.
static RESTORED_BY_PANIC: AtomicBool = AtomicBool::new(false);

/// The console on the terminal: raw mode and the alternate screen for as long as it lives,
/// restored when dropped and on panic. Several deployments (a preview, then its update) run
/// as sessions of one console, so the screen never flickers back to the shell between them.
pub struct Console {
    guard: TerminalGuard,
    input: EventStream,
    /// Decisions made in a preview session, for the apply session that follows it.
    presets: Presets,
    /// The last finished session's summary, printed once the terminal is back.
    report: Option<String>,
    /// The stack's name a plan's `y` asks to be typed (a whole-stack destroy).
    name_to_apply: Option<String>,
}

impl Console {
    pub fn enter() -> Result<Console, ConsoleError> {
        Ok(Console {
            guard: TerminalGuard::enter()?,
            input: EventStream::new(),
            presets: Presets::default(),
            report: None,
            name_to_apply: None,
        })
    }

    /// How many pending creates the operator marked in the preview to be cleared by the apply
    /// (its options carry `clear_pending_creates`); the apply's session logs it.
    pub fn pending_creates_marked(&self) -> Option<usize> {
        self.presets.pending_creates_marked()
    }

    /// Roots of the cascades the operator declined in the preview: previewed again, they are
    /// declined as the apply will decline them.
    pub fn preview_declines(&self) -> Vec<Urn> {
        self.presets.declined_roots()
    }

    /// The preview's selection as the apply runs it (targets, exclusions, what is skipped);
    /// none when the operator marked nothing.
    pub fn applied_selection(&self) -> Option<&Resolved> {
        self.presets.applied_selection.as_ref()
    }

    /// What the apply about to run expects from its preview, for the watchers of a served run.
    pub fn expected(&self) -> &Expected {
        &self.presets.expected
    }

    /// A served run's preview plan (`Expected::decode`): the watcher's console counts the run
    /// as the operator's does.
    pub fn expect(&mut self, expected: Expected) {
        self.presets.expected = expected;
    }

    /// Plans shown from now on apply only once `stack`'s name is typed: a whole-stack destroy
    /// asks for it as `pulumi stack rm` does.
    pub fn ask_name_to_apply(&mut self, stack: &str) {
        self.name_to_apply = Some(stack.to_string());
    }

    /// The summary of the last session that ended, to print after the console is dropped.
    pub fn take_report(&mut self) -> Option<String> {
        self.report.take()
    }

    /// Shows a finished run's recorded events on a timeline, read-only, until the operator
    /// leaves.
    pub async fn replay(
        &mut self,
        timeline: crate::app::replay::Timeline,
        mode: ConsoleMode,
        title: Title,
    ) -> Result<(), ConsoleError> {
        let replay = super::replay::Replay {
            timeline,
            mode,
            title,
            theme: Theme::from_env(),
        };
        let ops = TerminalOps {
            reclaim,
            set_mouse,
            copy,
        };
        super::replay::replay_loop(&mut self.guard.terminal, &mut self.input, replay, ops).await
    }

    /// Shows one deployment until the operator leaves it (or, with `leave_when_done`, shortly
    /// after the deployment ends). Reads engine events from `events` and acts through
    /// `control`; `mode` says whether it shows a preview (and may ask to apply it).
    pub async fn session<E: Timed + Send>(
        &mut self,
        mut events: UnboundedReceiver<E>,
        control: impl Steering,
        mode: ConsoleMode,
        title: Title,
        leave_when_done: bool,
    ) -> Result<ConsoleExit, ConsoleError> {
        let session = Session {
            events: &mut events,
            control: &control,
            mode,
            title,
            theme: Theme::from_env(),
            leave_when_done,
            presets: &mut self.presets,
            report: &mut self.report,
            name_to_apply: self.name_to_apply.clone(),
        };
        let ops = TerminalOps {
            reclaim,
            set_mouse,
            copy,
        };
        event_loop(&mut self.guard.terminal, &mut self.input, session, ops).await
    }
}

pub(crate) use super::terminal_ops::TerminalOps;

fn set_mouse(_: &mut Terminal<CrosstermBackend<Stdout>>, on: bool) -> Result<(), ConsoleError> {
    if on {
        execute!(io::stdout(), EnableMouseCapture)?;
    } else {
        execute!(io::stdout(), DisableMouseCapture)?;
    }
    Ok(())
}

fn copy(_: &mut Terminal<CrosstermBackend<Stdout>>, text: &str) -> Result<(), ConsoleError> {
    use std::io::Write;
    let mut out = io::stdout();
    write!(out, "{}", osc52(text))?;
    out.flush()?;
    Ok(())
}

/// The OSC 52 sequence that asks the terminal to put `text` on the clipboard.
pub fn osc52(text: &str) -> String {
    use base64::Engine;
    format!(
        "\x1b]52;c;{}\x07",
        base64::engine::general_purpose::STANDARD.encode(text)
    )
}

/// What one console session works with, apart from the terminal and its input.
pub(crate) struct Session<'a, E> {
    pub events: &'a mut UnboundedReceiver<E>,
    pub control: &'a dyn Steering,
    pub mode: ConsoleMode,
    pub title: Title,
    pub theme: Theme,
    /// Return [`ConsoleExit::Finished`] shortly after the engine's stream ends.
    pub leave_when_done: bool,
    /// Preview decisions: filled by a deciding preview, used (once each) by the apply.
    pub presets: &'a mut Presets,
    /// Set to the session's summary when it ends (left as it was when the run had none).
    pub report: &'a mut Option<String>,
    /// The stack's name a plan's `y` asks to be typed, if any.
    pub name_to_apply: Option<String>,
}

/// How long a finished session stays on screen before it leaves by itself.
const LINGER: Duration = Duration::from_millis(1500);

/// Takes the terminal back after the panic hook restored it (a panic in another task).
fn reclaim(terminal: &mut Terminal<CrosstermBackend<Stdout>>) -> Result<(), ConsoleError> {
    enable_raw_mode()?;
    execute!(io::stdout(), EnterAlternateScreen, EnableMouseCapture)?;
    repaint(terminal)?;
    Ok(())
}

/// Clears the screen so that the next frame is drawn in full. `resize` does that without
/// querying the cursor (as `clear` does), which would race the input stream for the answer.
fn repaint<B: Backend>(terminal: &mut Terminal<B>) -> Result<(), B::Error> {
    let size = terminal.size()?;
    terminal.resize(ratatui::layout::Rect::new(0, 0, size.width, size.height))
}
/// The loop proper, over any backend and input stream (tests drive it with a TestBackend).
pub(crate) async fn event_loop<B, I, E>(
    terminal: &mut Terminal<B>,
    input: &mut I,
    session: Session<'_, E>,
    ops: TerminalOps<B>,
) -> Result<ConsoleExit, ConsoleError>
where
    B: Backend,
    ConsoleError: From<B::Error>,
    I: Stream<Item = io::Result<Event>> + Unpin,
    E: Timed,
{
    let Session {
        events,
        control,
        mode,
        title,
        theme,
        leave_when_done,
        presets,
        report,
        name_to_apply,
    } = session;
    // Whatever was written to the terminal since the last frame (a warning printed between two
    // sessions) is wiped: the first frame is drawn in full, not by difference.
    repaint(terminal)?;
    let mut finished_at: Option<Instant> = None;
    // `q`, `y` while the run goes on: the run is cancelled and the console stays until its
    // summary arrives, so that the summary is printed after exit as for any other end.
    let mut quitting: Option<ConsoleExit> = None;
    let mut start = Instant::now();
    let mut model = Model::new();
    let mut ui = UiState::new(mode, title);
    ui.watch_only = !control.may_act();
    ui.name_to_apply = name_to_apply;
    ui.presets = std::mem::take(presets);
    if ui.mode == ConsoleMode::Live
        && let Some(applied) = &ui.presets.applied_selection
    {
        model.run.deselected = applied.skipped.clone();
    }
    if ui.mode == ConsoleMode::Live {
        let expected = std::mem::take(&mut ui.presets.expected);
        model.expect_steps(expected.steps);
        model.expect_steps_of(expected.by_urn);
        model.expect_behind(expected.behind);
    }
    if ui.mode == ConsoleMode::Live
        && let Some(count) = ui.presets.take_pending_creates_mark()
    {
        // The log is the run's record: it names who asked for the clear.
        let who = std::env::var("USER").map_or_else(
            |_| "the operator".to_string(),
            |user| format!("the operator ({user})"),
        );
        model.note(
            Severity::Info,
            &format!("{who} marked {count} pending create(s) to clear in the preview"),
        );
    }
    let mut tick = tokio::time::interval(FRAME);
    tick.set_missed_tick_behavior(MissedTickBehavior::Skip);
    let mut engine_open = true;
    let mut redraw = true;
    let mut events_since_draw = false;
    let mut last_draw = Instant::now();
    let mut mouse = ui.mouse_capture;
    let mut batch: Vec<E> = Vec::with_capacity(1024);
    let exit = 'console: loop {
        if RESTORED_BY_PANIC.swap(false, Ordering::SeqCst) {
            (ops.reclaim)(terminal)?;
            redraw = true;
        }
        ops.follow_ui(terminal, &mut ui, &mut mouse)?;
        if redraw {
            model.set_now(start.elapsed());
            terminal.draw(|f| draw(f, &model, &mut ui, theme))?;
            redraw = false;
            events_since_draw = false;
            last_draw = Instant::now();
        }
        tokio::select! {
            ev = input.next() => {
                let inputs: Vec<Input> = match ev {
                    Some(Ok(Event::Key(k))) => as_typed(k).map(Input::Key).collect(),
                    Some(Ok(Event::Mouse(m))) => vec![Input::Mouse(m)],
                    Some(Ok(Event::Resize(..))) => {
                        terminal.autoresize()?;
                        redraw = true;
                        Vec::new()
                    }
                    Some(Ok(_)) => Vec::new(),
                    Some(Err(e)) => return Err(e.into()),
                    None => return Err(io::Error::new(io::ErrorKind::UnexpectedEof, "terminal input closed").into()),
                };
                for input in inputs {
                    // Each key is read in the context the one before it left.
                    let action = match input {
                        Input::Key(k) => map_key(k, key_context(&ui)),
                        Input::Mouse(m) => map_mouse(m),
                    };
                    if let Some(action) = action {
                        model.set_now(start.elapsed());
                        ui.ensure_selection(&model);
                        let interrupt = action == Action::Interrupt;
                        if let Some(exit) = update(&mut ui, &model, control, action) {
                            // A terminate (Ctrl-C twice) hands the terminal back at once.
                            let cancelled = exit == ConsoleExit::Quit { cancelled: true }
                                && !interrupt;
                            let running = engine_open && !model.run_state().is_over();
                            if cancelled && quitting.is_none() && running {
                                quitting = Some(exit);
                                // The cancel was the first interrupt: one Ctrl-C terminates.
                                ui.interrupts = ui.interrupts.max(1);
                                ui.overlay.notice = Some(
                                    "cancelling: leaving with the summary once running steps \
                                     finish (Ctrl-C terminates)"
                                        .into(),
                                );
                            } else {
                                break 'console exit;
                            }
                        }
                        redraw = true;
                    }
                }
            }
            n = events.recv_many(&mut batch, BATCH), if engine_open => {
                if n == 0 {
                    engine_open = false;
                    ui.engine_gone = true;
                    redraw = true;
                    finished_at = Some(Instant::now());
                }
                model.set_now(start.elapsed());
                let mut applied = 0;
                for e in batch.drain(..) {
                    apply_timed(&mut model, &mut start, e);
                    applied += 1;
                }
                while applied < BATCH {
                    match events.try_recv() {
                        Ok(e) => {
                            apply_timed(&mut model, &mut start, e);
                            applied += 1;
                        }
                        Err(_) => break,
                    }
                }
                let live = ui.mode == ConsoleMode::Live;
                model.log_new_waits(|c| live && ui.presets.decides(c));
                events_since_draw = true;
                apply_presets(&mut ui, &model, control);
                ui.settle(&model);
                // The control handle keeps a sender alive, so the summary (not the channel's
                // end) says the deployment is over.
                if finished_at.is_none() && model.run_state().is_over() {
                    finished_at = Some(Instant::now());
                }
                if let Some(exit) = quitting.filter(|_| finished_at.is_some()) {
                    break 'console exit;
                }
            }
            _ = tick.tick() => {
                if leave_when_done && finished_at.is_some_and(|t| t.elapsed() >= LINGER) {
                    break ConsoleExit::Finished;
                }
                let clock_due = !model.run_state().is_over() && last_draw.elapsed() >= Duration::from_millis(100);
                let layout_due = ui.layout.tree.is_stale(&model) || ui.layout.graph.is_stale(&model);
                redraw |= events_since_draw || clock_due || layout_due;
            }
        }
    };
    let columns = terminal.size().map(|s| usize::from(s.width)).ok();
    if let Some(text) = summary_text(&model, &ui.presets, columns) {
        *report = Some(text);
    }
    *presets = std::mem::take(&mut ui.presets);
    if !mouse {
        (ops.set_mouse)(terminal, true)?;
    }
    Ok(exit)
}

/// Applies `e` at the instant it carries, if any (a served run's event, which may have
/// happened before this console started): the console's clock then starts no later than the
/// run's first event, so that a watcher's times agree with the run's however late it attached.
fn apply_timed(model: &mut Model, start: &mut Instant, e: impl Timed) {
    let (e, when) = e.into_parts();
    let at = when.map(|when| {
        *start = (*start).min(when);
        model.set_now(start.elapsed());
        when.duration_since(*start)
    });
    model.apply_at(&e, at);
}

/// One thing the operator did, in the order done.
enum Input {
    Key(KeyEvent),
    Mouse(MouseEvent),
}

/// In a live run, decides the cascades the operator already decided in the preview (the same
/// root with the same dependents), each once.
fn apply_presets(ui: &mut UiState, model: &Model, control: &dyn Steering) {
    if ui.presets.is_empty() || ui.mode != ConsoleMode::Live {
        return;
    }
    for c in model.approvals.all().iter().filter(|c| c.waiting()) {
        let Some(approve) = ui.presets.take_matching(c) else {
            continue;
        };
        if approve {
            control.approve(c.id);
        } else {
            control.decline(c.id);
        }
        ui.overlay.notice = Some(format!(
            "the replacement of {} {} as decided in the preview",
            c.root.name(),
            if approve { "approved" } else { "declined" }
        ));
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
    // The alternate screen is cleared before it is left: after a resize some terminals (tmux)
    // carry its last frame over to the shell's screen otherwise.
    let _ = execute!(
        io::stdout(),
        DisableMouseCapture,
        crossterm::terminal::Clear(crossterm::terminal::ClearType::All),
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
        let terminal = match Terminal::new(CrosstermBackend::new(stdout)).and_then(|mut t| {
            // Anything written before (a warning on stderr) must not survive into the screen.
            t.clear()?;
            Ok(t)
        }) {
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

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
    use futures::channel::mpsc as input_channel;
    use ratatui::backend::TestBackend;

    use super::*;
    use crate::app::sample::sample_timeline;
    use crate::engine::run::control::ControlReceiver;
    use crate::engine::{CancelLevel, Control, EngineEvent, EventSink, Operation, Outcome};

    type Keys = input_channel::UnboundedSender<io::Result<Event>>;

    fn no_reclaim(_: &mut Terminal<TestBackend>) -> Result<(), ConsoleError> {
        Ok(())
    }

    fn no_mouse(_: &mut Terminal<TestBackend>, _: bool) -> Result<(), ConsoleError> {
        Ok(())
    }

    fn no_copy(_: &mut Terminal<TestBackend>, _: &str) -> Result<(), ConsoleError> {
        Ok(())
    }

    fn press(keys: &Keys, c: char) {
        let k = KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE);
        keys.unbounded_send(Ok(Event::Key(k))).unwrap();
    }

    fn summary(outcome: Outcome, preview: bool) -> EngineEvent {
        EngineEvent::Summary {
            counts: BTreeMap::new(),
            declined: 0,
            duration: Duration::from_secs(4),
            outcome,
            preview,
            policy_packs: Default::default(),
        }
    }

    /// How a test loop ended, the terminal it drew on, and what it asked of the engine.
    type LoopEnd = (
        Result<ConsoleExit, ConsoleError>,
        Terminal<TestBackend>,
        ControlReceiver,
    );

    /// Runs the loop on a TestBackend; `script` gets the engine sink and the key sender.
    async fn run_loop(
        mode: ConsoleMode,
        script: impl FnOnce(EventSink, Keys) + Send + 'static,
    ) -> LoopEnd {
        let terminal = Terminal::new(TestBackend::new(100, 30)).unwrap();
        run_loop_on(terminal, mode, script).await
    }

    /// [`run_loop`] on a given terminal.
    async fn run_loop_on(
        mut terminal: Terminal<TestBackend>,
        mode: ConsoleMode,
        script: impl FnOnce(EventSink, Keys) + Send + 'static,
    ) -> LoopEnd {
        let (sink, mut events) = EventSink::channel();
        let (control, rx) = Control::new(sink.clone());
        let (keys, mut input) = input_channel::unbounded();
        tokio::task::spawn_blocking(move || script(sink, keys));
        let mut presets = Presets::default();
        let mut report = None;
        let session = Session {
            events: &mut events,
            control: &control,
            mode,
            title: Title {
                operation: "up".into(),
                stack: "dev".into(),
                project: "myproj".into(),
                phase: None,
            },
            theme: Theme::colored(),
            leave_when_done: false,
            presets: &mut presets,
            report: &mut report,
            name_to_apply: None,
        };
        let ops = TerminalOps {
            reclaim: no_reclaim,
            set_mouse: no_mouse,
            copy: no_copy,
        };
        let exit = tokio::time::timeout(
            Duration::from_secs(10),
            event_loop(&mut terminal, &mut input, session, ops),
        )
        .await
        .expect("the console loop ends");
        (exit, terminal, rx)
    }

    fn screen(t: &Terminal<TestBackend>) -> String {
        format!("{}", t.backend())
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn q_after_the_summary_quits_and_the_last_frame_shows_every_event() {
        let (exit, terminal, _rx) = run_loop(ConsoleMode::Live, |sink, keys| {
            for (_, e) in sample_timeline() {
                sink.send(e);
            }
            sink.send(summary(
                Outcome::Failed(crate::engine::RunFailure::new(
                    crate::engine::FailureCause::Step,
                    "1 step failed",
                )),
                false,
            ));
            std::thread::sleep(Duration::from_millis(200));
            press(&keys, 'q');
        })
        .await;
        assert_eq!(exit.unwrap(), ConsoleExit::Quit { cancelled: false });
        let s = screen(&terminal);
        assert!(s.contains("FAILED"), "{s}");
        // On a narrow terminal the summary comes forward: the failure in full.
        assert!(s.contains("Failures:"), "{s}");
        assert!(s.contains("quota exceeded for instance type large"), "{s}");
        assert!(
            s.contains("workers 0/8"),
            "nothing runs after the end:\n{s}"
        );
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_session_repaints_over_what_was_printed_before_it() {
        // Between two sessions (a preview, then its apply) something may write to the
        // terminal (a warning on stderr): the next session must not draw over it by difference.
        let mut terminal = Terminal::new(TestBackend::new(100, 30)).unwrap();
        let stray = ratatui::buffer::Cell::new("#");
        let cells: Vec<(u16, u16, &ratatui::buffer::Cell)> = (0..100)
            .flat_map(|x| (0..30).map(move |y| (x, y)))
            .map(|(x, y)| (x, y, &stray))
            .collect();
        terminal.backend_mut().draw(cells.into_iter()).unwrap();
        let (exit, terminal, _rx) = run_loop_on(terminal, ConsoleMode::Live, |sink, keys| {
            for (_, e) in sample_timeline().into_iter().take(10) {
                sink.send(e);
            }
            std::thread::sleep(Duration::from_millis(200));
            press(&keys, 'q');
            press(&keys, 'y');
            // The cancelled run ends with its summary, which the console waits for.
            std::thread::sleep(Duration::from_millis(100));
            sink.send(summary(Outcome::Cancelled, false));
            // Input stays open until the console has left, as a terminal's does.
            std::thread::sleep(Duration::from_millis(500));
        })
        .await;
        assert!(exit.is_ok());
        let s = screen(&terminal);
        assert!(!s.contains('#'), "{s}");
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn p_pauses_through_control_and_the_screen_says_paused() {
        let (exit, terminal, rx) = run_loop(ConsoleMode::Live, |sink, keys| {
            for (_, e) in sample_timeline().into_iter().take(10) {
                sink.send(e);
            }
            std::thread::sleep(Duration::from_millis(100));
            press(&keys, 'p');
            std::thread::sleep(Duration::from_millis(200));
            press(&keys, 'q');
            std::thread::sleep(Duration::from_millis(100));
            press(&keys, 'y');
            std::thread::sleep(Duration::from_millis(100));
            sink.send(summary(Outcome::Cancelled, false));
            // Input stays open until the console has left, as a terminal's does.
            std::thread::sleep(Duration::from_millis(500));
        })
        .await;
        assert_eq!(exit.unwrap(), ConsoleExit::Quit { cancelled: true });
        assert_eq!(*rx.cancel.borrow(), CancelLevel::Cancelling);
        let s = screen(&terminal);
        assert!(s.contains("cancelling: leaving with the summary"), "{s}");
    }

    #[test]
    fn osc52_carries_the_text_base64_encoded() {
        assert_eq!(osc52("urn:a"), "\x1b]52;c;dXJuOmE=\x07");
    }

    #[test]
    fn preview_decisions_are_sent_once_for_the_same_cascade_only() {
        let mut preview = Model::new();
        let mut live = Model::new();
        for (_, e) in sample_timeline() {
            if let EngineEvent::Prelude { .. } = e {
                live.apply(&e);
                preview.run.preview = true;
                continue;
            }
            preview.apply(&e);
            live.apply(&e);
        }
        let (sink, _events) = EventSink::channel();
        let (control, mut rx) = Control::new(sink);
        let title = Title {
            operation: "up".into(),
            stack: "dev".into(),
            project: "myproj".into(),
            phase: None,
        };
        let mut ui = UiState::new(ConsoleMode::Live, title);
        ui.presets.decide(&preview.approvals.all()[0], true);
        apply_presets(&mut ui, &live, &control);
        apply_presets(&mut ui, &live, &control);
        assert_eq!(
            rx.decisions.try_recv().ok().map(|d| (d.scope, d.approve)),
            Some((crate::engine::run::control::DecisionScope::One(1), true))
        );
        assert!(rx.decisions.try_recv().is_err(), "sent once");

        let mut other = preview.approvals.all()[0].clone();
        other.members.pop();
        ui.presets.decide(&other, true);
        apply_presets(&mut ui, &live, &control);
        assert!(
            rx.decisions.try_recv().is_err(),
            "a cascade unlike the one explored asks again"
        );
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_finished_preview_applies_with_y() {
        let mode = ConsoleMode::Preview {
            awaiting_decision: true,
        };
        let (exit, terminal, _rx) = run_loop(mode, |sink, keys| {
            sink.send(EngineEvent::Prelude {
                operation: Operation::Update,
                preview: true,
                stack: "dev".into(),
                project: "myproj".into(),
                parallel: 4,
                parallel_diff: false,
            });
            sink.send(summary(Outcome::Succeeded, true));
            std::thread::sleep(Duration::from_millis(200));
            press(&keys, 'y');
        })
        .await;
        assert_eq!(exit.unwrap(), ConsoleExit::Apply);
        assert!(screen(&terminal).contains("PREVIEW — y apply · n abort"));
    }
}
