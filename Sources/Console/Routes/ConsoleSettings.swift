/// What the console serves and how: one value, filled from the command line.
public struct ConsoleSettings: Sendable {
    /// Secret of the tracking tokens; nil disables `/track/`.
    public var trackingSecret: [UInt8]?
    public var access = ConsoleAccess(token: nil)
    /// The base map under the drivers and geofences; nil: a plain background.
    public var tiles: MapTiles?
    /// Minutes without a fix after which the map draws a driver as stale. Default: 5.
    public var staleMinutes = 5
    public init() {}
}
