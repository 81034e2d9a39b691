#if canImport(Glibc)
import Glibc
#endif

/// Per-thread state: the last error message and whether this is a delivery thread.
enum ThreadState {
    /// Holds a malloc'd C string per thread; freed at thread exit.
    static let errorKey: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key) { free($0) }
        return key
    }()

    /// Non-NULL on the library's delivery threads.
    static let deliveryKey: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    /// A C string in static storage, for texts the library returns and never frees.
    static func staticCString(_ s: StaticString) -> UnsafePointer<CChar> {
        UnsafeRawPointer(s.utf8Start).assumingMemoryBound(to: CChar.self)
    }

    /// Sets this thread's last error message.
    static func setError(_ message: String) {
        let copy = strdup(message)
        let old = pthread_getspecific(errorKey)
        pthread_setspecific(errorKey, copy)
        free(old)
    }

    /// This thread's last error message ("" when none).
    static var lastError: UnsafePointer<CChar> {
        guard let p = pthread_getspecific(errorKey) else { return staticCString("") }
        return UnsafePointer(p.assumingMemoryBound(to: CChar.self))
    }

    /// Whether this thread is one of the library's delivery threads (of any session).
    static var isDeliveryThread: Bool { pthread_getspecific(deliveryKey) != nil }

    /// The session token of this delivery thread, or nil on other threads.
    static var deliveryToken: UInt? { pthread_getspecific(deliveryKey).map { UInt(bitPattern: $0) } }

    static func markDeliveryThread(_ sessionToken: UInt) {
        pthread_setspecific(deliveryKey, UnsafeRawPointer(bitPattern: sessionToken))
    }
}
