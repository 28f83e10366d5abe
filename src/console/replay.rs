//! The replay's loop: a finished run's timeline under the console's own screen, moved by the
//! timeline's keys and by play (a frame tick), read-only. The console's navigation keys work as
//! in a live run; nothing acts on a run.

use std::io;
use std::time::{Duration, Instant};

use crossterm::event::Event;
use futures::{Stream, StreamExt};
use ratatui::Terminal;
use ratatui::backend::Backend;
use ratatui::layout::{Constraint, Layout};
use ratatui::widgets::Widget;
use tokio::time::MissedTickBehavior;

use crate::app::console::{ConsoleError, ConsoleMode, Title};
use crate::app::keymap::{as_typed, map_key, map_mouse};
use crate::app::replay::keys::allowed_in_replay;
use crate::app::replay::{ReadOnly, ReplayKey, Timeline, map_replay_key};
use crate::app::ui_state::UiState;
use crate::app::update::{key_context, update};
use crate::views::timeline::{TIMELINE_HEIGHT, TimelineBar};
use crate::views::{Theme, render_screen};

use super::terminal_ops::TerminalOps;

/// Time between frames while the timeline plays.
const FRAME: Duration = Duration::from_millis(33);

/// What a replay shows: its timeline, how the console reads it, and the top bar's names.
pub(crate) struct Replay {
    pub timeline: Timeline,
    pub mode: ConsoleMode,
    pub title: Title,
    pub theme: Theme,
}

fn move_timeline(timeline: &mut Timeline, key: ReplayKey) -> Option<&'static str> {
    match key {
        ReplayKey::PlayPause => timeline.toggle_play(),
        ReplayKey::StepForward => timeline.step_forward(),
        ReplayKey::StepBack => timeline.step_back(),
        ReplayKey::NextDecision => {
            if !timeline.next_decision() {
                return Some("no decision, pause or cancel after this point");
            }
        }
        ReplayKey::PrevDecision => {
            if !timeline.prev_decision() {
                return Some("no decision, pause or cancel before this point");
            }
        }
        ReplayKey::FirstError => {
            if !timeline.first_error() {
                return Some("the run had no failure");
            }
        }
        ReplayKey::Faster => timeline.speed = timeline.speed.faster(),
        ReplayKey::Slower => timeline.speed = timeline.speed.slower(),
        ReplayKey::Start => timeline.seek(0),
        ReplayKey::End => timeline.seek(timeline.len()),
    }
    if !matches!(
        key,
        ReplayKey::PlayPause | ReplayKey::Faster | ReplayKey::Slower
    ) {
        timeline.playing = false;
    }
    None
}

/// The loop proper, over any backend and input stream.
pub(crate) async fn replay_loop<B, I>(
    terminal: &mut Terminal<B>,
    input: &mut I,
    replay: Replay,
    ops: TerminalOps<B>,
) -> Result<(), ConsoleError>
where
    B: Backend,
    ConsoleError: From<B::Error>,
    I: Stream<Item = io::Result<Event>> + Unpin,
{
    let Replay {
        mut timeline,
        mode,
        title,
        theme,
    } = replay;
    let size = terminal.size()?;
    terminal.resize(ratatui::layout::Rect::new(0, 0, size.width, size.height))?;
    let mut ui = UiState::new(mode, title);
    ui.watch_only = true;
    ui.replay = true;
    let mut mouse = ui.mouse_capture;
    let mut tick = tokio::time::interval(FRAME);
    tick.set_missed_tick_behavior(MissedTickBehavior::Skip);
    let mut last_tick = Instant::now();
    let mut redraw = true;
    loop {
        ops.follow_ui(terminal, &mut ui, &mut mouse)?;
        if redraw {
            terminal.draw(|f| {
                let [screen, bar] =
                    Layout::vertical([Constraint::Min(1), Constraint::Length(TIMELINE_HEIGHT)])
                        .areas(f.area());
                render_screen(screen, f.buffer_mut(), timeline.model(), &mut ui, theme);
                TimelineBar {
                    timeline: &timeline,
                    theme,
                }
                .render(bar, f.buffer_mut());
            })?;
            redraw = false;
        }
        tokio::select! {
            ev = input.next() => {
                let keys: Vec<_> = match ev {
                    Some(Ok(Event::Key(k))) => as_typed(k).collect(),
                    Some(Ok(Event::Mouse(m))) => {
                        if let Some(action) = map_mouse(m) {
                            ui.ensure_selection(timeline.model());
                            update(&mut ui, timeline.model(), &ReadOnly, action);
                        }
                        Vec::new()
                    }
                    Some(Ok(Event::Resize(..))) => {
                        terminal.autoresize()?;
                        Vec::new()
                    }
                    Some(Ok(_)) => Vec::new(),
                    Some(Err(e)) => return Err(e.into()),
                    None => return Err(io::Error::new(io::ErrorKind::UnexpectedEof, "terminal input closed").into()),
                };
                redraw = true;
                for key in keys {
                    let ctx = key_context(&ui);
                    let typing = ctx.filter_input || ctx.confirming;
                    if let Some(r) = map_replay_key(key).filter(|_| !typing) {
                        ui.overlay.notice = move_timeline(&mut timeline, r).map(str::to_string);
                        last_tick = Instant::now();
                        ui.settle(timeline.model());
                        continue;
                    }
                    let Some(action) = map_key(key, ctx) else {
                        continue;
                    };
                    if !allowed_in_replay(&action) {
                        ui.overlay.notice = Some("a replay is read-only: the run is over".into());
                        continue;
                    }
                    ui.ensure_selection(timeline.model());
                    if update(&mut ui, timeline.model(), &ReadOnly, action).is_some() {
                        if !mouse {
                            (ops.set_mouse)(terminal, true)?;
                        }
                        return Ok(());
                    }
                }
            }
            _ = tick.tick() => {
                if timeline.playing {
                    timeline.advance(last_tick.elapsed());
                    ui.settle(timeline.model());
                    redraw = true;
                }
                last_tick = Instant::now();
                let model = timeline.model();
                redraw |= ui.layout.tree.is_stale(model) || ui.layout.graph.is_stale(model);
            }
        }
    }
}
