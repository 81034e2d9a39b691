import RunwayCore

/// The newest flight snapshot shared by a session's `latest` subscribers: written once, when
/// the first of them takes it, into a payload reused from snapshot to snapshot (`flightSlot`,
/// with spares so that a delivery thread never allocates). Every function here runs with the
/// session's lock held.
extension Session {
    /// The next event of `sub` (lock held): a pending flight snapshot is the core's current one,
    /// written only if it is the one taken (`currentFlight`).
    /// `now` (monotonic ns, 0: none) is a paced delivery thread's time: see `currentFlight`.
    func nextEvent(_ sub: Subscription, now: UInt64 = 0) -> Payload? {
        let wasPending = sub.flightPending
        let p = sub.next(flightSeq: driver.core.flightSeq) { currentFlight(sharedAt: now) }
        if wasPending && !sub.flightPending { latestNotPending += 1 }   // only latest subscribers are ever pending
        return p
    }

    /// The core's current snapshot as a payload (lock held): the slot's, when it is up to date;
    /// else written now, into the slot itself when no one else holds it (the usual case: with
    /// policy latest most snapshots are superseded unread, and never built), or into a spare.
    ///
    /// A paced delivery thread (`now` not 0) takes the slot as it is when it was written less
    /// than a quarter of the pacing interval ago, even if pushes came since: the session's
    /// `latest` subscribers, whose intervals are aligned, come for their snapshots within
    /// microseconds of each other, and share one instead of each writing its own while the
    /// pushes go on (the subscriber stays pending, and takes the newest in its next interval).
    func currentFlight(sharedAt now: UInt64 = 0) -> Payload? {
        let seq = driver.core.flightSeq
        if let slot = flightSlot, slot.seq == seq { return slot }
        if now != 0, let slot = flightSlot, flightWrittenNs >= now || now - flightWrittenNs < flightIntervalNs / 4 { return slot }
        if !isKnownUniquelyReferenced(&flightSlot) {
            flightSlot = takeSpareFlight() ?? Payload(flightWithMetrics: 8)
        }
        flightSlot?.refill(seq: seq) { driver.core.writeSnapshot(into: &$0) }
        flightWrittenNs = now != 0 ? now : Session.monotonicNs()
        return flightSlot
    }

    /// Before a call that changes what the snapshot shows without a new one (a tick advances the
    /// clock): the pending snapshot is written as it was (lock held).
    func settlePendingFlight() {
        guard latestFlightSubs.contains(where: \.flightPending) else { return }
        _ = currentFlight()
    }

    func takeSpareFlight() -> Payload? {
        guard let spare = spareFlights else { return nil }
        spareFlights = spare.nextRetired
        spare.nextRetired = nil
        spareFlightCount -= 1
        return spare
    }

    /// Keeps a reusable flight payload that no one else references as a spare (lock held), if
    /// the session has room for it; false: the caller drops it.
    func keepSpareFlight(_ p: Payload) -> Bool {
        guard p.reusable, !latestFlightSubs.isEmpty, spareFlightCount <= latestFlightSubs.count else { return false }
        p.nextRetired = spareFlights
        spareFlights = p
        spareFlightCount += 1
        return true
    }
}
