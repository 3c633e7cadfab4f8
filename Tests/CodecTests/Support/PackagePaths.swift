import Foundation

/// Paths computed from this file's location, so the repository holds no machine-specific path.
enum PackagePaths {
    /// The package root: Tests/CodecTests/Support/PackagePaths.swift, three levels up.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
    static let schemas = root.appendingPathComponent("schemas")
    /// The shared data sets live beside the checkout: `<root>/../shared/data`.
    static let sharedData = root.deletingLastPathComponent().appendingPathComponent("shared/data")
}
