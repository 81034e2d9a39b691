/// Placeholder: the simulator lands in the accuracy work.
public enum RunSimulatorVersion { public static let value = 0 }
