//! A listing's lifecycle proven over sequences against the real store: random sequences of what
//! its seller (submit, edit with or without a change that needs review, 擦亮, confirm, sold, take
//! down, relist, delete), staff (approve, reject) and the system (expiry, an import's undo putting
//! a taken-down car back) do run through `Store::listing_action` and `Store::update_listing`,
//! and after every step the car's trail and status are checked: the trail is one chain ending in
//! the status; every step in it is one the rules allow; a car comes on sale only by staff's
//! approval, a confirmation of an expired car, or an undo putting back a car taken down from sale
//! with nothing done to it since, which the store allows exactly then. A failing sequence is
//! shrunk.

use domain::selling::{Action, Actor, ListingStatus as S};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use store::{ActionOutcome, ListingEvent, Store};

use super::NOW;

/// What happens next to the car.
#[derive(Debug, Clone, Copy)]
enum Step {
    /// The seller rewrites it: `true` with a change that sends a car on sale back to review.
    Edit(bool),
    Act(Actor, Action),
}

fn step() -> impl Strategy<Value = Step> {
    let seller = |a| Just(Step::Act(Actor::Seller, a));
    prop_oneof![
        2 => any::<bool>().prop_map(Step::Edit),
        2 => seller(Action::Submit),
        1 => seller(Action::Refresh),
        2 => seller(Action::Confirm),
        1 => seller(Action::MarkSold),
        3 => seller(Action::TakeDown),
        2 => seller(Action::Relist),
        1 => seller(Action::Delete),
        1 => seller(Action::Restore),
        4 => Just(Step::Act(Actor::Staff, Action::Approve)),
        1 => Just(Step::Act(Actor::Staff, Action::Reject)),
        2 => Just(Step::Act(Actor::System, Action::Expire)),
        3 => Just(Step::Act(Actor::System, Action::Restore)),
    ]
}

/// Whether the store may put the car back on sale by an undo now: the last thing its trail
/// records is its take-down from sale.
fn restorable(trail: &[ListingEvent]) -> bool {
    trail.last().is_some_and(|e| e.action == Action::TakeDown && e.from_status == Some(S::Online))
}

fn check(trail: &[ListingEvent], status: S) -> Result<(), String> {
    let mut at: Option<S> = None;
    for (i, e) in trail.iter().enumerate() {
        if i > 0 && e.from_status != at {
            return Err(format!("event {i} {e:?} does not start where the last ended ({at:?})"));
        }
        if at == Some(S::Deleted) {
            return Err(format!("event {i} {e:?} after the car was deleted"));
        }
        if i == 0 && e.from_status.is_none() {
            // The car made: submitted for review, or kept as a draft.
            if e.action != Action::Submit || !matches!(e.to_status, S::Pending | S::Draft) {
                return Err(format!("made as {e:?}"));
            }
        } else if e.action != Action::Edit {
            let from = e.from_status.ok_or_else(|| format!("event {i} {e:?} from nowhere"))?;
            if domain::selling::transition(from, e.action, e.actor_role) != Ok(e.to_status) {
                return Err(format!("event {i} {e:?} is not a step the rules allow"));
            }
        }
        if e.to_status == S::Online && e.from_status != Some(S::Online) {
            let fine = match e.action {
                Action::Approve => e.actor_role == Actor::Staff,
                Action::Confirm => e.from_status == Some(S::Expired),
                Action::Restore => e.actor_role == Actor::System && restorable(&trail[..i]),
                _ => false,
            };
            if !fine {
                return Err(format!("event {i} {e:?} put the car on sale without review"));
            }
        }
        at = Some(e.to_status);
    }
    if let Some(last) = at
        && last != status
    {
        return Err(format!("the trail ends in {last:?}, the car is {status:?}"));
    }
    Ok(())
}

async fn run(store: &Store, car: &store::ListingInput, staff: i64, steps: &[Step]) -> Result<(), String> {
    let e = |e: store::DbError| e.to_string();
    let id = match store.create_listing_once(None, car, &[], NOW).await.map_err(e)? {
        store::Created::New(id) => id,
        other => return Err(format!("no car made: {other:?}")),
    };
    let status = || async move { Ok::<_, String>(store.editable_listing(id, car.seller_user_id).await.map(|l| l.status).ok()) };
    for (n, s) in steps.iter().enumerate() {
        let at = NOW + 60 * n as i64;
        let trail = store.listing_events(id).await.map_err(e)?;
        let before = status().await?;
        match *s {
            Step::Edit(review) => {
                if before.is_none() {
                    continue;
                }
                let mut changed = car.clone();
                changed.description = format!("第{n}次修改");
                if review {
                    changed.price_yuan = car.price_yuan - 1_000 * (n as i64 + 1);
                }
                store.update_listing(id, &changed, &[], review, None, at).await.map_err(e)?;
            }
            Step::Act(actor, action) => {
                let by = if actor == Actor::Staff { staff } else { car.seller_user_id };
                let expected = before.map(|from| domain::selling::transition(from, action, actor));
                let outcome = match store.listing_action(id, by, actor, action, "", at).await {
                    Ok(o) => Some(o),
                    Err(store::DbError::NotFound) => None,
                    Err(other) => return Err(other.to_string()),
                };
                let done = matches!(outcome, Some(ActionOutcome::Done(_) | ActionOutcome::Deleted(_)));
                let allowed = matches!(expected, Some(Ok(_))) && (action != Action::Restore || restorable(&trail));
                // 擦亮 may be refused as too soon; everything else is done exactly when allowed.
                let too_soon = matches!(outcome, Some(ActionOutcome::TooSoon { .. }));
                if done != allowed && !too_soon {
                    return Err(format!("after step {n} {s:?}: {outcome:?}, the rules say {expected:?} (restorable: {})", restorable(&trail)));
                }
            }
        }
        let trail = store.listing_events(id).await.map_err(e)?;
        let now_status = status().await?;
        check(&trail, now_status.unwrap_or(S::Deleted)).map_err(|why| format!("after step {n} {s:?}: {why}"))?;
    }
    Ok(())
}

/// Runs `sequences` random sequences against `store` and fails with the shortest failing one.
pub fn prove(rt: &tokio::runtime::Runtime, store: &Store, sequences: u32) {
    let staff = rt.block_on(store.sign_in_by_mobile("13999990203", NOW)).unwrap().user_id;
    let car = rt.block_on(super::a_dealers_car(store, "状态机验证用车"));
    let mut runner = TestRunner::new(Config { cases: sequences, failure_persistence: None, max_shrink_iters: 1_000, ..Config::default() });
    let result = runner.run(&prop::collection::vec(step(), 1..24), |steps| rt.block_on(run(store, &car, staff, &steps)).map_err(TestCaseError::fail));
    if let Err(e) = result {
        panic!("{e}");
    }
}
