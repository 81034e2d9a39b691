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
