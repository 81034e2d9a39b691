#if canImport(Glibc)
import Glibc
#endif

/// The one 1 Hz tick source shared by every live-clock session in the process.
///
/// A session registers once when it opens and leaves when it closes; phase changes never touch
/// the registration, so pausing and resuming (or starting again after a failed start) can never
/// double the ticks. The thread starts with the first live session and then stays, sleeping.
final class Ticker: @unchecked Sendable {
    static let shared = Ticker()

    private final class WeakSession: @unchecked Sendable {
        weak var session: Session?
        init(_ s: Session) { session = s }
    }

    private let lock = Lock()
    private var sessions: [UInt: WeakSession] = [:]
    private var started = false

    func register(_ s: Session) {
        lock.withLock {
            sessions[s.token] = WeakSession(s)
            if !started {
                started = spawnThread { [self] in run() }
            }
        }
    }

    func unregister(_ s: Session) {
        _ = lock.withLock { sessions.removeValue(forKey: s.token) }
    }

    /// The number of registered sessions (for tests).
    var count: Int { lock.withLock { sessions.count } }

    private func run() {
        while true {
            // Sleep to the next whole second of the wall clock.
            var ts = timespec()
            clock_gettime(CLOCK_REALTIME, &ts)
            var nap = timespec(tv_sec: 0, tv_nsec: 1_000_000_000 - ts.tv_nsec)
            nanosleep(&nap, nil)
            let live = lock.withLock { sessions.values.compactMap { $0.session } }
            for s in live { try? s.tick(at: .nan) }
        }
    }
}
