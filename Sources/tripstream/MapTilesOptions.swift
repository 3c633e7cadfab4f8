import CommandLineKit
import Console

/// `--tiles-file FILE.mbtiles` or `--tiles URL-TEMPLATE`: the console's base map, shared by `console` and `demo`.
enum MapTilesOptions {
    static let specs: [OptionSpec] = [
        .value("tiles-file", valueName: "file.mbtiles",
               help: "A raster MBTiles file (png, jpg or webp tiles) the console serves under the map: no internet "
                   + "needed. docs/console.md says where to get one and how to make one."),
        .value("tiles", valueName: "url-template",
               help: "A tile server the fleet runs, drawn under the map: http(s)://host/{z}/{x}/{y}.png."),
    ]

    /// The base map the options name; nil for none. A wrong file or template is one line naming it.
    static func read(_ parsed: ParsedArguments) throws -> MapTiles? {
        let file = try parsed.optional("tiles-file", parsed.string)
        let template = try parsed.optional("tiles", parsed.string)
        switch (file, template) {
        case (nil, nil):
            return nil
        case (.some, .some):
            throw CommandFailure("--tiles-file and --tiles: give one base map, not both")
        case (.some(let path), nil):
            do {
                return .file(try MBTilesFile(path: path))
            } catch {
                throw CommandFailure("--tiles-file \(path): \(error)")
            }
        case (nil, .some(let template)):
            if let problem = MapTiles.problem(template: template) { throw CommandFailure("--tiles \(template): \(problem)") }
            return .server(template: template)
        }
    }
}
