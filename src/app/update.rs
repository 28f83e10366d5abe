//! Applies an operator's action: moves the selection, opens overlays, and acts on the deployment
//! only through [`Steering`] (its `Control`, here or remote). Returns how the console should
//! end, when it should.

use crate::engine::Severity;
use crate::engine::model::provider_ref::provider_type_package;
use crate::engine::run::approval::ApprovalKind;
use crate::engine::run::events::CascadeId;

use super::console::{ConsoleExit, ConsoleMode};
use super::filter::Filter;
use super::jump::Jump;
use super::keymap::{Action, KeyContext};
use super::model::{Cascade, Model, RunState, label};
use super::preset::Expected;
use super::steering::Steering;
use super::ui_state::{CANCELLING_NOTICE, Confirm, Move, UiState, ViewId};

/// How a key is read right now.
pub fn key_context(ui: &UiState) -> KeyContext {
    let preview_decision = matches!(
        ui.mode,
        ConsoleMode::Preview {
            awaiting_decision: true
        }
    );
    let in_log = ui.nav.focus == ViewId::Log && !ui.overlay.details && !ui.overlay.help;
    KeyContext {
        filter_input: ui.nav.filter_input.is_some(),
        jump_input: ui.jump.is_some(),
        search_input: ui.log_search.input.is_some(),
        in_log,
        searching: ui.log_search.active(),
        confirming: ui.overlay.confirm.is_some(),
        typing_name: ui.overlay.typed_name.is_some(),
        preview_decision,
        marking: preview_decision && ui.nav.focus != ViewId::Pending,
    }
}

fn awaiting_decision(ui: &UiState) -> bool {
    key_context(ui).preview_decision
}

/// `y` on a finished plan: the apply runs the selection resolved now (or the whole plan,
/// counted against the preview's steps).
fn apply_preview(ui: &mut UiState, model: &Model) -> ConsoleExit {
    ui.presets.applied_selection = ui.presets.selection.resolve(model);
    ui.presets.expected = if ui.presets.applied_selection.is_none() {
        Expected::from_preview(model)
    } else {
        Expected::default()
    };
    ConsoleExit::Apply
}

/// When the plan's declines differ from `declined` (those before the key), the plan is
/// previewed again: what follows a declined cascade diffs against the outputs it keeps, which
/// only the engine knows.
fn preview_again(
    ui: &UiState,
    state: RunState,
    control: &dyn Steering,
    declined: Vec<crate::engine::Urn>,
) -> Option<ConsoleExit> {
    if ui.presets.declined_roots() == declined {
        return None;
    }
    if !state.is_over() {
        control.cancel();
    }
    Some(ConsoleExit::Repreview)
}

/// Whether `a`/`x`/`A` may act on `c` now: a cascade the preview planned (decided for the
/// apply), or one the live run holds for the operator.
fn open_cascade(ui: &UiState, c: &Cascade) -> bool {
    if ui.deciding_preview() {
        c.to_decide()
    } else {
        c.waiting()
    }
}

const READ_ONLY: &str = "a read-only preview: nothing to approve here (`stepdeck up` asks)";

/// Applies `action`; `Some(exit)` means the console should close.
pub fn update(
    ui: &mut UiState,
    model: &Model,
    control: &dyn Steering,
    action: Action,
) -> Option<ConsoleExit> {
    let state = model.run_state();
    if !matches!(
        action,
        Action::FilterChar(_)
            | Action::FilterBackspace
            | Action::JumpChar(_)
            | Action::JumpBackspace
            | Action::JumpNext
            | Action::JumpPrev
            | Action::SearchChar(_)
            | Action::SearchBackspace
    ) {
        ui.overlay.notice = None;
    }
    match action {
        Action::Interrupt => return interrupt(ui, control, state),
        Action::Confirm => {
            let asked = ui.overlay.confirm.take();
            match asked {
                Some(Confirm::Cancel) => control.cancel(),
                Some(Confirm::Quit) => {
                    control.cancel();
                    return Some(ConsoleExit::Quit { cancelled: true });
                }
                Some(Confirm::ApproveAll) if ui.deciding_preview() => {
                    let declined = ui.presets.declined_roots();
                    let planned: Vec<&Cascade> = model
                        .approvals
                        .all()
                        .iter()
                        .filter(|c| c.to_decide())
                        .collect();
                    for c in &planned {
                        ui.presets.decide(c, true);
                    }
                    ui.overlay.notice = Some(format!(
                        "{} gate(s) will be approved when you apply (y)",
                        planned.len()
                    ));
                    return preview_again(ui, state, control, declined);
                }
                Some(Confirm::ApproveAll) => control.approve_all(),
                Some(Confirm::ApproveKind(kind)) => control.approve_kind(kind),
                None => {}
            }
        }
        Action::Deny => ui.overlay.confirm = None,
        Action::Quit => {
            if awaiting_decision(ui) {
                return Some(ConsoleExit::Abort);
            }
            if ui.read_only_preview() {
                // A preview changes nothing: leaving it needs no question.
                if !state.is_over() {
                    control.cancel();
                }
                return Some(ConsoleExit::Quit { cancelled: false });
            }
            if state.is_over() || ui.engine_gone || !control.owns_deployment() {
                return Some(ConsoleExit::Quit { cancelled: false });
            }
            ui.overlay.confirm = Some(Confirm::Quit);
        }
        Action::Cancel => {
            if state.is_over() {
                ui.overlay.notice = Some("the deployment is over; q quits".into());
            } else {
                ui.overlay.confirm = Some(Confirm::Cancel);
            }
        }
        Action::PreviewApply => match state {
            // A whole-stack destroy applies once the stack's name is typed, also when what was
            // picked takes in every resource; one that leaves some alone applies on y.
            RunState::Done
                if ui.name_to_apply.is_some()
                    && ui
                        .presets
                        .selection
                        .resolve(model)
                        .is_none_or(|r| r.skipped.is_empty()) =>
            {
                ui.overlay.typed_name = Some(String::new());
            }
            RunState::Done => return Some(apply_preview(ui, model)),
            RunState::Failed | RunState::Cancelled => {
                ui.overlay.notice = Some(match model.policies.first_mandatory() {
                    Some(v) => format!(
                        "a mandatory policy refuses it: {} ({}@v{}) on {}; n aborts",
                        v.policy_name,
                        v.pack_name,
                        v.pack_version,
                        v.urn.name()
                    ),
                    None => "the preview did not succeed; n aborts".into(),
                });
            }
            _ => ui.overlay.notice = Some("the preview is still running".into()),
        },
        Action::PreviewAbort => {
            if !state.is_over() {
                control.cancel();
            }
            return Some(ConsoleExit::Abort);
        }
        Action::TogglePause => {
            if state.is_over() {
                ui.overlay.notice = Some("the deployment is over".into());
            } else if control.is_paused() {
                control.resume();
            } else {
                control.pause();
            }
        }
        Action::Approve | Action::Decline if ui.read_only_preview() => {
            ui.overlay.notice = Some(READ_ONLY.into());
        }
        Action::Approve | Action::Decline => {
            let approve = action == Action::Approve;
            match target_cascade(ui, model).and_then(|id| model.approvals.get(id)) {
                Some(c) if ui.deciding_preview() => {
                    let declined = ui.presets.declined_roots();
                    ui.presets.decide(c, approve);
                    ui.overlay.notice = Some(format!(
                        "the {} of {} will be {} when you apply (y)",
                        c.step.map_or("replacement", |(op, ..)| op.as_str()),
                        c.root.name(),
                        if approve { "approved" } else { "declined" }
                    ));
                    return preview_again(ui, state, control, declined);
                }
                Some(c) if approve => control.approve(c.id),
                Some(c) => control.decline(c.id),
                None => ui.overlay.notice = Some("no replacement waits for approval".into()),
            }
        }
        Action::ApproveAll => {
            let open = model
                .approvals
                .all()
                .iter()
                .filter(|c| open_cascade(ui, c))
                .count();
            if ui.read_only_preview() {
                ui.overlay.notice = Some(READ_ONLY.into());
            } else if open == 0 {
                ui.overlay.notice = Some("no replacement waits for approval".into());
            } else {
                ui.overlay.confirm = Some(Confirm::ApproveAll);
            }
        }
        Action::ApproveKind => {
            // The gate under the cursor names the kind; else the first that waits (the cursor
            // may rest on one already decided while others wait).
            let kind = target_cascade(ui, model)
                .or_else(|| first_open(ui, model))
                .and_then(|id| model.approvals.get(id))
                .map(|c| c.step.map_or(ApprovalKind::Replacements, |(_, k, _)| k));
            match kind {
                _ if ui.mode != ConsoleMode::Live => ui.overlay.notice = Some(READ_ONLY.into()),
                Some(kind) => ui.overlay.confirm = Some(Confirm::ApproveKind(kind)),
                None => ui.overlay.notice = Some("nothing waits for approval".into()),
            }
        }
        Action::ClearPendingCreates => mark_pending_creates(ui, model),
        Action::ToggleSelect | Action::ToggleExclude => mark_selection(ui, model, action),
        Action::ToggleHelp => {
            ui.overlay.help = !ui.overlay.help;
            ui.scroll.help.go(Move::Home);
        }
        Action::TogglePolicies => ui.overlay.policies = !ui.overlay.policies,
        Action::Close if ui.jump.is_some() => ui.jump = None,
        Action::Close if ui.log_search.input.is_some() => {
            ui.log_search = Default::default();
        }
        Action::Close if ui.nav.filter_input.is_some() => {
            ui.nav.filter_input = None;
            set_filter(ui, model, Filter::default());
        }
        Action::Close if ui.overlay.typed_name.is_some() => ui.overlay.typed_name = None,
        Action::Close => close(ui, model),
        Action::NameChar(c) => ui
            .overlay
            .typed_name
            .get_or_insert_with(String::new)
            .push(c),
        Action::NameBackspace => {
            ui.overlay.typed_name.get_or_insert_with(String::new).pop();
        }
        Action::NameCommit => {
            let typed = ui.overlay.typed_name.take().unwrap_or_default();
            match &ui.name_to_apply {
                Some(name) if *name == typed => return Some(apply_preview(ui, model)),
                Some(name) => {
                    ui.overlay.notice = Some(format!(
                        "{typed:?} is not the stack's name ({name}): nothing was destroyed; y to try again"
                    ));
                }
                None => {}
            }
        }
        Action::OpenDetails => {
            // In the Pending pane, Enter opens the gate under its cursor, not the tree's row.
            if ui.nav.focus == ViewId::Pending
                && let Some(c) = model.approvals.all().get(ui.scroll.pending.cursor())
            {
                ui.nav.selected = Some(c.root.clone());
            }
            ui.ensure_selection(model);
            ui.overlay.details = ui.nav.selected.is_some();
            ui.scroll.details.go(Move::Home);
        }
        Action::StartFilter => ui.nav.filter_input = Some(ui.nav.filter.text().to_string()),
        Action::FilterChar(c) => {
            let text = ui.nav.filter_input.get_or_insert_with(String::new);
            text.push(c);
            let text = text.clone();
            live_filter(ui, model, &text);
        }
        Action::FilterBackspace => {
            let text = ui.nav.filter_input.get_or_insert_with(String::new);
            text.pop();
            let text = text.clone();
            live_filter(ui, model, &text);
        }
        Action::FilterCommit => {
            let text = ui.nav.filter_input.take().unwrap_or_default();
            match Filter::parse(&text) {
                Ok(f) => set_filter(ui, model, f),
                Err(e) => ui.overlay.notice = Some(e.to_string()),
            }
        }
        Action::NextView => ui.nav.focus = ui.nav.focus.next(),
        Action::PrevView => ui.nav.focus = ui.nav.focus.prev(),
        Action::ShowView(v) => ui.nav.focus = v,
        Action::ToggleGraphFocus => {
            ui.ensure_selection(model);
            ui.nav.graph_focus = !ui.nav.graph_focus;
            graph_to_start(ui);
        }
        Action::Step if control.is_paused() && ui.mode == ConsoleMode::Live => {
            control.step_once();
        }
        Action::Step if ui.nav.focus != ViewId::Log => {
            ui.overlay.notice = Some("s lets one step start while paused (p pauses)".into());
        }
        Action::Step => {
            ui.nav.log_min_severity = match ui.nav.log_min_severity {
                Severity::Debug => Severity::Info,
                Severity::Info => Severity::Warning,
                Severity::Warning => Severity::Error,
                Severity::Error => Severity::Debug,
            };
            ui.scroll.log.go(Move::End);
        }
        Action::NextError => next_error(ui, model, true),
        Action::PrevError => next_error(ui, model, false),
        Action::CopyUrn => {
            ui.ensure_selection(model);
            match &ui.nav.selected {
                Some(urn) => {
                    ui.clipboard = Some(urn.as_str().to_string());
                    ui.overlay.notice = Some(format!("copied {urn} (OSC 52)", urn = urn.as_str()));
                }
                None => ui.overlay.notice = Some("nothing selected to copy".into()),
            }
        }
        Action::ToggleMouse => {
            ui.mouse_capture = !ui.mouse_capture;
            ui.overlay.notice = Some(if ui.mouse_capture {
                "mouse captured: the wheel scrolls, a click selects (m lets go)".into()
            } else {
                "mouse released: the terminal selects text (m takes it back)".into()
            });
        }
        Action::ToggleZoom => {
            ui.nav.zoomed = !ui.nav.zoomed;
            graph_to_start(ui);
        }
        Action::ToggleGraphNarrow => {
            ui.nav.graph_zoomed_out = !ui.nav.graph_zoomed_out;
            graph_to_start(ui);
        }
        Action::StartJump => ui.jump = Some(Jump::default()),
        Action::JumpChar(c) => edit_jump(ui, |t| t.push(c)),
        Action::JumpBackspace => edit_jump(ui, |t| {
            t.pop();
        }),
        Action::JumpNext | Action::JumpPrev => {
            if let Some(jump) = &mut ui.jump {
                let count = jump.matches(model).len();
                jump.cycle(if action == Action::JumpNext { 1 } else { -1 }, count);
            }
        }
        Action::JumpCommit => {
            if let Some(jump) = ui.jump.take() {
                match jump.chosen(model) {
                    Some(i) => jump_to(ui, model, i),
                    None => {
                        ui.overlay.notice =
                            Some(format!("no resource's name or URN holds {:?}", jump.text));
                    }
                }
            }
        }
        Action::StartSearch => {
            ui.log_search.input = Some(ui.log_search.query.clone());
        }
        Action::SearchChar(c) => edit_search(ui, model, |t| t.push(c)),
        Action::SearchBackspace => edit_search(ui, model, |t| {
            t.pop();
        }),
        Action::SearchCommit => {
            ui.log_search.input = None;
            let search = &ui.log_search;
            if search.active() && search.matches(model, ui.nav.log_min_severity).is_empty() {
                ui.overlay.notice = Some(format!(
                    "no log entry at this severity holds {:?}",
                    search.query
                ));
            }
        }
        Action::SearchNext | Action::SearchPrev => {
            let count = ui.log_search.matches(model, ui.nav.log_min_severity).len();
            ui.log_search.step(action == Action::SearchNext, count);
            show_match(ui, model);
        }
        Action::ToggleFollow => {
            let follow = !ui.scroll.log.following();
            ui.scroll.log.set_following(follow);
        }
        Action::CopyError => {
            ui.ensure_selection(model);
            let selected = ui.nav.selected_index(model).map(|i| model.resource(i));
            ui.overlay.notice = Some(match selected {
                Some(r) => match &r.error {
                    Some(error) => {
                        ui.clipboard = Some(error.to_string());
                        format!("copied the error of {} (OSC 52)", r.name())
                    }
                    None => format!("{} has no error to copy; e goes to a failure", r.name()),
                },
                None => "nothing selected to copy".into(),
            });
        }
        Action::CycleSort => {
            ui.nav.sort = ui.nav.sort.next();
            ui.scroll.resources.go(Move::Home);
            ui.overlay.notice = Some(format!("resources sorted by {}", ui.nav.sort.label()));
        }
        Action::Up => step(ui, model, Move::Rows(-1)),
        Action::Down => step(ui, model, Move::Rows(1)),
        Action::ScrollUp => step(ui, model, Move::Rows(-3)),
        Action::ScrollDown => step(ui, model, Move::Rows(3)),
        Action::PageUp => step(ui, model, Move::Pages(-1)),
        Action::PageDown => step(ui, model, Move::Pages(1)),
        Action::Home => step(ui, model, Move::Home),
        Action::End => step(ui, model, Move::End),
        Action::Left => sideways(ui, model, -1),
        Action::Click { column, row } => click(ui, model, column, row),
        Action::Right => sideways(ui, model, 1),
    }
    None
}

/// `C`: in a preview that asks to apply, marks the stack's pending creates to be cleared by
/// the apply (as `--clear-pending-creates` would), or takes the mark back.
fn mark_pending_creates(ui: &mut UiState, model: &Model) {
    let count = model.run.pending_creates().len();
    ui.overlay.notice = Some(if !ui.deciding_preview() {
        "pending creates are marked in the preview of up or refresh, before the run".into()
    } else if count == 0 {
        "the stack has no pending creates".into()
    } else if ui.presets.pending_creates_marked().is_some() {
        ui.presets.mark_pending_creates(None);
        format!("the {count} pending create(s) stay; C marks them again")
    } else {
        ui.presets.mark_pending_creates(Some(count));
        format!("{count} pending create(s) will be cleared when you apply (y); C takes it back")
    });
}

/// `space` / `x`: in a preview that asks to apply, marks the selected resource to be applied
/// alone (with what it needs) or to be left out with its subtree; again takes the mark back.
fn mark_selection(ui: &mut UiState, model: &Model, action: Action) {
    if !ui.deciding_preview() {
        ui.overlay.notice =
            Some("resources are selected in the preview of up, before the run".into());
        return;
    }
    let Some(urn) = ui
        .nav
        .selected_index(model)
        .map(|i| model.resource(i).urn.clone())
    else {
        ui.overlay.notice = Some("no resource is selected".into());
        return;
    };
    let name = label(&urn).into_owned();
    // Left out, a provider would take every resource it manages with it, and the plan would
    // keep counting them: the operator excludes those resources instead.
    if action == Action::ToggleExclude && provider_type_package(urn.type_()).is_some() {
        ui.overlay.notice = Some(format!(
            "{name} is a provider: it is not left out on its own; exclude (x) the resources it manages instead"
        ));
        return;
    }
    let selection = &mut ui.presets.selection;
    let marked = if action == Action::ToggleSelect {
        selection.toggle_selected(&urn)
    } else {
        selection.toggle_excluded(&urn)
    };
    let implied = selection.note_implied(model);
    let destroy = model.run.operation == Some(crate::engine::Operation::Destroy);
    let with = match implied.len() {
        0 => String::new(),
        n => {
            let names: Vec<&str> = implied.iter().take(5).map(|u| u.name()).collect();
            let more = if n > 5 { ", …" } else { "" };
            let what = if destroy {
                "what must go with it"
            } else {
                "what it needs"
            };
            format!(" with {what} ({n}: {}{more}, marked [+])", names.join(", "))
        }
    };
    ui.overlay.notice = Some(match (action == Action::ToggleSelect, marked) {
        (true, true) if destroy => format!("{name} selected: y destroys only the selection{with}"),
        (true, true) => format!("{name} selected: y applies only the selection{with}"),
        (false, true) => format!("{name} excluded with its children and dependents"),
        (_, false) => format!("{name} unmarked"),
    });
}

fn interrupt(ui: &mut UiState, control: &dyn Steering, state: RunState) -> Option<ConsoleExit> {
    if awaiting_decision(ui) {
        if !state.is_over() {
            control.cancel();
        }
        return Some(ConsoleExit::Abort);
    }
    if state.is_over() || !control.owns_deployment() {
        return Some(ConsoleExit::Quit { cancelled: false });
    }
    ui.overlay.confirm = None;
    ui.interrupts = ui.interrupts.saturating_add(1);
    if ui.interrupts == 1 {
        control.cancel();
        ui.overlay.notice = Some(CANCELLING_NOTICE.into());
        None
    } else {
        // Pressed twice: the operator wants out now; the engine stops without waiting for
        // running steps (they stay pending operations) and the terminal is handed back.
        control.terminate();
        Some(ConsoleExit::Quit { cancelled: true })
    }
}

/// Selects the next (or previous) failed resource in tree order, wrapping around, and opens its
/// details, where the whole error is shown.
fn next_error(ui: &mut UiState, model: &Model, forward: bool) {
    ui.refresh_tree(model);
    let failed: Vec<usize> = ui
        .layout
        .tree
        .reach(model, usize::MAX)
        .iter()
        .enumerate()
        .filter(|(_, r)| model.resource(r.idx).error.is_some())
        .map(|(k, _)| k)
        .collect();
    if failed.is_empty() {
        ui.overlay.notice = Some(if model.counts.failed() > 0 {
            "no failed resource under this filter".into()
        } else {
            "no error so far".into()
        });
        return;
    }
    let cur = ui
        .nav
        .selected_index(model)
        .and_then(|i| ui.layout.tree.find(model, i));
    let pick = match (cur, forward) {
        (Some(c), true) => failed.iter().find(|&&k| k > c).or(failed.first()),
        (Some(c), false) => failed.iter().rev().find(|&&k| k < c).or(failed.last()),
        (None, true) => failed.first(),
        (None, false) => failed.last(),
    };
    if let Some(&row) = pick {
        ui.nav.selected = Some(model.resource(ui.layout.tree.rows()[row].idx).urn.clone());
        ui.nav.focus = ViewId::Resources;
        ui.overlay.details = true;
        ui.scroll.details.go(Move::Home);
    }
}

fn edit_jump(ui: &mut UiState, change: impl FnOnce(&mut String)) {
    if let Some(jump) = &mut ui.jump {
        jump.edit(change);
    }
}

/// Selects resource `i` where the operator can see it: its ancestors expanded, the filter
/// cleared if it hid it, in the tree unless the graph has the focus.
fn jump_to(ui: &mut UiState, model: &Model, i: usize) {
    let mut parent = model.resource(i).parent;
    while let Some(p) = parent {
        ui.nav.set_collapsed(&model.resource(p).urn, false);
        parent = model.resource(p).parent;
    }
    ui.refresh_tree(model);
    if ui.layout.tree.find(model, i).is_none() {
        set_filter(ui, model, Filter::default());
        ui.overlay.notice = Some("the filter is cleared: it hid that resource".into());
    }
    ui.nav.selected = Some(model.resource(i).urn.clone());
    if ui.nav.focus != ViewId::Graph {
        ui.nav.focus = ViewId::Resources;
    }
}

/// The search text changed: the first match is shown as it is typed.
fn edit_search(ui: &mut UiState, model: &Model, change: impl FnOnce(&mut String)) {
    let search = &mut ui.log_search;
    let text = search.input.get_or_insert_with(String::new);
    change(text);
    search.query = text.clone();
    search.current = 0;
    show_match(ui, model);
}

/// Scrolls the Log to the match shown (it stops following the newest lines).
fn show_match(ui: &mut UiState, model: &Model) {
    let min = ui.nav.log_min_severity;
    let matches = ui.log_search.matches(model, min);
    if let Some(k) = ui.log_search.current_of(&matches) {
        ui.scroll.log.set_len(model.log.count_at_least(min));
        ui.scroll.log.hold_at(k);
    }
}

fn close(ui: &mut UiState, model: &Model) {
    if ui.overlay.help {
        ui.overlay.help = false;
    } else if ui.overlay.policies {
        ui.overlay.policies = false;
    } else if ui.overlay.details {
        ui.overlay.details = false;
    } else if ui.nav.graph_focus && ui.nav.focus == ViewId::Graph {
        ui.nav.graph_focus = false;
    } else if ui.log_search.active() && ui.nav.focus == ViewId::Log {
        ui.log_search = Default::default();
    } else if ui.nav.zoomed {
        ui.nav.zoomed = false;
    } else if !ui.nav.filter.is_empty() {
        set_filter(ui, model, Filter::default());
    }
}

fn live_filter(ui: &mut UiState, model: &Model, text: &str) {
    if let Ok(f) = Filter::parse(text) {
        set_filter(ui, model, f);
    }
}

fn set_filter(ui: &mut UiState, model: &Model, filter: Filter) {
    ui.nav.filter = filter;
    ui.scroll.resources.go(Move::Home);
    ui.refresh_tree(model);
    let visible = ui
        .nav
        .selected_index(model)
        .and_then(|i| ui.layout.tree.find(model, i))
        .is_some();
    if !visible {
        ui.nav.selected = ui
            .layout
            .tree
            .reach(model, 1)
            .first()
            .map(|r| model.resource(r.idx).urn.clone());
    }
}

/// The cascade `a`/`x` act on: the one under the cursor in the pending view, else the selected
/// resource's, else the first one waiting.
pub fn target_cascade(ui: &UiState, model: &Model) -> Option<CascadeId> {
    let undecided = |id: CascadeId| {
        model
            .approvals
            .get(id)
            .is_some_and(|c| open_cascade(ui, c))
            .then_some(id)
    };
    if ui.nav.focus == ViewId::Pending
        && let Some(c) = model.approvals.all().get(ui.scroll.pending.cursor())
    {
        return undecided(c.id);
    }
    ui.nav
        .selected_index(model)
        .and_then(|i| model.resource(i).cascade)
        .and_then(undecided)
        .or_else(|| first_open(ui, model))
}

/// The first gate that still waits for a decision.
fn first_open(ui: &UiState, model: &Model) -> Option<CascadeId> {
    let open = model.approvals.all().iter().find(|c| open_cascade(ui, c));
    open.map(|c| c.id)
}

fn click(ui: &mut UiState, model: &Model, column: u16, row: u16) {
    let Some(area) = ui.layout.resources_rows else {
        return;
    };
    let inside = ratatui::layout::Position::new(column, row);
    if ui.overlay.details || ui.overlay.help || !area.contains(inside) {
        return;
    }
    ui.nav.focus = ViewId::Resources;
    ui.refresh_tree(model);
    let pos = ui.scroll.resources.offset() + (row - area.y) as usize;
    if let Some(r) = ui.layout.tree.reach(model, pos + 1).get(pos) {
        ui.nav.selected = Some(model.resource(r.idx).urn.clone());
    }
}

/// The graph's view goes back to its top left (its layout changed).
fn graph_to_start(ui: &mut UiState) {
    ui.scroll.graph_x.go(Move::Home);
    ui.scroll.graph_y.go(Move::Home);
}

/// Moves in the focused view (or the overlay on top): the selection in the resources and the
/// graph, a view's own scroll elsewhere.
fn step(ui: &mut UiState, model: &Model, to: Move) {
    if ui.overlay.details {
        ui.scroll.details.go(to);
        return;
    }
    if ui.overlay.help {
        ui.scroll.help.go(to);
        return;
    }
    match ui.nav.focus {
        ViewId::Resources => {
            ui.refresh_tree(model);
            let tree = &mut ui.layout.tree;
            let cur = ui
                .nav
                .selected_index(model)
                .and_then(|i| tree.find(model, i))
                .unwrap_or(0);
            let next = to.from(cur, tree.len(), ui.scroll.resources.page_step());
            if let Some(r) = tree.reach(model, next + 1).get(next) {
                ui.nav.selected = Some(model.resource(r.idx).urn.clone());
            }
        }
        ViewId::Graph => {
            ui.refresh_graph(model);
            let graph = &ui.layout.graph;
            let place = ui.nav.selected_index(model).and_then(|i| graph.place(i));
            let (c, r) = place.unwrap_or((0, 0));
            let col = graph.column(c);
            if !col.is_empty() {
                // Nodes are on every other row.
                let page = (ui.scroll.graph_y.page_step() / 2).max(1);
                let r = if place.is_some() {
                    to.from(r, col.len(), page)
                } else {
                    0
                };
                ui.nav.selected = col.get(r).map(|&i| model.resource(i).urn.clone());
            }
        }
        ViewId::Chains => {
            let chains = &mut ui.scroll.chains;
            chains.set_len(model.chains.all().len());
            chains.go(to);
            if let Some(ch) = model.chains.in_order().nth(chains.cursor()) {
                let k = ch
                    .current
                    .unwrap_or(ch.finished_steps.min(ch.steps.len().saturating_sub(1)));
                if let Some((_, urn)) = ch.steps.get(k) {
                    ui.nav.selected = Some(urn.clone());
                }
            }
        }
        ViewId::Pending => {
            let pending = &mut ui.scroll.pending;
            pending.set_len(model.approvals.all().len());
            pending.go(to);
            if let Some(c) = model.approvals.all().get(pending.cursor()) {
                ui.nav.selected = Some(c.root.clone());
            }
        }
        ViewId::Log => {
            let log = &mut ui.scroll.log;
            log.set_len(model.log.count_at_least(ui.nav.log_min_severity));
            log.go(to);
        }
        ViewId::Diffs => ui.scroll.diffs.go(to),
        ViewId::Summary => ui.scroll.summary.go(to),
    }
}

fn sideways(ui: &mut UiState, model: &Model, delta: isize) {
    match ui.nav.focus {
        ViewId::Resources => {
            ui.ensure_selection(model);
            let Some(i) = ui.nav.selected_index(model) else {
                return;
            };
            let r = model.resource(i);
            let collapsed = ui.nav.collapsed.contains(&r.urn);
            if delta > 0 {
                ui.nav.set_collapsed(&r.urn.clone(), false);
            } else if !collapsed && !r.children.is_empty() {
                ui.nav.set_collapsed(&r.urn.clone(), true);
            } else if let Some(p) = r.parent {
                ui.nav.selected = Some(model.resource(p).urn.clone());
            }
        }
        ViewId::Graph => {
            ui.ensure_selection(model);
            ui.refresh_graph(model);
            let (c, r) = ui
                .nav
                .selected_index(model)
                .and_then(|i| ui.layout.graph.place(i))
                .unwrap_or((0, 0));
            let nc = Move::Rows(delta).from(c, ui.layout.graph.layers, 1);
            ui.layout.graph.order_through(model, nc);
            let col = ui.layout.graph.column(nc);
            if !col.is_empty() {
                let nr = r.min(col.len() - 1);
                ui.nav.selected = col.get(nr).map(|&i| model.resource(i).urn.clone());
            }
        }
        _ => step(ui, model, Move::Rows(delta)),
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;
    use std::time::Duration;

    use super::*;
    use crate::app::console::Title;
    use crate::app::sample::sample_timeline;
    use crate::engine::run::control::{ControlReceiver, DecisionScope};
    use crate::engine::run::events::PendingCreate;
    use crate::engine::{CancelLevel, Control, EngineEvent, EventSink, Outcome, Urn};

    fn setup(mode: ConsoleMode) -> (UiState, Model, Control, ControlReceiver) {
        let mut m = Model::new();
        for (at, e) in sample_timeline() {
            m.set_now(at);
            m.apply(&e);
        }
        let (control, rx) = Control::new(EventSink::none());
        let title = Title {
            operation: "up".into(),
            stack: "dev".into(),
            project: "myproj".into(),
            phase: None,
        };
        let mut ui = UiState::new(mode, title);
        ui.ensure_selection(&m);
        (ui, m, control, rx)
    }

    fn finish(m: &mut Model, outcome: Outcome) {
        m.apply(&EngineEvent::Summary {
            counts: BTreeMap::new(),
            declined: 0,
            duration: Duration::from_secs(5),
            outcome,
            preview: false,
            policy_packs: Default::default(),
        });
    }

    /// A console attached from elsewhere: the same actions, but leaving it only detaches.
    struct Attached(Control);

    impl Steering for Attached {
        fn pause(&self) {
            self.0.pause();
        }
        fn resume(&self) {
            self.0.resume();
        }
        fn is_paused(&self) -> bool {
            self.0.is_paused()
        }
        fn approve(&self, cascade: CascadeId) {
            self.0.approve(cascade);
        }
        fn decline(&self, cascade: CascadeId) {
            self.0.decline(cascade);
        }
        fn approve_all(&self) {
            self.0.approve_all();
        }
        fn approve_kind(&self, kind: ApprovalKind) {
            self.0.decide_kind(kind, true);
        }
        fn step_once(&self) {
            self.0.step_once();
        }
        fn cancel(&self) {
            self.0.cancel();
        }
        fn terminate(&self) {
            self.0.terminate();
        }
        fn owns_deployment(&self) -> bool {
            false
        }
    }

    #[test]
    fn leaving_an_attached_console_while_the_run_goes_on_detaches_without_cancelling() {
        for action in [Action::Quit, Action::Interrupt] {
            let (mut ui, m, control, rx) = setup(ConsoleMode::Live);
            assert!(!m.run_state().is_over());
            let attached = Attached(control);
            let what = format!("{action:?}");
            assert_eq!(
                update(&mut ui, &m, &attached, action),
                Some(ConsoleExit::Quit { cancelled: false })
            );
            assert_eq!(*rx.cancel.borrow(), CancelLevel::Running, "{what}");
        }
    }

    #[test]
    fn p_pauses_and_resumes_through_control() {
        let (mut ui, m, control, rx) = setup(ConsoleMode::Live);
        assert_eq!(update(&mut ui, &m, &control, Action::TogglePause), None);
        assert!(*rx.paused.borrow());
        update(&mut ui, &m, &control, Action::TogglePause);
        assert!(!*rx.paused.borrow());
    }

    #[test]
    fn approve_and_decline_target_the_cascade_under_the_cursor() {
        let (mut ui, m, control, mut rx) = setup(ConsoleMode::Live);
        ui.nav.focus = ViewId::Pending;
        update(&mut ui, &m, &control, Action::Approve);
        assert_eq!(
            rx.decisions.try_recv().ok().map(|d| (d.scope, d.approve)),
            Some((DecisionScope::One(1), true))
        );
        update(&mut ui, &m, &control, Action::Decline);
        assert_eq!(
            rx.decisions.try_recv().ok().map(|d| (d.scope, d.approve)),
            Some((DecisionScope::One(1), false))
        );
        update(&mut ui, &m, &control, Action::ApproveAll);
        assert_eq!(
            ui.overlay.confirm,
            Some(Confirm::ApproveAll),
            "A asks first"
        );
        assert!(rx.decisions.try_recv().is_err());
        update(&mut ui, &m, &control, Action::Confirm);
        assert_eq!(
            rx.decisions.try_recv().ok().map(|d| (d.scope, d.approve)),
            Some((DecisionScope::All, true))
        );
    }

    #[test]
    fn s_lets_one_step_through_only_while_paused() {
        let (mut ui, m, control, rx) = setup(ConsoleMode::Live);
        update(&mut ui, &m, &control, Action::Step);
        assert_eq!(
            rx.steps.available_permits(),
            0,
            "not paused: nothing to step"
        );
        assert!(ui.overlay.notice.is_some());
        update(&mut ui, &m, &control, Action::TogglePause);
        update(&mut ui, &m, &control, Action::Step);
        assert_eq!(rx.steps.available_permits(), 1);
        update(&mut ui, &m, &control, Action::TogglePause);
        assert_eq!(
            rx.steps.available_permits(),
            0,
            "resuming drops unused steps"
        );
    }

    #[test]
    fn k_finds_the_waiting_gates_when_the_cursor_rests_on_a_decided_one() {
        let (mut ui, mut m, control, _rx) = setup(ConsoleMode::Live);
        let decided = m.approvals.all()[0].clone();
        m.apply(&EngineEvent::Decision {
            cascade: decided.id,
            op: crate::engine::StepOp::Replace,
            urn: decided.root.clone(),
            approved: true,
            by: crate::engine::run::events::Decider::Operator("me".into()),
        });
        m.apply(&EngineEvent::GateOpened {
            gate: 77,
            chain: 77,
            op: crate::engine::StepOp::Update,
            urn: crate::app::sample::sample_urn("sim:index:Resource", "cfg"),
            kind: ApprovalKind::Updates,
            asked: true,
        });
        ui.nav.focus = ViewId::Pending;
        ui.scroll.pending.go(Move::Home);
        update(&mut ui, &m, &control, Action::ApproveKind);
        assert_eq!(
            ui.overlay.confirm,
            Some(Confirm::ApproveKind(ApprovalKind::Updates)),
            "{:?}",
            ui.overlay.notice
        );
    }

    #[test]
    fn k_approves_every_gate_of_the_selected_kind_after_asking() {
        let (mut ui, m, control, mut rx) = setup(ConsoleMode::Live);
        update(&mut ui, &m, &control, Action::ApproveKind);
        assert_eq!(
            ui.overlay.confirm,
            Some(Confirm::ApproveKind(ApprovalKind::Replacements))
        );
        assert!(rx.decisions.try_recv().is_err());
        update(&mut ui, &m, &control, Action::Confirm);
        assert_eq!(
            rx.decisions.try_recv().ok().map(|d| (d.scope, d.approve)),
            Some((DecisionScope::Kind(ApprovalKind::Replacements), true))
        );
    }

    #[test]
    fn approving_from_another_view_uses_the_selected_resource_or_the_first_waiting() {
        let (mut ui, m, control, mut rx) = setup(ConsoleMode::Live);
        ui.nav.focus = ViewId::Resources;
        update(&mut ui, &m, &control, Action::Approve);
        assert_eq!(
            rx.decisions.try_recv().ok().map(|d| (d.scope, d.approve)),
            Some((DecisionScope::One(1), true))
        );
    }

    #[test]
    fn c_asks_then_cancels_and_ctrl_c_twice_terminates() {
        let (mut ui, m, control, rx) = setup(ConsoleMode::Live);
        update(&mut ui, &m, &control, Action::Cancel);
        assert_eq!(ui.overlay.confirm, Some(Confirm::Cancel));
        assert_eq!(*rx.cancel.borrow(), CancelLevel::Running);
        update(&mut ui, &m, &control, Action::Confirm);
        assert_eq!(*rx.cancel.borrow(), CancelLevel::Cancelling);

        let (mut ui, m, control, rx) = setup(ConsoleMode::Live);
        update(&mut ui, &m, &control, Action::Interrupt);
        assert_eq!(*rx.cancel.borrow(), CancelLevel::Cancelling);
        assert_eq!(
            update(&mut ui, &m, &control, Action::Interrupt),
            Some(ConsoleExit::Quit { cancelled: true })
        );
        assert_eq!(*rx.cancel.borrow(), CancelLevel::Terminating);
    }

    #[test]
    fn the_ctrl_c_notice_goes_once_the_run_is_over() {
        let (mut ui, mut m, control, _rx) = setup(ConsoleMode::Live);
        update(&mut ui, &m, &control, Action::Interrupt);
        ui.settle(&m);
        assert_eq!(ui.overlay.notice.as_deref(), Some(CANCELLING_NOTICE));
        finish(&mut m, Outcome::Cancelled);
        ui.settle(&m);
        assert_eq!(ui.overlay.notice, None);
    }

    #[test]
    fn q_asks_while_running_and_quits_when_over() {
        let (mut ui, mut m, control, rx) = setup(ConsoleMode::Live);
        assert_eq!(update(&mut ui, &m, &control, Action::Quit), None);
        assert_eq!(ui.overlay.confirm, Some(Confirm::Quit));
        assert_eq!(update(&mut ui, &m, &control, Action::Deny), None);
        assert_eq!(*rx.cancel.borrow(), CancelLevel::Running);
        finish(&mut m, Outcome::Succeeded);
        assert_eq!(
            update(&mut ui, &m, &control, Action::Quit),
            Some(ConsoleExit::Quit { cancelled: false })
        );

        let (mut ui, m, control, rx) = setup(ConsoleMode::Live);
        update(&mut ui, &m, &control, Action::Quit);
        assert_eq!(
            update(&mut ui, &m, &control, Action::Confirm),
            Some(ConsoleExit::Quit { cancelled: true })
        );
        assert_eq!(*rx.cancel.borrow(), CancelLevel::Cancelling);
    }

    #[test]
    fn a_waiting_preview_applies_only_once_it_succeeded() {
        let mode = ConsoleMode::Preview {
            awaiting_decision: true,
        };
        let (mut ui, mut m, control, _rx) = setup(mode);
        assert_eq!(update(&mut ui, &m, &control, Action::PreviewApply), None);
        assert_eq!(
            ui.overlay.notice.as_deref(),
            Some("the preview is still running")
        );
        finish(&mut m, Outcome::Succeeded);
        assert_eq!(
            update(&mut ui, &m, &control, Action::PreviewApply),
            Some(ConsoleExit::Apply)
        );
        assert_eq!(
            ui.presets.expected.steps,
            Some(m.counts.previewed_steps()),
            "the apply counts against the preview's steps"
        );
        assert_eq!(
            update(&mut ui, &m, &control, Action::PreviewAbort),
            Some(ConsoleExit::Abort)
        );
        let (mut ui, mut m, control, _rx) = setup(mode);
        finish(
            &mut m,
            Outcome::Failed(crate::engine::RunFailure::new(
                crate::engine::FailureCause::Step,
                "boom",
            )),
        );
        assert_eq!(update(&mut ui, &m, &control, Action::PreviewApply), None);
    }

    #[test]
    fn typing_a_filter_narrows_the_tree_and_esc_clears_it() {
        let (mut ui, m, control, _rx) = setup(ConsoleMode::Live);
        update(&mut ui, &m, &control, Action::StartFilter);
        for c in "op:replace".chars() {
            update(&mut ui, &m, &control, Action::FilterChar(c));
        }
        update(&mut ui, &m, &control, Action::FilterCommit);
        ui.refresh_tree(&m);
        let names: Vec<&str> = ui
            .layout
            .tree
            .reach(&m, usize::MAX)
            .iter()
            .map(|r| m.resource(r.idx).name())
            .collect();
        assert_eq!(names, ["myproj-dev", "app", "db"], "siblings by name");
        update(&mut ui, &m, &control, Action::Close);
        ui.refresh_tree(&m);
        assert_eq!(ui.layout.tree.len(), m.resources().len());
    }

    #[test]
    fn a_bad_filter_says_what_is_wrong() {
        let (mut ui, m, control, _rx) = setup(ConsoleMode::Live);
        update(&mut ui, &m, &control, Action::StartFilter);
        for c in "op:explode".chars() {
            update(&mut ui, &m, &control, Action::FilterChar(c));
        }
        update(&mut ui, &m, &control, Action::FilterCommit);
        assert!(
            ui.overlay
                .notice
                .as_deref()
                .unwrap()
                .contains("unknown op \"explode\"")
        );
    }

    #[test]
    fn moving_follows_the_tree_and_left_collapses() {
        let (mut ui, m, control, _rx) = setup(ConsoleMode::Live);
        let name = |ui: &UiState| ui.nav.selected.as_ref().unwrap().name().to_string();
        assert_eq!(name(&ui), "myproj-dev");
        update(&mut ui, &m, &control, Action::Down);
        assert_eq!(name(&ui), "app", "siblings by name");
        update(&mut ui, &m, &control, Action::PageDown);
        update(&mut ui, &m, &control, Action::Home);
        for _ in 0..3 {
            update(&mut ui, &m, &control, Action::Down);
        }
        assert_eq!(name(&ui), "net");
        update(&mut ui, &m, &control, Action::Down);
        assert_eq!(name(&ui), "subnet-a");
        update(&mut ui, &m, &control, Action::Up);
        update(&mut ui, &m, &control, Action::Left);
        ui.refresh_tree(&m);
        assert_eq!(
            ui.layout.tree.len(),
            m.resources().len() - 4,
            "net's subtree is hidden"
        );
        update(&mut ui, &m, &control, Action::Down);
        assert_eq!(name(&ui), "old-logs");
        update(&mut ui, &m, &control, Action::End);
        assert_eq!(name(&ui), "old-logs");
        update(&mut ui, &m, &control, Action::Home);
        assert_eq!(name(&ui), "myproj-dev");
    }

    #[test]
    fn a_click_selects_the_resource_row_under_it() {
        let (mut ui, m, control, _rx) = setup(ConsoleMode::Live);
        ui.nav.focus = ViewId::Log;
        ui.layout.resources_rows = Some(ratatui::layout::Rect::new(1, 3, 78, 20));
        update(&mut ui, &m, &control, Action::Click { column: 10, row: 5 });
        assert_eq!(ui.nav.focus, ViewId::Resources);
        assert_eq!(ui.nav.selected.as_ref().unwrap().name(), "db");
        update(&mut ui, &m, &control, Action::Click { column: 10, row: 0 });
        assert_eq!(ui.nav.selected.as_ref().unwrap().name(), "db");
    }

    #[test]
    fn the_shared_selection_follows_the_pending_and_chains_views() {
        let (mut ui, m, control, _rx) = setup(ConsoleMode::Live);
        update(&mut ui, &m, &control, Action::ShowView(ViewId::Pending));
        update(&mut ui, &m, &control, Action::Down);
        assert_eq!(ui.nav.selected.as_ref().unwrap().name(), "db");
        update(&mut ui, &m, &control, Action::ShowView(ViewId::Chains));
        update(&mut ui, &m, &control, Action::Down);
        assert_eq!(ui.nav.selected.as_ref().unwrap().name(), "subnet-b");
        update(&mut ui, &m, &control, Action::OpenDetails);
        assert!(ui.overlay.details);
        update(&mut ui, &m, &control, Action::Close);
        assert!(!ui.overlay.details);
    }

    #[test]
    fn esc_closes_the_filter_prompt_so_the_next_keys_act() {
        let (mut ui, m, control, _rx) = setup(ConsoleMode::Live);
        update(&mut ui, &m, &control, Action::StartFilter);
        update(&mut ui, &m, &control, Action::FilterChar('d'));
        update(&mut ui, &m, &control, Action::Close);
        assert_eq!(ui.nav.filter_input, None);
        assert!(ui.nav.filter.is_empty());
        let q = crossterm::event::KeyEvent::new(
            crossterm::event::KeyCode::Char('q'),
            crossterm::event::KeyModifiers::NONE,
        );
        assert_eq!(
            crate::app::keymap::map_key(q, key_context(&ui)),
            Some(Action::Quit)
        );
    }

    #[test]
    fn an_esc_read_with_the_next_key_clears_the_filter_before_that_key_acts() {
        let (mut ui, m, control, _rx) = setup(ConsoleMode::Live);
        for action in [
            Action::StartFilter,
            Action::FilterChar('d'),
            Action::FilterCommit,
        ] {
            update(&mut ui, &m, &control, action);
        }
        assert_eq!(ui.nav.filter.text(), "d");
        // Esc then `/`, read from the terminal in one go: one Alt-/ event.
        let chord = crossterm::event::KeyEvent::new(
            crossterm::event::KeyCode::Char('/'),
            crossterm::event::KeyModifiers::ALT,
        );
        for key in crate::app::keymap::as_typed(chord) {
            if let Some(action) = crate::app::keymap::map_key(key, key_context(&ui)) {
                update(&mut ui, &m, &control, action);
            }
        }
        assert!(ui.nav.filter.is_empty(), "the Esc cleared the filter");
        assert_eq!(
            ui.nav.filter_input.as_deref(),
            Some(""),
            "`/` opened a fresh prompt"
        );
    }

    #[test]
    fn q_leaves_a_read_only_preview_without_a_dialog_and_dialogs_end_with_the_run() {
        let mode = ConsoleMode::Preview {
            awaiting_decision: false,
        };
        let (mut ui, m, control, rx) = setup(mode);
        assert_eq!(
            update(&mut ui, &m, &control, Action::Quit),
            Some(ConsoleExit::Quit { cancelled: false })
        );
        assert_eq!(ui.overlay.confirm, None);
        assert_eq!(
            *rx.cancel.borrow(),
            CancelLevel::Cancelling,
            "the preview stops"
        );
        update(&mut ui, &m, &control, Action::Approve);
        assert!(
            ui.overlay
                .notice
                .as_deref()
                .unwrap()
                .contains("read-only preview")
        );
        assert!(ui.presets.is_empty());

        let (mut ui, mut m, control, _rx) = setup(ConsoleMode::Live);
        update(&mut ui, &m, &control, Action::Quit);
        assert_eq!(ui.overlay.confirm, Some(Confirm::Quit));
        finish(&mut m, Outcome::Succeeded);
        ui.settle(&m);
        assert_eq!(ui.overlay.confirm, None, "no dialog survives DONE");
    }

    #[test]
    fn decisions_in_a_deciding_preview_are_kept_for_the_apply() {
        let mode = ConsoleMode::Preview {
            awaiting_decision: true,
        };
        let (mut ui, _, control, mut rx) = setup(mode);
        let mut m = Model::new();
        for (_, e) in sample_timeline() {
            m.apply(&crate::app::sample::as_preview(e));
        }
        assert_eq!(m.approvals.undecided(), 0, "a preview waits for nobody");
        // A decline changes what the plan's dependents diff against: it is previewed again.
        let exit = update(&mut ui, &m, &control, Action::Decline);
        assert_eq!(exit, Some(ConsoleExit::Repreview));
        assert_eq!(ui.presets.get(&m.approvals.all()[0]), Some(false));
        assert!(
            rx.decisions.try_recv().is_err(),
            "nothing is sent to a preview"
        );
        update(&mut ui, &m, &control, Action::ApproveAll);
        assert_eq!(ui.overlay.confirm, Some(Confirm::ApproveAll));
        let exit = update(&mut ui, &m, &control, Action::Confirm);
        assert_eq!(exit, Some(ConsoleExit::Repreview), "the decline is undone");
        assert_eq!(ui.presets.get(&m.approvals.all()[0]), Some(true));
        let exit = update(&mut ui, &m, &control, Action::Approve);
        assert_eq!(exit, None, "an approval changes nothing the plan shows");
    }

    #[test]
    fn e_opens_the_next_failure_u_copies_m_releases_the_mouse_o_sorts() {
        let (mut ui, m, control, _rx) = setup(ConsoleMode::Live);
        update(&mut ui, &m, &control, Action::NextError);
        assert_eq!(ui.nav.selected.as_ref().unwrap().name(), "server-2");
        assert!(ui.overlay.details, "the whole error is in the details");
        update(&mut ui, &m, &control, Action::Close);
        update(&mut ui, &m, &control, Action::CopyUrn);
        assert_eq!(
            ui.clipboard.as_deref(),
            Some(ui.nav.selected.as_ref().unwrap().as_str())
        );
        update(&mut ui, &m, &control, Action::ToggleMouse);
        assert!(!ui.mouse_capture);
        update(&mut ui, &m, &control, Action::CycleSort);
        update(&mut ui, &m, &control, Action::CycleSort);
        assert_eq!(ui.nav.sort, crate::app::sort::SortKey::Status);
        ui.refresh_tree(&m);
        let first_child = m
            .resource(ui.layout.tree.reach(&m, 2)[1].idx)
            .name()
            .to_string();
        assert_eq!(first_child, "app", "waiting for approval before done");
    }

    #[test]
    fn c_marks_the_pending_creates_for_the_apply_only_when_there_are_some() {
        let deciding = ConsoleMode::Preview {
            awaiting_decision: true,
        };
        let (mut ui, mut m, control, _rx) = setup(deciding);
        update(&mut ui, &m, &control, Action::ClearPendingCreates);
        assert_eq!(ui.presets.pending_creates_marked(), None);
        assert_eq!(
            ui.overlay.notice.as_deref(),
            Some("the stack has no pending creates")
        );

        let creates: Vec<PendingCreate> = ["a", "b"]
            .iter()
            .map(|n| PendingCreate {
                urn: Urn::parse(&format!("urn:pulumi:dev::myproj::sim:index:Bucket::{n}")).unwrap(),
                type_: "sim:index:Bucket".into(),
            })
            .collect();
        m.apply(&EngineEvent::PendingCreates { creates });
        assert_eq!(m.run.pending_creates().len(), 2);
        assert!(
            m.log.entries().iter().any(|l| l
                .message
                .contains("sim:index:Bucket urn:pulumi:dev::myproj::sim:index:Bucket::b")),
            "each pending create is logged with its type and URN"
        );
        update(&mut ui, &m, &control, Action::ClearPendingCreates);
        assert_eq!(ui.presets.pending_creates_marked(), Some(2));
        assert!(
            ui.overlay
                .notice
                .as_deref()
                .unwrap()
                .contains("2 pending create(s) will be cleared")
        );
        update(&mut ui, &m, &control, Action::ClearPendingCreates);
        assert_eq!(
            ui.presets.pending_creates_marked(),
            None,
            "C again takes it back"
        );

        let (mut live, m2, control, _rx) = setup(ConsoleMode::Live);
        let mut m2 = m2;
        m2.apply(&EngineEvent::PendingCreates {
            creates: m.run.pending_creates().to_vec(),
        });
        update(&mut live, &m2, &control, Action::ClearPendingCreates);
        assert_eq!(
            live.presets.pending_creates_marked(),
            None,
            "a live run marks nothing"
        );
        m2.apply(&EngineEvent::PendingCreatesCleared { count: 2 });
        assert!(m2.run.pending_creates().is_empty());
        assert!(
            m2.log
                .entries()
                .iter()
                .any(|l| l.message == "cleared 2 pending create(s) (--clear-pending-creates)")
        );
    }
}
