#if canImport(Glibc)
import Glibc
#endif
import RunwayCore

/// Who may write a stored flight: one session at a time, in this process or any other.
///
/// An open-file-description lock (F_OFD_SETLK) on one byte of a sidecar file
/// (`<store>.lock`), at an offset hashed from the flight id: it conflicts between processes and
/// between sessions of one process alike, and the kernel releases it when its holder dies — so a
/// flight whose host was killed can be recovered, and one still being written cannot.
final class FlightLease: @unchecked Sendable {
    private var fd: Int32

    /// F_OFD_SETLK from <fcntl.h> (Linux 3.15+).
    private static let ofdSetLock: Int32 = 37

    /// Takes the lease, or throws `.state` when another session holds it.
    init(storePath: String, flightID: String) throws(RunwayError) {
        let lockPath = storePath + ".lock"
        fd = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            throw RunwayError(.store, "cannot open \(lockPath): \(String(cString: strerror(errno)))")
        }
        var lock = flock()
        lock.l_type = Int16(F_WRLCK)
        lock.l_whence = Int16(SEEK_SET)
        lock.l_start = off_t(FlightLease.offset(of: flightID))
        lock.l_len = 1
        lock.l_pid = 0
        if fcntl(fd, FlightLease.ofdSetLock, &lock) != 0 {
            let busy = errno == EAGAIN || errno == EACCES
            let message = String(cString: strerror(errno))
            close(fd)
            fd = -1
            throw busy
                ? RunwayError(.state, "flight \"\(flightID)\" is being written by another open session")
                : RunwayError(.store, "cannot lock \(lockPath): \(message)")
        }
    }

    deinit { release() }

    /// Gives the lease up (closing the descriptor drops the lock).
    func release() {
        if fd >= 0 { close(fd) }
        fd = -1
    }

    /// FNV-1a of the id, folded into 2^30 offsets (a collision only makes two flights share a lease).
    static func offset(of id: String) -> Int {
        var h: UInt32 = 2_166_136_261
        for b in id.utf8 { h = (h ^ UInt32(b)) &* 16_777_619 }
        return Int(h & 0x3FFF_FFFF)
    }
}

/// Read-side operations need an existing store: they must not create one where there is none.
func requireExistingStore(_ path: String) throws(RunwayError) {
    guard access(path, F_OK) == 0 else {
        throw RunwayError(.notFound, "no store at \(path)")
    }
}
