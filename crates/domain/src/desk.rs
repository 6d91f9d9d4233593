//! A shop's desk: the owner and the members (店员) they add answer the shop's buyers together. A
//! thread with the shop (about one of its cars, or the shop itself) is with no one in particular
//! until a member claims it, answers it, or the owner assigns it; a member sees the threads that
//! are theirs or no one's, the owner sees them all. Every change of hands is kept with who made
//! it.

/// The most members one shop keeps at once.
pub const MAX_MEMBERS: usize = 20;

/// Members an owner may add in a day (each add may make an account for a new number: a shop
/// adding and removing without end would fill the user table).
pub const ADDS_PER_DAY: i64 = 40;

/// The longest name a member is shown by, in characters.
pub const MAX_NAME_CHARS: usize = 20;

/// Who acts on a thread of the shop.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Actor {
    /// The shop's owner (its account).
    Owner(i64),
    /// A member of the shop, by user id.
    Member(i64),
}

/// What they do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Move {
    /// Take a thread no one has (认领).
    Claim,
    /// Give one's thread back to no one (放弃); the owner takes any thread from whoever has it.
    Release,
    /// The owner hands a thread to a member, or to themself, or to no one (`None`).
    Assign(Option<i64>),
    /// Write in the thread: a member answering a thread no one has takes it.
    Reply,
}

/// Why a move was refused; `message` is what is said beside the buttons.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refused {
    /// Another member has the thread.
    Taken,
    /// A member gives back a thread that is not theirs.
    NotYours,
    /// A member tries what only the owner may.
    OwnerOnly,
    /// The owner assigns to someone who is not a member of the shop.
    NotMember,
}

impl Refused {
    /// The text shown beside the buttons.
    pub fn message(self) -> &'static str {
        match self {
            Refused::Taken => "这条咨询已由其他店员负责",
            Refused::NotYours => "这条咨询不由您负责",
            Refused::OwnerOnly => "只有店主可以分配咨询",
            Refused::NotMember => "只能分配给本店店员",
        }
    }
}

crate::stored_enum! {
    /// A change of hands as kept in the thread's log.
    pub enum Change {
        /// A member took a thread no one had.
        Claimed = "claimed" => "认领",
        /// A member answered a thread no one had, and so took it.
        Answered = "answered" => "回复并认领",
        /// Its holder gave it back, or the owner took it from them.
        Released = "released" => "转为未分配",
        /// The owner handed it to someone.
        Assigned = "assigned" => "分配",
        /// Its holder left the shop: back to no one.
        MemberRemoved = "member_removed" => "店员已移除，转为未分配",
    }
}

/// Who has a thread after `actor` makes `mv` while `holder` has it (`None`: no one), and the
/// change to keep (none when nothing changes hands); `is_member` says whether a user is a member
/// of the shop now. A member who acts is a member (the caller checked).
pub fn next(actor: Actor, mv: Move, holder: Option<i64>, is_member: impl Fn(i64) -> bool) -> Result<(Option<i64>, Option<Change>), Refused> {
    let same = |to: Option<i64>, change: Change| if to == holder { (to, None) } else { (to, Some(change)) };
    match (actor, mv) {
        (Actor::Member(m), Move::Claim) => match holder {
            None => Ok((Some(m), Some(Change::Claimed))),
            Some(h) if h == m => Ok((holder, None)),
            Some(_) => Err(Refused::Taken),
        },
        (Actor::Owner(o), Move::Claim) => Ok(same(Some(o), Change::Assigned)),
        (Actor::Member(m), Move::Release) if holder == Some(m) => Ok((None, Some(Change::Released))),
        (Actor::Member(_), Move::Release) => Err(Refused::NotYours),
        (Actor::Owner(_), Move::Release) => Ok(same(None, Change::Released)),
        (Actor::Member(_), Move::Assign(_)) => Err(Refused::OwnerOnly),
        (Actor::Owner(o), Move::Assign(to)) => match to {
            Some(u) if u != o && !is_member(u) => Err(Refused::NotMember),
            None => Ok(same(None, Change::Released)),
            Some(_) => Ok(same(to, Change::Assigned)),
        },
        (Actor::Member(m), Move::Reply) => match holder {
            None => Ok((Some(m), Some(Change::Answered))),
            Some(h) if h == m => Ok((holder, None)),
            Some(_) => Err(Refused::Taken),
        },
        (Actor::Owner(_), Move::Reply) => Ok((holder, None)),
    }
}

/// Whether `member` sees a thread `holder` has: theirs, or no one's.
pub fn member_sees(member: i64, holder: Option<i64>) -> bool {
    holder.is_none_or(|h| h == member)
}

/// A member's name as the owner typed it: trimmed, not empty, not too long.
pub fn parse_name(text: &str) -> Result<String, &'static str> {
    let name = text.trim();
    if name.is_empty() {
        return Err("请填写店员姓名");
    }
    if name.chars().count() > MAX_NAME_CHARS {
        return Err("姓名不能超过20个字");
    }
    Ok(name.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    const OWNER: i64 = 1;
    const A: i64 = 2;
    const B: i64 = 3;
    const STRANGER: i64 = 9;

    fn member(u: i64) -> bool {
        u == A || u == B
    }

    fn holders() -> [Option<i64>; 4] {
        [None, Some(OWNER), Some(A), Some(B)]
    }

    fn moves() -> Vec<Move> {
        let mut v = vec![Move::Claim, Move::Release, Move::Reply];
        v.extend([None, Some(OWNER), Some(A), Some(B), Some(STRANGER)].map(Move::Assign));
        v
    }

    #[test]
    fn every_move_from_every_holder_as_the_rules_say() {
        for holder in holders() {
            for mv in moves() {
                for actor in [Actor::Owner(OWNER), Actor::Member(A)] {
                    let got = next(actor, mv, holder, member);
                    let want = match (actor, mv, holder) {
                        (Actor::Member(_), Move::Claim | Move::Reply, None) => {
                            Ok((Some(A), Some(if mv == Move::Claim { Change::Claimed } else { Change::Answered })))
                        }
                        (Actor::Member(_), Move::Claim | Move::Reply, Some(A)) => Ok((Some(A), None)),
                        (Actor::Member(_), Move::Claim | Move::Reply, _) => Err(Refused::Taken),
                        (Actor::Member(_), Move::Release, Some(A)) => Ok((None, Some(Change::Released))),
                        (Actor::Member(_), Move::Release, _) => Err(Refused::NotYours),
                        (Actor::Member(_), Move::Assign(_), _) => Err(Refused::OwnerOnly),
                        (Actor::Owner(_), Move::Reply, h) => Ok((h, None)),
                        (Actor::Owner(_), Move::Claim, Some(OWNER)) => Ok((Some(OWNER), None)),
                        (Actor::Owner(_), Move::Claim, _) => Ok((Some(OWNER), Some(Change::Assigned))),
                        (Actor::Owner(_), Move::Release | Move::Assign(None), None) => Ok((None, None)),
                        (Actor::Owner(_), Move::Release | Move::Assign(None), _) => Ok((None, Some(Change::Released))),
                        (Actor::Owner(_), Move::Assign(Some(STRANGER)), _) => Err(Refused::NotMember),
                        (Actor::Owner(_), Move::Assign(to), h) if to == h => Ok((h, None)),
                        (Actor::Owner(_), Move::Assign(to), _) => Ok((to, Some(Change::Assigned))),
                    };
                    assert_eq!(got, want, "{actor:?} {mv:?} while {holder:?} has it");
                }
            }
        }
    }

    #[test]
    fn after_any_move_the_holder_is_no_one_the_owner_or_a_member() {
        for holder in holders() {
            for mv in moves() {
                for actor in [Actor::Owner(OWNER), Actor::Member(A), Actor::Member(B)] {
                    if let Ok((to, change)) = next(actor, mv, holder, member) {
                        assert!(to.is_none_or(|u| u == OWNER || member(u)), "{actor:?} {mv:?} gave it to {to:?}");
                        assert_eq!(change.is_some(), to != holder, "a change is kept exactly when hands change");
                    }
                }
            }
        }
    }

    #[test]
    fn a_member_sees_their_threads_and_no_ones() {
        assert!(member_sees(A, None));
        assert!(member_sees(A, Some(A)));
        assert!(!member_sees(A, Some(B)));
        assert!(!member_sees(A, Some(OWNER)));
    }

    #[test]
    fn a_name_is_trimmed_and_bounded() {
        assert_eq!(parse_name("  王磊 "), Ok("王磊".to_owned()));
        assert_eq!(parse_name("   "), Err("请填写店员姓名"));
        assert_eq!(parse_name(&"王".repeat(20)).map(|n| n.chars().count()), Ok(20));
        assert_eq!(parse_name(&"王".repeat(21)), Err("姓名不能超过20个字"));
    }
}
