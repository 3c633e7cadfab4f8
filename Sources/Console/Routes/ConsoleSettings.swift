/// What the console serves and how: one value, filled from the command line.
public struct ConsoleSettings: Sendable {
    /// Secret of the tracking tokens; nil disables `/track/`.
    public var trackingSecret: [UInt8]?
    public var access = ConsoleAccess(token: nil)
    /// A tile URL template (`https://tiles.example/{z}/{x}/{y}.png`) drawn under the map; nil: a plain background.
    public var tiles: String?
    /// Minutes without a fix after which the map draws a driver as stale. Default: 5.
    public var staleMinutes = 5
    public init() {}
}
