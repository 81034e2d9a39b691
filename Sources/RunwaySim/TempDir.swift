#if canImport(Glibc)
import Glibc
#endif

/// A fresh directory under /tmp, removed with everything in it when released (for tests and
/// benchmarks that write stores and exports).
public final class TempDir {
    /// The directory; "/tmp" itself when one could not be made (then nothing is removed).
    public let path: String

    public init(prefix: String = "runway") {
        var template = Array("/tmp/\(prefix)-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { buf in buf.baseAddress.flatMap { mkdtemp($0) } }
        path = made.map { String(cString: $0) } ?? "/tmp"
    }

    /// A path inside the directory.
    public func file(_ name: String = "runway.db") -> String { path + "/" + name }

    deinit {
        guard path != "/tmp", let dir = opendir(path) else { return }
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                raw.bindMemory(to: CChar.self).baseAddress.map { String(cString: $0) } ?? ""
            }
            if !name.isEmpty && name != "." && name != ".." { unlink(path + "/" + name) }
        }
        closedir(dir)
        rmdir(path)
    }
}
