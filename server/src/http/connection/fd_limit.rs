//! The open-file limit and the connection limit under it.
//!
//! Every HTTP connection is a file descriptor. The usual soft limit
//! (`ulimit -n`, 1,024) is no higher than the default `http.max_connections`
//! (1,024): slow clients then exhaust the descriptors before the connection
//! limit evicts any of them, `accept` fails with EMFILE, and a normal
//! client's `/healthz` waits seconds. So, before the listener accepts
//! anything, Herald raises its soft `RLIMIT_NOFILE` to the hard limit (as
//! Go's runtime and nginx's `worker_rlimit_nofile` do), and keeps
//! `http.max_connections` below what is left of it after [`RESERVE`] (Keeper
//! connections, the KB, logs, the metrics listener) and the refused
//! connections still being answered, saying so once when it lowers it.
//!
//! That limit alone does not keep `accept` from EMFILE:
//! evicted connections whose task has not yet closed them, refusals being
//! answered and each call's Keeper connection take descriptors too. So the
//! accept loop also counts the descriptors really open
//! ([`DescriptorGauge`], `/proc/self/fd`, counted again only as the room
//! left shrinks) and stops taking new connections [`HEADROOM`] short of the
//! limit; and should the descriptors run out anyway, it gives up a spare
//! one ([`SpareDescriptor`]) to accept the waiting connection and close it.

use herald_core::config::SettingKey;

/// Descriptors kept for everything but the HTTP connections: the Keeper
/// pool, remote MCP servers, the KB folder and its watch, stderr, the audit
/// file, the listeners.
pub(crate) const RESERVE: u64 = 128;

/// The soft and hard open-file limits of the process.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct FileLimit {
    /// The limit in force (`ulimit -Sn`).
    pub soft: u64,
    /// The most the soft limit may be raised to (`ulimit -Hn`).
    pub hard: u64,
}

/// Raises the soft open-file limit to the hard one (capped at what the
/// kernel allows, `fs.nr_open`); the limits in force afterwards, or `None`
/// when they cannot be read.
pub(crate) fn raise_to_hard() -> Option<FileLimit> {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes the struct it is given, which lives here.
    if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) } != 0 {
        return None;
    }
    if limit.rlim_cur < limit.rlim_max {
        let mut wanted = limit.rlim_max;
        if wanted == libc::RLIM_INFINITY {
            wanted = nr_open().unwrap_or(limit.rlim_cur);
        }
        let raised = libc::rlimit {
            rlim_cur: wanted.max(limit.rlim_cur),
            rlim_max: limit.rlim_max,
        };
        // SAFETY: setrlimit reads the struct it is given.
        if unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &raised) } == 0 {
            limit.rlim_cur = raised.rlim_cur;
        }
    }
    Some(FileLimit {
        soft: limit.rlim_cur,
        hard: limit.rlim_max,
    })
}

/// The kernel's ceiling for an open-file limit (`/proc/sys/fs/nr_open`).
fn nr_open() -> Option<u64> {
    std::fs::read_to_string("/proc/sys/fs/nr_open")
        .ok()?
        .trim()
        .parse()
        .ok()
}

/// The connection limit that fits under `soft` descriptors: `wanted`
/// (`http.max_connections`), or less when `soft` minus [`RESERVE`] and
/// `refusals` (connections answered 503 while they close) cannot hold it.
/// Never below a quarter of `soft`, nor below 1.
pub(crate) fn connections_that_fit(wanted: usize, soft: u64, refusals: usize) -> usize {
    let room = soft
        .saturating_sub(RESERVE + refusals as u64)
        .max(soft / 4)
        .max(1);
    wanted.min(usize::try_from(room).unwrap_or(usize::MAX))
}

/// Raises the open-file limit and returns the connection limit to use,
/// with one notice on stderr when it is below `wanted`.
pub(crate) fn connection_limit(wanted: usize, refusals: usize) -> usize {
    let Some(limit) = raise_to_hard() else {
        return wanted;
    };
    let fits = connections_that_fit(wanted, limit.soft, refusals);
    if fits < wanted {
        crate::logging::notice(&format!(
            "{} is {wanted}, but the open-file limit is {} (hard limit {}): \
             using {fits} connections, leaving {RESERVE} descriptors for Keeper, the KB and logs \
             and {refusals} for refused connections (raise the hard limit, e.g. LimitNOFILE= or ulimit -Hn)",
            SettingKey::HttpMaxConnections,
            limit.soft,
            limit.hard
        ));
    }
    fits
}

/// Descriptors the accept loop leaves free: below this many, it takes no new
/// connection (it waits for some to close, then accepts and closes one).
pub(crate) const HEADROOM: u64 = 32;

/// How full the process's descriptor table is, as the accept loop sees it:
/// counted (`/proc/self/fd`) when the room the last count left is spent,
/// each connection accepted since taken as two descriptors (its socket and
/// its Keeper connection), so counting is rare far from the limit.
#[derive(Debug)]
pub(crate) struct DescriptorGauge {
    /// The soft limit (`None`: unknown or not countable; never full).
    soft: Option<u64>,
    /// Connections that may still be accepted before counting again.
    credit: u64,
}

impl DescriptorGauge {
    /// Under the limit in force now.
    pub(crate) fn new() -> Self {
        let mut limit = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        // SAFETY: getrlimit writes the struct it is given, which lives here.
        let read = unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) } == 0;
        Self {
            soft: (read && limit.rlim_cur != libc::RLIM_INFINITY).then_some(limit.rlim_cur),
            credit: 0,
        }
    }

    /// Whether one more connection may be accepted and kept: false when
    /// fewer than [`HEADROOM`] descriptors are free.
    pub(crate) fn has_room(&mut self) -> bool {
        let Some(soft) = self.soft else {
            return true;
        };
        if self.credit > 0 {
            self.credit -= 1;
            return true;
        }
        let Some(open) = open_descriptors() else {
            self.soft = None;
            return true;
        };
        let free = soft.saturating_sub(open);
        if free <= HEADROOM {
            return false;
        }
        self.credit = (free - HEADROOM) / 2;
        true
    }
}

/// The descriptors open in this process (Linux: `/proc/self/fd`).
fn open_descriptors() -> Option<u64> {
    let entries = std::fs::read_dir("/proc/self/fd").ok()?;
    Some(entries.count() as u64)
}

/// Whether `error` says the process (EMFILE) or the system (ENFILE) has no
/// descriptor left.
pub(crate) fn is_out_of_descriptors(error: &std::io::Error) -> bool {
    matches!(error.raw_os_error(), Some(libc::EMFILE | libc::ENFILE))
}

/// A descriptor held in reserve (`/dev/null`), given up when `accept` finds
/// none left, so the waiting connection is accepted and closed instead of
/// waiting in the queue for a descriptor that may not come.
#[derive(Debug)]
pub(crate) struct SpareDescriptor(Option<std::fs::File>);

impl SpareDescriptor {
    /// Takes one (none when even that fails).
    pub(crate) fn take() -> Self {
        Self(std::fs::File::open("/dev/null").ok())
    }

    /// Whether one is held.
    pub(crate) fn is_held(&self) -> bool {
        self.0.is_some()
    }

    /// Gives it up.
    pub(crate) fn release(&mut self) {
        self.0 = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_limit_is_kept_below_what_the_descriptors_allow() {
        assert_eq!(connections_that_fit(1024, 1024, 256), 1024 - 128 - 256);
        assert_eq!(connections_that_fit(1024, 65_536, 256), 1024);
        assert_eq!(connections_that_fit(64, 1024, 256), 64);
        assert_eq!(
            connections_that_fit(1024, 256, 256),
            64,
            "a quarter at least"
        );
        assert_eq!(connections_that_fit(1024, 0, 256), 1);
    }

    #[test]
    fn the_gauge_counts_again_only_when_its_room_is_spent() {
        let open = open_descriptors().expect("countable here");
        let mut near = DescriptorGauge {
            soft: Some(open + HEADROOM - 8),
            credit: 0,
        };
        assert!(!near.has_room(), "within the headroom: full");
        let mut far = DescriptorGauge {
            soft: Some(open + HEADROOM + 100),
            credit: 0,
        };
        assert!(far.has_room());
        // Half the room left (two descriptors a connection; other tests
        // may hold a few descriptors more or less meanwhile).
        assert!((40..=54).contains(&far.credit), "{}", far.credit);
        assert!(
            DescriptorGauge {
                soft: None,
                credit: 0
            }
            .has_room()
        );
    }

    #[test]
    fn the_soft_limit_is_raised_to_the_hard_one() {
        let limit = raise_to_hard().expect("the limits can be read");
        assert!(limit.soft <= limit.hard);
        assert_eq!(
            raise_to_hard(),
            Some(limit),
            "raising twice changes nothing"
        );
        if limit.hard != libc::RLIM_INFINITY {
            assert_eq!(limit.soft, limit.hard);
        }
    }
}
