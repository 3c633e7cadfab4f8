import HTTPServing
import Foundation
import SQLiteIO
import Testing

@testable import Console

/// The base map from an MBTiles file: the file checked when opened, rows flipped from TMS, tiles served.
@Suite(.timeLimit(.minutes(5))) struct MBTilesTests {
    /// A PNG-looking tile whose last byte tells tiles apart.
    static func image(_ id: UInt8) -> [UInt8] { [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, id] }

    /// Writes an MBTiles file in a fresh temporary directory: `metadata` rows, and tiles as (z, x, TMS row, bytes).
    static func withFile(metadata: [(String, String)] = [("name", "test"), ("format", "png"), ("attribution", "© OpenStreetMap contributors")],
                         tiles: [(Int64, Int64, Int64, [UInt8])] = [(2, 1, 2, image(1)), (2, 1, 1, image(2)), (3, 0, 0, image(3))],
                         schema: String = "CREATE TABLE tiles (zoom_level INTEGER, tile_column INTEGER, tile_row INTEGER, tile_data BLOB);",
                         _ body: (String) throws -> Void) throws
    {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("mbtiles-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("map.mbtiles").path
        let database = try SQLiteDatabase(path: path, mode: .readWriteCreate)
        try database.execute("CREATE TABLE metadata (name TEXT, value TEXT);" + schema)
        for (name, value) in metadata { _ = try database.rows("INSERT INTO metadata VALUES (?, ?)", [.text(name), .text(value)]) }
        for (z, x, row, bytes) in tiles {
            _ = try database.rows("INSERT INTO tiles VALUES (?, ?, ?, ?)", [.integer(z), .integer(x), .integer(row), .blob(bytes)])
        }
        try body(path)
    }

    static func openingFails(_ path: String) -> TilesFileError? {
        do { _ = try MBTilesFile(path: path); return nil } catch { return error }
    }

    @Test func rowsCountFromTheSouthInTheFileAndFromTheNorthOnTheWeb() throws {
        try Self.withFile { path in
            let file = try MBTilesFile(path: path)
            // Zoom 2 has 4 rows: TMS row 2 is XYZ row 4 - 1 - 2 = 1, and TMS row 1 is XYZ row 2.
            #expect(try file.tile(z: 2, x: 1, y: 1) == Self.image(1))
            #expect(try file.tile(z: 2, x: 1, y: 2) == Self.image(2))
            #expect(try file.tile(z: 3, x: 0, y: 7) == Self.image(3))
            #expect(try file.tile(z: 3, x: 0, y: 0) == nil)
            #expect(try file.tile(z: 2, x: 4, y: 0) == nil)  // past the world's edge
            #expect(try file.tile(z: 2, x: 0, y: -1) == nil)
            #expect(try file.tile(z: 31, x: 0, y: 0) == nil)
            #expect(file.format == .png && file.minZoom == 2 && file.maxZoom == 3)
            #expect(file.attribution == "© OpenStreetMap contributors")
        }
    }

    @Test func withoutMetadataTheTilesSayTheirFormatAndZooms() throws {
        let jpeg: [UInt8] = [0xff, 0xd8, 0xff, 0xe0, 1]
        try Self.withFile(metadata: [], tiles: [(5, 1, 1, jpeg), (9, 1, 1, jpeg)]) { path in
            let file = try MBTilesFile(path: path)
            #expect(file.format == .jpg && file.minZoom == 5 && file.maxZoom == 9 && file.attribution == nil)
        }
        let webp = Array("RIFF\u{0}\u{0}\u{0}\u{0}WEBPVP8 ".utf8)
        try Self.withFile(metadata: [("format", "webp")], tiles: [(1, 0, 0, webp)]) { path in
            let file = try MBTilesFile(path: path)
            #expect(file.format == .webp)
        }
    }

    @Test func wrongFilesAreRefusedWhenOpened() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("mbtiles-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        #expect(Self.openingFails(directory.appendingPathComponent("missing.mbtiles").path) == .noSuchFile)
        let text = directory.appendingPathComponent("text.mbtiles")
        try Data(String(repeating: "not a database ", count: 20).utf8).write(to: text)
        #expect(Self.openingFails(text.path) == .notSQLite("file is not a database"))
        let other = directory.appendingPathComponent("other.db").path
        try SQLiteDatabase(path: other, mode: .readWriteCreate).execute("CREATE TABLE things (a)")
        #expect(Self.openingFails(other) == .notMBTiles("it has no tiles table"))
        #expect(Self.openingFails(directory.path) != nil)  // a directory

        try Self.withFile(tiles: []) { #expect(Self.openingFails($0) == .noTiles) }
        try Self.withFile(metadata: [("format", "pbf")]) { #expect(Self.openingFails($0) == .vectorTiles) }
        try Self.withFile(metadata: [], tiles: [(0, 0, 0, [0x1f, 0x8b, 8, 0])]) { #expect(Self.openingFails($0) == .vectorTiles) }
        try Self.withFile(metadata: [("format", "tiff")]) { #expect(Self.openingFails($0) == .unsupportedFormat("tiff")) }
        try Self.withFile(metadata: [], tiles: [(0, 0, 0, [1, 2, 3])]) {
            #expect(Self.openingFails($0) == .unsupportedFormat("unknown (no metadata format, and the first tile is no png, jpg or webp)"))
        }
        try Self.withFile(tiles: [], schema: "CREATE TABLE tiles (z, x, y, data); INSERT INTO tiles VALUES (0, 0, 0, x'00');") {
            guard case .notMBTiles(let what) = Self.openingFails($0) else { Issue.record("opened"); return }
            #expect(what.hasPrefix("its tiles table lacks zoom_level"))
        }
        // Every refusal reads as one line.
        let all: [TilesFileError] = [.noSuchFile, .notSQLite("x"), .notMBTiles("x"), .noTiles, .vectorTiles, .unsupportedFormat("x"), .unreadable("x")]
        #expect(all.allSatisfy { !$0.description.contains("\n") })
    }

    @Test func theConsoleServesTheFilesTilesToAnyone() throws {
        try Self.withFile { path in
            var settings = ConsoleSettings()
            settings.tiles = .file(try MBTilesFile(path: path))
            settings.access = ConsoleAccess(token: "0123456789abcdef-token")  // the tiles need none: the tracking page draws them
            let routes = ConsoleRoutes(store: FleetStore(topics: Fixtures.topics), hub: LiveHub(), metrics: nil,
                                       settings: settings, now: { 0 })
            let test = ConsoleRoutesTests()
            let found = test.get(routes, "/tiles/2/1/1.png")
            #expect(found.status == 200)
            guard case .bytes(let bytes) = found.response.body else { Issue.record("no bytes"); return }
            #expect(bytes == Self.image(1))
            #expect(found.response.headers.contains { $0 == ("Content-Type", "image/png") })
            #expect(test.get(routes, "/tiles/3/0/0.png").status == 204)  // none there: the background shows
            for wrong in ["/tiles/2/1/1.jpg", "/tiles/2/1/1", "/tiles/a/1/1.png", "/tiles/2/1.png", "/tiles/2/1/1/1.png",
                          "/tiles/-2/1/1.png", "/tiles/99999999999/1/1.png"]
            {
                #expect(test.get(routes, wrong).status == 404, "\(wrong)")
            }
            let map = test.get(routes, "/api/map")
            #expect(map.status == 200)
            #expect(map.body == #"{"tiles":"/tiles/{z}/{x}/{y}.png","tilesMaxZoom":3,"tilesAttribution":"© OpenStreetMap contributors"}"#)
            let csp = found.response.headers.first { $0.name == "Content-Security-Policy" }?.value ?? ""
            #expect(csp.contains("img-src 'self' data:;"))
        }
    }

    @Test func aTileServerIsNamedInTheConfigAndAllowedAsAnImageSource() {
        var settings = ConsoleSettings()
        settings.tiles = .server(template: "https://tiles.example:8080/osm/{z}/{x}/{y}.png")
        let routes = ConsoleRoutes(store: FleetStore(topics: Fixtures.topics), hub: LiveHub(), metrics: nil, settings: settings,
                                   now: { 0 })
        let config = ConsoleRoutesTests().get(routes, "/api/config")
        #expect(config.body.hasPrefix(#"{"map":{"tiles":"https://tiles.example:8080/osm/{z}/{x}/{y}.png","tilesMaxZoom":null,"tilesAttribution":null},"#))
        let csp = config.response.headers.first { $0.name == "Content-Security-Policy" }?.value ?? ""
        #expect(csp.contains("img-src 'self' data: https://tiles.example:8080;"))
        #expect(ConsoleRoutesTests().get(routes, "/tiles/0/0/0.png").status == 404)
    }

    @Test func tileServerTemplatesAreChecked() {
        #expect(MapTiles.problem(template: "https://tile.openstreetmap.org/{z}/{x}/{y}.png") == nil)
        #expect(MapTiles.problem(template: "http://10.0.0.5:8080/{z}/{x}/{y}.png") == nil)
        #expect(MapTiles.problem(template: "tiles/{z}/{x}/{y}.png") != nil)
        #expect(MapTiles.problem(template: "ftp://host/{z}/{x}/{y}.png") != nil)
        #expect(MapTiles.problem(template: "https://host/{z}/{x}.png") == "the URL has no {y}")
        #expect(MapTiles.problem(template: "https://{s}.tile.example/{z}/{x}/{y}.png")?.contains("{s}") == true)
        #expect(MapTiles.problem(template: "https://host/{z}/{x}/{y}.png; script-src *") != nil)
        #expect(MapTiles.problem(template: "https://host/{z}/{x}/{y}.png\r\nX: y") != nil)
    }
}
