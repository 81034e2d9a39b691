import Testing
import CRunwayABI
@testable import Runway
@testable import RunwayCore
#if canImport(Glibc)
import Glibc
#endif

/// Real recordings in ../shared/tracks (not part of the repository): when the folder is there,
/// raw distance over each recording's fixes must match GeographicLib's WGS84 figure to 0.01%.
@Suite("Real GPS recordings")
struct RealTrackTests {
    static let tracks: String? = {
        // The package root is two levels above this file's folder.
        let file = #filePath
        var parts = file.split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(3)
        let dir = parts.joined(separator: "/") + "/../shared/tracks"
        return access(dir + "/reference.jsonl", R_OK) == 0 ? dir : nil
    }()

    static func readFile(_ path: String) -> [UInt8]? {
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

    struct Reference { let file: String; let distance: Double }

    static func references() -> [Reference] {
        guard let dir = tracks, let bytes = readFile(dir + "/reference.jsonl") else { return [] }
        var refs: [Reference] = []
        for line in bytes.split(separator: 0x0A) where !line.isEmpty {
            guard let fields = try? JSONInput.object(String(decoding: line, as: UTF8.self)) else { continue }
            var file = "", distance = Double.nan
            for (k, v) in fields {
                if k == "file", case .string(let s) = v { file = s }
                if k == "geodesic_wgs84", case .object(let o) = v, let d = o["distance_2d_fixes_m"]?.finiteNumber { distance = d }
            }
            if !file.isEmpty && !distance.isNaN { refs.append(Reference(file: file, distance: distance)) }
        }
        return refs
    }

    @Test(.enabled(if: tracks != nil, "../shared/tracks is not here"))
    func rawDistanceMatchesTheGeodesicReferenceOnEveryCleanRecording() throws {
        let refs = RealTrackTests.references()
        #expect(refs.count >= 10)
        var compared = 0
        for ref in refs {
            guard let dir = RealTrackTests.tracks, let bytes = RealTrackTests.readFile(dir + "/fixes/" + ref.file + ".jsonl") else {
                Issue.record("missing fixes for \(ref.file)"); continue
            }
            let s = try CSession(#"{"filters":"off"}"#)
            s.start()
            var accepted = 0, rejected = 0
            _ = bytes.withUnsafeBufferPointer { buf in
                buf.baseAddress.map { base in
                    runway_push_jsonl_impl(s.handle, UnsafeRawPointer(base).assumingMemoryBound(to: CChar.self), buf.count, &accepted, &rejected)
                }
            }
            if rejected > 0 {
                // Recordings with bad times (1901 placeholders, steps backwards) are refused, never counted.
                #expect(lastError().has("line"), "\(ref.file)")
                continue
            }
            let distance = field("distance_m", in: s.snapshot()) ?? -1
            #expect(abs(distance - ref.distance) <= ref.distance * 1e-4 + 0.01,
                    "\(ref.file): \(distance) m vs reference \(ref.distance) m")
            compared += 1
        }
        #expect(compared >= 10, "compared \(compared) recordings")
    }
}
