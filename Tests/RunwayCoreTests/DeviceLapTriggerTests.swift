import Testing
@testable import RunwayCore

/// A device's laps come back with what ended them: FIT `lap_trigger`, TCX `TriggerMethod` read
/// into the report's device laps, carried by each `device_lap` line (the trigger of the lap the
/// line ends) into the replayed lap's `trigger`, and written back by the FIT and TCX exports.
/// Before, every device lap replayed as `manual` and went out as FIT `manual`, TCX `Manual`.
@Suite("Device lap triggers")
struct DeviceLapTriggerTests {
    static let t0 = 1_714_557_600.0   // 2024-05-01T10:00:00Z

    /// A TCX run of one Lap per trigger named, 120 s and about 400 m each, a point every 5 s.
    static func tcx(_ methods: [String]) -> [UInt8] {
        func time(_ s: Int) -> String {
            func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
            return "2024-05-01T\(two(10 + s / 3600)):\(two(s / 60 % 60)):\(two(s % 60))Z"
        }
        var text = #"<TrainingCenterDatabase xmlns="http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2"><Activities><Activity Sport="Running">"#
        for (k, method) in methods.enumerated() {
            text += "<Lap StartTime=\"\(time(k * 120))\"><TotalTimeSeconds>120</TotalTimeSeconds><Intensity>Active</Intensity>"
                + "<TriggerMethod>\(method)</TriggerMethod><Track>"
            for s in stride(from: k * 120, to: (k + 1) * 120, by: 5) {
                text += "<Trackpoint><Time>\(time(s))</Time><Position><LatitudeDegrees>\(52.0 + Double(s) * 0.00003)</LatitudeDegrees>"
                    + "<LongitudeDegrees>4.0</LongitudeDegrees></Position></Trackpoint>"
            }
            text += "</Track></Lap>"
        }
        return Array((text + "<Trackpoint><Time>\(time(methods.count * 120))</Time><Position><LatitudeDegrees>\(52.0 + Double(methods.count * 120) * 0.00003)</LatitudeDegrees><LongitudeDegrees>4.0</LongitudeDegrees></Position></Trackpoint>"
                      + "</Activity></Activities></TrainingCenterDatabase>").utf8)
    }

    static func imported(_ bytes: [UInt8], _ format: ImportFormat) throws -> ImportedRecording {
        let result: Result<ImportedRecording, RunwayError> = bytes.withUnsafeBytes { b in
            do throws(RunwayError) { return .success(try Importer.recording(b, as: format)) } catch { return .failure(error) }
        }
        return try result.get()
    }

    static let methods = ["Distance", "Time", "Location", "HeartRate", "Manual"]
    static let triggers: [LapTrigger] = [.distance, .time, .positionLap, .heartRate, .manual]

    @Test func tcxTriggersAreReadCarriedByTheLinesAndReplayed() throws {
        let recording = try Self.imported(Self.tcx(Self.methods), .tcx)
        #expect(recording.report.device?.laps.map(\.trigger) == Self.triggers)
        // Each device_lap line ends the lap before it: it carries that lap's trigger.
        var said: [LapTrigger?] = []
        var lines: [String] = []
        recording.forEachLine { line in
            if case .lap(_, let trigger) = line {
                said.append(trigger)
                var w = JSONWriter(capacity: 64)
                line.write(to: &w)
                lines.append(String(decoding: w.bytes, as: UTF8.self))
            }
        }
        #expect(said == Array(Self.triggers.dropLast()))
        #expect(lines.first?.hasSuffix(#","trigger":"distance"}"#) == true, "\(lines)")
        // The line reads back as the device lap with its trigger, on both JSON paths alike.
        for (line, trigger) in zip(lines, said) {
            let bytes = Array(line.utf8)
            let request = try bytes.withUnsafeBytes { b in try InputDecoder.decodeLine(b) }
            if case .deviceLap(_, let got)? = request { #expect(got == trigger) } else { Issue.record("\(line): \(String(describing: request))") }
            #expect(bytes.withUnsafeBytes { InputDecoder.difference($0) } == nil)
        }
        let analysis = try AltitudeSourceExportTests.analysed(Self.tcx(Self.methods))
        #expect(analysis.flight.laps.laps.map(\.trigger) == Array(Self.triggers.dropLast()) + [.final])
    }

    /// Analysed, exported and analysed again, the laps keep their triggers (the final lap goes out
    /// as FIT `session_end`, TCX `Manual`, and comes back final); the TCX export names them.
    @Test(arguments: [ExportFormat.fit, .tcx])
    func theExportsWriteTheTriggersBack(_ format: ExportFormat) throws {
        let first = try AltitudeSourceExportTests.analysed(Self.tcx(Self.methods))
        let exported = Exporter.export(first.flight.record, as: format)
        let back = try AltitudeSourceExportTests.analysed(exported)
        // (FIT has no heart-rate trigger: such a lap goes out, and comes back, manual.)
        let kept = Self.triggers.dropLast().map { format == .fit && $0 == .heartRate ? LapTrigger.manual : $0 }
        #expect(back.flight.laps.laps.map(\.trigger) == kept + [.final])
        let device = back.report.device?.laps.map(\.trigger) ?? []
        #expect(device == kept + [format == .fit ? .sessionEnd : .manual], "\(device)")
        if format == .tcx {
            let text = String(decoding: exported, as: UTF8.self)
            let written = text.split(separator: "<TriggerMethod>").dropFirst().map { $0.prefix { $0 != "<" } }
            #expect(written == Self.methods.map { Substring($0) })
        }
    }

    @Test func fitTriggerValuesMapBothWays() {
        for value in 0...8 {
            let trigger = LapTrigger(fit: Double(value))
            #expect(trigger.map { LapTrigger.device.contains($0) } == true)
            #expect(trigger?.fitValue == Int64(value))
        }
        #expect(LapTrigger(fit: 9) == nil && LapTrigger(fit: 255) == nil && LapTrigger(fit: 1.5) == nil)
        for name in Self.methods { #expect(LapTrigger(tcx: name)?.tcxName == name) }
    }

    @Test func aDeviceLapLinesTriggerIsChecked() throws {
        func decoded(_ line: String) -> Result<FlightDriver.Request?, RunwayError> {
            Array(line.utf8).withUnsafeBytes { b in
                do throws(RunwayError) { return .success(try InputDecoder.decodeLine(b)) } catch { return .failure(error) }
            }
        }
        let t = Self.t0
        for (line, trigger) in [(#"{"type":"device_lap","t":\#(t)}"#, LapTrigger.manual),
                                (#"{"type":"device_lap","t":\#(t),"trigger":null}"#, .manual),
                                (#"{"type":"device_lap","t":\#(t),"trigger":"position_marked"}"#, .positionMarked)] {
            guard case .success(.deviceLap(let at, let got)?) = decoded(line) else { Issue.record("\(line)"); continue }
            #expect(at == t && got == trigger, "\(line)")
        }
        for bad in [#""auto""#, #""final""#, #""sprint""#, "2"] {
            let line = #"{"type":"device_lap","t":\#(t),"trigger":\#(bad)}"#
            guard case .failure(let e) = decoded(line) else { Issue.record("\(line) accepted"); continue }
            #expect(e.status == .input && e.message.hasPrefix("a device_lap's \"trigger\" must be one of manual, time, distance"), "\(e.message)")
        }
        // On a lap line the key is not read (as any unknown key): runway_lap is manual.
        guard case .success(.lap(_, let trigger)?) = decoded(#"{"type":"lap","t":\#(t),"trigger":"distance"}"#) else {
            Issue.record("lap line")
            return
        }
        #expect(trigger == .manual)
    }
}
