import CRunwayABI
import Glibc
import RunwayCore

/// One event, shared by every subscriber that wants it and serialised to JSON at most once —
/// lazily, by the first consumer that needs the text (a delivery thread or a poll, outside the
/// session's lock), into a buffer the pushing thread allocated with the payload. A snapshot that
/// a `latest` subscriber skips is never serialised at all, and the pushing thread never pays for
/// JSON.
///
/// A delivery thread neither allocates nor frees a payload: the text goes into the buffer made
/// at `init`, and a payload whose last reference a delivery thread would drop is handed to the
/// session's retired list (`nextRetired`), which the next call on the session frees (or keeps
/// for reuse, `refill`) on its own thread. So a delivery thread whose callback does not allocate
/// never touches malloc, and glibc never gives it an arena of its own (64 MiB of address space
/// each).
///
/// The session's newest flight snapshot for its `latest` subscribers is a payload of its own
/// (`Session.flightSlot`), written by the first consumer that takes it (`refill`, under the
/// session's lock) and refilled in place while no one else holds it: neither building nor
/// serialising it allocates (`FlightComputer.writeSnapshot(into:)`, the kept buffer).
///
/// The text is guarded by a pthread mutex (`Lock`), which ThreadSanitizer understands.
final class Payload: @unchecked Sendable {
    private(set) var seq: UInt64
    let kind: EventKind
    // Set at init or by `refill` (only while unshared, under the session's lock).
    private var event: Event?
    /// A flight snapshot written by `refill` (when `event` is nil).
    private var flight: FlightData?
    /// Made to be refilled (`init(flightWithMetrics:)`): a spare of the session's when no one
    /// holds it.
    let reusable: Bool
    private let lock = Lock()
    // Guarded by `lock` until `written`; read-only after.
    @exclusivity(unchecked) private var writer: JSONWriter
    private var written = false
    /// The session's list of payloads retired by delivery threads, or of spare flight payloads
    /// (guarded by the session lock).
    var nextRetired: Payload?

    #if DEBUG
    /// How many times this payload's text was written since it was last filled (tests: once,
    /// whoever reads it).
    private(set) var serialisations = 0
    #endif

    init(_ event: Event) {
        seq = event.seq
        kind = event.kind
        self.event = event
        reusable = false
        writer = JSONWriter(capacity: event.serialisedCapacity)
    }

    /// An event made as text already (the overflow notice).
    init(seq: UInt64, kind: EventKind, text: JSONWriter) {
        self.seq = seq
        self.kind = kind
        event = nil
        reusable = false
        writer = text
        writer.terminate()
        written = true
    }

    /// A flight payload to be filled by `refill` (capacity: a snapshot's text with `metrics`
    /// figures).
    init(flightWithMetrics metrics: Int) {
        seq = 0
        kind = .flight
        event = nil
        reusable = true
        writer = JSONWriter(capacity: 1536 + 96 * metrics)
        var data = FlightData()
        data.metrics.reserveCapacity(metrics)   // so that writing a snapshot into it allocates nothing
        flight = data
    }

    /// Writes a new flight snapshot into a flight payload that no one else references (the
    /// caller holds the only reference, under the session's lock), keeping its buffers: `write`
    /// gets the previous snapshot to overwrite.
    func refill(seq: UInt64, _ write: (inout FlightData) -> Void) {
        lock.withLock {
            var data = flight.take() ?? FlightData()
            write(&data)
            flight = data
            event = nil
            self.seq = seq
            writer.removeAll()
            written = false
            #if DEBUG
            serialisations = 0
            #endif
        }
    }

    /// Calls `body` with the NUL-terminated JSON (valid only during the call), serialising it first
    /// if no consumer has yet.
    func withBytes<R, E: Error>(_ body: (UnsafeBufferPointer<UInt8>) throws(E) -> R) throws(E) -> R {
        lock.withLock {
            guard !written else { return }
            if let event { event.write(to: &writer) } else { flight?.write(to: &writer) }
            writer.terminate()
            written = true
            #if DEBUG
            serialisations += 1
            #endif
        }
        return try writer.withBytes(body)
    }

    /// The NUL-terminated JSON (a copy).
    var bytes: [UInt8] { withBytes { Array($0) } }

    #if DEBUG
    var timesSerialised: Int { lock.withLock { serialisations } }
    #endif
}

/// What a subscriber asked for: kinds, buffering policy, capacity.
struct SubscriptionOptions: Sendable, Equatable {
    enum Policy: String, Sendable { case latest, queue }

    static let maxCapacity = Int(RUNWAY_MAX_QUEUE_CAPACITY)
    static let defaultCapacity = Int(RUNWAY_DEFAULT_QUEUE_CAPACITY)

    var kinds: UInt32 = EventKind.allCases.reduce(0) { $0 | $1.bit }
    var policy: Policy = .latest
    var capacity = SubscriptionOptions.defaultCapacity

    /// Reads options JSON; unknown keys, kinds or policies are argument errors.
    static func parse(_ text: String?) throws(RunwayError) -> SubscriptionOptions {
        var o = SubscriptionOptions()
        guard let text, !text.isEmpty else { return o }
        let fields: [(key: String, value: JSONValue)]
        do { fields = try JSONInput.object(text) } catch {
            throw RunwayError(error.status == .limit ? .limit : .argument, "options: \(error.message)")
        }
        if let duplicate = JSONInput.duplicateKey(in: fields, text: text) { throw RunwayError(.argument, "options: \(duplicate)") }
        for (key, value) in fields {
            switch key {
            case "kinds":
                guard case .array(let list) = value else { throw RunwayError(.argument, "options: \"kinds\" must be an array of strings") }
                var mask: UInt32 = 0
                for item in list {
                    guard case .string(let name) = item, let kind = EventKind(rawValue: name), kind != .overflow else {
                        throw RunwayError(.argument, "options: unknown kind in \"kinds\" (expected flight, phase, tick, log, split, alert)")
                    }
                    mask |= kind.bit
                }
                o.kinds = mask
            case "policy":
                guard case .string(let s) = value, let p = Policy(rawValue: s) else {
                    throw RunwayError(.argument, "options: \"policy\" must be \"latest\" or \"queue\"")
                }
                o.policy = p
            case "capacity":
                guard let n = value.finiteNumber, n == n.rounded(), n >= 1 else {
                    throw RunwayError(.argument, "options: \"capacity\" must be an integer in 1...\(maxCapacity)")
                }
                guard n <= Double(maxCapacity) else {
                    throw RunwayError(.limit, "options: \"capacity\" \(JSONInput.integerText(n)) exceeds the limit of \(maxCapacity) events (RUNWAY_MAX_QUEUE_CAPACITY)")
                }
                o.capacity = Int(n)
            default:
                throw RunwayError(.argument, "options: unknown key \"\(key.prefix(60))\"")
            }
        }
        return o
    }
}

/// The host's callback and its context pointer. The pointer is the host's: the library only
/// passes it back, from the subscription's delivery thread.
struct CallbackTarget: @unchecked Sendable {
    let fn: @convention(c) (UnsafePointer<CChar>?, UnsafeMutableRawPointer?) -> Void
    let user: UnsafeMutableRawPointer?
}

/// One subscriber's queue and delivery state. Guarded by its session's lock.
final class Subscription: @unchecked Sendable {
    let id: UInt64
    let options: SubscriptionOptions
    let target: CallbackTarget?
    /// Wakes the delivery thread (callback subscriptions).
    let wake: Lock.Condition

    /// A ring of queued events: `queuedCount` of them from `head`. It grows on the pushing thread
    /// (`enqueue`) and is only read and cleared by the taker, so a delivery thread allocates
    /// nothing here; a taken slot is nil (the taker owns the reference).
    private var ring: [Payload?] = []
    private var head = 0
    private var queuedCount = 0
    /// A `latest` subscriber that wants flight snapshots has one pending: the session's newest
    /// (`Session.flightSlot`, shared by every such subscriber), taken by `next`.
    var flightPending = false
    private var latestTick: Payload?
    private var dropped = 0
    private var droppedSeq: UInt64 = 0

    var cancelled = false
    /// Its session is closing: the delivery thread delivers what is pending, unpaced, and ends
    /// when nothing is (`Session.close`).
    var draining = false
    /// The delivery thread is alive (callback subscriptions).
    var running = false
    /// The delivery thread, joined (and set to nil) once `running` is false, by whoever ends the
    /// subscription from outside a callback, or by close: no thread of a session outlives its close.
    var thread: pthread_t?

    /// Joins the delivery thread once it has stopped delivering (`running` false, which its
    /// thread sets as the last thing it does under the lock, so the join waits only for its exit).
    func joinThread() {
        guard !running, let t = thread else { return }
        thread = nil
        joinSpawnedThread(t)
    }

    init(id: UInt64, options: SubscriptionOptions, target: CallbackTarget?, lock: Lock) {
        self.id = id
        self.options = options
        self.target = target
        self.wake = Lock.Condition(lock, monotonic: true)   // pacing waits (Session.deliver)
        mask = options.kinds
    }

    /// The kinds wanted, as bits of `EventKind.bit`.
    let mask: UInt32

    func wants(_ kind: EventKind) -> Bool { mask & kind.bit != 0 }

    /// The delivery thread is waiting on `wake` with nothing to deliver (set and cleared by it;
    /// cleared too by the session when it decides to wake it, so it is woken once).
    var waiting = false
    /// The delivery thread is pacing its flight snapshots (`Session.flightInterval`): it waits on
    /// `wake` until the interval since its last one has passed, woken early only for other
    /// events (a newer snapshot just takes the pending one's place). Set, cleared and woken like
    /// `waiting`.
    var pacing = false
    /// A `latest` subscriber of flight snapshots (served from `Session.flightSlot`, paced).
    var takesLatestFlight: Bool { options.policy == .latest && mask & EventKind.flight.bit != 0 }
    /// Something besides a coalesced flight snapshot is pending (queued, a tick, an overflow notice).
    var hasOtherPending: Bool { queuedCount > 0 || latestTick != nil || dropped > 0 }
    #if DEBUG
    /// Times the session decided to wake this subscription's thread, and times the thread began
    /// to wait (tests: a thread is woken only once it waits, and once).
    var wakesNoted = 0
    var waits = 0
    #endif

    private var queued: Int { queuedCount }
    private var queueHeadSeq: UInt64 { ring[head]?.seq ?? 0 }

    private func push(_ p: Payload) {
        if queuedCount == ring.count {
            // Full: a ring twice the size, in order from the head (on the pushing thread).
            var grown = [Payload?](repeating: nil, count: max(8, ring.count * 2))
            for i in 0..<queuedCount { grown[i] = ring[(head + i) % ring.count].take() }
            ring = grown
            head = 0
        }
        ring[(head + queuedCount) % ring.count] = p
        queuedCount += 1
    }

    /// Adds an event: coalesced (latest policy, snapshots), queued, or dropped and counted.
    func enqueue(_ p: Payload) {
        if options.policy == .latest && p.kind.coalesces {
            // A flight snapshot is the session's (`Session.flightSlot`; the session sets
            // `flightPending`): a latest subscriber keeps no reference of its own.
            if p.kind == .tick { latestTick = p }
            return
        }
        if dropped > 0 && queued < options.capacity {
            push(overflowNotice())
        }
        guard queued < options.capacity else {
            dropped += 1
            droppedSeq = p.seq
            return
        }
        push(p)
    }

    /// Takes the pending event with the lowest seq: the queue's head, the newest coalesced
    /// snapshot (when one is pending here: the session's newest, whose seq is `flightSeq`,
    /// made by `flight` only if it is the one taken) or tick, or, once the queue has drained,
    /// the overflow notice (whose seq is that of the last event dropped, so it goes before a
    /// snapshot that came after the drop).
    func next(flightSeq: UInt64, flight: () -> Payload?) -> Payload? {
        enum Source { case queue, flight, tick, notice }
        var best: (seq: UInt64, from: Source)?
        if queued > 0 { best = (queueHeadSeq, .queue) } else if dropped > 0 { best = (droppedSeq, .notice) }
        if flightPending, best.map({ flightSeq < $0.seq }) ?? true { best = (flightSeq, .flight) }
        if let t = latestTick, best.map({ t.seq < $0.seq }) ?? true { best = (t.seq, .tick) }
        switch best?.from {
        case .flight?:
            flightPending = false
            let p = flight()
            // A shared snapshot older than the newest (see Session.currentFlight): the newest
            // is still to come.
            if let p, p.seq != flightSeq { flightPending = true }
            return p
        case .tick?:
            defer { latestTick = nil }
            return latestTick
        case .notice?:
            return overflowNotice()
        case .queue?:
            let p = ring[head].take()
            head = (head + 1) % ring.count
            queuedCount -= 1
            return p
        case nil:
            return nil
        }
    }

    private func overflowNotice() -> Payload {
        var w = JSONWriter(capacity: 64)
        w.beginObject()
        w.field("kind", "overflow"); w.field("seq", droppedSeq); w.field("dropped", dropped)
        w.endObject()
        let p = Payload(seq: droppedSeq, kind: .overflow, text: w)
        dropped = 0
        return p
    }
}
