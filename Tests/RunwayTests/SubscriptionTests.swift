import Testing
import CRunwayABI
import RunwaySim
@testable import Runway
@testable import RunwayCore
#if canImport(Glibc)
import Glibc
#endif

@Suite("Subscriptions through the C ABI")
struct SubscriptionTests {
    @Test func callbacksRunOnALibraryThread() throws {
        let s = try CSession()
        let r = Recorder()
        #expect(s.subscribe(nil, r).0 == RUNWAY_OK)
        s.fix(0, 52)
        #expect(r.wait { !$0.isEmpty })
        #expect(!r.lock.withLock { r.threads }.contains(UInt(pthread_self())))
    }

    @Test func cancellingOneSubscriberLeavesTheOtherRunning() throws {
        let s = try CSession()
        let a = Recorder(), b = Recorder()
        let (_, idA) = s.subscribe(#"{"policy":"queue"}"#, a)
        let (_, idB) = s.subscribe(#"{"policy":"queue"}"#, b)
        #expect(idA != idB && idA != 0)
        for i in 0..<5 { s.fix(Double(i), 52 + Double(i) * 0.0001) }
        #expect(a.wait { $0.count >= 5 })
        #expect(runway_unsubscribe_impl(s.handle, idA) == RUNWAY_OK)
        let frozen = a.count
        for i in 5..<10 { s.fix(Double(i), 52 + Double(i) * 0.0001) }
        #expect(b.wait { $0.filter { kind($0) == "flight" }.count == 10 })
        #expect(a.count == frozen, "no callback after unsubscribe returned")
        // Cancelling twice is harmless: a specific status, nothing else.
        #expect(runway_unsubscribe_impl(s.handle, idA) == RUNWAY_ERR_NOT_FOUND)
        s.fix(10, 52.002)
        #expect(b.wait { $0.filter { kind($0) == "flight" }.count == 11 })
    }

    @Test func unsubscribeWaitsForARunningCallback() throws {
        let s = try CSession()
        let r = Recorder()
        let (_, id) = s.subscribe(#"{"policy":"queue"}"#, r)
        r.hold()                      // the next callback blocks inside the host's code
        s.fix(0, 52)
        s.fix(1, 52.0001)
        #expect(r.wait { _ in r.blocked })  // the callback is running (and stuck in host code)
        let unsubscribed = Recorder()  // used as a flag set from another thread
        let done = spawnThread {
            _ = runway_unsubscribe_impl(s.handle, id)
            unsubscribed.lock.withLock { unsubscribed.gateOpen = false; unsubscribed.changed.broadcast() }
        }
        #expect(done)
        // While the callback is blocked, unsubscribe has not returned.
        #expect(!unsubscribed.wait(seconds: 0.3) { _ in !unsubscribed.gateOpen })
        r.release()
        #expect(unsubscribed.wait(seconds: 10) { _ in !unsubscribed.gateOpen })
        let after = r.count
        s.fix(2, 52.0002)
        #expect(!r.wait(seconds: 0.3) { $0.count > after })
    }

    @Test func aCallbackMayUnsubscribeItselfAndReadASnapshot() throws {
        let s = try CSession()
        let r = Recorder()
        let idBox = Recorder()  // holds the id and what the callback saw, under its lock
        nonisolated(unsafe) var id: UInt64 = 0
        nonisolated(unsafe) var snapshotInCallback = ""
        nonisolated(unsafe) var unsubscribeStatus = RUNWAY_ERR_INTERNAL
        r.onEvent = { rec, _ in
            var out: UnsafeMutablePointer<CChar>? = nil
            if runway_snapshot_json_impl(s.handle, &out) == RUNWAY_OK, let out {
                idBox.lock.withLock { snapshotInCallback = String(cString: out) }
                runway_string_free_impl(out)
            }
            let st = runway_unsubscribe_impl(s.handle, idBox.lock.withLock { id })
            idBox.lock.withLock { unsubscribeStatus = st; idBox.changed.broadcast() }
        }
        let (st, got) = s.subscribe(#"{"kinds":["flight"],"policy":"queue"}"#, r)
        #expect(st == RUNWAY_OK)
        idBox.lock.withLock { id = got }
        s.fix(0, 52)
        s.fix(1, 52.0001)
        s.fix(2, 52.0002)
        #expect(idBox.wait { _ in unsubscribeStatus == RUNWAY_OK })
        #expect(idBox.lock.withLock { snapshotInCallback.has("\"kind\":\"flight\"") })
        #expect(!r.wait(seconds: 0.3) { $0.count > 1 }, "no callback after it unsubscribed itself")
    }

    @Test func closingFromInsideACallbackIsRefusedAndDetected() throws {
        let s = try CSession()
        let r = Recorder()
        nonisolated(unsafe) var message = ""
        r.onEvent = { rec, _ in
            runway_session_close_impl(s.handle)
            let m = lastError()
            rec.lock.withLock { message = m; rec.changed.broadcast() }
        }
        _ = s.subscribe(#"{"kinds":["phase"]}"#, r)
        #expect(s.start(0) == RUNWAY_OK)
        #expect(r.wait { _ in !message.isEmpty })
        #expect(message.has("inside"))
        // The session is still open and usable.
        #expect(s.fix(1, 52) == RUNWAY_OK)
        #expect(s.snapshot().has("\"fixes\":1"))
    }

    @Test func closingEndsEverySubscriptionAndNoCallbackRunsAfterwards() throws {
        let s = try CSession()
        let recorders = (0..<4).map { _ in Recorder() }
        for r in recorders { _ = s.subscribe(#"{"policy":"queue"}"#, r) }
        for i in 0..<50 { s.fix(Double(i), 52 + Double(i) * 0.0001) }
        s.close()
        let counts = recorders.map(\.count)
        #expect(!recorders[0].wait(seconds: 0.3) { $0.count > counts[0] })
        #expect(recorders.map(\.count) == counts)
    }

    /// Closes the session on another thread while its callbacks are blocked: close does not
    /// return until `release` lets them go, then returns.
    private func closeWhileCallbacksBlock(_ handle: OpaquePointer?, _ why: Comment, release: () -> Void) {
        nonisolated(unsafe) let handle = handle
        let done = Recorder()   // used as a flag set from the closing thread
        #expect(spawnThread {
            runway_session_close_impl(handle)
            done.lock.withLock { done.gateOpen = false; done.changed.broadcast() }
        })
        let closed: ([String]) -> Bool = { _ in !done.gateOpen }
        #expect(!done.wait(seconds: 0.2, until: closed), why)
        release()
        #expect(done.wait(seconds: 10, until: closed))
    }

    /// A close right after a stop delivers what was queued before it returns: every queued event
    /// to a queue subscriber, the newest snapshot and the touchdown to a latest one (they were
    /// dropped: a host that closed after stopping seldom saw its touchdown).
    @Test func closingDeliversWhatWasQueuedBeforeItReturns() throws {
        let s = try CSession()
        let queue = Recorder(), latest = Recorder()
        _ = s.subscribe(#"{"policy":"queue","capacity":1000}"#, queue)
        _ = s.subscribe(nil, latest)
        queue.hold()
        latest.hold()
        s.start(0)
        for i in 1...50 { s.fix(Double(i), 52 + Double(i) * 0.0001) }
        s.stop(51)
        #expect(queue.wait { _ in queue.blocked } && latest.wait { _ in latest.blocked })
        nonisolated(unsafe) let handle = s.handle
        s.handle = nil
        closeWhileCallbacksBlock(handle, "close waits for the callbacks") {
            queue.release()
            latest.release()
        }
        let q = queue.snapshot, l = latest.snapshot
        #expect(q.filter { kind($0) == "flight" }.count == 52, "every snapshot queued: \(q.filter { kind($0) == "flight" }.count)")
        #expect(q.contains { kind($0) == "phase" && $0.has("touchdown") })
        #expect(l.contains { kind($0) == "phase" && $0.has("touchdown") })
        #expect(l.last(where: { kind($0) == "flight" }).map { $0.has("touchdown") } == true, "the newest snapshot")
    }

    /// A callback that subscribes or pushes while its session closes (close delivers what was
    /// queued, so callbacks run during it) is RUNWAY_ERR_STATE: a subscription made then was never
    /// ended or joined by the close, so its thread outlived the session and its callback ran on the
    /// closed session's events (here: a push's from the same callback), possibly after close
    /// returned; and a push then changed a flight whose events no subscriber would see.
    @Test func subscribingOrPushingFromACallbackWhileTheSessionClosesIsRefused() throws {
        let s = try CSession()
        let outer = Recorder(), late = Recorder()
        nonisolated(unsafe) let handle = s.handle
        nonisolated(unsafe) var status: runway_status? = nil
        nonisolated(unsafe) var pushed: (runway_status, String)? = nil
        outer.onEvent = { rec, _ in
            guard rec.lock.withLock({ status == nil }) else { return }
            var id: UInt64 = 0
            let st = runway_subscribe_impl(handle, nil, Recorder.callback, late.user, &id)
            let p = "{\"t\":10,\"lat\":52.001,\"lon\":4}".withCString { runway_push_json_impl(handle, $0) }
            let message = lastError()
            rec.lock.withLock { status = st; pushed = (p, message); rec.changed.broadcast() }
        }
        _ = s.subscribe(#"{"policy":"queue"}"#, outer)
        outer.hold()
        s.start(0)
        s.fix(1, 52)
        #expect(outer.wait { _ in outer.blocked })
        s.handle = nil
        closeWhileCallbacksBlock(handle, "close waits for the callback") { outer.release() }
        #expect(outer.lock.withLock { status } == RUNWAY_ERR_STATE)
        #expect(!late.wait(seconds: 0.3) { !$0.isEmpty }, "no callback of a subscription made during the close")
        let push = outer.lock.withLock { pushed }
        #expect(push?.0 == RUNWAY_ERR_STATE)
        #expect(push?.1.contains("closing") == true, "\(push?.1 ?? "")")
    }

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
        _ = s.lap(50)
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

    @Test func aQueueSubscriberSeesEveryEventAndIsToldOfOverflow() throws {
        let s = try CSession()
        let (st, id) = s.subscribe(#"{"policy":"queue","capacity":5,"kinds":["flight"]}"#, nil)
        #expect(st == RUNWAY_OK)
        for i in 0..<20 { s.fix(Double(i), 52 + Double(i) * 0.0001) }
        var got: [String] = []
        while case (RUNWAY_OK, let e?) = s.poll(id) { got.append(e) }
        #expect(got.count == 6)
        #expect(got.prefix(5).allSatisfy { kind($0) == "flight" })
        #expect(kind(got[5]) == "overflow")
        #expect(field("dropped", in: got[5]) == 15)
        let seqs = got.prefix(5).compactMap { field("seq", in: $0) }
        #expect(zip(seqs, seqs.dropFirst()).allSatisfy { $1 == $0 + 1 }, "gap-free until the overflow")
        // Afterwards the queue works again, and a poll with nothing waiting gives NULL.
        s.fix(20, 52.003)
        #expect(s.poll(id).1.map(kind) == "flight")
        #expect(s.poll(id).1 == nil)
    }

    /// Found by the stress test under ThreadSanitizer: a latest subscription whose discrete queue
    /// overflowed got the newest snapshot (seq 37) before the overflow notice (seq 36, the last
    /// dropped event). Every subscription's seq increases, notices included.
    @Test(arguments: [#"{"capacity":2}"#, #"{"capacity":1,"kinds":["log","flight","phase","split"]}"#,
                      #"{"policy":"queue","capacity":2,"kinds":["log","flight"]}"#])
    func seqIncreasesThroughOverflowsAndCoalescing(_ options: String) throws {
        let s = try CSession()
        let (st, id) = s.subscribe(options, nil)
        #expect(st == RUNWAY_OK)
        s.start()
        var rng = SimRandom(seed: 7)
        var seqs: [Double] = []
        var notices = 0
        for i in 0..<400 {
            // One fix in three goes back in time: refused, with a log line (a discrete event).
            let back = rng.next() % 3 == 0
            s.fix(back ? 1 : Double(100 + i), 52 + Double(i) * 0.00003)
            if rng.next() % 4 == 0 { _ = s.lap() }
            for _ in 0..<(rng.next() % 4) {
                guard case (RUNWAY_OK, let e?) = s.poll(id) else { break }
                if kind(e) == "overflow" { notices += 1 }
                if let q = field("seq", in: e) { seqs.append(q) }
            }
        }
        #expect(notices > 0, "the scenario must overflow")
        let order = zip(seqs, seqs.dropFirst()).first { $1 <= $0 }
        #expect(order == nil, "seq \(order.map { "\($0.1) after \($0.0)" } ?? "")")
    }

    @Test func kindsFilterWhatASubscriberReceives() throws {
        let s = try CSession()
        let (_, id) = s.subscribe(#"{"kinds":["phase","log"],"policy":"queue"}"#, nil)
        s.start(0)
        s.fix(1, 52)
        var kinds: [String] = []
        while case (RUNWAY_OK, let e?) = s.poll(id) { kinds.append(kind(e)) }
        #expect(kinds == ["phase", "log"])
    }

    @Test func pollMisuseGetsSpecificStatuses() throws {
        let s = try CSession()
        let r = Recorder()
        let (_, cb) = s.subscribe(nil, r)
        #expect(s.poll(cb).0 == RUNWAY_ERR_ARGUMENT)
        #expect(s.poll(9999).0 == RUNWAY_ERR_NOT_FOUND)
        #expect(runway_unsubscribe_impl(s.handle, 9999) == RUNWAY_ERR_NOT_FOUND)
        for bad in [#"{"kinds":["flight","weather"]}"#, #"{"policy":"fifo"}"#, #"{"capacity":0,"policy":"queue"}"#,
                    #"{"capacity":1.5}"#, #"{"kinds":"flight"}"#, #"{"polcy":"queue"}"#, "nope"] {
            #expect(s.subscribe(bad, nil).0 == RUNWAY_ERR_ARGUMENT, "\(bad)")
            #expect(!lastError().isEmpty)
        }
    }

    @Test func manyThreadsPushingIntoOneSessionLoseNothing() throws {
        let s = try CSession(#"{"distance_filter_m":0,"clock":"live"}"#)
        let (_, id) = s.subscribe(#"{"policy":"queue","capacity":65536}"#, nil)
        let r = Recorder()
        _ = s.subscribe(nil, r)
        let done = Recorder()
        nonisolated(unsafe) var finished = 0
        for thread in 0..<4 {
            _ = spawnThread {
                for i in 0..<500 {
                    let json = "{\"lat\":\(10 + Double(thread)),\"lon\":\(Double(i) * 1e-5)}"
                    _ = json.withCString { runway_push_json_impl(s.handle, $0) }
                }
                done.lock.withLock { finished += 1; done.changed.broadcast() }
            }
        }
        #expect(done.wait(seconds: 60) { _ in finished == 4 })
        #expect(field("fixes", in: s.snapshot()) == 2000)
        var seqs: [Double] = []
        var flights = 0
        while case (RUNWAY_OK, let e?) = s.poll(id) {
            if let q = field("seq", in: e) { seqs.append(q) }
            if kind(e) == "flight" { flights += 1 }
        }
        #expect(flights == 2000)
        #expect(zip(seqs, seqs.dropFirst()).allSatisfy { $1 == $0 + 1 })
    }
}

@Suite("Closing")
struct ClosingTests {
    @Test func closeWaitsForACallbackThatUnsubscribedItself() throws {
        let s = try CSession()
        let r = Recorder()
        let gate = Recorder()      // holds the callback inside host code after it unsubscribed
        gate.hold()
        nonisolated(unsafe) var id: UInt64 = 0
        nonisolated(unsafe) var unsubscribed = false
        nonisolated(unsafe) var finished = false
        r.onEvent = { rec, _ in
            _ = runway_unsubscribe_impl(s.handle, rec.lock.withLock { id })
            gate.lock.withLock {
                unsubscribed = true
                gate.changed.broadcast()
                while !gate.gateOpen { gate.changed.wait() }
                finished = true
            }
        }
        let (_, got) = s.subscribe(#"{"kinds":["phase"]}"#, r)
        r.lock.withLock { id = got }
        s.start(0)
        #expect(gate.wait { _ in unsubscribed })
        let closer = Recorder()
        nonisolated(unsafe) var closed = false
        _ = spawnThread {
            s.close()
            closer.lock.withLock { closed = true; closer.changed.broadcast() }
        }
        #expect(!closer.wait(seconds: 0.3) { _ in closed }, "close returned while the callback ran")
        gate.release()
        #expect(closer.wait(seconds: 10) { _ in closed })
        #expect(gate.lock.withLock { finished })
    }
}
