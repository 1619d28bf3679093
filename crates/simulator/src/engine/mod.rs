//! The discrete-event engine: an event queue over integer-nanosecond time.
//!
//! Events are ordered by (time, insertion sequence), so two events scheduled for the same instant
//! run in the order they were scheduled: the run is a pure function of the scenario and seed.
//!
//! [`LaneQueue`] is the simulator's queue. Besides single events it keeps *lanes*: FIFO
//! sequences of items whose times never decrease in the order they are scheduled — the packets
//! propagating along one link, which all take the link's fixed delay after their transmissions
//! end one after the other. A lane holds one entry in the heap (its earliest item), not one per
//! item, so the heap stays as small as the number of links and timers rather than the number of
//! packets in flight, and a lane's item is still popped in exactly its (time, sequence) place
//! among all events: the order is the one a single heap of every event would give. (An item
//! scheduled earlier than its lane's last one is still placed correctly, by a slower path.)
//!
//! The queue also defers removing a popped single event from the heap: the handler of an event
//! usually schedules another (the link's next transmission), which then takes the popped one's
//! place with one sift instead of a removal and an insertion.
//! [`EventQueue`] is the same queue without lanes (the emulator's).

pub mod rng;

use crate::model::Nanos;
use std::collections::VecDeque;

/// What the heap orders: time, then the sequence number given when scheduled, as one 128-bit
/// key (time in the high half), which compares without branches.
#[derive(Clone, Copy)]
struct Entry<K> {
    key: u128,
    kind: K,
}

#[inline(always)]
fn key(time: Nanos, sequence: u64) -> u128 {
    (u128::from(time) << 64) | u128::from(sequence)
}

impl<K> Entry<K> {
    #[inline(always)]
    fn new(time: Nanos, sequence: u64, kind: K) -> Self {
        Entry { key: key(time, sequence), kind }
    }

    #[inline(always)]
    fn time(&self) -> Nanos {
        (self.key >> 64) as Nanos
    }

    #[inline(always)]
    fn before(&self, other: &Self) -> bool {
        self.key < other.key
    }
}

/// A binary min-heap of entries (the standard library's is a max-heap over `Ord`; this one
/// compares the 128-bit keys directly and lets the queue overwrite its top).
struct Heap<K> {
    entries: Vec<Entry<K>>,
}

impl<K: Copy> Heap<K> {
    fn with_capacity(capacity: usize) -> Self {
        Heap { entries: Vec::with_capacity(capacity) }
    }

    #[inline]
    fn top(&self) -> Option<&Entry<K>> {
        self.entries.first()
    }

    #[inline]
    fn push(&mut self, entry: Entry<K>) {
        self.entries.push(entry);
        self.sift_up(self.entries.len() - 1, entry);
    }

    /// Move `entry`, which belongs at `i` or above, up to its place.
    #[inline]
    fn sift_up(&mut self, mut i: usize, entry: Entry<K>) {
        assert!(i < self.entries.len());
        let e = self.entries.as_mut_ptr();
        // SAFETY: `i < len` (checked), and `parent < i`.
        unsafe {
            while i > 0 {
                let parent = (i - 1) / 2;
                if !entry.before(&*e.add(parent)) {
                    break;
                }
                *e.add(i) = *e.add(parent);
                i = parent;
            }
            *e.add(i) = entry;
        }
    }

    /// Put `entry` in the place of the top entry.
    #[inline]
    fn replace_top(&mut self, entry: Entry<K>) {
        let n = self.entries.len();
        assert!(n > 0, "replace_top on an empty heap");
        let e = self.entries.as_mut_ptr();
        let mut i = 0;
        // SAFETY: every index read or written is below `n`: both children are read only when
        // `right < n`, the left one alone when `left < n`, and `i` is 0 or a child.
        unsafe {
            loop {
                let left = 2 * i + 1;
                let right = left + 1;
                if right >= n {
                    if left < n && (*e.add(left)).before(&entry) {
                        *e.add(i) = *e.add(left);
                        i = left;
                    }
                    break;
                }
                // The smaller child by arithmetic, not a branch: which child it is is a coin
                // toss the processor mispredicts half the time (in a heap of hundreds of links,
                // most of the engine's mispredictions).
                let child = left + usize::from((*e.add(right)).before(&*e.add(left)));
                if !(*e.add(child)).before(&entry) {
                    break;
                }
                *e.add(i) = *e.add(child);
                i = child;
            }
            *e.add(i) = entry;
        }
    }

    /// Remove the top entry.
    #[inline]
    fn remove_top(&mut self) {
        let last = self.entries.pop().expect("remove_top on an empty heap");
        if !self.entries.is_empty() {
            self.replace_top(last);
        }
    }

    /// The earliest entry, or with `top_taken` the earliest but the top (a child of the root).
    #[inline]
    fn first(&self, top_taken: bool) -> Option<&Entry<K>> {
        if !top_taken {
            return self.entries.first();
        }
        match (self.entries.get(1), self.entries.get(2)) {
            (Some(a), Some(b)) => Some(if b.before(a) { b } else { a }),
            (a, _) => a,
        }
    }
}

/// A heap entry: a single event, or the earliest item of a lane.
#[derive(Clone, Copy)]
enum Kind<E> {
    Event(E),
    Lane(u32),
}

/// What [`LaneQueue::pop_until`] returns.
#[derive(Debug, PartialEq, Eq)]
pub enum Popped<E, P> {
    Event(E),
    /// The earliest item of lane `lane`.
    Lane {
        lane: u32,
        item: P,
    },
}

struct Laned<P> {
    time: Nanos,
    sequence: u64,
    item: P,
}

/// Which heap's top is an event already handed out by `pop_until`.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Taken {
    None,
    Busy,
    Timers,
}

/// A future-event list with lanes (see the module's documentation).
///
/// Events go to one of two heaps, a choice of speed only (both pop in the one global order):
/// [`LaneQueue::schedule`] for the busy events that come and go with every packet (a link's
/// next transmission), [`LaneQueue::schedule_timer`] for those that mostly wait (timers, flow
/// starts, samples), so that the busy heap, which every packet's events cross, stays a few
/// entries deep.
pub struct LaneQueue<E, P> {
    /// The lanes' first items and the busy events.
    busy: Heap<Kind<E>>,
    timers: Heap<E>,
    lanes: Vec<VecDeque<Laned<P>>>,
    /// A heap's top was handed out by `pop_until` and not removed yet: the next event scheduled
    /// into that heap overwrites it (one sift instead of a removal and an insertion), and the
    /// next pop removes it.
    taken: Taken,
    next_sequence: u64,
    now: Nanos,
    len: usize,
}

impl<E: Copy, P> LaneQueue<E, P> {
    /// A queue with `lanes` lanes, numbered from 0.
    pub fn new(lanes: usize) -> Self {
        LaneQueue {
            busy: Heap::with_capacity(64 + lanes),
            timers: Heap::with_capacity(64),
            lanes: (0..lanes).map(|_| VecDeque::new()).collect(),
            taken: Taken::None,
            next_sequence: 0,
            now: 0,
            len: 0,
        }
    }

    /// Current simulated time: the time of the last event popped.
    pub fn now(&self) -> Nanos {
        self.now
    }

    #[inline]
    fn sequence(&mut self) -> u64 {
        let sequence = self.next_sequence;
        self.next_sequence += 1;
        self.len += 1;
        sequence
    }

    #[inline(always)]
    fn push_busy(&mut self, entry: Entry<Kind<E>>) {
        if self.taken == Taken::Busy {
            self.taken = Taken::None;
            self.busy.replace_top(entry);
        } else {
            self.busy.push(entry);
        }
    }

    /// Schedule `event` at absolute time `time`, which must not be in the past.
    #[inline]
    pub fn schedule(&mut self, time: Nanos, event: E) {
        debug_assert!(time >= self.now, "event scheduled in the past");
        let sequence = self.sequence();
        self.push_busy(Entry::new(time.max(self.now), sequence, Kind::Event(event)));
    }

    /// [`LaneQueue::schedule`] for an event that is likely to wait long among many others.
    #[inline]
    pub fn schedule_timer(&mut self, time: Nanos, event: E) {
        debug_assert!(time >= self.now, "event scheduled in the past");
        let sequence = self.sequence();
        let entry = Entry::new(time.max(self.now), sequence, event);
        if self.taken == Taken::Timers {
            self.taken = Taken::None;
            self.timers.replace_top(entry);
        } else {
            self.timers.push(entry);
        }
    }

    /// Schedule `item` on `lane` at absolute time `time` (not in the past; normally not before
    /// the lane's last item, which is the fast case).
    #[inline]
    pub fn schedule_in_lane(&mut self, lane: u32, time: Nanos, item: P) {
        debug_assert!(time >= self.now, "event scheduled in the past");
        let time = time.max(self.now);
        let sequence = self.sequence();
        let queue = &mut self.lanes[lane as usize];
        match queue.back() {
            None => {
                queue.push_back(Laned { time, sequence, item });
                self.push_busy(Entry::new(time, sequence, Kind::Lane(lane)));
            }
            Some(last) if last.time <= time => queue.push_back(Laned { time, sequence, item }),
            Some(_) => {
                // Out of order: insert in place; if it becomes the lane's earliest item, the
                // lane's heap entry moves up to it (a search of the heap, on this slow path only).
                let at = queue.partition_point(|l| l.time <= time);
                queue.insert(at, Laned { time, sequence, item });
                if at == 0 {
                    let entries = &self.busy.entries;
                    let skip = usize::from(self.taken == Taken::Busy);
                    let index = (skip..entries.len())
                        .find(|&i| matches!(entries[i].kind, Kind::Lane(l) if l == lane))
                        .expect("a non-empty lane has its entry in the heap");
                    self.busy.sift_up(index, Entry::new(time, sequence, Kind::Lane(lane)));
                }
            }
        }
    }

    /// Remove and return the earliest event if its time is at most `limit`, advancing `now` to
    /// its time; `None` (and nothing removed) if there is none that early.
    #[inline]
    pub fn pop_until(&mut self, limit: Nanos) -> Option<(Nanos, Popped<E, P>)> {
        match std::mem::replace(&mut self.taken, Taken::None) {
            Taken::None => {}
            Taken::Busy => self.busy.remove_top(),
            Taken::Timers => self.timers.remove_top(),
        }
        let timer = self.timers.top().copied();
        let top = match (self.busy.top(), &timer) {
            (Some(busy), Some(timer)) if timer.key < busy.key => None,
            (Some(busy), _) => Some(*busy),
            (None, _) => None,
        };
        let Some(top) = top else {
            // The earliest is a timer (or nothing is pending).
            let timer = timer?;
            let time = timer.time();
            if time > limit {
                return None;
            }
            self.now = time;
            self.len -= 1;
            self.taken = Taken::Timers;
            return Some((time, Popped::Event(timer.kind)));
        };
        let time = top.time();
        if time > limit {
            return None;
        }
        self.now = time;
        self.len -= 1;
        match top.kind {
            Kind::Event(event) => {
                self.taken = Taken::Busy;
                Some((time, Popped::Event(event)))
            }
            Kind::Lane(lane) => {
                let queue = &mut self.lanes[lane as usize];
                let first = queue.pop_front().expect("a lane's heap entry is its first item");
                debug_assert_eq!(key(first.time, first.sequence), top.key);
                match queue.front() {
                    Some(next) => {
                        self.busy.replace_top(Entry::new(next.time, next.sequence, Kind::Lane(lane)))
                    }
                    None => self.busy.remove_top(),
                }
                Some((time, Popped::Lane { lane, item: first.item }))
            }
        }
    }

    /// Time of the earliest pending event.
    pub fn peek_time(&self) -> Option<Nanos> {
        let busy = self.busy.first(self.taken == Taken::Busy).map(Entry::time);
        let timer = self.timers.first(self.taken == Taken::Timers).map(Entry::time);
        match (busy, timer) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Pending events and lane items.
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// A lane item type that cannot exist: [`EventQueue`] has no lanes.
#[derive(Debug, PartialEq, Eq)]
pub enum NoLane {}

/// A future-event list of single events.
pub struct EventQueue<E> {
    queue: LaneQueue<E, NoLane>,
}

impl<E: Copy> Default for EventQueue<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E: Copy> EventQueue<E> {
    pub fn new() -> Self {
        EventQueue { queue: LaneQueue::new(0) }
    }

    /// Current simulated time: the time of the last event popped.
    pub fn now(&self) -> Nanos {
        self.queue.now()
    }

    /// Schedule `event` at absolute time `time`, which must not be in the past.
    pub fn schedule(&mut self, time: Nanos, event: E) {
        self.queue.schedule(time, event);
    }

    /// Remove and return the earliest event, advancing `now` to its time.
    pub fn pop(&mut self) -> Option<(Nanos, E)> {
        match self.queue.pop_until(Nanos::MAX)? {
            (time, Popped::Event(event)) => Some((time, event)),
            (_, Popped::Lane { item, .. }) => match item {},
        }
    }

    /// Time of the earliest pending event.
    pub fn peek_time(&self) -> Option<Nanos> {
        self.queue.peek_time()
    }

    pub fn len(&self) -> usize {
        self.queue.len()
    }

    pub fn is_empty(&self) -> bool {
        self.queue.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::rng::RngStream;

    #[test]
    fn pops_in_time_order_then_insertion_order() {
        let mut q = EventQueue::new();
        q.schedule(30, "c");
        q.schedule(10, "a1");
        q.schedule(20, "b");
        q.schedule(10, "a2");
        q.schedule(10, "a3");
        let order: Vec<_> = std::iter::from_fn(|| q.pop()).collect();
        assert_eq!(order, vec![(10, "a1"), (10, "a2"), (10, "a3"), (20, "b"), (30, "c")]);
    }

    #[test]
    fn now_follows_popped_events() {
        let mut q = EventQueue::new();
        q.schedule(5, ());
        assert_eq!(q.now(), 0);
        q.pop();
        assert_eq!(q.now(), 5);
        q.schedule(5, ());
        assert_eq!(q.peek_time(), Some(5));
    }

    #[test]
    fn pop_until_leaves_later_events() {
        let mut q: LaneQueue<u32, ()> = LaneQueue::new(1);
        q.schedule(10, 1);
        q.schedule_in_lane(0, 20, ());
        assert_eq!(q.pop_until(5), None);
        assert_eq!(q.pop_until(10), Some((10, Popped::Event(1))));
        assert_eq!(q.pop_until(15), None);
        assert_eq!(q.len(), 1);
        assert_eq!(q.pop_until(20), Some((20, Popped::Lane { lane: 0, item: () })));
        assert!(q.is_empty() && q.pop_until(Nanos::MAX).is_none());
    }

    /// Every pop order of a lane queue is the order of one sorted list of all (time, sequence)
    /// pairs, whatever mix of events, in-order and out-of-order lane items is scheduled while
    /// popping: the reference is a plain sorted model.
    #[test]
    fn lanes_pop_in_the_order_of_a_single_heap() {
        for seed in 0..40 {
            let mut rng = RngStream::new(seed, "engine-test");
            let lanes = 1 + (rng.next_u64() % 4) as usize;
            let mut q: LaneQueue<u64, u64> = LaneQueue::new(lanes);
            // (time, sequence, is_lane, lane, payload)
            let mut model: Vec<(Nanos, u64, bool, u32, u64)> = Vec::new();
            let mut last_in_lane = vec![0; lanes];
            let mut sequence = 0;
            let mut popped = 0;
            for step in 0..3000u64 {
                let now = q.now();
                let action = rng.next_u64() % 10;
                if action < 3 {
                    let time = now + rng.next_u64() % 50;
                    if action == 0 {
                        q.schedule_timer(time, step);
                    } else {
                        q.schedule(time, step);
                    }
                    model.push((time, sequence, false, 0, step));
                    sequence += 1;
                } else if action < 7 {
                    let lane = (rng.next_u64() % lanes as u64) as u32;
                    // Mostly in order (a fixed delay after a later start), now and then earlier.
                    let base: Nanos = last_in_lane[lane as usize];
                    let time = if rng.next_u64().is_multiple_of(8) {
                        now + rng.next_u64() % 30
                    } else {
                        base.max(now) + rng.next_u64() % 20
                    };
                    last_in_lane[lane as usize] = last_in_lane[lane as usize].max(time);
                    q.schedule_in_lane(lane, time, step);
                    model.push((time, sequence, true, lane, step));
                    sequence += 1;
                } else {
                    model.sort_by_key(|&(t, s, ..)| (t, s));
                    let expected = if model.is_empty() { None } else { Some(model.remove(0)) };
                    let got = q.pop_until(Nanos::MAX);
                    match (expected, got) {
                        (None, None) => {}
                        (Some((t, _, false, _, p)), Some((gt, Popped::Event(gp)))) => {
                            assert_eq!((t, p), (gt, gp), "seed {seed} step {step}")
                        }
                        (Some((t, _, true, l, p)), Some((gt, Popped::Lane { lane, item }))) => {
                            assert_eq!((t, l, p), (gt, lane, item), "seed {seed} step {step}")
                        }
                        (e, g) => panic!("seed {seed} step {step}: expected {e:?}, got {g:?}"),
                    }
                    popped += 1;
                }
                assert_eq!(q.len(), model.len());
                assert_eq!(q.peek_time(), model.iter().map(|m| m.0).min(), "seed {seed} step {step}");
            }
            assert!(popped > 0);
        }
    }
}
