import Testing
@testable import RunwayCore
#if canImport(Glibc)
import Glibc
#endif

/// Random flights delivered in late batches: the host ticks ahead of its inputs (a phone's
/// locations and a strap's samples delivered after the host's own tick, stamped before it). A
/// tick measures nothing, so at the stop the flight is the one without the ticks: the same
/// distance, moving and elapsed time, laps, heart rate, power, phases and route.
@Suite("Random flights delivered in late batches")
struct LateBatchRandomTests {
    enum Action { case input(Input), command(PhaseCommand, Double), lap(Double) }

    static let configs: [(name: String, config: EngineConfig)] = {
        var run = EngineConfig(); run.autoLapM = 200
        var autoPause = run; autoPause.autoPause.enabled = true
        var off = run; off.filters = false; off.distanceFilterM = 0; off.requiredAccuracyM = 100_000
        var ride = EngineConfig(activity: .ride); ride.distanceFilterM = 40; ride.gapS = 8; ride.autoLapM = 500
        ride.autoPause.enabled = true
        var walk = EngineConfig(activity: .walk); walk.distanceFilterM = 0; walk.gapS = 8; walk.autoLapM = 100
        return [("run", run), ("run, auto-pause", autoPause), ("filters off", off),
                ("ride, auto-pause, distance filter 40 m, gap 8 s", ride), ("walk, gap 8 s", walk)]
    }()

    /// Flight `seed`: its config and actions (fixes with gaps, heart-rate, power and speed
    /// samples, pauses, resumes and laps), in time order.
    static func flight(seed: UInt64) -> (name: String, config: EngineConfig, actions: [Action]) {
        var rng = RandomFlight.LCG(seed: seed)
        let (name, config) = configs[Int(rng.next() % UInt64(configs.count))]
        let cruise = config.activity == .ride ? 7.0 : config.activity == .walk ? 1.3 : 3.2
        var actions: [Action] = [.command(.start, 1_700_000_000)]
        let heading0 = rng.between(0, 2 * Double.pi)
        var walker = RandomFlight.Walker(cruise: cruise, t: 1_700_000_000, heading: heading0, moving: true,
                                         runLeft: rng.between(5, 90), speed: cruise)
        var paused = false
        let commands = rng.between(0.3, 3)
        for _ in 0..<Int(rng.between(200, 500)) {
            _ = walker.step(&rng, gapS: 15...50)
            let (t, north, east, v) = (walker.t, walker.north, walker.east, walker.v)
            actions.append(.input(.sample(.heartRate(bpm: (120 + 30 * rng.uniform()).rounded(), t: t - 0.7))))
            if rng.chance(0.5) { actions.append(.input(.sample(.power(watts: (150 + 100 * rng.uniform()).rounded(), t: t - 0.6)))) }
            if rng.chance(0.004 * commands) { actions.append(.lap(t - 0.5)) }
            if !paused, rng.chance(0.003 * commands) { actions.append(.command(.pause, t - 0.5)); paused = true }
            else if paused, rng.chance(0.05) { actions.append(.command(.resume, t - 0.5)); paused = false }
            if rng.chance(0.02) { actions.append(.input(.sample(.speed(mps: max(0, v + 0.1 * rng.noise()), t: t - 0.25)))) }
            let doppler = rng.chance(0.1) ? Double.nan : max(0, v + 0.15 * rng.noise())
            let n = north + 2 * rng.noise(), e = east + 2 * rng.noise()
            actions.append(.input(.fix(Fix(t: t, lat: 52 + degreesNorth(n), lon: 4 + degreesEast(e), alt: 10 + rng.noise(),
                                           speed: doppler, hAcc: rng.between(3, 10)))))
        }
        actions.append(.command(.stop, walker.t + 1))
        return (name, config, actions)
    }

    /// Runs the actions, with a tick (when `ticked`) now and then before a batch, at the time of
    /// one of the next inputs (not past the next command or lap); each action's outcome.
    /// Performs action `i`, `a`: "ok", or the error it met.
    static func perform(_ a: Action, _ i: Int, on fc: inout FlightComputer, _ events: inout [Event]) -> String {
        do throws(RunwayError) {
            switch a {
            case .input(let input): try fc.process(try ValidatedInput(input), wallClock: .nan, events: &events)
            case .command(let c, let t): try fc.command(c, at: t, wallClock: .nan, events: &events)
            case .lap(let t): try fc.lap(at: t, wallClock: .nan, events: &events)
            }
            return "ok"
        } catch {
            return "\(i): \(error)"
        }
    }

    static func run(_ config: EngineConfig, _ actions: [Action], ticks: UInt64?) -> (FlightComputer, [String]) {
        var fc = FlightComputer(config: config)
        var events: [Event] = [], outcomes: [String] = []
        var rng = ticks.map { RandomFlight.LCG(seed: $0 &+ 77) }
        var latestTick = -Double.infinity
        for (i, a) in actions.enumerated() {
            if rng != nil, rng!.chance(0.05) {
                // A batch: the inputs up to k ahead, none past a command.
                let k = Int(rng!.between(1, 60))
                var ahead = Double.nan
                for b in actions[i..<min(actions.count, i + k)] {
                    guard case .input(let input) = b else { break }
                    ahead = input.t
                }
                if ahead > latestTick {
                    do throws(RunwayError) { try fc.tick(at: ahead, wallClock: .nan, events: &events); latestTick = ahead }
                    catch { Issue.record("tick at \(ahead): \(error)") }
                }
            }
            outcomes.append(Self.perform(a, i, on: &fc, &events))
            events.removeAll(keepingCapacity: true)
        }
        return (fc, outcomes)
    }

    @Test func aFlightDeliveredInLateBatchesIsTheFlightWithoutTheTicks() {
        let count = UInt64(getenv("RUNWAY_LATE_BATCH_FLIGHTS").flatMap { Int(String(cString: $0)) } ?? 150)
        var differ: [String] = []
        for seed in 1...count {
            let (name, config, actions) = Self.flight(seed: seed)
            let (plain, a) = Self.run(config, actions, ticks: nil)
            let (ticked, b) = Self.run(config, actions, ticks: seed)
            if a != b { differ.append("flight \(seed) (\(name)): outcomes \(zip(a, b).first { $0 != $1 }.map { "\($0) / \($1)" } ?? "")"); continue }
            let x = plain.summaryJSON(), y = ticked.summaryJSON()
            guard x != y else { continue }
            // The first field that differs.
            let xs = x.split(separator: ","), ys = y.split(separator: ",")
            let first = zip(xs, ys).first { $0 != $1 }.map { "\($0) / \($1)" } ?? "length"
            differ.append("flight \(seed) (\(name)): \(first)")
        }
        #expect(differ.isEmpty, "\(differ.count) of \(count) flights differ:\n\(differ.prefix(30).joined(separator: "\n"))")
    }
}

/// Late batches over the paths the first test's flights seldom take: a device that records
/// nothing while its rider stands (a gap crossed standing, which auto-pause backdates), Doppler
/// dropouts (zeros while the fixes move on, which the track filter doubts), auto-pause on; and
/// ticks anywhere up to the next command or lap: inside a gap, past the batch's last input.
/// The ticked flight is the flight without the ticks: its summary, its route, and its phase,
/// split and alert events (their `t` the input's, command's or lap's own, whatever tick came
/// before).
extension LateBatchRandomTests {
    static let stillConfigs: [(name: String, config: EngineConfig)] = {
        var run = EngineConfig(); run.autoLapM = 200; run.autoPause.enabled = true
        run.alerts.targetPaceMin = 4.5; run.alerts.targetPaceMax = 6.5; run.alerts.hrCeiling = 145; run.alerts.goalM = 1500
        var live = run; live.clock = .live
        var ride = EngineConfig(activity: .ride); ride.gapS = 8; ride.autoLapM = 500; ride.autoPause.enabled = true
        var walk = EngineConfig(activity: .walk); walk.distanceFilterM = 0; walk.gapS = 8; walk.autoLapM = 100
        walk.autoPause.enabled = true
        var plain = EngineConfig(); plain.autoLapM = 200
        return [("run, auto-pause, pace alerts", run), ("live clock, run, auto-pause", live),
                ("ride, auto-pause, gap 8 s", ride), ("walk, auto-pause, gap 8 s", walk), ("run", plain)]
    }()

    /// Flight `seed` of the second kind: standing silent now and then, Doppler dropouts.
    static func stillFlight(seed: UInt64) -> (name: String, config: EngineConfig, actions: [Action]) {
        var rng = RandomFlight.LCG(seed: seed &+ 1_000_003)
        let (name, config) = stillConfigs[Int(rng.next() % UInt64(stillConfigs.count))]
        let cruise = config.activity == .ride ? 7.0 : config.activity == .walk ? 1.3 : 3.2
        var actions: [Action] = [.command(.start, 1_700_000_000)]
        var walker = RandomFlight.Walker(cruise: cruise, t: 1_700_000_000, heading: rng.between(0, 2 * Double.pi), moving: true,
                                         runLeft: rng.between(5, 90), speed: cruise)
        var paused = false, silent = false, wasMoving = true, dropoutLeft = 0.0
        let commands = rng.between(0.3, 3)
        for _ in 0..<Int(rng.between(200, 500)) {
            let dt = walker.step(&rng, gapS: 15...50)
            let (t, north, east, v) = (walker.t, walker.north, walker.east, walker.v)
            if walker.moving != wasMoving { silent = !walker.moving && rng.chance(0.6); wasMoving = walker.moving }
            if walker.moving, dropoutLeft <= 0, rng.chance(0.01) { dropoutLeft = rng.between(4, 20) }
            dropoutLeft -= dt
            actions.append(.input(.sample(.heartRate(bpm: (120 + 30 * rng.uniform()).rounded(), t: t - 0.7))))
            if rng.chance(0.004 * commands) { actions.append(.lap(t - 0.5)) }
            if !paused, rng.chance(0.003 * commands) { actions.append(.command(.pause, t - 0.5)); paused = true }
            else if paused, rng.chance(0.05) { actions.append(.command(.resume, t - 0.5)); paused = false }
            if silent { continue }   // (the device records nothing while its rider stands)
            let doppler = dropoutLeft > 0 ? 0 : rng.chance(0.1) ? Double.nan : max(0, v + 0.15 * rng.noise())
            let n = north + 2 * rng.noise(), e = east + 2 * rng.noise()
            actions.append(.input(.fix(Fix(t: t, lat: 52 + degreesNorth(n), lon: 4 + degreesEast(e), alt: 10 + rng.noise(),
                                           speed: doppler, hAcc: rng.between(3, 10)))))
        }
        actions.append(.command(.stop, walker.t + 1))
        return (name, config, actions)
    }

    /// Runs the actions with a tick now and then (when `ticks`) anywhere from the next input's
    /// time to the next command's or lap's; the phase, split and alert events, and each action's outcome.
    static func runAnywhere(_ config: EngineConfig, _ actions: [Action], ticks: UInt64?) -> (FlightComputer, [String], [String], [String]) {
        var fc = FlightComputer(config: config)
        var events: [Event] = [], outcomes: [String] = [], kept: [String] = [], problems: [String] = []
        var rng = ticks.map { RandomFlight.LCG(seed: $0 &+ 78) }
        var latestTick = -Double.infinity, distance = 0.0
        for (i, a) in actions.enumerated() {
            if rng != nil, rng!.chance(0.08) {
                var next = Double.nan, bound = Double.infinity
                for b in actions[i...] {
                    switch b {
                    case .input(let input): if next.isNaN { next = input.t }
                    case .command(_, let t), .lap(let t): bound = t
                    }
                    if bound.isFinite { break }
                }
                // (From a second before the next input, inside a gap before it, to a minute past it.)
                let at = min(bound, (next.isNaN ? bound : next) + rng!.between(-1, 60))
                if at.isFinite, at > latestTick, !(at <= fc.now) {
                    do throws(RunwayError) { try fc.tick(at: at, wallClock: .nan, events: &events); latestTick = at }
                    catch { Issue.record("tick at \(at): \(error)") }
                }
            }
            outcomes.append(Self.perform(a, i, on: &fc, &events))
            // The invariants, after every action of the ticked flight too: moving time never over
            // the elapsed time (as of the latest input or command, which a tick may have passed),
            // the distance never less.
            if fc.movingS > fc.clock.measuredElapsed(in: fc.phase) + 1e-6 {
                problems.append("\(i) moving \(fc.movingS) s over elapsed \(fc.clock.measuredElapsed(in: fc.phase)) s")
            }
            if fc.distance < distance - 1e-9 { problems.append("\(i) distance \(fc.distance) m, before \(distance) m") }
            distance = fc.distance
            for e in events {
                switch e.body {
                case .phase, .split: kept.append("\(i) t \(e.t) \(e.body)")
                case .alert(let a): kept.append("\(i) t \(e.t) alert \(a.code) \(a.t) \(a.values.sorted { $0.key < $1.key })")
                default: break
                }
            }
            events.removeAll(keepingCapacity: true)
        }
        return (fc, outcomes, kept, problems)
    }

    @Test func stillAndDropoutFlightsDeliveredInLateBatchesAreTheFlightsWithoutTheTicks() {
        let count = UInt64(getenv("RUNWAY_LATE_BATCH_FLIGHTS").flatMap { Int(String(cString: $0)) } ?? 150)
        var differ: [String] = []
        for seed in 1...count {
            let (name, config, actions) = Self.stillFlight(seed: seed)
            let (plain, a, ea, _) = Self.runAnywhere(config, actions, ticks: nil)
            let (ticked, b, eb, problems) = Self.runAnywhere(config, actions, ticks: seed)
            if let p = problems.first { differ.append("flight \(seed) (\(name)): \(p)") }
            if a != b { differ.append("flight \(seed) (\(name)): outcomes \(zip(a, b).first { $0 != $1 }.map { "\($0) / \($1)" } ?? "")"); continue }
            let x = plain.summaryJSON(), y = ticked.summaryJSON()
            if x != y {
                let xs = x.split(separator: ","), ys = y.split(separator: ",")
                let first = zip(xs, ys).first { $0 != $1 }.map { "\($0) / \($1)" } ?? "length"
                differ.append("flight \(seed) (\(name)): \(first)")
                continue
            }
            if plain.route.points != ticked.route.points || plain.route.segmentStarts != ticked.route.segmentStarts {
                let first = zip(plain.route.points, ticked.route.points).first { $0 != $1 }
                differ.append("flight \(seed) (\(name)): route \(plain.route.count) / \(ticked.route.count) points; the first that differs \(first.map { "\($0) / \($1)" } ?? "none")")
            }
            // (The laps add up to the flight.)
            let laps = ticked.laps.laps
            let lapM = laps.reduce(0) { $0 + $1.distanceM }, lapS = laps.reduce(0) { $0 + $1.elapsedS }
            if !laps.isEmpty, abs(lapM - ticked.distance) > 1e-6 * max(1, ticked.distance) || abs(lapS - ticked.elapsed) > 1e-6 * max(1, ticked.elapsed) {
                differ.append("flight \(seed) (\(name)): laps add up to \(lapM) m, \(lapS) s; the flight \(ticked.distance) m, \(ticked.elapsed) s")
            }
            if ea != eb {
                let first = zip(ea, eb).first { $0 != $1 }.map { "\($0) / \($1)" } ?? "count \(ea.count) / \(eb.count)"
                differ.append("flight \(seed) (\(name)): events \(first)")
            }
        }
        #expect(differ.isEmpty, "\(differ.count) of \(count) flights differ:\n\(differ.prefix(30).joined(separator: "\n"))")
    }
}
