#if canImport(Glibc)
import Glibc
#endif

/// The one 1 Hz tick source shared by every live-clock session in the process.
///
/// A session registers once when it opens and leaves when it closes; phase changes never touch
/// the registration, so pausing and resuming (or starting again after a failed start) can never
/// double the ticks. The thread starts with the first live session and ends with the last: the
/// unregister that leaves no session wakes it and joins it, so once `runway_session_close` of the
/// last live session returns, no ticker thread is left in the host. A later live session starts
/// a new one.
final class Ticker: @unchecked Sendable {
    static let shared = Ticker()

    private final class WeakSession: @unchecked Sendable {
        weak var session: Session?
        init(_ s: Session) { session = s }
    }

    private let lock: Lock
    private let wake: Lock.Condition
    private var sessions: [UInt: WeakSession] = [:]
    /// The running thread, if any (joined by the unregister that empties `sessions`).
    private var thread: pthread_t? = nil
    /// Which thread may run: a thread exits when this is no longer the generation it began with.
    private var generation: UInt64 = 0

    private init() {
        lock = Lock()
        wake = Lock.Condition(lock)
    }

    func register(_ s: Session) {
        lock.withLock {
            sessions[s.token] = WeakSession(s)
            if thread == nil {
                let mine = generation
                thread = spawnJoinableThread { [self] in run(generation: mine) }
            }
        }
    }

    func unregister(_ s: Session) {
        let ending: pthread_t? = lock.withLock {
            sessions.removeValue(forKey: s.token)
            guard sessions.isEmpty, let t = thread else { return nil }
            thread = nil
            generation &+= 1
            wake.broadcast()
            return t
        }
        // Outside the lock: the thread takes it to see that its generation is over. Never the
        // ticker thread itself (it runs no host code, but a join of itself would wait forever).
        if let ending {
            if pthread_equal(ending, pthread_self()) != 0 { pthread_detach(ending) } else { joinSpawnedThread(ending) }
        }
    }

    /// The number of registered sessions (for tests).
    var count: Int { lock.withLock { sessions.count } }

    /// Whether the session with `token` is registered (for tests: other tests' live sessions
    /// come and go in parallel, so the count alone says nothing of one session).
    func isRegistered(_ token: UInt) -> Bool { lock.withLock { sessions[token] != nil } }

    private func run(generation mine: UInt64) {
        lock.lock()
        while generation == mine {
            // Sleep to the next whole second of the wall clock (the condition's clock), or until
            // woken because the last session left.
            var ts = timespec()
            clock_gettime(CLOCK_REALTIME, &ts)
            wake.wait(seconds: Double(1_000_000_000 - ts.tv_nsec) / 1e9)
            guard generation == mine else { break }
            let live = sessions.values.compactMap { $0.session }
            lock.unlock()
            for s in live { try? s.tick(at: .nan) }
            lock.lock()
        }
        lock.unlock()
    }
}
