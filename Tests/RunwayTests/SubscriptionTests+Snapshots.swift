import Testing
import CRunwayABI
import RunwaySim
@testable import Runway
@testable import RunwayCore
#if canImport(Glibc)
import Glibc
#endif

// Snapshots to subscribers: the latest policy, shared serialisation, pacing (the suite is
// SubscriptionTests.swift's).

extension SubscriptionTests {
    @Test func latestPolicySkipsToTheNewestSnapshotButKeepsDiscreteEvents() throws {
        let s = try CSession(#"{"distance_filter_m":0}"#)
        let r = Recorder()
        _ = s.subscribe(nil, r)        // default policy: latest
        r.hold()
        s.start(0)
        for i in 0..<200 { s.fix(Double(i), 52 + Double(i) * 0.0001) }
        s.stop(200)
        r.release()
        #expect(r.wait { $0.contains { kind($0) == "phase" && $0.has("touchdown") } && $0.last.map { kind($0) == "flight" } == true })
        let events = r.snapshot
        let flights = events.filter { kind($0) == "flight" }
        #expect(flights.count < 20, "coalesced: \(flights.count) of 202 snapshots delivered")
        #expect(events.filter { kind($0) == "phase" }.count == 2)
        let seqs = events.compactMap { field("seq", in: $0) }
        #expect(seqs == seqs.sorted(), "delivered in seq order")
        #expect(flights.last.flatMap { field("fixes", in: $0) } == 200)
    }

    /// The newest flight snapshot is one payload for every latest subscriber: serialised once,
    /// by whichever consumer reads it first, however many take it (poll and callback alike).
    @Test func aSnapshotIsSerialisedOnceHoweverManySubscribersTakeIt() throws {
        let s = try CSession()
        let session = try Runway.session(s.handle)
        let polls = (0..<8).map { _ in s.subscribe(#"{"kinds":["flight"]}"#, nil).1 }
        let recorders = (0..<8).map { _ in Recorder() }
        for r in recorders { _ = s.subscribe(#"{"kinds":["flight"]}"#, r) }
        s.fix(0, 52)
        let texts = polls.compactMap { s.poll($0).1 }
        #expect(texts.count == 8)
        for r in recorders { #expect(r.wait { $0.count == 1 }) }
        let delivered = texts + recorders.flatMap(\.snapshot)
        #expect(Set(delivered).count == 1, "every subscriber got the same text")
        #expect(field("fixes", in: delivered[0]) == 1)
        #expect(session.lock.withLock { session.flightSlot?.timesSerialised } == 1, "16 subscribers, one serialisation")
        #expect(polls.allSatisfy { s.poll($0).1 == nil }, "taken once each")
    }

    /// Latest callback subscribers pushed to faster than they take snapshots share them (one
    /// written moments ago is handed on as it is, `Session.currentFlight`), yet none is left
    /// with an older one: each ends with the snapshot of the last push.
    @Test func sharedSnapshotsStillEndWithTheNewestForEverySubscriber() throws {
        let s = try CSession()
        let recorders = (0..<8).map { _ in Recorder() }
        for r in recorders { _ = s.subscribe(#"{"kinds":["flight"]}"#, r) }
        s.start(0)
        let n = 5_000
        for i in 1...n { s.fix(Double(i), 52 + Double(i) * 0.00001) }
        for r in recorders {
            #expect(r.wait { $0.last.flatMap { field("fixes", in: $0) } == Double(n) }, "every subscriber gets the newest")
            let fixes = r.snapshot.compactMap { field("fixes", in: $0) }
            #expect(fixes == fixes.sorted(), "never an older snapshot after a newer one")
        }
    }

    /// The sharing itself: a paced taker moments after another gets the same payload although a
    /// push came between, and stays pending, so that the newest snapshot still comes to it.
    @Test func aSharedOlderSnapshotLeavesItsSubscriberPendingForTheNewest() throws {
        let s = try CSession()
        let session = try Runway.session(s.handle)
        let a = s.subscribe(#"{"kinds":["flight"]}"#, nil).1, b = s.subscribe(#"{"kinds":["flight"]}"#, nil).1
        s.fix(0, 52)
        let subs = session.lock.withLock { session.subscriptionsForTests }
        let subA = try #require(subs.first { $0.id == a }), subB = try #require(subs.first { $0.id == b })
        let now = Session.monotonicNs()
        let first = session.lock.withLock { session.nextEvent(subA, now: now) }
        s.fix(1, 52.0001)
        let shared = session.lock.withLock { session.nextEvent(subB, now: now + 1) }
        #expect(first != nil && shared === first, "handed on as it is")
        #expect(session.lock.withLock { subB.flightPending }, "still pending: the newest is to come")
        #expect(s.poll(b).1.flatMap { field("fixes", in: $0) } == 2, "and it comes")
        let late = session.lock.withLock { session.nextEvent(subA, now: now + session.flightIntervalNs) }
        #expect(late !== first, "too late to share: written anew")
    }

    /// Snapshots superseded before anyone takes them are neither built nor serialised: a push
    /// only marks one pending, the taker writes the core's current snapshot, into the same
    /// payload again while no one else holds it (no allocation).
    @Test func supersededSnapshotsAreNeitherBuiltNorSerialisedNorReallocated() throws {
        let s = try CSession()
        let session = try Runway.session(s.handle)
        let (_, id) = s.subscribe(nil, nil)       // latest, every kind
        for i in 0..<100 { s.fix(Double(i), 52 + Double(i) * 0.0001) }
        #expect(session.lock.withLock { session.flightSlot } == nil, "100 pushes, no snapshot built")
        func takeFlights() -> [String] {
            var flights: [String] = []
            while case (RUNWAY_OK, let e?) = s.poll(id) { if kind(e) == "flight" { flights.append(e) } }
            return flights
        }
        let first = takeFlights()
        #expect(first.count == 1)
        #expect(first.first.flatMap { field("fixes", in: $0) } == 100)
        #expect(first.first.flatMap { field("seq", in: $0) } == field("seq", in: s.snapshot()))
        // (Only the identity is kept: a reference held here would make the slot shared.)
        let (slot, times) = session.lock.withLock { (session.flightSlot.map(ObjectIdentifier.init), session.flightSlot?.timesSerialised) }
        #expect(times == 1)
        for i in 100..<200 { s.fix(Double(i), 52 + Double(i) * 0.0001) }
        let second = takeFlights()
        #expect(second.first.flatMap { field("fixes", in: $0) } == 200)
        let (again, timesAgain) = session.lock.withLock { (session.flightSlot.map(ObjectIdentifier.init), session.flightSlot?.timesSerialised) }
        #expect(slot != nil && again == slot, "refilled in place")
        #expect(timesAgain == 1)
    }

    /// A delivery thread is woken only once it waits, and once a wait: never while its callback
    /// runs (it finds the new events itself), never again for a snapshot that replaces a pending
    /// one, never for a snapshot while it paces them.
    @Test func aDeliveryThreadIsWokenOnlyWhenItWaitsAndOnce() throws {
        let s = try CSession(#"{"distance_filter_m":0}"#)
        let session = try Runway.session(s.handle)
        let r = Recorder()
        let (_, id) = s.subscribe(nil, r)
        let sub = session.lock.withLock { session.subscriptionsForTests.first { $0.id == id } }
        s.start(0)
        #expect(r.wait { $0.contains { kind($0) == "flight" } })
        r.hold()
        s.fix(1, 52)
        #expect(r.wait { _ in r.blocked })     // the callback runs, stuck in host code
        let before = session.lock.withLock { sub?.wakesNoted ?? -1 }
        for i in 2..<200 { s.fix(Double(i), 52 + Double(i) * 0.0001) }
        _ = s.lap(200)
        #expect(session.lock.withLock { sub?.wakesNoted ?? -1 } == before, "not woken while busy")
        r.release()
        #expect(r.wait { $0.last.flatMap { field("fixes", in: $0) } == 199 })
        for i in 201..<2000 { s.fix(Double(i), 52 + Double(i) * 0.0001) }
        #expect(r.wait { $0.last.flatMap { field("fixes", in: $0) } == 1998 })
        let (wakes, waits) = session.lock.withLock { (sub?.wakesNoted ?? -1, sub?.waits ?? 0) }
        #expect(wakes <= waits, "\(wakes) wake-ups for \(waits) waits")
        let seqs = r.snapshot.compactMap { field("seq", in: $0) }
        #expect(seqs == seqs.sorted())
        #expect(r.snapshot.contains { kind($0) == "split" }, "the lap's split, kept")
    }

    /// Pacing holds back flight snapshots only: a discrete event wakes a pacing thread and is
    /// delivered at once, the newer snapshot waits for the end of the interval (here longer
    /// than any test), and ending the subscription does not wait for it.
    @Test func pacingHoldsBackSnapshotsButNotDiscreteEvents() throws {
        let s = try CSession()
        let session = try Runway.session(s.handle)
        session.lock.withLock { session.flightIntervalNs = 3_600_000_000_000 }   // an hour
        let r = Recorder()
        let (_, id) = s.subscribe(nil, r)
        let sub = session.lock.withLock { session.subscriptionsForTests.first { $0.id == id } }
        s.start(0)
        #expect(r.wait { $0.contains { kind($0) == "flight" } })
        #expect(r.wait { _ in session.lock.withLock { sub?.pacing == true } })
        let wakes = session.lock.withLock { sub?.wakesNoted ?? -1 }
        for i in 1..<50 { s.fix(Double(i), 52 + Double(i) * 0.0001) }
        #expect(session.lock.withLock { sub?.wakesNoted ?? -1 } == wakes, "snapshots do not wake a pacing thread")
        _ = s.lap(49)   // (at the latest fix: a lap between fixes waits for the next one)
        #expect(r.wait { $0.contains { kind($0) == "split" } }, "the split is not held back")
        #expect(r.snapshot.filter { kind($0) == "flight" }.count == 1, "the newer snapshot waits")
        #expect(session.lock.withLock { sub?.flightPending == true })
        #expect(runway_unsubscribe_impl(s.handle, id) == RUNWAY_OK)   // returns without the hour
    }

    /// A latest subscriber's snapshot is the same object runway_snapshot_json returns, also when
    /// a queue subscriber makes the core build every snapshot as an event.
    @Test func theSharedSnapshotMatchesTheSnapshotCallWithOrWithoutQueueSubscribers() throws {
        for queue in [false, true] {
            let s = try CSession()
            let (_, latest) = s.subscribe(#"{"kinds":["flight"]}"#, nil)
            let q = queue ? s.subscribe(#"{"kinds":["flight"],"policy":"queue"}"#, nil).1 : 0
            s.start(0)
            for i in 0..<20 { s.fix(Double(i), 52 + Double(i) * 0.0001) }
            _ = s.lap(20)
            let got = s.poll(latest).1
            #expect(got == s.snapshot(), "queue subscriber: \(queue)")
            #expect(s.poll(latest).1 == nil)
            if queue {
                var n = 0
                while case (RUNWAY_OK, let e?) = s.poll(q) { if kind(e) == "flight" { n += 1 } }
                #expect(n == 22, "start, 20 fixes, the lap: every snapshot queued")
            }
        }
    }
}
