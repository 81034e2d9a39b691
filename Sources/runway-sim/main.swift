// runway-sim: prints a simulated GPS run as librunway JSON Lines (stdout) and its truth (stderr).
#if canImport(Glibc)
import Glibc
#endif
import RunwaySim

let usage = """
    usage: runway-sim [--seed N] [--lat X --lon Y] [--length M] [--laps N] [--pace MIN]
                      [--stop DIST:SECONDS]... [--stand-before S] [--stand-after S] [--hz HZ]
                      [--doppler-scale F] [--no-speed] [--no-course] [--no-accuracy] [--no-altitude]
                      [--spike INDEX:null|INDEX:OFFSET_M]... [--truth]
                      [--motion run|walk|ride] [--standing-doppler SIGMA] [--course-when-slow]
                      [--hills harmonics|sine|ramp|stepped] [--hill-m A]
                      [--altitude-error clean|gps|barometric] [--barometer] [--v-acc]
                      [--position-error SIGMA:TAU:WHITE]

    Simulates a run round a closed loop (default: 5.5 km at 5:00 min/km round 52.37, 4.89,
    1 Hz, GPS error Gauss-Markov sigma 4 m, tau 60 s, plus 0.7 m white noise per axis).
    Prints one librunway fix per line on stdout (--truth adds true_lat, true_lon, true_d,
    true_path: the distance along the path the runner really covered, for pace, and
    true_alt: the terrain's altitude) and
    the truth as one JSON object on stderr:
      {"truth_distance_m":...,"moving_s":...,"elapsed_s":...,"gain_m":...,"loss_m":...,"fixes":N}

      --seed N              random seed (unsigned 64-bit), default 1
      --lat X --lon Y       loop centre in degrees (lat -80...80)
      --length M            loop length in metres, default 5500
      --laps N              times round (fractions allowed), default 1
      --pace MIN            steady pace in minutes per km, default 5
      --pace-variation F    spread of the slow pace variation, a fraction 0...0.3 (default
                            0.03); 0 is a steady run, slowed only by corners
      --stop DIST:SECONDS   stand still at DIST metres along the path (repeatable)
      --stand-before S      stand S seconds before starting; --stand-after S at the end
      --hz HZ               fixes per second, default 1
      --doppler-scale F     Doppler speed scale error, 0...10 (0.93 reads 7% slow), default 1
      --no-speed, --no-course, --no-accuracy, --no-altitude   leave that field out
      --spike INDEX:null    replace fix INDEX with (0,0); INDEX:OFFSET_M moves it OFFSET_M
                            metres from the true position (repeatable)
      --truth               add the true position and distances to each line
      --motion M            run (5:00 min/km), walk (11:00) or ride (27 km/h): sets the pace
      --standing-doppler S  Doppler noise per axis while standing, m/s (default: as moving, 0.1)
      --course-when-slow    report the course below 0.5 m/s too (standing: noise)
      --hills SHAPE         hill shape (default harmonics); sine, ramp, stepped climb 2A a lap
      --hill-m A            hill amplitude A in metres (default 15)
      --altitude-error M    altitude error model: clean, gps (Gauss-Markov 3 m, 60 s, plus
                            0.5 m white), barometric (0.2 m white plus 1 m/sqrt(h) drift)
      --barometer           altitude as {"type":"altimeter"} lines, not on the fixes
      --v-acc               fixes carry v_acc (the altitude error's sigma)
      --position-error S:T:W  receiver error per axis: Gauss-Markov sigma S m, time constant
                            T s, plus W m white (default 4:60:0.7; 0:60:0 is a clean track)

    """

/// Writes `text` to stderr (file descriptor 2: Glibc's `stderr` is a global var, which
/// strict concurrency rejects).
func printError(_ text: String) {
    var copy = text
    copy.withUTF8 { buffer in
        var offset = 0
        while offset < buffer.count {
            let n = write(2, buffer.baseAddress.map { $0 + offset }, buffer.count - offset)
            if n <= 0 { return }
            offset += n
        }
    }
}

/// Prints the usage (with a reason) to stderr and exits with status 2.
func fail(_ reason: String) -> Never {
    printError("runway-sim: \(reason)\n\(usage)")
    exit(2)
}

/// A finite number, or the usage message.
func number(_ text: String, for option: String) -> Double {
    guard let x = Double(text), x.isFinite else { fail("\(option) needs a number, got '\(text)'") }
    return x
}

/// Splits "A:B" at its first colon.
func pair(_ text: String, for option: String) -> (String, String) {
    guard let colon = text.firstIndex(of: ":") else { fail("\(option) needs A:B, got '\(text)'") }
    return (String(text[..<colon]), String(text[text.index(after: colon)...]))
}

var config = SimConfig()
var includeTruth = false
var args = CommandLine.arguments.dropFirst()
var sawLat = false, sawLon = false

while let option = args.popFirst() {
    /// The option's value, or the usage message.
    func value() -> String {
        guard let v = args.popFirst() else { fail("\(option) needs a value") }
        return v
    }
    switch option {
    case "--help", "-h":
        print(usage, terminator: "")
        exit(0)
    case "--seed":
        let v = value()
        guard let seed = UInt64(v) else { fail("--seed needs an unsigned integer, got '\(v)'") }
        config.seed = seed
    case "--lat":
        config.centerLat = number(value(), for: option)
        guard (-80.0...80.0).contains(config.centerLat) else { fail("--lat must be within -80...80") }
        sawLat = true
    case "--lon":
        config.centerLon = number(value(), for: option)
        sawLon = true
    case "--length":
        config.loopLengthM = number(value(), for: option)
        guard (10.0...100_000.0).contains(config.loopLengthM) else { fail("--length must be within 10...100000 m") }
    case "--laps":
        config.laps = number(value(), for: option)
        guard (0.0...10_000.0).contains(config.laps) else { fail("--laps must be within 0...10000") }
    case "--pace":
        config.paceMinPerKm = number(value(), for: option)
        guard (1.0...60.0).contains(config.paceMinPerKm) else { fail("--pace must be within 1...60 min/km") }
    case "--pace-variation":
        config.paceVariation = number(value(), for: option)
        guard (0.0...0.3).contains(config.paceVariation) else { fail("--pace-variation must be within 0...0.3") }
    case "--doppler-scale":
        config.dopplerScale = number(value(), for: option)
        guard (0.0...10.0).contains(config.dopplerScale) else { fail("--doppler-scale must be within 0...10") }
    case "--hz":
        config.hz = number(value(), for: option)
        guard (0.1...100.0).contains(config.hz) else { fail("--hz must be within 0.1...100") }
    case "--stop":
        let (d, s) = pair(value(), for: option)
        let at = number(d, for: option), duration = number(s, for: option)
        guard at >= 0, duration >= 0 else { fail("--stop needs DIST:SECONDS, both non-negative") }
        config.stops.append(SimStop(atDistanceM: at, durationS: duration))
    case "--stand-before":
        config.standStillBeforeS = number(value(), for: option)
        guard config.standStillBeforeS >= 0 else { fail("--stand-before must not be negative") }
    case "--stand-after":
        config.standStillAfterS = number(value(), for: option)
        guard config.standStillAfterS >= 0 else { fail("--stand-after must not be negative") }
    case "--no-speed": config.includeSpeed = false
    case "--no-course": config.includeCourse = false
    case "--no-accuracy": config.includeAccuracy = false
    case "--no-altitude": config.includeAltitude = false
    case "--spike":
        let (i, k) = pair(value(), for: option)
        guard let index = Int(i), index >= 0 else { fail("--spike needs a fix index, got '\(i)'") }
        if k == "null" {
            config.spikes.append(SimSpike(atIndex: index, kind: .nullIsland))
        } else {
            config.spikes.append(SimSpike(atIndex: index, kind: .offsetM(number(k, for: option))))
        }
    case "--truth": includeTruth = true
    case "--motion":
        let name = value()
        guard let motion = SimMotion(rawValue: name) else { fail("--motion must be run, walk or ride, got '\(name)'") }
        config.paceMinPerKm = motion.paceMinPerKm
    case "--standing-doppler":
        config.standingDopplerSigmaMps = number(value(), for: option)
        guard config.standingDopplerSigmaMps >= 0 else { fail("--standing-doppler must not be negative") }
    case "--course-when-slow": config.courseWhenSlow = true
    case "--hills":
        let name = value()
        guard let shape = SimHillShape(rawValue: name) else { fail("--hills must be harmonics, sine, ramp or stepped") }
        config.hillShape = shape
    case "--hill-m":
        config.altitudeAmplitudeM = number(value(), for: option)
        guard (0.0...1000.0).contains(config.altitudeAmplitudeM) else { fail("--hill-m must be within 0...1000") }
    case "--altitude-error":
        let name = value()
        guard let model = SimAltitudeError(rawValue: name) else { fail("--altitude-error must be clean, gps or barometric") }
        config.altitudeError = model
    case "--barometer": config.altitudeSource = .barometric
    case "--v-acc": config.includeVerticalAccuracy = true
    case "--position-error":
        let parts = value().split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 3 else { fail("--position-error needs SIGMA:TAU:WHITE") }
        let sigma = number(String(parts[0]), for: option), tau = number(String(parts[1]), for: option)
        let white = number(String(parts[2]), for: option)
        guard sigma >= 0, tau > 0, white >= 0 else { fail("--position-error needs SIGMA >= 0, TAU > 0, WHITE >= 0") }
        (config.gmSigmaM, config.gmTauS, config.whiteSigmaM) = (sigma, tau, white)
    default:
        fail("unknown option '\(option)'")
    }
}
if sawLat != sawLon { fail("--lat and --lon go together") }

let run = simulate(config)
print(run.jsonLines(includeTruth: includeTruth), terminator: "")
printError(run.truthJSON() + "\n")
