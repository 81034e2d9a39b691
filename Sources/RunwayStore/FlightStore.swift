import CSQLite
import RunwayCore

/// Placeholder: the SQLite flight store lands with the store work.
public enum FlightStoreVersion { public static let schema = 0 }
