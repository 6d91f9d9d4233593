//! A shop's desk proven over sequences against the real store: an owner, three people who join
//! and leave the shop's desk, and one buyer's thread with the shop. Random sequences of what they
//! do (join, leave, claim, give back, answer, the owner assigning to anyone or no one, two members
//! claiming at once) run through the store, beside a model that follows `domain::desk`; after
//! every step the thread is held by no one, the owner or a member of the shop now, exactly as the
//! model says; each person sees it exactly when the rules let them; and every change of hands is
//! in its log, the last one naming the holder. A failing sequence is shrunk.

use domain::desk::Move;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use store::{Added, Moved, Store, ThreadView};

use super::NOW;

/// Who may be assigned: no one, the owner, or one of the three.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum To {
    NoOne,
    Owner,
    Person(usize),
}

/// What happens next.
#[derive(Debug, Clone, Copy)]
enum Step {
    Join(usize),
    Leave(usize),
    Claim(usize),
    Release(usize),
    Answer(usize),
    OwnerAssigns(To),
    OwnerReleases,
    BothClaim(usize, usize),
}

fn step() -> impl Strategy<Value = Step> {
    let to = prop_oneof![Just(To::NoOne), Just(To::Owner), (0usize..3).prop_map(To::Person)];
    prop_oneof![
        3 => (0usize..3).prop_map(Step::Join),
        1 => (0usize..3).prop_map(Step::Leave),
        3 => (0usize..3).prop_map(Step::Claim),
        2 => (0usize..3).prop_map(Step::Release),
        2 => (0usize..3).prop_map(Step::Answer),
        2 => to.prop_map(Step::OwnerAssigns),
        1 => Just(Step::OwnerReleases),
        2 => (0usize..3, 0usize..3).prop_filter("two people", |(a, b)| a != b).prop_map(|(a, b)| Step::BothClaim(a, b)),
    ]
}

/// The desk as the rules say it is.
#[derive(Debug, Default)]
struct Model {
    joined: [bool; 3],
    holder: Option<i64>,
    changes: usize,
}

struct World {
    owner: i64,
    people: [i64; 3],
    thread: i64,
}

fn e(x: impl std::fmt::Display) -> String {
    x.to_string()
}

impl Model {
    /// What `user` making `mv` should do.
    fn expect(&self, w: &World, user: i64, mv: Move) -> Moved {
        let member = |u: i64| w.people.iter().zip(self.joined).any(|(p, j)| *p == u && j);
        let actor = if user == w.owner {
            domain::desk::Actor::Owner(user)
        } else if member(user) && domain::desk::member_sees(user, self.holder) {
            domain::desk::Actor::Member(user)
        } else {
            return Moved::NotFound;
        };
        match domain::desk::next(actor, mv, self.holder, member) {
            Ok((to, _)) => Moved::Holder(to),
            Err(r) => Moved::Refused(r),
        }
    }

    /// Takes what the store did; checks it is what the rules say.
    fn apply(&mut self, w: &World, user: i64, mv: Move, got: Moved) -> Result<(), String> {
        let want = self.expect(w, user, mv);
        if got != want {
            return Err(format!("{user} {mv:?}: store {got:?}, rules {want:?}"));
        }
        if let Moved::Holder(to) = got
            && to != self.holder
        {
            self.holder = to;
            self.changes += 1;
        }
        Ok(())
    }
}

async fn check(store: &Store, w: &World, m: &Model) -> Result<(), String> {
    let t = store.thread_by_id(w.thread).await.map_err(e)?.ok_or("the thread is gone")?;
    if t.holder_user_id != m.holder {
        return Err(format!("held by {:?}, the rules say {:?}", t.holder_user_id, m.holder));
    }
    let mut members: Vec<i64> = store.members(w.owner).await.map_err(e)?.iter().map(|x| x.user_id).collect();
    members.sort_unstable();
    let mut joined: Vec<i64> = w.people.iter().zip(m.joined).filter(|(_, j)| *j).map(|(p, _)| *p).collect();
    joined.sort_unstable();
    if members != joined {
        return Err(format!("members {members:?}, the rules say {joined:?}"));
    }
    if let Some(h) = t.holder_user_id
        && h != w.owner
        && !members.contains(&h)
    {
        return Err(format!("held by {h}, who is neither the owner nor a member"));
    }
    for (i, p) in w.people.into_iter().enumerate() {
        let sees = m.joined[i] && domain::desk::member_sees(p, m.holder);
        let seen = store.thread_for(w.thread, p).await.map_err(e)?;
        if seen.is_some() != sees || seen.as_ref().is_some_and(|(_, buyer)| *buyer) {
            return Err(format!("person {i} sees it: {}, the rules say {sees}", seen.is_some()));
        }
        let open = store.threads_of(p, ThreadView::Open, 10).await.map_err(e)?.iter().any(|l| l.thread.thread_id == w.thread);
        if open != (sees && m.holder.is_none()) {
            return Err(format!("person {i} lists it as no one's: {open}"));
        }
    }
    let desk = store.desk(w.thread).await.map_err(e)?.ok_or("no desk")?;
    if desk.log.len() != m.changes {
        return Err(format!("{} changes logged, {} made", desk.log.len(), m.changes));
    }
    if let Some(last) = desk.log.last()
        && last.holder_user_id != m.holder
    {
        return Err(format!("the log's last change gave it to {:?}, it is {:?}'s", last.holder_user_id, m.holder));
    }
    if desk.holder.map(|(h, _)| h) != m.holder {
        return Err("the desk names another holder".to_owned());
    }
    Ok(())
}

async fn run(store: &Store, w: &World, steps: &[Step]) -> Result<(), String> {
    store.execute_admin(&format!("delete from thread_desk_log where thread_id = {}", w.thread)).await.map_err(e)?;
    store.execute_admin(&format!("update message_thread set holder_user_id = null where thread_id = {}", w.thread)).await.map_err(e)?;
    store.execute_admin("delete from shop_member").await.map_err(e)?;
    let mut m = Model::default();
    for (n, s) in steps.iter().enumerate() {
        let at = NOW + 60 * n as i64;
        match *s {
            Step::Join(i) => {
                let got = store.add_member(w.owner, (&format!("1390000010{i}"), &format!("店员{i}")), at).await.map_err(e)?;
                let want = if m.joined[i] { Added::Already } else { Added::Added(w.people[i]) };
                if got != want {
                    return Err(format!("step {n} {s:?}: {got:?}, want {want:?}"));
                }
                m.joined[i] = true;
            }
            Step::Leave(i) => {
                let got = store.remove_member(w.owner, w.people[i], at).await.map_err(e)?;
                if got != m.joined[i] {
                    return Err(format!("step {n} {s:?}: removed {got}"));
                }
                if got && m.holder == Some(w.people[i]) {
                    m.holder = None;
                    m.changes += 1;
                }
                m.joined[i] = false;
            }
            Step::Claim(i) | Step::Release(i) => {
                let mv = if matches!(s, Step::Claim(_)) { Move::Claim } else { Move::Release };
                let got = store.desk_move(w.thread, w.people[i], mv, at).await.map_err(e)?;
                m.apply(w, w.people[i], mv, got).map_err(|x| format!("step {n}: {x}"))?;
            }
            Step::Answer(i) => {
                let want = m.expect(w, w.people[i], Move::Reply);
                let got = match store.seller_reply(w.thread, w.people[i], ("您好，车况可以到店看", ""), at).await.map_err(e)? {
                    Ok(_) => Moved::Holder(if m.holder.is_none() { Some(w.people[i]) } else { m.holder }),
                    Err(refused) => refused,
                };
                if got != want {
                    return Err(format!("step {n} {s:?}: store {got:?}, rules {want:?}"));
                }
                m.apply(w, w.people[i], Move::Reply, got).map_err(|x| format!("step {n}: {x}"))?;
            }
            Step::OwnerAssigns(to) => {
                let to = match to {
                    To::NoOne => None,
                    To::Owner => Some(w.owner),
                    To::Person(i) => Some(w.people[i]),
                };
                let got = store.desk_move(w.thread, w.owner, Move::Assign(to), at).await.map_err(e)?;
                m.apply(w, w.owner, Move::Assign(to), got).map_err(|x| format!("step {n}: {x}"))?;
            }
            Step::OwnerReleases => {
                let got = store.desk_move(w.thread, w.owner, Move::Release, at).await.map_err(e)?;
                m.apply(w, w.owner, Move::Release, got).map_err(|x| format!("step {n}: {x}"))?;
            }
            Step::BothClaim(a, b) => {
                let (pa, pb) = (w.people[a], w.people[b]);
                let (ga, gb) = tokio::join!(store.desk_move(w.thread, pa, Move::Claim, at), store.desk_move(w.thread, pb, Move::Claim, at));
                let (ga, gb) = (ga.map_err(e)?, gb.map_err(e)?);
                // Whichever came first is weighed first; the other is weighed after it.
                let mut first = Model { joined: m.joined, holder: m.holder, changes: m.changes };
                let a_first = first.apply(w, pa, Move::Claim, ga).is_ok() && first.apply(w, pb, Move::Claim, gb).is_ok();
                let mut other = Model { joined: m.joined, holder: m.holder, changes: m.changes };
                let b_first = other.apply(w, pb, Move::Claim, gb).is_ok() && other.apply(w, pa, Move::Claim, ga).is_ok();
                m = match (a_first, b_first) {
                    (true, _) => first,
                    (_, true) => other,
                    _ => return Err(format!("step {n} {s:?}: {ga:?} and {gb:?} fit no order")),
                };
            }
        }
        check(store, w, &m).await.map_err(|x| format!("after step {n} {s:?}: {x}"))?;
    }
    Ok(())
}

/// Runs `sequences` random sequences against `store` and fails with the shortest failing one.
pub fn prove(rt: &tokio::runtime::Runtime, store: &Store, sequences: u32) {
    let shop = rt.block_on(store.count_admin("select min(shop_id) from shop where owner_user_id is not null and status = 'open'")).unwrap();
    let owner = rt.block_on(store.shop_owner_id(shop)).unwrap().unwrap();
    let buyer = rt.block_on(store.sign_in_by_mobile("13900000199", NOW)).unwrap().user_id;
    let people = [0, 1, 2].map(|i| rt.block_on(store.sign_in_by_mobile(&format!("1390000010{i}"), NOW)).unwrap().user_id);
    let store::Asked::Thread(thread) = rt.block_on(store.ask_shop(shop, buyer, "周末能看车吗？", NOW)).unwrap() else { panic!("asked the shop") };
    let w = World { owner, people, thread };
    let mut runner = TestRunner::new(Config { cases: sequences, failure_persistence: None, max_shrink_iters: 1_000, ..Config::default() });
    let result = runner.run(&prop::collection::vec(step(), 1..20), |steps| rt.block_on(run(store, &w, &steps)).map_err(TestCaseError::fail));
    if let Err(e) = result {
        panic!("{e}");
    }
}
