//! The model reduced from event timelines: counts, statuses, chains, cascades, clocks.

use std::collections::BTreeMap;
use std::time::Duration;

use super::*;
use crate::app::sample::{sample_timeline, sample_urn, step_info};
use crate::engine::run::approval::ApprovalKind;
use crate::engine::run::events::{CascadeMember, Decider};
use crate::engine::{Operation, PropertyMap, StepOp};

fn sample_model() -> Model {
    let mut m = Model::new();
    for (at, e) in sample_timeline() {
        m.set_now(at);
        m.apply(&e);
    }
    m
}

fn urn(t: &str, n: &str) -> Urn {
    sample_urn(t, n)
}

#[test]
fn sample_reduces_to_counts_statuses_and_workers() {
    let m = sample_model();
    assert_eq!(m.run.stack, "dev");
    assert_eq!(m.run.parallel, 8);
    assert_eq!(m.counts.planned(StepOp::Create), 4);
    assert_eq!(m.counts.planned(StepOp::Replace), 2);
    assert_eq!(m.counts.planned(StepOp::Delete), 1);
    assert_eq!(m.counts.done(StepOp::Create), 2);
    assert_eq!(m.counts.failed(), 1);
    assert_eq!(m.workers_busy(), 2, "chains 4 and 5 still run");
    let st = |n: &str, t: &str| m.get(&urn(t, n)).unwrap().status;
    assert_eq!(st("net", "sim:index:Network"), Status::Done);
    assert_eq!(st("subnet-b", "sim:index:Subnet"), Status::Running);
    assert_eq!(st("server-2", "sim:index:Server"), Status::Failed);
    assert_eq!(st("db", "sim:index:Database"), Status::WaitingForApproval);
    assert_eq!(st("app", "sim:index:Service"), Status::WaitingForApproval);
    assert_eq!(st("old-logs", "sim:index:Bucket"), Status::Planned);
    let srv2 = m.get(&urn("sim:index:Server", "server-2")).unwrap();
    assert_eq!(
        srv2.error.as_deref(),
        Some("quota exceeded for instance type large")
    );
    assert_eq!(srv2.busy, Duration::from_secs_f64(0.7));
    assert_eq!(m.run_state(), RunState::AwaitingApproval);
    assert_eq!(m.elapsed(), Duration::from_secs_f64(3.5));
}

#[test]
fn tree_puts_children_under_parents() {
    let m = sample_model();
    let roots: Vec<usize> = m.roots().collect();
    assert_eq!(roots.len(), 1);
    let stack = m.resource(roots[0]);
    assert_eq!(stack.type_(), "pulumi:pulumi:Stack");
    let names: Vec<&str> = stack
        .children
        .iter()
        .map(|&c| m.resource(c).name())
        .collect();
    assert_eq!(names, ["net", "db", "app", "old-logs"]);
    let net = m.get(&urn("sim:index:Network", "net")).unwrap();
    let subs: Vec<&str> = net.children.iter().map(|&c| m.resource(c).name()).collect();
    assert_eq!(subs, ["subnet-a", "subnet-b"]);
}

#[test]
fn chains_are_ordered_awaiting_running_queued_finished() {
    let m = sample_model();
    let order: Vec<(u64, ChainState)> = m.chains.in_order().map(|c| (c.id, c.state)).collect();
    assert_eq!(
        order,
        [
            (7, ChainState::AwaitingApproval),
            (4, ChainState::Running),
            (5, ChainState::Running),
            (8, ChainState::Queued),
            (6, ChainState::Failed),
            (3, ChainState::Done),
            (2, ChainState::Done),
        ]
    );
    assert_eq!(m.chains.get(4).unwrap().worker, Some(2));
    assert_eq!(m.chains.get(4).unwrap().current, Some(0));
}

#[test]
fn diffs_and_log_are_tracked() {
    let m = sample_model();
    assert_eq!(m.diffs.queued, 1);
    assert_eq!(m.diffs.running.len(), 1);
    assert_eq!(m.diffs.done, 1);
    let severities: Vec<Severity> = m
        .log
        .entries()
        .iter()
        .map(|e| e.severity)
        .filter(|&s| s > Severity::Info)
        .collect();
    assert_eq!(severities, [Severity::Warning, Severity::Error]);
    let audit: Vec<&str> = m.log.entries().iter().map(|e| e.message.as_str()).collect();
    assert!(audit.contains(&"create started on worker 0"), "{audit:?}");
    assert!(audit.contains(&"create finished"), "{audit:?}");
    assert!(
        audit.contains(&"create failed: quota exceeded for instance type large"),
        "{audit:?}"
    );
    assert_eq!(
        audit
            .iter()
            .filter(|a| a.contains("quota exceeded"))
            .count(),
        1,
        "the failure's diagnostic is not logged twice"
    );
    let srv1 = m.get(&urn("sim:index:Server", "server-1")).unwrap();
    assert_eq!(
        srv1.message.as_deref(),
        Some("waiting for instance to boot")
    );
}

#[test]
fn a_step_gate_waits_like_a_cascade_and_records_who_declined_it() {
    let mut m = Model::new();
    let u = urn("sim:index:Resource", "old");
    m.apply(&EngineEvent::GateOpened {
        gate: 3,
        chain: 5,
        op: StepOp::Delete,
        urn: u.clone(),
        kind: ApprovalKind::Deletes,
        asked: true,
    });
    assert_eq!(m.approvals.undecided(), 1);
    assert_eq!(m.get(&u).unwrap().status, Status::WaitingForApproval);
    let by = Decider::File("decisions.yaml".into());
    m.apply(&EngineEvent::Decision {
        cascade: 3,
        op: StepOp::Delete,
        urn: u.clone(),
        approved: false,
        by: by.clone(),
    });
    assert_eq!(m.approvals.undecided(), 0);
    let gate = m.approvals.get(3).unwrap();
    assert_eq!(
        gate.step,
        Some((StepOp::Delete, ApprovalKind::Deletes, true))
    );
    assert_eq!(gate.decided, Some((false, by)));
    assert_eq!(m.get(&u).unwrap().status, Status::Declined);
    assert!(
        m.log
            .entries()
            .iter()
            .any(|l| l.message == "delete of old declined by decision file decisions.yaml"),
        "{:?}",
        m.log.entries()
    );
}

#[test]
fn approving_requeues_the_cascade_and_declining_keeps_it() {
    let mut m = sample_model();
    assert_eq!(m.approvals.undecided(), 1);
    let mut declined = m.clone();
    m.apply(&EngineEvent::Decision {
        cascade: 1,
        approved: true,
        by: Decider::Operator("alice@host".into()),
        op: StepOp::Replace,
        urn: urn("sim:index:Database", "db"),
    });
    assert_eq!(m.approvals.undecided(), 0);
    assert_eq!(m.chains.get(7).unwrap().state, ChainState::Queued);
    assert_eq!(
        m.get(&urn("sim:index:Database", "db")).unwrap().status,
        Status::Planned
    );
    assert_eq!(m.run_state(), RunState::Running);

    let (settled, total) = declined.counts.progress();
    declined.apply(&EngineEvent::Decision {
        cascade: 1,
        approved: false,
        by: Decider::Policy,
        op: StepOp::Replace,
        urn: urn("sim:index:Database", "db"),
    });
    assert_eq!(declined.chains.get(7).unwrap().state, ChainState::Declined);
    let steps: u32 = [("sim:index:Database", "db"), ("sim:index:Service", "app")]
        .iter()
        .map(|(t, n)| declined.get(&urn(t, n)).unwrap().steps_planned)
        .sum();
    let steps = steps as usize;
    assert!(steps > 0);
    assert_eq!(
        declined.counts.progress(),
        (settled, total - steps),
        "declined steps leave the total and are never done"
    );
    assert_eq!(declined.counts.declined(), 2, "db and app");
    declined.apply(&EngineEvent::ChainFinished {
        chain: 7,
        ok: false,
    });
    assert_eq!(declined.chains.get(7).unwrap().state, ChainState::Declined);
    assert_eq!(
        declined.counts.progress(),
        (settled, total - steps),
        "and only once"
    );
    assert_eq!(
        declined
            .get(&urn("sim:index:Service", "app"))
            .unwrap()
            .status,
        Status::Declined
    );
    assert_eq!(
        declined.approvals.get(1).unwrap().decided,
        Some((false, Decider::Policy))
    );
}

#[test]
fn pause_cancel_and_summary_drive_the_run_state() {
    let mut m = sample_model();
    m.apply(&EngineEvent::Paused);
    assert_eq!(m.run_state(), RunState::Paused);
    m.apply(&EngineEvent::Resumed);
    assert_eq!(m.run_state(), RunState::AwaitingApproval);
    m.apply(&EngineEvent::CancelRequested { terminate: false });
    assert_eq!(m.run_state(), RunState::Cancelling);
    m.apply(&EngineEvent::Summary {
        counts: BTreeMap::from([(StepOp::Create, 2)]),
        declined: 0,
        duration: Duration::from_secs(4),
        outcome: Outcome::Cancelled,
        preview: false,
        policy_packs: Default::default(),
    });
    assert_eq!(m.run_state(), RunState::Cancelled);
    assert_eq!(m.elapsed(), Duration::from_secs(4));
    let sub_b = m.get(&urn("sim:index:Subnet", "subnet-b")).unwrap();
    assert_eq!(sub_b.status, Status::Interrupted);
}

#[test]
fn a_replacement_is_done_only_when_all_its_steps_finished() {
    let mut m = Model::new();
    let u = urn("sim:index:Database", "db");
    for op in [
        StepOp::CreateReplacement,
        StepOp::Replace,
        StepOp::DeleteReplaced,
    ] {
        m.apply(&EngineEvent::StepPlanned(Box::new(step_info(
            op, &u, None, 1,
        ))));
    }
    assert_eq!(m.get(&u).unwrap().op, Some(StepOp::Replace));
    for (k, op) in [
        StepOp::CreateReplacement,
        StepOp::Replace,
        StepOp::DeleteReplaced,
    ]
    .into_iter()
    .enumerate()
    {
        m.apply(&EngineEvent::StepStarted {
            chain: 1,
            op,
            urn: u.clone(),
            worker: 0,
        });
        assert_eq!(m.get(&u).unwrap().status, Status::Running);
        m.apply(&EngineEvent::StepFinished {
            chain: 1,
            op,
            urn: u.clone(),
            id: None,
            outputs: PropertyMap::new(),
            duration: Duration::from_millis(100),
        });
        let want = if k == 2 {
            Status::Done
        } else {
            Status::Planned
        };
        assert_eq!(m.get(&u).unwrap().status, want);
    }
    assert_eq!(m.counts.done(StepOp::Replace), 1);
    assert_eq!(
        m.counts.done(StepOp::CreateReplacement),
        0,
        "physical halves are not counted"
    );
}

#[test]
fn a_failed_chain_skips_its_remaining_steps_and_a_declined_resource_stays_declined() {
    let mut m = Model::new();
    let a = urn("sim:index:Server", "a");
    let b = urn("sim:index:Server", "b");
    for u in [&a, &b] {
        m.apply(&EngineEvent::StepPlanned(Box::new(step_info(
            StepOp::Update,
            u,
            None,
            1,
        ))));
    }
    m.apply(&EngineEvent::ChainQueued {
        chain: 1,
        steps: [(StepOp::Update, a.clone()), (StepOp::Update, b.clone())].into(),
    });
    m.apply(&EngineEvent::ChainStarted {
        chain: 1,
        worker: 0,
    });
    m.apply(&EngineEvent::StepStarted {
        chain: 1,
        op: StepOp::Update,
        urn: a.clone(),
        worker: 0,
    });
    m.apply(&EngineEvent::StepFailed {
        chain: 1,
        op: StepOp::Update,
        urn: a.clone(),
        error: "boom".into(),
        duration: Duration::from_millis(10),
    });
    m.apply(&EngineEvent::ChainFinished {
        chain: 1,
        ok: false,
    });
    assert_eq!(m.get(&a).unwrap().status, Status::Failed);
    assert_eq!(m.get(&b).unwrap().status, Status::Skipped);
    assert_eq!(m.workers_busy(), 0);

    let mut m = sample_model();
    m.apply(&EngineEvent::Decision {
        cascade: 1,
        approved: false,
        by: Decider::Operator("alice@host".into()),
        op: StepOp::Replace,
        urn: urn("sim:index:Database", "db"),
    });
    let db = urn("sim:index:Database", "db");
    m.apply(&EngineEvent::StepPlanned(Box::new(step_info(
        StepOp::Same,
        &db,
        None,
        9,
    ))));
    m.apply(&EngineEvent::StepFinished {
        chain: 9,
        op: StepOp::Same,
        urn: db.clone(),
        id: None,
        outputs: PropertyMap::new(),
        duration: Duration::ZERO,
    });
    assert_eq!(m.get(&db).unwrap().status, Status::Declined);
}

#[test]
fn children_seen_before_their_parent_move_under_it() {
    let mut m = Model::new();
    let stack = urn("pulumi:pulumi:Stack", "");
    let child = urn("sim:index:Bucket", "b");
    m.apply(&EngineEvent::StepPlanned(Box::new(step_info(
        StepOp::Delete,
        &child,
        Some(&stack),
        1,
    ))));
    m.apply(&EngineEvent::StepPlanned(Box::new(step_info(
        StepOp::Delete,
        &stack,
        None,
        2,
    ))));
    let roots: Vec<usize> = m.roots().collect();
    assert_eq!(roots, [m.index_of(&stack).unwrap()]);
    assert_eq!(m.resource(roots[0]).children, [m.index_of(&child).unwrap()]);
    assert_eq!(m.resource(roots[0]).type_(), "pulumi:pulumi:Stack");
}

#[test]
fn a_parent_link_that_would_close_a_cycle_is_refused() {
    let mut m = Model::new();
    let [a, b, c] = ["a", "b", "c"].map(|n| urn("my:index:Group", n));
    let plan = |m: &mut Model, u: &Urn, parent: &Urn, chain: u64| {
        let info = step_info(StepOp::Create, u, Some(parent), chain);
        m.apply(&EngineEvent::StepPlanned(Box::new(info)));
    };
    plan(&mut m, &b, &a, 1);
    plan(&mut m, &c, &b, 2);
    // Garbage from a program: a's parent is its own grandchild, then itself; c, with no
    // children, names itself too.
    plan(&mut m, &a, &c, 3);
    plan(&mut m, &a, &a, 4);
    plan(&mut m, &c, &c, 5);
    let at = |u: &Urn| m.index_of(u).unwrap();
    assert_eq!(m.resource(at(&a)).parent, None, "a stays a root");
    assert_eq!(m.roots().collect::<Vec<_>>(), [at(&a)]);
    assert_eq!(m.resource(at(&c)).parent, Some(at(&b)));
    assert!(m.resource(at(&c)).children.is_empty());
}

fn run(m: &mut Model, chain: u64, op: StepOp, u: &Urn) {
    m.apply(&EngineEvent::StepStarted {
        chain,
        op,
        urn: u.clone(),
        worker: 0,
    });
    m.apply(&EngineEvent::StepFinished {
        chain,
        op,
        urn: u.clone(),
        id: None,
        outputs: PropertyMap::new(),
        duration: Duration::from_millis(10),
    });
}

fn plan(m: &mut Model, chain: u64, steps: &[(StepOp, &Urn)]) {
    for (op, u) in steps {
        m.apply(&EngineEvent::StepPlanned(Box::new(step_info(
            *op, u, None, chain,
        ))));
    }
}

fn live() -> Model {
    started(false)
}

/// An update's model once its prelude arrived: a preview's or the live run's.
fn started(preview: bool) -> Model {
    let mut m = Model::new();
    m.apply(&EngineEvent::Prelude {
        operation: Operation::Update,
        preview,
        stack: "dev".into(),
        project: "myproj".into(),
        parallel: 4,
        parallel_diff: false,
    });
    m
}

fn cascade(root: &Urn, dependent: &Urn) -> EngineEvent {
    EngineEvent::PendingReplacement {
        cascade: 1,
        chain: 1,
        root: root.clone(),
        members: vec![
            CascadeMember {
                urn: root.clone(),
                type_: root.type_().into(),
                reason: crate::engine::run::events::CascadeReason::Root {
                    keys: vec!["engine".into()],
                },
            },
            CascadeMember {
                urn: dependent.clone(),
                type_: dependent.type_().into(),
                reason: crate::engine::run::events::CascadeReason::Input {
                    inputs: vec!["dbHost".into()],
                    on: root.clone(),
                    keys: vec!["dbHost".into()],
                },
            },
        ],
    }
}

#[test]
fn a_dbr_row_follows_its_physical_steps_and_counts_only_when_recreated() {
    use crate::views::resources::status_text;
    let mut m = live();
    let db = urn("sim:index:Database", "db");
    let app = urn("sim:index:Server", "app");
    plan(
        &mut m,
        1,
        &[
            (StepOp::DeleteReplaced, &app),
            (StepOp::DeleteReplaced, &db),
            (StepOp::Replace, &db),
            (StepOp::CreateReplacement, &db),
        ],
    );
    m.apply(&cascade(&db, &app));
    m.apply(&EngineEvent::Decision {
        cascade: 1,
        approved: true,
        by: Decider::Operator("alice@host".into()),
        op: StepOp::Replace,
        urn: urn("sim:index:Database", "db"),
    });
    let text = |m: &Model, u: &Urn| status_text(m.get(u).unwrap(), m);
    run(&mut m, 1, StepOp::DeleteReplaced, &app);
    assert_eq!(text(&m, &app), "deleted, waiting for db");
    run(&mut m, 1, StepOp::DeleteReplaced, &db);
    run(&mut m, 1, StepOp::Replace, &db);
    assert_eq!(text(&m, &db), "deleted, replacement next");
    assert_eq!(m.counts.done(StepOp::Replace), 0, "nothing is replaced yet");
    m.apply(&EngineEvent::StepStarted {
        chain: 1,
        op: StepOp::CreateReplacement,
        urn: db.clone(),
        worker: 0,
    });
    assert_eq!(text(&m, &db), "creating replacement…");
    m.apply(&EngineEvent::StepFinished {
        chain: 1,
        op: StepOp::CreateReplacement,
        urn: db.clone(),
        id: None,
        outputs: PropertyMap::new(),
        duration: Duration::ZERO,
    });
    assert_eq!(text(&m, &db), "replaced");
    assert_eq!(m.counts.done(StepOp::Replace), 1);
    assert_eq!(text(&m, &app), "deleted, replacement next");
    plan(
        &mut m,
        2,
        &[(StepOp::Replace, &app), (StepOp::CreateReplacement, &app)],
    );
    run(&mut m, 2, StepOp::Replace, &app);
    assert_eq!(text(&m, &app), "deleted, replacement next");
    run(&mut m, 2, StepOp::CreateReplacement, &app);
    assert_eq!(text(&m, &app), "replaced");
    assert_eq!(m.counts.done(StepOp::Replace), 2);
}

#[test]
fn a_cancel_or_a_failure_leaves_nothing_waiting_and_stopped_chains_are_skipped() {
    for outcome in [
        Outcome::Cancelled,
        Outcome::Failed(crate::engine::RunFailure::new(
            crate::engine::FailureCause::Step,
            "update of x failed",
        )),
    ] {
        let mut m = sample_model();
        if outcome == Outcome::Cancelled {
            m.apply(&EngineEvent::CancelRequested { terminate: false });
            assert_eq!(m.approvals.undecided(), 0);
        }
        m.apply(&EngineEvent::ChainFinished {
            chain: 8,
            ok: false,
        });
        m.apply(&EngineEvent::Summary {
            counts: BTreeMap::new(),
            declined: 0,
            duration: Duration::from_secs(4),
            outcome: outcome.clone(),
            preview: false,
            policy_packs: Default::default(),
        });
        assert_eq!(m.approvals.undecided(), 0, "{outcome:?}");
        let db = m.get(&urn("sim:index:Database", "db")).unwrap();
        assert_eq!(db.status, Status::Skipped, "{outcome:?}");
        assert_eq!(m.chains.get(7).unwrap().state, ChainState::Skipped);
        assert_eq!(
            m.chains.get(8).unwrap().state,
            ChainState::Skipped,
            "stopped from outside, not failed"
        );
        assert_eq!(m.chains.get(6).unwrap().state, ChainState::Failed);
        assert!(m.approvals.all()[0].abandoned);
    }
}

#[test]
fn the_run_leaves_paused_time_out_and_a_running_step_counts_wall_time() {
    let mut m = live();
    let u = urn("sim:index:Server", "a");
    plan(&mut m, 1, &[(StepOp::Create, &u)]);
    m.apply(&EngineEvent::ChainStarted {
        chain: 1,
        worker: 0,
    });
    m.apply(&EngineEvent::StepStarted {
        chain: 1,
        op: StepOp::Create,
        urn: u.clone(),
        worker: 0,
    });
    m.set_now(Duration::from_secs(1));
    m.apply(&EngineEvent::Paused);
    m.set_now(Duration::from_secs(5));
    assert_eq!(m.elapsed(), Duration::from_secs(1));
    m.apply(&EngineEvent::Resumed);
    m.set_now(Duration::from_secs(6));
    assert_eq!(m.elapsed(), Duration::from_secs(2));
    let six = Some(Duration::from_secs(6));
    let now = m.clock.now();
    assert_eq!(m.chains.get(1).unwrap().elapsed(now), six);
    assert_eq!(m.get(&u).unwrap().elapsed(now), six);
    assert_eq!(m.clock.paused_time(), Duration::from_secs(4));
    let log: Vec<&str> = m.log.entries().iter().map(|e| e.message.as_str()).collect();
    assert!(log.iter().any(|l| l.starts_with("paused by the operator")));
    assert!(log.contains(&"resumed by the operator"));
}

#[test]
fn a_pause_or_resume_is_credited_to_its_breakpoint_or_its_watcher_not_the_operator() {
    let mut m = Model::new();
    let urn = sample_urn("sim:index:Resource", "db");
    m.apply(&EngineEvent::Breakpoint {
        op: StepOp::Update,
        urn,
    });
    m.apply(&EngineEvent::Paused);
    m.apply(&EngineEvent::Resumed);
    m.apply(&EngineEvent::Diagnostic {
        urn: None,
        severity: Severity::Info,
        message: "deployment paused by alice@laptop".into(),
        ephemeral: false,
    });
    m.apply(&EngineEvent::Paused);
    m.apply(&EngineEvent::Diagnostic {
        urn: None,
        severity: Severity::Info,
        message: "deployment resumed by alice@laptop".into(),
        ephemeral: false,
    });
    m.apply(&EngineEvent::Resumed);
    let log: Vec<&str> = m.log.entries().iter().map(|e| e.message.as_str()).collect();
    assert!(log.contains(&"resumed by alice@laptop"), "{log:?}");
    assert_eq!(
        log.iter()
            .filter(|l| **l == "resumed by the operator")
            .count(),
        1,
        "only the breakpoint's resume is the operator's: {log:?}"
    );
    assert!(
        log.contains(
            &"paused at the breakpoint before db: running steps finish, no new step starts"
        ),
        "{log:?}"
    );
    assert!(
        log.contains(&"paused by alice@laptop: running steps finish, no new step starts"),
        "{log:?}"
    );
    assert!(
        !log.iter().any(|l| l.starts_with("paused by the operator")),
        "{log:?}"
    );
}

#[test]
fn a_plain_create_keeps_a_small_row_and_an_update_keeps_its_changes() {
    // A million rows of a preview: the diff fields are boxed apart (456 bytes before), the
    // type and the name are read from the URN, and texts are boxed (344 before).
    assert!(std::mem::size_of::<Resource>() <= 288);
    let mut m = live();
    let vpc = urn("sim:index:Vpc", "vpc");
    let sub = urn("sim:index:Subnet", "sub");
    plan(&mut m, 1, &[(StepOp::Create, &vpc)]);
    assert!(m.get(&vpc).unwrap().changes.is_none());
    let mut info = step_info(StepOp::Update, &sub, None, 2);
    info.diffs = vec!["cidr".into()];
    info.hide_diffs = vec!["tags".into()];
    info.old_inputs = Some(PropertyMap::new());
    m.apply(&EngineEvent::StepPlanned(Box::new(info.clone())));
    let changes = m.get(&sub).unwrap().changes();
    assert_eq!(changes.diffs, ["cidr"]);
    assert_eq!(changes.hide_diffs, ["tags"]);
    assert!(changes.old_inputs.is_some());
    info.hide_diffs.clear();
    m.apply(&EngineEvent::StepPlanned(Box::new(info)));
    assert!(m.get(&sub).unwrap().changes().hide_diffs.is_empty());
}

#[test]
fn chains_are_found_whatever_order_their_ids_arrive_in() {
    let mut m = live();
    let urns: Vec<Urn> = (0..6)
        .map(|i| urn("sim:index:Vpc", &format!("v{i}")))
        .collect();
    // 1 and 2 in the engine's order, then 5 before 3 and 4, and an id that fits no slot.
    let ids = [1, 2, 5, 3, 4, u64::MAX];
    for (id, u) in ids.iter().zip(&urns) {
        m.apply(&EngineEvent::ChainQueued {
            chain: *id,
            steps: [(StepOp::Create, u.clone())].into(),
        });
    }
    for (id, u) in ids.iter().zip(&urns) {
        let chain = m.chains.get(*id).expect("found");
        assert_eq!((chain.id, &chain.steps[0].1), (*id, u));
        run(&mut m, *id, StepOp::Create, u);
        assert_eq!(m.get(u).unwrap().status, Status::Done, "chain {id}");
    }
    assert!(m.chains.get(6).is_none() && m.chains.get(0).is_none());
    assert_eq!(m.chains.all().len(), ids.len());
}

#[test]
fn counts_leave_out_default_providers() {
    let mut m = live();
    let provider = Urn::new("dev", "myproj", None, "pulumi:providers:sim", "default");
    let vpc = urn("sim:index:Vpc", "vpc");
    let sub = urn("sim:index:Subnet", "sub");
    plan(
        &mut m,
        1,
        &[(StepOp::Create, &provider), (StepOp::Create, &vpc)],
    );
    let mut info = step_info(StepOp::Create, &sub, None, 2);
    info.dependencies = [vpc.clone()].into();
    m.apply(&EngineEvent::StepPlanned(Box::new(info)));
    assert_eq!(m.counts.planned(StepOp::Create), 2, "as `+ 2 to create`");
    run(&mut m, 1, StepOp::Create, &provider);
    assert_eq!(m.counts.done(StepOp::Create), 0);
}

#[test]
fn dependency_rows_follow_dependencies_that_arrive_later_or_change() {
    let mut m = live();
    let vpc = urn("sim:index:Vpc", "vpc");
    let db = urn("sim:index:Database", "db");
    let sub = urn("sim:index:Subnet", "sub");
    let mut info = step_info(StepOp::Create, &sub, None, 1);
    info.dependencies = [vpc.clone(), db.clone()].into();
    m.apply(&EngineEvent::StepPlanned(Box::new(info.clone())));
    let row = |m: &Model, u: &Urn| m.index_of(u).unwrap();
    let deps = |m: &Model| m.graph().dependency_rows(row(m, &sub)).collect::<Vec<_>>();
    assert!(deps(&m).is_empty());
    plan(&mut m, 2, &[(StepOp::Create, &vpc)]);
    assert_eq!(deps(&m), [row(&m, &vpc)]);
    // The same list again changes nothing; a new one is new structure.
    let version = m.structure_version();
    m.apply(&EngineEvent::StepPlanned(Box::new(info.clone())));
    assert_eq!(m.structure_version(), version);
    info.dependencies = [vpc.clone()].into();
    m.apply(&EngineEvent::StepPlanned(Box::new(info)));
    assert!(m.structure_version() > version);
    // `db` was dropped before it arrived: it is no dependency when it does.
    plan(&mut m, 3, &[(StepOp::Create, &db)]);
    assert_eq!(deps(&m), [row(&m, &vpc)]);
}

#[test]
fn declined_dependents_are_no_longer_replacements() {
    let mut m = live();
    let db = urn("sim:index:Database", "db");
    let app = urn("sim:index:Server", "app");
    plan(&mut m, 1, &[(StepOp::DeleteReplaced, &app)]);
    m.apply(&cascade(&db, &app));
    m.apply(&EngineEvent::Decision {
        cascade: 1,
        approved: false,
        by: Decider::Operator("alice@host".into()),
        op: StepOp::Replace,
        urn: urn("sim:index:Database", "db"),
    });
    let r = m.get(&app).unwrap();
    assert_eq!(r.op, Some(StepOp::Same));
    assert!(r.changes().replace_keys.is_empty());
    assert_eq!(r.status, Status::Declined);
    assert!(
        m.log
            .entries()
            .last()
            .unwrap()
            .message
            .contains("db and 1 dependent declined by operator")
    );
}

#[test]
fn a_preview_records_what_would_run_and_waits_for_nobody() {
    let mut m = Model::new();
    m.apply(&EngineEvent::Prelude {
        operation: Operation::Preview,
        preview: true,
        stack: "dev".into(),
        project: "myproj".into(),
        parallel: 4,
        parallel_diff: false,
    });
    let db = urn("sim:index:Database", "db");
    let app = urn("sim:index:Server", "app");
    plan(&mut m, 1, &[(StepOp::Create, &app)]);
    m.apply(&cascade(&db, &app));
    assert_eq!(m.approvals.undecided(), 0);
    assert!(m.approvals.all()[0].planned);
    assert_ne!(m.run_state(), RunState::AwaitingApproval);
    run(&mut m, 1, StepOp::Create, &app);
    let history: Vec<String> = m
        .get(&app)
        .unwrap()
        .history
        .iter()
        .map(|h| h.text().into_owned())
        .collect();
    assert!(
        history
            .iter()
            .any(|h| h == "would create (preview: nothing ran)"),
        "{history:?}"
    );
    assert!(!history.iter().any(|h| h.contains("worker")), "{history:?}");
}

#[test]
fn an_apply_counts_its_progress_against_the_preview_and_says_when_it_runs_more() {
    let (a, b, c) = (
        urn("sim:x:R", "a"),
        urn("sim:x:R", "b"),
        urn("sim:x:R", "c"),
    );
    let mut preview = started(true);
    plan(
        &mut preview,
        1,
        &[(StepOp::Create, &a), (StepOp::Create, &b)],
    );
    assert_eq!(preview.counts.previewed_steps(), 2);

    let mut m = live();
    m.expect_steps(Some(preview.counts.previewed_steps()));
    plan(&mut m, 1, &[(StepOp::Create, &a)]);
    assert_eq!(
        m.counts.progress(),
        (0, 2),
        "the total is the preview's from the start"
    );
    assert_eq!(m.counts.beyond_preview(), 0);
    plan(&mut m, 2, &[(StepOp::Create, &b), (StepOp::Create, &c)]);
    assert_eq!(m.counts.progress(), (0, 3));
    assert_eq!(m.counts.beyond_preview(), 1);
}

#[test]
fn a_gate_is_logged_as_waiting_only_when_nothing_decided_it_at_once() {
    let (db, app) = (
        urn("sim:index:Database", "db"),
        urn("sim:index:Service", "app"),
    );
    let waits = |m: &Model| {
        m.log
            .entries()
            .iter()
            .filter(|e| e.message.starts_with("waiting for approval: "))
            .map(|e| e.message.clone())
            .collect::<Vec<_>>()
    };
    let mut asked = live();
    asked.apply(&cascade(&db, &app));
    asked.log_new_waits(|_| false);
    asked.log_new_waits(|_| false);
    assert_eq!(
        waits(&asked),
        vec![format!("waiting for approval: {db} (replacements)")]
    );
    let mut by_policy = live();
    by_policy.apply(&cascade(&db, &app));
    by_policy.apply(&EngineEvent::Decision {
        cascade: 1,
        approved: true,
        by: Decider::Policy,
        op: StepOp::Replace,
        urn: db.clone(),
    });
    by_policy.log_new_waits(|_| false);
    assert!(waits(&by_policy).is_empty());
}

#[test]
fn events_replayed_to_a_late_watcher_count_from_when_the_run_saw_them() {
    let mut m = Model::new();
    let u = urn("sim:index:Server", "a");
    let at = |s| Some(Duration::from_secs(s));
    m.apply_at(
        &EngineEvent::Prelude {
            operation: Operation::Update,
            preview: false,
            stack: "dev".into(),
            project: "myproj".into(),
            parallel: 4,
            parallel_diff: false,
        },
        at(0),
    );
    m.apply_at(
        &EngineEvent::StepStarted {
            chain: 1,
            op: StepOp::Create,
            urn: u.clone(),
            worker: 0,
        },
        at(2),
    );
    m.apply_at(&EngineEvent::Paused, at(3));
    // The watcher attaches at 10s and catches up at once.
    m.set_now(Duration::from_secs(10));
    m.apply_at(&EngineEvent::Resumed, at(5));
    assert_eq!(m.clock.paused_time(), Duration::from_secs(2));
    assert_eq!(m.elapsed(), Duration::from_secs(8));
    assert_eq!(
        m.get(&u).unwrap().elapsed(m.clock.now()),
        Some(Duration::from_secs(8))
    );
    let paused = m
        .log
        .entries()
        .iter()
        .find(|e| e.message.starts_with("paused"));
    assert_eq!(paused.map(|e| e.at), at(3));
}

#[test]
fn a_cascade_declined_in_the_preview_keeps_each_of_its_rows_once() {
    // The engine lists a DBR cascade's root among its members too: counted once, not twice.
    let mut m = started(true);
    let db = urn("sim:index:Database", "db");
    let app = urn("sim:index:Server", "app");
    plan(
        &mut m,
        1,
        &[(StepOp::Replace, &db), (StepOp::Replace, &app)],
    );
    m.apply(&cascade(&db, &app));
    let mut presets = crate::app::preset::Presets::default();
    presets.decide(m.approvals.all().first().expect("the cascade"), false);
    assert_eq!(presets.kept(&m, StepOp::Replace), 2);
}

#[test]
fn a_program_waiting_for_a_debugger_says_where_in_the_log() {
    let mut m = live();
    m.apply(&EngineEvent::StartDebugging {
        config: serde_json::Map::new(),
        message: "debugpy on 127.0.0.1:58791".into(),
    });
    let log: Vec<&str> = m.log.entries().iter().map(|e| e.message.as_str()).collect();
    assert!(
        log.contains(&"Waiting for debugger to attach (debugpy on 127.0.0.1:58791)..."),
        "{log:?}"
    );
}
