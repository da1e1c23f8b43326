// SPDX-License-Identifier: LGPL-2.1-or-later
//! Expiry records and reading them.

use std::fmt;
use std::io;

use crate::clock::Clock;
use crate::sys;
use crate::timer::TimerId;
use crate::wheel::Twheel;

/// One expiry record, as read(2) returns it: `struct twheel_event`, read
/// in place (no copy or conversion).
#[derive(Clone, Copy, Default, PartialEq, Eq)]
#[repr(transparent)]
pub struct Event(sys::twheel_event);

impl Event {
    /// The timer's id.
    pub const fn id(&self) -> TimerId {
        TimerId::from_raw(self.0.id)
    }

    /// The timer's cookie.
    pub const fn cookie(&self) -> u64 {
        self.0.cookie
    }

    /// The time on the timer's clock at which the record was queued, in
    /// nanoseconds: never before the deadline; on an fd nobody waited on,
    /// when the fd was next used. On a manual-clock fd, the manual time.
    pub const fn time_ns(&self) -> i64 {
        self.0.time_ns
    }

    /// The expiries it stands for: 1 for a one-shot timer; for a periodic
    /// one, every deadline that had passed when it was read (at least 1).
    /// For a record of a wall clock set ([`Event::is_clock_set`]): 0 for a
    /// timer it ended, the sets it stands for in the fd's record (id 0).
    pub const fn count(&self) -> u64 {
        self.0.count
    }

    /// The timer's clock (`None` only for a clockid this crate does not
    /// know, which an ABI version 2 module never reports).
    pub const fn clock(&self) -> Option<Clock> {
        Clock::from_raw(self.0.clock)
    }

    /// The record's flags: 0 for an expiry, `TWHEEL_EVENT_CLOCK_SET` for a
    /// record of a wall clock set.
    pub const fn flags(&self) -> u32 {
        self.0.flags
    }

    /// Whether it tells of a wall clock set (`TWHEEL_EVENT_CLOCK_SET`): a
    /// timer added with [`Timer::cancel_on_set`](crate::Timer::cancel_on_set)
    /// ended by one, or, on an fd configured with
    /// [`Config::clock_set`](crate::Config::clock_set), the fd's record of
    /// the sets (id 0, never a timer's).
    pub const fn is_clock_set(&self) -> bool {
        self.0.flags & sys::TWHEEL_EVENT_CLOCK_SET != 0
    }

    /// The record as the ABI lays it out.
    pub const fn as_sys(&self) -> &sys::twheel_event {
        &self.0
    }

    /// A record from its raw form (e.g. to test code that consumes
    /// records without a device).
    pub const fn from_sys(raw: sys::twheel_event) -> Event {
        Event(raw)
    }
}

impl fmt::Debug for Event {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Event")
            .field("id", &self.0.id)
            .field("cookie", &self.0.cookie)
            .field("time_ns", &self.0.time_ns)
            .field("count", &self.0.count)
            .field("clock", &self.0.clock)
            .field("flags", &self.0.flags)
            .finish()
    }
}

/// Records read from the kernel and not yet consumed, kept by the caller
/// across [`Twheel::events`] iterators.
///
/// A record read from the fd is gone from the kernel (and reading a
/// periodic timer's record sets its next deadline), so an iterator must
/// not drop what it read ahead: the records a read brought in stay here
/// until an iterator yields them, whether or not the one that read them
/// is still alive.
pub struct EventBuf {
    buf: Box<[Event]>,
    pos: usize,
    len: usize,
}

impl EventBuf {
    /// A buffer that reads up to `capacity` records per read(2) (at least
    /// one).
    pub fn new(capacity: usize) -> EventBuf {
        let capacity = capacity.max(1);
        EventBuf {
            buf: vec![Event::default(); capacity].into_boxed_slice(),
            pos: 0,
            len: 0,
        }
    }

    /// The most records one read(2) brings in.
    pub fn capacity(&self) -> usize {
        self.buf.len()
    }

    /// The records read and not yet yielded.
    pub fn len(&self) -> usize {
        self.len - self.pos
    }

    /// Whether no record waits in the buffer.
    pub fn is_empty(&self) -> bool {
        self.len == self.pos
    }

    fn pop(&mut self) -> Option<Event> {
        if self.pos < self.len {
            self.pos += 1;
            Some(self.buf[self.pos - 1])
        } else {
            None
        }
    }
}

impl fmt::Debug for EventBuf {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("EventBuf")
            .field("capacity", &self.capacity())
            .field("pending", &self.len())
            .finish()
    }
}

/// An iterator over expiry records: see [`Twheel::events`].
///
/// Yields the records already in its [`EventBuf`], then reads more. On a
/// blocking fd it waits for the next record (iterating forever unless an
/// error comes); on an `O_NONBLOCK` fd it ends (`None`) when nothing is
/// queued, and a later call of `Twheel::events` goes on. A read
/// interrupted by a signal is retried; any other error is yielded as
/// `Some(Err(..))`.
pub struct Events<'a> {
    wheel: &'a Twheel,
    buf: &'a mut EventBuf,
}

impl<'a> Events<'a> {
    pub(crate) fn new(wheel: &'a Twheel, buf: &'a mut EventBuf) -> Events<'a> {
        Events { wheel, buf }
    }
}

impl Iterator for Events<'_> {
    type Item = io::Result<Event>;

    fn next(&mut self) -> Option<io::Result<Event>> {
        if let Some(ev) = self.buf.pop() {
            return Some(Ok(ev));
        }
        loop {
            match self.wheel.read_events(&mut self.buf.buf) {
                Ok(0) => return None,
                Ok(n) => {
                    self.buf.pos = 0;
                    self.buf.len = n;
                    return self.buf.pop().map(Ok);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return None,
                Err(e) => return Some(Err(e)),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accessors() {
        let ev = Event::from_sys(sys::twheel_event {
            id: 9,
            cookie: 10,
            time_ns: -11,
            count: 12,
            clock: 7,
            flags: 0,
        });
        assert_eq!(ev.id(), TimerId::from_raw(9));
        assert_eq!(ev.cookie(), 10);
        assert_eq!(ev.time_ns(), -11);
        assert_eq!(ev.count(), 12);
        assert_eq!(ev.clock(), Some(Clock::Boottime));
        assert_eq!(ev.flags(), 0);
        assert!(!ev.is_clock_set());
        assert_eq!(ev.as_sys().clock, 7);
        let ev = Event::from_sys(sys::twheel_event {
            clock: 8,
            flags: sys::TWHEEL_EVENT_CLOCK_SET,
            ..Default::default()
        });
        assert!(ev.is_clock_set());
        assert_eq!(ev.clock(), Some(Clock::RealtimeAlarm));
        let ev = Event::from_sys(sys::twheel_event {
            clock: 3,
            ..Default::default()
        });
        assert_eq!(ev.clock(), None);
        assert_eq!(std::mem::size_of::<Event>(), 40);
    }

    #[test]
    fn buffer_yields_in_order() {
        let mut b = EventBuf::new(0);
        assert_eq!(b.capacity(), 1);
        let mut b2 = EventBuf::new(4);
        assert!(b2.is_empty() && b.is_empty());
        for i in 0..3 {
            b2.buf[i] = Event::from_sys(sys::twheel_event {
                id: i as u64 + 1,
                ..Default::default()
            });
        }
        b2.len = 3;
        assert_eq!(b2.len(), 3);
        assert_eq!(b2.pop().unwrap().id().as_raw(), 1);
        assert_eq!(b2.pop().unwrap().id().as_raw(), 2);
        assert_eq!(b2.len(), 1);
        assert_eq!(b2.pop().unwrap().id().as_raw(), 3);
        assert!(b2.pop().is_none());
        assert!(b.pop().is_none());
    }
}
