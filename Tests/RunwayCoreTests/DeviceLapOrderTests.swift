import Testing
@testable import RunwayCore

/// A file whose laps are stored out of time order (a malformed file, a chain of files) replays
/// each lap with its own trigger: `setLaps` puts the laps in time order before it pairs each
/// lap's start with the trigger of the lap before it. Before, it paired them in file order and
/// sorted after: the laps took each other's triggers.
@Suite("Device laps out of time order")
struct DeviceLapOrderTests {
    /// A TCX run whose `Lap`s (120 s each from `DeviceLapTriggerTests.t0`, no points of their
    /// own) come in `order`, each with the trigger named for its place in time, then its points,
    /// one every 5 s, in time order.
    static func tcx(order: [Int], methods: [String]) -> [UInt8] {
        func time(_ s: Int) -> String {
            func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
            return "2024-05-01T\(two(10 + s / 3600)):\(two(s / 60 % 60)):\(two(s % 60))Z"
        }
        var text = #"<TrainingCenterDatabase xmlns="http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2"><Activities><Activity Sport="Running">"#
        for k in order {
            text += "<Lap StartTime=\"\(time(k * 120))\"><TotalTimeSeconds>120</TotalTimeSeconds>"
                + "<TriggerMethod>\(methods[k])</TriggerMethod></Lap>"
        }
        for s in stride(from: 0, through: order.count * 120, by: 5) {
            text += "<Trackpoint><Time>\(time(s))</Time><Position><LatitudeDegrees>\(52.0 + Double(s) * 0.00003)</LatitudeDegrees>"
                + "<LongitudeDegrees>4.0</LongitudeDegrees></Position></Trackpoint>"
        }
        return Array((text + "</Activity></Activities></TrainingCenterDatabase>").utf8)
    }

    static func permutations(_ items: [Int]) -> [[Int]] {
        guard items.count > 1 else { return [items] }
        return items.indices.flatMap { k in
            permutations(Array(items[..<k] + items[(k + 1)...])).map { [items[k]] + $0 }
        }
    }

    /// Every order of four laps: the report keeps each device lap with its own start and trigger
    /// (in the file's order), each lap line carries the trigger of the lap it ends (the one that
    /// began last before it), and each replayed lap but the final one has the trigger of the
    /// device lap that began at its start.
    @Test func eachLapKeepsItsOwnTriggerInAnyFileOrder() throws {
        let methods = ["Distance", "Time", "Location", "HeartRate"]
        let triggers: [LapTrigger] = [.distance, .time, .positionLap, .heartRate]
        let t0 = DeviceLapTriggerTests.t0
        for order in Self.permutations([0, 1, 2, 3]) {
            let bytes = Self.tcx(order: order, methods: methods)
            let recording = try DeviceLapTriggerTests.imported(bytes, .tcx)
            let device = recording.report.device?.laps ?? []
            #expect(device.map(\.startT) == order.map { t0 + Double($0 * 120) }, "\(order)")
            #expect(device.map(\.trigger) == order.map { triggers[$0] }, "\(order)")
            func own(_ t: Double) -> LapTrigger? { device.first { $0.startT == t }?.trigger }
            func ended(_ t: Double) -> LapTrigger? {
                device.filter { $0.startT < t }.max { $0.startT < $1.startT }?.trigger
            }
            var marks: [Double] = []
            recording.forEachLine { line in
                guard case .lap(let t, let trigger) = line else { return }
                marks.append(t)
                #expect(trigger == ended(t), "\(order): the line at \(t - t0) s")
            }
            #expect(marks == [120, 240, 360].map { t0 + $0 }, "\(order)")
            let laps = try AltitudeSourceExportTests.analysed(bytes).flight.laps.laps
            #expect(laps.map(\.startT) == [0, 120, 240, 360].map { t0 + $0 }, "\(order)")
            #expect(laps.dropLast().map { $0.trigger } == laps.dropLast().map { own($0.startT) }, "\(order)")
            #expect(laps.last?.trigger == .final)
        }
    }
}
