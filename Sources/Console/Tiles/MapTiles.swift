/// The base map drawn under the drivers and geofences.
public enum MapTiles: Sendable {
    /// A tile server the fleet runs: the pages fetch `https://…/{z}/{x}/{y}.png` from it themselves.
    case server(template: String)
    /// A raster MBTiles file the console serves at `/tiles/{z}/{x}/{y}.<format>`: no internet needed.
    case file(MBTilesFile)

    /// The template the pages fill in.
    var template: String {
        switch self {
        case .server(let template): template
        case .file(let file): "/tiles/{z}/{x}/{y}.\(file.format.rawValue)"
        }
    }

    /// The deepest zoom with tiles (the pages scale those up beyond it); nil: the server's own, up to 19.
    var maxZoom: Int? {
        guard case .file(let file) = self else { return nil }
        return file.maxZoom
    }

    var attribution: String? {
        guard case .file(let file) = self else { return nil }
        return file.attribution
    }

    /// Where the pages may load images from (`img-src`): the console itself, and a tile server's origin.
    var imageSources: String {
        switch self {
        case .file: "'self' data:"
        case .server(let template): "'self' data: \(Self.origin(template) ?? "")"
        }
    }

    /// What is wrong with a tile server's URL template, or nil: http(s), {z}, {x} and {y}, nothing that could
    /// break out of the header it is named in.
    public static func problem(template: String) -> String? {
        if template.contains("{s}") { return "name one host: {s} (a choice of subdomains) is not supported" }
        guard origin(template) != nil else { return "give an http:// or https:// URL with its host" }
        for placeholder in ["{z}", "{x}", "{y}"] where !template.contains(placeholder) {
            return "the URL has no \(placeholder)"
        }
        if template.contains(where: { $0.isWhitespace || $0 == "\"" || $0 == "'" || $0 == ";" || $0 == "," || $0.asciiValue.map { $0 < 0x20 } == true }) {
            return "the URL holds a space, a quote, ';' or ','"
        }
        return nil
    }

    /// `https://tiles.example:8080` of `https://tiles.example:8080/{z}/{x}/{y}.png`; nil without a plain host.
    static func origin(_ template: String) -> String? {
        let schemes = ["https://", "http://"]
        guard let scheme = schemes.first(where: { template.lowercased().hasPrefix($0) }) else { return nil }
        let rest = template.dropFirst(scheme.count)
        let host = rest.prefix { $0 != "/" }
        guard !host.isEmpty, host.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || ".-:[]".contains($0)) })
        else { return nil }
        return scheme + host
    }
}
