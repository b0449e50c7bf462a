//! The table of open connections: the hard connection limit, the share of
//! it one client may hold, whom to close to make room
//! ([`ConnectionTable::admit`]), and the 503 to a connection when nobody can
//! be closed ([`ConnectionTable::refuse`]).
//!
//! A connection is counted from the moment it is accepted
//! ([`ConnectionTable::admit`], called by the accept loop itself), so the
//! count never passes the limit, however fast connections arrive. It is
//! counted under its client ([`PeerRules`]: its address, or the address a
//! trusted proxy forwards, from its first request on).
//!
//! A new connection is admitted:
//! - from a client that already holds `http.max_connections_per_peer`: only
//!   in place of one of that client's own that may be closed (below);
//! - at `http.max_connections`, when another client holds more connections
//!   than the new one's would: in place of one of that client's, whatever
//!   it is doing: one that may be closed (below) first, else the one in its
//!   phase longest, an idle one before one with a request (a call cut so is
//!   answered 503) before one whose answer is being written. So one client
//!   cannot hold every slot, however it uses them;
//! - at the limit otherwise: in place of one that may be closed, the new
//!   connection's client's own first.
//!
//! A connection may be closed, in order:
//! 0. one that pipelined a request (sent it before its last answer was out;
//!    no MCP client does), whatever it is doing, a call included: the
//!    oldest first. Its requests queued behind answers it does not read
//!    keep it busy, so under load the rules below might find nobody to
//!    close while 64 such connections hold a limit of 64;
//! 1. one that has never had an answer and waits for a request (a head or
//!    body still arriving), or one whose answer has not moved for
//!    [`SEND_STALL`] (a client that does not read): the one waiting longest;
//! 2. otherwise one kept alive after an answer, idle for at least
//!    [`IDLE_GRACE`] (a client between two calls is not closed under it):
//!    from the peer with the most connections, the newest.
//!
//! Other busy connections (a call being answered) are not, nor any younger
//! than [`EVICTION_MIN_AGE`], nor one whose request has arrived but is
//! still unread in its socket (its task has not run yet: it is answered).

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::sync::Notify;

use crate::http::connection::peer::{PeerRules, bytes_waiting};
use crate::http::connection::state::{ConnState, Phase, busy_response};

/// The open connections, for the connection limit and the drain.
#[derive(Debug)]
pub struct ConnectionTable {
    epoch: Instant,
    slots: Mutex<Slots>,
    emptied: Notify,
    /// Refused connections still being answered ([`Self::refuse`]).
    refusals_in_flight: AtomicUsize,
}

/// One open connection and the client it is counted under.
#[derive(Debug)]
struct Entry {
    state: Arc<ConnState>,
    peer: Option<IpAddr>,
}

#[derive(Debug, Default)]
struct Slots {
    entries: Vec<Option<Entry>>,
    free: Vec<usize>,
    len: usize,
    /// Open connections per client.
    peers: HashMap<IpAddr, usize>,
    /// The most connections open at once since [`ConnectionTable::take_highest`].
    highest: usize,
}

impl Slots {
    fn forget(&mut self, slot: usize) {
        let Some(entry) = self.entries[slot].take() else {
            return;
        };
        self.free.push(slot);
        self.len -= 1;
        self.uncount(entry.peer);
    }

    fn uncount(&mut self, peer: Option<IpAddr>) {
        if let Some(peer) = peer
            && let Some(n) = self.peers.get_mut(&peer)
        {
            *n -= 1;
            if *n == 0 {
                self.peers.remove(&peer);
            }
        }
    }

    fn count(&mut self, peer: Option<IpAddr>) {
        if let Some(peer) = peer {
            *self.peers.entry(peer).or_default() += 1;
        }
    }

    /// Connections `peer` holds.
    fn held_by(&self, peer: Option<IpAddr>) -> usize {
        peer.and_then(|p| self.peers.get(&p).copied()).unwrap_or(0)
    }

    /// Whether `slot` still holds `state`.
    fn holds(&self, slot: usize, state: &Arc<ConnState>) -> bool {
        self.entries[slot]
            .as_ref()
            .is_some_and(|e| Arc::ptr_eq(&e.state, state))
    }
}

/// A connection in the table: where it is and its shared state.
#[derive(Debug)]
pub(crate) struct Admission {
    pub(crate) slot: usize,
    pub(crate) state: Arc<ConnState>,
}

/// Why a new connection was not admitted: nobody it may take the place of
/// can be closed now.
#[derive(Debug)]
pub(crate) struct NoRoom {
    /// How long until one of them could be, if they stay as they are
    /// (`None`: not worth waiting for: busy, kept by their requests, or the
    /// client is over its share while the table has room for others).
    pub(crate) closable_in: Option<Duration>,
}

/// Up to this many open connections, eviction looks at each; past it, at a
/// random sample of [`EVICTION_SAMPLE`].
const EVICTION_FULL_SCAN: usize = 256;
/// How many connections [`ConnectionTable::evict_one`] compares past
/// [`EVICTION_FULL_SCAN`].
const EVICTION_SAMPLE: usize = 64;
/// A connection this young is never closed to make room: it has not had
/// the time to send its request (and the newest ones are the ones a burst
/// of connections would otherwise close at once).
pub(crate) const EVICTION_MIN_AGE: Duration = Duration::from_millis(100);
/// A kept-alive connection is not closed to make room for this long after
/// an answer (or after the first byte of its next request): the time a
/// client takes between two calls.
pub(crate) const IDLE_GRACE: Duration = Duration::from_secs(2);
/// An answer whose last bytes have waited this long for the client to read
/// them makes its connection the first to close to make room.
pub(crate) const SEND_STALL: Duration = Duration::from_millis(500);
/// Refused connections still being answered (each holds a descriptor for
/// up to a second): past this many, a refused connection is closed at once.
pub(crate) const MAX_REFUSALS_IN_FLIGHT: usize = 256;

impl Default for ConnectionTable {
    fn default() -> Self {
        Self {
            epoch: Instant::now(),
            slots: Mutex::default(),
            emptied: Notify::new(),
            refusals_in_flight: AtomicUsize::new(0),
        }
    }
}

/// How much a connection may be closed to make room: lower first.
#[derive(Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Rank {
    /// It pipelined: the oldest first.
    Pipelined { opened_ms: u64 },
    /// Never answered and waiting for a request, or not reading its answer:
    /// the one waiting longest (smallest `since`) first.
    Waiting { since_ms: u64 },
    /// Idle after an answer: the peer with the most connections first
    /// (`Reverse`), then the newest.
    KeptAlive {
        peer_connections: std::cmp::Reverse<usize>,
        opened_ms: std::cmp::Reverse<u64>,
    },
}

impl Rank {
    /// Whether bytes unread in its socket keep it (a request that arrived,
    /// or the next one after an idle spell; not an answer left unread).
    fn kept_by_a_request(&self) -> bool {
        !matches!(self, Self::Pipelined { .. })
    }
}

/// Which connections an eviction may look at.
#[derive(Debug, Clone, Copy)]
enum Among {
    /// Any.
    All,
    /// Those of one client.
    Peer(Option<IpAddr>),
}

impl Among {
    fn admits(self, entry: &Entry) -> bool {
        match self {
            Self::All => true,
            Self::Peer(peer) => entry.peer == peer,
        }
    }
}

impl ConnectionTable {
    fn lock(&self) -> std::sync::MutexGuard<'_, Slots> {
        self.slots
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Milliseconds since the table was made: the clock of its connections.
    pub(crate) fn now_ms(&self) -> u64 {
        self.epoch.elapsed().as_millis() as u64
    }

    /// Connections open (evicted ones no longer count).
    pub fn len(&self) -> usize {
        self.lock().len
    }

    /// The connections open now, and the most open at once since the last
    /// call (which starts counting again from now).
    pub fn take_highest(&self) -> (usize, usize) {
        let mut slots = self.lock();
        let highest = slots.highest.max(slots.len);
        slots.highest = slots.len;
        (slots.len, highest)
    }

    /// Whether no connection is open.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Counts a new connection from `peer` on socket `fd` (in
    /// [`Phase::Head`]) under `rules`, closing one to make room when the
    /// client or the table is at its limit (see the module documentation);
    /// [`NoRoom`] when nobody can be closed (then wait, or
    /// [`Self::refuse`] it).
    pub(crate) fn admit(
        &self,
        peer: Option<IpAddr>,
        fd: i32,
        rules: &PeerRules,
    ) -> Result<Admission, NoRoom> {
        let now = self.now_ms();
        let mut slots = self.lock();
        let own = slots.held_by(peer);
        let capped = peer.is_some_and(|p| !rules.is_trusted(p)) && own >= rules.per_peer;
        let made_room = if capped {
            // Waiting is for room in a full table; a client over its own
            // share has none to wait for (a flood from one address would
            // otherwise keep the waiting connections busy retrying).
            let full = slots.len >= rules.max;
            Self::evict_among(&mut slots, now, Among::Peer(peer))
                .map_err(|soonest| soonest.filter(|_| full))
        } else if slots.len >= rules.max {
            let biggest = slots
                .peers
                .iter()
                .max_by_key(|(_, n)| **n)
                .map(|(p, n)| (*p, *n));
            match biggest {
                Some((big, held)) if Some(big) != peer && held > own + 1 => {
                    let among = Among::Peer(Some(big));
                    Self::evict_among(&mut slots, now, among).or_else(|_| {
                        Self::evict_longest(&mut slots, among)
                            .then_some(())
                            .ok_or(None)
                    })
                }
                _ => {
                    let mine = match peer {
                        Some(_) => Self::evict_among(&mut slots, now, Among::Peer(peer)),
                        None => Err(None),
                    };
                    mine.or_else(|mine| {
                        Self::evict_among(&mut slots, now, Among::All)
                            .map_err(|all| [mine, all].into_iter().flatten().min())
                    })
                }
            }
        } else {
            Ok(())
        };
        match made_room {
            Ok(()) => Ok(Self::insert_into(&mut slots, self.epoch, peer, fd)),
            Err(soonest) => Err(NoRoom {
                closable_in: soonest.map(|at| Duration::from_millis(at.saturating_sub(now))),
            }),
        }
    }

    /// Adds a new connection (in [`Phase::Head`]), whatever the count.
    #[cfg(test)]
    pub(crate) fn insert(&self, peer: Option<IpAddr>) -> Admission {
        let mut slots = self.lock();
        Self::insert_into(&mut slots, self.epoch, peer, -1)
    }

    fn insert_into(slots: &mut Slots, epoch: Instant, peer: Option<IpAddr>, fd: i32) -> Admission {
        let state = Arc::new(ConnState::new(epoch, peer, fd));
        slots.len += 1;
        slots.highest = slots.highest.max(slots.len);
        slots.count(peer);
        let entry = Entry {
            state: state.clone(),
            peer,
        };
        let slot = match slots.free.pop() {
            Some(i) => {
                slots.entries[i] = Some(entry);
                i
            }
            None => {
                slots.entries.push(Some(entry));
                slots.entries.len() - 1
            }
        };
        Admission { slot, state }
    }

    /// Counts the connection `state` in `slot` under `client` from now on
    /// (the client a trusted proxy forwards).
    pub(crate) fn set_client(&self, slot: usize, state: &Arc<ConnState>, client: IpAddr) {
        let mut slots = self.lock();
        if !slots.holds(slot, state) {
            return;
        }
        let before = slots.entries[slot].as_ref().and_then(|e| e.peer);
        if before == Some(client) {
            return;
        }
        slots.uncount(before);
        slots.count(Some(client));
        if let Some(entry) = slots.entries[slot].as_mut() {
            entry.peer = Some(client);
        }
    }

    /// Removes the connection in `slot` if it is still `state`.
    pub(crate) fn remove(&self, admission: &Admission) {
        let mut slots = self.lock();
        if slots.holds(admission.slot, &admission.state) {
            slots.forget(admission.slot);
        }
        if slots.len == 0 {
            self.emptied.notify_waiters();
        }
    }

    /// How `entry` would rank for eviction, and from when (milliseconds on
    /// the table's clock) it may be closed if it stays in its phase; `None`:
    /// never in this phase (busy, or already evicted).
    fn standing(entry: &Entry, slots: &Slots) -> Option<(u64, Rank)> {
        let ms = |d: Duration| d.as_millis() as u64;
        let state = &entry.state;
        if state.is_evicted() {
            return None;
        }
        let grown = state.opened_ms() + ms(EVICTION_MIN_AGE);
        if state.pipelined() {
            let rank = Rank::Pipelined {
                opened_ms: state.opened_ms(),
            };
            return Some((grown, rank));
        }
        let since_ms = state.since_ms();
        let kept_alive = Rank::KeptAlive {
            peer_connections: std::cmp::Reverse(slots.held_by(entry.peer).max(1)),
            opened_ms: std::cmp::Reverse(state.opened_ms()),
        };
        let (from_ms, rank) = match state.phase() {
            Phase::Busy => return None,
            Phase::Sending => (since_ms + ms(SEND_STALL), Rank::Waiting { since_ms }),
            Phase::Head | Phase::Body if !state.answered() => (grown, Rank::Waiting { since_ms }),
            Phase::Head | Phase::Body | Phase::Idle => (since_ms + ms(IDLE_GRACE), kept_alive),
        };
        Some((from_ms.max(grown), rank))
    }

    /// The connections among `among` eviction looks at: each, or past
    /// [`EVICTION_FULL_SCAN`] a random sample (each of them when the sample
    /// holds none).
    fn candidates(slots: &Slots, among: Among) -> Vec<usize> {
        let n = slots.entries.len();
        let fits = |i: &usize| slots.entries[*i].as_ref().is_some_and(|e| among.admits(e));
        if n > EVICTION_FULL_SCAN {
            let sample: Vec<usize> = (0..EVICTION_SAMPLE * 2)
                .map(|_| fastrand::usize(..n))
                .filter(fits)
                .take(EVICTION_SAMPLE)
                .collect();
            if !sample.is_empty() || matches!(among, Among::All) {
                return sample;
            }
        }
        (0..n).filter(fits).collect()
    }

    /// Closes one connection to make room (see the module documentation for
    /// which); false when none may be closed.
    #[cfg(test)]
    pub fn evict_one(&self) -> bool {
        let now = self.now_ms();
        let mut slots = self.lock();
        Self::evict_among(&mut slots, now, Among::All).is_ok()
    }

    /// Closes the connection of `among` that may be closed first; when none
    /// may, `Err` with when (on the table's clock) the first of them could
    /// be, if it stays in its phase.
    fn evict_among(slots: &mut Slots, now: u64, among: Among) -> Result<(), Option<u64>> {
        let mut soonest = None;
        let mut ranked: Vec<(Rank, usize)> = Self::candidates(slots, among)
            .into_iter()
            .filter_map(|i| {
                let entry = slots.entries[i].as_ref()?;
                let (from_ms, rank) = Self::standing(entry, slots)?;
                if from_ms > now {
                    soonest = Some(soonest.map_or(from_ms, |s: u64| s.min(from_ms)));
                    return None;
                }
                Some((rank, i))
            })
            .collect();
        ranked.sort_unstable();
        // Asked of the socket only for the one about to be closed.
        let victim = ranked.into_iter().find(|(rank, i)| {
            let waiting = slots.entries[*i]
                .as_ref()
                .is_some_and(|e| bytes_waiting(e.state.fd()));
            !(rank.kept_by_a_request() && waiting)
        });
        let Some((_, slot)) = victim else {
            return Err(soonest);
        };
        Self::evict_slot(slots, slot);
        Ok(())
    }

    /// Closes the connection of `among` in its phase longest, whatever the
    /// phase: an idle one before one with a request before one whose answer
    /// is being written; false when `among` has none.
    fn evict_longest(slots: &mut Slots, among: Among) -> bool {
        let class = |state: &ConnState| match state.phase() {
            Phase::Idle if !bytes_waiting(state.fd()) => 0,
            Phase::Sending => 2,
            _ => 1,
        };
        let victim = Self::candidates(slots, among)
            .into_iter()
            .filter_map(|i| {
                let state = &slots.entries[i].as_ref()?.state;
                (!state.is_evicted()).then(|| ((class(state), state.since_ms()), i))
            })
            .min()
            .map(|(_, i)| i);
        let Some(slot) = victim else {
            return false;
        };
        Self::evict_slot(slots, slot);
        true
    }

    fn evict_slot(slots: &mut Slots, slot: usize) {
        if let Some(entry) = slots.entries[slot].as_ref() {
            entry.state.evict();
        }
        slots.forget(slot);
    }

    /// Waits until every connection is closed.
    pub async fn wait_empty(&self) {
        loop {
            let emptied = self.emptied.notified();
            if self.is_empty() {
                return;
            }
            emptied.await;
        }
    }

    /// Answers 503 to a connection over the limit when no open one can be
    /// closed to make room (or to a request cut to make room), then reads
    /// what the client sent until it closes (at most a second), so that
    /// closing does not reset the answer away. Past
    /// [`MAX_REFUSALS_IN_FLIGHT`] refusals at once, closes it at once.
    pub async fn refuse(&self, mut stream: TcpStream) {
        tracing::debug!("too many connections: answered 503");
        if self.refusals_in_flight.fetch_add(1, Ordering::AcqRel) >= MAX_REFUSALS_IN_FLIGHT {
            self.refusals_in_flight.fetch_sub(1, Ordering::AcqRel);
            return;
        }
        let _ = tokio::time::timeout(Duration::from_secs(1), async {
            stream.write_all(&busy_response()).await?;
            stream.shutdown().await?;
            let mut sink = [0u8; 1024];
            while stream.read(&mut sink).await? > 0 {}
            Ok::<_, std::io::Error>(())
        })
        .await;
        self.refusals_in_flight.fetch_sub(1, Ordering::AcqRel);
    }

    /// Refused connections being answered now.
    pub fn refusals_in_flight(&self) -> usize {
        self.refusals_in_flight.load(Ordering::Acquire)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::http::connection::peer::PeerRules;

    const PEER: Option<IpAddr> = Some(IpAddr::V4(std::net::Ipv4Addr::LOCALHOST));
    const OTHER: Option<IpAddr> = Some(IpAddr::V4(std::net::Ipv4Addr::new(10, 0, 0, 2)));

    fn evicted(a: &Admission) -> bool {
        a.state.is_evicted()
    }

    #[test]
    fn eviction_takes_the_oldest_waiting_connection_never_a_busy_one() {
        let table = ConnectionTable::default();
        let busy = table.insert(PEER);
        busy.state.set(Phase::Busy);
        assert!(!table.evict_one());
        let old = table.insert(PEER);
        std::thread::sleep(Duration::from_millis(5));
        let young = table.insert(PEER);
        assert_eq!(table.len(), 3);
        // Both are too young to be closed yet.
        assert!(!table.evict_one());
        std::thread::sleep(EVICTION_MIN_AGE);
        assert!(table.evict_one());
        assert!(evicted(&old));
        assert!(!evicted(&young));
        assert_eq!(table.len(), 2);
        assert!(table.evict_one());
        assert!(evicted(&young));
        assert!(!table.evict_one());
        assert!(!evicted(&busy));
    }

    #[test]
    fn a_client_between_calls_is_kept_over_connections_that_never_asked() {
        let table = ConnectionTable::default();
        let client = table.insert(PEER);
        client.state.set(Phase::Busy);
        client.state.mark_answered();
        client.state.set(Phase::Idle);
        std::thread::sleep(EVICTION_MIN_AGE);
        // Idle for less than the grace: never closed, even alone.
        assert!(!table.evict_one());
        let silent = table.insert(PEER);
        std::thread::sleep(EVICTION_MIN_AGE);
        assert!(table.evict_one());
        assert!(evicted(&silent));
        assert!(!evicted(&client));
    }

    #[test]
    fn among_kept_alive_connections_the_newest_of_the_busiest_peer_goes() {
        let table = ConnectionTable::default();
        let answered = |a: &Admission| {
            a.state.mark_answered();
            a.state.set(Phase::Idle);
        };
        let lone = table.insert(OTHER);
        answered(&lone);
        std::thread::sleep(Duration::from_millis(5));
        let first = table.insert(PEER);
        answered(&first);
        std::thread::sleep(Duration::from_millis(5));
        let newest = table.insert(PEER);
        answered(&newest);
        std::thread::sleep(IDLE_GRACE);
        assert!(table.evict_one());
        assert!(evicted(&newest), "the newest of the peer with two");
        // Now both peers hold one: the newest of them.
        assert!(table.evict_one());
        assert!(evicted(&first));
        assert!(!evicted(&lone));
    }

    #[test]
    fn a_client_that_does_not_read_its_answer_is_closed_first() {
        let table = ConnectionTable::default();
        let idle = table.insert(PEER);
        idle.state.mark_answered();
        idle.state.set(Phase::Idle);
        let sending = table.insert(PEER);
        sending.state.mark_answered();
        sending.state.set(Phase::Sending);
        std::thread::sleep(EVICTION_MIN_AGE);
        // Not stalled yet, and the idle one is in its grace.
        assert!(!table.evict_one());
        std::thread::sleep(IDLE_GRACE);
        assert!(table.evict_one());
        assert!(evicted(&sending));
        assert!(!evicted(&idle));
    }

    #[test]
    fn a_client_that_pipelines_is_closed_first_even_while_busy() {
        let table = ConnectionTable::default();
        let waiting = table.insert(PEER);
        let pipeliner = table.insert(PEER);
        pipeliner.state.set(Phase::Busy);
        pipeliner.state.note_request();
        assert!(
            !pipeliner.state.pipelined(),
            "a first request is never pipelined"
        );
        pipeliner.state.mark_answered();
        pipeliner.state.set(Phase::Sending);
        // The next request reached the service before the answer was out.
        pipeliner.state.note_request();
        pipeliner.state.set(Phase::Busy);
        let client = table.insert(PEER);
        client.state.mark_answered();
        client.state.set(Phase::Head);
        // A request read after its answer left: not pipelined.
        client.state.note_request();
        client.state.set(Phase::Busy);
        assert!(pipeliner.state.pipelined());
        assert!(!client.state.pipelined());
        std::thread::sleep(EVICTION_MIN_AGE);
        assert!(table.evict_one());
        assert!(evicted(&pipeliner), "busy, but it pipelined");
        assert!(!evicted(&waiting));
        assert!(table.evict_one());
        assert!(evicted(&waiting));
        assert!(
            !table.evict_one(),
            "a busy client that waits for its answers stays"
        );
        assert!(!evicted(&client));
    }

    #[test]
    fn a_refusal_says_when_room_could_be_made_by_waiting() {
        let table = ConnectionTable::default();
        let full = PeerRules::uniform(1);
        let closable_in = |table: &ConnectionTable| {
            table
                .admit(PEER, -1, &full)
                .map(|_| ())
                .unwrap_err()
                .closable_in
        };
        let young = table.insert(PEER);
        let wait = closable_in(&table).expect("closable once grown");
        assert!(wait <= EVICTION_MIN_AGE);
        young.state.set(Phase::Busy);
        assert_eq!(closable_in(&table), None, "busy: never");
        young.state.mark_answered();
        young.state.set(Phase::Idle);
        // Kept alive: closable after the grace, longer than a short wait.
        assert!(closable_in(&table).unwrap() > EVICTION_MIN_AGE);
        table.remove(&young);
        let waiting = table.insert(PEER);
        std::thread::sleep(EVICTION_MIN_AGE);
        assert!(table.admit(PEER, -1, &full).is_ok());
        assert!(evicted(&waiting));
    }

    #[test]
    fn admission_is_counted_at_once_and_never_passes_the_limit() {
        let table = ConnectionTable::default();
        let admitted: Vec<_> = (0..10)
            .filter_map(|_| table.admit(PEER, -1, &PeerRules::uniform(4)).ok())
            .collect();
        // Each is too young to close: the limit holds without a task running.
        assert_eq!(admitted.len(), 4);
        assert_eq!(table.len(), 4);
        std::thread::sleep(EVICTION_MIN_AGE);
        assert!(table.admit(PEER, -1, &PeerRules::uniform(4)).is_ok());
        assert_eq!(table.len(), 4);
        assert_eq!(admitted.iter().filter(|a| evicted(a)).count(), 1);
    }

    #[tokio::test]
    async fn a_refusal_is_a_503_and_counted_only_while_it_is_answered() {
        let table = std::sync::Arc::new(ConnectionTable::default());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let mut client = TcpStream::connect(listener.local_addr().unwrap())
            .await
            .unwrap();
        let (stream, _) = listener.accept().await.unwrap();
        let refusing = tokio::spawn({
            let table = table.clone();
            async move { table.refuse(stream).await }
        });
        let mut answer = Vec::new();
        client.read_to_end(&mut answer).await.unwrap();
        assert!(answer.starts_with(b"HTTP/1.1 503 "));
        assert_eq!(table.refusals_in_flight(), 1, "until the client closes");
        drop(client);
        refusing.await.unwrap();
        assert_eq!(table.refusals_in_flight(), 0);
    }

    #[test]
    fn the_highest_count_since_the_last_look_is_kept_then_reset() {
        let table = ConnectionTable::default();
        let opened: Vec<_> = (0..5).map(|_| table.insert(PEER)).collect();
        for admission in &opened[..4] {
            table.remove(admission);
        }
        assert_eq!(table.take_highest(), (1, 5));
        // Counting starts again from the connections open now.
        assert_eq!(table.take_highest(), (1, 1));
        let admission = table.insert(PEER);
        table.remove(&admission);
        assert_eq!(table.take_highest(), (1, 2));
        assert_eq!(table.lock().peers.get(&PEER.unwrap()), Some(&1));
    }

    #[tokio::test]
    async fn a_connection_whose_request_arrived_unread_is_not_closed_as_waiting() {
        use std::os::fd::AsRawFd;
        let table = ConnectionTable::default();
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let at = listener.local_addr().unwrap();
        let mut asking = TcpStream::connect(at).await.unwrap();
        let (asked, _) = listener.accept().await.unwrap();
        let _silent_client = TcpStream::connect(at).await.unwrap();
        let (silent, _) = listener.accept().await.unwrap();
        // The request is in the socket; its task has not read it yet.
        let with_request = {
            let mut slots = table.lock();
            ConnectionTable::insert_into(&mut slots, table.epoch, PEER, asked.as_raw_fd())
        };
        asking
            .write_all(b"GET /healthz HTTP/1.1\r\nhost: localhost\r\n\r\n")
            .await
            .unwrap();
        tokio::time::sleep(EVICTION_MIN_AGE).await;
        let without = {
            let mut slots = table.lock();
            ConnectionTable::insert_into(&mut slots, table.epoch, PEER, silent.as_raw_fd())
        };
        tokio::time::sleep(EVICTION_MIN_AGE).await;
        assert!(table.evict_one(), "the silent one, younger, goes");
        assert!(evicted(&without));
        assert!(!table.evict_one(), "the one with a request is answered");
        assert!(!evicted(&with_request));
    }

    #[test]
    fn at_the_limit_the_address_holding_most_loses_one_whatever_it_does() {
        let table = ConnectionTable::default();
        let rules = PeerRules::uniform(4);
        let flood: Vec<_> = (0..4)
            .map(|_| table.admit(PEER, -1, &rules).unwrap())
            .collect();
        for (i, a) in flood.iter().enumerate() {
            a.state.set(Phase::Busy);
            if i == 2 {
                a.state.mark_answered();
                a.state.set(Phase::Idle);
            }
        }
        // Busy, idle within its grace, all too young: none closable, but
        // the flooding address holds more than the newcomer would.
        let other = table.admit(OTHER, -1, &rules).expect("room made");
        assert!(evicted(&flood[2]), "the idle one first");
        assert_eq!(flood.iter().filter(|a| evicted(a)).count(), 1);
        // Then its oldest call.
        let third = Some(IpAddr::V4(std::net::Ipv4Addr::new(10, 0, 0, 3)));
        assert!(table.admit(third, -1, &rules).is_ok());
        assert!(evicted(&flood[0]));
        // 2, 1, 1: a newcomer from another peer still takes one of its.
        assert!(table.admit(third, -1, &rules).is_err(), "2 against 2: even");
        let fourth = Some(IpAddr::V4(std::net::Ipv4Addr::new(10, 0, 0, 4)));
        assert!(table.admit(fourth, -1, &rules).is_ok());
        assert!(evicted(&flood[1]));
        assert!(!evicted(&other));
    }

    #[test]
    fn a_client_at_its_own_limit_makes_room_only_among_its_own() {
        let table = ConnectionTable::default();
        let mut rules = PeerRules::uniform(100);
        rules.per_peer = 2;
        let lone = table.admit(OTHER, -1, &rules).unwrap();
        let own: Vec<_> = (0..2)
            .map(|_| table.admit(PEER, -1, &rules).unwrap())
            .collect();
        assert!(table.admit(PEER, -1, &rules).is_err(), "its own too young");
        std::thread::sleep(EVICTION_MIN_AGE);
        assert!(table.admit(PEER, -1, &rules).is_ok());
        assert!(evicted(&own[0]));
        assert!(!evicted(&lone));
        assert_eq!(table.len(), 3);
    }

    #[test]
    fn a_forwarded_client_is_counted_in_place_of_its_proxy() {
        let table = ConnectionTable::default();
        let proxied = table.insert(PEER);
        table.set_client(proxied.slot, &proxied.state, OTHER.unwrap());
        let slots = table.lock();
        assert_eq!(slots.peers.get(&PEER.unwrap()), None);
        assert_eq!(slots.peers.get(&OTHER.unwrap()), Some(&1));
    }
}
