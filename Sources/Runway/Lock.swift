#if canImport(Glibc)
import Glibc
#endif

/// A pthread mutex with condition variables bound to it.
///
/// The one place where engine state is guarded by hand: `Session` and `Subscription` keep their
/// mutable state behind a `Lock` and are `@unchecked Sendable` because of it. Callbacks into host
/// code never run while it is held.
final class Lock: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    /// Adaptive (glibc's PTHREAD_MUTEX_ADAPTIVE_NP): a thread that finds the lock taken spins
    /// briefly before it sleeps. The holds are short (a push, a delivery thread taking its
    /// event); without the spin a pusher that meets a delivery thread's hold sleeps in the
    /// kernel and is woken microseconds later (benchmarks row 4, one callback subscriber: 0.75–0.78×
    /// the throughput of none before, 0.89× after; with 8 the change was within the runs' spread).
    init() {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        var attr = pthread_mutexattr_t()
        pthread_mutexattr_init(&attr)
        pthread_mutexattr_settype(&attr, Int32(PTHREAD_MUTEX_ADAPTIVE_NP))
        pthread_mutex_init(mutex, &attr)
        pthread_mutexattr_destroy(&attr)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    func lock() { pthread_mutex_lock(mutex) }
    func unlock() { pthread_mutex_unlock(mutex) }

    @inline(__always)
    func withLock<R, E: Error>(_ body: () throws(E) -> R) throws(E) -> R {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }

    /// A condition variable waited on with this lock held.
    final class Condition: @unchecked Sendable {
        private let cond: UnsafeMutablePointer<pthread_cond_t>
        private let lock: Lock

        /// `monotonic`: timed waits (`wait(untilMonotonicNs:)`) measure CLOCK_MONOTONIC, which
        /// a change of the wall clock does not move.
        init(_ lock: Lock, monotonic: Bool = false) {
            self.lock = lock
            cond = .allocate(capacity: 1)
            cond.initialize(to: pthread_cond_t())
            guard monotonic else { pthread_cond_init(cond, nil); return }
            var attr = pthread_condattr_t()
            pthread_condattr_init(&attr)
            pthread_condattr_setclock(&attr, CLOCK_MONOTONIC)
            pthread_cond_init(cond, &attr)
            pthread_condattr_destroy(&attr)
        }

        deinit {
            pthread_cond_destroy(cond)
            cond.deallocate()
        }

        /// Waits (the lock must be held); returns after a signal or a spurious wake-up.
        func wait() { pthread_cond_wait(cond, lock.mutex) }

        /// Waits at most `seconds` (the lock must be held).
        func wait(seconds: Double) {
            var ts = timespec()
            clock_gettime(CLOCK_REALTIME, &ts)
            let whole = Int(seconds)
            let nanos = Int((seconds - Double(whole)) * 1e9)
            ts.tv_sec += whole + (ts.tv_nsec + nanos) / 1_000_000_000
            ts.tv_nsec = (ts.tv_nsec + nanos) % 1_000_000_000
            pthread_cond_timedwait(cond, lock.mutex, &ts)
        }

        /// Waits until CLOCK_MONOTONIC reads `deadline` nanoseconds at most (the lock must be held;
        /// the condition must have been made `monotonic`).
        func wait(untilMonotonicNs deadline: UInt64) {
            var ts = timespec()
            ts.tv_sec = Int(deadline / 1_000_000_000)
            ts.tv_nsec = Int(deadline % 1_000_000_000)
            pthread_cond_timedwait(cond, lock.mutex, &ts)
        }

        func signal() { pthread_cond_signal(cond) }
        func broadcast() { pthread_cond_broadcast(cond) }
    }
}

/// Starts a detached thread running `body`.
func spawnThread(_ body: @escaping @Sendable () -> Void) -> Bool {
    guard let thread = startThread(body, detached: true) else { return false }
    pthread_detach(thread)
    return true
}

/// The stack reserved for each library thread (delivery threads, the ticker): 256 KiB instead of
/// glibc's default 8 MiB. The library's own frames on these threads take a few KiB; the rest is
/// for the host's callback (Tests/c/abi_run.c measures what a callback that parses JSON and
/// calls back into the library uses, under AddressSanitizer too: about 28 KiB). A debug build
/// (the Swift tests') reserves 1 MiB: unoptimised, a push's frames alone take about 260 KiB.
#if DEBUG
let threadStackBytes = 1024 * 1024
#else
let threadStackBytes = 256 * 1024
#endif

/// Starts a thread running `body` on a `threadStackBytes` stack; the caller must `joinSpawnedThread` it
/// exactly once.
func spawnJoinableThread(_ body: @escaping @Sendable () -> Void) -> pthread_t? { startThread(body, detached: false) }

/// Waits for a thread started by `spawnJoinableThread` to exit, and frees its closure here, on
/// the joining thread: a delivery thread that frees nothing never makes glibc give it a malloc
/// arena of its own (64 MiB of address space each).
func joinSpawnedThread(_ thread: pthread_t) {
    var result: UnsafeMutableRawPointer?
    pthread_join(thread, &result)
    if let result { Unmanaged<ThreadBody>.fromOpaque(result).release() }
}

final class ThreadBody: @unchecked Sendable {
    let body: @Sendable () -> Void
    let detached: Bool
    init(_ body: @escaping @Sendable () -> Void, detached: Bool) { self.body = body; self.detached = detached }
}

private func startThread(_ body: @escaping @Sendable () -> Void, detached: Bool) -> pthread_t? {
    let context = Unmanaged.passRetained(ThreadBody(body, detached: detached)).toOpaque()
    var attr = pthread_attr_t()
    pthread_attr_init(&attr)
    defer { pthread_attr_destroy(&attr) }
    pthread_attr_setstacksize(&attr, threadStackBytes)
    var thread = pthread_t()
    let rc = pthread_create(&thread, &attr, { raw in
        guard let raw else { return nil }
        let box = Unmanaged<ThreadBody>.fromOpaque(raw).takeUnretainedValue()
        box.body()
        if box.detached {
            Unmanaged<ThreadBody>.fromOpaque(raw).release()
            return nil
        }
        return raw   // released by joinSpawnedThread
    }, context)
    if rc != 0 {
        Unmanaged<ThreadBody>.fromOpaque(context).release()
        return nil
    }
    return thread
}
