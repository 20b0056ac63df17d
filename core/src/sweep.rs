//! An admin operation across a whole source, one page of entities per request: the requeue
//! of `POST /admin/requeue/{source}` and the source-wide backfill of
//! `POST /admin/backfill/{source}/{destination}` without `entity`.
//!
//! The source's feed object names the candidate entities, in key order after a cursor
//! ([`Candidates`]); each one's own object then does the work on its own rows, exactly,
//! and answers a [`Tally`]. [`Sweep`] runs one page as a sequence the Worker carries out
//! one call per command: it reads at most `limit + 1` candidates (the one more only says
//! whether there is a next page), calls at most `limit` objects, and answers the sums and
//! the cursor of the next page. So one request makes at most `limit + 1` object calls
//! ([`MAX_PAGE`] + 1), whatever the source holds; a client loops over the pages.

pub use crate::page::{sweep_cursor as cursor, PageAsk, DEFAULT_PAGE, MAX_PAGE};
use crate::percent::{encode_component, query_param};
use crate::time::UnixSeconds;

/// What each entity's object answers, summed over a page.
pub trait Tally: Default {
    /// Adds `other` to `self`.
    fn add(&mut self, other: Self);
}

/// Which entities of a source an operation visits: the feed object's query.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Candidates {
    /// Entities that may hold dead letters: those in the feed's dead-letter list (of
    /// `destination`, dead within the range), and those whose last outbox report counted
    /// dead rows (of `destination`).
    Dead {
        /// Only this destination's; `None`: any.
        destination: Option<String>,
        /// Died at or after.
        since: Option<UnixSeconds>,
        /// Died at or before.
        until: Option<UnixSeconds>,
    },
    /// Entities the feed was told of an event about at or after `since`.
    Recorded {
        /// The first instant.
        since: UnixSeconds,
    },
}

/// A page of [`Candidates`]: those after `after` in key order, `limit` at most.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CandidateQuery {
    /// Which.
    pub kind: Candidates,
    /// After this entity key; `None`: from the first.
    pub after: Option<String>,
    /// How many to read.
    pub limit: u32,
}

impl CandidateQuery {
    /// The feed object's query string, read back by [`CandidateQuery::parse`].
    #[must_use]
    pub fn to_query(&self) -> String {
        let mut q = format!("limit={}", self.limit);
        let mut add = |k: &str, v: &str| q.push_str(&format!("&{k}={}", encode_component(v)));
        match &self.kind {
            Candidates::Dead {
                destination,
                since,
                until,
            } => {
                add("kind", "dead");
                for (k, v) in [("since", since), ("until", until)] {
                    if let Some(v) = v {
                        add(k, &v.0.to_string());
                    }
                }
                if let Some(d) = destination {
                    add("destination", d);
                }
            }
            Candidates::Recorded { since } => {
                add("kind", "recorded");
                add("since", &since.0.to_string());
            }
        }
        if let Some(a) = &self.after {
            add("after", a);
        }
        q
    }

    /// Reads back what [`CandidateQuery::to_query`] wrote; `None` for anything else.
    #[must_use]
    pub fn parse(query: &str) -> Option<CandidateQuery> {
        let get = |k: &str| query_param(query, k).transpose().ok().flatten();
        let time = |k: &str| match get(k) {
            Some(v) => v.parse().ok().map(|s| Some(UnixSeconds(s))),
            None => Some(None),
        };
        let kind = match get("kind")?.as_str() {
            "dead" => Candidates::Dead {
                destination: get("destination"),
                since: time("since")?,
                until: time("until")?,
            },
            "recorded" => Candidates::Recorded {
                since: time("since")??,
            },
            _ => return None,
        };
        Some(CandidateQuery {
            kind,
            after: get("after"),
            limit: get("limit")?.parse().ok()?,
        })
    }
}

/// An entity whose object did not do its part, and what it answered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failed {
    /// The entity.
    pub entity: String,
    /// Its object's status (0: no answer, or one that did not read).
    pub status: u16,
    /// Why, as it said.
    pub detail: String,
}

/// What a page came to.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Swept<T> {
    /// Entities whose objects were called.
    pub entities: usize,
    /// Their answers, summed.
    pub totals: T,
    /// Those that failed, not in the sums: the operation may be run again for them.
    pub failed: Vec<Failed>,
    /// The cursor of the next page; `None`: this was the last.
    pub next: Option<String>,
}

/// What the Worker does next for a page.
#[must_use]
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SweepCommand<T> {
    /// Ask the feed for candidates; then [`SweepInput::Page`].
    Read(CandidateQuery),
    /// Call this entity's object; then [`SweepInput::Called`].
    Call(String),
    /// Answer: the end.
    Answer(Swept<T>),
}

/// What a sweep command came to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SweepInput<T> {
    /// The candidates read, in key order.
    Page(Vec<String>),
    /// What the last called object answered.
    Called(Result<T, Failed>),
}

/// One page of a sweep.
#[derive(Debug)]
pub struct Sweep<T> {
    limit: usize,
    todo: Vec<String>,
    done: usize,
    more: bool,
    answer: Swept<T>,
}

impl<T: Tally> Sweep<T> {
    /// The page `ask` of the entities `kind` names, and its first command.
    pub fn start(kind: Candidates, ask: PageAsk) -> (Sweep<T>, SweepCommand<T>) {
        let limit = match ask.limit {
            0 => DEFAULT_PAGE,
            n => n.min(MAX_PAGE),
        };
        let sweep = Sweep {
            limit: limit as usize,
            todo: Vec::new(),
            done: 0,
            more: false,
            answer: Swept::default(),
        };
        let read = CandidateQuery {
            kind,
            after: ask.after,
            limit: limit + 1,
        };
        (sweep, SweepCommand::Read(read))
    }

    fn next(&mut self) -> SweepCommand<T> {
        match self.todo.get(self.done) {
            Some(entity) => SweepCommand::Call(entity.clone()),
            None => {
                let mut answer = std::mem::take(&mut self.answer);
                answer.entities = self.done;
                answer.next = self.todo.last().filter(|_| self.more).map(|k| cursor(k));
                SweepCommand::Answer(answer)
            }
        }
    }

    /// What follows `input`.
    pub fn handle(&mut self, input: SweepInput<T>) -> SweepCommand<T> {
        match input {
            SweepInput::Page(mut entities) => {
                // A feed that does not keep its order or its bound is not trusted with them.
                entities.sort();
                entities.dedup();
                self.more = entities.len() > self.limit;
                entities.truncate(self.limit);
                self.todo = entities;
            }
            SweepInput::Called(result) => {
                match result {
                    Ok(tally) => self.answer.totals.add(tally),
                    Err(failed) => self.answer.failed.push(failed),
                }
                self.done += 1;
            }
        }
        self.next()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, Default, PartialEq, Eq)]
    struct Count(usize);

    impl Tally for Count {
        fn add(&mut self, other: Count) {
            self.0 += other.0;
        }
    }

    fn recorded() -> Candidates {
        Candidates::Recorded {
            since: UnixSeconds(5),
        }
    }

    /// Runs a page over `feed` (the feed's keys, in any order), each object answering
    /// its key's length or failing for keys starting with `x`; returns the answer and
    /// the objects called.
    fn run(feed: &[&str], ask: PageAsk) -> (Swept<Count>, Vec<String>) {
        let (mut sweep, mut command) = Sweep::<Count>::start(recorded(), ask);
        let mut called = Vec::new();
        loop {
            command = match command {
                SweepCommand::Read(q) => {
                    let mut keys: Vec<String> = feed
                        .iter()
                        .filter(|k| q.after.as_deref().is_none_or(|a| **k > a))
                        .map(|k| (*k).to_owned())
                        .collect();
                    keys.sort();
                    keys.truncate(q.limit as usize);
                    sweep.handle(SweepInput::Page(keys))
                }
                SweepCommand::Call(entity) => {
                    called.push(entity.clone());
                    let result = match entity.starts_with('x') {
                        true => Err(Failed {
                            entity: entity.clone(),
                            status: 409,
                            detail: "no".into(),
                        }),
                        false => Ok(Count(entity.len())),
                    };
                    sweep.handle(SweepInput::Called(result))
                }
                SweepCommand::Answer(a) => return (a, called),
            }
        }
    }

    #[test]
    fn pages_call_each_entity_once_in_key_order_and_at_most_limit_per_page() {
        let feed = ["c", "a", "xb", "dd", "e"];
        let mut after = None;
        let mut all = Vec::new();
        let mut pages = Vec::new();
        loop {
            let (page, called) = run(&feed, PageAsk { after, limit: 2 });
            assert!(called.len() <= 2);
            all.extend(called);
            pages.push((page.entities, page.totals.0, page.failed.len()));
            match page.next {
                Some(c) => after = PageAsk::parse(&format!("cursor={c}")).unwrap().after,
                None => break,
            }
        }
        assert_eq!(all, ["a", "c", "dd", "e", "xb"]);
        // a+c; dd+e; xb failed and is not summed; the last page has no next.
        assert_eq!(pages, [(2, 2, 0), (2, 3, 0), (1, 0, 1)]);
    }

    proptest::proptest! {
        /// Whatever the keys and the page size, looping over the pages calls every key
        /// once, in byte order, never more than `limit` a page.
        #[test]
        fn looping_over_pages_calls_every_key_once_in_order(
            keys in proptest::collection::btree_set("[a-c/%é]{1,4}", 0..40),
            limit in 1u32..8,
        ) {
            let feed: Vec<&str> = keys.iter().map(String::as_str).collect();
            let mut after = None;
            let mut all = Vec::new();
            loop {
                let (page, called) = run(&feed, PageAsk { after, limit });
                proptest::prop_assert!(called.len() <= limit as usize);
                all.extend(called);
                match page.next {
                    Some(c) => after = PageAsk::parse(&format!("cursor={c}")).unwrap().after,
                    None => break,
                }
            }
            let mut expected: Vec<&str> = feed.clone();
            expected.sort_unstable();
            proptest::prop_assert_eq!(all, expected);
        }
    }

    #[test]
    fn a_page_that_fills_its_limit_exactly_has_no_next() {
        let (page, _) = run(
            &["a", "b"],
            PageAsk {
                after: None,
                limit: 2,
            },
        );
        assert_eq!(page.next, None);
        let (page, _) = run(&[], PageAsk::default());
        assert_eq!((page.entities, page.next), (0, None));
    }

    #[test]
    fn the_feed_is_asked_for_one_more_than_the_page_and_never_more_than_the_maximum() {
        let ask = PageAsk {
            after: None,
            limit: 1_000,
        };
        let (_, first) = Sweep::<Count>::start(recorded(), ask);
        let SweepCommand::Read(q) = first else {
            panic!("{first:?}")
        };
        assert_eq!(q.limit, MAX_PAGE + 1);
        // A feed that answers too many is cut to the page.
        let (mut sweep, _) = Sweep::<Count>::start(recorded(), PageAsk::default());
        let many: Vec<String> = (0..500).map(|i| format!("e{i:03}")).collect();
        let mut calls = 0;
        let mut command = sweep.handle(SweepInput::Page(many));
        while let SweepCommand::Call(_) = command {
            calls += 1;
            command = sweep.handle(SweepInput::Called(Ok(Count(1))));
        }
        assert_eq!(calls, DEFAULT_PAGE as usize);
        let SweepCommand::Answer(a) = command else {
            panic!("{command:?}")
        };
        assert_eq!(a.next, Some(cursor("e024")));
    }

    #[test]
    fn candidate_queries_round_trip_whatever_their_keys_hold() {
        for q in [
            CandidateQuery {
                kind: Candidates::Dead {
                    destination: Some("bill ing&x=1".into()),
                    since: Some(UnixSeconds(3)),
                    until: None,
                },
                after: Some("cus/1?&=".into()),
                limit: 26,
            },
            CandidateQuery {
                kind: Candidates::Dead {
                    destination: None,
                    since: None,
                    until: Some(UnixSeconds(9)),
                },
                after: None,
                limit: 1,
            },
            CandidateQuery {
                kind: recorded(),
                after: None,
                limit: 101,
            },
        ] {
            assert_eq!(CandidateQuery::parse(&q.to_query()), Some(q));
        }
        assert_eq!(CandidateQuery::parse("kind=other&limit=1"), None);
        assert_eq!(CandidateQuery::parse("kind=recorded&limit=1"), None);
    }
}
