#if canImport(Glibc)
import Glibc
#endif

/// The real recordings in `<repo>/../shared/tracks` (not part of the repository), for the tests
/// and benchmarks that read them when the folder is there.
public enum SharedTracks {
    /// The folder, or nil when it (with its `fixes/` and `reference.jsonl`) is not there.
    public static let folder: String? = {
        var parts = #filePath.split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(3)  // Sources/RunwaySim/SharedTracks.swift
        let dir = parts.joined(separator: "/") + "/../shared/tracks"
        return access(dir + "/fixes", R_OK) == 0 && access(dir + "/reference.jsonl", R_OK) == 0 ? dir : nil
    }()

    /// A whole file's bytes, or nil when it cannot be read.
    public static func read(_ path: String) -> [UInt8]? {
        guard let f = fopen(path, "rb") else { return nil }
        defer { fclose(f) }
        var out: [UInt8] = []
        var buf = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = fread(&buf, 1, buf.count, f)
            if n <= 0 { break }
            out.append(contentsOf: buf[0..<n])
        }
        return out
    }
}
