import Testing
import CRunwayABI
import RunwaySim
@testable import Runway
@testable import RunwayCore
#if canImport(Glibc)
import Glibc
#endif

// Queue subscribers: overflow, seq, kinds, polling, many pushing threads (the suite is
// SubscriptionTests.swift's).

extension SubscriptionTests {
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
