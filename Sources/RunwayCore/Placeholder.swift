public let runwayCoreVersion = "0.1.0"
