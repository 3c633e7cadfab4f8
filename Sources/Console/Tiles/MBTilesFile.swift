import SQLiteIO

import class Foundation.FileManager

/// A raster MBTiles file (the MBTiles 1.3 specification: an SQLite database with a `tiles` table and a
/// `metadata` table), the console's base map without internet. Opened read-only; checked when opened, so a
/// wrong file is one line at start instead of a blank map.
public final class MBTilesFile: Sendable {
    public enum Format: String, Sendable {
        case png, jpg, webp

        public var contentType: String {
            switch self {
            case .png: "image/png"
            case .jpg: "image/jpeg"
            case .webp: "image/webp"
            }
        }
    }

    public let path: String
    public let format: Format
    public let minZoom: Int
    public let maxZoom: Int
    /// Whom the map data is from (`metadata.attribution`), shown on the map: OpenStreetMap's licence asks it.
    public let attribution: String?
    private let database: SQLiteDatabase

    /// The deepest zoom a tile set may have: 2^30 tiles a side.
    static let deepestZoom = 30

    public init(path: String) throws(TilesFileError) {
        guard FileManager.default.fileExists(atPath: path) else { throw .noSuchFile }
        let database: SQLiteDatabase
        let tables: Set<String>
        do {
            database = try SQLiteDatabase(path: path)
            tables = Set(try database.rows("SELECT name FROM sqlite_master WHERE type IN ('table', 'view')")
                .compactMap { $0.first?.text })
        } catch {
            throw error.code == SQLiteError.notADatabase ? .notSQLite(error.message) : .unreadable(error.message)
        }
        guard tables.contains("tiles") else { throw .notMBTiles("it has no tiles table") }
        var metadata: [String: String] = [:]
        if tables.contains("metadata"), let rows = try? database.rows("SELECT name, value FROM metadata") {
            for row in rows where row.count == 2 {
                if let name = row[0].text, let value = row[1].text { metadata[name] = value }
            }
        }
        let sample: [[SQLiteValue]]
        do {
            sample = try database.rows("SELECT zoom_level, tile_column, tile_row, tile_data FROM tiles LIMIT 1")
        } catch {
            throw .notMBTiles("its tiles table lacks zoom_level, tile_column, tile_row or tile_data (\(error.message))")
        }
        guard let first = sample.first?.last?.blob, !first.isEmpty else { throw .noTiles }
        self.format = try Self.format(named: metadata["format"], sample: first)
        let zooms: [SQLiteValue]
        do {
            zooms = try database.rows("SELECT MIN(zoom_level), MAX(zoom_level) FROM tiles").first ?? []
        } catch {
            throw .unreadable(error.message)
        }
        // The tiles say which zooms there are; metadata may be missing or stale.
        guard zooms.count == 2, let low = zooms[0].integer, let high = zooms[1].integer,
            low >= 0, high <= Int64(Self.deepestZoom)
        else { throw .notMBTiles("zoom levels outside 0…\(Self.deepestZoom)") }
        self.minZoom = Int(low)
        self.maxZoom = Int(high)
        self.attribution = metadata["attribution"].flatMap { $0.isEmpty ? nil : $0 }
        self.path = path
        self.database = database
    }

    /// The format `metadata.format` names, or, without it, the one the first tile's bytes show.
    static func format(named name: String?, sample: [UInt8]) throws(TilesFileError) -> Format {
        if sample.starts(with: [0x1f, 0x8b]) { throw .vectorTiles }  // gzip: how pbf tiles are stored
        guard let name else {
            if sample.starts(with: [0x89, 0x50, 0x4e, 0x47]) { return .png }
            if sample.starts(with: [0xff, 0xd8, 0xff]) { return .jpg }
            if sample.count >= 12, sample[0..<4].elementsEqual("RIFF".utf8), sample[8..<12].elementsEqual("WEBP".utf8) {
                return .webp
            }
            throw .unsupportedFormat("unknown (no metadata format, and the first tile is no png, jpg or webp)")
        }
        switch name.lowercased() {
        case "png": return .png
        case "jpg", "jpeg": return .jpg
        case "webp": return .webp
        case "pbf", "mvt": throw .vectorTiles
        default: throw .unsupportedFormat(name)
        }
    }

    /// The tile at zoom `z`, column `x`, row `y` counted from the north (XYZ, as web maps ask for tiles); nil
    /// when the file has none. MBTiles counts rows from the south (TMS), so the row read is 2^z − 1 − y.
    public func tile(z: Int, x: Int, y: Int) throws(TilesFileError) -> [UInt8]? {
        guard (0...Self.deepestZoom).contains(z) else { return nil }
        let side = 1 << z
        guard (0..<side).contains(x), (0..<side).contains(y) else { return nil }
        do {
            let rows = try database.rows(
                "SELECT tile_data FROM tiles WHERE zoom_level = ? AND tile_column = ? AND tile_row = ?",
                [.integer(Int64(z)), .integer(Int64(x)), .integer(Int64(side - 1 - y))], limit: 1)
            return rows.first?.first?.blob
        } catch {
            throw .unreadable(error.message)
        }
    }
}
