import HTTPServing
import Foundation
import Testing

@testable import Console

/// The pages' files in Sources/Console/Web are in the binary, byte for byte, and served with their types.
@Suite(.timeLimit(.minutes(5))) struct WebFilesTests {
    /// Sources/Console/Web, found from this file's place in the repository.
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../Sources/Console/Web").standardized

    static func filesOnDisk() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path)
            .filter { ["html", "css", "js"].contains(($0 as NSString).pathExtension) }.sorted()
    }

    @Test func everyWebFileIsEmbeddedAsItIsOnDisk() throws {
        let names = try Self.filesOnDisk()
        #expect(names.contains("console.js") && names.contains("console.html") && names.contains("console.css"))
        #expect(Set(WebFiles.all.keys) == Set(names))
        for name in names {
            let disk = try Data(contentsOf: Self.directory.appendingPathComponent(name))
            #expect(WebFiles.all[name] == Array(disk), "\(name) differs from the file: rebuild")
        }
    }

    @Test func scriptsAndStylesAreServedWithTheirTypes() throws {
        let routes = ConsoleRoutesTests().routes()
        for name in try Self.filesOnDisk() where !name.hasSuffix(".html") {
            let answer = ConsoleRoutesTests().get(routes, "/assets/" + name)
            #expect(answer.status == 200, "\(name)")
            let type = answer.response.headers.first { $0.name == "Content-Type" }?.value
            #expect(type == (name.hasSuffix(".js") ? "text/javascript; charset=utf-8" : "text/css; charset=utf-8"))
        }
        #expect(ConsoleRoutesTests().get(routes, "/assets/console.html").status == 404)  // pages have their own paths
        #expect(ConsoleRoutesTests().get(routes, "/assets/../Package.swift").status == 404)
    }

    @Test func everyAssetAPageNamesIsServed() {
        let routes = ConsoleRoutesTests().routes()
        for page in ["console.html", "tracking.html", "refused.html"] {
            let html = String(decoding: WebFiles.all[page] ?? [], as: UTF8.self)
            let assets = html.matches(of: /"\/assets\/([^"]+)"/).map { String($0.output.1) }
            #expect(!assets.isEmpty, "\(page)")
            for asset in assets { #expect(ConsoleRoutesTests().get(routes, "/assets/" + asset).status == 200, "\(page): \(asset)") }
        }
    }

    @Test func aRefusedLinksPageEscapesItsMessage() {
        let page = String(decoding: WebFiles.refusedPage("a <b> & \"c\""), as: UTF8.self)
        #expect(page.contains("<p class=\"refused\">a &lt;b&gt; &amp; &quot;c&quot;</p>"))
        #expect(!page.contains("{{message}}"))
    }
}
