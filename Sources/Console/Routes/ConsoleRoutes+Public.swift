import HTTPServing

extension ConsoleRoutes {
    /// The routes strangers use (a tracking page, its data and assets) and the health probe: the server keeps a
    /// handler thread for them, so the console's slower routes (a playback reading Kafka, a 100,000-driver
    /// snapshot) cannot hold them up.
    public static func isPublic(_ request: HTTPRequest) -> Bool {
        let path = request.path
        return path.hasPrefix("/track/") || path.hasPrefix("/api/track/") || path.hasPrefix("/assets/")
            || path == "/healthz" || path == "/favicon.ico"
    }
}
