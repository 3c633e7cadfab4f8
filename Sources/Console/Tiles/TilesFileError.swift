/// Why a file cannot be the console's base map: each case one line that says what to do.
public enum TilesFileError: Error, Sendable, Equatable, CustomStringConvertible {
    case noSuchFile
    case notSQLite(String)
    case notMBTiles(String)
    case noTiles
    case vectorTiles
    case unsupportedFormat(String)
    case unreadable(String)

    public var description: String {
        switch self {
        case .noSuchFile: "no such file"
        case .notSQLite(let message): "not an SQLite database (\(message)); an MBTiles file is one"
        case .notMBTiles(let what): "not an MBTiles file: \(what)"
        case .noTiles: "the MBTiles file holds no tiles"
        case .vectorTiles:
            "holds vector tiles (pbf); the console draws raster tiles (png, jpg, webp): render them first, e.g. "
                + "with tileserver-gl, or make a raster file (docs/console.md)"
        case .unsupportedFormat(let format): "tile format \"\(format.prefix(40))\" is not png, jpg or webp"
        case .unreadable(let message): "cannot be read: \(message)"
        }
    }
}
